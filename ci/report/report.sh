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
#   ci/report/report.sh [--out DIR] [--trend N] NIGHT...
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
#
# This is the driver: the options, the experiments, the nights and the
# page's file.  The page is sections.sh's, its plots charts.sh's, and
# whatever they read from JSON is a function of report.jq, which
# test/report.bats also calls on its own.
set -euo pipefail

# The name the page and the messages have always given it (ci/nightly's
# logs, the tests): the script moved to ci/report/, its output did not.
prog=ci/report/report.sh
# shellcheck source=lib/preamble.sh
source "$(dirname "${BASH_SOURCE[0]}")/../../lib/preamble.sh"
out='' trend=30 nights=()
mmub=${MMUBENCH:-$repo/build/mmubench}

while (($#)); do
	case $1 in
	--out|--trend) (($# >= 2)) || die "$1 needs a value" 2 ;;&
	--out) out=$2; shift 2 ;;
	--trend) trend=$2; shift 2 ;;
	-h|--help) usage_exit 0 '/^#   ci\/report\/report.sh/,/^# index/{/^# index/d;s/^#//p}' ;;
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

# rjq FILTER [JQ OPTIONS] [FILE...]: jq with report.jq's functions.
rjq() { jq -L "$here" "include \"report\"; $1" "${@:2}"; }

# TEXT as HTML, as jq's @html writes it.  A jq costs more than the rest
# of a heading, so plain ASCII is done here; a ' (&apos; in jq 1.6, &#39;
# in 1.7) and any other byte (invalid UTF-8 becomes U+FFFD) go to jq.
esc() { # TEXT
	local s=$1
	if [[ $s == *[![:ascii:]]* || $s == *\'* ]]; then
		rjq esc -Rr <<<"$s"
		return
	fi
	s=${s//&/'&amp;'} s=${s//</'&lt;'} s=${s//>/'&gt;'} s=${s//\"/'&quot;'}
	printf '%s\n' "$s"
}

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

# shellcheck source=ci/report/charts.sh
source "$here/charts.sh"
# shellcheck source=ci/report/sections.sh
source "$here/sections.sh"

# ---- the experiments --------------------------------------------------------------

# The nightly's experiments (experiments.conf), in its order, then the
# peer; another folder with a compare.json, or another LABEL/NAME.json,
# is reported after them.  What each measures, for an A/B night and for
# a direct one, and the metric whose trend is drawn (else compare's
# first).
# shellcheck source=ci/manifest.sh
source "$repo/ci/manifest.sh"
manifest_load
mapfile -t experiments < <(manifest_default)
experiments+=(peer)
declare -A about=(
	[peer]='x86_64: the kernel&#39;s dirty_log_perf_test (A) beside mmubench dirty-log (B)'
) about_direct=() headline=()
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

# ---- direct nights: LABEL/NAME.json, one kernel each --------------------------------

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
	elif ! rjq 'nrows > 0' -e "$c" >/dev/null; then
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

# ---- the page ---------------------------------------------------------------------

noise_rows "$last" >"$work/noise.tsv"
: >"$work/env"
{
	page_head
	summary_section
	noise_section
	curve_section
	experiment_sections
	environment_section
	steps_section
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
