#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
# History and regressions (ci/README.md, "The results store"): two nights
# into one store (ci/store.sh), then tonight against the previous night
# (ci/baseline.sh, ci/regress.sh, ci/regressions.conf).  The nights are
# small real runs, not whole nightlies: three boots of the nested x86_64
# kernel, 5 zap runs each, two of the original and one of
# test/series/6.1/test-slow-zap, a test-only series whose TDP MMU zap walk
# busy-waits 5 ms.  Night 2 with that kernel, under the same kernel key
# as night 1 (as a series whose new version regressed), must fail naming
# the metric; night 2 with the original again must pass.
load helpers

BATS_TEST_TIMEOUT=900

# The scenario of every night: small.  The injected delay is in the zap
# walk; two rows show it: madvise_p50_us (410 -> 15729 us) and
# kernel_zap_total_ms, the walk's own time from the kprobes on
# tdp_mmu_zap_leafs (8.4 -> 126 ms, +1406 %).  Either may be the one that
# a loaded machine's outlier keeps from significance by both tests (CI at
# bb27db7: madvise_p50_us "not significant by both (t no, MW p 0.024)"),
# so the test wants a REGRESSION line of one of them.
ZAP=(zap --zap same4 -v 1 -b 4m -i 1 --zap-count 50 --repeat 5)
NIGHT1=20261201-020000 NIGHT2=20261202-020000

# boot NAME SERIES: one boot, the scenario's 5 runs in NAME.json, its
# output in NAME.log; mmub redoes a run of the nested setup's own failure
# once and announces it, as everywhere.
boot() {
	mmub --arch x86_64 --series "$2" "${ZAP[@]}" \
		--json "$BATS_FILE_TMPDIR/$1.json"
	printf '%s\n' "$output" >"$BATS_FILE_TMPDIR/$1.log"
}

setup_file() {
	[[ $MMUB_NESTED == 1 && $ARCH == x86_64 ]] || return 0
	test_kernels >"$BATS_FILE_TMPDIR/test-kernels"
	export MMUBENCH_PATCHES=$ROOT/test/series
	local t0=$EPOCHREALTIME
	"$ROOT/lib/kernel/build.sh" --arch x86_64 --series test-slow-zap \
		>"$BATS_FILE_TMPDIR/build.log" 2>&1 || return 0
	boot original-1 original
	boot original-2 original
	boot slow test-slow-zap
	printf '# three boots and the series build: %.0f s\n' \
		"$(echo "$EPOCHREALTIME - $t0" | bc)" >&3
}

teardown_file() {
	[[ ! -f $BATS_FILE_TMPDIR/test-kernels ]] ||
		test_kernels_put_back "$(<"$BATS_FILE_TMPDIR/test-kernels")"
}

# aa_thresholds: the thresholds of the two night-against-night tests,
# each zap metric the scenario judges at twice the resolution the two
# boots of the original measured (their A/A, compare's res: 68 to 563 %
# here), at least 1 %.  A gate at the noise the machine showed: its A/A
# is unlikely to pass it by chance (twice the smallest change detected 4
# times in 5), and the slow walk (+1406 % in kernel_zap_total_ms, about
# 100 times in madvise_p50_us) is far past it.  A row no test flags is
# then "no change", never "cannot tell".
aa_thresholds() {
	local f=$BATS_TEST_TMPDIR/thresholds.conf judged
	"$MMUBENCH" compare "$O1" "$O2" --json "$BATS_TEST_TMPDIR/aa.json" >/dev/null ||
		{ fail "mmubench compare of the two boots of the original failed"; return; }
	judged=$("$MMUBENCH" metrics zap | awk -F'|' 'NR > 1 && $5 !~ /-/ {
		gsub(/ /, "", $3); gsub(/ /, "", $4); printf "%s%s=%s", s, $3, $4; s = "," }')
	# Each judged metric compare reports, from a resolution the runs reached.
	jq -r --arg j "$judged" '($j | split(",") | map(split("=") | {(.[0]): .[1]}) | add) as $b |
		.rows[] | select($b[.metric]) |
		if .resolution.reachable then
			"| zap | \(.metric) | \($b[.metric]) | \([1, (2 * .resolution.mde_pct | ceil)] | max) |"
		else error("\(.metric): the A/A reached no resolution") end' \
		"$BATS_TEST_TMPDIR/aa.json" >"$f" ||
		{ fail "no threshold from the A/A: $(cat "$f")"; return; }
	(($(wc -l <"$f") >= 8)) || { fail "the A/A judged only: $(cat "$f")"; return; }
	echo "$f"
}

