#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
# Scenario "zap": invalidation under load, and the data the guest finds.
load helpers

PATTERNS="same16 same4 c16 c4 c2 c1"
MODES="get clear clear-init-set ring ring-acq-rel"

# The runs of "some KVM" (this machine's, or the nested 6.1 x86_64 one)
# and those of the nested kernel's TDP MMU, probes and tracing: one boot
# a kernel (batch_add).  The tracing checks go first, on a kernel no
# probe has touched yet.
setup_file() {
	batch_add x86-61 --nested -- "$TRACE_SH"'
for m in '"$MODES"'; do
	one dl-$m zap -v 2 -b 4m --zap rolling:1m --zap-count 12 --mode $m --verify --no-kprobes
	one drop-$m zap -v 2 -b 4m --zap rolling:1m --zap-count 10 --mode $m --verify --debug-drop-dirty 5 --no-kprobes
done
one cold-drop zap -v 2 -b 4m --zap rolling:1m --zap-count 4 --mode clear-init-set --verify --debug-drop-cold --no-kprobes
oneo probe zap -v 1 -b 8m --zap same4 --zap-count 20
oneo noprobe zap -v 1 -b 8m --zap same4 --zap-count 20 --no-kprobes'
	batch_add kvm -- '
for p in '"$PATTERNS"'; do
	one $p zap -v 2 -b 16m --zap $p --zap-count 40 --no-kprobes
done
for s in anonymous anonymous_thp anonymous_hugetlb_2mb shmem; do
	one int-$s zap -v 2 -b 8m -s $s --reserve-hugepages --zap c2 --zap-count 40 --no-kprobes
done
for s in anonymous shmem; do
	one cor-$s zap -v 2 -b 8m -s $s --zap c2 --zap-count 10 --debug-corrupt-refault --no-kprobes
done
one same zap -v 1 -b 32m --zap same:4m --zap-count 60 --no-kprobes
one rolling zap -v 1 -b 32m --zap rolling:4m --zap-count 60 --no-kprobes'
	batch_boots
}

# Each pattern on 2 vCPUs x 16 MiB; JSON has every metric.
@test "every seed pattern runs; JSON carries every metric; no violation" {
	require_kvm
	local p
	batch kvm
	assert_success
	for p in $PATTERNS; do
		assert_line "RESULT $p rc=0"
		result_json "$p" | assert_json - '.results.runs[0].zap as $z |
			$z.calls == 40 and $z.zap_total_ms > 0 and
			$z.madvise_p999_us > 0 and $z.fault_p999_us > 0 and
			$z.pages_per_s_per_vcpu > 0 and $z.integrity_violations == 0 and
			($z | has("kernel_zap_total_ms") and has("fwait_p999_us"))
			and (.results.runs[0].phases[1].vm_stats | has("pages_4k"))'
	done
}

# Private memory refaults as zeros; shared memory keeps its data.
@test "integrity holds on anonymous, THP, hugetlb and shmem backings" {
	require_kvm
	local s
	batch kvm
	assert_success
	for s in anonymous anonymous_thp anonymous_hugetlb_2mb shmem; do
		assert_line "RESULT int-$s rc=0"
		result_json "int-$s" | assert_json - '.results.runs[0].zap |
			.integrity_violations == 0 and .guest_accesses > 0'
	done
	# Only shmem keeps its data: no zero refaults at all.
	for s in anonymous anonymous_thp anonymous_hugetlb_2mb; do
		result_json "int-$s" | assert_json - '.results.runs[0].zap.refaults_zero > 0'
	done
	result_json int-shmem | assert_json - '.results.runs[0].zap.refaults_zero == 0'
}

