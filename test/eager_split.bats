#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
# Eager page splitting in the enable table (dirty-log --table enable):
# x86's kvm.eager_page_split on and off, set for the run and put back;
# arm64's KVM_CAP_ARM_EAGER_SPLIT_CHUNK_SIZE per VM (6.5+: the 6.12
# base).  The effect is exact, from KVM's own page counts: with eager
# splitting the enable turns every 2M mapping of the test memory into
# 512 4K ones; without it, or with KVM_DIRTY_LOG_INITIALLY_SET (the split
# then waits for each clear), the mappings stay 2M.  --page-steps counts
# them after every step, and -e disables logging while the vCPUs write.
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

# --page-steps as dirty_log_page_splitting_test counts them: the four 2M
# mappings of 8 MiB after each step.  One vCPU, one iteration (its
# writes split what is still 2M).  Then -e: two vCPUs writing while
# logging is disabled.
STEPS="dirty-log -v 1 -b 8m -s anonymous_hugetlb_2mb --reserve-hugepages --page-steps -i 1"
STEPS_SH='
for m in clear clear-init-set; do
	for e in on off; do
		one "steps-$m-$e" '"$STEPS"' --mode $m --eager-split $e
	done
done
one disable-e dirty-log -v 2 -b 8m -s anonymous_hugetlb_2mb --reserve-hugepages --page-steps -i 1 -e'

# assert_steps TAG ENABLE HARVEST: run TAG's mappings after each step,
# less those after populate (the guest's own memory stays as it was),
# 4K/2M/1G: the enable's and the first harvest's as given (split: 2048
# 4K for the four 2M; none: nothing), then the disable zaps what logging
# split or left 4K (2M -4 from populate: the iteration's writes split
# the rest), and one pass rebuilds the four 2M.
assert_steps() {
	local split='[2048, -4, 0]' none='[0, 0, 0]' want
	want=$(jq -cn --argjson e "${!2}" --argjson h "${!3}" '[
		{step: "populate", d: [0, 0, 0]}, {step: "enable", d: $e},
		{step: "harvest", d: $h}, {step: "disable", d: [0, -4, 0]},
		{step: "repopulate", d: [0, 0, 0]}]')
	assert_line "RESULT $1 rc=0"
	result_json "$1" | assert_json - '.results.runs[0].dirty_log.page_steps as $s |
		$s[0]."2m" >= 4 and
		[$s[] | {step, d: [."4k" - $s[0]."4k", ."2m" - $s[0]."2m",
				    ."1g" - $s[0]."1g"]}] == $want' --argjson want "$want"
}

