# shellcheck shell=bash
# SPDX-License-Identifier: GPL-2.0
#
# The page's sections, as HTML on stdout, in the order of the page:
# its head, the summary, the noise floor, the detection curve, a section
# per comparison (ab_section) and per direct run (direct_section), the
# environment and the nightly's steps.  Their figures come from
# report.jq (rjq); the tables' numbers are formatted by awk.  Sourced by
# report.sh, which sets last, nights, labels, experiments, about,
# about_direct, headline, dcmp, dwhy, work, pdir and repo; the sections
# add each side's environment row to $work/env, and summary_section sets
# reported and missing.
# shellcheck disable=SC2154,SC2016 # those globals, set before use; jq's $args in rjq's filters

img() { # FILE ALT
	printf '<figure><img src="%s/%s" alt="%s"></figure>\n' "$pdir" "$1" "$(esc "$2")"
}

# The awk the tables share: a number as the page prints it (whole from
# 1000 on, else 4 significant digits), a verdict, a percentage (signed;
# "plus or minus") and an HTML escape; "" is a dash.
awk_fmt='
function num(x) { return x == "" ? "&ndash;" : (x >= 1000 || x <= -1000) ? sprintf("%.0f", x) : sprintf("%#.4g", x) }
function yn(x) { return x == "true" ? "yes" : x == "false" ? "no" : "&ndash;" }
function pct(x) { return x == "" ? "&ndash;" : sprintf("%+.1f %%", x) }
function pm(x) { return x == "" ? "&ndash;" : sprintf("&plusmn;%.1f %%", x) }
function h(s) { gsub(/&/, "\\&amp;", s); gsub(/</, "\\&lt;", s); gsub(/>/, "\\&gt;", s); return s }
'

# ---- the head and the summary --------------------------------------------------

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

