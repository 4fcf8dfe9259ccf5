#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
# The fidelity report (ci/fidelity.sh, the figures of experiments.conf; ci/README.md,
# "Fidelity"): the seeds' published numbers against a night's paper
# experiments.  The night is test/fixtures/fidelity/night, compare.json
# documents written for these tests, small and with known medians:
# two-side ones (enable-page-sizes-full, nx-recovery-full*, the A/A enable-init-set-full)
# and an N-way one (zap-patterns-full: original, v2 unlink, the no-unlink
# control), with some rows left out; migrate-init-set is not there.
load helpers

NIGHT=$ROOT/test/fixtures/fidelity/night

# fid [ARGS...]: the report of NIGHT (or ARGS) into the test's directory.
fid() {
	run "$ROOT/ci/fidelity.sh" --out "$BATS_TEST_TMPDIR" "${@:-$NIGHT}"
}

# row SEED TABLE ROW: that row of fidelity.json.
row() {
	jq -c --arg s "$1" --arg t "$2" --arg r "$3" \
		'.rows[] | select(.seed == $s and .table == $t and .row == $r)' \
		"$BATS_TEST_TMPDIR/fidelity.json"
}

@test "fidelity: each seed's table, mmubench's medians beside the seed's, q and the verdicts" {
	fid
	assert_success
	# Seed 000: the 4K rise shows, 25x against the seed's 189x.
	assert_line "seed 000: enable, clear-init-set (ms), enable-page-sizes-full: enable_ms (--table)"
	assert_line "  scaling: enable-page-sizes-full: arm64, 1 vCPU x 4G (the seed: 127 GB mapped of 128 GB); the 1G row left out"
	assert_line "  4K          1.8   341 189.4 |             0.5  12.5  25 2/2 yes yes   - | 0.132      yes        no"
	assert_line "  2M          1.8     4 2.222 |             0.4   0.8   2 2/2 yes yes   - |   0.9      yes       yes"
	# Seed 003, an A/A run: both sides pooled (2 + 2 runs), no test.
	assert_line "  4K          460    10 0.022 |              85  0.75 0.008824 4/4 -  -   - | 0.406      yes        no"
	# Seed 002's row without a figure is shown, without a verdict.
	assert_line "  logging on            -     -     - |             3.2   1.9 0.594 2/2 yes yes   - |     -        -         -"
	assert_line "rows: 26, 25 with seed figures; same direction: 7 yes, 3 no, 15 missing, 1 -; within 2x: 7 yes, 3 no, 15 missing, 1 -"
	row 000 "enable, clear-init-set" 4K | assert_json - '.seed_figures.ratio > 189.44 and
		.seed_figures.ratio < 189.45 and .mmubench.ratio == 25 and
		.mmubench.t_significant and .same_direction == "yes" and
		.within_2x == "no" and (.ratio_of_ratios - 25 / (341 / 1.8) | fabs) < 1e-9'
	row 003 memory_global_dirty_log_start 4K | assert_json - '.mmubench.before == 85 and
		.mmubench.after == 0.75 and .mmubench.n_before == 4 and
		.mmubench.t_significant == null and .within_2x == "no"'
	row 002 kvm-nx-lpage-re:se.sum_exec_runtime "logging on" | assert_json - \
		'.seed_figures == null and .same_direction == "-" and .within_2x == "-"'
	assert_json "$BATS_TEST_TMPDIR/fidelity.json" '.summary == {rows: 26,
		with_seed_figures: 25,
		same_direction: {"-": 1, missing: 15, no: 3, yes: 7},
		within_2x: {"-": 1, missing: 15, no: 3, yes: 7}}'
}

