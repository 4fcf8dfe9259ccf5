#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The fidelity report: each seed's published numbers beside mmubench's at
# the seed's own configuration (the night's *-paper experiments), the
# ratio of ratios and two verdicts (ci/README.md, "Fidelity").
#
#   ci/fidelity.sh [--seeds FILE] [--experiment NAME=DIR]... [--out DIR]
#                  NIGHT_DIR | --night BASE=NIGHT_DIR...
#
#   --seeds FILE   the seeds' numbers and where mmubench has them, one
#                  a line, tab-separated: seed table row seed_before
#                  seed_after units experiment metric before after source
#                  (default: the figure lines of experiments.conf, which
#                  describes them)
#   --experiment NAME=DIR
#                  experiment NAME is the tools/ab.sh folder DIR, not
#                  NIGHT_DIR/NAME (a run made apart from the night)
#   --out DIR      where fidelity.txt and fidelity.json go (NIGHT_DIR)
#   --night BASE=NIGHT_DIR
#                  a night of that base (ci/nightly --kernel BASE); one
#                  per base, each a column of the summary.  A plain
#                  NIGHT_DIR is a 6.1 night.  On another base the sides
#                  are NAME@BASE, and a seed whose change is upstream
#                  there has its kernels traded (traded@BASE in
#                  experiments.conf)
#
# r_s and r_m are after/before of the seed's and of mmubench's medians,
# q = r_m / r_s the ratio of ratios.
#   same direction  r_s and r_m both above 1, or both below; a seed row
#                   whose figures are equal ("back to the original")
#                   counts when mmubench's two kernels do not differ at
#                   95 % by Student's t
#   within 2x       1/2 <= q <= 2
# A row whose experiment, metric, row or side is not in the night is
# "missing", a row without a seed figure "-": neither counts as a yes.
# Prints the report; both files are written atomically.  Exit 0 once
# written (whatever the verdicts), 2 on bad input.
set -uo pipefail

prog=ci/fidelity.sh
die_status=2
# shellcheck source=lib/preamble.sh
source "$(dirname "${BASH_SOURCE[0]}")/../lib/preamble.sh"
seeds='' out='' night=''
declare -A exp_dir=() night_of=()
bases=()

while (($#)); do
	case $1 in
	--seeds|--experiment|--out|--night) (($# >= 2)) || die "$1 needs a value" ;;&
	--night)
		[[ $2 =~ ^(6\.1|6\.12)=(.+)$ ]] ||
			die "--night $2: expected BASE=NIGHT_DIR, BASE 6.1 or 6.12"
		[[ -d ${BASH_REMATCH[2]} ]] ||
			die "--night $2: ${BASH_REMATCH[2]} is not a directory"
		[[ -z ${night_of[${BASH_REMATCH[1]}]+x} ]] ||
			die "--night $2: base ${BASH_REMATCH[1]} named twice"
		bases+=("${BASH_REMATCH[1]}")
		night_of[${BASH_REMATCH[1]}]=$(cd "${BASH_REMATCH[2]}" && pwd)
		shift 2 ;;
	--seeds) seeds=$2; shift 2 ;;
	--out) out=$2; shift 2 ;;
	--experiment)
		[[ $2 =~ ^([A-Za-z0-9._-]+)=(.+)$ ]] ||
			die "--experiment $2: expected NAME=DIR (an experiment's name, a tools/ab.sh folder)"
		[[ -d ${BASH_REMATCH[2]} ]] ||
			die "--experiment $2: ${BASH_REMATCH[2]} is not a directory"
		exp_dir[${BASH_REMATCH[1]}]=$(cd "${BASH_REMATCH[2]}" && pwd)
		shift 2 ;;
	-h|--help) usage_exit 0 ;;
	-*) die "unknown option '$1' (accepted: --seeds FILE, --experiment NAME=DIR, --out DIR, --night BASE=DIR)" ;;
	*) [[ -z $night ]] || die "one NIGHT_DIR only ('$night', then '$1')"
	   night=$1; shift ;;
	esac
