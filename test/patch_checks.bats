#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
# The userspace checks of the series (patches/*/check/run.sh): the ported
# functions, copied out of the patched tree that test/kernels.bats built,
# run with ASan/UBSan over random page tables.
load helpers

# check SERIES ARCH: its check/run.sh on its kernel tree.
check() {
	local tree=$CACHE/kernel/trees/$1-$2
	[[ -d $tree/arch ]] || fail "no patched tree $tree (test/kernels.bats failed?)"
	run "$ROOT/patches/$1/check/run.sh" "$tree"
	assert_success
	assert_line --regexp '^OK [1-9][0-9]* iterations$'
}

@test "patch check: tdp-mmu-unlink-empty-leaf-tables' zap walk (random tables, ASan)" {
	check tdp-mmu-unlink-empty-leaf-tables x86_64
}

@test "patch check: arm64-dirty-log-init-set-valid-entries' marking (random tables, ASan)" {
	check arm64-dirty-log-init-set-valid-entries arm64
}
