#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The detection curve: the project's figure of merit for resolution.
# Kernels whose TDP MMU zap walk is slower by known fractions (the
# test-only series test/series/6.1/test-slow-zap-walk-N: each walk busy-waits
# N % of its own duration) run beside the original through tools/ab.sh, and
# for each metric and each run count the table says which slowdowns
# "mmubench compare" flags (Student's t and Mann-Whitney, both at 95 %),
# with the measured change and the resolution (the smallest change both
# tests flag 4 times in 5 at that noise) beside them.
#
#   tools/resolution.sh [--grades N,N,...] [--repeat R] [--at N,N,...]
#                    [--metrics NAME,...] [--clock host|icount[:SHIFT]]
#                    [--smp N] [--mem SIZE] [--timeout SEC] [--mmubench BIN]
#                    [--guest FILE] [--out DIR]
#                    [--from DIR] [-- SCENARIO OPTIONS...]
#
#   --grades   slowdowns in per cent, each a series test-slow-zap-walk-N
#              (default 5,10,25,50,100)
#   --repeat   boots a kernel (default 10)
#   --at       run counts a side to judge at, each <= --repeat (5,10)
#   --metrics  the rows judged (default kernel_zap_iqm_us,
#              kernel_zap_p50_us, kernel_zap_total_ms, zap_total_ms,
#              madvise_p50_us)
#   --clock, --smp, --mem, --timeout
#              tools/ab.sh's: the nested setup the curve is of
#   --mmubench, --guest
#              tools/ab.sh's: a harness and guest other than this tree's
#              (a copy keeps a long curve apart from a rebuild)
#   --out DIR  results (default ./resolution-DATE): ab/ (tools/ab.sh's
#              folder), at-N/ (each side's first N runs merged, and
#              their comparison), curve.txt and curve.json
#   --from DIR judge the runs of an earlier --out DIR again (other
#              --at or --metrics), booting nothing
#   SCENARIO   what every kernel runs (default: zap --zap same4 -v 2
#              -b 32m --zap-count 100, a 4 MiB range invalidated 100
#              times while 2 vCPUs write 32 MiB each)
#
# The reference is test-slow-zap-walk (the same patch at 0 %: the walk
# times itself but waits nothing), so that every grade differs from it
# by its delay alone; the original runs too, and its row says what the
# timing itself costs.  Exit 0 once curve.txt is written, 1 if a run or
# a comparison failed, 2 on bad input.
set -uo pipefail

prog=tools/resolution.sh
die_status=2
# shellcheck source=lib/preamble.sh
source "$(dirname "${BASH_SOURCE[0]}")/../lib/preamble.sh"
grades=5,10,25,50,100 repeat=10 at=5,10 out='' from=''
metrics=kernel_zap_iqm_us,kernel_zap_p50_us,kernel_zap_total_ms,zap_total_ms,madvise_p50_us
ab_opts=()
scenario=(zap --zap same4 -v 2 -b 32m --zap-count 100)
base=test-slow-zap-walk

while (($#)); do
	case $1 in
	--grades|--repeat|--at|--metrics|--clock|--smp|--mem|--timeout|--out|--from|--mmubench|--guest)
		(($# >= 2)) || die "$1 needs a value" ;;&
	--grades) grades=$2 ;;
	--repeat) repeat=$2 ;;
	--at) at=$2 ;;
	--metrics) metrics=$2 ;;
	--clock|--smp|--mem|--timeout|--mmubench|--guest) ab_opts+=("$1" "$2") ;;
	--out) out=$2 ;;
	--from) from=$2 ;;
	--) shift; (($#)) && scenario=("$@"); break ;;
	-h|--help) usage_exit 0 ;;
	*) die "unknown option '$1' (see --help)" ;;
	esac
	shift 2
done
[[ $grades =~ ^[1-9][0-9]{0,3}(,[1-9][0-9]{0,3}){0,5}$ ]] ||
	die "--grades $grades: 1 to 6 per cents, e.g. 5,10,25,50,100"