# need_runs: the three boots' files in O1, O2 and SLOW, or fail with
# why one is missing.
need_runs() {
	local n
	[[ $ARCH == x86_64 ]] || skip "the test-only series is x86's TDP MMU"
	require_nested
	for n in original-1 original-2 slow; do
		[[ -s $BATS_FILE_TMPDIR/$n.json ]] || fail "no runs of $n: $(tail -n 5 \
			"$BATS_FILE_TMPDIR/$n.log" "$BATS_FILE_TMPDIR/build.log" 2>/dev/null)"
	done
	O1=$BATS_FILE_TMPDIR/original-1.json O2=$BATS_FILE_TMPDIR/original-2.json
	SLOW=$BATS_FILE_TMPDIR/slow.json
}

# night DIR FILE: a night's results in the shape of ci/nightly --direct
# LABEL: LABEL/EXPERIMENT.json, the label the kernel key.
night() {
	mkdir -p "$1/original"
	cp "$2" "$1/original/zap.json"
}

@test "store: two nights into one store, keyed by arch, kernel, experiment, date and commit" {
	local s=$BATS_TEST_TMPDIR/store commit e
	need_runs
	night "$BATS_TEST_TMPDIR/n1" "$O1"
	night "$BATS_TEST_TMPDIR/n2" "$O2"
	commit=$(json_val "$O1" .env.mmubench_version)
	run "$ROOT/ci/store.sh" --store "$s" --date $NIGHT1 "$BATS_TEST_TMPDIR/n1"
	assert_success
	assert_output "x86_64/original/zap/$NIGHT1-$commit"
	run "$ROOT/ci/store.sh" --store "$s" --date $NIGHT2 "$BATS_TEST_TMPDIR/n2"
	assert_success
	for e in "$NIGHT1-$commit" "$NIGHT2-$commit"; do
		e=$s/x86_64/original/zap/$e
		assert_json "$e/result.json" '.scenario == "zap" and (.results.runs | length) == 5'
		assert_json "$e/meta.json" '.kernel == "original" and .arch == "x86_64" and
			.experiment == "zap" and
			(.release | test("^6\\.1\\.0-[0-9]+-cloud-amd64 kvm mmub-original$")) and .runs == 5'
	done
	assert_json "$s/x86_64/original/zap/$NIGHT2-$commit/meta.json" \
		".source == [\"$BATS_TEST_TMPDIR/n2/original/zap.json\"]"
	run cut -f1,3-5,9 "$s/index.tsv"
	assert_output "#date	arch	kernel	experiment	path
$NIGHT1	x86_64	original	zap	x86_64/original/zap/$NIGHT1-$commit
$NIGHT2	x86_64	original	zap	x86_64/original/zap/$NIGHT2-$commit"
	# Nothing staged is left; the same night twice is refused whole.
	run find "$s" -name '.tmp-*'
	assert_output ''
	run "$ROOT/ci/store.sh" --store "$s" --date $NIGHT2 "$BATS_TEST_TMPDIR/n2"
	assert_failure 1
	assert_output "ci/store.sh: error: x86_64/original/zap/$NIGHT2-$commit: already in $s"
	assert_equal "$(grep -vc '^#' "$s/index.tsv")" 2
}

