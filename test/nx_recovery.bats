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
	# --under-load: its phase has a length of its own, its vCPUs write a
	# 4K page after each instruction, and their latency is a figure.
	run "$MMUBENCH" nx-recovery --under-load --recovery-wait 5
	assert_equal "$status" 2
	assert_output "mmubench: --recovery-wait: not with --under-load, whose recovery phase lasts 3 recovery periods"
	run "$MMUBENCH" nx-recovery --under-load --touch 4k
	assert_equal "$status" 2
	assert_output "mmubench: --under-load: needs a stride (--touch) of 8K or more: the vCPUs write in the 4K page after each instruction"
	run "$MMUBENCH" nx-recovery --under-load --no-latency
	assert_equal "$status" 2
	assert_output "mmubench: --under-load: not with --no-latency: the vCPUs' access latency is one of its figures"
	run "$MMUBENCH" touch --under-load
	assert_equal "$status" 2
	assert_output "mmubench: --under-load: belongs to the nx-recovery scenario, not touch"
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

# nx_add BATCH SERIES BASE SCRIPT: the nested kernel (original, or
# SERIES, of BASE) booted with kvm.nx_huge_pages=force runs SCRIPT.
# Always nested: this machine's KVM parameters are not the test's to
# flip (and are read-only on these cloud machines).  Each kernel boots
# once, for every test's runs (setup_file, at the end of this file).
nx_add() {
	batch_add "$1" --append kvm.nx_huge_pages=force --base "$3" --series "$2" -- "$4"
}

# splits TAG: nx_lpage_splits after the populate pass of that run.
splits() {
	result_json "$1" | json_val - '.results.runs[0].phases[0].vm_stats.nx_lpage_splits'
}

