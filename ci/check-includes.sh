#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The host's structure, checked from its #include lines: no cycle between
# files (a .c and its .h are one module) nor between the folders of host/,
# results/ and util/ free of VMM and scenario code (they link alone), and
# no host file reaching into the guest's tree (shared code is in common/).
#
#   ci/check-includes.sh [TREE]      (default: this tree; exit 1 if broken)
#   ci/check-includes.sh --graph     the folder graph, "FROM -> TO (N)"
set -euo pipefail

graph=0
[[ ${1:-} == --graph ]] && { graph=1; shift; }
[[ ${1:-} == -h || ${1:-} == --help ]] && {
	echo "usage: ci/check-includes.sh [--graph] [TREE]"; exit 0; }
cd "${1:-${BASH_SOURCE[0]%/*}/..}"
[[ -d host ]] || { echo "check-includes: no host/ in $PWD" >&2; exit 2; }

# "FROM TO" per quoted include, as modules (paths under host/, no suffix).
edges() {
	local f m dir h t
	while IFS= read -r f; do
		m=${f#host/}; m=${m%.[ch]}
		dir=$(dirname "$f")
		grep -o '^#include "[^"]*"' "$f" | sed 's/^#include "//; s/"$//' |
		while IFS= read -r h; do
			if [[ -f host/$h ]]; then t=host/$h
			elif [[ -f $dir/$h ]]; then t=$(realpath -m --relative-to=. "$dir/$h")
			else echo "$m !missing:$h"; continue; fi
			t=${t#host/}
			[[ ${t%.[ch]} != "$m" ]] && echo "$m ${t%.[ch]}"
		done
	done < <(find host -name '*.[ch]' | sort)
	return 0
}

folder() { awk '{ split($1, a, "/"); split($2, b, "/");
	fa = a[2] ? a[1] : "(top)"; fb = b[2] ? b[1] : "(top)";
	if (fa != fb) print fa, fb }'; }

e=$(edges | sort -u)
if ((graph)); then
	folder <<<"$e" | sort | uniq -c | awk '{ print $2, "->", $3, "(" $1 ")" }'
	exit 0
fi
bad=0
loop() { # WHAT EDGES
	local out
	if ! out=$(tsort <<<"$2" 2>&1 >/dev/null); then
		echo "check-includes: a cycle between $1:" \
			"$(grep -v 'input contains a loop' <<<"$out" | sed 's/^tsort: //' | paste -sd' ')"
		bad=1
	fi
}
loop files "$(grep -v '!missing' <<<"$e" || true)"
loop folders "$(grep -v '!missing' <<<"$e" | folder | sort -u)"
while read -r from to; do
	case $to in
	'!missing:'*)
		echo "check-includes: host/$from includes \"${to#!missing:}\", which is not in host/"
		bad=1 ;;
	esac
	case $from/ in
	results/*)
		[[ $to == results/* || $to == util/* ]] || {
			echo "check-includes: host/$from includes $to: results/ uses results/ and util/ only"
			bad=1; } ;;
	util/*)
		[[ $to == util/* ]] || {
			echo "check-includes: host/$from includes $to: util/ uses util/ only"
			bad=1; } ;;
	esac
done <<<"$e"
if grep -rn '#include "\.\./' host; then
	echo "check-includes: host/ reaches outside itself (shared code lives in common/ and include/)"
	bad=1
fi
((bad)) || echo "check-includes: $(wc -l <<<"$e") includes between $(find host -name '*.[ch]' | wc -l) files: no cycle between files or folders"
exit $bad
