#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# One static page for a night of ci/nightly: each experiment's comparison
# as tables (from "mmubench compare"'s JSON), a before/after bar chart
# per metric with every run as a point, the latency percentiles per pass,
# the trend of the experiment's headline metric over the nights given,
# and the environment the runs report.  Plain HTML and SVG (gnuplot), no
# script, no external URL.
#
#   ci/report.sh [--out DIR] [--trend N] NIGHT...
#
#   NIGHT       a ci/nightly --out folder (or a store's copy of one);
#               several: oldest first.  The last is reported in full;
#               the last N of them make the trend plots.
#   --out DIR   where index.html and its plots go (default LAST/report)
#   --trend N   nights in the trend plots (default 30)
#
# index.html is written to a temporary file and renamed; its SVGs are in
# a fresh plots.XXXXXX folder beside it, and the previous one is removed
# after the rename.  An experiment the night lacks is named on the page
# with the reason ci/nightly's time.txt gives (failed, skipped, not run).
set -euo pipefail

prog=ci/report.sh
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(cd "$here/.." && pwd)
out='' trend=30 nights=()

die() { echo "$prog: error: $1" >&2; exit "${2:-1}"; }
while (($#)); do
	case $1 in
	--out|--trend) (($# >= 2)) || die "$1 needs a value" 2 ;;&
	--out) out=$2; shift 2 ;;
	--trend) trend=$2; shift 2 ;;
	-h|--help) echo "usage:"; sed -n '/^#   ci\/report.sh/,/^# index/{/^# index/d;s/^#//p}' "$0"; exit 0 ;;
	--) shift; nights+=("$@"); break ;;
	-*) die "unknown option '$1' (accepted: --out DIR, --trend N, --help)" 2 ;;
	*) nights+=("$1"); shift ;;
	esac
