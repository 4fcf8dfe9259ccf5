#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
# The user's own kernel (--kernel-src): tools/ab.sh on a git tree at two
# commits and on a source tarball with mboxes, each side a kernel built
# by lib/kernel/build.sh --kernel-src.  Seed 001 is the change: its 6.12
# port as a commit, or as the mbox git format-patch wrote, must show the
# effect test/unlink_empty_tables.bats shows on patches/6.12 (TDP MMU page
# tables freed during same-range zaps: none on the original, 1 or more
# with v2, none with the no-unlink control; why not 2: that file).
#
# Both sources are Debian's 6.12 in content, so their first side reuses
# the 6.12 original test/kernels.bats built and every other side is an
# incremental build on it: the cost of a cold build is not the test's.
load helpers

SERIES=tdp-mmu-unlink-empty-leaf-tables
CONTROL=tdp-mmu-no-unlink-control
ZAP_ARGS=(zap --zap same4 -v 1 -b 16m --zap-count 20)
TARBALL=/usr/src/linux-source-6.12.tar.xz

# freed JSON: the TDP MMU tables its run freed during the zaps.
freed() {
	json_val "$1" .results.runs[0].zap.kernel_tables_freed
}

ab_src() { # OUT SRC SIDES
	run "$ROOT/tools/ab.sh" --kernel-src "$2" --sides "$3" --arch x86_64 --repeat 1 \
		--out "$1" --mmubench "$MMUBENCH" --guest "$GUEST" -- "${ZAP_ARGS[@]}"
}

@test "ab --kernel-src: a git tree at two commits, built on Debian's 6.12, shows seed 001's effect" {
	[[ $ARCH == x86_64 ]] || skip "an x86 TDP MMU series"
	require_series original x86_64 6.12
	local repo=$BATS_TEST_TMPDIR/linux out=$BATS_TEST_TMPDIR/ab fa fb c0 c1
	kernel_repo "$repo" "$SERIES"
	c0=$(git -C "$repo" rev-parse HEAD~1) c1=$(git -C "$repo" rev-parse HEAD)
	ab_src "$out" "$repo" original=HEAD~1,v2=HEAD
	assert_success
	ab_redone "$out"
	# Each side is the commit its ref named when the experiment began.
	run cat "$out/sides.txt"
	assert_output "original	$c0
v2	$c1"
	# The first commit is Debian's 6.12 (the same tree): its build is
	# the one already made; the second is a diff built on it (or that
	# build again, cached by the trees and the diff), never a cold build.
	run cat "$out/build-original.log"
	assert_line --regexp "^lib/kernel/build.sh: ${c0:0:12} is linux-source-6.12 \\(tree [0-9a-f]{40}\\): its build seeds$"
	assert_line --regexp "cache hit: $CACHE/kernel/trees/6.12/original-x86_64\\.[0-9a-f]{16}/"
	run cat "$out/build-v2.log"
	refute_output --partial "git archive"
	refute_output --partial "original configure"
	assert_output --regexp "(v2 seed build dir|cache hit: $CACHE/kernel/trees/git-[0-9a-f]{40}/v2-x86_64\\.[0-9a-f]{16}/)"
	assert_json "$out/runs/A-1.json" '.env | .kernel_base == "6.12" and .kernel_series == "original"'
	assert_json "$out/runs/B-1.json" '.env | .kernel_base == "6.12" and .kernel_series == "v2"'
	assert_json "$out/compare.json" '[.sides[].label] == ["original@6.12", "v2@6.12"]'
	fa=$(freed "$out/runs/A-1.json") fb=$(freed "$out/runs/B-1.json")
	echo "# git tree: tables freed: original $fa, v2 $fb" >&3
	assert_equal "$fa" 0
	((fb >= 1)) || fail "the v2 commit's kernel freed $fb tables, expected >= 1"
	run grep -c -- "--kernel-src $repo --sides original=HEAD~1\\\\,v2=HEAD" "$out/command.txt"
	assert_output 1
}