[[ $repeat =~ ^[1-9][0-9]*$ ]] || die "--repeat $repeat: expected a number >= 1"
[[ $at =~ ^[1-9][0-9]*(,[1-9][0-9]*)*$ ]] || die "--at $at: run counts, e.g. 5,10"
[[ $metrics =~ ^[a-z0-9_]+(,[a-z0-9_]+)*$ ]] || die "--metrics $metrics: names compare prints, joined by commas"
IFS=, read -ra grade_list <<<"$grades"
IFS=, read -ra at_list <<<"$at"
IFS=, read -ra metric_list <<<"$metrics"
for g in "${grade_list[@]}"; do
	[[ -d $repo/test/series/6.1/$base-$g ]] ||
		die "--grades $g: no series test/series/6.1/$base-$g (the grades there: $(find "$repo/test/series/6.1" -maxdepth 1 -name "$base-*" -printf '%f\n' | sed "s/^$base-//" | sort -n | paste -sd,))"
done
if [[ $from ]]; then
	[[ -f $from/ab/command.txt ]] || die "--from $from: not a folder of tools/resolution.sh (no ab/command.txt)"
	out=$(cd "$from" && pwd)
	# The runs there decide how many a side there are.
	repeat=$(find "$out/ab/runs" -name 'A-*.json' | wc -l)
	# And what they ran, as tools/ab.sh wrote it: the scenario, and the
	# grades (the series after the 0 % patch).
	read -ra scenario < <(sed -n 's/.* -- //p' "$out/ab/command.txt")
	grades=$(tr -d "\\\\" <"$out/ab/command.txt" | sed -n "s/.*--series $base,\([^ ]*\) .*/\1/p" |
		sed "s/$base-//g")
	[[ $grades =~ ^[0-9]+(,[0-9]+)*$ ]] ||
		die "--from $from: ab/command.txt names no graded series (--series $base,$base-N,...)"
	IFS=, read -ra grade_list <<<"$grades"
fi
for n in "${at_list[@]}"; do
	((n <= repeat)) || die "--at $n: more than the $repeat runs a side"
	((n >= 2)) || die "--at $n: a test needs 2 runs a side or more"
done
command -v jq >/dev/null || die "missing jq: apt-get install jq (ci/deps.sh)" 1

# The sides as tools/ab.sh names them: A the original, B the 0 % patch,
# then the grades.
series=$base
for g in "${grade_list[@]}"; do series+=",$base-$g"; done
letters=ABCDEFGH

if [[ -z $from ]]; then
	: "${out:=./resolution-$(date +%Y%m%d-%H%M%S)}"
	[[ ! -e $out || -z $(ls -A "$out" 2>/dev/null) ]] ||
		die "--out $out: exists and is not empty"
	mkdir -p "$out" || die "--out $out: cannot create it"
	out=$(cd "$out" && pwd)
	MMUBENCH_PATCHES=$repo/test/series "$here/ab.sh" --series "$series" \
		--repeat "$repeat" "${ab_opts[@]}" --out "$out/ab" -- "${scenario[@]}" \
		>"$out/ab.log" 2>&1 || {
		tail -n 20 "$out/ab.log" >&2
		die "tools/ab.sh failed; see $out/ab.log" 1
	}
fi
tool=${MMUBENCH_BIN:-$repo/build/mmubench}
[[ -x $tool ]] || die "$tool: no mmubench binary (run make)" 1