# The page's head and style, the night, the nights of the trends, and
# the first paragraph.
page_head() {
	local name=$last n
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
Made by <code>ci/report/report.sh</code> on $(date -u '+%Y-%m-%d %H:%M UTC').
$(intro)</p>
EOF
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

# Why EXP has no section: the step's verdict in words, then the end of
# its log.  ITEMS: what the night has of it all the same (a direct run
# compare cannot read).
missing_item() { # EXP STATUS ITEMS
	local x=$1 st=$2 why
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
	[[ -z $3 ]] || printf '; %s' "$3"
	if [[ -s $last/$x.log ]]; then
		printf '<details><summary>the end of %s.log</summary><pre>%s</pre></details>' \
			"$x" "$(esc "$(tail -n 15 "$last/$x.log")")"
	fi
	echo '</li>'
}

# Each experiment, a line: its comparison's and direct runs' rows and
# how many differ, or why it is missing.  Counts them in reported and
# missing.
summary_section() {
	local x st items it joined l f
	echo '<h2 id="summary">Experiments</h2>'
	echo '<ul>'
	reported=0 missing=0
	for x in "${experiments[@]}"; do
		st=$(step_status "$last" "$x")
		items=()
		if [[ -f $last/$x/compare.json ]]; then
			items+=("$(printf '<a href="#%s">%s</a>: %s' "$x" "$x" "$(rjq summary -r "$last/$x/compare.json")")")
		fi
		for l in "${labels[@]}"; do
			f=$last/$l/$x.json
			if [[ $x == peer && -f $last/$l/peer/compare.json ]]; then
				items+=("$(printf '<a href="#peer-%s">peer on %s</a>: %s' "$(esc "$l")" "$(esc "$l")" \
					"$(rjq summary_2 -r "$last/$l/peer/compare.json")")")
			elif [[ -n ${dcmp[$f]:-} ]]; then
				items+=("$(printf '<a href="#%s-%s">%s on %s</a>: %s rows, --repeat %s' "$x" "$(esc "$l")" "$x" "$(esc "$l")" \
					"$(rjq nrows "${dcmp[$f]}")" "$(rjq repeat "$f")")")
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
			missing_item "$x" "$st" "$joined"
		fi
	done
	echo "</ul>"
	printf '<p>%d of %d experiments reported, %d missing.</p>\n' "$reported" "${#experiments[@]}" "$missing"
}

# ---- the A/A noise floor and the detection curve ----------------------------------

# Each A/A experiment's rows (report.jq's noise_rows): EXP METRIC ROW nA
# nB A-median B-median B/A-1 CI floor resolution, one a line.
noise_rows() { # NIGHT
	local c x
	for c in "$1"/*/compare.json; do
		[[ -f $c ]] || continue
		x=${c%/compare.json} x=${x##*/}
		rjq 'noise_rows($x)' -r --arg x "$x" "$c"
	done
}

noise_section() {
	echo '<h2 id="noise">Noise floor (A/A)</h2>'
	if [[ ! -s $work/noise.tsv ]]; then
		echo '<p class="missing">No A/A experiment in this night (seed003 is one, in an A/B night; a direct night runs one kernel): no noise floor.</p>'
		return
	fi
	echo '<p>An A/A experiment boots the same kernel on both sides, alternating, as an A/B experiment does: how far apart its two sides come out is the setup&#39;s own noise. Per row: B/A &minus; 1 of the medians, and the half-width of the 95 % t interval of B&minus;A (of the means), in % of A&#39;s mean; the noise floor is the larger of the two. The resolution is the smallest change of the mean that both tests would flag 4 times in 5 at these runs and this noise (compare&#39;s <code>res</code>): a smaller real change can go unseen. The A/B tables below show it beside the same metric and row, or say which A/A rows there are.</p>'
	echo '<table class="noise"><thead><tr><th>experiment</th><th>metric</th><th>row</th><th>nA</th><th>nB</th><th>A median</th><th>B median</th><th>B/A &minus; 1</th><th>95% CI half-width</th><th>noise floor</th><th>resolution</th></tr></thead><tbody>'
	awk -F'\t' "$awk_fmt"'
	{ printf "<tr><td><a href=\"#%s\">%s</a></td><td>%s</td><td>%s</td><td>%s</td><td>%s</td><td>%s</td><td>%s</td><td>%s</td><td>%s</td><td>%s</td><td>%s</td></tr>\n",
		h($1), h($1), h($2), h($3), $4, $5, num($6), num($7), pct($8), pm($9), pm($10), pm($11) }' \
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
		awk -F'\t' "$awk_fmt"'
		!seen[$1 FS $2]++ { what = what (what == "" ? "" : "; ") h($1) ": " h($2) }
		NR == 1 || $10 < lo { lo = $10 } NR == 1 || $10 > hi { hi = $10 }
		END { printf "<p class=\"caption\">Noise floor: <a href=\"#noise\">the night&#39;s A/A rows</a> (%s) have floors of &plusmn;%.1f to &plusmn;%.1f %%; a table of the same metric shows its row&#39;s floor in a column.</p>\n", what, lo, hi }' \
			"$work/noise.tsv"
	fi
}

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

# ---- one metric's table -------------------------------------------------------------

# Two sides: runs, medians, B/A, the t interval of B-A, both verdicts and
# the resolution, and the A/A floor of the row when NOISE has the metric.
metric_table() { # COMPARE.json METRIC NSIDES [NOISE: "ROW<TAB>FLOOR" lines]
	(($3 == 2)) || { metric_table_n "$1" "$2" "$3"; return; }
	rjq 'table_ab($m)' -r --arg m "$2" "$1" |
	awk -F'\t' -v noise="${4:-}" "$awk_fmt"'
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
			ci, yn($10), $11 == "" ? "&ndash;" : sprintf("%.3f", $11), yn($12), pm($14), nf
	}
	END { print "</tbody></table>" }'
}

