#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Tonight against the previous night: every kernel and experiment of a
# night's results that the store holds an earlier night of (same arch,
# kernel, experiment) goes through ci/regress.sh; and the A/A
# experiments' rows (enable-init-set: the original kernel against itself) give
# each metric's noise floor.  ci/README.md, "Regressions".
#
#   ci/baseline.sh --store STORE [--date YYYYMMDD-HHMMSS]
#                  [--thresholds FILE] [--report FILE] NIGHT_DIR
#
#   --store STORE      the results store (ci/store.sh) holding the earlier
#                      nights; an empty directory is a store without any
#   --date D           tonight's start, UTC (default: now): the baseline
#                      is the newest entry of an earlier date
#   --thresholds FILE  overrides of the scenarios' thresholds (ci/regress.sh;
#                      default ci/regressions.conf)
#   --report FILE      also write the noise floor and the verdicts there
#   NIGHT_DIR          tonight's results (ci/nightly's --out)
#
# Exit 0: no regression (a kernel or experiment without an earlier night
# is said so, and passes); 1: a regression, named; 2: usage.
set -euo pipefail

prog=ci/baseline.sh
# shellcheck source=lib/preamble.sh
source "$(dirname "${BASH_SOURCE[0]}")/../lib/preamble.sh"
store='' date='' table=$here/regressions.conf report='' night_dir=''

while (($#)); do
	case $1 in
	--store|--date|--thresholds|--report)
		(($# >= 2)) || usage_die "$1 needs a value" ;;&
	--store) store=$2; shift 2 ;;
	--date) date=$2; shift 2 ;;
	--thresholds) table=$2; shift 2 ;;
	--report) report=$2; shift 2 ;;
	-h|--help) usage_exit 0 ;;
	-*) usage_die "unknown option '$1' (accepted: --store STORE, --date YYYYMMDD-HHMMSS, --thresholds FILE, --report FILE)" ;;
	*) [[ -z $night_dir ]] || usage_die "one NIGHT_DIR only ('$night_dir', then '$1')"
	   night_dir=$1; shift ;;
	esac
done
[[ $store ]] || usage_die "--store STORE is required"
[[ -d $store ]] || usage_die "--store $store: not a directory (a store that ci/store.sh wrote, or an empty one)"
[[ -f $store/index.tsv || -z $(ls -A "$store") ]] ||
	usage_die "--store $store: not a results store (no index.tsv; ci/store.sh writes one)"
[[ $night_dir ]] || usage_die "no NIGHT_DIR (ci/nightly's --out)"
[[ -d $night_dir ]] || usage_die "NIGHT_DIR $night_dir: not a directory"
: "${date:=$(date -u +%Y%m%d-%H%M%S)}"
[[ $date =~ ^[0-9]{8}-[0-9]{6}$ ]] ||
	usage_die "--date $date: expected YYYYMMDD-HHMMSS (UTC), e.g. $(date -u +%Y%m%d-%H%M%S)"
[[ -r $table ]] || usage_die "--thresholds $table: cannot read it"
store=$(cd "$store" && pwd)

work=$(mktemp -d "${TMPDIR:-/tmp}/mmub-baseline.XXXXXX")
trap 'rm -rf "$work"' EXIT
# shellcheck source=ci/manifest.sh
source "$here/manifest.sh"
manifest_load
# rules_for EXP: regress.sh's options for an experiment: its own
# thresholds (experiments.conf) under the machine's (--thresholds).
rules_for() {
	local f=$work/thresholds-$1.conf x

	x=$(manifest_resolve "$1") # a night from before a rename
	manifest_thresholds "${x:-$1}" >"$f"
	[[ -s $f ]] && printf '%s\n' --thresholds "$f"
	printf '%s\n' --thresholds "$table"
}
# The rules, checked before anything runs: the machine's overrides, then
# every experiment's (a metric no scenario declares is an error).
"$here/regress.sh" --thresholds "$table" --rules >/dev/null || exit
for x in "${mf_names[@]}"; do
	[[ $(manifest_get "$x" threshold) ]] || continue
	mapfile -t opts < <(rules_for "$x")
	err=$("$here/regress.sh" "${opts[@]}" --rules 2>&1 >/dev/null) ||
		usage_die "$MMUBENCH_EXPERIMENTS [$x] threshold: $(sed 's/^.*\.conf:[0-9]*: //' <<<"$err")"
done
# Tonight, keyed exactly as the store keys it.
"$here/store.sh" --store "$work/tonight" --date "$date" "$night_dir" >/dev/null

