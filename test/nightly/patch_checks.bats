#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
# The series' userspace checks at their full size, the nightly's (ci/nightly's
# tests step): each harness's own count of random page tables (2000 for
# the TDP MMU walk, 300 for arm64's marking).  make test runs the same
# checks on fewer (test/patch_checks.bats).
load ../helpers

# full BASE SERIES ARCH: its check/run.sh on its tree, as many as it does.
full() {
	local tree=$CACHE/kernel/trees/$1/$2-$3
	[[ -d $tree/arch ]] || fail "no patched tree $tree (test/kernels.bats failed?)"
	run "$ROOT/patches/$1/$2/check/run.sh" "$tree"
	assert_success
	assert_line --regexp '^OK (2000|300) iterations$'
}

@test "patch checks at full size: the TDP MMU walk of v2 and its control, both bases" {
	local b
	for b in 6.1 6.12; do
		full "$b" tdp-mmu-unlink-empty-leaf-tables x86_64
		full "$b" tdp-mmu-no-unlink-control x86_64
		assert_line --regexp '^no-unlink: [1-9][0-9]* covered empty tables kept linked$'
	done
}

@test "patch checks at full size: arm64's init-set marking, both bases" {
	full 6.1 arm64-dirty-log-init-set-valid-entries arm64
	full 6.12 arm64-dirty-log-init-set-valid-entries arm64
}