done
if [[ $night ]]; then
	((${#bases[@]} == 0)) ||
		die "NIGHT_DIR $night and --night: one or the other (a plain NIGHT_DIR is --night 6.1=NIGHT_DIR)"
	[[ -d $night ]] || die "NIGHT_DIR $night: not a directory"
	bases=(6.1)
	night_of[6.1]=$(cd "$night" && pwd)
fi
((${#bases[@]})) || die "no NIGHT_DIR (ci/nightly's --out), nor --night BASE=DIR"
((${#exp_dir[@]} == 0 || ${#bases[@]} == 1)) ||
	die "--experiment: with one night only (its experiments)"
# shellcheck source=ci/manifest.sh
source "$here/manifest.sh"
manifest_load
traded=$(manifest_traded)
# --experiment under an old name (an alias) is the experiment's.
for x in "${!exp_dir[@]}"; do
	n=$(manifest_resolve "$x")
	[[ -z $n || $n == "$x" ]] && continue
	exp_dir[$n]=${exp_dir[$x]}
	unset "exp_dir[$x]"
done
if [[ $seeds ]]; then
	[[ -r $seeds && -f $seeds ]] || die "--seeds $seeds: cannot read it"
	seed_lines=$(<"$seeds")
else
	seeds="$MMUBENCH_EXPERIMENTS (its figures)"
	seed_lines=$(manifest_figures)
fi
: "${out:=${night_of[${bases[0]}]}}"
[[ -d $out && -w $out ]] || die "--out $out: not a writable directory"
command -v jq >/dev/null || { echo "$prog: error: missing jq: apt-get install jq (ci/deps.sh)" >&2; exit 1; }

# The seeds' lines, checked whole before anything is read.
num='^(-|[0-9]+(\.[0-9]+)?)$'
lines=()
n=0
while IFS= read -r line || [[ $line ]]; do
	n=$((n + 1))
	[[ -z $line || $line == \#* ]] && continue
	IFS=$'\t' read -r -a f <<<"$line"
	((${#f[@]} == 11)) ||
		die "--seeds $seeds: line $n has ${#f[@]} columns, not 11 (seed table row seed_before seed_after units experiment metric before after source, tab-separated)"
	[[ ${f[3]} =~ $num && ${f[4]} =~ $num ]] ||
		die "--seeds $seeds: line $n: seed_before '${f[3]}', seed_after '${f[4]}': numbers or -"
	[[ (${f[3]} == - && ${f[4]} == -) || (${f[3]} != - && ${f[4]} != -) ]] ||
		die "--seeds $seeds: line $n: both seed figures or neither"
	[[ ${f[3]} == - || ${f[3]} =~ [1-9] ]] ||
		die "--seeds $seeds: line $n: seed_before is 0: no ratio"
	[[ ${f[6]} =~ ^[A-Za-z0-9._-]+$ ]] ||
		die "--seeds $seeds: line $n: experiment '${f[6]}': not a folder name"
	[[ ${f[8]} == ?*:?* && ${f[9]} == ?*:?* ]] ||
		die "--seeds $seeds: line $n: before '${f[8]}', after '${f[9]}': SIDE:ROW each"
	lines+=("$line")
done <<<"$seed_lines"
((${#lines[@]})) || die "--seeds $seeds: no seed line"

# An experiment's folder, its compare.json checked once.
declare -A checked=()
exp_path() { # BASE NAME
	if [[ -n ${exp_dir[$2]+x} ]]; then
		echo "${exp_dir[$2]}"
	else
		manifest_night_dir "${night_of[$1]}" "$2"
	fi
}
check_compare() { # BASE NAME
	local c
	c=$(exp_path "$1" "$2")/compare.json
	[[ -n ${checked[$1/$2]+x} || ! -f $c ]] && return 0
	jq -e '(.rows | type == "array") and ((.a | type == "object") or (.sides | type == "array"))' \
		"$c" >/dev/null 2>&1 ||
		die "$c: not a compare.json of mmubench compare (rows, and a/b or sides)"
	checked[$1/$2]=1
}

# SIDE:ROW of a figure on BASE: 6.1's labels as they are; on another
# base NAME@BASE, after the seed's kernels traded there (manifest_traded).
side_on() { # BASE SEED SIDE:ROW
	local side=${3%%:*} row=${3#*:} b s from to
	if [[ $1 != 6.1 && $side != "*" ]]; then
		while IFS=$'\t' read -r b s from to; do
			[[ $b == "$1" && $s == "$2" && $from == "$side" ]] || continue
			side=$to
			break
		done <<<"$traded"
		side+=@$1
	fi
	echo "$side:$row"
}

# One row: the seed's figures, mmubench's cells and the verdicts, as JSON.
# shellcheck disable=SC2016
row_jq='
def med: sort | if length == 0 then null
	elif length % 2 == 1 then .[(length - 1) / 2]
	else (.[length / 2 - 1] + .[length / 2]) / 2 end;
def labels: if .sides then [.sides[].label] else [.a.label, .b.label] end;
def cell($r; $i): if $r.sides then $r.sides[$i] else [$r.a, $r.b][$i] end;
def pick($doc; $r; $want):
	if $want == "*" then
		[(if $r.sides then $r.sides[] else ($r.a, $r.b) end) | .values[]]
		| {median: med, n: length}
	else ($doc | labels | index($want)) as $i
		| if $i == null then null else cell($r; $i) | {median, n} end
	end;
def split_spec: (index(":")) as $c | {side: .[:$c], row: .[$c + 1:]};
def sign: if . > 1 then 1 elif . < 1 then -1 else 0 end;
# The tests of the pair, one of them the reference (side A, the first of
# compare): before, or after where the kernels traded places on a base
# (the 6.12 original has the change of seed 002).  Significance is symmetric.
def tests($doc; $rb; $b; $a):
	($doc | labels) as $l | ($l | index($b.side)) as $ib
	| ($l | index($a.side)) as $ia
	| (if $ib == 0 then $ia elif $ia == 0 then $ib else null end) as $o
	| if $b.row != $a.row or $b.side == "*" or $a.side == "*" or $o == null
	     or $o == 0 then null
	  elif $rb.vs then first($rb.vs[] | select(.side == $o))
	  elif $o == 1 then {ttest: $rb.ttest, mann_whitney: $rb.mann_whitney,
			     resolution: $rb.resolution}
	  else null end;
def measure($doc):
	($metric | split("|")) as $ms
	| [$ms[] as $m | $doc.rows[] | select(.metric == $m)] as $cand
	| ($before | split_spec) as $b | ($after | split_spec) as $a
	| if ($cand | length) == 0 then {why: "no metric \($metric)"}
	  else $cand[0].metric as $m
	  | [$cand[] | select(.metric == $m)] as $mr
	  | (first($mr[] | select(.row == $b.row)) // null) as $rb
	  | (first($mr[] | select(.row == $a.row)) // null) as $ra
	  | if $rb == null then {why: "no row \($b.row) of \($m)"}
	    elif $ra == null then {why: "no row \($a.row) of \($m)"}
	    else pick($doc; $rb; $b.side) as $vb | pick($doc; $ra; $a.side) as $va
	    | if $vb == null then {why: "no side \($b.side)"}
	      elif $va == null then {why: "no side \($a.side)"}
	      else tests($doc; $rb; $b; $a) as $t
	      | {metric: $m, before: $vb.median, after: $va.median,
		 n_before: $vb.n, n_after: $va.n,
		 ratio: (if $vb.median == 0 or $vb.median == null or
			    $va.median == null then null
			 else $va.median / $vb.median end),
		 t_significant: (if $t == null then null else $t.ttest.significant end),
		 mw_significant: (if $t == null then null
				  else $t.mann_whitney.significant end),
		 resolution_pct: (if $t == null or $t.resolution == null then null
				  elif $t.resolution.reachable then $t.resolution.mde_pct
				  else "none" end)}
	      end
	    end
	  end;
def verdicts($s; $m):
	if $s == null then {q: null, same_direction: "-", within_2x: "-"}
	elif $m.why then {q: null, same_direction: "missing", within_2x: "missing"}
	elif $m.ratio == null then {q: null, same_direction: "n/a", within_2x: "n/a"}
	else ($m.ratio / $s.ratio) as $q
	# Not flagged by both tests and smaller than the resolution: its
	# direction is the noise'"'"'s, not the kernel'"'"'s.
	| (($m.t_significant and $m.mw_significant) | not) as $unflagged
	| ($m.resolution_pct != null and $unflagged and
	   ($m.resolution_pct == "none" or
	    (($m.ratio - 1) * 100 | fabs) < $m.resolution_pct)) as $below
	| {q: $q,
	   same_direction: (if ($s.ratio | sign) == 0 then
				(if $m.t_significant == null then "n/a"
				 elif $m.t_significant then "no" else "yes" end)
			    elif $below then "below res"
			    elif ($s.ratio | sign) == ($m.ratio | sign) then "yes"
			    else "no" end),
	   within_2x: (if $q >= 0.5 and $q <= 2 then "yes" else "no" end)}
	end;
(if $sb == "-" then null
 else {before: ($sb | tonumber), after: ($sa | tonumber),
       ratio: (($sa | tonumber) / ($sb | tonumber))} end) as $s
| (if $doc == null then {why: $missing} else measure($doc) end) as $m
| verdicts($s; $m) as $v
| {base: $base, seed: $seed, table: $table, row: $row, units: $units,
   experiment: $exp, source: $source, scaling: $scaling,
   seed_figures: $s,
   mmubench: (if $m.why then null else $m end),
   missing: ($m.why // null),
   ratio_of_ratios: $v.q, same_direction: $v.same_direction,
   within_2x: $v.within_2x}'

rows=$(mktemp) || exit 1
trap 'rm -f "$rows"' EXIT
# BASE LINE: one row of the report, as JSON, onto $rows.
one_row() {
	local base=$1 seed table row sb sa units exp metric before after source
	local dir scaling doc missing args
	IFS=$'\t' read -r seed table row sb sa units exp metric before after source <<<"$2"
	check_compare "$base" "$exp"
	dir=$(exp_path "$base" "$exp")
	before=$(side_on "$base" "$seed" "$before")
	after=$(side_on "$base" "$seed" "$after")
	scaling=''
	[[ ! -f $dir/scaling.txt ]] || scaling=$(cat "$dir/scaling.txt")
	doc=$dir/compare.json missing=''
	if [[ ! -d $dir ]]; then
		missing="no experiment $exp in the night"
	elif [[ ! -f $doc ]]; then
		missing="$exp has no compare.json (ended early?)"
	fi
	args=(--arg base "$base" --arg seed "$seed" --arg table "$table"
	      --arg row "$row" --arg sb "$sb" --arg sa "$sa" --arg units "$units"
	      --arg exp "$exp" --arg metric "$metric" --arg before "$before"
	      --arg after "$after" --arg source "$source" --arg scaling "$scaling"
	      --arg missing "$missing")
	if [[ $missing ]]; then
		jq -nc "${args[@]}" --argjson doc null "$row_jq" >>"$rows"
	else
		jq -c "${args[@]}" '. as $doc | $doc | '"$row_jq" "$doc" >>"$rows"
	fi || die "$doc: jq could not read it"
}

for base in "${bases[@]}"; do
	for line in "${lines[@]}"; do
		one_row "$base" "$line"
	done
done

# The JSON: the definitions, every row, the count of each verdict.
nights=$(for b in "${bases[@]}"; do printf '%s\t%s\n' "$b" "${night_of[$b]}"; done |
	jq -Rn '[inputs | split("\t") | {key: .[0], value: .[1]}] | from_entries')
json=$(jq -s --argjson nights "$nights" --arg seeds "$seeds" '
# The verdicts of some rows, counted.
def counted: {
	rows: length,
	with_seed_figures: (map(select(.seed_figures != null)) | length),
	same_direction: (group_by(.same_direction)
		| map({key: .[0].same_direction, value: length}) | from_entries),
	within_2x: (group_by(.within_2x)
		| map({key: .[0].within_2x, value: length}) | from_entries)};
{
	night: ($nights | to_entries[0].value), nights: $nights, seeds_file: $seeds,
	definitions: {
		ratio: "after / before of the medians (r_s the seed'"'"'s, r_m mmubench'"'"'s)",
		ratio_of_ratios: "q = r_m / r_s",
		same_direction: "r_s and r_m both above 1 or both below; a seed row with equal figures: yes when mmubench'"'"'s kernels do not differ at 95 % by Student'"'"'s t; \"below res\" when mmubench'"'"'s kernels do not differ by both tests and the change of the medians is smaller than the resolution (compare'"'"'s MDE at 80 % power)",
		within_2x: "1/2 <= q <= 2",
		missing: "the experiment, metric, row or side is not in the night: not a yes"},
	rows: .,
	summary: counted,
	by_base: (group_by(.base) | map({key: .[0].base, value: counted})
		| from_entries)}' "$rows") ||
	die "assembling the report failed"

# The text: one table per seed and table of the seed, then the counts.
text=$(jq -r '
def f: if . == null then "-"
	else (if . < 0 then -. else . end) as $a
	| if $a >= 1000 then (. * 1 | round | tostring)
	  elif $a >= 100 then ((. * 10 | round) / 10 | tostring)
	  elif $a >= 10 then ((. * 100 | round) / 100 | tostring)
	  elif $a >= 0.01 or $a == 0 then ((. * 1000 | round) / 1000 | tostring)
	  else (. * 1e6 | round | . / 1e6 | tostring) end end;
def yn: if . == null then "-" elif . then "yes" else "no" end;
# Consecutive rows of one seed and table, in the order of the seeds file.
def groups: reduce .[] as $r ([];
	if length > 0 and .[-1][0].seed == $r.seed and .[-1][0].table == $r.table
	   and .[-1][0].base == $r.base
	then .[-1] += [$r] else . + [[$r]] end);
def unique_in_order: reduce .[] as $x ([]; if index([$x]) then . else . + [$x] end);
def counts: . as $c | ["yes", "no", "below res", "n/a", "missing", "-"]
	| map(select($c[.]) | "\($c[.]) \(.)") | join(", ");
"fidelity: the seeds'"'"' published numbers against mmubench'"'"'s at their configuration",
"  ratio: after/before of the medians; q = r_m / r_s; same direction: both",
"  ratios above 1 or both below (a seed row with equal figures: mmubench'"'"'s",
"  kernels not different by t); below res: mmubench'"'"'s two kernels not different",
"  by both tests, and by less than the resolution RES; within 2x: 1/2 <= q <= 2",
(.rows | groups[] |
	"",
	"seed \(.[0].seed)\(if .[0].base != "6.1" then " on " + .[0].base else "" end): \(.[0].table) (\(.[0].units)), \(
		[.[].experiment] | unique_in_order | join(", "))\(
		[.[].mmubench.metric | select(. != null)] | unique_in_order
		| if length > 0 then ": " + join(", ") else "" end)",
	([.[] | select(.scaling != "") | .scaling] | unique_in_order[]
	 | split("\n")[] | "  scaling: " + .),
	"  ROW\tSEED_BEFORE\tAFTER\tR_S\t|\tMMUBENCH_BEFORE\tAFTER\tR_M\tN\tT\tMW\tRES\t|\tQ\tSAME_DIR\tWITHIN_2X",
	(.[] | [ "  " + .row, (.seed_figures.before | f), (.seed_figures.after | f),
		(.seed_figures.ratio | f), "|",
		(.mmubench.before | f), (.mmubench.after | f), (.mmubench.ratio | f),
		(if .mmubench then "\(.mmubench.n_before)/\(.mmubench.n_after)"
		 else "-" end),
		(.mmubench.t_significant | yn), (.mmubench.mw_significant | yn),
		(.mmubench.resolution_pct | if . == null then "-" elif . == "none"
		 then "none" else "+/-" + (f) + "%" end), "|",
		(.ratio_of_ratios | f), .same_direction, .within_2x] | join("\t")),
	(.[] | select(.missing) | "  missing: \(.row): \(.missing)")),
"",
"rows: \(.summary.rows), \(.summary.with_seed_figures) with seed figures; same direction: \(
	.summary.same_direction | counts); within 2x: \(.summary.within_2x | counts)",
# With more than one base, a column of each: does the effect hold there?
(if (.by_base | length) > 1 then
	(.by_base | keys_unsorted) as $bs | .rows as $all
	| "",
	"by base: r_m, same direction, within 2x",
	(["  SEED", "TABLE", "ROW", "R_S"] + [$bs[] | "|", "R_M " + ., "SAME", "2X"]
	 | join("\t")),
	($all[] | select(.base == $bs[0]) as $r
	 | [$bs[] as $b | first($all[] | select(.base == $b and .seed == $r.seed
		and .table == $r.table and .row == $r.row))] as $cells
	 | (["  " + $r.seed, $r.table, $r.row, ($r.seed_figures.ratio | f)]
	    + [$cells[] | "|", (.mmubench.ratio | f), .same_direction, .within_2x])
	 | join("\t")),
	($bs[] as $b | .by_base[$b] | "rows on \($b): same direction: \(
		.same_direction | counts); within 2x: \(.within_2x | counts)")
 else empty end)
' <<<"$json" | awk -F'\t' '
# Columns aligned per table: lines with tabs are a table until a blank.
function flush(   i, j, s) {
	for (i = 1; i <= nr; i++) {
		s = ""
		for (j = 1; j <= nf[i]; j++)
			s = s sprintf(j == 1 ? "%-*s" : " %*s", w[j], cell[i, j])
		print s
	}
	nr = 0
	delete w
}
NF > 1 { nr++; nf[nr] = NF
	for (j = 1; j <= NF; j++) {
		cell[nr, j] = $j
		if (length($j) > w[j]) w[j] = length($j)
	}
	next }
{ flush(); print }
END { flush() }') || die "formatting the report failed"

# FILE TEXT: written beside, then renamed into place.
write_atomic() {
	local tmp
	tmp=$(mktemp "$out/.fidelity.XXXXXX") || exit 1
	# (mktemp makes it 0600: as readable as any other result)
	if ! { printf '%s\n' "$2" >"$tmp" && chmod 644 "$tmp" &&
		mv "$tmp" "$1"; }; then
		rm -f "$tmp"
		echo "$prog: error: cannot write $1" >&2
		exit 1
	fi
}
write_atomic "$out/fidelity.json" "$json"
write_atomic "$out/fidelity.txt" "$text"
printf '%s\n' "$text"
