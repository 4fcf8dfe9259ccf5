# shellcheck shell=bash
# SPDX-License-Identifier: GPL-2.0
#
# The page's charts, drawn by gnuplot as SVG into $plots: per metric the
# bars of each side's median with every run as a point, the latency
# percentiles per pass, and the trend of a metric over the nights.  Each
# takes its data from the comparison through report.jq (rjq), and each
# increments svg_n.  Sourced by report.sh, which sets plots and has die,
# rjq and esc.
# shellcheck disable=SC2154,SC2016 # plots, set before use; jq's $args in rjq's filters

# Per side, A first: its letter, its bar colour, its points' colour.
letters=ABCDEFGH
colors=('#4c72b0' '#dd8452' '#55a868' '#c44e52' '#8172b3' '#937860' '#da8bc3' '#8c8c8c')
dark=('#1b2f55' '#7a3a10' '#1f4d2b' '#5e1f22' '#3b2f66' '#4a3a2a' '#6b3560' '#444444')
# Per side, the point type of its latency and trend marks.
marks=(7 6 5 4 9 8 13 12)
svg_n=0

gpq() { local s=${1//\'/\'\'}; printf "'%s'" "$s"; } # a gnuplot string

# Runs SCRIPT into $plots/NAME at SIZE ("W,H"), renamed into place only
# when gnuplot succeeded and wrote something.
gnuplot_svg() { # NAME SCRIPT SIZE
	local name=$1 script=$2 log
	log=$(gnuplot <<<"set terminal svg size $3 font 'sans,11' noenhanced background rgb 'white'
set output $(gpq "$plots/$name.tmp")
$script" 2>&1) || die "gnuplot failed for $name: $log"
	[[ -s $plots/$name.tmp ]] || die "gnuplot wrote nothing for $name: $log"
	mv "$plots/$name.tmp" "$plots/$name"
	chmod 644 "$plots/$name"
	svg_n=$((svg_n + 1))
}

# The lines "FILE<TAB>FIELDS" of a chart's data (report.jq's bars_ab,
# bars_n) on stdin, each into PREFIX.FILE without its first field.  Each
# FILE named is made even if no line goes to it (a side without runs):
# the plot names it all the same.
split_data() { # PREFIX FILE...
	local f
	for f in "${@:2}"; do : >"$1.$f"; done
	awk -F'\t' -v d="$1" '{ f = d "." $1; sub(/^[^\t]*\t/, ""); print > f }'
}

# ---- bars --------------------------------------------------------------------

# The bar charts' frame: one group of boxes per row, the metric on top.
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

# Bars of metric METRIC per row: one kernel's median (one LABEL), A's
# and B's (two), or each side's (more, bar_chart_n); every run's value a
# point spread across its bar.
bar_chart() { # COMPARE.json METRIC FILE LABEL...
	local cmp=$1 m=$2 name=$3 d=$plots/$3 sides=ab nrows width plot
	shift 3
	(($# <= 2)) || { bar_chart_n "$cmp" "$m" "$name" "$@"; return; }
	(($# == 2)) || sides=a
	rjq 'bars_ab($m; $s)' -r --arg m "$m" --arg s "$sides" "$cmp" | split_data "$d" bars ptsA ptsB
	nrows=$(wc -l <"$d.bars")
	width=$((nrows * 110 + 260))
	((width >= 520)) || width=520
	((width <= 1100)) || width=1100
	if [[ $sides == a ]]; then
		plot="$(gpq "$d.bars") using 1:3:xtic(2) with boxes lc rgb '${colors[0]}' title $(gpq "median: ${1:-median}"), \\
     $(gpq "$d.ptsA") using 1:2 with points pt 7 ps 0.7 lc rgb '${dark[0]}' title 'runs'"
	else
		plot="$(gpq "$d.bars") using (\$1-0.2):3:xtic(2) with boxes lc rgb '${colors[0]}' title $(gpq "A: $1"), \\
     $(gpq "$d.bars") using (\$1+0.2):4 with boxes lc rgb '${colors[1]}' title $(gpq "B: $2"), \\
     $(gpq "$d.ptsA") using 1:2 with points pt 7 ps 0.7 lc rgb '${dark[0]}' title 'A runs', \\
     $(gpq "$d.ptsB") using 1:2 with points pt 5 ps 0.7 lc rgb '${dark[1]}' title 'B runs'"
	fi
	bars_svg "$name" "$m" "$([[ $sides == a ]] && echo 0.5 || echo 0.38)" "$nrows" \
		"$plot" "$width,340"
	rm -f "$d".{bars,ptsA,ptsB}
}

# N sides: one bar per side and row, side I's runs in $d.ptsI.
bar_chart_n() { # COMPARE.json METRIC FILE LABEL...
	local cmp=$1 m=$2 name=$3 d=$plots/$3 n nrows width i w plot=() labels files=(bars)
	shift 3
	labels=("$@") n=$#
	w=$(echo "0.8 / $n" | bc -l)
	for ((i = 0; i < n; i++)); do files+=("pts$i"); done
	rjq 'bars_n($m; $w)' -r --arg m "$m" --argjson w "$w" "$cmp" | split_data "$d" "${files[@]}"
	for ((i = 0; i < n; i++)); do
		plot+=("$(gpq "$d.bars") using (\$1+($i-($n-1)/2.0)*$w):$((i + 3))$( ((i)) || echo ':xtic(2)') with boxes lc rgb '${colors[i]}' title $(gpq "${letters:i:1}: ${labels[i]}")")
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

# ---- the latency percentiles per pass -----------------------------------------

# One side (a direct run) or more (A, B, ...), each "NAME LABEL GLOB":
# the side's name in the key (none with one side), its label, its run
# files (report.jq's latency: per phase the median over the runs of the
# slowest vCPU's p50, p99, p99.9 and their range); the sides told apart
# by point and dash type.  Prints the caption.
latency_chart() { # FILE NAME LABEL GLOB [NAME LABEL GLOB]... -> 0 when drawn
	local name=$1 d=$plots/$1 s=0 k files names=() labels=() plot=() off pt dt t caption=''
	shift
	while (($# >= 3)); do
		mapfile -t files < <(compgen -G "$3")
		((${#files[@]})) || { rm -f "$d".[0-9]; return 1; }
		rjq latency -s -r "${files[@]}" >"$d.$s"
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

# ---- the trend of a metric ---------------------------------------------------

# POINTS: one line per point on the x axis, "TIC<TAB>COMPARE.json" (a
# file that does not exist leaves the point empty).  NSIDES 1: one
# kernel's medians per row (side a); 2 or more: each side's, A solid, B
# dashed, C ... the next dash types (a point with fewer sides leaves the
# others out).
trend_chart() { # FILE METRIC NSIDES POINTS TITLE -> 0 when drawn (two points with data or more)
	local name=$1 m=$2 ns=$3 d=$plots/$1 i=0 have=0 rows r plot=() c=0 xt='' logy='' tic f k
	: >"$d.tsv"
	while IFS=$'\t' read -r tic f; do
		xt+="${xt:+, }\"${tic//\"/}\" $i"
		if [[ -f $f ]]; then
			have=$((have + 1))
			rjq 'trend($m; $i; $ns)' -r --arg m "$m" --argjson i "$i" --argjson ns "$ns" "$f" >>"$d.tsv"
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
