#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
# Resolution (README.md, "Resolution"): the nested runner's deterministic
# clock (--clock icount), tools/resolution.sh's detection curve on a small
# real run (the original, the test-only zap walk at 0 % and at +25 %,
# 4 boots each on icount), and the regression gate's three verdicts on
# those runs: regressed, no change beyond resolution, cannot tell.
load helpers

# Twelve boots of about 30 s and two incremental kernel builds.
BATS_TEST_TIMEOUT=1800

CURVE=(--grades 25 --repeat 4 --at 2,4 --clock icount:4
	--metrics kernel_zap_p50_us,fault_p999_us)

setup_file() {
	[[ $MMUB_NESTED == 1 && $ARCH == x86_64 ]] || return 0
	test_kernels >"$BATS_FILE_TMPDIR/test-kernels"
	local t0=$EPOCHREALTIME
	"$ROOT/tools/resolution.sh" "${CURVE[@]}" --out "$BATS_FILE_TMPDIR/curve" \
		>"$BATS_FILE_TMPDIR/curve.log" 2>&1 || true
	printf '# the curve (3 kernels x 4 boots on icount, builds included): %.0f s\n' \
		"$(echo "$EPOCHREALTIME - $t0" | bc)" >&3
	# tools/ab.sh's redos count as retries (need_curve fails a missing curve).
	ab_redone "$BATS_FILE_TMPDIR/curve/ab" 2>/dev/null || true
}

teardown_file() {
	[[ ! -f $BATS_FILE_TMPDIR/test-kernels ]] ||
		test_kernels_put_back "$(<"$BATS_FILE_TMPDIR/test-kernels")"
}

need_curve() {
	[[ $ARCH == x86_64 ]] || skip "the test-only series is x86's TDP MMU"
	require_nested
	C=$BATS_FILE_TMPDIR/curve
	[[ -s $C/curve.json ]] ||
		fail "tools/resolution.sh made no curve: $(tail -n 20 "$BATS_FILE_TMPDIR/curve.log")"
}

@test "nested --clock icount: the L1 counts instructions, says so in env.clock, and two boots agree" {
	local d=$BATS_TEST_TMPDIR
	require_nested
	[[ $ARCH == x86_64 ]] || skip "the x86_64 L1's one CPU under icount"
	for i in 1 2; do
		# The nested kernel's clock: nested even where /dev/kvm runs.
		run env MMUBENCH_KVM=nested "$ROOT/tools/kvm-exec.sh" --clock icount:4 --arch x86_64 \
			"$MMUBENCH" "$GUEST" zap --zap same4 -v 2 -b 32m --zap-count 100 \
			--json "$d/z$i.json"
		assert_success
		assert_json "$d/z$i.json" '.env.clock == "icount:4"'
	done
	# One walk's median: equal within 0.1 % on the instruction clock
	# (measured: to the ns over 10 boots); the host's moves it by tens.
	run jq -n --slurpfile a "$d/z1.json" --slurpfile b "$d/z2.json" '
		[$a[0], $b[0]] | map(.results.runs[0].zap.kernel_zap_p50_us) as $v
		| ($v | all(. > 0)) and (($v[0] / $v[1] - 1) | fabs) < 0.001'
	assert_output true
}

@test "nested --clock: bad input is one line, exit 2, before anything boots" {
	run "$ROOT/ci/nested/run.sh" --clock icount:11 -- true
	assert_equal "$status" 2
	assert_output "ci/nested/run.sh: error: --clock icount:11: SHIFT is 0..10 (2^SHIFT ns an instruction)"
	run "$ROOT/ci/nested/run.sh" --clock tsc -- true
	assert_equal "$status" 2
	assert_output "ci/nested/run.sh: error: --clock tsc: accepted: host, icount, icount:SHIFT (SHIFT 0..10)"
	run "$ROOT/ci/nested/run.sh" --arch x86_64 --clock icount --smp 2 -- true
	assert_equal "$status" 2
	assert_output "ci/nested/run.sh: error: --smp 2: with --clock icount the x86_64 L1 has one CPU (QEMU 7.2 never finishes booting a second one under icount)"
	run "$ROOT/tools/ab.sh" --series original --arch x86_64 --clock icount --smp 4 -- zap
	assert_equal "$status" 2
	assert_output "tools/ab.sh: error: --smp 4: with --clock icount the x86_64 L1 has one CPU (ci/nested/run.sh)"
	# The machine's own /dev/kvm has only its own clock.
	run env MMUBENCH_KVM=direct "$ROOT/tools/kvm-exec.sh" --clock icount "$MMUBENCH" "$GUEST" touch
	assert_equal "$status" 2
	assert_output "tools/kvm-exec.sh: error: --clock icount: the nested kernel's clock, and this run is on this machine's /dev/kvm (MMUBENCH_KVM=nested runs it nested)"
	run "$ROOT/tools/ab.sh" --series original --clock icount:x -- zap
	assert_equal "$status" 2
	assert_output "tools/ab.sh: error: --clock icount:x: accepted: host, icount, icount:SHIFT (SHIFT 0..10)"
}

