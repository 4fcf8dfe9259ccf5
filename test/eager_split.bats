#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
# Eager page splitting in the enable table (dirty-log --table enable):
# x86's kvm.eager_page_split on and off, set for the run and put back;
# arm64's KVM_CAP_ARM_EAGER_SPLIT_CHUNK_SIZE per VM (6.5+: the 6.12
# base).  The effect is exact, from KVM's own page counts: with eager
# splitting the enable turns every 2M mapping of the test memory into
# 512 4K ones; without it, or with KVM_DIRTY_LOG_INITIALLY_SET (the split
# then waits for each clear), the mappings stay 2M.
load helpers

# One vCPU, 8 MiB: four 2M mappings of test memory.
TABLE="dirty-log --table enable --table-modes clear,clear-init-set -v 1 -b 8m --repeat 1"

@test "eager splitting: bad input is one line naming the option, exit 2, before any VM" {
	local a
	for a in "--eager-split maybe:--eager-split maybe: accepted: on, off, or both joined by a comma" \
		 "--eager-split on,off:--eager-split: one setting a run; a list only with --table enable" \
		 "--eager-split on,on --table enable:--eager-split on,on: a setting named twice" \
		 "--eager-split-chunk 3m:--eager-split-chunk 3m: bytes split under one lock hold, a block size such as 2m or 1g, or 0 (off), joined by commas" \
		 "--eager-split on --eager-split-chunk 2m:--eager-split-chunk: not with --eager-split (arm64 and x86 split differently)"; do
		# shellcheck disable=SC2086 # the options, word by word
		run --separate-stderr "$MMUBENCH" dirty-log ${a%%:*} --guest "$GUEST"
		assert_equal "$status" 2
		assert_equal "$stderr" "mmubench: ${a#*:}"
		assert_output ''
	done
}

# x86 BASE: the table with eager splitting on and off in that base's
# nested kernel, where KVM's parameters can be set; the parameter is put
# back after the run.
x86() {
	local base=$1 j
	[[ $ARCH == x86_64 ]] || skip "kvm.eager_page_split is x86's"
	require_series original x86_64 "$base"
	mmub --base "$base" --sh "$ONE_SH"'
echo "PARAM before $(cat /sys/module/kvm/parameters/eager_page_split)"
one table '"$TABLE"' --eager-split on,off
echo "PARAM after $(cat /sys/module/kvm/parameters/eager_page_split)"'
	assert_success
	assert_line "RESULT table rc=0"
	assert_line "PARAM before Y"
	assert_line "PARAM after Y"
	j=$(result_json table)
	echo "# $base: $(jq -c '[.results.runs[] | select(.page == "2M") |
		{mode, eager_split, p: .pages_after_enable}]' <<<"$j")" >&3
	assert_json - '.config.eager_split == ["on", "off"] and
		(.results.runs | map(select(.page == "2M")) | length) == 4' <<<"$j"
	# The 2M row, by the enable's own change of KVM's counts (the guest's
	# own memory, mapped 4K or 2M by the host's THP from run to run, does
	# not change while it is idle): clear with eager splitting turns the
	# four 2M mappings into 2048 4K ones; without it, or with
	# INITIALLY_SET (each clear splits its own range), nothing changes.
	assert_json - '[.results.runs[] | select(.page == "2M") |
		{mode, eager_split, e: (.phases[] | select(.name == "enable") |
			.vm_stats | {pages_4k, pages_2m})}] |
		length == 4 and all(
			if .mode == "clear" and .eager_split == "on"
			then .e == {pages_4k: 2048, pages_2m: -4}
			else .e == {pages_4k: 0, pages_2m: 0} end)' <<<"$j"
}

@test "eager splitting (6.1, x86): the enable splits 2M mappings when on, none when off or with INITIALLY_SET" {
	x86 6.1
}

@test "eager splitting (6.12, x86): the enable splits 2M mappings when on, none when off or with INITIALLY_SET" {
	x86 6.12
}

@test "eager splitting (arm64): the chunk size per VM on 6.12; 6.1 names the missing capability" {
	require_series original arm64 6.12
	require_series original arm64 6.1
	mmub --arch arm64 --base 6.12 $TABLE --eager-split-chunk 0,2m
	assert_success
	assert_line --regexp '^  page size +clear/off +clear/2M +clear-init-set/off +clear-init-set/2M$'
	assert_line "  n/a: this KVM counts no mappings by page size (pages_4k/2m/1g are x86's stats)"
	mmub --arch arm64 --base 6.1 $TABLE --eager-split-chunk 2m
	assert_equal "$status" 2
	assert_output --partial "mmubench: --eager-split-chunk: this kernel lacks KVM_CAP_ARM_EAGER_SPLIT_CHUNK_SIZE (arm64 KVM since Linux 6.5)"
}
