#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
# tools/kexec-ab.sh with a user's git tree (--kernel-src), the nightly's
# (ci/nightly's tests step runs test/nightly/ after make test): two
# commits of a tree built as KVM's modules, each kexec'd in the nested
# L1 and reporting itself.  make test keeps its twins: the same kexec
# A/B with a series (test/kexec.bats) and --kernel-src's trees, mboxes
# and tarballs through tools/ab.sh (test/kernel_src.bats).
load ../helpers

K=tools/kexec-ab.sh
SERIES=tdp-mmu-unlink-empty-leaf-tables

# The user's own kernel: a git tree's two commits (test/helpers.bash,
# kernel_repo), A and B by kexec, each step's kernel the commit's own.
@test "kexec-ab --nested --kernel-src: a git tree at two commits, each kexec'd and reporting itself" {
	[[ $ARCH == x86_64 ]] || skip "--nested is x86_64 only (the arm64 L1 has no disk driver)"
	require_series original x86_64 6.12
	local repo=$BATS_TEST_TMPDIR/linux out=$BATS_TEST_TMPDIR/kx
	kernel_repo "$repo" "$SERIES"
	run "$ROOT/$K" --nested --kernel-src "$repo" --sides original=HEAD~1,v2=HEAD --repeat 1 \
		--out "$out" --mmubench "$MMUBENCH" --guest "$GUEST" -- zap --zap same4 -v 1 -b 16m
	sed -n '/^where the time went/,$p' <<<"$output" | sed 's/^/# /' >&3
	assert_success
	assert_file_contains "$out/runs/A-1.identity" '^release 6\.12\.[0-9]*[+]deb12-cloud-amd64$'
	assert_file_contains "$out/runs/A-1.identity" '^kvm_module mmub-original$'
	assert_file_contains "$out/runs/B-1.identity" '^kvm_module mmub-v2$'
	assert_json "$out/runs/B-1.json" '.env | .kernel_base == "6.12" and .kernel_series == "v2"'
	assert_json "$out/compare.json" '[.sides[].label] == ["original@6.12", "v2@6.12"]'
	run cat "$out/sides.txt"
	assert_output "original	$(git -C "$repo" rev-parse HEAD~1)
v2	$(git -C "$repo" rev-parse HEAD)"
	run grep -c -- "--nested --kernel-src $repo --sides" "$out/command.txt"
	assert_output 1
}