# N sides: each side's runs and median, then per side its ratio to A and
# the two verdicts (the intervals are in compare.txt and compare.json).
metric_table_n() { # COMPARE.json METRIC NSIDES
	rjq 'table_n($m)' -r --arg m "$2" "$1" |
	awk -F'\t' -v n="$3" -v L="$letters" "$awk_fmt"'
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
				yn($(k + 1)), yn($(k + 2)), pm($(k + 3))
		}
		print "</tr>"
	}
	END { print "</tbody></table>" }'
}

# One kernel's rows: the runs' median, mean, range and spread.
direct_table() { # COMPARE.json METRIC
	rjq 'table_direct($m)' -r --arg m "$2" "$1" |
	awk -F'\t' "$awk_fmt"'
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

# ---- a comparison, a direct run ------------------------------------------------------

# The environment's rows of a comparison's sides: each side's first run
# (runs/A-1.json, ...; a peer's B is runs/mmubench-1.json), else what the
# comparison says of it.  LABEL: each side's, A first.
ab_env_rows() { # EXP EXPDIR SIDE-PREFIX LABEL...
	local x=$1 c=$2/compare.json p=$3 runs=$2/runs ns i s f
	shift 3
	ns=$#
	for ((i = 0; i < ns; i++)); do
		s=${letters:i:1} f=$runs/$s-1.json
		[[ -f $f || $ns != 2 || $s != B ]] || f=$runs/mmubench-1.json
		if [[ -f $f ]]; then
			rjq 'env_row($x; $s)' -r --arg x "$x" --arg s "$p$s: $1" "$f"
		else
			rjq 'env_side_row($x; $s; $i)' -r --arg x "$x" --arg s "$p$s: $1" --argjson i "$i" "$c"
		fi
		shift
	done
}

# The runs' other numbers (each phase's VM and vCPU stats, wall times,
# the scenario's own counts) that compare lists as "also changed": t
# after Benjamini-Hochberg and Mann-Whitney both flag them.  Per later
# side a line of counts, then the table.  A change here is a finding,
# never a regression: the gate fails only on a rule that names it.
also_changed() { # COMPARE.json
	echo "<h3>Also changed</h3>"
	if ! rjq 'has("counters")' -e "$1" >/dev/null; then
		echo '<p class="missing">This comparison judged no other number: its mmubench compare predates it.</p>'
		return
	fi
	rjq counters_sides -r "$1" | awk -F'\t' '{
		printf "<p>%s against A (%s): %d counters compared: %d changed (%d exactly), %d identical in every run, %d no change found; t after Benjamini-Hochberg (false discovery rate 5 %%), Mann-Whitney at 95 %%; uncorrected, about %.1f of the %d that vary would be flagged by chance.</p>\n",
			$1, $2, $3, $4 + $5, $5, $6, $7 - $4, $7 * 0.05, $7 }'
	rjq counters_rows -r "$1" | awk -F'\t' "$awk_fmt"'
	NR == 1 {
		print "<table>"
		print "<thead><tr><th>side</th><th>counter</th><th>row</th><th>A median</th><th>median</th><th>ratio</th><th>t p</th><th>MW p</th><th>verdict</th><th>res</th></tr></thead><tbody>"
	}
	{
		printf "<tr%s><td>%s</td><td>%s</td><td>%s</td><td>%s</td><td>%s</td><td>%s</td><td>%s</td><td>%s</td><td>%s</td><td>%s</td></tr>\n",
			$9 ~ /^changed/ ? " class=\"sig\"" : "", $1, $2, $3, num($4), num($5),
			$6 == "" ? "&ndash;" : sprintf("%.3f", $6), $7 == "" ? "&ndash;" : sprintf("%.3g", $7),
			$8 == "" ? "&ndash;" : sprintf("%.3g", $8), h($9), pm($10)
	}
	END { if (NR) print "</tbody></table>" }'
}

