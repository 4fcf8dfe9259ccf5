#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# One static page for a night of ci/nightly: each experiment's comparison
# as tables (from "mmubench compare"'s JSON), a before/after bar chart
# per metric with every run as a point, the latency percentiles per pass,
# the trend of the experiment's headline metric over the nights given,
# the A/A noise floor beside the A/B tables, and the environment the
# runs report.  A direct night (ci/nightly --direct: one kernel, no A/B)
# gets the same per kernel label: medians, every run, latency, trend.
# Plain HTML and SVG (gnuplot), no script, no external URL.
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
# A direct night's metrics are "mmubench compare"'s of each LABEL/NAME.json
# against itself ($MMUBENCH, default build/mmubench).
set -euo pipefail

prog=ci/report.sh
# shellcheck source=ci/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
out='' trend=30 nights=()
mmub=${MMUBENCH:-$repo/build/mmubench}

while (($#)); do
	case $1 in
	--out|--trend) (($# >= 2)) || die "$1 needs a value" 2 ;;&
	--out) out=$2; shift 2 ;;
	--trend) trend=$2; shift 2 ;;
	-h|--help) usage_exit 0 '/^#   ci\/report.sh/,/^# index/{/^# index/d;s/^#//p}' ;;
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

# Every night's path absolute: a direct run's comparison is found by it.
for i in "${!nights[@]}"; do
	nights[i]=$(cd "${nights[i]}" && pwd)
done
last=${nights[-1]}
: "${out:=$last/report}"
mkdir -p "$out" || die "--out $out: cannot create it"
out=$(cd "$out" && pwd)
((${#nights[@]} <= trend)) || nights=("${nights[@]: -trend}")
plots=$(mktemp -d "$out/plots.XXXXXX")
chmod 755 "$plots"
pdir=${plots##*/}
page=$(mktemp "$out/.index.html.XXXXXX")
work=$(mktemp -d "${TMPDIR:-/tmp}/mmub-report.XXXXXX")
trap 'rm -f "$page"; rm -rf "$work"; [[ -z ${done_ok:-} ]] && rm -rf "$plots"' EXIT

# The nightly's experiments (experiments.conf), in its order, then the
# peer; another folder with a compare.json, or another LABEL/NAME.json,
# is reported after them.  What each measures, for an A/B night and for
# a direct one, and the metric whose trend is drawn (else compare's
# first).
# shellcheck source=ci/manifest.sh
source "$here/manifest.sh"
manifest_load
mapfile -t experiments < <(manifest_default)
experiments+=(peer)
declare -A about=(
	[peer]='x86_64: the kernel&#39;s dirty_log_perf_test (A) beside mmubench dirty-log (B)'
) about_direct=() headline=()
esc() { jq -Rr @html <<<"$1"; }
for x in "${mf_names[@]}"; do
	s=$(manifest_series "$x" 6.1) a=$(manifest_get "$x" about)
	if [[ $a && $s == original ]]; then
		about[$x]=$(esc "$(manifest_get "$x" arch), an A/A run: $a")
	elif [[ $a ]]; then
		about[$x]=$(esc "$(manifest_get "$x" arch), original against ${s//,/ and }: $a")
	fi
	a=$(manifest_get "$x" about_direct)
	[[ -z $a ]] || about_direct[$x]=$(esc "$a")
	a=$(manifest_get "$x" headline)
	[[ -z $a ]] || headline[$x]=$a
done
add_experiment() {
	[[ " ${experiments[*]} " == *" $1 "* ]] || experiments+=("$1")
}
for d in "$last"/*/; do
	d=${d%/}
	if [[ -f $d/compare.json ]]; then
		add_experiment "${d##*/}"
	fi
done

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

# ---- direct nights: LABEL/NAME.json, one kernel each -------------------------

# The labels of a night's direct runs: folders with a NAME.json or a
# peer/compare.json, not an A/B experiment's.
labels_of() { # NIGHT
	local d
	for d in "$1"/*/; do
		d=${d%/}
		[[ ${d##*/} != report && ! -f $d/compare.json ]] || continue
		if [[ -n $(compgen -G "$d/*.json") || -f $d/peer/compare.json ]]; then
			echo "${d##*/}"
		fi
	done
}