@test "store: an ab.sh experiment is one entry per kernel, an A/A one pooled" {
	local n=$BATS_TEST_TMPDIR/n s=$BATS_TEST_TMPDIR/store commit
	need_runs
	commit=$(json_val "$O1" .env.mmubench_version)
	mkdir -p "$n/seedab" "$n/seedaa" "$n/peer"
	cp "$O1" "$n/seedab/A.json"
	cp "$SLOW" "$n/seedab/B.json"
	cp "$O1" "$n/seedaa/A.json"
	cp "$O2" "$n/seedaa/B.json"
	"$MMUBENCH" compare "$n/seedab/A.json" "$n/seedab/B.json" \
		--labels original,test-slow-zap --json "$n/seedab/compare.json" >/dev/null
	"$MMUBENCH" compare "$n/seedaa/A.json" "$n/seedaa/B.json" \
		--labels original,original --json "$n/seedaa/compare.json" >/dev/null
	# peer.sh's folder compares two programs, not kernels: not stored.
	cp "$n/seedaa/compare.json" "$n/peer/"
	run "$ROOT/ci/store.sh" --store "$s" --date $NIGHT1 "$n"
	assert_success
	assert_output "x86_64/original/seedaa/$NIGHT1-$commit
x86_64/original/seedab/$NIGHT1-$commit
x86_64/test-slow-zap/seedab/$NIGHT1-$commit"
	assert_json "$s/x86_64/original/seedaa/$NIGHT1-$commit/result.json" '(.results.runs | length) == 10'
	assert_json "$s/x86_64/test-slow-zap/seedab/$NIGHT1-$commit/meta.json" \
		".source == [\"$n/seedab/B.json\"]"
	assert_file_exists "$s/x86_64/test-slow-zap/seedab/$NIGHT1-$commit/ab-compare.json"
}

# nway DIR: tools/ab.sh --series test-slow-zap,test-other's files: three
# kernels (A the original, B the slow one, C a third kernel's runs).
nway() {
	mkdir -p "$1/seednway"
	cp "$O1" "$1/seednway/A.json"
	cp "$SLOW" "$1/seednway/B.json"
	cp "$O2" "$1/seednway/C.json"
	"$MMUBENCH" compare "$1"/seednway/{A,B,C}.json --labels original,test-slow-zap,test-other \
		--json "$1/seednway/compare.json" >/dev/null
}

@test "store and baseline: an N-way experiment is one entry per kernel, each judged against its own night" {
	local s=$BATS_TEST_TMPDIR/store commit k thr
	need_runs
	commit=$(json_val "$O1" .env.mmubench_version)
	nway "$BATS_TEST_TMPDIR/n1"
	nway "$BATS_TEST_TMPDIR/n2"
	run "$ROOT/ci/store.sh" --store "$s" --date $NIGHT1 "$BATS_TEST_TMPDIR/n1"
	assert_success
	assert_output "x86_64/original/seednway/$NIGHT1-$commit
x86_64/test-slow-zap/seednway/$NIGHT1-$commit
x86_64/test-other/seednway/$NIGHT1-$commit"
	assert_json "$s/x86_64/test-other/seednway/$NIGHT1-$commit/meta.json" \
		".kernel == \"test-other\" and .source == [\"$BATS_TEST_TMPDIR/n1/seednway/C.json\"]"
	# Night 2, the same files: every kernel against its own night 1.
	thr=$(aa_thresholds)
	run "$ROOT/ci/baseline.sh" --store "$s" --date $NIGHT2 \
		--thresholds "$thr" "$BATS_TEST_TMPDIR/n2"
	assert_success
	for k in original test-slow-zap test-other; do
		assert_line --regexp "^== x86_64/$k/seednway: $NIGHT1-[^ ]+ \(the store\) -> tonight$"
		assert_line --regexp "^  x86_64/$k/seednway: no regression against $NIGHT1-"
	done
	assert_line "baseline: no regression (3 compared, 0 without an earlier night)"
}

