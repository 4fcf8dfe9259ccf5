#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
# The userspace checks of the series (patches/BASE/*/check/run.sh): the
# ported functions, copied out of the patched tree that test/kernels.bats
# built, run with ASan/UBSan over random page tables.  Each base's port
# is checked against its own tree.
load helpers

# check BASE SERIES ARCH: its check/run.sh on its kernel tree, for a
# seventh of the x86 checks' 2000 random trees (300: still about 16,000
# empty tables unlinked in 6.12's, against 109,000) and a third of
# arm64's 300; the nightly runs them whole (test/nightly/patch_checks.bats).
check() {
	local tree=$CACHE/kernel/trees/$1/$2-$3 n=300
	[[ $3 != arm64 ]] || n=100
	# Each check compiles against its tree and runs with ASan.
	[[ $MMUB_TIER != check ]] || skip "make check builds and reads no kernel tree: make test runs this"
	[[ -d $tree/arch ]] || fail "no patched tree $tree (test/kernels.bats failed?)"
	run "$ROOT/patches/$1/$2/check/run.sh" "$tree" "$n"
	assert_success
	assert_line "OK $n iterations"
}

# The control keeps v2's walk and unlinks nothing: v2's check, expecting
# every covered empty table to stay linked; run on v2's own tree (which
# unlinks them) it must fail.
control() { # BASE
	check "$1" tdp-mmu-no-unlink-control x86_64
	assert_line --regexp '^no-unlink: [1-9][0-9]* covered empty tables kept linked$'
	run "$ROOT/patches/$1/tdp-mmu-no-unlink-control/check/run.sh" \
		"$CACHE/kernel/trees/$1/tdp-mmu-unlink-empty-leaf-tables-x86_64" 200
	assert_failure
	assert_line --regexp '^it [0-9]+ table gfn [0-9a-f]+ covered 1 had_present 0 freed 1 '
}

# v2's check on the original tree, which unlinks nothing: it must fail.
v2_fails_on_original() { # BASE
	[[ $MMUB_TIER != check ]] || skip "make check builds and reads no kernel tree: make test runs this"
	run "$ROOT/patches/$1/tdp-mmu-unlink-empty-leaf-tables/check/run.sh" \
		"$CACHE/kernel/trees/$1/original-x86_64" 200
	assert_failure
	assert_line --regexp '^it [0-9]+ table gfn [0-9a-f]+ covered 1 had_present 0 freed 0'
}

@test "patch check (6.1): tdp-mmu-unlink-empty-leaf-tables' zap walk (random tables, ASan)" {
	check 6.1 tdp-mmu-unlink-empty-leaf-tables x86_64
}

@test "patch check (6.12): tdp-mmu-unlink-empty-leaf-tables' zap walk (random tables, ASan); the original fails it" {
	check 6.12 tdp-mmu-unlink-empty-leaf-tables x86_64
	v2_fails_on_original 6.12
}

@test "patch check (6.1): tdp-mmu-no-unlink-control's zap walk unlinks nothing (random tables, ASan)" {
	control 6.1
}

@test "patch check (6.12): tdp-mmu-no-unlink-control's zap walk unlinks nothing (random tables, ASan)" {
	control 6.12
}

@test "patch check (6.1): arm64-dirty-log-init-set-valid-entries' marking (random tables, ASan)" {
	check 6.1 arm64-dirty-log-init-set-valid-entries arm64
}

@test "patch check (6.12): arm64-dirty-log-init-set-valid-entries' marking (random tables, ASan)" {
	check 6.12 arm64-dirty-log-init-set-valid-entries arm64
}