# A comparison (tools/ab.sh's folder, or a direct night's peer): its tables
# with the noise floor, bars, latency, trend and compare's output, then
# its sides' rows in $work/env, named PREFIX LETTER: LABEL.  POINTS as
# trend_chart's.
ab_section() { # EXP EXPDIR ID TITLE POINTS [SIDE-PREFIX]
	local x=$1 e=$2 id=$3 c=$2/compare.json mi=0 m nf ns i s lab=() lat=() what globs=''
	ns=$(rjq nsides "$c")
	for ((i = 0; i < ns; i++)); do
		lab+=("$(rjq 'side_label($i)' -r --argjson i "$i" "$c")")
	done
	printf '<h2 id="%s">%s</h2>\n' "$(esc "$id")" "$(esc "$4")"
	[[ -z ${about[$x]:-} ]] || printf '<p>%s</p>\n' "${about[$x]}"
	rjq ab_intro -r "$c"
	[[ ! -f $e/command.txt ]] || printf '<p class="caption">command: <code>%s</code></p>\n' "$(esc "$(cat "$e/command.txt")")"
	rjq notes -r "$c"
	noise_note "$x"
	what="A and B medians"
	((ns == 2)) || what="each side's medians"
	while IFS= read -r m; do
		mi=$((mi + 1))
		printf '<h3>%s</h3>\n' "$(esc "$m")"
		nf=$(noise_of "$m" "$x")
		metric_table "$c" "$m" "$ns" "$nf"
		bar_chart "$c" "$m" "$id-bars-$mi.svg" "${lab[@]}"
		img "$id-bars-$mi.svg" "$x $m: $what, every run"
	done < <(rjq metrics -r "$c")
	also_changed "$c"
	echo "<h3>Latency per pass</h3>"
	for ((i = 0; i < ns; i++)); do
		s=${letters:i:1}
		lat+=("$s" "$(rjq 'lat_label($i)' -r --argjson i "$i" "$c")" "$e/runs/$s-*.json")
		globs+="${globs:+ and }runs/$s-*.json"
	done
	if latency_chart "$id-latency.svg" "${lat[@]}" >"$work/caption"; then
		img "$id-latency.svg" "$x: latency p50, p99, p99.9 per pass"
		cat "$work/caption"
	else
		printf '<p class="missing">No per-pass latency percentiles in this experiment&#39;s %s.</p>\n' "$globs"
	fi
	m=$(rjq 'headline($want)' -r --arg want "${headline[$x]:-}" "$c")
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
	# A run document jq cannot read costs its row, not the page.
	printf '%s\n' "$(ab_env_rows "$x" "$e" "${6:-}" "${lab[@]}")" >>"$work/env"
}