@test "baseline: the slow zap walk fails night 2, naming the metric, both medians and the runs" {
	local s=$BATS_TEST_TMPDIR/store line thr
	need_runs
	night "$BATS_TEST_TMPDIR/n1" "$O1"
	night "$BATS_TEST_TMPDIR/n2" "$SLOW"
	"$ROOT/ci/store.sh" --store "$s" --date $NIGHT1 "$BATS_TEST_TMPDIR/n1" >/dev/null
	thr=$(aa_thresholds)
	run "$ROOT/ci/baseline.sh" --store "$s" --date $NIGHT2 \
		--thresholds "$thr" \
		--report "$BATS_TEST_TMPDIR/report.txt" "$BATS_TEST_TMPDIR/n2"
	assert_failure 1
	line=$(grep -m1 -E '^REGRESSION  zap (kernel_zap_total_ms|madvise_p50_us) ' <<<"$output") ||
		fail "no regression of kernel_zap_total_ms or madvise_p50_us named: $output"
	echo "# $line" >&3
	[[ $line =~ ^REGRESSION\ \ zap\ (kernel_zap_total_ms|madvise_p50_us)\ same4:\ median\ [0-9.]+\ -\>\ [0-9.]+\ \(\+[0-9.]+\ %\;\ threshold\ ([0-9]+)\ %,\ lower\ is\ better\)\;\ worse\ at\ 95\ %\ by\ t\ and\ Mann-Whitney\;\ runs:\ old\ $s/x86_64/original/zap/$NIGHT1-[^/]+/result.json\ \(5\ runs\),\ new\ $BATS_TEST_TMPDIR/n2/original/zap.json\ \(5\ runs\)$ ]] ||
		fail "not the expected line: $line"
	# Judged at the rule the A/A gave that metric.
	grep -qxF "| zap | ${BASH_REMATCH[1]} | lower | ${BASH_REMATCH[2]} |" "$thr" ||
		fail "threshold ${BASH_REMATCH[2]} % is not the A/A's for ${BASH_REMATCH[1]}: $(cat "$thr")"
	assert_line "baseline: 1 regressed of 1 compared (0 without an earlier night): x86_64/original/zap"
	# The report (what ci/nightly's summary shows) names it too.
	run grep -c -E '^    REGRESSION  zap (kernel_zap_total_ms|madvise_p50_us) same4: ' \
		"$BATS_TEST_TMPDIR/report.txt"
	assert_success
	[[ $output =~ ^[12]$ ]] || fail "$output REGRESSION lines of the two rows in the report"
}

@test "baseline: without the injection night 2 passes" {
	local s=$BATS_TEST_TMPDIR/store thr
	need_runs
	night "$BATS_TEST_TMPDIR/n1" "$O1"
	night "$BATS_TEST_TMPDIR/n2" "$O2"
	"$ROOT/ci/store.sh" --store "$s" --date $NIGHT1 "$BATS_TEST_TMPDIR/n1" >/dev/null
	# Stored first, as ci/nightly --store S --baseline S may do: the
	# baseline is still the earlier night, not tonight's own entry.
	"$ROOT/ci/store.sh" --store "$s" --date $NIGHT2 "$BATS_TEST_TMPDIR/n2" >/dev/null
	thr=$(aa_thresholds)
	run "$ROOT/ci/baseline.sh" --store "$s" --date $NIGHT2 \
		--thresholds "$thr" "$BATS_TEST_TMPDIR/n2"
	assert_success
	assert_line --regexp "^== x86_64/original/zap: $NIGHT1-[^ ]+ \(the store\) -> tonight$"
	# Every judged metric judged at its own resolution: flagged by both
	# tests within it (worse, better), "no change" beyond it, or a
	# median past the threshold that neither test flags ("cannot tell
	# ... not significant by both": an A/A of 5 runs a night can do it,
	# CI at 9d6e654: madvise_p50_us 86 -> 4063 us, MW p 0.69); never a
	# resolution wider than its rule.
	assert_line --regexp '^  (worse|better|no change|cannot tell) +zap madvise_p50_us same4: median '
	assert_equal "$(grep -cE '^  (worse|better|no change|cannot tell) +zap [a-z0-9_]+ same4: median ' <<<"$output")" \
		"$(wc -l <"$thr")"
	refute_line --regexp "^  cannot tell .*: a regression of [0-9.]+ % could hide here$"
	echo "# $(grep 'zap madvise_p50_us same4' <<<"$output")" >&3
	refute_line --partial REGRESSION
	assert_line "baseline: no regression (1 compared, 0 without an earlier night)"
}

@test "baseline: a night filed under an experiment's old name (its alias) is the earlier night of the new name" {
	local s=$BATS_TEST_TMPDIR/store thr
	need_runs
	mkdir -p "$BATS_TEST_TMPDIR/n1/original" "$BATS_TEST_TMPDIR/n2/original"
	cp "$O1" "$BATS_TEST_TMPDIR/n1/original/seed001.json"
	cp "$O2" "$BATS_TEST_TMPDIR/n2/original/zap-patterns.json"
	"$ROOT/ci/store.sh" --store "$s" --date $NIGHT1 "$BATS_TEST_TMPDIR/n1" >/dev/null
	thr=$(aa_thresholds)
	run "$ROOT/ci/baseline.sh" --store "$s" --date $NIGHT2 \
		--thresholds "$thr" "$BATS_TEST_TMPDIR/n2"
	assert_success
	assert_line --regexp "^== x86_64/original/zap-patterns: $NIGHT1-[^ ]+ \(the store\) -> tonight$"
	assert_line "baseline: no regression (1 compared, 0 without an earlier night)"
}