@test "fidelity: a direction the seed does not have is 'no', also where the seed says 'as the original'" {
	fid
	assert_success
	# The seed's +1 %, mmubench's -3 %: within 2x, but not the same way.
	assert_line "  logging off       730.1 740.6 1.014 |             3.2   3.1 0.969 2/2  no  no   - | 0.955       no       yes"
	row 002 kvm-nx-lpage-re:se.sum_exec_runtime "logging off" | assert_json - \
		'.same_direction == "no" and .within_2x == "yes"'
	# The seed's c1 fell 4 %, mmubench's rose 19 %.
	assert_line "  c1            1353  1304 0.964 |            1050  1250 1.19 2/2 yes yes   - | 1.235       no       yes"
	# "Back to the original": yes when not significant by t, else no.
	assert_line "  same16       330.3 330.3   1 |             310   320 1.032 2/2 no no   - | 1.032      yes       yes"
	assert_line "  c16          72    72   1 |              72    95 1.319 2/2 yes yes   - | 1.319       no       yes"
}

@test "fidelity: a difference below the resolution is 'below res', not opposite; above it, the direction stands" {
	local n=$BATS_TEST_TMPDIR/n
	cp -r "$NIGHT" "$n"
	# The logging-off row as compare writes it now: its resolution, the
	# smallest change both tests would flag, beside the -3 % measured.
	jq '.rows[0].resolution = {power: 0.8, mde: 0.4, mde_pct: 12.5, reachable: true}' \
		"$NIGHT/nx-recovery-full/compare.json" >"$n/nx-recovery-full/compare.json"
	fid "$n"
	assert_success
	assert_line "  logging off       730.1 740.6 1.014 |             3.2   3.1 0.969 2/2  no  no +/-12.5% | 0.955 below res       yes"
	row 002 kvm-nx-lpage-re:se.sum_exec_runtime "logging off" | assert_json - \
		'.same_direction == "below res" and .mmubench.resolution_pct == 12.5'
	assert_line --partial "same direction: 7 yes, 2 no, 1 below res, 15 missing, 1 -;"
	# A resolution finer than the change: the direction is the kernel's.
	jq '.rows[0].resolution = {power: 0.8, mde: 0.04, mde_pct: 1.25, reachable: true}' \
		"$NIGHT/nx-recovery-full/compare.json" >"$n/nx-recovery-full/compare.json"
	fid "$n"
	assert_success
	row 002 kvm-nx-lpage-re:se.sum_exec_runtime "logging off" | assert_json - \
		'.same_direction == "no"'
	# Runs too few for Mann-Whitney: no resolution at all.
	jq '.rows[0].resolution = {power: 0.8, mde: null, mde_pct: null, reachable: false}' \
		"$NIGHT/nx-recovery-full/compare.json" >"$n/nx-recovery-full/compare.json"
	fid "$n"
	assert_success
	row 002 kvm-nx-lpage-re:se.sum_exec_runtime "logging off" | assert_json - \
		'.same_direction == "below res" and .mmubench.resolution_pct == "none"'
}

@test "fidelity: N-way compare.json: each kernel by its label, against sides[0]" {
	fid
	assert_success
	# v2 unlink is sides[1], the control sides[2]: the same row of one
	# document, two different kernels and tests.
	row 001 "zap_total_ms_med, v2 unlink" same16 | assert_json - '.mmubench == {metric:
		"kernel_zap_total_ms", before: 310, after: 65, n_before: 2, n_after: 2,
		ratio: (65 / 310), t_significant: true, mw_significant: true,
		resolution_pct: null}'
	row 001 "zap_total_ms, no-unlink control" same16 | assert_json - '.mmubench.after == 320 and
		.mmubench.t_significant == false and .same_direction == "yes"'
	# The metric named second when the first is absent (fwait_p999_us).
	row 001 "fwait_p999_us_med, v2 unlink" c16 | assert_json - \
		'.mmubench.metric == "fwait_p999_us" and .mmubench.after == 114'
}

