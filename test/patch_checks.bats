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

# The control keeps v2's walk and unlinks nothing: v2's check, expecting
# every covered empty table to stay linked; run on v2's own tree (which
# unlinks them) it must fail.
@test "patch check: tdp-mmu-no-unlink-control's zap walk unlinks nothing (random tables, ASan)" {
	check tdp-mmu-no-unlink-control x86_64
	assert_line --regexp '^no-unlink: [1-9][0-9]* covered empty tables kept linked$'
	run "$ROOT/patches/tdp-mmu-no-unlink-control/check/run.sh" \
		"$CACHE/kernel/trees/tdp-mmu-unlink-empty-leaf-tables-x86_64" 200
	assert_failure
	assert_line --regexp '^it [0-9]+ table gfn [0-9a-f]+ covered 1 had_present 0 freed 1 '
}

@test "patch check: arm64-dirty-log-init-set-valid-entries' marking (random tables, ASan)" {
	check arm64-dirty-log-init-set-valid-entries arm64
}