@test "baseline: the first night of a kernel passes, said so; an A/A experiment gives the noise floor" {
	local n=$BATS_TEST_TMPDIR/n
	need_runs
	mkdir -p "$n/aa" "$BATS_TEST_TMPDIR/empty"
	cp "$O1" "$n/aa/A.json"
	cp "$O2" "$n/aa/B.json"
	"$MMUBENCH" compare "$n/aa/A.json" "$n/aa/B.json" --labels original,original \
		--json "$n/aa/compare.json" >/dev/null
	run "$ROOT/ci/baseline.sh" --store "$BATS_TEST_TMPDIR/empty" --date $NIGHT2 "$n"
	assert_success
	assert_line "  x86_64/original/aa: no earlier night in the store: nothing to compare (passes)"
	assert_line "noise floor, A/A aa (original against itself, 5 + 5 runs):"
	assert_line --regexp '^  madvise_p50_us same4: medians differ by [-+][0-9.]+ %, t interval \+/- [0-9.]+ % of the mean, resolution \+/-[0-9.]+ %; threshold 100 %'
	assert_line "baseline: no regression (0 compared, 1 without an earlier night)"
}

# ---- the judgement, on documents with chosen values (no boot) -------------

# doc OUT V1 V2...: the first boot's document, its runs' madvise_p50_us
# set to the values.
doc() {
	local out=$1
	shift
	need_runs
	jq --argjson v "[$(IFS=,; echo "$*")]" \
		'.results.runs |= [range(0; $v | length) as $i | .[$i] | .zap.madvise_p50_us = $v[$i]]' \
		"$O1" >"$out"
}

