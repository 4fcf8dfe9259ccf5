#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
# "mmubench compare" on hand-made documents, "merge", and tools/ab.sh for real.
load helpers

# fake_touch FILE NS...: touch documents, two vCPUs per phase.
fake_touch() {
	local f=$1 ns runs=
	shift
	for ns in "$@"; do
		runs+="${runs:+,}{\"boot_ms\":10,\"phases\":[
			{\"name\":\"populate\",\"vcpus\":[
			 {\"vcpu\":0,\"ns\":$ns,\"pages_per_s\":1000,\"latency_ns\":{\"p99\":300,\"p99.9\":900}},
			 {\"vcpu\":1,\"ns\":$ns,\"pages_per_s\":3000,\"latency_ns\":{\"p99\":500,\"p99.9\":700}}]},
			{\"name\":\"iter1\",\"vcpus\":[
			 {\"vcpu\":0,\"ns\":100,\"pages_per_s\":5000,\"latency_ns\":{\"p99\":200,\"p99.9\":400}},
			 {\"vcpu\":1,\"ns\":100,\"pages_per_s\":5000,\"latency_ns\":{\"p99\":100,\"p99.9\":400}}]}]}"
	done
	echo "{\"scenario\":\"touch\",\"config\":{\"vcpus\":2},\"env\":{},\"results\":{\"runs\":[$runs]}}" >"$f"
}

setup() {
	A=$BATS_TEST_TMPDIR/a.json B=$BATS_TEST_TMPDIR/b.json
}

@test "the statistics match textbook values (unit test, ASan/UBSan)" {
	run "$O/san/stats-test"
	assert_success
	assert_line "ok: 0 failures"
	# The resolution in standard deviations, and the real tests at it.
	assert_line --regexp '^resolution: 4\+4 [0-9.]+, 5\+5 2\.[0-9]+, 10\+10 1\.[0-9]+, 200\+200 0\.28[0-9] sd$'
	assert_line --regexp '^resolution: the real tests flag 0\.[78][0-9]+ at 5\+5, 0\.[78][0-9]+ at 10\+10$'
}

@test "compare reads strict JSON (jansson): no duplicate key, NaN or trailing data" {
	local f=$BATS_TEST_TMPDIR/s.json
	fake_zap "$A" same4 1 2 3
	echo '{"scenario": "zap", "scenario": "touch", "results": {"runs": [{}]}}' >"$f"
	run "$MMUBENCH" compare "$A" "$f"
	assert_equal "$status" 2
	assert_output --partial "$f: not a JSON document: duplicate object key"
	echo '{"scenario": "zap", "results": {"runs": [{"zap": {"zap_total_ms": NaN}}]}}' >"$f"
	run "$MMUBENCH" compare "$A" "$f"
	assert_equal "$status" 2
	assert_output --partial "$f: not a JSON document: invalid token"
	echo '{"scenario": "zap", "results": {"runs": [{}]}} x' >"$f"
	run "$MMUBENCH" compare "$A" "$f"
	assert_equal "$status" 2
	assert_output --partial "$f: not a JSON document: end of file expected"
}

@test "compare: a clearly different pair is significant by both tests" {
	fake_zap "$A" same4 330.1 341.2 335.7 328.9 333.3
	fake_zap "$B" same4 61.9 55.2 60.1 58.8 62.4
	run "$MMUBENCH" compare "$A" "$B" --labels original,patched --json "$BATS_TEST_TMPDIR/c.json"
	assert_success
	assert_line "  A = original: $A, 5 runs, kernel 6.1.192, MMU tdp_mmu"
	assert_line --regexp '^zap_total_ms  \(results\.runs\[\]\.zap\.zap_total_ms\)$'
	# row nA nB medians B/A, the difference of means and its interval.
	assert_line --regexp '^  same4 +5 +5 +333\.3 +60\.10 +0\.180  -274\.2 \+/- 5\.871 \(-82\.1%\) +yes +0\.008 yes +\+\/-2\.8%$'
	assert_line "2 of 2 rows differ at 95 % by both tests"
	# Probes were off in both: skipped, and said so.
	assert_line --partial "note: kernel_zap_total_ms: skipped, in neither document"
	run jq -e '.rows | length == 2 and (.[0] | .row == "same4" and
		.a.n == 5 and .a.median == 333.3 and .b.median == 60.1 and
		.ttest.significant and .ttest.df == 8 and
		(.ttest.t_crit - 2.306 | fabs) < 0.001 and
		.mann_whitney.exact and .mann_whitney.significant and
		(.mann_whitney.p - 2 / 252 | fabs) < 1e-6 and
		.resolution.power == 0.8 and .resolution.reachable and
		(.resolution.mde_pct - 2.8 | fabs) < 0.05 and
		(.resolution.mde - .resolution.mde_pct / 100 * .a.mean | fabs) < 1e-9 and
		(.a.values | length == 5))' "$BATS_TEST_TMPDIR/c.json"
	assert_success
	run compgen -G "$BATS_TEST_TMPDIR/c.json.tmp.*"
	assert_failure
}

@test "compare: sides whose harness had other CPUs counts (env.cpus) get a note" {
	fake_zap "$A" same4 330.1 341.2 335.7 328.9 333.3
	jq '.env.cpus = 1' "$A" >"$B"
	jq '.env.cpus = 4' "$A" >"$A.4"
	run "$MMUBENCH" compare "$B" "$A.4"
	assert_success
	assert_line "note: env.cpus differs: 1 in A, 4 in B: waits between CPUs do not compare"
	run "$MMUBENCH" compare "$B" "$B"
	assert_success
	refute_line --partial "env.cpus differs"
}

@test "compare: sides booted on different QEMUs (env.qemu) get a note" {
	fake_zap "$A" same4 330.1 341.2 335.7 328.9 333.3
	jq '.env.qemu = "7.2.22"' "$A" >"$B"
	jq '.env.qemu = "10.0.2"' "$A" >"$A.10"
	run "$MMUBENCH" compare "$B" "$A.10"
	assert_success
	assert_line "note: env.qemu differs: 7.2.22 in A, 10.0.2 in B: the nested kernels ran on different emulators"
	run "$MMUBENCH" compare "$B" "$B"
	assert_success
	refute_line --partial "env.qemu differs"
}

@test "compare: an identical pair is not significant" {
	fake_zap "$A" same4 330.1 341.2 335.7 328.9 333.3
	run "$MMUBENCH" compare "$A" "$A"
	assert_success
	assert_line --regexp '^  same4 +5 +5 +333\.3 +333\.3 +1\.000  0\.000 \+/- [0-9.]+ \(\+0\.0%\) +no +1\.000 no +\+\/-3\.4%$'
	assert_line "0 of 2 rows differ at 95 % by both tests"
}

@test "compare: overlapping samples are not significant; 3 runs cannot pass Mann-Whitney" {
	fake_zap "$A" same4 100 110 120
	fake_zap "$B" same4 105 115 125
	run "$MMUBENCH" compare "$A" "$B"
	assert_success
	assert_line --regexp '^  same4 +3 +3 +110\.0 +115\.0 +1\.045  5\.000 \+/- 22\.67 \(\+4\.5%\) +no +0\.700 no +n\/a$'
	assert_line "note: Mann-Whitney with 3 and 3 runs cannot reach 95 %: its smallest two-sided p is 0.100; 4 runs a side or more are needed"
	# No change is resolvable: the resolution is not a number.
	run "$MMUBENCH" compare "$A" "$B" --json "$BATS_TEST_TMPDIR/c.json"
	assert_success
	run jq -e '.rows[0].resolution | (.reachable | not) and .mde == null' "$BATS_TEST_TMPDIR/c.json"
	assert_success
}

@test "compare --runs: every run side by side, in run order (seed 002's table)" {
	fake_zap "$A" same4 730.08 728.75 736.26
	fake_zap "$B" same4 724.38 740.58 757.08
	run "$MMUBENCH" compare "$A" "$B" --labels Before,After --runs \
		--metric results.runs[].zap.zap_total_ms
	assert_success
	assert_line "  same4, every run:"
	assert_line "  | Run  |     Before |      After |"
	assert_line "  | 1    |      730.1 |      724.4 |"
	assert_line "  | 3    |      736.3 |      757.1 |"
	# Without --runs, only the medians.
	run "$MMUBENCH" compare "$A" "$B" --metric results.runs[].zap.zap_total_ms
	assert_success
	refute_output --partial "every run:"
}

@test "compare: rows per pattern of a --table document, per phase of touch" {
	fake_zap "$A" same16 300 310 305 302
	fake_zap "$B" same16 300 311 304 301
	# Two patterns in one document, as zap --table writes it.
	jq -c '.results.runs += [.results.runs[] | .zap.pattern = "c4" | .zap.zap_total_ms *= 4]' "$A" >"$A.2"
	jq -c '.results.runs += [.results.runs[] | .zap.pattern = "c4" | .zap.zap_total_ms *= 2]' "$B" >"$B.2"
	run "$MMUBENCH" compare "$A.2" "$B.2"
	assert_success
	assert_line --regexp '^  same16 +4 +4 .* no +[0-9.]+ no +\+/-4\.4%$'
	assert_line --regexp '^  c4 +4 +4 +1214 +605\.0 +0\.498 .* yes +0\.029 yes +\+/-3\.4%$'
	fake_touch "$A" 1000 1100 1050 1020
	fake_touch "$B" 2000 2100 2050 2020
	run "$MMUBENCH" compare "$A" "$B"
	assert_success
	# ns summed over the two vCPUs; p99 is the worst vCPU's.
	assert_line --regexp '^ns_sum  '
	assert_line --regexp '^  populate +4 +4 +2070 +4070 +1\.966 .* yes +0\.029 yes +\+/-[0-9.]+%$'
	assert_line --regexp '^  iter1 +4 +4 +200\.0 +200\.0 +1\.000 .* no +1\.000 no +[0-9+/.%-]+$'
	assert_line --regexp '^latency_p99_ns_max  '
	assert_line --regexp '^  populate +4 +4 +500\.0 +500\.0 '
	# An explicit path replaces the defaults; \. keeps the dot in p99.9.
	run "$MMUBENCH" compare "$A" "$B" --metric 'results.runs[].phases[name=populate].vcpus[0].latency_ns.p99\.9'
	assert_success
	assert_line --regexp '^  all +4 +4 +900\.0 +900\.0 '
	refute_line --regexp '^ns_sum'
}

@test "compare: three documents, one median column each, every side against the first" {
	local C=$BATS_TEST_TMPDIR/c.json j=$BATS_TEST_TMPDIR/n.json
	fake_zap "$A" same4 330.1 341.2 335.7 328.9 333.3
	fake_zap "$B" same4 61.9 55.2 60.1 58.8 62.4
	fake_zap "$C" same4 331 340 336 329 334
	run "$MMUBENCH" compare "$A" "$B" "$C" --labels original,v2,control --json "$j" --runs
	assert_success
	assert_line "  C = control: $C, 5 runs, kernel 6.1.192, MMU tdp_mmu"
	assert_line --regexp '^  row +nA +nB +nC +A median +B median +C median +B/A t +MW +res +C/A t +MW +res$'
	# B differs from A by both tests, C by neither; each with its
	# resolution, in % of A's mean; no blank at the end.
	assert_line --regexp '^  same4 +5 +5 +5 +333\.3 +60\.10 +334\.0 +0\.180 yes yes +\+/-2\.8% +1\.002 no +no +\+/-3\.2%$'
	assert_line "  | Run  |   original |         v2 |    control |"
	assert_line "  | 2    |      341.2 |      55.20 |      340.0 |"
	assert_line "B against A: 2 of 2 rows differ at 95 % by both tests"
	assert_line "C against A: 0 of 2 rows differ at 95 % by both tests"
	# The contract: sides in order; per row sides[] and vs[] (i = 1..N-1);
	# a/b and the pair's tests stay those of the first two sides.
	run jq -e '[.sides[].label] == ["original", "v2", "control"] and
		.a.label == "original" and .b.label == "v2" and
		(.rows[] | select(.metric == "zap_total_ms") |
		 (.sides | length == 3) and .sides[2].median == 334 and
		 (.sides[1].values | length == 5) and
		 .b.median == 60.1 and .ttest.significant and
		 ([.vs[].side] == [1, 2]) and .vs[1].label == "control" and
		 (.vs[1].ratio - 334 / 333.3 | fabs) < 1e-9 and
		 (.vs[1].ttest.significant | not) and
		 (.vs[1].mann_whitney.significant | not) and
		 .vs[0].mann_whitney.significant)' "$j"
	assert_success
	# Two documents: today's members, plus sides and vs.
	run "$MMUBENCH" compare "$A" "$B" --json "$j"
	assert_success
	assert_line "2 of 2 rows differ at 95 % by both tests"
	run jq -e '(.sides | length == 2) and (.rows[0] | .a.median == .sides[0].median and
		.ratio == .vs[0].ratio and .ttest == .vs[0].ttest)' "$j"
	assert_success
	# A row one side lacks is "-" in that side's columns.
	jq '.results.runs[].zap.pattern = "c4"' "$C" >"$C.c4"
	run "$MMUBENCH" compare "$A" "$B" "$C.c4"
	assert_equal "$status" 1
	assert_line --regexp '^  same4 +5 +5 +0 +333\.3 +60\.10 +- +0\.180 yes yes +\+/-2\.8% +- +- +- +-$'
	assert_line "mmubench: no row is in both $A and $C.c4: nothing was compared"
}

# Seed 001's second table: zap's kernel-probe p99.9 of the mmu_lock wait
# is fwait_p999_us; documents from before have it as kernel_fwait_p999_us.
@test "compare: zap's fwait_p999_us is a table; kernel_fwait_p999_us where older documents have it" {
	fake_zap "$A" same4 330.1 341.2 335.7 328.9 333.3
	fake_zap "$B" same4 61.9 55.2 60.1 58.8 62.4
	jq '.results.runs[].zap |= (del(.kernel_fwait_p999_us) | .fwait_p999_us = .zap_total_ms / 4)' "$A" >"$A.new"
	jq '.results.runs[].zap |= (del(.kernel_fwait_p999_us) | .fwait_p999_us = .zap_total_ms / 4)' "$B" >"$B.new"
	run "$MMUBENCH" compare "$A.new" "$B.new"
	assert_success
	assert_line 'fwait_p999_us  (results.runs[].zap.fwait_p999_us)'
	assert_line --regexp '^  same4 +5 +5 +83\.33 +15\.03 +0\.180 '
	# The old name is in neither: no table, no note.
	refute_output --partial kernel_fwait_p999_us
	jq '.results.runs[].zap.kernel_fwait_p999_us = .results.runs[0].zap.zap_total_ms' "$A" >"$A.old"
	jq '.results.runs[].zap.kernel_fwait_p999_us = .results.runs[0].zap.zap_total_ms' "$B" >"$B.old"
	run "$MMUBENCH" compare "$A.old" "$B.old"
	assert_success
	assert_line 'kernel_fwait_p999_us  (results.runs[].zap.kernel_fwait_p999_us)'
	assert_line --partial 'note: fwait_p999_us: skipped, in neither document (no "fwait_p999_us" in results.runs[0].zap)'
}

@test "metrics: each scenario's own, one table; compare's defaults are exactly those of the document's scenario" {
	local table s n=0 rows
	run "$MMUBENCH" metrics
	assert_success
	table=$output
	assert_line --index 0 --regexp '^\| scenario +\| metric +\| better \| threshold % \| unit +\| path \|$'
	# Every row well-formed: a direction or "-", a threshold or "-".
	run awk -F'|' 'NR > 1 && (NF != 8 || $4 !~ /^ (lower|higher|-) +$/ ||
		$5 !~ /^ ([0-9]+|-) +$/ || $7 !~ /^ results\.|^ max:results\./) { print "bad: " $0 }
		NR > 1 { gsub(/ /, "", $2); s[$2] = 1 }
		END { for (k in s) n++; print n " scenarios" }' <<<"$table"
	assert_success
	# The table holds each scenario of mmubench --list that declares
	# metrics, with its own rows: not a count written here.
	for s in $("$MMUBENCH" --list | awk -F'\t' '$2 == "scenario" { print $1 }'); do
		"$MMUBENCH" metrics "$s" >/dev/null 2>&1 || continue
		rows=$("$MMUBENCH" metrics "$s" | tail -n +2)
		n=$((n + 1))
		assert_equal "$(grep -c "^| $s " <<<"$table")" "$(grep -c . <<<"$rows")"
	done
	((n >= 2)) || fail "only $n scenarios declare metrics"
	assert_output "$n scenarios"
	assert_equal "$(grep -c '^| zap ' <<<"$table")" 11
	# compare's default rows for a zap document: the declared ones the
	# document has, in the declared order; the rest listed as absent.
	fake_zap "$A" same4 300 310 305 302
	fake_zap "$B" same4 600 611 604 601
	run "$MMUBENCH" compare "$A" "$B" --json "$BATS_TEST_TMPDIR/c.json"
	assert_success
	assert_equal "$(jq -r '[.rows[].metric] | unique | join(",")' "$BATS_TEST_TMPDIR/c.json")" \
		"fault_p999_us,zap_total_ms"
	assert_equal "$(grep -oE '^(zap_total_ms|fault_p999_us)  ' <<<"$output" | paste -sd' ')" \
		"zap_total_ms   fault_p999_us  "
}

@test "metrics: bad input gets one line, exit 2" {
	run "$MMUBENCH" metrics nosuch
	assert_failure 2
	assert_output "mmubench: metrics: nosuch: no such scenario (mmubench --help lists them)"
	run "$MMUBENCH" metrics bench
	assert_failure 2
	assert_output "mmubench: metrics: bench declares no metrics (compare it with --metric PATH)"
	run "$MMUBENCH" metrics zap touch
	assert_failure 2
	assert_output "mmubench: metrics: expected at most one SCENARIO (got 2 arguments)"
}

@test "merge: runs concatenated, numbers kept as written; compare reads it" {
	fake_zap "$A" same4 1.5 2.5
	fake_zap "$B" same4 3.5
	run "$MMUBENCH" merge "$BATS_TEST_TMPDIR/m.json" "$A" "$B"
	assert_success
	run jq -e '.scenario == "zap" and .config.vcpu_bytes == 33554432 and
		[.results.runs[].zap.zap_total_ms] == [1.5, 2.5, 3.5]' "$BATS_TEST_TMPDIR/m.json"
	assert_success
	# An integer stays an integer.
	grep -Eq '"vcpu_bytes": *33554432[,}]?$' "$BATS_TEST_TMPDIR/m.json"
	jq '.config.vcpus = 4' "$B" >"$B.v4"
	run "$MMUBENCH" merge "$BATS_TEST_TMPDIR/m2.json" "$A" "$B.v4"
	assert_equal "$status" 2
	assert_output "mmubench: merge: $B.v4: config.vcpus differs from $A's"
}

# A patch's mechanism in counters no metric declares: the remote TLB
# flushes of the zap phase fall 255 -> 13 and the zero refaults go
# 0 -> 7 in every run, while zap_total_ms and fault_p999_us keep their runs (in
# another order).  Only those two are listed; the rest is one line.
@test "compare: counters no metric declares, moved, are 'also changed'; the rest is one line" {
	local j=$BATS_TEST_TMPDIR/c.json
	fake_zap "$A" same4 330.1 341.2 335.7 328.9 333.3
	fake_zap "$B" same4 333.3 328.9 341.2 330.1 335.7
	with_counters "$A" "256 251 260 249 255" 0
	with_counters "$B" "13 12 15 11 14" 7
	run "$MMUBENCH" compare "$A" "$B" --json "$j"
	assert_success
	assert_line "0 of 2 rows differ at 95 % by both tests"
	assert_line "also changed, B against A: the runs' other numbers; t after Benjamini-Hochberg (false discovery rate 5 %), Mann-Whitney at 95 %"
	assert_line --regexp '^  zap vm\.remote_tlb_flush +same4 +5 +5 +255\.0 +13\.00 +0\.051 +[0-9.]+e-[0-9]+ +\+/-[0-9.]+%$'
	assert_line --regexp '^  zap\.refaults_zero +same4 +5 +5 +0\.000 +7\.000 +- +exact +-$'
	refute_line --partial "mmu_recycled"
	assert_line "B against A: 7 counters compared: 2 changed (1 exactly), 4 identical in every run, 1 no change found; uncorrected, about 0.1 of the 2 that vary would be flagged by chance at 95 %"
	run jq -e '.counters | .correction == "benjamini-hochberg" and .fdr == 0.05 and
		(.sides[0] | .compared == 7 and .changed == 1 and .exact == 1 and
		 .identical == 4 and ([.rows[].counter] == ["zap vm.remote_tlb_flush", "zap.refaults_zero"]) and
		 (.rows[0] | .path == "results.runs[].phases[name=zap].vm_stats.remote_tlb_flush" and
		  .verdict == "changed" and .a_median == 255 and .median == 13 and .p_t < 1e-6 and
		  (.mann_whitney_p - 2 / 252 | fabs) < 1e-9))' "$j"
	assert_success
	# Every counter, each with its verdict.
	run "$MMUBENCH" compare "$A" "$B" --all-counters
	assert_success
	assert_line --regexp '^  zap vm\.mmu_recycled +same4 +5 +5 +1\.000 +1\.000 +1\.000 +1 +\+/-[0-9.]+%  no change found$'
	assert_line --regexp '^  zap vm\.pages_4k +same4 +5 +5 +512\.0 +512\.0 +1\.000 +exact +\+/-0\.0%  identical$'
	assert_line --regexp '^  zap\.refaults_zero .*  changed, exactly$'
	# A against itself, its runs in another order: nothing listed.
	fake_zap "$B" same4 333.3 328.9 341.2 330.1 335.7
	with_counters "$B" "255 249 260 256 251" 0
	run "$MMUBENCH" compare "$A" "$B"
	assert_success
	refute_line --partial "also changed"
	assert_line "B against A: 7 counters compared: 0 changed (0 exactly), 5 identical in every run, 2 no change found; uncorrected, about 0.1 of the 2 that vary would be flagged by chance at 95 %"
}

@test "compare: bad input gets one line naming the file or metric" {
	fake_zap "$A" same4 1 2 3
	fake_touch "$B" 1 2 3
	run "$MMUBENCH" compare "$A" "$BATS_TEST_TMPDIR/none.json"
	assert_equal "$status" 2
	assert_output "mmubench: compare: $BATS_TEST_TMPDIR/none.json: cannot open it: No such file or directory"
	echo '{"scenario": "zap", "results": {"runs": [1,]}}' >"$BATS_TEST_TMPDIR/bad.json"
	run "$MMUBENCH" compare "$A" "$BATS_TEST_TMPDIR/bad.json"
	assert_equal "$status" 2
	assert_output "mmubench: compare: $BATS_TEST_TMPDIR/bad.json: not a JSON document: unexpected token near ']' (line 1, column 44)"
	echo '{"hello": [1, 2]}' >"$BATS_TEST_TMPDIR/other.json"
	run "$MMUBENCH" compare "$BATS_TEST_TMPDIR/other.json" "$A"
	assert_equal "$status" 2
	assert_output "mmubench: compare: $BATS_TEST_TMPDIR/other.json: not an mmubench document (it needs a \"scenario\" string and a results.runs array)"
	run "$MMUBENCH" compare "$A" "$B"
	assert_equal "$status" 2
	assert_output "mmubench: $A is a \"zap\" document, $B a \"touch\" one: different scenarios do not compare"
	run "$MMUBENCH" compare "$A" "$A" --metric 'results.runs[].zap.nothing_ms'
	assert_equal "$status" 2
	assert_output "mmubench: --metric results.runs[].zap.nothing_ms: absent in $A (no \"nothing_ms\" in results.runs[0].zap)"
	run "$MMUBENCH" compare "$A" "$A" --metric 'results.runs[].zap.pattern'
	assert_equal "$status" 2
	assert_output "mmubench: --metric results.runs[].zap.pattern: $A: results.runs[0].zap.pattern is a string, not a number"
	run "$MMUBENCH" compare "$A" "$A" --metric 'results.runs.zap.zap_total_ms'
	assert_equal "$status" 2
	assert_output --partial "--metric results.runs.zap.zap_total_ms: no [] marks the array of runs"
	run "$MMUBENCH" compare "$A"
	assert_equal "$status" 2
	assert_output "mmubench: compare: expected 2 to 8 documents, A.json B.json [C.json ...] (got 1)"
	run "$MMUBENCH" compare "$A" "$A" "$A" "$A" "$A" "$A" "$A" "$A" "$A"
	assert_equal "$status" 2
	assert_output "mmubench: compare: expected 2 to 8 documents, A.json B.json [C.json ...] (got 9)"
	run "$MMUBENCH" compare "$A" "$A" "$A" --labels x,y
	assert_equal "$status" 2
	assert_output "mmubench: --labels x,y: expected 3 names, one per document, none empty"
	run "$MMUBENCH" compare "$A" "$A" "$A" --labels x,,z
	assert_equal "$status" 2
	assert_output "mmubench: --labels x,,z: expected 3 names, one per document, none empty"
	run "$MMUBENCH" compare "$A" "$A" --labels x,y,z
	assert_equal "$status" 2
	assert_output "mmubench: --labels x,y,z: expected two names, NAME_A,NAME_B"
	# Same scenario, nothing in common: the table says so, and the status.
	jq '.results.runs[].zap.pattern = "c4"' "$A" >"$A.c4"
	run "$MMUBENCH" compare "$A" "$A.c4"
	assert_equal "$status" 1
	assert_line --regexp '^  same4 +3 +0 +2\.000 +- +only in A$'
	assert_line --regexp '^  c4 +0 +3 +- +2\.000 +only in B$'
	assert_line "mmubench: no row is in both $A and $A.c4: nothing was compared"
	run "$MMUBENCH" compare "$A" "$A" --frob
	assert_equal "$status" 2
	assert_output "mmubench: compare: unknown option --frob (see mmubench compare --help)"
}

# tools/ab.sh end to end (ab_run, test/helpers.bash): a series against
# the original.  The A/A run end to end is the nightly's
# (test/nightly/ab.bats); its pooling is checked on fixtures
# (test/baseline.bats).
@test "ab.sh: a series against the original (x86_64: tdp-mmu; arm64: seed 000's)" {
	local s=tdp-mmu-unlink-empty-leaf-tables
	[[ $ARCH == x86_64 ]] || s=arm64-dirty-log-init-set-valid-entries
	ab_run "$s"
}

# Three kernels on another base, one boot each, on a terminal: the sides
# alternate A B C, the progress line counts all three, every file has
# all of them, and each is labelled NAME@6.12, which is what the store
# keys a kernel by (a 6.12 original has its own history, not 6.1's).
@test "ab.sh --kernel 6.12: three kernels (two series), A B C, one table, labelled NAME@6.12, stored apart from 6.1's" {
	[[ $ARCH == x86_64 ]] || skip "x86 series"
	local s=tdp-mmu-unlink-empty-leaf-tables c=tdp-mmu-no-unlink-control k f
	for k in original $s $c; do
		require_series "$k" x86_64 6.12
	done
	local night=$BATS_TEST_TMPDIR/night
	local out=$night/zap-patterns
	run script -qec "MMUBENCH_PROGRESS_AFTER_MS=0 $ROOT/tools/ab.sh --kernel 6.12 \
		--series $s,$c --arch $ARCH --repeat 1 --out $out --mmubench $MMUBENCH \
		--guest $GUEST -- zap --zap same4 -v 1 -b 8m --zap-count 20 --no-kprobes" /dev/null
	assert_success
	ab_redone "$out"
	assert_output --regexp $'\rab: B kernel run 1/1 \\('"$s"$'\\) \\(1/3 done, [0-9]+ s left\\)\e\\[K'
	assert_output --regexp $'\rab: C kernel run 1/1 \\('"$c"$'\\) \\(2/3 done, [0-9]+ s left\\)\e\\[K'
	for f in A-1 B-1 C-1; do
		assert_file_exists "$out/runs/$f.json"
	done
	# Booted in the order A B C.
	[[ $out/runs/A-1.json -ot $out/runs/B-1.json && $out/runs/B-1.json -ot $out/runs/C-1.json ]] ||
		fail "the runs were not made in the order A B C"
	assert_json "$out/runs/A-1.json" '.env | .kernel_base == "6.12" and .kernel_series == "original"'
	assert_json "$out/runs/B-1.json" '.env | .kernel_base == "6.12" and .kernel_series == "'"$s"'"'
	assert_json "$out/C.json" '.scenario == "zap" and (.results.runs | length == 1)'
	assert_json "$out/compare.json" '([.sides[].label] == ["original@6.12", "'"$s"'@6.12", "'"$c"'@6.12"]) and
		.b.label == "'"$s"'@6.12" and
		(.rows[] | select(.metric == "zap_total_ms") | .row == "same4" and
		 (.sides | length == 3) and .vs[1].label == "'"$c"'@6.12")'
	run grep -c -- '--kernel 6.12 --series' "$out/command.txt"
	assert_output 1
	run cat "$out/compare.txt"
	assert_line --regexp "^  C = $c@6\\.12: ${out//./\\.}/C\\.json, 1 run, kernel 6\\.12\\.[0-9]+\\+deb[0-9]+-cloud-amd64 \\+ kvm mmub-$c, MMU tdp_mmu\$"
	assert_line --regexp '^  same4 +1 +1 +1 '
	run cat "$out/time.txt"
	assert_line --regexp '^  runs C \('"$c"'\) +[0-9.]+  \(1 boot, '
	assert_line --regexp '^  kernel '"$c"' +[0-9.]+$'
	run "$ROOT/ci/store.sh" --store "$BATS_TEST_TMPDIR/store" --date 20261202-000000 "$night"
	assert_success
	for k in original $s $c; do
		assert_line --regexp "^x86_64/${k}_6\\.12/zap-patterns/20261202-000000-"
	done
}

@test "ab: bad input is rejected before anything is built" {
	run "$ROOT/tools/ab.sh" -- zap
	assert_equal "$status" 2
	assert_output --partial "--series NAME is required"
	run "$ROOT/tools/ab.sh" --series x --repeat 0 -- zap
	assert_equal "$status" 2
	assert_output --partial "--repeat 0: expected a number >= 1"
	run "$ROOT/tools/ab.sh" --series x -- zap --json /tmp/x.json
	assert_equal "$status" 2
	assert_output --partial "--json: ab.sh writes each run's JSON"
	run "$ROOT/tools/ab.sh" --kernel 5.15 --series x zap
	assert_equal "$status" 2
	assert_output "tools/ab.sh: error: --kernel 5.15: the base kernel, one of: 6.1 6.12 (Debian's linux-source-BASE)"
	# A series is a folder of its base: 6.12 has its own.
	run "$ROOT/tools/ab.sh" --kernel 6.12 --series x86-nx-skip-dirty-tracked-recovery -- zap
	assert_equal "$status" 2
	assert_output "tools/ab.sh: error: --series x86-nx-skip-dirty-tracked-recovery: no such series for base 6.12 (a folder of $ROOT/patches/6.12, or original for A/A)"
	run "$ROOT/tools/ab.sh" --series x --smp 0 -- zap
	assert_equal "$status" 2
	assert_output "tools/ab.sh: error: --smp 0: the nested kernel's CPUs for the scenario, 1..99"
	# Without --, a --repeat after the scenario is still ab's.
	run "$ROOT/tools/ab.sh" --series x zap --zap same4 --repeat 0
	assert_equal "$status" 2
	assert_output "tools/ab.sh: error: --repeat 0: expected a number >= 1"
	# The binary has no ab: it names the script.
	run "$MMUBENCH" ab --series x
	assert_equal "$status" 2
	assert_output "mmubench: ab: A/B experiments across kernels are tools/ab.sh in the source tree (it builds and boots the kernels and runs this binary in each)"
	# Every series is checked before any kernel builds: it exists, once.
	run "$ROOT/tools/ab.sh" --series tdp-mmu-unlink-empty-leaf-tables,nope \
		--out "$BATS_TEST_TMPDIR/ab" -- zap
	assert_equal "$status" 2
	assert_output "tools/ab.sh: error: --series nope: no such series for base 6.1 (a folder of $ROOT/patches/6.1, or original for A/A)"
	assert_not_exists "$BATS_TEST_TMPDIR/ab"
	run "$ROOT/tools/ab.sh" --series original,tdp-mmu-unlink-empty-leaf-tables,original -- zap
	assert_equal "$status" 2
	assert_output "tools/ab.sh: error: --series original,tdp-mmu-unlink-empty-leaf-tables,original: original is named twice"
	run "$ROOT/tools/ab.sh" --series a,,b -- zap
	assert_equal "$status" 2
	assert_output "tools/ab.sh: error: --series a,,b: not a series name, nor names joined by commas"
	run "$ROOT/tools/ab.sh" --series a,b,c,d,e,f,g,h -- zap
	assert_equal "$status" 2
	assert_output "tools/ab.sh: error: --series a,b,c,d,e,f,g,h: at most 7 series (8 kernels with the original)"
}
