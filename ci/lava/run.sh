#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The one step of the LAVA test definition (ci/lava/mmubench.yaml): run
# mmubench's experiments on the kernel the device booted (ci/nightly
# --direct), then report them to LAVA, each experiment as test cases and
# each metric as a measurement (ci/lava/README.md).
#
#   ci/lava/run.sh [--label LABEL] [--only LIST] [--repeat R] [--out DIR]
#   ci/lava/run.sh --results DIR [--label LABEL] [--only LIST]
#
#   --label LABEL  the booted kernel's name in the results (default
#                  ARCH-KERNELRELEASE, as the bare-metal nightly)
#   --only LIST    the experiments, as ci/nightly --only (default, and
#                  when empty: the nightly's default experiments of
#                  experiments.conf and the peer, not the tests)
#   --repeat R     runs of each experiment (default 5)
#   --out DIR      ci/nightly's folder (default, and when empty: build/lava)
#   --results DIR  report a night ci/nightly --direct wrote; run nothing
#
# Test cases ("lava-test-case NAME --result pass|fail|skip"):
#   STEP            each other step of the night (build, report, ...)
#   EXP.run         the experiment ran and left results compare reads;
#                   skip where ci/nightly skipped it (another arch)
#   EXP.verify      its runs' own checks passed: zap's integrity
#                   violations, migrate's page mismatches, every dirty
#                   log oracle's missed pages all 0 (scenarios that have
#                   such a check only)
#   EXP.METRIC.ROW  pass with "--measurement MEDIAN --units U": the
#                   median of the runs of each metric "mmubench compare"
#                   reports (the peer's: both programs'); fail without a
#                   value
# A step, experiment or file missing is a fail.  Without lava-test-case
# on PATH (not in LAVA) each case is printed as "NAME: RESULT [VALUE
# UNITS]".  Exit 0 when every case was reported, whatever the results
# (LAVA's test shell stops at the first failing step); 1 if one could not
# be; 2 for bad input.
set -uo pipefail

prog=ci/lava/run.sh
# shellcheck source=lib/preamble.sh
source "$(dirname "${BASH_SOURCE[0]}")/../../lib/preamble.sh"
label='' only='' repeat=5 out='' results=''
mmub=${MMUBENCH:-$repo/build/mmubench}

while (($#)); do
	case $1 in
	--label|--only|--repeat|--out|--results)
		(($# >= 2)) || die "$1 needs a value" 2 ;;&
	--label) label=$2 ;;
	--only) only=$2 ;;
	--repeat) repeat=$2 ;;
	--out) out=$2 ;;
	--results) results=$2 ;;
	-h|--help) usage_exit 0 '/^#   ci\/lava\/run.sh/,/^#   --results/s/^#//p' ;;
	*) die "unknown option '$1' (accepted: --label, --only, --repeat, --out, --results; see --help)" 2 ;;
	esac
	shift 2
done
[[ -z $label || $label =~ ^[A-Za-z0-9._-]+$ ]] ||
	die "--label $label: expected letters, digits, '.', '_' and '-'" 2
[[ $repeat =~ ^[1-9][0-9]*$ ]] || die "--repeat $repeat: expected a number >= 1" 2
# The nightly's default experiments (experiments.conf) and the peer.
# shellcheck source=ci/manifest.sh
source "$repo/ci/manifest.sh"
manifest_load
all=$(manifest_default | paste -sd,),peer
: "${only:=$all}"
# An old name (experiments.conf's alias) stands for the experiment.
names=''
for o in ${only//,/ }; do
	n=$(manifest_resolve "$o")
	[[ -z $n || $n == "$o" ]] || note "--only $o: now named $n (experiments.conf)"
	o=${n:-$o}
	[[ ,$all,tests, == *,$o,* ]] || die "--only $o: unknown (accepted: tests, ${all//,/, })" 2
	names+=${names:+,}$o
done
only=$names
[[ -z $results || -d $results ]] ||
	die "--results $results: not a directory (a ci/nightly --direct --out folder)" 2
command -v jq >/dev/null || die "jq not found: install jq (ci/deps.sh)"

# ---- reporting ---------------------------------------------------------------

ncase=0 npass=0 nfail=0 nskip=0 nmeas=0 broken=0
# case NAME RESULT [VALUE UNITS] [-- WHY]: one test case.
case_() {
	local name=$1 result=$2 value='' units='' why=''
	shift 2
	if (($# >= 2)) && [[ $1 != -- ]]; then
		value=$1 units=$2
		shift 2
	fi
	[[ ${1:-} != -- ]] || why=$2
	ncase=$((ncase + 1))
	case $result in
	pass) npass=$((npass + 1)) ;;
	fail) nfail=$((nfail + 1)) ;;
	skip) nskip=$((nskip + 1)) ;;
	esac
	[[ -z $why ]] || echo "$prog: $name: $result: $why"
	if command -v lava-test-case >/dev/null; then
		if [[ $value ]]; then
			nmeas=$((nmeas + 1))
			lava-test-case "$name" --result "$result" --measurement "$value" --units "$units"
		else
			lava-test-case "$name" --result "$result"
		fi || { echo "$prog: error: lava-test-case $name failed" >&2; broken=1; }
	else
		[[ -z $value ]] || nmeas=$((nmeas + 1))
		echo "$name: $result${value:+ $value $units}"
	fi
}