@test "regress: regressed, worse within the threshold, better, no change beyond resolution, cannot tell" {
	local d=$BATS_TEST_TMPDIR
	doc "$d/old.json" 100 101 102 103 104
	doc "$d/same.json" 101 103 100 104 102
	doc "$d/bad.json" 250 251 252 253 254
	doc "$d/within.json" 180 181 182 183 184
	doc "$d/noisy.json" 100 500 101 502 503
	doc "$d/better.json" 10 11 12 13 14
	run "$ROOT/ci/regress.sh" "$d/old.json" "$d/bad.json"
	assert_failure 1
	assert_line "REGRESSION  zap madvise_p50_us same4: median 102 -> 252 (+147.1 %; threshold 100 %, lower is better); worse at 95 % by t and Mann-Whitney; runs: old $d/old.json (5 runs), new $d/bad.json (5 runs)"
	assert_line --regexp '^regress: 1 of 8 judged rows regressed: madvise_p50_us same4 \([0-9] no change beyond resolution, [0-9] cannot tell; 0 other numbers changed, not judged\)$'
	run "$ROOT/ci/regress.sh" "$d/old.json" "$d/within.json"
	assert_success
	assert_line "  worse       zap madvise_p50_us same4: median 102 -> 182 (+78.4 %; threshold 100 %, lower is better); significant, within the threshold"
	run "$ROOT/ci/regress.sh" "$d/old.json" "$d/noisy.json"
	assert_success
	# t alone finds it (the outliers' mean), Mann-Whitney does not; the
	# outliers make the resolution wider than the threshold.
	assert_line --regexp '^  cannot tell zap madvise_p50_us same4: median 102 -> 500 \(\+390\.2 %; threshold 100 %, lower is better\); resolution \+/-[0-9.]+ %, wider than the threshold: a regression of 100 % could hide here$'
	assert_line --regexp '^regress: no regression in 8 judged rows \([0-9] no change beyond resolution, [1-9] cannot tell; 0 other numbers changed, not judged\)$'
	# The same runs reordered: no change, and the resolution says how
	# small a change would have shown (2.31 sd of 1.58 in a mean of 102).
	run "$ROOT/ci/regress.sh" "$d/old.json" "$d/same.json"
	assert_success
	assert_line "  no change   zap madvise_p50_us same4: median 102 -> 102 (+0 %; threshold 100 %, lower is better); no change beyond the resolution +/-3.6 %"
	# A threshold finer than that resolution: nothing can be said.
	printf '| zap | madvise_p50_us | lower | 2 |\n' >"$d/fine.conf"
	run "$ROOT/ci/regress.sh" --thresholds "$d/fine.conf" "$d/old.json" "$d/same.json"
	assert_success
	assert_line "  cannot tell zap madvise_p50_us same4: median 102 -> 102 (+0 %; threshold 2 %, lower is better); resolution +/-3.6 %, wider than the threshold: a regression of 2 % could hide here"
	# The other rows keep their scenario's thresholds (mmubench metrics).
	assert_line --regexp '^regress: no regression in 8 judged rows \([0-9] no change beyond resolution, [1-9] cannot tell; 0 other numbers changed, not judged\)$'
	# 3 runs a side: Mann-Whitney never flags, whatever the change.
	doc "$d/old3.json" 100 101 102
	doc "$d/bad3.json" 250 251 252
	run "$ROOT/ci/regress.sh" --thresholds "$d/fine.conf" "$d/old3.json" "$d/bad3.json"
	assert_success
	assert_line "  cannot tell zap madvise_p50_us same4: median 101 -> 251 (+148.5 %; threshold 2 %, lower is better); resolution none (Mann-Whitney cannot reach 95 % with 3 and 3 runs): a regression of 2 % could hide here"
	run "$ROOT/ci/regress.sh" "$d/old.json" "$d/better.json"
	assert_success
	assert_line "  better      zap madvise_p50_us same4: median 102 -> 12 (-88.2 %; threshold 100 %, lower is better); better at 95 % by both tests"
	# The direction is the table's: "higher is better" makes it a regression.
	printf '| zap | madvise_p50_us | higher | 50 |\n' >"$d/higher.conf"
	run "$ROOT/ci/regress.sh" --thresholds "$d/higher.conf" "$d/old.json" "$d/better.json"
	assert_failure 1
	assert_line --partial "REGRESSION  zap madvise_p50_us same4: median 102 -> 12 (-88.2 %; threshold 50 %, higher is better)"
	assert_line "  not judged (no threshold in mmubench metrics or $d/higher.conf): kernel_tables_freed, zap_tlb_flushes"
}

# ---- an experiment's own thresholds (experiments.conf), no boot --------------

@test "baseline: an experiment's thresholds in the manifest judge its rows; the machine's file has the last word" {
	local n=$BATS_TEST_TMPDIR/n s=$BATS_TEST_TMPDIR/store r=$ROOT/test/fixtures/report/night2/enable-init-set
	mkdir -p "$n/enable-init-set"
	"$MMUBENCH" merge "$n/enable-init-set/A.json" "$r"/runs/A-*.json
	"$MMUBENCH" merge "$n/enable-init-set/B.json" "$r"/runs/B-*.json
	cp "$r/compare.json" "$n/enable-init-set/"
	"$ROOT/ci/store.sh" --store "$s" --date $NIGHT1 "$n" >/dev/null
	# The manifest's enable-init-set with a threshold of its own.
	export MMUBENCH_EXPERIMENTS=$BATS_TEST_TMPDIR/experiments.conf
	sed '/^\[enable-init-set\]$/a threshold = enable_ms (--table) lower 3' "$ROOT/experiments.conf" \
		>"$MMUBENCH_EXPERIMENTS"
	run "$ROOT/ci/baseline.sh" --store "$s" --date $NIGHT2 "$n"
	assert_success
	assert_line --regexp '^  [a-z ]+ +dirty-log enable_ms \(--table\) 4K anonymous clear: median [0-9.]+ -> [0-9.]+ \(\+0 %; threshold 3 %, lower is better\)'
	refute_line --regexp 'enable_ms \(--table\) .*threshold 25 %'
	# The machine's overrides over the experiment's.
	printf '| dirty-log | enable_ms (--table) | lower | 40 |\n' >"$BATS_TEST_TMPDIR/machine.conf"
	run "$ROOT/ci/baseline.sh" --store "$s" --date $NIGHT2 \
		--thresholds "$BATS_TEST_TMPDIR/machine.conf" "$n"
	assert_success
	assert_line --regexp 'dirty-log enable_ms \(--table\) 4K anonymous clear: .*threshold 40 %'
	# A threshold naming a metric no scenario declares fails before anything runs.
	sed -i 's/^threshold = enable_ms (--table) lower 3$/threshold = enable_us lower 3/' "$MMUBENCH_EXPERIMENTS"
	run --separate-stderr "$ROOT/ci/baseline.sh" --store "$s" --date $NIGHT2 "$n"
	assert_equal "$status" 2
	assert_equal "$stderr" "ci/baseline.sh: error: $MMUBENCH_EXPERIMENTS [enable-init-set] threshold: dirty-log enable_us: no scenario declares it (mmubench metrics lists them)"
}