# x86 BASE: the table with eager splitting on and off in that base's
# nested kernel, where KVM's parameters can be set; the parameter is put
# back after the run.  The page steps in the same boot.
x86() {
	local base=$1 j
	[[ $ARCH == x86_64 ]] || skip "kvm.eager_page_split is x86's"
	require_series original x86_64 "$base"
	mmub --base "$base" --sh "$ONE_SH"'
echo "PARAM before $(cat /sys/module/kvm/parameters/eager_page_split)"
one table '"$TABLE"' --eager-split on,off
'"$STEPS_SH"'
echo "PARAM after $(cat /sys/module/kvm/parameters/eager_page_split)"'
	assert_success
	# Eager splitting splits at the enable in clear mode, at the first
	# clear with INITIALLY_SET; without it the harvests split nothing
	# (the iteration's writes do).
	assert_steps steps-clear-on split split
	assert_steps steps-clear-off none none
	assert_steps steps-clear-init-set-on none split
	assert_steps steps-clear-init-set-off none none
	# -e: the vCPUs wrote across the disable (their latency is in its
	# phase) until each passed over its memory again, by which time the
	# eight 2M mappings were back.
	assert_line "RESULT disable-e rc=0"
	result_json disable-e | assert_json - '.config.disable_writing == true and
		(.results.runs[0] | .dirty_log.disable_ms > 0 and
		 ([.phases[] | select(.name == "disable") |
		   .vcpus[].latency_ns.p99 > 0] == [true, true]) and
		 (.dirty_log.page_steps as $s |
		  ($s[] | select(.step == "repopulate"))."2m" - $s[0]."2m" == 0 and
		  $s[0]."2m" >= 8))'

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

@test "eager splitting (6.1, x86): the enable splits 2M mappings when on, none when off or with INITIALLY_SET; page sizes after every step; -e" {
	x86 6.1
}

@test "eager splitting (6.12, x86): the enable splits 2M mappings when on, none when off or with INITIALLY_SET; page sizes after every step; -e" {
	x86 6.12
}

# arm64 6.12: the same steps from KVM's stage-2 dump in debugfs, counted
# over the test memory (arm64 KVM has no pages_4k/2m/1g), with the chunk
# size per VM: 2m (on) and 0 (off).
STEPS_ARM64_SH='
for m in clear clear-init-set; do
	for k in 2m 0; do
		one "steps-$m-$k" '"$STEPS"' --mode $m --eager-split-chunk $k
	done
done
cat steps-clear-2m.out
one disable-e dirty-log -v 2 -b 8m -s anonymous_hugetlb_2mb --reserve-hugepages --page-steps -i 1 -e --eager-split-chunk 0'

# assert_steps_arm64 TAG ENABLE HARVEST: run TAG's test memory (8M) after
# each step, 4K/2M/1G: four 2M blocks after populate; the enable's and
# the first harvest's as given (split: 2048 4K pages; blocks: the four
# 2M); after the iteration everything is 4K, and the disable changes
# nothing (arm64 KVM neither zaps nor collapses there); one pass after
# it rebuilds the four blocks: the last harvest write-protected every
# page, and each write fault on one maps the whole hugetlb block.
assert_steps_arm64() {
	local split='[2048, 0, 0]' blocks='[0, 4, 0]' want
	want=$(jq -cn --argjson e "${!2}" --argjson h "${!3}" --argjson s "$split" \
		--argjson b "$blocks" '[
		{step: "populate", n: $b}, {step: "enable", n: $e},
		{step: "harvest", n: $h}, {step: "disable", n: $s},
		{step: "repopulate", n: $b}]')
	assert_line "RESULT $1 rc=0"
	result_json "$1" | assert_json - '.results.runs[0].dirty_log |
		.page_steps_counted == "stage2_dump: test memory" and
		[.page_steps[] | {step, n: [."4k", ."2m", ."1g"]}] == $want and
		all(.page_steps[]; .read_ms > 0)' --argjson want "$want"
}

@test "eager splitting (arm64): the chunk size per VM on 6.12, page sizes after every step from the stage-2 dump; 6.1 names the missing capability and dump" {
	local j
	require_series original arm64 6.12
	require_series original arm64 6.1
	mmub --arch arm64 --base 6.12 --sh "$ONE_SH"'
one table '"$TABLE"' --eager-split-chunk 0,2m
cat table.out
'"$STEPS_ARM64_SH"
	assert_success
	assert_line "RESULT table rc=0"
	assert_line --regexp '^  page size +clear/off +clear/2M +clear-init-set/off +clear-init-set/2M$'
	assert_line "  n/a: this KVM counts no mappings by page size (pages_4k/2m/1g are x86's stats)"
	# The chunk splits at the enable in clear mode, at the first clear
	# with INITIALLY_SET (kvm_arch_mmu_enable_log_dirty_pt_masked());
	# without it the iteration's write faults map 4K pages.
	assert_steps_arm64 steps-clear-2m split split
	assert_steps_arm64 steps-clear-0 blocks blocks
	assert_steps_arm64 steps-clear-init-set-2m blocks split
	assert_steps_arm64 steps-clear-init-set-0 blocks blocks
	assert_line "  stage-2 mappings by page size after each step (KVM's stage2_page_tables in debugfs; the test memory; each read's time, outside the phases)"
	j=$(result_json steps-clear-2m)
	echo "# 6.12 arm64 dump reads, ms: $(jq -c '[.results.runs[0].dirty_log.page_steps[].read_ms]' <<<"$j")" >&3
	# -e: no disable step (the dump's read would stall the vCPUs' faults
	# in the timed phase); the blocks are back after the pass.
	assert_line "RESULT disable-e rc=0"
	result_json disable-e | assert_json - '.results.runs[0].dirty_log |
		[.page_steps[].step] == ["populate", "enable", "harvest", "repopulate"] and
		(.page_steps[-1] | [."4k", ."2m"]) == [0, 8]'

	mmub --arch arm64 --base 6.1 --sh "$ONE_SH"'
one chunk '"$TABLE"' --eager-split-chunk 2m
one steps dirty-log -v 1 -b 8m --page-steps -i 1
cat steps.out'
	assert_success
	assert_line "RESULT chunk rc=2"
	assert_line "mmubench: --eager-split-chunk: this kernel lacks KVM_CAP_ARM_EAGER_SPLIT_CHUNK_SIZE (arm64 KVM since Linux 6.5)"
	assert_line "RESULT steps rc=0"
	assert_line --regexp "^  page steps: n/a: this KVM counts no mappings by page size \(pages_4k/2m/1g are x86's stats\), and this KVM has no stage-2 dump \(/sys/kernel/debug/kvm/[0-9]+-[0-9]+/stage2_page_tables: CONFIG_PTDUMP_STAGE2_DEBUGFS, arm64\)$"
	result_json steps | assert_json - '.results.runs[0].dirty_log |
		.page_steps == null and (.page_steps_na | test("CONFIG_PTDUMP_STAGE2_DEBUGFS"))'
}
