#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Is NEW worse than OLD?  "mmubench compare OLD NEW" (every run one
# sample), then each row of a metric with a threshold is judged: a
# regression when t and Mann-Whitney both find it significant at 95 %
# and its median moved the wrong way by more than the metric's threshold
# (each scenario declares its metrics, their direction and threshold:
# "mmubench metrics"; ci/regressions.conf says how, and overrides).  A
# row neither test flags is "no change" only where compare's resolution
# (the smallest change both would flag 4 times in 5) is within the
# threshold; where it is wider, the row says "cannot tell".
#
# The runs' other numbers (compare's "also changed": each phase's VM and
# vCPU stats, wall times, the scenario's own counts) that moved are said
# ("changed"), never a regression, unless a rule names one as
# "counter:NAME", NAME as compare prints it: its row is then judged as a
# metric's, by compare's own verdict (t after Benjamini-Hochberg, and
# Mann-Whitney).
#
#   ci/regress.sh [--thresholds FILE] [--old-name TEXT] [--new-name TEXT]
#                 [--out DIR] OLD.json NEW.json
#   ci/regress.sh [--thresholds FILE] --rules
#
#   --thresholds FILE  thresholds that replace the scenarios' own, one row
#                      a metric (default ci/regressions.conf); several:
#                      a later file's rows replace an earlier's
#   --old-name, --new-name
#                      what the lines call the two sides (default the
#                      files), e.g. the store entry and tonight's runs
#   --out DIR          keep compare.txt and compare.json there
#   --rules            print the rules instead, one a line:
#                      SCENARIO<TAB>METRIC<TAB>lower|higher<TAB>PERCENT
#                      (METRIC a declared one, or counter:NAME)
#
# One line per judged row ("REGRESSION", "worse", "better", "no change",
# "cannot tell"), one per other number that changed ("changed") and per
# counter rule that names none of these runs ("no such"), then a summary
# with the count of no change, cannot tell and changed.
# Exit 0: no regression ("cannot tell" passes, counted); 1: a regression
# (or compare failed); 2: usage.
set -euo pipefail

prog=ci/regress.sh
# shellcheck source=lib/preamble.sh
source "$(dirname "${BASH_SOURCE[0]}")/../lib/preamble.sh"
mmubench=${MMUBENCH_BIN:-$repo/build/mmubench}
tables=() old_name='' new_name='' out='' files=() rules_only=0

while (($#)); do
	case $1 in
	--thresholds|--old-name|--new-name|--out)
		(($# >= 2)) || usage_die "$1 needs a value" ;;&
	--thresholds) tables+=("$2"); shift 2 ;;
	--old-name) old_name=$2; shift 2 ;;
	--new-name) new_name=$2; shift 2 ;;
	--out) out=$2; shift 2 ;;
	--rules) rules_only=1; shift ;;
	-h|--help) usage_exit 0 ;;
	-*) usage_die "unknown option '$1' (accepted: --thresholds FILE, --old-name TEXT, --new-name TEXT, --out DIR, --rules)" ;;
	*) files+=("$1"); shift ;;
	esac
