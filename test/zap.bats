#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
# Scenario "zap": invalidation under load, and the data the guest finds.
load helpers

# Each pattern on 2 vCPUs x 16 MiB, one boot; JSON has every metric.
@test "every seed pattern runs; JSON carries every metric; no violation" {
	require_kvm
	mmub_sh "$MMUB_RETRY_FN"'
for p in same16 same4 c16 c4 c2 c1; do
	mmubench_retry zap -v 2 -b 16m --zap $p --zap-count 40 --json /tmp/z.json
	rc=$?
	echo "RESULT pattern=$p rc=$rc"
	grep -E "integrity violations" /tmp/o
	[ $rc = 0 ] || grep "^mmubench:" /tmp/o
	echo "JSON $(tr -d "\n" </tmp/z.json)"
done'
	flake_notes
	assert_success
	local p json
	for p in same16 same4 c16 c4 c2 c1; do
		assert_line "RESULT pattern=$p rc=0"
	done
	assert_equal "$(grep -c 'integrity violations: 0$' <<<"$output")" 6
	while read -r json; do
		jq -e '.results.runs[0].zap as $z | $z.calls == 40 and
			$z.zap_total_ms > 0 and $z.madvise_p999_us > 0 and
			$z.fault_p999_us > 0 and $z.pages_per_s_per_vcpu > 0 and
			$z.integrity_violations == 0 and
			($z | has("kernel_zap_total_ms") and has("kernel_fwait_p999_us"))
			and (.results.runs[0].phases[1].vm_stats | has("pages_4k"))' \
			<<<"${json#JSON }" >/dev/null || fail "bad JSON: $json"
	done < <(grep '^JSON ' <<<"$output")
}

# Private memory refaults as zeros; shared memory keeps its data.
@test "integrity holds on anonymous, THP, hugetlb and shmem backings" {
	require_kvm
	mmub_sh "$MMUB_RETRY_FN"'
for s in anonymous anonymous_thp anonymous_hugetlb_2mb shmem; do
	mmubench_retry zap -v 2 -b 8m -s $s --reserve-hugepages --zap c2 --zap-count 40
	rc=$?
	echo "RESULT backing=$s rc=$rc"
	grep -E "refaults the guest saw" /tmp/o
	[ $rc = 0 ] || grep "^mmubench:" /tmp/o
done'
	flake_notes
	assert_success
	local s
	for s in anonymous anonymous_thp anonymous_hugetlb_2mb shmem; do
		assert_line "RESULT backing=$s rc=0"
	done
	assert_equal "$(grep -c 'integrity violations: 0$' <<<"$output")" 4
	# Only shmem keeps its data: it must show no zero refaults at all.
	assert_line --regexp "^  refaults the guest saw: 0 zero pages .* violations: 0$"
	assert_equal "$(grep -cE 'saw: [1-9][0-9]* zero pages' <<<"$output")" 3
}

@test "same invalidates only its range, rolling the whole memory" {
	require_kvm
	mmub_sh '
mmubench zap -v 1 -b 32m --zap same:4m --zap-count 60 --json /tmp/a.json >/dev/null && echo "SAME $(jq -c "[.results.runs[0].zap.zero_lo, .results.runs[0].zap.zero_hi]" /tmp/a.json 2>/dev/null || tr -d "\n" </tmp/a.json)"
mmubench zap -v 1 -b 32m --zap rolling:4m --zap-count 60 --json /tmp/b.json >/dev/null && echo "ROLL $(tr -d "\n" </tmp/b.json)"
mmubench zap -v 1 -b 32m --zap same:4m --zap-count 60 --json /tmp/a.json >/dev/null && echo "SAMEJ $(tr -d "\n" </tmp/a.json)"'
	assert_success
	local same roll
	same=$(grep '^SAMEJ ' <<<"$output" | cut -d' ' -f2-)
	roll=$(grep '^ROLL ' <<<"$output" | cut -d' ' -f2-)
	# same:4m: every zero the guest met lies in the first 4 MiB.
	run jq -e '.results.runs[0].zap | .refaults_zero > 0 and .zero_hi < 4194304' <<<"$same"
	assert_success
	# rolling:4m: 60 chunks of 4 MiB wrap 32 MiB: zeros far past 4 MiB.
	run jq -e '.results.runs[0].zap | .refaults_zero > 0 and .zero_hi >= 16777216' <<<"$roll"
	assert_success
}

@test "the probe layer times the kernel's zap, or says why it cannot" {
	require_kvm
	mmub zap -v 1 -b 8m --zap same4 --zap-count 20
	assert_success
	if grep -q '^kernel probes: unavailable (' <<<"$output"; then
		assert_output --regexp "kernel probes: unavailable \(.+\); zap and fault-side figures are user-space proxies"
	else
		assert_line --regexp "^  kernel \(kprobes\): tdp_mmu_zap_leafs [1-9][0-9]* calls"
	fi
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
	# No VM can start without /dev/kvm, but the probe check runs first.
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
	assert_output --partial "belong to the zap scenario"
}
