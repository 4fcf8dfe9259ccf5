#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
# The execute workload and scenario "nx-recovery" (seed 002): NX huge
# pages split by executing, then KVM's recovery worker with dirty logging
# on.  The effect test compares the original and the patched kernel.
load helpers

SERIES=x86-nx-skip-dirty-tracked-recovery

# A small seed-shaped run: 2 vCPUs, 4 slots, 2M hugetlb, one RET per 2M.
NX_ARGS="nx-recovery -v 2 -b 16m -x 4 --reserve-hugepages --recovery-period 500"

@test "nx-recovery and --exec: bad input is named" {
	run "$MMUBENCH" nx-recovery --recovery-ratio 0
	assert_equal "$status" 2
	assert_output "mmubench: --recovery-ratio 0: out of range (accepted: 1..3600)"
	run "$MMUBENCH" touch --recovery-period 100
	assert_equal "$status" 2
	assert_output "mmubench: --recovery-period: belongs to the nx-recovery scenario, not touch"
	# nx-recovery always executes; --exec is touch's.
	run "$MMUBENCH" dirty-log --exec
	assert_equal "$status" 2
	assert_output "mmubench: --exec: belongs to the touch scenario, not dirty-log"
	run "$MMUBENCH" nx-recovery --verify
	assert_equal "$status" 2
	assert_output "mmubench: --verify: belongs to the dirty-log scenario, not nx-recovery"
}

@test "--exec under QEMU: the first pass plants every RET, later passes only call" {
	local a q j=$BATS_TEST_TMPDIR/e.json
	for a in x86_64 arm64; do
		q=qemu-system-$a
		[[ $a == arm64 ]] && q=qemu-system-aarch64
		command -v "$q" >/dev/null || fail "$q missing: apt-get install qemu-system-x86 qemu-system-arm (make deps)"
		run "$MMUBENCH" touch --backend qemu --exec -v 2 -b 4m -i 2 --guest "$O/$a/guest.elf" --json "$j"
		assert_success
		run jq -e --arg a "$a" '.env.arch == $a and .config.action == "exec" and
			.results.runs[0].phases as $p |
			([$p[].vcpus[]] | length == 6) and all($p[].vcpus[]; .accesses == 1024) and
			all($p[] | select(.name == "populate") | .vcpus[]; .writes == 1024) and
			all($p[] | select(.name != "populate") | .vcpus[]; .writes == 0)' "$j"
		assert_success
	done
}

# nx_sh SCRIPT [SERIES [BASE]]: a --sh script in the nested kernel
# (original, or SERIES, of BASE: 6.1 by default) booted with
# kvm.nx_huge_pages=force.  Always nested: this
# machine's KVM parameters are not the test's to flip (and are read-only
# on these cloud machines).
nx_sh() {
	mmub --append kvm.nx_huge_pages=force --base "${3:-6.1}" ${2:+--series "$2"} \
		--sh "$ONE_SH$1"
}

# splits TAG: nx_lpage_splits after the populate pass of that run.
splits() {
	result_json "$1" | json_val - '.results.runs[0].phases[0].vm_stats.nx_lpage_splits'
}

@test "--exec on KVM with nx_huge_pages=force splits every executed huge page" {
	require_nested
	[[ $ARCH == x86_64 ]] || skip "NX huge pages are an x86 mitigation"
	nx_sh '
one touch touch -v 1 -b 16m -s anonymous_hugetlb_2mb --reserve-hugepages --guest-page 2m --touch 2m -i 0
one exec touch --exec -v 1 -b 16m -s anonymous_hugetlb_2mb --reserve-hugepages --guest-page 2m --touch 2m -i 0'
	assert_success
	assert_line "RESULT touch rc=0"
	assert_line "RESULT exec rc=0"
	assert_equal "$(splits touch)" 0
	assert_equal "$(splits exec)" 8
}

# nx_json TAG: the nx_recovery result of the run tagged TAG.
nx_json() {
	result_json "$1" | json_val - '.results.runs[0].nx_recovery' -c
}

# One boot: the run with dirty logging (tag log), then the control
# without (tag nolog); before the first and after each, every setting
# the scenario changes: its three kvm parameters and the 2M pool that
# --reserve-hugepages fills.
NX_SCRIPT='
p=/sys/module/kvm/parameters
state() {
	echo "nx=$(cat $p/nx_huge_pages) ratio=$(cat $p/nx_huge_pages_recovery_ratio)" \
		"period=$(cat $p/nx_huge_pages_recovery_period_ms)" \
		"pool2m=$(cat /sys/kernel/mm/hugepages/hugepages-2048kB/nr_hugepages)"
}
echo "PARAM before $(state)"
for t in log nolog; do
	f=; [ $t = nolog ] && f=--no-dirty-log
	one $t '"$NX_ARGS"' $f
	echo "PARAM $t $(state)"
done'