# One kernel's runs of an experiment (ci/nightly --direct LABEL): per
# metric the runs' table and bars, latency, and the headline metric over
# every night and label given; its environment's row in $work/env.
direct_section() { # EXP LABEL FILE ID
	local x=$1 label=$2 f=$3 id=$4 c=${dcmp[$3]} mi=0 m n l g pts=$work/points
	printf '<h2 id="%s">%s on %s</h2>\n' "$(esc "$id")" "$(esc "$x")" "$(esc "$label")"
	[[ -z ${about_direct[$x]:-} ]] || printf '<p>%s</p>\n' "${about_direct[$x]}"
	rjq 'direct_intro($l; $f)' -r --arg l "$label" --arg f "$label/$x.json" "$f"
	rjq direct_notes -r "$c"
	while IFS= read -r m; do
		mi=$((mi + 1))
		printf '<h3>%s</h3>\n' "$(esc "$m")"
		direct_table "$c" "$m"
		bar_chart "$c" "$m" "$id-bars-$mi.svg" "$label"
		img "$id-bars-$mi.svg" "$x $m on $label: median, every run"
	done < <(rjq metrics -r "$c")
	echo "<h3>Latency per pass</h3>"
	if latency_chart "$id-latency.svg" '' "$label" "$f" >"$work/caption"; then
		img "$id-latency.svg" "$x on $label: latency p50, p99, p99.9 per pass"
		cat "$work/caption"
	else
		printf '<p class="missing">No per-pass latency percentiles in %s.</p>\n' "$(esc "$label/$x.json")"
	fi
	m=$(rjq 'headline($want)' -r --arg want "${headline[$x]:-}" "$c")
	printf '<h3>Trend: %s</h3>\n' "$(esc "$m")"
	: >"$pts"
	for n in "${nights[@]}"; do
		n=$(cd "$n" && pwd)
		while IFS= read -r l; do
			g=$(manifest_night_dir "$n/$l" "$x" .json) # or an old name's
			[[ -n ${dcmp[$g]:-} ]] || continue
			printf '%s/%s\t%s\n' "${n##*/}" "$l" "${dcmp[$g]}" >>"$pts"
		done < <(labels_of "$n")
	done
	if trend_chart "$id-trend.svg" "$m" 1 "$pts" "$m over the direct runs (night/label): median per row"; then
		img "$id-trend.svg" "$x $m over the direct runs"
	else
		printf '<p class="missing">No trend: %s has one direct run in the %d night(s) given; two or more nights or labels make one.</p>\n' \
			"$x" "${#nights[@]}"
	fi
	printf '%s\n' "$(rjq 'env_row($x; $s)' -r --arg x "$x" --arg s "$label (direct)" "$f")" >>"$work/env"
}

# Every experiment's sections, in the summary's order: its comparison,
# then per label its peer comparison or its direct run.  POINTS of the
# trends: the same experiment in every night given (a peer: in every
# label of every night).
experiment_sections() {
	local x e l l2 f n
	for x in "${experiments[@]}"; do
		e=$last/$x
		if [[ -f $e/compare.json ]]; then
			: >"$work/points"
			# A night from before a rename has it under an old name.
			for n in "${nights[@]}"; do
				printf '%s\t%s\n' "${n##*/}" "$(manifest_night_dir "$n" "$x")/compare.json" >>"$work/points"
			done
			ab_section "$x" "$e" "$x" "$x" "$work/points"
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
				ab_section peer "$last/$l/peer" "peer-$l" "peer on $l" "$work/points" "$l: "
			elif [[ -n ${dcmp[$f]:-} ]]; then
				direct_section "$x" "$l" "$f" "$x-$l"
			fi
		done
	done
}

# ---- the end of the page -----------------------------------------------------------

# The sections' rows, and the machine that made the page.
environment_section() {
	local cpu
	echo '<h2 id="environment">Environment</h2>'
	echo '<p>What each side&#39;s first run reports (its <code>env</code>), or a direct run&#39;s: nested runs report the L1 kernel they booted.</p>'
	echo '<table class="env"><thead><tr><th>experiment</th><th>side</th><th>arch</th><th>kernel</th><th>MMU</th><th>CPU</th><th>mmubench</th></tr></thead><tbody>'
	cat "$work/env"
	cpu=$(awk -F': ' '/^model name/ { print $2; exit }' /proc/cpuinfo 2>/dev/null)
	printf '<tr><td>this machine</td><td>ran ci/report/report.sh</td><td>%s</td><td>%s</td><td>-</td><td>%s (%s CPUs)</td><td>%s</td></tr>\n' \
		"$(uname -m)" "$(esc "$(uname -r)")" "$(esc "${cpu:-unknown}")" "$(nproc)" \
		"$(esc "$(git -C "$repo" describe --always --dirty 2>/dev/null || echo unknown)")"
	echo '</tbody></table>'
}

steps_section() {
	[[ -f $last/time.txt ]] || return 0
	echo '<h2 id="steps">The nightly&#39;s steps</h2>'
	printf '<pre>%s</pre>\n' "$(esc "$(cat "$last/time.txt")")"
}
