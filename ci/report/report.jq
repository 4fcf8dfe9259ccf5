# SPDX-License-Identifier: GPL-2.0
#
# Everything ci/report/report.sh reads from JSON, as named functions:
#
#   jq -L ci/report -r 'include "report"; metrics' COMPARE.json
#
# The input is a comparison ("mmubench compare --json": .rows[], one per
# metric and row, each with .a and .b, or with more than two sides
# .sides[] and .vs[], each later side against A) or a run's document
# (mmubench --json: .env, .config, .results).  A table's figures come
# out as TSV for awk to format: jq 1.6 has no printf, and the page's
# numbers are C's rounding (%#.4g) of the exact values.  Short HTML
# comes out as it goes on the page.  Each function's comment gives its
# input (a comparison unless it says otherwise) and, after "->", what it
# gives; test/report.bats calls them on the fixture's files.

# ---- text ------------------------------------------------------------------

# A line of raw text (jq -R) -> HTML text.  report.sh's esc does the
# plain ASCII itself and leaves the rest to this: jq's entity for ' and
# its U+FFFD for invalid UTF-8.
def esc: @html;

# [cells] -> a table row, a null cell as "-".
def html_row:
	map(. // "-" | tostring | @html) |
	"<tr><td>" + join("</td><td>") + "</td></tr>";

# A note -> a caption.
def note: "<p class=\"caption\">note: \(@html)</p>";

# ---- a comparison: its shape -----------------------------------------------

# -> the number of sides: 2, or up to 8 (tools/ab.sh --series a,b,...).
def nsides: (.sides // [.a, .b]) | length;

# -> the metrics, each once, in the order of the rows.
def metrics:
	reduce .rows[].metric as $m ([]; if any(.[]; . == $m) then . else . + [$m] end) | .[];

# $want (experiments.conf's headline, or "") -> the metric whose trend is
# drawn: $want if the comparison has it, else its first.
def headline($want):
	[metrics] as $all |
	if $want != "" and any($all[]; . == $want) then $want else $all[0] // empty end;

# -> the number of rows.
def nrows: .rows | length;

# Side $i (0 = A) -> its label for the bars and the environment: with
# more than two sides as it is, else the letter when it has none.
def side_label($i):
	if nsides != 2 then .sides[$i].label else [.a, .b][$i].label // "AB"[$i:$i + 1] end;

# Side $i -> its label for the latency plot: the letter when it has
# none, however many sides there are.
def lat_label($i): (.sides // [.a, .b])[$i].label // "ABCDEFGH"[$i:$i + 1];

# ---- a comparison: the summary and a section's words -----------------------

# -> how many rows both tests find different at 95 %.
def ndiffer: [.rows[] | select(.ttest.significant and .mann_whitney.significant)] | length;

# -> the summary's words on a two-sided comparison (a peer).
def summary_2: "\(nrows) rows, \(ndiffer) differ at 95 % by both tests";

# -> the summary's words on a comparison, each later side against A when
# there are more than two.
def summary:
	if (.sides // [] | length) > 2 then
		"\(nrows) rows, against A, " +
		([range(1; .sides | length) as $i |
		  "\("ABCDEFGH"[$i:$i + 1]): \([.rows[] | select(.vs[$i - 1] |
		  .ttest.significant and .mann_whitney.significant)] | length)"] | join(", ")) +
		" differ at 95 % by both tests"
	else summary_2 end;

# -> the paragraph under an A/B section's title: sides, runs, scenario.
def ab_intro:
	if (.sides // [] | length) > 2 then
		"<p>" + ([.sides | to_entries[] |
		  "\("ABCDEFGH"[.key:.key + 1]) = \(.value.label | @html) (\(.value.runs) runs)"] |
		  join(", ")) + ", scenario \(.scenario | @html); B, C, ... each against A.</p>"
	else
		"<p>A = \(.a.label | @html) (\(.a.runs) runs), B = \(.b.label | @html) (\(.b.runs) runs), scenario \(.scenario | @html).</p>"
	end;

# -> compare's notes, as captions.
def notes: .notes[]? | note;

# -> the same for one kernel's runs compared with themselves, without the
# notes on the two tests, which say nothing there.
def direct_notes: .notes[]? | select(test("Mann-Whitney|t-test") | not) | note;

# ---- a comparison: the tables' rows (TSV, one row a line) ------------------

# -> the rows of metric $m.
def rows_of($m): .rows[] | select(.metric == $m);

# A row, or a side's verdict -> the resolution in %, null when no run
# count reaches it.
def res: if .resolution != null and .resolution.reachable then .resolution.mde_pct else null end;

# ---- a comparison: the other numbers that moved ----------------------------

# -> per later side, compare's count of the runs' other numbers (each
# phase's VM and vCPU stats, wall times, the scenario's own counts;
# compare --json's .counters): letter, label, compared, changed, of them
# exactly, identical in every run, varying.  None from a comparison made
# before compare judged them.
def counters_sides:
	.counters.sides[]? |
	["ABCDEFGH"[.side:.side + 1], (.label // "" | @html), .compared, .changed, .exact,
	 .identical, .varying] | @tsv;

# -> the numbers compare listed ("also changed"; every one with
# --all-counters): letter, counter and row (HTML), A's and the side's
# median, the ratio, t's p (flagged after the correction), Mann-Whitney's
# p, the verdict, res.
def counters_rows:
	.counters.sides[]? | .side as $s | .rows[] |
	["ABCDEFGH"[$s:$s + 1], (.counter | @html), (.row // "-" | @html), .a_median,
	 .median, .ratio, .p_t, .mann_whitney_p, .verdict,
	 res] | @tsv;

# -> metric $m of two sides: row (HTML), nA, nB, A and B median, B/A, the
# t test's B-A and its interval's half-width (when valid), B-A in %, t's
# verdict, MW's p and verdict, the row as is (the noise floor's key), res.
def table_ab($m):
	rows_of($m) |
	[(.row // "-" | @html), .a.n, .b.n, .a.median, .b.median, .ratio,
	 (if .ttest.valid then .ttest.diff else null end),
	 (if .ttest.valid then .ttest.ci_high - .ttest.diff else null end),
	 .ttest.diff_pct, .ttest.significant, .mann_whitney.p,
	 .mann_whitney.significant, (.row // "-"), res] | @tsv;

# -> metric $m of N sides: row (HTML), each side's n, each side's median,
# then per later side its ratio to A, t's and MW's verdicts, res.
def table_n($m):
	rows_of($m) |
	[(.row // "-" | @html), (.sides[] | .n), (.sides[] | .median),
	 (.vs[] | .ratio, .ttest.significant, .mann_whitney.significant, res)] | @tsv;

# -> metric $m of one kernel (side A): row (HTML), n, median, mean, min,
# max, stddev.
def table_direct($m):
	rows_of($m) | [(.row // "-" | @html), .a.n, .a.median, .a.mean, .a.min, .a.max, .a.stddev] | @tsv;

# An A/A comparison (both sides the same kernel, as ci/baseline.sh takes
# them) -> the noise floor's rows, an A/B one none: $x, metric, row, nA,
# nB, A and B median, B/A - 1 of the medians and the half-width of the t
# interval of B-A, both in % of A, the floor (the larger), res.  A row
# with neither figure is left out.
def noise_rows($x):
	select(.a.label == .b.label) | .rows[] |
	(if .a.median != null and .a.median != 0 and .b.median != null
	 then (.b.median / .a.median - 1) * 100 else null end) as $d |
	(if .ttest.valid and .a.mean != null and .a.mean != 0
	 then (.ttest.ci_high - .ttest.diff) / (.a.mean | fabs) * 100 else null end) as $ci |
	([$d, $ci] | map(select(. != null) | fabs) | max) as $f |
	select($f != null) |
	[$x, .metric, (.row // "-"), .a.n, .b.n, .a.median, .b.median, $d, $ci, $f, res] | @tsv;

# ---- a comparison: the charts' data (TSV) ------------------------------------

# -> the bar chart of metric $m, one kernel's ($sides "a") or A and B's
# ("ab"), each line "FILE<TAB>FIELDS" for charts.sh to split: "bars" row
# index, row, A and B median ("NaN" for none); "ptsA" and "ptsB" a run's
# x, spread across its side's bar, and its value.
def bars_ab($m; $sides):
	[rows_of($m)] | to_entries[] | .key as $i |
	(if $sides == "a" then 0 else -0.2 end) as $oa |
	["bars", $i, (.value.row // "-"), (.value.a.median // "NaN"), (.value.b.median // "NaN")],
	(.value.a.values // [] | length as $n | to_entries[] | select(.value != null) |
	 ["ptsA", $i + $oa + ((.key + 0.5) / $n - 0.5) * 0.26, .value]),
	(if $sides == "a" then empty else
	 .value.b.values // [] | length as $n | to_entries[] | select(.value != null) |
	 ["ptsB", $i + 0.2 + ((.key + 0.5) / $n - 0.5) * 0.26, .value] end) | @tsv;

# -> the same for N sides, $w a bar's width: "bars" row index, row, each
# side's median; "pts0", "pts1", ... a run of that side, x and value.
def bars_n($m; $w):
	nsides as $n |
	[rows_of($m)] | to_entries[] | .key as $r |
	["bars", $r, (.value.row // "-"), (.value.sides[] | .median // "NaN")],
	(range(0; $n) as $s |
	 .value.sides[$s].values // [] | length as $k | to_entries[] | select(.value != null) |
	 ["pts\($s)", $r + ($s - ($n - 1) / 2) * $w + ((.key + 0.5) / $k - 0.5) * $w * 0.65, .value]) |
	@tsv;

# -> point $i of metric $m's trend: a line per row, $i, row, then $ns
# sides' medians ("NaN" for a side the comparison lacks).
def trend($m; $i; $ns):
	rows_of($m) | [(.sides // [.a, .b])[] | .median // "NaN"] as $v |
	[$i, (.row // "-")] + [range(0; $ns) | $v[.] // "NaN"] | @tsv;

# ---- runs -------------------------------------------------------------------

# [numbers] -> their median.
def med:
	sort | if length % 2 == 1 then .[length / 2 | floor]
	else (.[length / 2 - 1] + .[length / 2]) / 2 end;

# [run documents] (jq -s) -> the latency plot's data, a line per phase
# with percentiles: index, phase, runs, then for p50, p99 and p99.9 the
# median over the runs (every .results.runs[] entry) of the slowest
# vCPU's, and its min and max over the runs, in us.
def latency:
	[.[] | .results.runs[]?] as $runs |
	[$runs[] | .phases[]? | select(any(.vcpus[]?; .latency_ns.p50 != null)) | .name] |
	reduce .[] as $n ([]; if any(.[]; . == $n) then . else . + [$n] end) |
	to_entries[] | .key as $i | .value as $n |
	[$runs[] | .phases[]? | select(.name == $n) |
	 [.vcpus[]? | .latency_ns | select(. != null and .p50 != null)] | select(length > 0) |
	 {p50: (map(.p50) | max), p99: (map(.p99) | max), p999: (map(.["p99.9"]) | max)}] as $w |
	[$i, $n, ($w | length)] +
	([("p50", "p99", "p999") as $k | $w | map(.[$k] / 1000) | [med, min, max]] | add) | @tsv;

# -> a run's environment as a row of the environment's table: $x, $side,
# arch, kernel, MMU, CPU, mmubench.
def env_row($x; $side):
	.env | [$x, $side, .arch, .kernel, .mmu, .cpu_model, .mmubench_version] | html_row;

# A comparison -> the same row from what it says of side $i, for a side
# without a run document.
def env_side_row($x; $side; $i):
	(.sides // [.a, .b])[$i] as $d |
	[$x, $side, "-", $d.kernel, $d.mmu, "-", "- (no run JSON)"] | html_row;

# -> the paragraph under one kernel's section, $l its label and $f its
# file, then its config, folded.
def direct_intro($l; $f):
	"<p>\($l | @html): kernel \(.env.kernel // "-" | @html), MMU \(.env.mmu // "-" | @html), scenario \(.scenario | @html), --repeat \(.config.repeat // 1) (<code>\($f | @html)</code>); every run one sample, as in an A/B night, but of one kernel: compare two labels with <code>mmubench compare --runs</code>.</p>",
	"<details><summary>its config</summary><pre>\(.config | tojson | @html)</pre></details>";

# -> the --repeat the runs were made with.
def repeat: .config.repeat // 1;