# A direct run's metrics are compare's rows of the file against itself:
# the same metrics, rows and per-run values as an A/B night's (side a).
# dcmp[FILE] is that comparison, or dwhy[FILE] why there is none.
declare -A dcmp=() dwhy=()
direct_prepare() { # FILE
	local f=$1 c log
	[[ -z ${dcmp[$f]:-} && -z ${dwhy[$f]:-} ]] || return 0
	[[ -x $mmub ]] ||
		die "$mmub not found (make; or set MMUBENCH): a direct night's metrics come from mmubench compare"
	c=$work/direct-$((${#dcmp[@]} + ${#dwhy[@]})).json
	if ! log=$("$mmub" compare "$f" "$f" --json "$c" 2>&1 >/dev/null); then
		dwhy[$f]="mmubench compare cannot read it: $(head -n 1 <<<"$log")"
	elif ! jq -e '.rows | length > 0' "$c" >/dev/null; then
		dwhy[$f]='no metric of its scenario in it'
	else
		dcmp[$f]=$c
	fi
}
for n in "${nights[@]}"; do
	while IFS= read -r l; do
		for f in "$n/$l"/*.json; do
			[[ -f $f ]] || continue
			direct_prepare "$f"
			[[ $n != "$last" ]] || { x=${f##*/}; add_experiment "${x%.json}"; }
		done
	done < <(labels_of "$n")
done
mapfile -t labels < <(labels_of "$last")

# ---- the A/A noise floor -------------------------------------------------------

# The night's detection curve (tools/resolution.sh, the nightly's step
# resolution): which graded slowdowns of the zap walk compare flags.
curve_section() {
	echo '<h2 id="resolution">Resolution: the detection curve</h2>'
	if [[ ! -f $last/resolution/curve.txt ]]; then
		echo '<p class="missing">No detection curve in this night (ci/nightly --only resolution makes one).</p>'
		return
	fi
	echo '<p>Kernels whose TDP MMU zap walk costs a known fraction more (test/series/6.1/test-slow-zap-walk-N), against the same patch at 0 %: per metric and run count, the change measured, whether both tests flag it at 95 %, and the resolution at that noise (<code>tools/resolution.sh</code>; README.md, &quot;Resolution&quot;).</p>'
	printf '<pre>%s</pre>\n' "$(esc "$(cat "$last/resolution/curve.txt")")"
}

# Each A/A experiment's rows (a compare.json whose two sides are the same
# kernel, as ci/baseline.sh takes them): how far apart the two sides'
# medians are (B/A - 1) and the half-width of the t interval of the
# difference of the means, both in % of A; the floor is the larger.
# EXP METRIC ROW nA nB A-median B-median B/A-1 CI floor, one a line.
noise_rows() { # NIGHT
	local c x
	for c in "$1"/*/compare.json; do
		[[ -f $c ]] || continue
		jq -e '.a.label == .b.label' "$c" >/dev/null || continue
		x=${c%/compare.json} x=${x##*/}
		jq -r --arg x "$x" '.rows[] |
			(if .a.median != null and .a.median != 0 and .b.median != null
			 then (.b.median / .a.median - 1) * 100 else null end) as $d
			| (if .ttest.valid and .a.mean != null and .a.mean != 0
			   then (.ttest.ci_high - .ttest.diff) / (.a.mean | fabs) * 100 else null end) as $ci
			| ([$d, $ci] | map(select(. != null) | fabs) | max) as $f
			| select($f != null)
			| [$x, .metric, (.row // "-"), .a.n, .b.n, .a.median, .b.median, $d, $ci, $f,
			   (if .resolution != null and .resolution.reachable then .resolution.mde_pct else null end)] | @tsv' "$c"
	done
}
noise_rows "$last" >"$work/noise.tsv"

noise_section() {
	echo '<h2 id="noise">Noise floor (A/A)</h2>'
	if [[ ! -s $work/noise.tsv ]]; then
		echo '<p class="missing">No A/A experiment in this night (seed003 is one, in an A/B night; a direct night runs one kernel): no noise floor.</p>'
		return
	fi
	echo '<p>An A/A experiment boots the same kernel on both sides, alternating, as an A/B experiment does: how far apart its two sides come out is the setup&#39;s own noise. Per row: B/A &minus; 1 of the medians, and the half-width of the 95 % t interval of B&minus;A (of the means), in % of A&#39;s mean; the noise floor is the larger of the two. The resolution is the smallest change of the mean that both tests would flag 4 times in 5 at these runs and this noise (compare&#39;s <code>res</code>): a smaller real change can go unseen. The A/B tables below show it beside the same metric and row, or say which A/A rows there are.</p>'
	echo '<table class="noise"><thead><tr><th>experiment</th><th>metric</th><th>row</th><th>nA</th><th>nB</th><th>A median</th><th>B median</th><th>B/A &minus; 1</th><th>95% CI half-width</th><th>noise floor</th><th>resolution</th></tr></thead><tbody>'
	awk -F'\t' '
	function num(x) { return x == "" ? "&ndash;" : (x >= 1000 || x <= -1000) ? sprintf("%.0f", x) : sprintf("%#.4g", x) }
	function pct(x, s) { return x == "" ? "&ndash;" : sprintf(s ? "%+.1f %%" : "&plusmn;%.1f %%", x) }
	function h(s) { gsub(/&/, "\\&amp;", s); gsub(/</, "\\&lt;", s); gsub(/>/, "\\&gt;", s); return s }
	{ printf "<tr><td><a href=\"#%s\">%s</a></td><td>%s</td><td>%s</td><td>%s</td><td>%s</td><td>%s</td><td>%s</td><td>%s</td><td>%s</td><td>%s</td><td>%s</td></tr>\n",
		h($1), h($1), h($2), h($3), $4, $5, num($6), num($7), pct($8, 1), pct($9, 0), pct($10, 0), pct($11, 0) }' \
		"$work/noise.tsv"
	echo '</tbody></table>'
}

# The floors of METRIC's rows in the night's A/A experiments, "ROW<TAB>
# FLOOR" (an A/A experiment's own table shows none: it is the floor).
noise_of() { # METRIC EXP
	awk -F'\t' -v m="$1" -v x="$2" '$2 == m && $1 != x { print $3 "\t" $10 }' "$work/noise.tsv"
}

# Beside an experiment's A/B tables: which A/A rows the night has and the
# range of their floors (a table of the same metric also has a column).
noise_note() { # EXP
	if [[ ! -s $work/noise.tsv ]]; then
		echo '<p class="caption">Noise floor: no A/A experiment in this night.</p>'
	elif awk -F'\t' -v x="$1" '$1 == x { f = 1 } END { exit !f }' "$work/noise.tsv"; then
		echo '<p class="caption">Noise floor: this is an A/A run; its rows are <a href="#noise">the night&#39;s noise floor</a>.</p>'
	else
		awk -F'\t' '
		function h(s) { gsub(/&/, "\\&amp;", s); gsub(/</, "\\&lt;", s); gsub(/>/, "\\&gt;", s); return s }
		!seen[$1 FS $2]++ { what = what (what == "" ? "" : "; ") h($1) ": " h($2) }
		NR == 1 || $10 < lo { lo = $10 } NR == 1 || $10 > hi { hi = $10 }
		END { printf "<p class=\"caption\">Noise floor: <a href=\"#noise\">the night&#39;s A/A rows</a> (%s) have floors of &plusmn;%.1f to &plusmn;%.1f %%; a table of the same metric shows its row&#39;s floor in a column.</p>\n", what, lo, hi }' \
			"$work/noise.tsv"
	fi
}

# Sides of a comparison: 2, or more for an N-way tools/ab.sh --series a,b,...
# ("sides" of compare.json; one median column and one bar each).
nsides() { # COMPARE.json
	jq '(.sides // [.a, .b]) | length' "$1"
}
# Per side, A first: its letter, its bar colour, its points' colour.
letters=ABCDEFGH
colors=('#4c72b0' '#dd8452' '#55a868' '#c44e52' '#8172b3' '#937860' '#da8bc3' '#8c8c8c')
dark=('#1b2f55' '#7a3a10' '#1f4d2b' '#5e1f22' '#3b2f66' '#4a3a2a' '#6b3560' '#444444')

# ---- one metric: its table and its bar chart -------------------------------

# N sides: each side's runs and median, then per side its ratio to A and
# the two verdicts (the intervals are in compare.txt and compare.json).
metric_table_n() { # COMPARE.json METRIC
	jq -r --arg m "$2" '.rows[] | select(.metric == $m) |
		[(.row // "-" | @html), (.sides[] | .n), (.sides[] | .median),
		 (.vs[] | .ratio, .ttest.significant, .mann_whitney.significant,
		  (if .resolution != null and .resolution.reachable then .resolution.mde_pct else null end))] | @tsv' "$1" |
	awk -F'\t' -v n="$(nsides "$1")" -v L="$letters" '
	function num(x) { return x == "" ? "&ndash;" : (x >= 1000 || x <= -1000) ? sprintf("%.0f", x) : sprintf("%#.4g", x) }
	function res(x) { return x == "" ? "&ndash;" : sprintf("&plusmn;%.1f %%", x) }
	function yn(x) { return x == "true" ? "yes" : x == "false" ? "no" : "&ndash;" }
	BEGIN {
		printf "<table>\n<thead><tr><th>row</th>"
		for (i = 1; i <= n; i++) printf "<th>n%s</th>", substr(L, i, 1)
		for (i = 1; i <= n; i++) printf "<th>%s median</th>", substr(L, i, 1)
		for (i = 2; i <= n; i++) printf "<th>%s/A</th><th>t</th><th>MW</th><th>res</th>", substr(L, i, 1)
		print "</tr></thead><tbody>"
	}
	{
		sig = 0
		for (i = 2; i <= n; i++) {
			k = 2 + 2 * n + 4 * (i - 2)
			if ($(k + 1) == "true" && $(k + 2) == "true") sig = 1
		}
		printf "<tr%s><td>%s</td>", sig ? " class=\"sig\"" : "", $1
		for (i = 1; i <= n; i++) printf "<td>%s</td>", $(1 + i) == "" ? "&ndash;" : $(1 + i)
		for (i = 1; i <= n; i++) printf "<td>%s</td>", num($(1 + n + i))
		for (i = 2; i <= n; i++) {
			k = 2 + 2 * n + 4 * (i - 2)
			printf "<td>%s</td><td>%s</td><td>%s</td><td>%s</td>", $k == "" ? "&ndash;" : sprintf("%.3f", $k),
				yn($(k + 1)), yn($(k + 2)), res($(k + 3))
		}
		print "</tr>"
	}
	END { print "</tbody></table>" }'
}

metric_table() { # COMPARE.json METRIC [NOISE: "ROW<TAB>FLOOR" lines]
	(($(nsides "$1") == 2)) || { metric_table_n "$1" "$2"; return; }
	jq -r --arg m "$2" '.rows[] | select(.metric == $m) |
		[(.row // "-" | @html), .a.n, .b.n, .a.median, .b.median, .ratio,
		 (if .ttest.valid then .ttest.diff else null end),
		 (if .ttest.valid then .ttest.ci_high - .ttest.diff else null end),
		 .ttest.diff_pct, .ttest.significant, .mann_whitney.p,
		 .mann_whitney.significant, (.row // "-"),
		 (if .resolution != null and .resolution.reachable then .resolution.mde_pct else null end)] | @tsv' "$1" |
	awk -F'\t' -v noise="${3:-}" '
	function num(x) { return x == "" ? "&ndash;" : (x >= 1000 || x <= -1000) ? sprintf("%.0f", x) : sprintf("%#.4g", x) }
	function yn(x) { return x == "true" ? "yes" : x == "false" ? "no" : "&ndash;" }
	BEGIN {
		n = split(noise, l, "\n")
		for (i = 1; i <= n; i++) if (split(l[i], kv, "\t") == 2) floor[kv[1]] = kv[2]
		print "<table>"
		printf "<thead><tr><th>row</th><th>nA</th><th>nB</th><th>A median</th><th>B median</th><th>B/A</th><th>B&minus;A mean &plusmn; 95%% CI (%% of A)</th><th>t</th><th>MW p</th><th>MW</th><th>res</th>%s</tr></thead><tbody>\n",
			n ? "<th>A/A noise floor</th>" : ""
	}
	{
		ci = $7 == "" ? "&ndash;" : num($7) " &plusmn; " num($8) ($9 == "" ? "" : sprintf(" (%+.1f%%)", $9))
		nf = !n ? "" : "<td>" (($13 in floor) ? sprintf("&plusmn;%.1f %%", floor[$13]) : "&ndash;") "</td>"
		printf "<tr%s><td>%s</td><td>%s</td><td>%s</td><td>%s</td><td>%s</td><td>%s</td><td>%s</td><td>%s</td><td>%s</td><td>%s</td><td>%s</td>%s</tr>\n",
			($10 == "true" && $12 == "true") ? " class=\"sig\"" : "",
			$1, $2, $3, num($4), num($5), $6 == "" ? "&ndash;" : sprintf("%.3f", $6),
			ci, yn($10), $11 == "" ? "&ndash;" : sprintf("%.3f", $11), yn($12),
			$14 == "" ? "&ndash;" : sprintf("&plusmn;%.1f %%", $14), nf
	}
	END { print "</tbody></table>" }'
}

# One kernel's rows: the runs' median, mean, range and spread.
direct_table() { # COMPARE.json METRIC
	jq -r --arg m "$2" '.rows[] | select(.metric == $m) |
		[(.row // "-" | @html), .a.n, .a.median, .a.mean, .a.min, .a.max, .a.stddev] | @tsv' "$1" |
	awk -F'\t' '
	function num(x) { return x == "" ? "&ndash;" : (x >= 1000 || x <= -1000) ? sprintf("%.0f", x) : sprintf("%#.4g", x) }
	BEGIN {
		print "<table>"
		print "<thead><tr><th>row</th><th>n</th><th>median</th><th>mean</th><th>min</th><th>max</th><th>stddev (% of mean)</th></tr></thead><tbody>"
	}
	{
		sd = $7 == "" ? "&ndash;" : num($7) ($4 != "" && $4 != 0 ? sprintf(" (%.1f%%)", 100 * $7 / ($4 < 0 ? -$4 : $4)) : "")
		printf "<tr><td>%s</td><td>%s</td><td>%s</td><td>%s</td><td>%s</td><td>%s</td><td>%s</td></tr>\n",
			$1, $2, num($3), num($4), num($5), num($6), sd
	}
	END { print "</tbody></table>" }'
}

# The bar charts' frame: one group of boxes per row, the metric's name on top.
bars_svg() { # FILE METRIC BOXWIDTH NROWS PLOT SIZE
	gnuplot_svg "$1" "set datafile separator '\t'
set title $(gpq "$2")
set style fill solid 0.45 border -1
set boxwidth $3
set xrange [-0.6:$4-0.4]
set yrange [0:*]
set grid ytics lc rgb '#dddddd'
set key outside bottom center horizontal
set xtics nomirror $([[ $4 -gt 4 ]] && echo 'rotate by -25')
set offsets 0, 0, graph 0.05, 0
plot $5" "$6"
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
	bars_svg "$name" "$m" "$(echo "$w * 0.95" | bc -l)" "$nrows" \
		"$(IFS=,; echo "${plot[*]}")" "$width,360"
	rm -f "$d".bars "$d".pts*
}

# Bars: each side's median per row (SIDES "ab"), or one kernel's ("a");
# every run's value a point spread across its bar.
bar_chart() { # COMPARE.json METRIC FILE [SIDES [LABEL]]
	local cmp=$1 m=$2 name=$3 sides=${4:-ab} d=$plots/$3 la lb nrows width plot
	[[ $sides == a ]] || (($(nsides "$cmp") == 2)) || { bar_chart_n "$cmp" "$m" "$name"; return; }
	jq -r --arg m "$m" '[.rows[] | select(.metric == $m)] | to_entries[] |
		[.key, (.value.row // "-"), (.value.a.median // "NaN"), (.value.b.median // "NaN")] | @tsv' \
		"$cmp" >"$d.bars"
	jq -r --arg m "$m" --arg s "$sides" '[.rows[] | select(.metric == $m)] | to_entries[] | .key as $i |
		(if $s == "a" then 0 else -0.2 end) as $oa |
		(.value.a.values // [] | length as $n | to_entries[] | select(.value != null) |
		 [$i + $oa + ((.key + 0.5) / $n - 0.5) * 0.26, .value, "A"]),
		(if $s == "a" then empty else
		 .value.b.values // [] | length as $n | to_entries[] | select(.value != null) |
		 [$i + 0.2 + ((.key + 0.5) / $n - 0.5) * 0.26, .value, "B"] end) | @tsv' \
		"$cmp" >"$d.pts"
	awk -F'\t' '$3 == "A"' "$d.pts" >"$d.ptsA"
	awk -F'\t' '$3 == "B"' "$d.pts" >"$d.ptsB"
	nrows=$(wc -l <"$d.bars")
	width=$((nrows * 110 + 260))
	((width >= 520)) || width=520
	((width <= 1100)) || width=1100
	if [[ $sides == a ]]; then
		la=${5:-median}
		plot="$(gpq "$d.bars") using 1:3:xtic(2) with boxes lc rgb '${colors[0]}' title $(gpq "median: $la"), \\
     $(gpq "$d.ptsA") using 1:2 with points pt 7 ps 0.7 lc rgb '${dark[0]}' title 'runs'"
	else
		la=$(jq -r '.a.label // "A"' "$cmp") lb=$(jq -r '.b.label // "B"' "$cmp")
		plot="$(gpq "$d.bars") using (\$1-0.2):3:xtic(2) with boxes lc rgb '${colors[0]}' title $(gpq "A: $la"), \\
     $(gpq "$d.bars") using (\$1+0.2):4 with boxes lc rgb '${colors[1]}' title $(gpq "B: $lb"), \\
     $(gpq "$d.ptsA") using 1:2 with points pt 7 ps 0.7 lc rgb '${dark[0]}' title 'A runs', \\
     $(gpq "$d.ptsB") using 1:2 with points pt 5 ps 0.7 lc rgb '${dark[1]}' title 'B runs'"
	fi
	bars_svg "$name" "$m" "$([[ $sides == a ]] && echo 0.5 || echo 0.38)" "$nrows" \
		"$plot" "$width,340"
	rm -f "$d".{bars,pts,ptsA,ptsB}
}

# ---- the latency percentiles per pass --------------------------------------

# FILES -> "index name runs p50 lo hi p99 lo hi p999 lo hi", in us:
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

# One side (a direct run) or more (A, B, ...), each "NAME LABEL GLOB":
# the side's name in the key (none with one side), its label, its run
# files; the sides told apart by point and dash type.
latency_chart() { # FILE NAME LABEL GLOB [NAME LABEL GLOB]... -> 0 when drawn
	local name=$1 d=$plots/$1 s=0 k files names=() labels=() plot=() off pt dt t caption=''
	local marks=(7 6 5 4 9 8 13 12)
	shift
	while (($# >= 3)); do
		mapfile -t files < <(compgen -G "$3")
		((${#files[@]})) || { rm -f "$d".[0-9]; return 1; }
		latency_data "${files[@]}" >"$d.$s"
		[[ -s $d.$s ]] || { rm -f "$d".[0-9]; return 1; }
		names+=("$1") labels+=("$2") s=$((s + 1))
		shift 3
	done
	for ((k = 0; k < s; k++)); do
		off=+0 pt=${marks[k]} dt=$((k + 1)) t=''
		if ((s > 1)); then
			off=$(printf '%+.2f' "$(echo "($k - ($s - 1) / 2) * 0.12" | bc -l)")
			t=" ${names[k]}"
		fi
		plot+=("$(gpq "$d.$k") using (\$1$off):4:5:6 with yerrorlines lc rgb '#2a7ab0' pt $pt dt $dt title 'p50$t'"
		       "$(gpq "$d.$k") using (\$1$off):7:8:9 with yerrorlines lc rgb '#d9822b' pt $pt dt $dt title 'p99$t'"
		       "$(gpq "$d.$k") using (\$1$off):10:11:12 with yerrorlines lc rgb '#b03a2e' pt $pt dt $dt title 'p99.9$t'")
	done
	gnuplot_svg "$name" "set datafile separator '\t'
set title 'latency per pass: median over the runs of the slowest vCPU (bars: min to max of the runs)'
set logscale y
set ylabel 'us (log)'
set grid ytics lc rgb '#dddddd'
set key outside right top
set xtics ($(awk -F'\t' '{ printf "%s\"%s\" %d", (NR > 1 ? ", " : ""), $2, $1 }' "$d.0"))
set xrange [-0.5:$(wc -l <"$d.0")-0.5]
plot $(IFS=,; echo "${plot[*]}")" "$((s > 2 ? 820 : 760)),$((s > 2 ? 380 : 360))"
	if ((s == 1)); then
		printf '<p class="caption">%s; %s runs.</p>\n' "$(esc "${labels[0]}")" \
			"$(awk -F'\t' 'NR == 1 { print $3 }' "$d.0")"
	elif ((s == 2)); then
		printf '<p class="caption">A = %s, B = %s; %s runs a side.</p>\n' "$(esc "${labels[0]}")" "$(esc "${labels[1]}")" \
			"$(awk -F'\t' 'NR == 1 { print $3 }' "$d.0") and $(awk -F'\t' 'NR == 1 { print $3 }' "$d.1")"
	else
		for ((k = 0; k < s; k++)); do
			caption+="${caption:+, }${names[k]} = ${labels[k]} ($(awk -F'\t' 'NR == 1 { print $3 }' "$d.$k") runs)"
		done
		printf '<p class="caption">%s.</p>\n' "$(esc "$caption")"
	fi
	rm -f "$d".[0-9]
}

# ---- the trend of the headline metric -----------------------------------

# POINTS: one line per point on the x axis, "TIC<TAB>COMPARE.json" (a
# file that does not exist leaves the point empty).  NSIDES 1: one
# kernel's medians per row (side a); 2 or more: each side's, A solid, B
# dashed, C ... the next dash types (a point with fewer sides leaves the
# others out).
trend_chart() { # FILE METRIC NSIDES POINTS TITLE -> 0 when drawn (two points with data or more)
	local name=$1 m=$2 ns=$3 d=$plots/$1 i=0 have=0 rows r plot=() c=0 xt='' logy='' tic f k
	local marks=(7 6 5 4 9 8 13 12)
	: >"$d.tsv"
	while IFS=$'\t' read -r tic f; do
		xt+="${xt:+, }\"${tic//\"/}\" $i"
		if [[ -f $f ]]; then
			have=$((have + 1))
			jq -r --arg m "$m" --argjson i "$i" --argjson ns "$ns" '.rows[] |
				select(.metric == $m) | [(.sides // [.a, .b])[] | .median // "NaN"] as $v |
				[$i, (.row // "-")] + [range(0; $ns) | $v[.] // "NaN"] | @tsv' \
				"$f" >>"$d.tsv"
		fi
		i=$((i + 1))
	done <"$4"
	((have >= 2)) || { rm -f "$d.tsv"; return 1; }
	mapfile -t rows < <(cut -f2 "$d.tsv" | awk '!seen[$0]++')
	for r in "${rows[@]}"; do
		awk -F'\t' -v r="$r" '$2 == r' "$d.tsv" >"$d.$c"
		if ((ns == 1)); then
			plot+=("$(gpq "$d.$c") using 1:3 with linespoints lc rgb '${colors[c % 8]}' pt 7 dt 1 title $(gpq "$r")")
		else
			for ((k = 0; k < ns; k++)); do
				plot+=("$(gpq "$d.$c") using 1:$((k + 3)) with linespoints lc rgb '${colors[c % 8]}' pt ${marks[k]} dt $((k + 1)) title $(gpq "$r ${letters:k:1}")")
			done
		fi
		c=$((c + 1))
	done
	# A log axis when every median is positive and they span 20x or more.
	awk -F'\t' 'BEGIN { lo = 1e300; hi = 0 }
		{ for (k = 3; k <= NF; k++) { if ($k == "NaN") continue; if ($k <= 0) exit 1
		  if ($k < lo) lo = $k; if ($k > hi) hi = $k } }
		END { exit !(hi > 0 && hi / lo >= 20) }' "$d.tsv" && logy='set logscale y'
	gnuplot_svg "$name" "set datafile separator '\t'
set title $(gpq "$5")
$logy
set grid ytics lc rgb '#dddddd'
set key outside right top
set xtics ($xt) rotate by -25
set xrange [-0.3:$((i - 1)).3]
$([[ $logy ]] || echo 'set yrange [0:*]')
plot $(IFS=,; echo "${plot[*]}")" "$((ns > 2 ? 900 : 860)),$((ns > 2 ? 400 : 380))"
	rm -f "$d".*[0-9] "$d.tsv"
}

# ---- the environment -----------------------------------------------------

# A side's row: from its first run's env, or else what compare.json
# says of side INDEX (0 = A).
env_run_row() { # EXP SIDE FILE
	jq -r --arg x "$1" --arg s "$2" '.env |
		[$x, $s, .arch, .kernel, .mmu, .cpu_model, .mmubench_version] |
		map(. // "-" | tostring | @html) |
		"<tr><td>" + join("</td><td>") + "</td></tr>"' "$3"
}
env_compare_row() { # EXP SIDE COMPARE.json INDEX
	jq -r --arg x "$1" --arg s "$2" --argjson i "$4" '(.sides // [.a, .b])[$i] as $d |
		[$x, $s, "-", $d.kernel, $d.mmu, "-", "- (no run JSON)"] |
		map(. // "-" | tostring | @html) |
		"<tr><td>" + join("</td><td>") + "</td></tr>"' "$3"
}

# N sides: each side's first run, else what compare.json says of it.
env_rows_n() { # EXP EXPDIR [SIDE-PREFIX]
	local x=$1 e=$2 p=${3:-} i s f label
	for ((i = 0; i < $(nsides "$e/compare.json"); i++)); do
		s=${letters:i:1}
		label=$(jq -r --argjson i "$i" '.sides[$i].label' "$e/compare.json")
		f=$e/runs/$s-1.json
		if [[ -f $f ]]; then
			env_run_row "$x" "$p$s: $label" "$f"
		else
			env_compare_row "$x" "$p$s: $label" "$e/compare.json" "$i"
		fi
	done
}

env_rows() { # EXP EXPDIR [SIDE-PREFIX]
	local x=$1 e=$2 p=${3:-} s f label
	(($(nsides "$e/compare.json") == 2)) || { env_rows_n "$@"; return; }
	for s in a b; do
		label=$(jq -r --arg s "$s" '.[$s].label // ($s | ascii_upcase)' "$e/compare.json")
		f=''
		for f in "$e/runs/${s^^}-1.json" "$e/runs/mmubench-1.json" ''; do
			[[ -z $f || -f $f ]] && break
		done
		[[ $s == b || $f != */mmubench-1.json ]] || f=''
		if [[ $f ]]; then
			env_run_row "$x" "$p${s^^}: $label" "$f"
		else
			env_compare_row "$x" "$p${s^^}: $label" "$e/compare.json" "$([[ $s == a ]] && echo 0 || echo 1)"
		fi
	done
}

direct_env_row() { # EXP LABEL FILE
	env_run_row "$1" "$2 (direct)" "$3"
}

headline_of() { # EXP COMPARE.json: the metric whose trend is drawn
	local m=${headline[$1]:-}
	if [[ -z $m ]] || ! metrics_of "$2" | grep -qxF -- "$m"; then
		m=$(metrics_of "$2" | head -n 1)
	fi
	printf '%s\n' "$m"
}

# ---- the sections ---------------------------------------------------------

# An A/B comparison (tools/ab.sh's folder, or a direct night's peer): its
# tables with the noise floor, bars, latency, trend, compare's output.
# POINTS as trend_chart's.
ab_section() { # EXP EXPDIR ID TITLE POINTS
	local x=$1 e=$2 id=$3 mi=0 m nf ns i s lat=() what globs=''
	ns=$(nsides "$e/compare.json")
	printf '<h2 id="%s">%s</h2>\n' "$(esc "$id")" "$(esc "$4")"
	[[ -z ${about[$x]:-} ]] || printf '<p>%s</p>\n' "${about[$x]}"
	jq -r 'if (.sides // [] | length) > 2 then
		"<p>" + ([.sides | to_entries[] | "\("ABCDEFGH"[.key:.key + 1]) = \(.value.label | @html) (\(.value.runs) runs)"] |
		join(", ")) + ", scenario \(.scenario | @html); B, C, ... each against A.</p>"
	else "<p>A = \(.a.label | @html) (\(.a.runs) runs), B = \(.b.label | @html) (\(.b.runs) runs), scenario \(.scenario | @html).</p>" end' "$e/compare.json"
	[[ ! -f $e/command.txt ]] || printf '<p class="caption">command: <code>%s</code></p>\n' "$(esc "$(cat "$e/command.txt")")"
	jq -r '.notes[]? | "<p class=\"caption\">note: \(@html)</p>"' "$e/compare.json"
	noise_note "$x"
	what="A and B medians"
	((ns == 2)) || what="each side's medians"
	while IFS= read -r m; do
		mi=$((mi + 1))
		printf '<h3>%s</h3>\n' "$(esc "$m")"
		nf=$(noise_of "$m" "$x")
		metric_table "$e/compare.json" "$m" "$nf"
		bar_chart "$e/compare.json" "$m" "$id-bars-$mi.svg"
		img "$id-bars-$mi.svg" "$x $m: $what, every run"
	done < <(metrics_of "$e/compare.json")
	echo "<h3>Latency per pass</h3>"
	for ((i = 0; i < ns; i++)); do
		s=${letters:i:1}
		lat+=("$s" "$(jq -r --argjson i "$i" '(.sides // [.a, .b])[$i].label // "'"$s"'"' "$e/compare.json")" "$e/runs/$s-*.json")
		globs+="${globs:+ and }runs/$s-*.json"
	done
	if latency_chart "$id-latency.svg" "${lat[@]}" >"$work/caption"; then
		img "$id-latency.svg" "$x: latency p50, p99, p99.9 per pass"
		cat "$work/caption"
	else
		printf '<p class="missing">No per-pass latency percentiles in this experiment&#39;s %s.</p>\n' "$globs"
	fi
	m=$(headline_of "$x" "$e/compare.json")
	printf '<h3>Trend: %s</h3>\n' "$(esc "$m")"
	what="median of A (solid) and B (dashed) per row"
	((ns == 2)) || what="median of each side per row (A solid, B dashed, C ... dash types 3 on)"
	if trend_chart "$id-trend.svg" "$m" "$ns" "$5" "$m over the nights: $what"; then
		img "$id-trend.svg" "$x $m over the nights"
	else
		printf '<p class="missing">No trend: %s is in only one of the %d night(s) given.</p>\n' "$x" "${#nights[@]}"
	fi
	printf '<details><summary>mmubench compare&#39;s output</summary>\n<pre>%s</pre>\n</details>\n' \
		"$(esc "$(cat "$e/compare.txt" 2>/dev/null || echo "(no compare.txt)")")"
}

# One kernel's runs of an experiment (ci/nightly --direct LABEL): per
# metric the runs' table and bars, latency, and the headline metric over
# every night and label given.
direct_section() { # EXP LABEL FILE ID
	local x=$1 label=$2 f=$3 id=$4 c=${dcmp[$3]} mi=0 m n l pts=$work/points
	printf '<h2 id="%s">%s on %s</h2>\n' "$(esc "$id")" "$(esc "$x")" "$(esc "$label")"
	[[ -z ${about_direct[$x]:-} ]] || printf '<p>%s</p>\n' "${about_direct[$x]}"
	jq -r --arg l "$label" --arg f "$label/$x.json" \
		'"<p>\($l | @html): kernel \(.env.kernel // "-" | @html), MMU \(.env.mmu // "-" | @html), scenario \(.scenario | @html), --repeat \(.config.repeat // 1) (<code>\($f | @html)</code>); every run one sample, as in an A/B night, but of one kernel: compare two labels with <code>mmubench compare --runs</code>.</p>"' "$f"
	jq -r '"<details><summary>its config</summary><pre>\(.config | tojson | @html)</pre></details>"' "$f"
	jq -r '.notes[]? | select(test("Mann-Whitney|t-test") | not) | "<p class=\"caption\">note: \(@html)</p>"' "$c"
	while IFS= read -r m; do
		mi=$((mi + 1))
		printf '<h3>%s</h3>\n' "$(esc "$m")"
		direct_table "$c" "$m"
		bar_chart "$c" "$m" "$id-bars-$mi.svg" a "$label"
		img "$id-bars-$mi.svg" "$x $m on $label: median, every run"
	done < <(metrics_of "$c")
	echo "<h3>Latency per pass</h3>"
	if latency_chart "$id-latency.svg" '' "$label" "$f" >"$work/caption"; then
		img "$id-latency.svg" "$x on $label: latency p50, p99, p99.9 per pass"
		cat "$work/caption"
	else
		printf '<p class="missing">No per-pass latency percentiles in %s.</p>\n' "$(esc "$label/$x.json")"
	fi
	m=$(headline_of "$x" "$c")
	printf '<h3>Trend: %s</h3>\n' "$(esc "$m")"
	: >"$pts"
	for n in "${nights[@]}"; do
		n=$(cd "$n" && pwd)
		while IFS= read -r l; do
			[[ -n ${dcmp[$n/$l/$x.json]:-} ]] || continue
			printf '%s/%s\t%s\n' "${n##*/}" "$l" "${dcmp[$n/$l/$x.json]}" >>"$pts"
		done < <(labels_of "$n")
	done
	if trend_chart "$id-trend.svg" "$m" 1 "$pts" "$m over the direct runs (night/label): median per row"; then
		img "$id-trend.svg" "$x $m over the direct runs"
	else
		printf '<p class="missing">No trend: %s has one direct run in the %d night(s) given; two or more nights or labels make one.</p>\n' \
			"$x" "${#nights[@]}"
	fi
}

# ---- the page -----------------------------------------------------------------

# What A, B and a label are: the first paragraph.
intro() {
	local l labs='' ab=0 d
	for l in "${labels[@]}"; do labs+="<code>$(esc "$l")</code> "; done
	for d in "$last"/*/compare.json; do [[ ! -f $d ]] || ab=$((ab + 1)); done
	if ((ab)) || [[ -z $labs ]]; then
		echo 'A is the original kernel, B the patched one (tools/ab.sh; with several series B, C, ...,'
		echo 'each against A); a row is green when both Student&#39;s t and Mann-Whitney find a'
		echo 'difference at 95 % (with several series: for one of them at least).'
		[[ -z $labs ]] || echo "Direct runs too (ci/nightly --direct): $labs"
	else
		echo "A direct night (ci/nightly --direct): each experiment ran on the kernel the machine booted, named by its label: $labs(one kernel, no A/B: compare two labels with <code>mmubench compare --runs</code>)."
	fi
}

{
	name=$last
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
.noise td:nth-child(-n+3), .noise th:nth-child(-n+3) { text-align: left; }
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
$(for n in "${nights[@]}"; do printf '<code>%s</code> ' "$(esc "${n##*/}")"; done).
Made by <code>ci/report.sh</code> on $(date -u '+%Y-%m-%d %H:%M UTC').
$(intro)</p>
<h2 id="summary">Experiments</h2>
<ul>
EOF
	reported=0 missing=0
	for x in "${experiments[@]}"; do
		st=$(step_status "$last" "$x")
		items=()
		if [[ -f $last/$x/compare.json ]]; then
			items+=("$(printf '<a href="#%s">%s</a>: %s rows, %s' "$x" "$x" \
				"$(jq '.rows | length' "$last/$x/compare.json")" \
				"$(jq -r 'if (.sides // [] | length) > 2 then
					"against A, " + ([range(1; .sides | length) as $i |
					"\("ABCDEFGH"[$i:$i + 1]): \([.rows[] | select(.vs[$i - 1] |
					.ttest.significant and .mann_whitney.significant)] | length)"] |
					join(", ")) + " differ at 95 % by both tests"
				else "\([.rows[] | select(.ttest.significant and .mann_whitney.significant)] | length) differ at 95 % by both tests" end' "$last/$x/compare.json")")")
		fi
		for l in "${labels[@]}"; do
			f=$last/$l/$x.json
			if [[ $x == peer && -f $last/$l/peer/compare.json ]]; then
				items+=("$(printf '<a href="#peer-%s">peer on %s</a>: %s rows, %s' "$(esc "$l")" "$(esc "$l")" \
					"$(jq '.rows | length' "$last/$l/peer/compare.json")" \
					"$(jq -r '"\([.rows[] | select(.ttest.significant and .mann_whitney.significant)] | length) differ at 95 % by both tests"' "$last/$l/peer/compare.json")")")
			elif [[ -n ${dcmp[$f]:-} ]]; then
				items+=("$(printf '<a href="#%s-%s">%s on %s</a>: %s rows, --repeat %s' "$x" "$(esc "$l")" "$x" "$(esc "$l")" \
					"$(jq '.rows | length' "${dcmp[$f]}")" "$(jq '.config.repeat // 1' "$f")")")
			elif [[ -n ${dwhy[$f]:-} ]]; then
				items+=("$(printf '<span class="missing">%s on %s: %s</span>' "$x" "$(esc "$l")" "$(esc "$l/$x.json: ${dwhy[$f]}")")")
			fi
		done
		joined=''
		for it in "${items[@]}"; do joined+="${joined:+; }$it"; done
		if [[ $joined == *'<a href'* ]]; then
			reported=$((reported + 1))
			printf '<li>%s%s</li>\n' "$joined" \
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
			((${#labels[@]} == 0)) || case $st in
				ok) why="its step passed but left no LABEL/$x.json" ;;
				ran) why="its step ran but left no LABEL/$x.json (failed?)" ;;
			esac
			printf '<li class="missing" id="%s">%s: missing: %s' "$x" "$x" "$(esc "$why")"
			[[ -z $joined ]] || printf '; %s' "$joined"
			if [[ -s $last/$x.log ]]; then
				printf '<details><summary>the end of %s.log</summary><pre>%s</pre></details>' \
					"$x" "$(esc "$(tail -n 15 "$last/$x.log")")"
			fi
			echo '</li>'
		fi
	done
	echo "</ul>"
	printf '<p>%d of %d experiments reported, %d missing.</p>\n' "$reported" "${#experiments[@]}" "$missing"

	noise_section
	curve_section

	envs=''
	for x in "${experiments[@]}"; do
		e=$last/$x
		if [[ -f $e/compare.json ]]; then
			: >"$work/points"
			for n in "${nights[@]}"; do
				printf '%s\t%s\n' "${n##*/}" "$n/$x/compare.json" >>"$work/points"
			done
			ab_section "$x" "$e" "$x" "$x" "$work/points"
			envs+=$(env_rows "$x" "$e")$'\n'
		fi
		for l in "${labels[@]}"; do
			f=$last/$l/$x.json
			if [[ $x == peer && -f $last/$l/peer/compare.json ]]; then
				: >"$work/points"
				for n in "${nights[@]}"; do
					while IFS= read -r l2; do
						[[ ! -f $n/$l2/peer/compare.json ]] ||
							printf '%s/%s\t%s\n' "${n##*/}" "$l2" "$n/$l2/peer/compare.json" >>"$work/points"
					done < <(labels_of "$n")
				done
				ab_section peer "$last/$l/peer" "peer-$l" "peer on $l" "$work/points"
				envs+=$(env_rows peer "$last/$l/peer" "$l: ")$'\n'
			elif [[ -n ${dcmp[$f]:-} ]]; then
				direct_section "$x" "$l" "$f" "$x-$l"
				envs+=$(direct_env_row "$x" "$l" "$f")$'\n'
			fi
		done
	done

	echo '<h2 id="environment">Environment</h2>'
	echo '<p>What each side&#39;s first run reports (its <code>env</code>), or a direct run&#39;s: nested runs report the L1 kernel they booted.</p>'
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