summary=() regressed=() compared=0 first=0
while IFS=$'\t' read -r _ _ arch kernel exp _ _ _ path; do
	key=$arch/$kernel/$exp
	prev=''
	if [[ -f $store/index.tsv ]]; then
		# Filed under its old name (an alias) before a rename.
		names=$(manifest_names_of "$exp" | paste -sd' ')
		prev=$(awk -F'\t' -v a="$arch" -v k="$kernel" -v e="$names" -v d="$date" '
			BEGIN { n = split(e, x, " "); for (i = 1; i <= n; i++) name[x[i]] = 1 }
			!/^#/ && $3 == a && $4 == k && ($5 in name) && $1 < d { print $1 "\t" $9 }' \
			"$store/index.tsv" | sort | tail -n 1 | cut -f2)
	fi
	if [[ -z $prev ]]; then
		first=$((first + 1))
		summary+=("  $key: no earlier night in the store: nothing to compare (passes)")
		continue
	fi
	compared=$((compared + 1))
	new_name=$(jq -r '.source | join(" + ")' "$work/tonight/$path/meta.json")
	echo "== $key: ${prev##*/} (the store) -> tonight"
	rc=0
	mapfile -t opts < <(rules_for "$exp")
	"$here/regress.sh" "${opts[@]}" \
		--old-name "$store/$prev/result.json" --new-name "$new_name" \
		"$store/$prev/result.json" "$work/tonight/$path/result.json" \
		>"$work/out" || rc=$?
	cat "$work/out"
	case $rc in
	0) summary+=("  $key: no regression against ${prev##*/} ($(sed -n 's/^regress: no regression in .* rows (\(.*\))$/\1/p' "$work/out"))") ;;
	1)	if grep -q '^REGRESSION  ' "$work/out"; then
			regressed+=("$key")
			summary+=("  $key: REGRESSION against ${prev##*/}")
			while IFS= read -r l; do summary+=("    $l"); done < <(grep '^REGRESSION  ' "$work/out")
		else
			die "$key: ci/regress.sh failed"
		fi ;;
	*) die "$key: ci/regress.sh exit $rc" ;;
	esac
done < <(grep -v '^#' "$work/tonight/index.tsv")

# The noise floor: each A/A experiment's rows, B/A and the t interval.
noise() {
	local c name
	for c in "$night_dir"/*/compare.json; do
		[[ -f $c ]] || continue
		jq -e '.a.label == .b.label' "$c" >/dev/null || continue
		name=${c%/compare.json} name=${name##*/}
		mapfile -t opts < <(rules_for "$name")
		# SCENARIO METRIC PCT, as regress.sh judges them.
		rules=$("$here/regress.sh" "${opts[@]}" --rules | cut -f1,2,4) || exit
		jq -r --arg name "$name" --arg rules "$rules" '
		def r1: (. * 10 | round) / 10;
		($rules | split("\n") | map(select(length > 0) | split("\t")
			| {key: (.[0] + "\t" + .[1]), value: .[2]}) | from_entries) as $t
		| .scenario as $sc
		| "noise floor, A/A \($name) (\(.a.label) against itself, \(.a.runs) + \(.b.runs) runs):",
		  (.rows[] | (if .a.median != 0 then (.b.median / .a.median - 1) * 100 else null end) as $d
			| (if .ttest.valid and .a.mean != 0 then (.ttest.ci_high - .ttest.diff) / (.a.mean | fabs) * 100 else null end) as $ci
			| $t[$sc + "\t" + .metric] as $thr
			| (if .resolution == null or .resolution.mde_pct == null and .resolution.reachable then "n/a" elif .resolution.reachable | not then "none" else "+/-\(.resolution.mde_pct | r1) %" end) as $res
			| (if .resolution == null or (.resolution.reachable | not) then null else .resolution.mde_pct end) as $mde
			| "  \(.metric) \(.row): medians differ by \(if $d == null then "n/a" else "\(if $d >= 0 then "+" else "" end)\($d | r1) %" end), t interval +/- \(if $ci == null then "n/a" else "\($ci | r1) %" end) of the mean, resolution \($res); threshold \(if $thr == null then "none" else "\($thr) %" end)\(if $thr != null and $ci != null and $ci > ($thr | tonumber) then " (inside that interval)" else "" end)\(if $thr != null and ($mde == null or $mde > ($thr | tonumber)) then " (finer than the resolution: cannot tell)" else "" end)")
		' "$c"
	done
}
{
	noise_lines=$(noise)
	if [[ $noise_lines ]]; then
		echo "$noise_lines"
	else
		echo "noise floor: no A/A experiment tonight (enable-init-set is one)"
	fi
	echo "baseline: tonight against the store $store:"
	printf '%s\n' "${summary[@]}"
	if ((${#regressed[@]})); then
		echo "baseline: ${#regressed[@]} regressed of $compared compared ($first without an earlier night): ${regressed[*]}"
	else
		echo "baseline: no regression ($compared compared, $first without an earlier night)"
	fi
} >"$work/report"
cat "$work/report"
[[ -z $report ]] || { cp "$work/report" "$report.tmp" && mv "$report.tmp" "$report"; }
((${#regressed[@]} == 0))
