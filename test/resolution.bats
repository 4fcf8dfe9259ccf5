#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
# Resolution (docs/ab.md, "Resolution"): the nested runner's deterministic
# clock (--clock icount), whose two boots of one kernel agree; bad input
# to tools/resolution.sh.  The detection curve itself, 12 boots on
# icount, is the nightly's (test/nightly/resolution.bats); the gate's
# verdicts and a slower zap walk caught are test/baseline.bats'.
load helpers

# A short zap walk whose every call does the same work, so that the two
# boots must agree: the vCPU refaults the whole 256 KiB (64 pages) in each
# 50 ms pause, and a call of 64 pages (400 us) rarely meets a tick.  With
# no pause the vCPU refaults what the L1's one CPU lets it between two
# calls, which the boots do not share (their L1s differ by ms before the
# run), and a median of calls that zap 0 or some pages split 960/988 us
# (docs/findings/deterministic-time.md).  The nightly's curve
# (test/nightly/resolution.bats) runs the full walk.
ZAP=(zap --zap same:256k -v 1 -b 8m --zap-pause 50000 --zap-count 21)

@test "nested --clock icount: the L1 counts instructions, says so in env.clock, and two boots agree" {
	local d=$BATS_TEST_TMPDIR
	require_nested
	[[ $ARCH == x86_64 ]] || skip "the x86_64 L1's one CPU under icount"
	for i in 1 2; do
		# The nested kernel's clock: nested even where /dev/kvm runs.
		run env MMUBENCH_KVM=nested "$ROOT/tools/kvm-exec.sh" --clock icount:4 --arch x86_64 \
			"$MMUBENCH" "$GUEST" "${ZAP[@]}" \
			--json "$d/z$i.json"
		assert_success
		assert_json "$d/z$i.json" '.env.clock == "icount:4" and .env.cpus == 1'
		# The same work: every call found its 64 pages refaulted.
		assert_json "$d/z$i.json" '.results.runs[0].zap.refaults_zero == 21 * 64'
	done
	# One walk's median: equal within 0.1 % on the instruction clock
	# (measured: to the ns over 8 boots, 403.92 us); the host's moves it
	# by about 1 % (83.07 and 83.89 us, 2026-12-06).
	echo "# kernel_zap_p50_us: $(jq -s -c 'map(.results.runs[0].zap.kernel_zap_p50_us)' \
		"$d/z1.json" "$d/z2.json")" >&3
	run jq -n --slurpfile a "$d/z1.json" --slurpfile b "$d/z2.json" '
		[$a[0], $b[0]] | map(.results.runs[0].zap.kernel_zap_p50_us) as $v
		| ($v | all(. > 0)) and (($v[0] / $v[1] - 1) | fabs) < 0.001'
	assert_output true
}

# With two L1 CPUs (QEMU 7.2 left the second without time: it runs the
# backports' 10.0), what CPUs share is there: the vCPUs wait for
# mmu_lock while the zap holds it, and flush each other's TLBs.  One CPU
# has neither (0 waits in 10 of 10 boots; 2 CPUs: 147 to 1769 us in 10
# of 10, docs/findings/deterministic-time.md).
@test "nested --clock icount --smp 2: the x86_64 L1 has both CPUs, and its vCPUs wait for mmu_lock" {
	local d=$BATS_TEST_TMPDIR
	require_nested
	[[ $ARCH == x86_64 ]] || skip "the x86_64 L1's CPUs under icount"
	run env MMUBENCH_KVM=nested "$ROOT/tools/kvm-exec.sh" --clock icount:4 --smp 2 --arch x86_64 \
		--sh 'echo "online $(cat /sys/devices/system/cpu/online)"
		      mmubench zap --zap same4 -v 2 -b 16m --zap-count 20 --json z.json >/dev/null &&
		      echo "json $(tr -d "\n" <z.json)"' "$MMUBENCH" "$GUEST"
	assert_success
	assert_line "online 0-1"
	sed -n 's/^json //p' <<<"$output" >"$d/z.json"
	echo "# fwait_p999_us $(jq .results.runs[0].zap.fwait_p999_us "$d/z.json")," \
		"flush requests $(jq .results.runs[0].phases[1].vm_stats.remote_tlb_flush_requests "$d/z.json")" >&3
	# QEMU 8.1 or later: 7.2 would run one CPU and starve the other.
	assert_json "$d/z.json" '.env.clock == "icount:4" and .env.cpus == 2
		and (.env.qemu | split(".") | map(tonumber) >= [8, 1])
		and .results.runs[0].zap.fwait_p999_us > 0
		and .results.runs[0].phases[1].vm_stats.remote_tlb_flush_requests > 0'
}