done
if ((!rules_only)); then
	((${#files[@]} == 2)) || usage_die "expected two files, OLD.json NEW.json (got ${#files[@]})"
	for f in "${files[@]}"; do
		[[ -r $f ]] || usage_die "$f: cannot read it"
	done
	: "${old_name:=${files[0]}}" "${new_name:=${files[1]}}"
fi
((${#tables[@]})) || tables=("$here/regressions.conf")
for t in "${tables[@]}"; do
	[[ -r $t ]] || usage_die "--thresholds $t: cannot read it"
done
[[ -x $mmubench ]] || die "$mmubench: no mmubench binary (run make)"
command -v jq >/dev/null || die "missing jq: apt-get install jq (ci/deps.sh)"

# declared: the scenarios' own metrics ("mmubench metrics"), as
# "SCENARIO<TAB>METRIC<TAB>BETTER<TAB>PCT", PCT "-" where not judged.
declared() {
	metrics_tsv "$mmubench" | cut -f1-4
}

# overrides FILE: the table as "SCENARIO<TAB>METRIC<TAB>BETTER<TAB>PCT",
# or exit 2 naming the first bad line (a metric no scenario declares is
# one: a misspelt override would judge nothing).
overrides() {
	awk -v file="$1" -F'\t' '
	function trim(s) { gsub(/^[ \t]+|[ \t]+$/, "", s); return s }
	FILENAME == ARGV[1] { known[$1 SUBSEP $2] = 1; next }
	/^[ \t]*(#|$)/ { next }
	{
		n = split($0, f, "|")
		s = trim(f[2]); m = trim(f[3]); b = trim(f[4]); p = trim(f[5])
		if (n != 6 || trim(f[1]) != "" || trim(f[6]) != "" || s == "" ||
		    m == "" || (b != "lower" && b != "higher") ||
		    p !~ /^[0-9]+(\.[0-9]+)?$/) {
			printf "ci/regress.sh: error: --thresholds %s:%d: \"%s\": " \
			       "expected | SCENARIO | METRIC | lower or higher | PERCENT |\n",
			       file, FNR, $0 > "/dev/stderr"
			bad = 1
			exit 2
		}
		if (m !~ /^counter:./ && !((s SUBSEP m) in known)) {
			printf "ci/regress.sh: error: --thresholds %s:%d: %s %s: no scenario " \
			       "declares it (mmubench metrics lists them)\n", file, FNR, s, m > "/dev/stderr"
			bad = 1
			exit 2
		}
		if ((s SUBSEP m) in seen) {
			printf "ci/regress.sh: error: --thresholds %s:%d: %s %s: listed twice " \
			       "(first on line %d)\n", file, FNR, s, m, seen[s, m] > "/dev/stderr"
			bad = 1
			exit 2
		}
		seen[s, m] = FNR
		printf "%s\t%s\t%s\t%s\n", s, m, b, p
	}
	END { if (bad) exit 2 }' <(echo "$2") "$1"
}

# rules: the declared rules that judge (a direction and a threshold),
# each replaced by its override where FILE has one.
rules_of() { # DECLARED OVERRIDES
	awk -F'\t' 'FILENAME == ARGV[1] { o[$1 SUBSEP $2] = $0; next }
		($1 SUBSEP $2) in o { print o[$1 SUBSEP $2]; next }
		$3 != "-" && $4 != "-"
		END { for (k in o) if (o[k] ~ /^[^\t]*\tcounter:/) print o[k] }' <(echo "$2") <(echo "$1")
}
declared=$(declared)
[[ $declared ]] || die "$mmubench metrics printed no metrics"
# Each file's rows over the earlier files'.
over=$(for t in "${tables[@]}"; do overrides "$t" "$declared" || exit 2; done |
	awk -F'\t' '{ o[$1 SUBSEP $2] = $0 } END { for (k in o) print o[k] }') || exit 2
rules=$(rules_of "$declared" "$over")
if ((rules_only)); then
	printf '%s\n' "$rules"
	exit 0
fi

work=$(mktemp -d "${TMPDIR:-/tmp}/mmub-regress.XXXXXX")
trap 'rm -rf "$work"' EXIT
rc=0
"$mmubench" compare "${files[0]}" "${files[1]}" --labels old,new \
	--json "$work/compare.json" >"$work/compare.txt" 2>"$work/compare.err" || rc=$?
if [[ $out ]]; then
	mkdir -p "$out"
	cp "$work/compare.txt" "$work/compare.err" "$out/" 2>/dev/null || true
	[[ ! -f $work/compare.json ]] || cp "$work/compare.json" "$out/"
fi
if ((rc)) || [[ ! -f $work/compare.json ]]; then
	cat "$work/compare.err" >&2
	die "mmubench compare ${files[0]} ${files[1]} failed (exit $rc)"
fi

# A rule may name one of the runs' other numbers, as compare prints it
# in "also changed" (each phase's VM and vCPU stats, wall times, the
# scenario's own counts): "counter:zap vm.remote_tlb_flush_requests".
# Its row is judged as a metric's, "both tests" being compare's own
# verdict: t after Benjamini-Hochberg, and Mann-Whitney.
scenario=$(jq -r .scenario "$work/compare.json")
counter_rules=$(awk -F'\t' -v sc="$scenario" '$1 == sc && $2 ~ /^counter:/' <<<"$rules")
judged_doc=$work/compare.json
if [[ $counter_rules ]]; then
	"$mmubench" compare "${files[0]}" "${files[1]}" --labels old,new --all-counters \
		--json "$work/all.json" >/dev/null 2>"$work/all.err" ||
		{ cat "$work/all.err" >&2; die "mmubench compare --all-counters failed"; }
	jq '.rows += [.a.runs as $na | .b.runs as $nb | .counters.sides[0].rows[] |
		(.verdict | startswith("changed")) as $sig |
		{metric: ("counter:" + .counter), row, a: {median: .a_median, n: $na},
		 b: {median: .median, n: $nb}, ttest: {significant: $sig},
		 mann_whitney: {significant: $sig, p: .mann_whitney_p}, resolution}]' \
		"$work/all.json" >"$work/judged.json"
	judged_doc=$work/judged.json
fi

# Per row of a listed metric: "STATUS<TAB>METRIC ROW<TAB>line".  The
# row's resolution (compare's MDE at 80 % power, in % of OLD's mean)
# decides what a change that both tests do not flag means:
#   REGRESSION   worse by both tests, beyond the threshold: fails
#   worse        worse by both tests, within the threshold
#   better       better by both tests
#   no change    not flagged, and a change of the threshold's size would
#                have been (resolution within the threshold)
#   cannot tell  not flagged, but the resolution is wider than the
#                threshold (or the median moved beyond it unflagged): a
#                regression of the threshold's size could hide there
# A number as the lines print it (jq 1.6 has no printf).
fmt_def='def fmt: if . == null then "-"
	elif (. | fabs) >= 100 then (. | round | tostring)
	elif (. | fabs) >= 10 then ((. * 10 | round) / 10 | tostring)
	else ((. * 1000 | round) / 1000 | tostring) end;'
jq -r --arg rules "$rules" --arg old "$old_name" --arg new "$new_name" "$fmt_def"'
def pct: (if . >= 0 then "+" else "" end) + ((. * 10 | round) / 10 | tostring) + " %";
def res: if .resolution == null or (.resolution.reachable | not) then null
	else .resolution.mde_pct end;
def res_text: if .resolution != null and (.resolution.reachable | not)
	then "none (Mann-Whitney cannot reach 95 % with \(.a.n) and \(.b.n) runs)"
	elif res == null then "unknown"
	else "+/-" + ((res * 10 | round) / 10 | tostring) + " %" end;
($rules | split("\n") | map(select(length > 0) | split("\t")
	| {key: (.[0] + "\t" + .[1]), value: {better: .[2], pct: (.[3] | tonumber)}})
	| from_entries) as $t
| .scenario as $sc
| .rows[]
| $t[$sc + "\t" + .metric] as $r
| select($r != null)
| (.a.median) as $a | (.b.median) as $b
| (if $a != 0 and $a != null and $b != null then ($b / $a - 1) * 100 else null end) as $d
| (if $d == null then null elif $r.better == "lower" then $d else -$d end) as $worse
| (.ttest.significant and .mann_whitney.significant) as $sig
| "\($sc) \(.metric) \(.row)" as $what
| "\(.metric) \(.row)\t" as $mr
| "median \($a | fmt) -> \($b | fmt) (\(if $d == null then "no ratio" else ($d | pct) end); threshold \($r.pct) %, \($r.better) is better)" as $moved
| "resolution \(res_text)" as $res
| if $worse == null then "ok\t\($mr)  ok          \($what): \($moved): not judged, the old median is 0"
  elif $sig and $worse > $r.pct then
	"REGRESSION\t\($mr)REGRESSION  \($what): \($moved); worse at 95 % by t and Mann-Whitney; runs: old \($old) (\(.a.n) runs), new \($new) (\(.b.n) runs)"
  elif $sig and $worse > 0 then
	"worse\t\($mr)  worse       \($what): \($moved); significant, within the threshold"
  elif $sig then "better\t\($mr)  better      \($what): \($moved); better at 95 % by both tests"
  elif res == null or res > $r.pct then
	"cannot tell\t\($mr)  cannot tell \($what): \($moved); \($res)\(if res == null then "" else ", wider than the threshold" end): a regression of \($r.pct) % could hide here"
  elif $worse > $r.pct then
	"cannot tell\t\($mr)  cannot tell \($what): \($moved); beyond the threshold but not significant by both (t \(if .ttest.significant then "yes" else "no" end), MW p \(.mann_whitney.p | fmt)); \($res)"
  else "no change\t\($mr)  no change   \($what): \($moved); no change beyond the \($res)" end
' "$judged_doc" >"$work/verdicts"

cut -f3- "$work/verdicts"
judged=$(wc -l <"$work/verdicts")
unlisted=$(jq -r --arg rules "$rules" '.scenario as $sc
	| ($rules | split("\n") | map(split("\t") | .[0] + "\t" + .[1])) as $t
	| [.rows[] | select(($sc + "\t" + .metric) as $k | $t | index($k) | not) | .metric]
	| unique | join(", ")' "$work/compare.json")
[[ -z $unlisted ]] || echo "  not judged (no threshold in mmubench metrics or ${tables[*]}): $unlisted"
# A counter rule that matches no number of these runs judges nothing.
while IFS=$'\t' read -r _ m _ _; do
	[[ $m ]] || continue
	jq -e --arg c "${m#counter:}" 'any(.counters.sides[0].rows[]; .counter == $c)' \
		"$work/all.json" >/dev/null ||
		echo "  no such     $scenario $m: these runs have no such number (mmubench compare --all-counters lists them): not judged"
done <<<"$counter_rules"
# The other numbers that compare found changed, which no rule names: a
# change to look at, never a regression.
jq -r --arg rules "$counter_rules" "$fmt_def"'
($rules | split("\n") | map(split("\t")[1] // "" | ltrimstr("counter:"))) as $named
| .scenario as $sc
| .counters.sides[0].rows[]?
| select((.verdict | startswith("changed")) and (.counter as $c | $named | index($c) | not))
| "  changed     \($sc) \(.counter) \(.row): median \(.a_median | fmt) -> \(.median | fmt)\(if .ratio == null then "" else " (B/A \(.ratio | fmt))" end); t after Benjamini-Hochberg and Mann-Whitney: a change, not judged (no rule names it)"
' "$work/compare.json" >"$work/others"
cat "$work/others"
others=$(wc -l <"$work/others")
count() { awk -F'\t' -v s="$1" '$1 == s' "$work/verdicts" | wc -l; }
unclear=$(count 'cannot tell')
tally="$(count 'no change') no change beyond resolution, $unclear cannot tell; $others other numbers changed, not judged"
bad=$(count REGRESSION)
if ((bad)); then
	echo "regress: $bad of $judged judged rows regressed: $(awk -F'\t' '
		$1 == "REGRESSION" { printf "%s%s", n++ ? ", " : "", $2 }' "$work/verdicts") ($tally)"
	exit 1
fi
echo "regress: no regression in $judged judged rows ($tally)"