@test "fidelity: what the night lacks is 'missing', never a yes" {
	fid
	assert_success
	assert_line "  4K        21000  6000 0.286 |               -     -   - - -  -   - | -  missing   missing"
	assert_line "  missing: 4K: no experiment migrate-init-set in the night"
	assert_line "  missing: 1G: no row 1G anonymous_hugetlb_1gb clear-init-set of enable_ms (--table)"
	row 000 migration 4K | assert_json - '.mmubench == null and
		.missing == "no experiment migrate-init-set in the night" and
		.same_direction == "missing" and .within_2x == "missing"'
	# An empty night: every row missing, the report still written.
	mkdir "$BATS_TEST_TMPDIR/empty"
	fid "$BATS_TEST_TMPDIR/empty"
	assert_success
	assert_line "rows: 26, 25 with seed figures; same direction: 25 missing, 1 -; within 2x: 25 missing, 1 -"
	# An experiment that ended early (no compare.json) is missing too.
	mkdir -p "$BATS_TEST_TMPDIR/early/nx-recovery-full"
	fid "$BATS_TEST_TMPDIR/early"
	assert_success
	assert_line "  missing: logging off: nx-recovery-full has no compare.json (ended early?)"
}

@test "fidelity: --experiment takes one from elsewhere; the files are the report, written whole" {
	local n=$BATS_TEST_TMPDIR/n
	cp -r "$NIGHT" "$n"
	mv "$n/zap-patterns-full" "$BATS_TEST_TMPDIR/apart"
	run "$ROOT/ci/fidelity.sh" --experiment "zap-patterns-full=$BATS_TEST_TMPDIR/apart" "$n"
	assert_success
	assert_line "  same16       330.3  61.9 0.187 |             310    65 0.21 2/2 yes yes   - | 1.119      yes       yes"
	# Printed is what fidelity.txt holds; no temporary file is left.
	assert_equal "$output" "$(cat "$n/fidelity.txt")"
	assert_json "$n/fidelity.json" '(.rows | length) == 26 and
		(.definitions.within_2x == "1/2 <= q <= 2")'
	run find "$n" -maxdepth 1 -name '.fidelity.*'
	assert_success
	assert_output ""
}

@test "fidelity: bad input is one line and exit 2" {
	local s=$BATS_TEST_TMPDIR/seeds.tsv
	run "$ROOT/ci/fidelity.sh"
	assert_equal "$status" 2
	assert_output "ci/fidelity.sh: error: no NIGHT_DIR (ci/nightly's --out), nor --night BASE=DIR"
	run "$ROOT/ci/fidelity.sh" --night 5.15="$NIGHT"
	assert_equal "$status" 2
	assert_output "ci/fidelity.sh: error: --night 5.15=$NIGHT: expected BASE=NIGHT_DIR, BASE 6.1 or 6.12"
	run "$ROOT/ci/fidelity.sh" --night 6.12="$NIGHT" --night 6.12="$NIGHT"
	assert_equal "$status" 2
	assert_output "ci/fidelity.sh: error: --night 6.12=$NIGHT: base 6.12 named twice"
	run "$ROOT/ci/fidelity.sh" --night 6.12="$NIGHT" "$NIGHT"
	assert_equal "$status" 2
	assert_output "ci/fidelity.sh: error: NIGHT_DIR $NIGHT and --night: one or the other (a plain NIGHT_DIR is --night 6.1=NIGHT_DIR)"
	run "$ROOT/ci/fidelity.sh" /nonexistent
	assert_equal "$status" 2
	assert_output "ci/fidelity.sh: error: NIGHT_DIR /nonexistent: not a directory"
	run "$ROOT/ci/fidelity.sh" --frob "$NIGHT"
	assert_equal "$status" 2
	assert_output "ci/fidelity.sh: error: unknown option '--frob' (accepted: --seeds FILE, --experiment NAME=DIR, --out DIR, --night BASE=DIR)"
	run "$ROOT/ci/fidelity.sh" --experiment zap-patterns-full "$NIGHT"
	assert_equal "$status" 2
	assert_output "ci/fidelity.sh: error: --experiment zap-patterns-full: expected NAME=DIR (an experiment's name, a tools/ab.sh folder)"
	printf '000\tt\t4K\t1.8\t341\tms\tseed000-paper\tm\toriginal:a\tb:a\n' >"$s"
	run "$ROOT/ci/fidelity.sh" --seeds "$s" --out "$BATS_TEST_TMPDIR" "$NIGHT"
	assert_equal "$status" 2
	assert_output --partial "ci/fidelity.sh: error: --seeds $s: line 1 has 10 columns, not 11"
	printf '000\tt\t4K\t1.8x\t341\tms\tseed000-paper\tm\toriginal:a\tb:a\tsrc\n' >"$s"
	run "$ROOT/ci/fidelity.sh" --seeds "$s" --out "$BATS_TEST_TMPDIR" "$NIGHT"
	assert_equal "$status" 2
	assert_output "ci/fidelity.sh: error: --seeds $s: line 1: seed_before '1.8x', seed_after '341': numbers or -"
	printf '000\tt\t4K\t1.8\t341\tms\tseed000-paper\tm\toriginal\tb:a\tsrc\n' >"$s"
	run "$ROOT/ci/fidelity.sh" --seeds "$s" --out "$BATS_TEST_TMPDIR" "$NIGHT"
	assert_equal "$status" 2
	assert_output "ci/fidelity.sh: error: --seeds $s: line 1: before 'original', after 'b:a': SIDE:ROW each"
	# A compare.json that is not one.
	mkdir -p "$BATS_TEST_TMPDIR/bad/enable-page-sizes-full"
	echo '{"rows": 3}' >"$BATS_TEST_TMPDIR/bad/enable-page-sizes-full/compare.json"
	run "$ROOT/ci/fidelity.sh" "$BATS_TEST_TMPDIR/bad"
	assert_equal "$status" 2
	assert_output "ci/fidelity.sh: error: $BATS_TEST_TMPDIR/bad/enable-page-sizes-full/compare.json: not a compare.json of mmubench compare (rows, and a/b or sides)"
	assert_file_not_exists "$BATS_TEST_TMPDIR/bad/fidelity.json"
}