done
[[ $trend =~ ^[1-9][0-9]*$ ]] || die "--trend $trend: expected a number of nights >= 1" 2
((${#nights[@]})) || die "no NIGHT: give one or more ci/nightly --out folders, oldest first" 2
for n in "${nights[@]}"; do
	[[ -d $n ]] || die "NIGHT $n: not a directory (a ci/nightly --out folder)" 2
done
command -v gnuplot >/dev/null || die "gnuplot not found: install gnuplot-nox (ci/deps.sh)"
command -v jq >/dev/null || die "jq not found: install jq (ci/deps.sh)"

last=${nights[-1]}
: "${out:=$last/report}"
mkdir -p "$out" || die "--out $out: cannot create it"
out=$(cd "$out" && pwd)
((${#nights[@]} <= trend)) || nights=("${nights[@]: -trend}")
plots=$(mktemp -d "$out/plots.XXXXXX")
chmod 755 "$plots"
pdir=${plots##*/}
page=$(mktemp "$out/.index.html.XXXXXX")
trap 'rm -f "$page"; [[ -z ${done_ok:-} ]] && rm -rf "$plots"' EXIT

# The nightly's experiments, in its order; another folder with a
# compare.json is reported after them.
experiments=(seed000 seed000-migration seed001 seed002 seed003 peer)
declare -A about=(
	[seed000]='arm64, original against arm64-dirty-log-init-set-valid-entries: the first harvest after enabling with KVM_DIRTY_LOG_INITIALLY_SET'
	[seed000-migration]='arm64, original against arm64-dirty-log-init-set-valid-entries: migration time when round 1 sends what the first harvest reports'
	[seed001]='x86_64, original against tdp-mmu-unlink-empty-leaf-tables: the cover letter&#39;s six invalidation patterns'
	[seed002]='x86_64, original against x86-nx-skip-dirty-tracked-recovery: NX recovery worker&#39;s CPU time and what it zapped'
	[seed003]='x86_64, an A/A run (upstream since 5.7): enabling with and without INITIALLY_SET; the noise floor'
	[seed001-paper]='x86_64, seed 001 at its own configuration (4 vCPUs): original against tdp-mmu-unlink-empty-leaf-tables (v2) and tdp-mmu-no-unlink-control (v2&#39;s iterator, no unlink)'
	[peer]='x86_64: the kernel&#39;s dirty_log_perf_test (A) beside mmubench dirty-log (B)'
)
# The metric whose trend is drawn; else compare's first.
declare -A headline=(
	[seed000]=first_harvest_reported [seed000-migration]=total_ms
	[seed001]=zap_total_ms [seed002]=worker_ms [seed003]='enable_ms (--table)'
	[seed001-paper]=zap_total_ms
)
for d in "$last"/*/; do
	d=${d%/}
	[[ -f $d/compare.json && ! " ${experiments[*]} " == *" ${d##*/} "* ]] &&
		experiments+=("${d##*/}")
done

esc() { jq -Rr @html <<<"$1"; }
gpq() { local s=${1//\'/\'\'}; printf "'%s'" "$s"; } # a gnuplot string
svg_n=0
# gnuplot SCRIPT: runs it, the output in $plots; prints the file's name.
gnuplot_svg() {
	local name=$1 script=$2 log
	log=$(gnuplot <<<"set terminal svg size $3 font 'sans,11' noenhanced background rgb 'white'
set output $(gpq "$plots/$name.tmp")
$script" 2>&1) || die "gnuplot failed for $name: $log"
	[[ -s $plots/$name.tmp ]] || die "gnuplot wrote nothing for $name: $log"
	mv "$plots/$name.tmp" "$plots/$name"
	chmod 644 "$plots/$name"
	svg_n=$((svg_n + 1))
}
img() { # FILE ALT
	printf '<figure><img src="%s/%s" alt="%s"></figure>\n' "$pdir" "$1" "$(esc "$2")"
}
metrics_of() { # COMPARE.json: the metrics in compare's order
	jq -r 'reduce .rows[].metric as $m ([]; if any(.[]; . == $m) then . else . + [$m] end) | .[]' "$1"
}
# The verdict of a step: time.txt's ("ok", "failed (exit 1, ...)",
# "skipped: ..."), or, before ci/nightly has written it (its report
# step), "ran" when the step left its log.
step_status() { # NIGHT NAME
	local st=''
	[[ ! -f $1/time.txt ]] ||
		st=$(awk -v n="$2" '$1 == "ok" && $2 == n { print "ok"; exit }
			$1 == "FAIL" && $2 == n { $1 = ""; $2 = ""; sub(/^ +/, ""); print "failed " $0; exit }
			$1 == "skip" && $2 == n ":" { $1 = ""; $2 = ""; sub(/^ +/, ""); print "skipped: " $0; exit }' "$1/time.txt")
	[[ $st || ! -f $1/$2.log ]] || st=ran
	printf '%s\n' "$st"
}

# Sides of a comparison: 2, or more for an N-way ci/ab.sh --series a,b,...
# ("sides" of compare.json; one median column and one bar each).
nsides() { # COMPARE.json
	jq '(.sides // [.a, .b]) | length' "$1"
}
letters=ABCDEFGH
colors=('#4c72b0' '#dd8452' '#55a868' '#c44e52' '#8172b3' '#937860' '#da8bc3' '#8c8c8c')
dark=('#1b2f55' '#7a3a10' '#1f4d2b' '#5e1f22' '#3b2f66' '#4a3a2a' '#6b3560' '#444444')

# ---- one metric: its table and its bar chart -------------------------------

# N sides: each side's runs and median, then per side its ratio to A and
# the two verdicts (the intervals are in compare.txt and compare.json).
metric_table_n() { # COMPARE.json METRIC
	jq -r --arg m "$2" '.rows[] | select(.metric == $m) |
		[(.row // "-" | @html), (.sides[] | .n), (.sides[] | .median),
		 (.vs[] | .ratio, .ttest.significant, .mann_whitney.significant)] | @tsv' "$1" |
	awk -F'\t' -v n="$(nsides "$1")" -v L="$letters" '
	function num(x) { return x == "" ? "&ndash;" : (x >= 1000 || x <= -1000) ? sprintf("%.0f", x) : sprintf("%#.4g", x) }
	function yn(x) { return x == "true" ? "yes" : x == "false" ? "no" : "&ndash;" }
	BEGIN {
		printf "<table>\n<thead><tr><th>row</th>"
		for (i = 1; i <= n; i++) printf "<th>n%s</th>", substr(L, i, 1)
		for (i = 1; i <= n; i++) printf "<th>%s median</th>", substr(L, i, 1)
		for (i = 2; i <= n; i++) printf "<th>%s/A</th><th>t</th><th>MW</th>", substr(L, i, 1)
		print "</tr></thead><tbody>"
	}
	{
		sig = 0
		for (i = 2; i <= n; i++) {
			k = 2 + 2 * n + 3 * (i - 2)
			if ($(k + 1) == "true" && $(k + 2) == "true") sig = 1
		}
		printf "<tr%s><td>%s</td>", sig ? " class=\"sig\"" : "", $1
		for (i = 1; i <= n; i++) printf "<td>%s</td>", $(1 + i) == "" ? "&ndash;" : $(1 + i)
		for (i = 1; i <= n; i++) printf "<td>%s</td>", num($(1 + n + i))
		for (i = 2; i <= n; i++) {
			k = 2 + 2 * n + 3 * (i - 2)
			printf "<td>%s</td><td>%s</td><td>%s</td>", $k == "" ? "&ndash;" : sprintf("%.3f", $k),
				yn($(k + 1)), yn($(k + 2))
		}
		print "</tr>"
	}
	END { print "</tbody></table>" }'
}

metric_table() { # COMPARE.json METRIC
	(($(nsides "$1") == 2)) || { metric_table_n "$@"; return; }
	jq -r --arg m "$2" '.rows[] | select(.metric == $m) |
		[(.row // "-" | @html), .a.n, .b.n, .a.median, .b.median, .ratio,
		 (if .ttest.valid then .ttest.diff else null end),
		 (if .ttest.valid then .ttest.ci_high - .ttest.diff else null end),
		 .ttest.diff_pct, .ttest.significant, .mann_whitney.p,
		 .mann_whitney.significant] | @tsv' "$1" |
	awk -F'\t' '
	function num(x) { return x == "" ? "&ndash;" : (x >= 1000 || x <= -1000) ? sprintf("%.0f", x) : sprintf("%#.4g", x) }
	function yn(x) { return x == "true" ? "yes" : x == "false" ? "no" : "&ndash;" }
	BEGIN {
		print "<table>"
		print "<thead><tr><th>row</th><th>nA</th><th>nB</th><th>A median</th><th>B median</th><th>B/A</th><th>B&minus;A mean &plusmn; 95% CI (% of A)</th><th>t</th><th>MW p</th><th>MW</th></tr></thead><tbody>"
	}
	{
		ci = $7 == "" ? "&ndash;" : num($7) " &plusmn; " num($8) ($9 == "" ? "" : sprintf(" (%+.1f%%)", $9))
		printf "<tr%s><td>%s</td><td>%s</td><td>%s</td><td>%s</td><td>%s</td><td>%s</td><td>%s</td><td>%s</td><td>%s</td><td>%s</td></tr>\n",
			($10 == "true" && $12 == "true") ? " class=\"sig\"" : "",
			$1, $2, $3, num($4), num($5), $6 == "" ? "&ndash;" : sprintf("%.3f", $6),
			ci, yn($10), $11 == "" ? "&ndash;" : sprintf("%.3f", $11), yn($12)
	}
	END { print "</tbody></table>" }'
}

# N sides: one bar per side and row, every run a point on its bar.
bar_chart_n() { # COMPARE.json METRIC FILE
	local cmp=$1 m=$2 name=$3 d=$plots/$3 n nrows width i w plot=() label
	n=$(nsides "$cmp")
	w=$(echo "0.8 / $n" | bc -l)
	jq -r --arg m "$m" '[.rows[] | select(.metric == $m)] | to_entries[] |
		[.key, (.value.row // "-"), (.value.sides[] | .median // "NaN")] | @tsv' \
		"$cmp" >"$d.bars"
	for ((i = 0; i < n; i++)); do
		jq -r --arg m "$m" --argjson s "$i" --argjson n "$n" --argjson w "$w" '
			[.rows[] | select(.metric == $m)] | to_entries[] | .key as $r |
			(.value.sides[$s].values // [] | length as $k | to_entries[] | select(.value != null) |
			 [$r + ($s - ($n - 1) / 2) * $w + ((.key + 0.5) / $k - 0.5) * $w * 0.65, .value]) | @tsv' \
			"$cmp" >"$d.pts$i"
		label=$(jq -r --argjson s "$i" '.sides[$s].label' "$cmp")
		plot+=("$(gpq "$d.bars") using (\$1+($i-($n-1)/2.0)*$w):$((i + 3))$( ((i)) || echo ':xtic(2)') with boxes lc rgb '${colors[i]}' title $(gpq "${letters:i:1}: $label")")
	done
	for ((i = 0; i < n; i++)); do
		plot+=("$(gpq "$d.pts$i") using 1:2 with points pt 7 ps 0.6 lc rgb '${dark[i]}' title '${letters:i:1} runs'")
	done
	nrows=$(wc -l <"$d.bars")
	width=$((nrows * (50 * n + 10) + 260))
	((width >= 520)) || width=520
	((width <= 1400)) || width=1400
	gnuplot_svg "$name" "set datafile separator '\t'
set title $(gpq "$m")
set style fill solid 0.45 border -1
set boxwidth $(echo "$w * 0.95" | bc -l)
set xrange [-0.6:$nrows-0.4]
set yrange [0:*]
set grid ytics lc rgb '#dddddd'
set key outside bottom center horizontal
set xtics nomirror $([[ $nrows -gt 4 ]] && echo 'rotate by -25')
set offsets 0, 0, graph 0.05, 0
plot $(IFS=,; echo "${plot[*]}")" "$width,360"
	rm -f "$d".bars "$d".pts*
}

bar_chart() { # COMPARE.json METRIC FILE
	local cmp=$1 m=$2 name=$3 d=$plots/$3 la lb nrows width
	(($(nsides "$cmp") == 2)) || { bar_chart_n "$@"; return; }
	jq -r --arg m "$m" '[.rows[] | select(.metric == $m)] | to_entries[] |
		[.key, (.value.row // "-"), (.value.a.median // "NaN"), (.value.b.median // "NaN")] | @tsv' \
		"$cmp" >"$d.bars"
	# Every run's value, spread across its bar.
	jq -r --arg m "$m" '[.rows[] | select(.metric == $m)] | to_entries[] | .key as $i |
		(.value.a.values // [] | length as $n | to_entries[] | select(.value != null) |
		 [$i - 0.2 + ((.key + 0.5) / $n - 0.5) * 0.26, .value, "A"]),
		(.value.b.values // [] | length as $n | to_entries[] | select(.value != null) |
		 [$i + 0.2 + ((.key + 0.5) / $n - 0.5) * 0.26, .value, "B"]) | @tsv' \
		"$cmp" >"$d.pts"
	awk -F'\t' '$3 == "A"' "$d.pts" >"$d.ptsA"
	awk -F'\t' '$3 == "B"' "$d.pts" >"$d.ptsB"
	la=$(jq -r '.a.label // "A"' "$cmp") lb=$(jq -r '.b.label // "B"' "$cmp")
	nrows=$(wc -l <"$d.bars")
	width=$((nrows * 110 + 260))
	((width >= 520)) || width=520
	((width <= 1100)) || width=1100
	gnuplot_svg "$name" "set datafile separator '\t'
set title $(gpq "$m")
set style fill solid 0.45 border -1
set boxwidth 0.38
set xrange [-0.6:$nrows-0.4]
set yrange [0:*]
set grid ytics lc rgb '#dddddd'
set key outside bottom center horizontal
set xtics nomirror $([[ $nrows -gt 4 ]] && echo 'rotate by -25')
set offsets 0, 0, graph 0.05, 0
plot $(gpq "$d.bars") using (\$1-0.2):3:xtic(2) with boxes lc rgb '#4c72b0' title $(gpq "A: $la"), \\
     $(gpq "$d.bars") using (\$1+0.2):4 with boxes lc rgb '#dd8452' title $(gpq "B: $lb"), \\
     $(gpq "$d.ptsA") using 1:2 with points pt 7 ps 0.7 lc rgb '#1b2f55' title 'A runs', \\
     $(gpq "$d.ptsB") using 1:2 with points pt 5 ps 0.7 lc rgb '#7a3a10' title 'B runs'" \
		"$width,340"
	rm -f "$d".{bars,pts,ptsA,ptsB}
}

# ---- the latency percentiles per pass --------------------------------------

# SIDE files -> "index name runs p50 lo hi p99 lo hi p999 lo hi", in us:
# per phase, the median over the runs (every results.runs[] entry) of the
# slowest vCPU's percentile, and the range over the runs.
latency_data() {
	jq -s -r '
	def med: sort | if length % 2 == 1 then .[length / 2 | floor]
		else (.[length / 2 - 1] + .[length / 2]) / 2 end;
	[.[] | .results.runs[]?] as $runs
	| [$runs[] | .phases[]? | select(any(.vcpus[]?; .latency_ns.p50 != null)) | .name]
	| reduce .[] as $n ([]; if any(.[]; . == $n) then . else . + [$n] end)
	| to_entries[] | .key as $i | .value as $n
	| [$runs[] | .phases[]? | select(.name == $n)
	   | [.vcpus[]? | .latency_ns | select(. != null and .p50 != null)] | select(length > 0)
	   | {p50: (map(.p50) | max), p99: (map(.p99) | max), p999: (map(.["p99.9"]) | max)}] as $w
	| [$i, $n, ($w | length)] + ([("p50", "p99", "p999") as $k | $w | map(.[$k] / 1000)
	   | [med, min, max]] | add) | @tsv' "$@"
}

# N sides: the same lines per side, told apart by point and dash type.
latency_chart_n() { # EXPDIR FILE -> 0 when drawn
	local e=$1 name=$2 d=$plots/$2 n i s files xt plot=() off k caption=''
	local pts=(7 6 5 4 9 8 13 12) q=(p50 p99 p99.9) qc=('#2a7ab0' '#d9822b' '#b03a2e')
	n=$(nsides "$e/compare.json")
	for ((i = 0; i < n; i++)); do
		s=${letters:i:1}
		files=("$e"/runs/"$s"-*.json)
		[[ -f ${files[0]} ]] || { rm -f "$d".[A-H]; return 1; }
		latency_data "${files[@]}" >"$d.$s"
		[[ -s $d.$s ]] || { rm -f "$d".[A-H]; return 1; }
	done
	for ((k = 0; k < 3; k++)); do
		for ((i = 0; i < n; i++)); do
			s=${letters:i:1}
			off=$(printf '%+.2f' "$(echo "($i - ($n - 1) / 2) * 0.12" | bc -l)")
			plot+=("$(gpq "$d.$s") using (\$1$off):$((4 + 3 * k)):$((5 + 3 * k)):$((6 + 3 * k)) with yerrorlines lc rgb '${qc[k]}' pt ${pts[i]} dt $((i + 1)) title '${q[k]} $s'")
		done
	done
	xt=$(awk -F'\t' '{ printf "%s\"%s\" %d", (NR > 1 ? ", " : ""), $2, $1 }' "$d.A")
	gnuplot_svg "$name" "set datafile separator '\t'
set title 'latency per pass: median over the runs of the slowest vCPU (bars: min to max of the runs)'
set logscale y
set ylabel 'us (log)'
set grid ytics lc rgb '#dddddd'
set key outside right top
set xtics ($xt)
set xrange [-0.5:$(wc -l <"$d.A")-0.5]
plot $(IFS=,; echo "${plot[*]}")" "820,380"
	for ((i = 0; i < n; i++)); do
		s=${letters:i:1}
		caption+="${caption:+, }$s = $(jq -r --argjson i "$i" '.sides[$i].label' "$e/compare.json")"
		caption+=" ($(awk -F'\t' 'NR == 1 { print $3 }' "$d.$s") runs)"
	done
	printf '<p class="caption">%s.</p>\n' "$(esc "$caption")"
	rm -f "$d".[A-H]
}

latency_chart() { # EXPDIR FILE -> 0 when drawn
	local e=$1 name=$2 d=$plots/$2 s files n=() la lb xt
	(($(nsides "$e/compare.json") == 2)) || { latency_chart_n "$@"; return; }
	la=$(jq -r '.a.label // "A"' "$e/compare.json") lb=$(jq -r '.b.label // "B"' "$e/compare.json")
	for s in A B; do
		files=("$e"/runs/"$s"-*.json)
		[[ -f ${files[0]} ]] || return 1
		latency_data "${files[@]}" >"$d.$s"
		[[ -s $d.$s ]] || { rm -f "$d".A "$d".B; return 1; }
	done
	xt=$(awk -F'\t' '{ printf "%s\"%s\" %d", (NR > 1 ? ", " : ""), $2, $1 }' "$d.A")
	gnuplot_svg "$name" "set datafile separator '\t'
set title 'latency per pass: median over the runs of the slowest vCPU (bars: min to max of the runs)'
set logscale y
set ylabel 'us (log)'
set grid ytics lc rgb '#dddddd'
set key outside right top
set xtics ($xt)
set xrange [-0.5:$(wc -l <"$d.A")-0.5]
plot $(gpq "$d.A") using (\$1-0.06):4:5:6 with yerrorlines lc rgb '#2a7ab0' pt 7 dt 1 title 'p50 A', \\
     $(gpq "$d.B") using (\$1+0.06):4:5:6 with yerrorlines lc rgb '#2a7ab0' pt 6 dt 2 title 'p50 B', \\
     $(gpq "$d.A") using (\$1-0.06):7:8:9 with yerrorlines lc rgb '#d9822b' pt 7 dt 1 title 'p99 A', \\
     $(gpq "$d.B") using (\$1+0.06):7:8:9 with yerrorlines lc rgb '#d9822b' pt 6 dt 2 title 'p99 B', \\
     $(gpq "$d.A") using (\$1-0.06):10:11:12 with yerrorlines lc rgb '#b03a2e' pt 7 dt 1 title 'p99.9 A', \\
     $(gpq "$d.B") using (\$1+0.06):10:11:12 with yerrorlines lc rgb '#b03a2e' pt 6 dt 2 title 'p99.9 B'" \
		"760,360"
	printf '<p class="caption">A = %s, B = %s; %s runs a side.</p>\n' "$(esc "$la")" "$(esc "$lb")" \
		"$(awk -F'\t' 'NR == 1 { print $3 }' "$d.A") and $(awk -F'\t' 'NR == 1 { print $3 }' "$d.B")"
	rm -f "$d".A "$d".B
}

# ---- the trend of the headline metric -----------------------------------

# N sides (tonight's count): one line per row and side, the side's dash
# type; a night with fewer sides leaves its points out.
trend_chart_n() { # EXP METRIC FILE NSIDES -> 0 when drawn
	local x=$1 m=$2 name=$3 ns=$4 d=$plots/$3 i=0 n nl have=0 rows r plot=() c=0 xt='' logy='' k
	local pts=(7 6 5 4 9 8 13 12)
	: >"$d.tsv"
	for n in "${nights[@]}"; do
		nl=$(cd "$n" && pwd)
		xt+="${xt:+, }\"${nl##*/}\" $i"
		if [[ -f $n/$x/compare.json ]]; then
			have=$((have + 1))
			jq -r --arg m "$m" --argjson i "$i" --argjson ns "$ns" '.rows[] |
				select(.metric == $m) | [(.sides // [.a, .b])[] | .median // "NaN"] as $v |
				[$i, (.row // "-")] + [range(0; $ns) | $v[.] // "NaN"] | @tsv' \
				"$n/$x/compare.json" >>"$d.tsv"
		fi
		i=$((i + 1))
	done
	((have >= 2)) || { rm -f "$d.tsv"; return 1; }
	mapfile -t rows < <(cut -f2 "$d.tsv" | awk '!seen[$0]++')
	for r in "${rows[@]}"; do
		awk -F'\t' -v r="$r" '$2 == r' "$d.tsv" >"$d.$c"
		for ((k = 0; k < ns; k++)); do
			plot+=("$(gpq "$d.$c") using 1:$((k + 3)) with linespoints lc rgb '${colors[c % 8]}' pt ${pts[k]} dt $((k + 1)) title $(gpq "$r ${letters:k:1}")")
		done
		c=$((c + 1))
	done
	awk -F'\t' 'BEGIN { lo = 1e300; hi = 0 }
		{ for (k = 3; k <= NF; k++) { if ($k == "NaN") continue; if ($k <= 0) exit 1
		  if ($k < lo) lo = $k; if ($k > hi) hi = $k } }
		END { exit !(hi > 0 && hi / lo >= 20) }' "$d.tsv" && logy='set logscale y'
	gnuplot_svg "$name" "set datafile separator '\t'
set title $(gpq "$m over the nights: median of each side per row (A solid, B dashed, C ... dash types 3 on)")
$logy
set grid ytics lc rgb '#dddddd'
set key outside right top
set xtics ($xt) rotate by -25
set xrange [-0.3:$((i - 1)).3]
$([[ $logy ]] || echo 'set yrange [0:*]')
plot $(IFS=,; echo "${plot[*]}")" "900,400"
	rm -f "$d".*[0-9] "$d.tsv"
}

trend_chart() { # EXP METRIC FILE -> 0 when drawn (two nights or more)
	local x=$1 m=$2 name=$3 d=$plots/$3 i=0 n nl have=0 rows r plot=() c=0 xt='' logy=''
	local ns
	ns=$(nsides "$last/$x/compare.json")
	((ns == 2)) || { trend_chart_n "$@" "$ns"; return; }
	: >"$d.tsv"
	for n in "${nights[@]}"; do
		nl=$(cd "$n" && pwd)
		xt+="${xt:+, }\"${nl##*/}\" $i"
		if [[ -f $n/$x/compare.json ]]; then
			have=$((have + 1))
			jq -r --arg m "$m" --argjson i "$i" '.rows[] | select(.metric == $m) |
				[$i, (.row // "-"), (.a.median // "NaN"), (.b.median // "NaN")] | @tsv' \
				"$n/$x/compare.json" >>"$d.tsv"
		fi
		i=$((i + 1))
	done
	((have >= 2)) || { rm -f "$d.tsv"; return 1; }
	mapfile -t rows < <(cut -f2 "$d.tsv" | awk '!seen[$0]++')
	for r in "${rows[@]}"; do
		awk -F'\t' -v r="$r" '$2 == r' "$d.tsv" >"$d.$c"
		plot+=("$(gpq "$d.$c") using 1:3 with linespoints lc rgb '${colors[c % 8]}' pt 7 dt 1 title $(gpq "$r A")"
		       "$(gpq "$d.$c") using 1:4 with linespoints lc rgb '${colors[c % 8]}' pt 6 dt 2 title $(gpq "$r B")")
		c=$((c + 1))
	done
	# A log axis when every median is positive and they span 20x or more.
	awk -F'\t' 'BEGIN { lo = 1e300; hi = 0 }
		{ for (k = 3; k <= 4; k++) { if ($k == "NaN") continue; if ($k <= 0) exit 1
		  if ($k < lo) lo = $k; if ($k > hi) hi = $k } }
		END { exit !(hi > 0 && hi / lo >= 20) }' "$d.tsv" && logy='set logscale y'
	gnuplot_svg "$name" "set datafile separator '\t'
set title $(gpq "$m over the nights: median of A (solid) and B (dashed) per row")
$logy
set grid ytics lc rgb '#dddddd'
set key outside right top
set xtics ($xt) rotate by -25
set xrange [-0.3:$((i - 1)).3]
$([[ $logy ]] || echo 'set yrange [0:*]')
plot $(IFS=,; echo "${plot[*]}")" "860,380"
	rm -f "$d".*[0-9] "$d.tsv"
}

# ---- the environment -----------------------------------------------------

# N sides: each side's first run, else what compare.json says of it.
env_rows_n() { # EXP EXPDIR
	local x=$1 e=$2 i s f label
	for ((i = 0; i < $(nsides "$e/compare.json"); i++)); do
		s=${letters:i:1}
		label=$(jq -r --argjson i "$i" '.sides[$i].label' "$e/compare.json")
		f=$e/runs/$s-1.json
		if [[ -f $f ]]; then
			jq -r --arg x "$x" --arg s "$s: $label" '.env |
				[$x, $s, .arch, .kernel, .mmu, .cpu_model, .mmubench_version] |
				map(. // "-" | tostring | @html) |
				"<tr><td>" + join("</td><td>") + "</td></tr>"' "$f"
		else
			jq -r --arg x "$x" --arg s "$s: $label" --argjson i "$i" '
				[$x, $s, "-", .sides[$i].kernel, .sides[$i].mmu, "-", "- (no run JSON)"] |
				map(. // "-" | tostring | @html) |
				"<tr><td>" + join("</td><td>") + "</td></tr>"' "$e/compare.json"
		fi
	done
}

env_rows() { # EXP EXPDIR
	local x=$1 e=$2 s f label
	(($(nsides "$e/compare.json") == 2)) || { env_rows_n "$@"; return; }
	for s in a b; do
		label=$(jq -r --arg s "$s" '.[$s].label // ($s | ascii_upcase)' "$e/compare.json")
		f=''
		for f in "$e/runs/${s^^}-1.json" "$e/runs/mmubench-1.json" ''; do
			[[ -z $f || -f $f ]] && break
		done
		[[ $s == b || $f != */mmubench-1.json ]] || f=''
		if [[ $f ]]; then
			jq -r --arg x "$x" --arg s "${s^^}: $label" '.env |
				[$x, $s, .arch, .kernel, .mmu, .cpu_model, .mmubench_version] |
				map(. // "-" | tostring | @html) |
				"<tr><td>" + join("</td><td>") + "</td></tr>"' "$f"
		else
			jq -r --arg x "$x" --arg s "${s^^}: $label" --arg k "$s" '
				[$x, $s, "-", .[$k].kernel, .[$k].mmu, "-", "- (no run JSON)"] |
				map(. // "-" | tostring | @html) |
				"<tr><td>" + join("</td><td>") + "</td></tr>"' "$e/compare.json"
		fi
	done
}

# ---- the page -----------------------------------------------------------------

{
	name=$(cd "$last" && pwd)
	cat <<EOF
<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>mmubench nightly: $(esc "${name##*/}")</title>
<style>
body { font-family: sans-serif; margin: 1.5em auto; max-width: 72em; padding: 0 1em; color: #222; }
h2 { border-bottom: 1px solid #ccc; margin-top: 2em; }
table { border-collapse: collapse; margin: 0.5em 0 1em; font-size: 0.9em; }
th, td { border: 1px solid #ccc; padding: 0.2em 0.5em; text-align: right; }
th { background: #f0f0f0; }
td:first-child, th:first-child { text-align: left; }
tr.sig td { background: #e6f2e6; }
.env td, .env th { text-align: left; }
.missing { color: #a00; }
figure { margin: 0.5em 0; }
img { max-width: 100%; height: auto; border: 1px solid #eee; }
pre { background: #f7f7f7; padding: 0.5em; overflow-x: auto; font-size: 0.85em; }
.caption { color: #555; font-size: 0.9em; }
</style>
</head>
<body>
<h1>mmubench nightly: $(esc "${name##*/}")</h1>
<p>The night in <code>$(esc "$name")</code>; trends over ${#nights[@]} night(s), oldest first:
$(for n in "${nights[@]}"; do n=$(cd "$n" && pwd); printf '<code>%s</code> ' "$(esc "${n##*/}")"; done).
Made by <code>ci/report.sh</code> on $(date -u '+%Y-%m-%d %H:%M UTC').
A is the original kernel, B the patched one (ci/ab.sh; with several series B, C, ...,
each against A); a row is green when both Student&#39;s t and Mann-Whitney find a
difference at 95 % (with several series: for one of them at least).</p>
<h2 id="summary">Experiments</h2>
<ul>
EOF
	reported=0 missing=0
	for x in "${experiments[@]}"; do
		st=$(step_status "$last" "$x")
		if [[ -f $last/$x/compare.json ]]; then
			reported=$((reported + 1))
			printf '<li><a href="#%s">%s</a>: %s rows, %s%s</li>\n' "$x" "$x" \
				"$(jq '.rows | length' "$last/$x/compare.json")" \
				"$(jq -r 'if (.sides // [] | length) > 2 then
					"against A, " + ([range(1; .sides | length) as $i |
					"\("ABCDEFGH"[$i:$i + 1]): \([.rows[] | select(.vs[$i - 1] |
					.ttest.significant and .mann_whitney.significant)] | length)"] |
					join(", ")) + " differ at 95 % by both tests"
				else "\([.rows[] | select(.ttest.significant and .mann_whitney.significant)] | length) differ at 95 % by both tests" end' "$last/$x/compare.json")" \
				"$([[ $st == failed* ]] && printf '; <span class="missing">the step %s</span>' "$(esc "$st")")"
		else
			missing=$((missing + 1))
			case $st in
			failed*) why="$st: no comparison" ;;
			skipped*) why=$st ;;
			ok) why="its step passed but left no $x/compare.json" ;;
			ran) why="its step ran but left no $x/compare.json (failed?)" ;;
			*) why="not run this night (not in ci/nightly --only, or the night stopped before it)" ;;
			esac
			printf '<li class="missing" id="%s">%s: missing: %s' "$x" "$x" "$(esc "$why")"
			if [[ -s $last/$x.log ]]; then
				printf '<details><summary>the end of %s.log</summary><pre>%s</pre></details>' \
					"$x" "$(esc "$(tail -n 15 "$last/$x.log")")"
			fi
			echo '</li>'
		fi
	done
	echo "</ul>"
	printf '<p>%d of %d experiments reported, %d missing.</p>\n' "$reported" "${#experiments[@]}" "$missing"
	for d in "$last"/*/; do
		d=${d%/}
		[[ ! -f $d/compare.json && ${d##*/} != report && -n $(compgen -G "$d/*.json") ]] || continue
		printf '<p>%s/ holds a direct run (ci/nightly --direct): no A/B in one night; compare two nights with <code>mmubench compare --runs</code>.</p>\n' \
			"$(esc "${d##*/}")"
	done

	envs=''
	for x in "${experiments[@]}"; do
		e=$last/$x
		[[ -f $e/compare.json ]] || continue
		printf '<h2 id="%s">%s</h2>\n' "$x" "$x"
		[[ -z ${about[$x]:-} ]] || printf '<p>%s</p>\n' "${about[$x]}"
		jq -r 'if (.sides // [] | length) > 2 then
			"<p>" + ([.sides | to_entries[] | "\("ABCDEFGH"[.key:.key + 1]) = \(.value.label | @html) (\(.value.runs) runs)"] |
			join(", ")) + ", scenario \(.scenario | @html); B, C, ... each against A.</p>"
		else "<p>A = \(.a.label | @html) (\(.a.runs) runs), B = \(.b.label | @html) (\(.b.runs) runs), scenario \(.scenario | @html).</p>" end' "$e/compare.json"
		[[ ! -f $e/command.txt ]] || printf '<p class="caption">command: <code>%s</code></p>\n' "$(esc "$(cat "$e/command.txt")")"
		jq -r '.notes[]? | "<p class=\"caption\">note: \(@html)</p>"' "$e/compare.json"
		mi=0
		while IFS= read -r m; do
			mi=$((mi + 1))
			printf '<h3>%s</h3>\n' "$(esc "$m")"
			metric_table "$e/compare.json" "$m"
			bar_chart "$e/compare.json" "$m" "$x-bars-$mi.svg"
			img "$x-bars-$mi.svg" "$x $m: $([[ $(nsides "$e/compare.json") == 2 ]] && echo "A and B" || echo "each side's") medians, every run"
		done < <(metrics_of "$e/compare.json")
		echo "<h3>Latency per pass</h3>"
		if latency_chart "$e" "$x-latency.svg" >"$plots/.caption"; then
			img "$x-latency.svg" "$x: latency p50, p99, p99.9 per pass"
			cat "$plots/.caption"
		else
			echo '<p class="missing">No per-pass latency percentiles in this experiment&#39;s runs/A-*.json and runs/B-*.json.</p>'
		fi
		rm -f "$plots/.caption"
		m=${headline[$x]:-}
		if [[ -z $m ]] || ! metrics_of "$e/compare.json" | grep -qxF -- "$m"; then
			m=$(metrics_of "$e/compare.json" | head -n 1)
		fi
		printf '<h3>Trend: %s</h3>\n' "$(esc "$m")"
		if trend_chart "$x" "$m" "$x-trend.svg"; then
			img "$x-trend.svg" "$x $m over the nights"
		else
			printf '<p class="missing">No trend: %s is in only one of the %d night(s) given.</p>\n' "$x" "${#nights[@]}"
		fi
		printf '<details><summary>mmubench compare&#39;s output</summary>\n<pre>%s</pre>\n</details>\n' \
			"$(esc "$(cat "$e/compare.txt" 2>/dev/null || echo "(no compare.txt)")")"
		envs+=$(env_rows "$x" "$e")$'\n'
	done

	echo '<h2 id="environment">Environment</h2>'
	echo '<p>What each side&#39;s first run reports (its <code>env</code>): nested runs report the L1 kernel they booted.</p>'
	echo '<table class="env"><thead><tr><th>experiment</th><th>side</th><th>arch</th><th>kernel</th><th>MMU</th><th>CPU</th><th>mmubench</th></tr></thead><tbody>'
	printf '%s' "$envs"
	cpu=$(awk -F': ' '/^model name/ { print $2; exit }' /proc/cpuinfo 2>/dev/null)
	printf '<tr><td>this machine</td><td>ran ci/report.sh</td><td>%s</td><td>%s</td><td>-</td><td>%s (%s CPUs)</td><td>%s</td></tr>\n' \
		"$(uname -m)" "$(esc "$(uname -r)")" "$(esc "${cpu:-unknown}")" "$(nproc)" \
		"$(esc "$(git -C "$repo" describe --always --dirty 2>/dev/null || echo unknown)")"
	echo '</tbody></table>'
	if [[ -f $last/time.txt ]]; then
		echo '<h2 id="steps">The nightly&#39;s steps</h2>'
		printf '<pre>%s</pre>\n' "$(esc "$(cat "$last/time.txt")")"
	fi
	echo '</body>'
	echo '</html>'
} >"$page"

chmod 644 "$page"
mv "$page" "$out/index.html"
done_ok=1
for d in "$out"/plots.*; do
	[[ $d == "$plots" ]] || rm -rf "$d"
done
echo "$prog: $out/index.html: $reported of ${#experiments[@]} experiments, $missing missing, $svg_n plots"
