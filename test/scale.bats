#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
# Scenario "scale": every cost per GiB over growing sizes, fitted, with
# superlinear growth and per-page harness memory flagged.  A benchmark:
# the tests check its shape and its input, not its figures.
load helpers

COLS="host_populate_ms first_pass_ms second_pass_ms enable_get_ms enable_clear_ms enable_init_set_ms harvest_ms zap_ms rss_mib"

@test "scale: a block per page size and vCPU count, a row per size, the per-GiB fit" {
	require_kvm
	local j=$BATS_TEST_TMPDIR/s.json c
	mmub scale --sizes 16m,32m --vcpu-counts 1,2 --json "$j"
	assert_success
	assert_line "4K pages (-s anonymous), 1 vCPU"
	assert_line "4K pages (-s anonymous), 2 vCPUs"
	assert_line --regexp "^  size +$(tr ' ' '\n' <<<"$COLS" | paste -sd' ' | sed 's/ / +/g')$"
	assert_line --regexp "^  16M( +-?[0-9]+\.[0-9]+){9}$"
	assert_line --regexp "^  32M( +-?[0-9]+\.[0-9]+){9}$"
	assert_line --regexp "^  per GiB( +-?[0-9]+\.[0-9]+){9} +\(slope of the fitted line\)$"
	assert_line --regexp "^  rss_mib: -?[0-9.]+ MiB per GiB; the guest's page tables 2\.000 and the bitmaps 0\.062 explain 2\.062$"
	# 2M pages run where THP does, else each size says why not.
	assert_output --regexp "2M pages \(-s anonymous_thp\), 1 vCPU"
	# Eight runs (2 sizes x 2 vCPU counts x 2 page sizes): all figures,
	# or n/a and why (2M: THP disabled).
	assert_json "$j" '.scenario == "scale" and (.results.runs | length == 8) and
		([.results.runs[] | select(.page == "4K")] | length == 4 and
			all(.[]; .first_pass_ms > 0 and .second_pass_ms > 0 and
				.enable_get_ms > 0 and .harvest_ms > 0 and .zap_ms > 0 and
				.host_populate_ms > 0)) and
		all(.results.runs[] | select(.page == "2M");
			.first_pass_ms > 0 or (.na | length > 0))'
}

@test "bad scale input is rejected before any VM exists" {
	run "$MMUBENCH" scale --sizes 2g,1g
	assert_equal "$status" 2
	assert_output "mmubench: --sizes 2g,1g: sizes must grow, smallest first"
	run "$MMUBENCH" scale --sizes 3m
	assert_equal "$status" 2
	assert_output --partial "--sizes"
	run "$MMUBENCH" scale --sizes 2m --vcpu-counts 2
	assert_equal "$status" 2
	assert_output "mmubench: --sizes: 2097152 bytes do not split into 2 vCPU shares of whole 2M pages"
	run "$MMUBENCH" scale --vcpu-counts 0
	assert_equal "$status" 2
	assert_output --partial "--vcpu-counts 0"
	run "$MMUBENCH" scale -v 2
	assert_equal "$status" 2
	assert_output "mmubench: scale: the sizes and vCPU counts are --sizes and --vcpu-counts; not -v or -b"
	run "$MMUBENCH" scale --repeat 3
	assert_equal "$status" 2
	assert_output "mmubench: scale: one VM per size; not with --repeat 3"
	run "$MMUBENCH" scale -s shmem
	assert_equal "$status" 2
	assert_output "mmubench: scale: each row sets its own backing and page size; not with -s or --guest-page"
}