@test "fidelity: the seeds file's lines are well formed and name the seeds' own figures" {
	# Every line passes the checks; the seeds' figures are as published.
	fid
	assert_success
	assert_json "$BATS_TEST_TMPDIR/fidelity.json" '[.rows[] | select(.seed_figures)
		| "\(.seed) \(.row) \(.seed_figures.before) \(.seed_figures.after)"]
		| (["000 4K 1.8 341", "003 4K 460 10", "002 logging off 730.084105 740.581988",
			"001 same4 341.3 52.4"] - .) == []'
}

@test "fidelity: ci/store.sh keeps the night's fidelity.json beside its entries" {
	local n=$BATS_TEST_TMPDIR/n s=$BATS_TEST_TMPDIR/store r=$ROOT/test/fixtures/report/night2/enable-init-set
	local commit
	mkdir -p "$n/enable-init-set"
	"$MMUBENCH" merge "$n/enable-init-set/A.json" "$r"/runs/A-*.json
	"$MMUBENCH" merge "$n/enable-init-set/B.json" "$r"/runs/B-*.json
	cp "$r/compare.json" "$n/enable-init-set/"
	"$ROOT/ci/fidelity.sh" "$NIGHT" --out "$n" >/dev/null
	commit=$(json_val "$n/enable-init-set/A.json" .env.mmubench_version)
	run "$ROOT/ci/store.sh" --store "$s" --date 20261201-020000 "$n"
	assert_success
	assert_output "x86_64/original/enable-init-set/20261201-020000-$commit
fidelity/20261201-020000-$commit.json"
	run cmp "$n/fidelity.json" "$s/fidelity/20261201-020000-$commit.json"
	assert_success
	# A file that is not a report is refused, and nothing is stored.
	echo '{}' >"$n/fidelity.json"
	run "$ROOT/ci/store.sh" --store "$BATS_TEST_TMPDIR/store2" --date 20261201-020000 "$n"
	assert_equal "$status" 1
	assert_output "ci/store.sh: error: $n/fidelity.json: not a report of ci/fidelity.sh"
	assert_file_not_exists "$BATS_TEST_TMPDIR/store2/index.tsv"
}