@test "nested --clock: bad input is one line, exit 2, before anything boots" {
	run "$ROOT/lib/nested/run.sh" --clock icount:11 -- true
	assert_equal "$status" 2
	assert_output "lib/nested/run.sh: error: --clock icount:11: SHIFT is 0..10 (2^SHIFT ns an instruction)"
	run "$ROOT/lib/nested/run.sh" --clock tsc -- true
	assert_equal "$status" 2
	assert_output "lib/nested/run.sh: error: --clock tsc: accepted: host, icount, icount:SHIFT (SHIFT 0..10)"
	# Several CPUs need a QEMU that shares time between them: not the
	# system's 7.2, and none fetched into this (empty) cache.
	source "$ROOT/lib/nested/qemu.sh"
	local v need="needs QEMU 8.1 or later, whose icount shares time between CPUs"
	v=$(qemu_version qemu-system-x86_64)
	if ! version_at_least "$v" 8.1; then
		need+=" (this is $v); lib/fetch-qemu.sh unpacks the backports' (ci/deps.sh does)"
		run env MMUBENCH_CACHE="$BATS_TEST_TMPDIR/none" "$ROOT/lib/nested/run.sh" \
			--arch x86_64 --clock icount --smp 2 -- true
		assert_equal "$status" 2
		assert_output "lib/nested/run.sh: error: --smp 2 with --clock icount: $need"
		run env MMUBENCH_CACHE="$BATS_TEST_TMPDIR/none" "$ROOT/lib/nested/run.sh" \
			--arch arm64 --clock icount -- true
		assert_equal "$status" 2
		assert_output "lib/nested/run.sh: error: arm64's 2 CPUs (--smp 1: one) with --clock icount: $need"
		# Before anything is built.
		run env MMUBENCH_CACHE="$BATS_TEST_TMPDIR/none" "$ROOT/tools/ab.sh" \
			--series original --arch x86_64 --clock icount --smp 4 -- zap
		assert_equal "$status" 2
		assert_output "tools/ab.sh: error: --smp 4 with --clock icount: $need"
	fi
	# The machine's own /dev/kvm has only its own clock.
	run env MMUBENCH_KVM=direct "$ROOT/tools/kvm-exec.sh" --clock icount "$MMUBENCH" "$GUEST" touch
	assert_equal "$status" 2
	assert_output "tools/kvm-exec.sh: error: --clock icount: the nested kernel's clock, and this run is on this machine's /dev/kvm (MMUBENCH_KVM=nested runs it nested)"
	run "$ROOT/tools/ab.sh" --series original --clock icount:x -- zap
	assert_equal "$status" 2
	assert_output "tools/ab.sh: error: --clock icount:x: accepted: host, icount, icount:SHIFT (SHIFT 0..10)"
}




@test "resolution: bad input names the option and what it accepts" {
	run "$ROOT/tools/resolution.sh" --grades 3
	assert_equal "$status" 2
	assert_output "tools/resolution.sh: error: --grades 3: no series test/series/6.1/test-slow-zap-walk-3 (the grades there: 1,2,5,10,25,50,100)"
	run "$ROOT/tools/resolution.sh" --at 1
	assert_equal "$status" 2
	assert_output "tools/resolution.sh: error: --at 1: a test needs 2 runs a side or more"
	run "$ROOT/tools/resolution.sh" --from "$BATS_TEST_TMPDIR"
	assert_equal "$status" 2
	assert_output "tools/resolution.sh: error: --from $BATS_TEST_TMPDIR: not a folder of tools/resolution.sh (no ab/command.txt)"
	run shellcheck -x "$ROOT/tools/resolution.sh"
	assert_success
}