@test "resolution: on icount the curve flags the walk 25 % costlier at 4 runs a side; at 2, Mann-Whitney cannot" {
	need_curve
	# Every run on the instruction clock, each side the kernel it names.
	assert_json "$C/ab/runs/A-1.json" '.env.clock == "icount:4" and
		(.env.kernel | endswith("-mmub-original"))'
	assert_json "$C/ab/runs/C-4.json" '.env.kernel | endswith("-mmub-test-slow-zap-walk-25")'
	run cat "$C/curve.txt"
	assert_line "detection curve: zap --zap same4 -v 2 -b 32m --zap-count 100, x86_64, clock icount:4; each side against the 0 % patch"
	assert_line --regexp '^  \+25%        \+[0-9.]+ % no  \(res none\) +\+[0-9.]+ % yes \(res \+/-[0-9.]+ %\)$'
	assert_line "  smallest slowdown flagged: none at 2, +25 % at 4"
	# The change is the walk's share of what the probes time: more
	# than a tenth of the grade, no more than all of it.
	assert_json "$C/curve.json" '[.rows[] | select(.metric == "kernel_zap_p50_us" and
		.runs == 4 and .side == "+25%")] | length == 1 and
		(.[0] | .flagged and .resolution_pct < .change_pct and
		 .change_pct > 2.5 and .change_pct <= 25.5)'
}

@test "regress: on the graded series, regressed, no change beyond resolution, and cannot tell" {
	local t=$BATS_TEST_TMPDIR/t.conf
	need_curve
	# One walk's median at 2 %; the number of walks at 1 %.  (The vCPUs'
	# p99.9 access is a histogram bucket: one boot of 4 in another bucket
	# took its resolution from +/-60 % to +/-87 % between two runs of
	# this test, so it cannot show "no change" at any fixed threshold.)
	printf '| zap | kernel_zap_p50_us | lower | 2 |\n| zap | kernel_zap_calls | lower | 1 |\n' >"$t"
	# B is the 0 % patch, C the walk 25 % costlier: a regression of the
	# walk's own time beyond the 2 %, and the same count of walks (100 in
	# each of 80 boots of the curve on icount), whose resolution, 0, says
	# that nothing moved.
	run "$ROOT/ci/regress.sh" --thresholds "$t" "$C/at-4/B.json" "$C/at-4/C.json"
	assert_failure 1
	assert_line --regexp '^REGRESSION  zap kernel_zap_p50_us same4: median [0-9.]+ -> [0-9.]+ \(\+[0-9.]+ %; threshold 2 %, lower is better\); worse at 95 % by t and Mann-Whitney; '
	assert_line "  no change   zap kernel_zap_calls same4: median 100 -> 100 (+0 %; threshold 1 %, lower is better); no change beyond the resolution +/-0 %"
	# The other rows keep their scenario's thresholds (mmubench metrics).
	assert_line --regexp '^regress: [1-9][0-9]* of [0-9]+ judged rows regressed: (.*, )?kernel_zap_p50_us same4(, .*)? \([1-9][0-9]* no change beyond resolution, [0-9]+ cannot tell\)$'
	# Two runs a side: no test can flag anything, and the gate says so.
	run "$ROOT/ci/regress.sh" --thresholds "$t" "$C/at-2/B.json" "$C/at-2/C.json"
	assert_success
	assert_line --regexp '^  cannot tell zap kernel_zap_p50_us same4: .*; resolution none \(Mann-Whitney cannot reach 95 % with 2 and 2 runs\): a regression of 2 % could hide here$'
	assert_line --regexp '^regress: no regression in [0-9]+ judged rows \(0 no change beyond resolution, [0-9]+ cannot tell\)$'
}

@test "resolution: --from judges the same runs again without booting; bad input is exit 2" {
	need_curve
	run "$ROOT/tools/resolution.sh" --from "$C" --at 4 --metrics kernel_zap_p50_us
	assert_success
	assert_line "  smallest slowdown flagged: +25 % at 4"
	run "$ROOT/tools/resolution.sh" --from "$C" --at 5
	assert_equal "$status" 2
	assert_output "tools/resolution.sh: error: --at 5: more than the 4 runs a side"
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