# The check fires: a word no vCPU wrote, put where a refault is read
# after the last invalidation, fails the run naming that page, on private
# memory (must read zeros or the guest's data) and shared (its data).
@test "zap --debug-corrupt-refault: the guest's check names the corrupted page; the run fails" {
	require_kvm
	local s gpa
	batch kvm
	assert_success
	for s in anonymous shmem; do
		assert_line "RESULT cor-$s rc=1"
	done
	gpa=$(sed -n 's/^mmubench: --debug-corrupt-refault: wrote 0xbadbadbadbadbad0 at \(0x[0-9a-f]*\) (slot [0-9]* gfn 0x[0-9a-f]*) after the last invalidation, on purpose$/\1/p' <<<"$output" | sort -u)
	[[ $gpa =~ ^0x[0-9a-f]+$ ]] || fail "no single corrupted page named: '$gpa'"
	assert_equal "$(grep -c "^mmubench: --debug-corrupt-refault: wrote 0xbadbadbadbadbad0 at $gpa " <<<"$output")" 2
	assert_line "mmubench: integrity: the guest found 0xbadbadbadbadbad0 at $gpa after an invalidation (private memory must read zeros or its data)"
	assert_line "mmubench: integrity: the guest found 0xbadbadbadbadbad0 at $gpa after an invalidation (shared memory must read its data)"
	refute_line --partial "did not name"
}

@test "same invalidates only its range, rolling the whole memory" {
	require_kvm
	batch kvm
	assert_success
	assert_line "RESULT same rc=0"
	assert_line "RESULT rolling rc=0"
	# same:4m: every zero the guest met lies in the first 4 MiB.
	result_json same | assert_json - '.results.runs[0].zap |
		.refaults_zero > 0 and .zero_lo >= 0 and .zero_hi < 4194304'
	# rolling:4m: 60 chunks of 4 MiB wrap 32 MiB: zeros far past 4 MiB.
	result_json rolling | assert_json - '.results.runs[0].zap |
		.refaults_zero > 0 and .zero_hi >= 16777216'
}

# MADV_DONTNEED while dirty logging, as on a migrating host reclaiming
# memory: a harvest after every zap, each checked by the oracle.  The
# zapped pages read as zero; every write after a zap must be reported.
@test "zap --mode M --verify: no write lost across invalidations, every mode, nested TDP MMU" {
	require_nested
	local m
	batch x86-61
	assert_success
	for m in $MODES; do
		assert_line "RESULT dl-$m rc=0"
		# 12 harvests after the zaps (the 4 MiB rolled three times), 1 at
		# rest; refaults seen and zeros accounted for.
		result_json "dl-$m" | assert_json - '.results.runs[0].zap as $z |
			$z.calls == 12 and $z.refaults_zero > 0 and
			$z.integrity_violations == 0 and $z.dirty_log.mode == "'"$m"'" and
			($z.dirty_log.verify | .harvests == 13 and .changed > 0 and
			 .missed == 0 and .false_positives == 0 and .zeroed > 0 and
			 .cold_pages == 32 and .cold_missed == 0 and
			 .cold_false_reports == 0 and
			 .cold_required == (if "'"$m"'" == "clear-init-set" then 32 else 0 end))'
	done
	echo "# clear: $(result_json dl-clear | jq -c '.results.runs[0].zap |
		{calls, refaults_zero, v: .dirty_log.verify | {harvests, changed, missed, zeroed}}')" >&3
}

# The oracle under zap is shown to fire: in harvest 5 (after the fifth
# invalidation, the vCPUs writing) a page a vCPU wrote once in that
# window is lost, its later writes logged as usual.  Every mode fails,
# naming the page.
@test "zap --mode M --verify --debug-drop-dirty: a page written once and lost is named, every mode, nested TDP MMU" {
	require_nested
	local m
	batch x86-61
	for m in $MODES; do
		assert_drop_caught "drop-$m" 5 \
			"oracle: slot 1 gfn GFN changed but was not reported dirty \(written once in window [0-9]+, a sentinel, which no later write refreshes, round 4\)" \
			"--verify: 1 page missed, first slot 1 gfn GFN"
	done
}

# zap's first harvest is its own, at rest before the zaps: with
# clear-init-set it must hold every cold page.
@test "zap --mode clear-init-set --verify --debug-drop-cold: a cold page lost from the first harvest is named" {
	require_nested
	batch x86-61
	assert_cold_caught cold-drop "dirty-log oracle: slot 1 gfn GFN, bitmap word 0 bit 1, a cold page \(written before logging, never since\), is not in the first harvest"
}

# Kprobes exist in the nested kernel; this machine's KVM may have none
# (the next test covers what it says then).
@test "the probe layer times the kernel's zap (nested kernel, kprobes)" {
	require_nested
	batch_run x86-61 probe
	assert_success
	refute_output --partial "kernel probes: unavailable"
	assert_line --regexp "^  kernel \(kprobes\): tdp_mmu_zap_leafs [1-9][0-9]* calls"
}