# The zap of the worker, as seen by the stats: 16 splits zapped, their 4K
# entries gone, 16 refaults.  The entries a split holds are as executing
# mapped them: 6.1 maps the executed 4K page alone (one RET per 2M: 1),
# 6.12 splits the huge mapping whole on the NX fault (512).  A zap asks
# for TLB flushes (remote_tlb_flush_requests); how many of them had to
# interrupt the vCPU (remote_tlb_flush) depends on where it was then.
FLUSHED='.recovery_tlb_flushes > 0 and
	.recovery_tlb_flush_ipis <= .recovery_tlb_flushes'
ZAPPED='.splits_after_execute == 16 and .splits_left == 0 and
	(.ptes_per_split == 1 or .ptes_per_split == 512) and
	.recovery_pages_4k_delta == -16 * .ptes_per_split and
	.reexecute_pf_fixed == 16 and .splits_zapped == 16 and .splits_unaccounted == 0
	and '"$FLUSHED"
# Without logging a refault maps 2M first, then splits again on the fetch.
ZAPPED_NOLOG='.splits_after_execute == 16 and .splits_left == 0 and
	(.ptes_per_split == 1 or .ptes_per_split == 512) and
	.recovery_pages_4k_delta == -16 * .ptes_per_split and
	.reexecute_pf_fixed >= 16 and
	.splits_zapped == 16 and .splits_unaccounted == 0 and '"$FLUSHED"
KEPT='.splits_after_execute == 16 and .splits_left == 0 and
	.recovery_pages_4k_delta == 0 and .reexecute_pf_fixed == 0 and
	.splits_zapped == 0 and .splits_unaccounted == 16 and
	.recovery_tlb_flushes == 0'

@test "nx-recovery: sets its knobs, restores them, reports the worker's CPU time" {
	local before
	require_nested
	[[ $ARCH == x86_64 ]] || skip "NX huge pages are an x86 mitigation"
	nx_sh "$NX_SCRIPT"
	assert_success
	assert_line "RESULT log rc=0"
	assert_line "RESULT nolog rc=0"
	# Each run put back every setting it changed.  The nested kernel
	# boots with the default ratio, 60, and period (0: from the ratio).
	before=$(sed -n 's/^PARAM before //p' <<<"$output")
	[[ $before =~ ^nx=[A-Za-z]+\ ratio=60\ period=0\ pool2m=[0-9]+$ ]] ||
		fail "the settings before the runs: '$before'"
	assert_line "PARAM log $before"
	assert_line "PARAM nolog $before"
	nx_json log | assert_json - '.dirty_logging and .splits_after_execute == 16 and
		.splits_left == 0 and .worker_ms > 0 and .worker_recovery_ms >= 0 and
		((.worker_us_per_split - .worker_recovery_ms * 1000 / 16) | fabs) < 0.001 and
		.recovery_periods > 0 and
		((.recovered_per_period - 16 / .recovery_periods) | fabs) < 0.001'
	# Without logging every kernel recovers the huge pages: a zap.
	nx_json nolog | assert_json - "(.dirty_logging | not) and $ZAPPED_NOLOG"
}

# Seed 002's effect, independent of timing: on the kernel without the
# change the worker zaps the split pages of dirty-logged slots (pages_4k
# drops, and executing again faults them back); on the kernel with it it
# zaps none, but still zaps them when logging is off.  On 6.1 the change
# is the series; on 6.12 it is upstream, and the revert series is the
# kernel without it.
# nx-recovery BASE WITHOUT WITH: the kernels (series, or original) on BASE.
nx-recovery() {
	local base=$1 without=$2 with=$3 a s
	# 6.12 splits a 2M mapping whole on the NX fault (tdp_mmu_split_huge_page
	# in kvm_tdp_mmu_map), 6.1 maps the executed 4K page alone.
	local ptes=1
	[[ $base == 6.1 ]] || ptes=512
	[[ $ARCH == x86_64 ]] || skip "NX huge pages are an x86 mitigation"
	for s in "$without" "$with"; do
		require_series "$s" "$ARCH" "$base"
	done
	nx_sh "$NX_SCRIPT" "$without" "$base"
	assert_success
	assert_line "RESULT log rc=0"
	a=$(nx_json log)
	nx_sh "$NX_SCRIPT" "$with" "$base"
	assert_success
	assert_line "RESULT log rc=0"
	assert_line "RESULT nolog rc=0"
	echo "# $base without ($without): $a" >&3
	echo "# $base with ($with):  $(nx_json log)" >&3
	assert_json - "$ZAPPED and .ptes_per_split == $ptes" <<<"$a"
	nx_json log | assert_json - "$KEPT"
	nx_json nolog | assert_json - "$ZAPPED_NOLOG and .ptes_per_split == $ptes"
}

@test "seed 002 (6.1): the patched kernel does not recover dirty-tracked NX huge pages" {
	nx-recovery 6.1 original "$SERIES"
}

@test "seed 002 (6.12): the original (upstream change) does not recover dirty-tracked NX huge pages, the revert does" {
	nx-recovery 6.12 "$SERIES-revert" original
}
