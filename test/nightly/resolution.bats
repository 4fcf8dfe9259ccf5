#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
# The detection curve, the nightly's (ci/nightly's tests step runs
# test/nightly/ after make test; its resolution step runs the full
# curve): tools/resolution.sh on a small real run (the original, the
# test-only zap walk at 0 % and at +25 %, 4 boots each on icount), and
# the regression gate's three verdicts on those runs: regressed, no
# change beyond resolution, cannot tell.  make test keeps the twins:
# the instruction clock's two boots agreeing (test/resolution.bats),
# the gate's verdicts on fixtures and a 5 ms slower zap walk caught in
# a night's comparison (test/baseline.bats).
load ../helpers

# Twelve boots and two kernels' KVM modules.
BATS_TEST_TIMEOUT=1800

# One grade, the fewest runs at which both tests
# can flag it, and a scenario a fifth of the nightly's (its figures are
# on instructions: one walk's median does not depend on how many).
ZAP=(zap --zap same4 -v 2 -b 16m --zap-count 40)
CURVE=(--grades 25 --repeat 4 --at 2,4 --clock icount:4
	--metrics kernel_zap_p50_us,fault_p999_us -- "${ZAP[@]}")

setup_file() {
	[[ $MMUB_NESTED == 1 && $ARCH == x86_64 ]] || return 0
	test_kernels >"$BATS_FILE_TMPDIR/test-kernels"
	local t0=$EPOCHREALTIME
	"$ROOT/tools/resolution.sh" --out "$BATS_FILE_TMPDIR/curve" "${CURVE[@]}" \
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

@test "resolution: on icount the curve flags the walk 25 % costlier at 4 runs a side; at 2, Mann-Whitney cannot" {
	need_curve
	# Every run on the instruction clock, each side the kernel it names.
	assert_json "$C/ab/runs/A-1.json" '.env.clock == "icount:4" and
		.env.kernel_series == "original"'
	assert_json "$C/ab/runs/C-4.json" '.env.kernel_series == "test-slow-zap-walk-25"'
	run cat "$C/curve.txt"
	assert_line "detection curve: ${ZAP[*]}, x86_64, clock icount:4; each side against the 0 % patch"
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
	# walk's own time beyond the 2 %, and the same count of walks (40 in
	# each boot), whose resolution, 0, says that nothing moved.
	run "$ROOT/ci/regress.sh" --thresholds "$t" "$C/at-4/B.json" "$C/at-4/C.json"
	assert_failure 1
	assert_line --regexp '^REGRESSION  zap kernel_zap_p50_us same4: median [0-9.]+ -> [0-9.]+ \(\+[0-9.]+ %; threshold 2 %, lower is better\); worse at 95 % by t and Mann-Whitney; '
	assert_line "  no change   zap kernel_zap_calls same4: median 40 -> 40 (+0 %; threshold 1 %, lower is better); no change beyond the resolution +/-0 %"
	# The other rows keep their scenario's thresholds (mmubench metrics).
	assert_line --regexp '^regress: [1-9][0-9]* of [0-9]+ judged rows regressed: (.*, )?kernel_zap_p50_us same4(, .*)? \([1-9][0-9]* no change beyond resolution, [0-9]+ cannot tell; [0-9]+ other numbers changed, not judged\)$'
	# Two runs a side: no test can flag anything, and the gate says so.
	run "$ROOT/ci/regress.sh" --thresholds "$t" "$C/at-2/B.json" "$C/at-2/C.json"
	assert_success
	assert_line --regexp '^  cannot tell zap kernel_zap_p50_us same4: .*; resolution none \(Mann-Whitney cannot reach 95 % with 2 and 2 runs\): a regression of 2 % could hide here$'
	assert_line --regexp '^regress: no regression in [0-9]+ judged rows \(0 no change beyond resolution, [0-9]+ cannot tell; [0-9]+ other numbers changed, not judged\)$'
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