# --no-kprobes on a kernel that has them: none placed, no kernel figure,
# and the document says so.
@test "zap --no-kprobes places no probe where kprobes work; its kernel figures are null" {
	require_nested
	batch_run x86-61 probe
	assert_success
	result_json probe | assert_json - '.config.kprobes == true and
		.results.runs[0].zap.kernel_zap_calls > 0'
	batch_run x86-61 noprobe
	assert_success
	assert_line "kernel probes: off (--no-kprobes); zap and fault-side figures are user-space proxies"
	refute_output --partial "kernel (kprobes)"
	result_json noprobe | assert_json - '.config.kprobes == false and
		(.results.runs[0].zap | .kernel_zap_calls == null and
		 .kernel_zap_total_ms == null and .fwait_p999_us == null and
		 .calls == 20)'
}

# Tracing as the probes found it: the global kprobe_events, tracing_on
# and buffer size, and no instances/mmubench, after a run and after
# SIGINT or SIGTERM while the probes are placed (the undo registry, run
# from the signal handler).
TRACE_SH='
T=/sys/kernel/tracing
state() {
	echo "STATE $1 events=$(grep -c . $T/kprobe_events) on=$(cat $T/tracing_on) size=$(cat $T/buffer_size_kb) instance=$(ls -d $T/instances/mmubench 2>/dev/null | wc -l)"
}
state before
mmubench zap -v 1 -b 8m --zap same4 --zap-count 20 >run.out 2>&1
echo "RESULT run rc=$?"
state run
for sig in INT TERM; do
	mmubench zap -v 1 -b 8m --zap same4 --zap-count 100000000 --zap-pause 1000 >$sig.out 2>&1 &
	i=0
	while [ $i -lt 120 ] && [ ! -d $T/instances/mmubench ]; do sleep 1; i=$((i + 1)); done
	state during-$sig
	kill -$sig $(pidof mmubench)
	wait $!
	echo "RESULT $sig rc=$?"
	state after-$sig
done'