# ---- bad input: one line naming the option and what it accepts, exit 2 ----

# bad WANT CMD...: exit 2, and stderr is exactly the line WANT.
bad() {
	local want=$1
	shift
	run --separate-stderr "$@"
	assert_equal "$status" 2
	assert_equal "$stderr" "$want"
}

@test "bad input to ci/nightly's --store and --baseline, ci/store.sh, ci/baseline.sh, ci/regress.sh" {
	local d=$BATS_TEST_TMPDIR
	mkdir -p "$d/notastore" "$d/night"
	touch "$d/notastore/x" "$d/file"
	bad "ci/nightly: error: --store needs a value: a directory, the results store" \
		"$ROOT/ci/nightly" --store ''
	bad "ci/nightly: error: --store $d/file/s: cannot create or write it (a directory: the results store)" \
		"$ROOT/ci/nightly" --store "$d/file/s"
	bad "ci/nightly: error: --baseline $d/nope: not a directory (a results store, see --store)" \
		"$ROOT/ci/nightly" --baseline "$d/nope"
	bad "ci/nightly: error: --baseline $d/notastore: not a results store (no index.tsv; --store writes one)" \
		"$ROOT/ci/nightly" --baseline "$d/notastore"
	bad "ci/nightly: error: --baseline needs a value" "$ROOT/ci/nightly" --baseline
	run --separate-stderr "$ROOT/ci/store.sh" --store "$d/s" --date 2026-12-01 "$d/night"
	assert_equal "$status" 2
	[[ $stderr =~ ^ci/store.sh:\ error:\ --date\ 2026-12-01:\ expected\ YYYYMMDD-HHMMSS\ \(UTC\),\ e.g.\ [0-9]{8}-[0-9]{6}$ ]] ||
		fail "stderr: $stderr"
	bad "ci/store.sh: error: --store STORE is required" "$ROOT/ci/store.sh" "$d/night"
	bad "ci/store.sh: error: unknown option '--stor' (accepted: --store STORE, --date YYYYMMDD-HHMMSS)" \
		"$ROOT/ci/store.sh" --stor "$d/s" "$d/night"
	bad "ci/baseline.sh: error: --store $d/notastore: not a results store (no index.tsv; ci/store.sh writes one)" \
		"$ROOT/ci/baseline.sh" --store "$d/notastore" "$d/night"
	bad "ci/baseline.sh: error: --thresholds $d/nope: cannot read it" \
		"$ROOT/ci/baseline.sh" --store "$d/night" --thresholds "$d/nope" "$d/night"
	printf '| zap | madvise_p50_us | smaller | 50 |\n' >"$d/bad.conf"
	bad "ci/regress.sh: error: --thresholds $d/bad.conf:1: \"| zap | madvise_p50_us | smaller | 50 |\": expected | SCENARIO | METRIC | lower or higher | PERCENT |" \
		"$ROOT/ci/regress.sh" --thresholds "$d/bad.conf" "$d/file" "$d/file"
	printf '| zap | madvise_p51_us | lower | 50 |\n' >"$d/typo.conf"
	bad "ci/regress.sh: error: --thresholds $d/typo.conf:1: zap madvise_p51_us: no scenario declares it (mmubench metrics lists them)" \
		"$ROOT/ci/regress.sh" --thresholds "$d/typo.conf" "$d/file" "$d/file"
	printf '| zap | madvise_p50_us | lower | 50 |\n| zap | madvise_p50_us | lower | 60 |\n' >"$d/twice.conf"
	bad "ci/regress.sh: error: --thresholds $d/twice.conf:2: zap madvise_p50_us: listed twice (first on line 1)" \
		"$ROOT/ci/regress.sh" --thresholds "$d/twice.conf" "$d/file" "$d/file"
	bad "ci/regress.sh: error: expected two files, OLD.json NEW.json (got 1)" "$ROOT/ci/regress.sh" "$d/file"
	for s in ci/store.sh ci/baseline.sh ci/regress.sh; do
		run --separate-stderr "$ROOT/$s" --help
		assert_success
		[[ $output == usage:* && -z $stderr ]] || fail "$s --help: '${output:0:80}', stderr '$stderr'"
	done
}