# The step's verdict in time.txt: ok, FAIL, skip, or nothing.
step_of() { # NIGHT NAME
	[[ -f $1/time.txt ]] || return 0
	awk -v n="$2" '($1 == "ok" || $1 == "FAIL") && $2 == n { print $1; exit }
		$1 == "skip" && $2 == n ":" { print "skip"; exit }' "$1/time.txt"
}

# Each runs' own checks, where the scenario has one: "pass", "fail: WHY"
# or "none".  A check the scenario must have and a run lacks fails.
verify_of() { # FILE.json
	jq -r '
	[.results.runs[]?] as $r
	| {zap: "zap.integrity_violations", migrate: "migrate.mismatches"}[.scenario] as $k
	| ($k // "" | split(".")) as $p
	| [$r[] | .. | objects | .verify? | objects | .missed] as $missed
	| if $k == null and ($missed | length) == 0 then
		if .config.verify == true then "fail: config.verify is on, but no run has an oracle (verify.missed)"
		else "none" end
	  elif $k != null and any($r[]; getpath($p) | type != "number") then
		"fail: a run without \($k)"
	  elif ([$r[] | getpath($p) // 0] | add // 0) != 0 then
		"fail: \([$r[] | getpath($p)] | add) \($k) over \($r | length) runs"
	  elif ($missed | add // 0) != 0 then
		"fail: the dirty log oracle missed \($missed | add) pages"
	  else "pass" end' "$1"
}

# The units the scenarios declare ("mmubench metrics"), a JSON object
# keyed "SCENARIO METRIC".
declared_units() {
	metrics_tsv "$mmub" | awk -F'\t' '{ print $1 " " $2 "\t" $5 }' |
		jq -Rn '[inputs | split("\t") | {(.[0]): .[1]}] | add // {}'
}

# compare's rows as cases: "NAME<TAB>MEDIAN<TAB>UNITS", per side given
# ("a" for a direct run compared with itself, "a b" for the peer).  The
# units are the metric's declared ones; a metric no scenario declares
# (the peer's, a --metric path) gets them from its name.
measurements() { # EXP COMPARE.json SIDE...
	local x=$1 c=$2
	shift 2
	jq -r --arg x "$x" --arg sides "$*" --argjson declared "$units_of" '
	def tc: sub("^results\\.runs\\[\\]\\."; "") | gsub("[^A-Za-z0-9.-]+"; "_")
		| gsub("_-+"; "_") | gsub("^[_-]+|[_-]+$"; "");
	def units: if test("per_s") then "pages/s" elif test("_ms\\b") then "ms"
		elif test("_us\\b") then "us" elif test("(^|_)ns(_|\\b)") then "ns"
		elif test("bytes") then "bytes" elif test("pages|harvest") then "pages"
		else "count" end;
	. as $c | ($sides | split(" ")) as $s
	| .rows[] as $row | $s[] as $side
	| ($declared[($c.scenario // "") + " " + $row.metric]
	   // ($row.metric | units)) as $u
	| [([$x] + (if ($s | length) > 1 then [$c[$side].label // $side] else [] end)
	    + [$row.metric, ($row.row // "-")] | map(tc) | join(".")),
	   ($row[$side].median // "" | tostring), $u] | @tsv' "$c"
}

# One experiment of NIGHT's LABEL: .run, .verify and the measurements.
report_experiment() { # NIGHT LABEL EXP
	local night=$1 l=$2 x=$3 st f c why='' v name value units
	st=$(step_of "$night" "$x")
	if [[ $st == skip ]]; then
		case_ "$x.run" skip -- "$(awk -v n="$x:" '$1 == "skip" && $2 == n { $1 = $2 = ""; sub(/^ +/, ""); print; exit }' "$night/time.txt")"
		return
	fi
	c=$work/$x.json
	if [[ $x == peer ]]; then
		f=$night/$l/peer/compare.json
	else
		f=$night/$l/$x.json
	fi
	if [[ ! -f $night/time.txt ]]; then
		why="no $night/time.txt: the night did not finish"
	elif [[ -z $st ]]; then
		why="not in $night/time.txt: not run"
	elif [[ $st == FAIL ]]; then
		why="ci/nightly: $(grep -m1 "^  FAIL $x " "$night/time.txt" | sed -e 's/^  //')"
	elif [[ ! -s $f ]]; then
		why="its step passed but left no ${f#"$night"/}"
	elif [[ $x == peer ]]; then
		if jq -e '.rows | length > 0' "$f" >/dev/null 2>&1; then
			cp "$f" "$c"
		else
			why="${f#"$night"/}: no comparison row in it"
		fi
	elif ! jq -e '.results.runs | length > 0' "$f" >/dev/null 2>&1; then
		why="${f#"$night"/}: no run in it"
	elif ! "$mmub" compare "$f" "$f" --json "$c" >"$work/compare.out" 2>&1; then
		why="mmubench compare cannot read ${f#"$night"/}: $(grep -m1 . "$work/compare.out")"
	elif ! jq -e '.rows | length > 0' "$c" >/dev/null; then
		why="${f#"$night"/}: no metric of its scenario in it"
	fi
	if [[ $why ]]; then
		case_ "$x.run" fail -- "$why"
		return
	fi
	case_ "$x.run" pass
	if [[ $x != peer ]]; then
		v=$(verify_of "$f")
		case $v in
		pass) case_ "$x.verify" pass ;;
		none) ;;
		*) case_ "$x.verify" fail -- "${v#fail: }" ;;
		esac
	fi
	while IFS=$'\t' read -r name value units; do
		if [[ $value ]]; then
			case_ "$name" pass "$value" "$units"
		else
			case_ "$name" fail -- "no value in any run"
		fi
	done < <(if [[ $x == peer ]]; then measurements "$x" "$c" a b; else measurements "$x" "$c" a; fi)
}

report_night() { # NIGHT
	local night=$1 l s x labels=()
	if [[ ! -f $night/time.txt ]]; then
		case_ nightly fail -- "no $night/time.txt: ci/nightly did not finish"
	else
		case_ nightly pass
		# The steps that are not experiments: build, tests, report, ...
		while read -r s x; do
			[[ ,$all, == *,$x,* ]] && continue
			case_ "$x" "$([[ $s == ok ]] && echo pass || echo fail)"
		done < <(awk '$1 == "ok" || $1 == "FAIL" { print $1, $2 }' "$night/time.txt")
	fi
	l=$label
	if [[ -z $l ]]; then
		for s in "$night"/*/; do
			s=${s%/}
			[[ ${s##*/} != report ]] || continue
			if [[ -n $(compgen -G "$s/*.json") || -d $s/peer ]]; then
				labels+=("${s##*/}")
			fi
		done
		((${#labels[@]} <= 1)) ||
			die "--results $night: labels ${labels[*]}: name one with --label" 2
		l=${labels[0]:-none}
	fi
	echo "$prog: $night, label $l"
	for x in ${only//,/ }; do
		[[ $x == tests ]] || report_experiment "$night" "$l" "$x"
	done
}

work=$(mktemp -d "${TMPDIR:-/tmp}/mmub-lava.XXXXXX") || exit 1
trap 'rm -rf "$work"' EXIT

if [[ -z $results ]]; then
	if [[ -z $label ]]; then
		label="$(uname -m)-$(uname -r)"
		label=${label//[^A-Za-z0-9._-]/_}
	fi
	: "${out:=$repo/build/lava}"
	# Its own verdicts go to time.txt; the cases say what failed.
	"$repo/ci/nightly" --out "$out" --direct "$label" --only "$only" --repeat "$repeat"
	echo "$prog: ci/nightly exit $?"
	results=$out
fi
[[ -x $mmub ]] || die "$mmub not found (make; or set MMUBENCH)"
units_of=$(declared_units) || die "$mmub metrics failed"
report_night "$results"
echo "$prog: $ncase test cases: $npass pass, $nfail fail, $nskip skip; $nmeas measurements"
((broken == 0))