# state_is TAG WANT [GROWN]: the STATE line of TAG is WANT; with GROWN,
# its size is at least GROWN KB and WANT has SIZE in its place.
state_is() {
	local line
	line=$(grep "^STATE $1 " <<<"$output") || fail "no STATE $1 line"
	line=${line#STATE $1 }
	if [[ ${3:-} ]]; then
		[[ $line =~ size=([0-9]+) ]] && ((BASH_REMATCH[1] >= $3)) ||
			fail "STATE $1: the global buffer is not at its default $3 KB: $line"
		line=$(sed -E 's/size=[0-9]+/size=SIZE/' <<<"$line")
	fi
	assert_equal "$line" "$2"
}

@test "the probes leave tracing as they found it: after a run, SIGINT, SIGTERM" {
	require_nested
	local before grown=
	batch x86-61
	assert_success
	before=$(grep '^STATE before ' <<<"$output")
	before=${before#STATE before }
	[[ $before == *instance=0 ]] || fail "an instance before the first run: $before"
	# Before 6.7 the first event enabled anywhere grows the global buffer
	# from its boot size to its default ("7 (expanded: 1408)" to about
	# 1408), the kernel's one-time step for any tracing user; it must not
	# stay at a bare 7.
	if [[ $before =~ size=[0-9]+\ \(expanded:\ ([0-9]+)\) ]]; then
		grown=${BASH_REMATCH[1]}
		before=${before/"${BASH_REMATCH[0]}"/size=SIZE}
	fi
	assert_line "RESULT run rc=0"
	state_is run "$before" "$grown"
	# While it runs: our probes placed and our instance there.
	assert_line --regexp '^STATE during-INT events=[1-9][0-9]* .* instance=1$'
	assert_line --regexp '^STATE during-TERM events=[1-9][0-9]* .* instance=1$'
	# Killed by the signal (128 + 2, 128 + 15), after undoing.
	assert_line "RESULT INT rc=130"
	state_is after-INT "$before" "$grown"
	assert_line "RESULT TERM rc=143"
	state_is after-TERM "$before" "$grown"
}

@test "the probe layer's parser reads recorded ftrace and perf output" {
	run "$O/san/probes-test"
	assert_success
	assert_output --partial "ok: 0 failures"
}

@test "on this machine the probe layer names what is missing, if anything" {
	[[ -e /sys/kernel/tracing/kprobe_events || -e /sys/kernel/debug/tracing/kprobe_events ]] &&
		skip "kprobe_events exists here; the nested run covers it"
	run "$MMUBENCH" zap --table c4 --zap-count 1 -b 8m
	if [[ $MMUB_DIRECT == 1 ]]; then
		assert_success
	else
		# No VM starts without /dev/kvm, but the probe check runs first.
		assert_failure
	fi
	assert_output --partial "kernel probes: unavailable (no kprobe_events in tracefs"
}

@test "bad zap input is rejected before any VM exists" {
	run "$MMUBENCH" zap -b 16m --zap c32
	assert_equal "$status" 2
	assert_output "mmubench: --zap c32: 32M is larger than the 16M of test memory"
	run "$MMUBENCH" zap -b 16m -s anonymous_hugetlb_2mb --zap rolling:1m
	assert_equal "$status" 2
	assert_output --partial "--zap rolling:1m: 1M is not a multiple of the anonymous_hugetlb_2mb page"
	run "$MMUBENCH" zap --zap c3x
	assert_equal "$status" 2
	assert_output --partial "--zap c3x: unknown pattern (accepted: same:SIZE, rolling:SIZE, same16"
	run "$MMUBENCH" zap --table same16,frob
	assert_equal "$status" 2
	assert_output --partial "--table frob: unknown scenario"
	run "$MMUBENCH" zap -w 50
	assert_equal "$status" 2
	assert_output --partial "-w 50: zap checks every refault by writing; it needs -w 100"
	run "$MMUBENCH" touch --zap c4
	assert_equal "$status" 2
	assert_output "mmubench: --zap: belongs to the zap scenario, not touch"
	run "$MMUBENCH" zap --verify
	assert_equal "$status" 2
	assert_output "mmubench: --verify: needs --mode M, whose harvests it checks"
	run "$MMUBENCH" zap --mode frob
	assert_equal "$status" 2
	assert_output "mmubench: --mode frob: unknown (accepted: get, clear, clear-init-set, ring, ring-acq-rel)"
	# The old name: still taken, and said to be one.
	run "$MMUBENCH" zap --dirty-log frob
	assert_equal "$status" 2
	assert_output "mmubench: --dirty-log frob: unknown (accepted: get, clear, clear-init-set, ring, ring-acq-rel)"
	run "$MMUBENCH" zap --dirty-log clear --debug-drop-dirty 3
	assert_equal "$status" 2
	assert_output "mmubench: --dirty-log: the old name of --mode, taken as it
mmubench: --debug-drop-dirty: needs --mode M --verify, whose oracle must catch the dropped page"
	run "$MMUBENCH" zap --table --mode clear
	assert_equal "$status" 2
	assert_output --partial "--mode: not with --table"
	run "$MMUBENCH" zap --mode ring -k 64
	assert_equal "$status" 2
	assert_output "mmubench: -k 64: only with --mode clear or clear-init-set, not ring"
	run "$MMUBENCH" zap --mode clear --verify --debug-drop-dirty 0
	assert_equal "$status" 2
	assert_output "mmubench: --debug-drop-dirty 0: zap's harvests start at 1, after the first invalidation"
	run "$MMUBENCH" zap --table --debug-corrupt-refault
	assert_equal "$status" 2
	assert_output "mmubench: --debug-corrupt-refault: not with --table, whose runs must pass"
	run "$MMUBENCH" zap --mode clear --debug-drop-dirty 3
	assert_equal "$status" 2
	assert_output "mmubench: --debug-drop-dirty: needs --mode M --verify, whose oracle must catch the dropped page"
	run "$MMUBENCH" zap --mode clear --verify --zap-count 10 --debug-drop-dirty 12
	assert_equal "$status" 2
	assert_output "mmubench: --debug-drop-dirty 12: past the last harvest (accepted: 1..11, one after each of --zap-count 10 invalidations and one at rest)"
}