# ---- the runs' other numbers (compare's counters), no boot -----------------

# The unlink series' kind of change: the zap phase's remote TLB flushes
# fall 255 -> 13 in every run while the declared metrics keep their runs.
@test "regress: a counter that moved is said, not judged; a rule naming it judges it; a rule naming none says so" {
	local d=$BATS_TEST_TMPDIR
	fake_zap "$d/old.json" same4 330.1 341.2 335.7 328.9 333.3
	fake_zap "$d/new.json" same4 333.3 328.9 341.2 330.1 335.7
	with_counters "$d/old.json" "256 251 260 249 255" 0
	with_counters "$d/new.json" "13 12 15 11 14" 0
	run "$ROOT/ci/regress.sh" "$d/old.json" "$d/new.json"
	assert_success
	assert_line "  changed     zap zap vm.remote_tlb_flush same4: median 255 -> 13 (B/A 0.051); t after Benjamini-Hochberg and Mann-Whitney: a change, not judged (no rule names it)"
	assert_line --regexp '^regress: no regression in [0-9]+ judged rows \([0-9]+ no change beyond resolution, [0-9]+ cannot tell; 1 other numbers changed, not judged\)$'
	# Named by a rule, the same row is judged: a fall is worse where
	# higher is better.
	printf '| zap | counter:zap vm.remote_tlb_flush | higher | 10 |\n' >"$d/c.conf"
	run "$ROOT/ci/regress.sh" --thresholds "$d/c.conf" "$d/old.json" "$d/new.json"
	assert_failure 1
	assert_line "REGRESSION  zap counter:zap vm.remote_tlb_flush same4: median 255 -> 13 (-94.9 %; threshold 10 %, higher is better); worse at 95 % by t and Mann-Whitney; runs: old $d/old.json (5 runs), new $d/new.json (5 runs)"
	refute_line --partial "  changed     zap zap vm.remote_tlb_flush"
	assert_line --regexp '^regress: 1 of [0-9]+ judged rows regressed: counter:zap vm\.remote_tlb_flush same4 '
	printf '| zap | counter:zap vm.remote_tlb_flush | lower | 10 |\n' >"$d/c.conf"
	run "$ROOT/ci/regress.sh" --thresholds "$d/c.conf" "$d/old.json" "$d/new.json"
	assert_success
	assert_line "  better      zap counter:zap vm.remote_tlb_flush same4: median 255 -> 13 (-94.9 %; threshold 10 %, lower is better); better at 95 % by both tests"
	# A count equal in every run: no change, to the count.
	printf '| zap | counter:zap vm.pages_4k | lower | 10 |\n' >"$d/c.conf"
	run "$ROOT/ci/regress.sh" --thresholds "$d/c.conf" "$d/old.json" "$d/new.json"
	assert_success
	assert_line "  no change   zap counter:zap vm.pages_4k same4: median 512 -> 512 (+0 %; threshold 10 %, lower is better); no change beyond the resolution +/-0 %"
	# A rule naming a number these runs lack judges nothing, and says so.
	printf '| zap | counter:zap vm.no_such_stat | lower | 10 |\n' >"$d/c.conf"
	run "$ROOT/ci/regress.sh" --thresholds "$d/c.conf" "$d/old.json" "$d/new.json"
	assert_success
	assert_line "  no such     zap counter:zap vm.no_such_stat: these runs have no such number (mmubench compare --all-counters lists them): not judged"
	# The same runs on both sides: nothing changed.
	run "$ROOT/ci/regress.sh" "$d/old.json" "$d/old.json"
	assert_success
	refute_line --partial "  changed     "
	assert_line --regexp '; 0 other numbers changed, not judged\)$'
}