@test "ab --kernel-src: a source tarball, as it is and with two mboxes (one and two messages)" {
	[[ $ARCH == x86_64 ]] || skip "an x86 TDP MMU series"
	require_series original x86_64 6.12
	[[ -f $TARBALL ]] || fail "no $TARBALL (apt-get install linux-source-6.12)"
	local out=$BATS_TEST_TMPDIR/ab v2=$BATS_TEST_TMPDIR/v2.mbox
	local ctl=$BATS_TEST_TMPDIR/control.mbox fa fb fc
	# git format-patch files, one after the other: an mbox.
	cat "$ROOT/patches/6.12/$SERIES"/*.patch >"$v2"
	cat "$ROOT/patches/6.12/$CONTROL"/*.patch >"$ctl"
	run grep -c '^From [0-9a-f]\{40\} ' "$ctl"
	assert_output 2
	ab_src "$out" "$TARBALL" "original=,v2=$v2,control=$ctl"
	assert_success
	ab_redone "$out"
	run cat "$out/build-original.log"
	assert_line "lib/kernel/build.sh: linux-source-6.12.tar.xz is linux-source-6.12: its build seeds"
	assert_json "$out/runs/C-1.json" '.env | .kernel_base == "6.12" and .kernel_series == "control"'
	assert_json "$out/compare.json" '[.sides[].label] == ["original@6.12", "v2@6.12", "control@6.12"]'
	fa=$(freed "$out/runs/A-1.json") fb=$(freed "$out/runs/B-1.json")
	fc=$(freed "$out/runs/C-1.json")
	echo "# tarball: tables freed: original $fa, v2 $fb, control $fc" >&3
	assert_equal "$fa" 0
	((fb >= 1)) || fail "the v2 mbox's kernel freed $fb tables, expected >= 1"
	# The control's second message undoes what its first (v2) does: a
	# control that frees tables would be its first message alone.
	assert_equal "$fc" 0
	run cat "$out/sides.txt"
	assert_output "original	(the tarball as it is)
v2	$v2
control	$ctl"
}

@test "ab --kernel-src: bad input is one line and exit 2, before any kernel builds" {
	local repo=$BATS_TEST_TMPDIR/tiny out=$BATS_TEST_TMPDIR/ab
	git init -q "$repo"
	echo tiny >"$repo/f"
	git -C "$repo" add f
	git -C "$repo" -c user.name=t -c user.email=t@invalid commit -q -m tiny
	run "$ROOT/tools/ab.sh" --kernel-src "$BATS_TEST_TMPDIR/none" --sides a=x,b=y -- zap
	assert_equal "$status" 2
	assert_output "tools/ab.sh: error: --kernel-src $BATS_TEST_TMPDIR/none: no such git tree or tarball"
	run "$ROOT/tools/ab.sh" --kernel-src "$repo" -- zap
	assert_equal "$status" 2
	assert_output --partial "--kernel-src needs --sides NAME=WHAT,NAME=WHAT"
	run "$ROOT/tools/ab.sh" --kernel-src "$repo" --sides a=HEAD -- zap
	assert_equal "$status" 2
	assert_output "tools/ab.sh: error: --sides a=HEAD: 2 to 8 sides, NAME=WHAT joined by commas"
	run "$ROOT/tools/ab.sh" --kernel-src "$repo" --sides a=HEAD,b=nope -- zap
	assert_equal "$status" 2
	assert_output "tools/ab.sh: error: --sides b=nope: not a commit of $repo (a git tree's side is a ref)"
	run "$ROOT/tools/ab.sh" --kernel-src "$repo" --sides a=HEAD,a=HEAD -- zap
	assert_equal "$status" 2
	assert_output "tools/ab.sh: error: --sides a=HEAD,a=HEAD: a is named twice"
	run "$ROOT/tools/ab.sh" --kernel-src "$repo" --sides a/b=HEAD,c=HEAD -- zap
	assert_equal "$status" 2
	assert_output --partial "side name 'a/b': letters, digits"
	run "$ROOT/tools/ab.sh" --kernel-src "$repo" --sides a=HEAD,original=HEAD -- zap
	assert_equal "$status" 2
	assert_output --partial "original names the unchanged source"
	run "$ROOT/tools/ab.sh" --kernel-src "$repo" --sides a=HEAD,b=HEAD --series x -- zap
	assert_equal "$status" 2
	assert_output "tools/ab.sh: error: --series and --kernel-src: one of them (the sides of --kernel-src are --sides)"
	run "$ROOT/tools/ab.sh" --kernel-src "$repo" --sides a=HEAD,b=HEAD --kernel 6.12 -- zap
	assert_equal "$status" 2
	assert_output --partial "--kernel and --kernel-src: one of them"
	run "$ROOT/tools/ab.sh" --sides a=HEAD,b=HEAD -- zap
	assert_equal "$status" 2
	assert_output "tools/ab.sh: error: --sides: only with --kernel-src (Debian's bases take --series)"
	run "$ROOT/tools/ab.sh" --kernel-src "$repo/f" --sides a=,b=none -- zap
	assert_equal "$status" 2
	assert_output --partial "neither a git tree nor a kernel tarball"
	run "$ROOT/tools/ab.sh" --kernel-src "$TARBALL" --sides a=,b="$BATS_TEST_TMPDIR/no.mbox" -- zap
	assert_equal "$status" 2
	assert_output --partial "neither a folder of *.patch nor an mbox"
	assert_file_not_exists "$out"
}

@test "kernel/build.sh --kernel-src: bad input is one line and exit 2" {
	local repo=$BATS_TEST_TMPDIR/tiny
	git init -q "$repo"
	echo tiny >"$repo/f"
	git -C "$repo" add f
	git -C "$repo" -c user.name=t -c user.email=t@invalid commit -q -m tiny
	export MMUBENCH_CACHE=$BATS_TEST_TMPDIR/cache
	run "$ROOT/lib/kernel/build.sh" --kernel-src "$repo" --ref HEAD
	assert_equal "$status" 2
	assert_output "lib/kernel/build.sh: error: --kernel-src needs --name NAME, the side's name in the kernel's release"
	run "$ROOT/lib/kernel/build.sh" --kernel-src "$repo" --name x
	assert_equal "$status" 2
	assert_output "lib/kernel/build.sh: error: --kernel-src $repo is a git tree: --ref REF names the commit"
	run "$ROOT/lib/kernel/build.sh" --kernel-src "$repo" --ref HEAD --onto nope --name x
	assert_equal "$status" 2
	assert_output "lib/kernel/build.sh: error: --onto nope: not a commit of $repo"
	run "$ROOT/lib/kernel/build.sh" --kernel-src "$repo" --ref HEAD --name x --base 6.12
	assert_equal "$status" 2
	assert_output --partial "--base and --series are for Debian's sources"
	run "$ROOT/lib/kernel/build.sh" --ref HEAD
	assert_equal "$status" 2
	assert_output "lib/kernel/build.sh: error: --ref, --onto, --patches and --name: only with --kernel-src"
	run "$ROOT/lib/kernel/build.sh" --kernel-src "$repo" --ref HEAD --name original --onto HEAD
	assert_equal "$status" 2
	assert_output "lib/kernel/build.sh: error: --kernel-src $repo: HEAD has no kernel Makefile at its top"
	assert_file_not_exists "$BATS_TEST_TMPDIR/cache/kernel/src"
}

# A message of an mbox that does not apply is named as the series names
# it, with where it failed and what to check, and its tree is left to
# look at (then removed here: a test-only kernel, test/run.sh's check).
@test "kernel/build.sh --kernel-src: a message that does not apply is named by number and subject, where it failed" {
	[[ $ARCH == x86_64 ]] || skip "an x86 series"
	require_series original x86_64 6.12
	[[ -f $TARBALL ]] || fail "no $TARBALL (apt-get install linux-source-6.12)"
	local m=$BATS_TEST_TMPDIR/bad.mbox before
	# The control's two messages, which apply, and a third that cannot.
	cat "$ROOT/patches/6.12/$CONTROL"/*.patch "$ROOT/test/fixtures/kernel_src/another-tree.patch" >"$m"
	before=$(test_kernels)
	run "$ROOT/lib/kernel/build.sh" --kernel-src "$TARBALL" --patches "$m" --name test-bad
	test_kernels_put_back "$before"
	assert_failure 1
	assert_line "error: patch failed: arch/x86/kvm/mmu/tdp_mmu.c:1"
	assert_line --regexp '^lib/kernel/build\.sh: error: patch 3/3 "\[PATCH 3/3\] KVM: x86/mmu: a patch written for another tree" does not apply to linux-source-6\.12\.tar\.xz at arch/x86/kvm/mmu/tdp_mmu\.c:1 \(see /.*/kernel/trees/tar-[0-9a-f]+/test-bad-x86_64\.[0-9a-f]{16}\); written for another version than linux-source-6\.12\.tar\.xz\? A series. base-commit: line names its base$'
}