@test "fidelity: ci/nightly takes the paper experiments in --only, and no other" {
	local names
	# The manifest's names, as it lists them: not a copy of them.
	names=$("$ROOT/ci/manifest.sh" --names | paste -sd, | sed 's/,/, /g')
	[[ $names == *nx-recovery-full* ]] || fail "ci/manifest.sh --names: '$names'"
	run "$ROOT/ci/nightly" --only nx-recovery-full,seed004-paper
	assert_equal "$status" 2
	assert_output "ci/nightly: error: --only seed004-paper: unknown (accepted: tests, peer, resolution, and the experiments of experiments.conf: $names)"
	run "$ROOT/ci/nightly" --help
	assert_success
	assert_line --partial "nx-recovery-full-logging), enable-init-set-full: the"
}

# night612 DIR: the fixture night as a 6.12 night would label it: every
# kernel NAME@6.12, and seed 002's two traded, since 6.12's original has
# the change (A, the reference) and the revert series has not (B).  The
# same figures, so every verdict must come out as on 6.1.
night612() {
	local d e
	for d in "$NIGHT"/*/; do
		e=$1/$(basename "$d")
		mkdir -p "$e"
		cp "$d"/* "$e/"
		case $e in
		*/nx-recovery-full*)
			jq '.a as $x | .a = .b | .b = $x |
			    .rows |= map(.a as $x | .a = .b | .b = $x) |
			    .a.label = "original@6.12" |
			    .b.label = "x86-nx-skip-dirty-tracked-recovery-revert@6.12"' \
				"$d/compare.json" >"$e/compare.json" ;;
		*)
			jq 'if .sides then .sides |= map(.label += "@6.12")
			    else .a.label += "@6.12" | .b.label += "@6.12" end' \
				"$d/compare.json" >"$e/compare.json" ;;
		esac
	done
}

@test "fidelity: a column per base; on 6.12 the sides are NAME@6.12 and seed 002's kernels traded" {
	local n612=$BATS_TEST_TMPDIR/night612 out=$BATS_TEST_TMPDIR/out j
	night612 "$n612"
	mkdir -p "$out"
	run "$ROOT/ci/fidelity.sh" --out "$out" --night 6.1="$NIGHT" --night 6.12="$n612"
	assert_success
	j=$out/fidelity.json
	assert_line --partial "seed 002 on 6.12: kvm-nx-lpage-re:se.sum_exec_runtime"
	assert_line "by base: r_m, same direction, within 2x"
	assert_line --regexp '^  001 +zap_total_ms_med, v2 unlink +same16 +[0-9.]+ +\| +[0-9.]+ +[a-z]+ +[a-z]+ +\| +[0-9.]+ +[a-z]+ +[a-z]+$'
	# The same figures on both bases: the same verdicts, row by row,
	# seed 002's through its traded sides.
	assert_json "$j" '.by_base["6.1"] == .by_base["6.12"] and
		.by_base["6.1"].rows == 26 and .summary.rows == 52 and
		.nights == {"6.1": "'"$NIGHT"'", "6.12": "'"$n612"'"}'
	assert_json "$j" '[.rows[] | select(.base == "6.1")] as $a |
		[.rows[] | select(.base == "6.12")] as $b |
		[range($a | length) | [$a[.], $b[.]] |
		 (.[0].mmubench.ratio == .[1].mmubench.ratio and
		  .[0].same_direction == .[1].same_direction and
		  .[0].mmubench.t_significant == .[1].mmubench.t_significant)] | all'
	# Traded, and still tested: seed 002 on 6.12 has its t and MW.
	assert_json "$j" '[.rows[] | select(.base == "6.12" and .seed == "002" and
		.mmubench != null)] | length > 0 and
		all(.mmubench.t_significant != null)'
}