# at N: each side's first N runs, compared with B (the 0 % patch) first,
# then A (the original), then the grades.
judge_at() {
	local n=$1 dir=$out/at-$1 s i files docs=() labels
	mkdir -p "$dir"
	for ((s = 0; s < ${#grade_list[@]} + 2; s++)); do
		files=()
		for ((i = 1; i <= n; i++)); do
			files+=("$out/ab/runs/${letters:s:1}-$i.json")
		done
		"$tool" merge "$dir/${letters:s:1}.json" "${files[@]}" || return
	done
	docs=("$dir/B.json" "$dir/A.json")
	labels="0%,original"
	for ((s = 0; s < ${#grade_list[@]}; s++)); do
		docs+=("$dir/${letters:s+2:1}.json")
		labels+=",+${grade_list[s]}%"
	done
	for m in "${metric_list[@]}"; do
		"$tool" compare "${docs[@]}" --labels "$labels" \
			--metric "results.runs[].zap.$m" --json "$dir/$m.json" \
			>"$dir/$m.txt" || return
	done
}
for n in "${at_list[@]}"; do
	judge_at "$n" || die "merging or comparing the first $n runs failed" 1
done

# One line per grade and run count: what compare said of it.
rows() {
	local n m
	for n in "${at_list[@]}"; do
		for m in "${metric_list[@]}"; do
			jq -c --arg m "$m" --argjson n "$n" '.rows[0] as $r
				| $r.vs[] | {metric: $m, runs: $n, side: .label,
				  change_pct: (if $r.sides[0].mean != 0 then
					($r.sides[.side].mean / $r.sides[0].mean - 1) * 100
					else null end),
				  flagged: (.ttest.significant and .mann_whitney.significant),
				  mw_p: .mann_whitney.p,
				  resolution_pct: (if .resolution.reachable then .resolution.mde_pct else null end)}' \
				"$out/at-$n/$m.json"
		done
	done
}
if ! rows | jq -s --arg scenario "${scenario[*]}" \
	--arg clock "$(jq -r '.env.clock // "host"' "$out/ab/runs/A-1.json")" \
	--arg arch "$(jq -r '.env.arch // "?"' "$out/ab/runs/A-1.json")" \
	'{scenario: $scenario, clock: $clock, arch: $arch, rows: .}' >"$out/curve.json.tmp" ||
   ! mv "$out/curve.json.tmp" "$out/curve.json"; then
	die "writing $out/curve.json failed" 1
fi

# The table: a block per metric, a row per side, a column per run count.
table() {
	jq -r '"detection curve: \(.scenario), \(.arch), clock \(.clock)",
		(.rows[] | [.metric, .side, .runs, .change_pct, .flagged, .resolution_pct]
		 | map(if . == null then "-" else tostring end) | @tsv)' "$out/curve.json" |
	awk -F'\t' '
	function pct(v) { return v == "-" ? "-" : sprintf("%+.1f %%", v) }
	NR == 1 {
		print $0 "; each side against the 0 % patch"
		print "yes: flagged by both tests at 95 %; res: the change both flag 4 times in 5 at this noise"
		next
	}
	{
		if (!($1 in seen)) { seen[$1] = 1; metric[++nm] = $1 }
		if (!(($1, $2) in side_seen)) { side_seen[$1, $2] = 1; side[$1, ++ns[$1]] = $2 }
		if (!($3 in run_seen)) { run_seen[$3] = 1; runs[++nr] = $3 }
		cell[$1, $2, $3] = sprintf("%s %-3s (res %s)", pct($4),
			$5 == "true" ? "yes" : "no", $6 == "-" ? "none" : sprintf("+/-%.1f %%", $6))
		if ($5 == "true" && $2 ~ /^\+/ && (!(($1, $3) in low) || $2 + 0 < low[$1, $3]))
			low[$1, $3] = $2 + 0
	}
	END {
		for (m = 1; m <= nm; m++) {
			line = sprintf("  %-10s", "side")
			for (r = 1; r <= nr; r++)
				line = line sprintf("  %-30s", runs[r] " runs a side")
			sub(/ +$/, "", line)
			printf "\n%s:\n%s\n", metric[m], line
			for (s = 1; s <= ns[metric[m]]; s++) {
				line = sprintf("  %-10s", side[metric[m], s])
				for (r = 1; r <= nr; r++)
					line = line sprintf("  %-30s", cell[metric[m], side[metric[m], s], runs[r]])
				sub(/ +$/, "", line)
				print line
			}
			printf "  smallest slowdown flagged:"
			for (r = 1; r <= nr; r++)
				printf "%s %s at %s", (r > 1 ? "," : ""),
					(((metric[m], runs[r]) in low) ? "+" low[metric[m], runs[r]] " %" : "none"),
					runs[r]
			printf "\n"
		}
	}'
}
if ! table >"$out/curve.txt.tmp" || ! mv "$out/curve.txt.tmp" "$out/curve.txt"; then
	die "writing $out/curve.txt failed" 1
fi
cat "$out/curve.txt"
[[ ! -f $out/ab/time.txt ]] || sed -n '/where the time went/,/total/p' "$out/ab/time.txt"