@test "--exec on KVM with nx_huge_pages=force splits every executed huge page" {
	require_nested
	[[ $ARCH == x86_64 ]] || skip "NX huge pages are an x86 mitigation"
	batch 6.1-original
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
	batch 6.1-original
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
		.splits_left == 0 and .worker_ms > 0 and .worker_recovery_ms > 0 and
		.worker_recovery_ms <= .worker_ms and
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
	batch "$base-$without"
	assert_success
	assert_line "RESULT log rc=0"
	a=$(nx_json log)
	batch "$base-$with"
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

# --under-load: the vCPUs execute and write through the recovery phase.
# One boot: the idle form and the under-load form with logging off, then
# under load with logging on, then one killed by SIGTERM in its recovery
# phase (its probes placed, the worker let run); before the first and
# after each, the settings of NX_SCRIPT plus tracing's kprobes and
# mmubench's instance, which the under-load form uses (the L1 keeps one
# of its own, lib/nested/kvm-hold.c).
LOAD_SCRIPT='
p=/sys/module/kvm/parameters
t=/sys/kernel/tracing
state() {
	echo "nx=$(cat $p/nx_huge_pages) ratio=$(cat $p/nx_huge_pages_recovery_ratio)" \
		"period=$(cat $p/nx_huge_pages_recovery_period_ms)" \
		"pool2m=$(cat /sys/kernel/mm/hugepages/hugepages-2048kB/nr_hugepages)" \
		"kprobes=$(wc -l <$t/kprobe_events) instance=$(ls -d $t/instances/mmubench 2>/dev/null | wc -l)"
}
echo "LPARAM before $(state)"
one idle '"$NX_ARGS"' --no-dirty-log
echo "LPARAM idle $(state)"
one load '"$NX_ARGS"' --no-dirty-log --under-load
echo "LPARAM load $(state)"
one loadlog '"$NX_ARGS"' --under-load
echo "LPARAM loadlog $(state)"
mmubench '"$NX_ARGS"' --under-load --recovery-period 600000 >term.out 2>&1 &
i=0
while [ $i -lt 240 ] && [ "$(cat $p/nx_huge_pages_recovery_ratio)" != 1 ]; do
	sleep 1
	i=$((i + 1))
done
echo "DURING $(state)"
kill -TERM $(pidof mmubench)
wait $!
echo "RESULT term rc=$?"
echo "LPARAM term $(state)"'

# What every under-load run reports: the vCPUs' accesses through the
# phase of 3 recovery periods (--recovery-period 500: 1.5 s or more),
# their latency in order, the kprobes' figures (the read and write waits
# for mmu_lock, each a count with its time or neither), the worker's CPU
# time, the recovery's within it (0.24 to 27.7 ms measured, never 0: the
# worker walks its list even where it zaps nothing), and no idle-form
# figure that the vCPUs' re-splits would falsify.
LOADED='.splits_after_execute == 16 and .under_load as $u | $u.access_latency as $l |
	$u.periods == 3 and .recovery_wait_ms >= $u.periods * 500 and
	$u.accesses > 0 and $l.p50_us > 0 and $l.p50_us <= $l.p99_us and
	$l.p99_us <= $l.p999_us and $l.p999_us <= $l.max_us and
	($u.lock_wait | (.calls > 0) == (.total_ms > 0) and .p99_us <= .max_us) and
	($u.write_wait | (.calls > 0) == (.total_ms > 0) and .p99_us <= .max_us) and
	(has("splits_left") | not) and (has("worker_us_per_split") | not) and
	.worker_ms > 0 and .worker_recovery_ms > 0 and .worker_recovery_ms <= .worker_ms'
# Logging off, the vCPUs refault what the worker zaps while it holds
# mmu_lock: 4, 5 and 9 read waits in three runs (README's table 4 to 9).
LOADED_NOLOG="$LOADED"' and .under_load.lock_wait.calls > 0 and
	.under_load.worker_sp_zaps >= 32 and .under_load.vcpu_refaults >= 32'

# The checks themselves, on no VM: a loaded run's document, as a run of
# 2026-12-06 wrote it, passes; the same with every figure 0, where
# nothing happened, fails, as does one whose worker never ran.
@test "nx-recovery --under-load: the checks pass a real run's document and fail one where nothing happened" {
	local f=$ROOT/test/fixtures/nx_recovery
	assert_json "$f/load.json" "$LOADED_NOLOG"
	assert_json "$f/loadlog.json" "$LOADED"
	run jq -e "$LOADED" <(jq 'walk(if type == "number" then 0 else . end)' "$f/load.json")
	assert_failure
	run jq -e "$LOADED" <(jq '.worker_ms = 0 | .worker_recovery_ms = 0' "$f/loadlog.json")
	assert_failure
	run jq -e "$LOADED_NOLOG" <(jq '.under_load.lock_wait |= (.calls = 0 | .total_ms = 0)' "$f/load.json")
	assert_failure
	run jq -e "$LOADED" <(jq '.recovery_wait_ms = 600' "$f/loadlog.json")
	assert_failure
}

@test "nx-recovery --under-load (6.1): idle and loaded in one boot; lock waits, latency and the worker's zaps during recovery; settings and probes put back" {
	local before
	require_nested
	[[ $ARCH == x86_64 ]] || skip "NX huge pages are an x86 mitigation"
	batch 6.1-original
	assert_success
	assert_line "RESULT idle rc=0"
	assert_line "RESULT load rc=0"
	assert_line "RESULT loadlog rc=0"
	before=$(sed -n 's/^LPARAM before //p' <<<"$output")
	[[ $before =~ ^nx=[A-Za-z]+\ ratio=60\ period=0\ pool2m=[0-9]+\ kprobes=[0-9]+\ instance=0$ ]] ||
		fail "the settings before the runs: '$before'"
	assert_line "LPARAM idle $before"
	assert_line "LPARAM load $before"
	assert_line "LPARAM loadlog $before"
	# Killed while the worker ran and the probes were placed: all put back.
	assert_line --regexp '^DURING nx=[A-Za-z]+ ratio=1 period=600000 pool2m=[0-9]+ kprobes=[1-9][0-9]* instance=1$'
	assert_line "RESULT term rc=143"
	assert_line "LPARAM term $before"
	echo "# load: $(nx_json load)" >&3
	echo "# loadlog: $(nx_json loadlog)" >&3
	# The idle form is as it was, and says nothing of a load.
	nx_json idle | assert_json - "$ZAPPED_NOLOG and (has(\"under_load\") | not)"
	result_json load | assert_json - '.config.under_load and
		([.results.runs[0].phases[].name] == ["execute", "enable", "warm",
		 "recovery", "re-execute", "disable"])'
	# Logging off: the worker zaps the splits, the vCPUs split them again
	# and it zaps them again a period later; each zap is mapped again.
	nx_json load | assert_json - "$LOADED_NOLOG"
	# Logging on: it zaps each split once (a 4K refault is no split).
	nx_json loadlog | assert_json - "$LOADED and .under_load.worker_sp_zaps == 16 and
		.under_load.vcpu_refaults >= 16 and .under_load.splits_at_end == 0"
}

@test "seed 002 under load (6.1): with logging on the patched kernel zaps nothing, and the vCPUs fault on nothing while it recovers" {
	[[ $ARCH == x86_64 ]] || skip "NX huge pages are an x86 mitigation"
	require_series "$SERIES" "$ARCH" 6.1
	batch "6.1-$SERIES"
	assert_success
	assert_line "RESULT sloadlog rc=0"
	echo "# $SERIES loadlog: $(nx_json sloadlog)" >&3
	nx_json sloadlog | assert_json - "$LOADED and .under_load.worker_sp_zaps == 0 and
		.under_load.vcpu_refaults == 0 and .under_load.splits_at_end == 0 and
		.recovery_pages_4k_delta == 0 and .recovery_tlb_flushes == 0 and
		.reexecute_pf_fixed == 0"
}

# Every kernel once, with every test's runs: the 6.1 original runs the
# executes, NX_SCRIPT and LOAD_SCRIPT; the 6.1 series NX_SCRIPT and a
# loaded run with logging; 6.12's two kernels NX_SCRIPT.
setup_file() {
	[[ $ARCH == x86_64 ]] || return 0
	nx_add 6.1-original original 6.1 '
one touch touch -v 1 -b 16m -s anonymous_hugetlb_2mb --reserve-hugepages --guest-page 2m --touch 2m -i 0
one exec touch --exec -v 1 -b 16m -s anonymous_hugetlb_2mb --reserve-hugepages --guest-page 2m --touch 2m -i 0'"
$NX_SCRIPT
$LOAD_SCRIPT"
	nx_add "6.1-$SERIES" "$SERIES" 6.1 "$NX_SCRIPT
one sloadlog $NX_ARGS --under-load"
	nx_add 6.12-original original 6.12 "$NX_SCRIPT"
	nx_add "6.12-$SERIES-revert" "$SERIES-revert" 6.12 "$NX_SCRIPT"
	batch_boots
}
