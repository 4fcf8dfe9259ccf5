#!/bin/bash
# shellcheck shell=bash
# SPDX-License-Identifier: GPL-2.0
# The experiments' manifest, experiments.conf (its header says what each
# key means), for ci/nightly, ci/report/report.sh, ci/lava/run.sh,
# ci/fidelity.sh and ci/baseline.sh.  Sourced; MMUBENCH_EXPERIMENTS names
# another file (the tests' stand-ins).  Run, "ci/manifest.sh --names"
# prints the experiments' names in order, one a line, for whoever would
# otherwise repeat them (the tests).
#
#   manifest_load            read and check it, once: mf_names (in order)
#                            and mf[NAME.KEY] (a repeated key's values
#                            one a line); a bad file is one line, exit 2
#   manifest_get NAME KEY    the value, or nothing
#   manifest_default         the names of the default list, one a line
#   manifest_series NAME BASE
#                            the series it compares with on BASE
#   manifest_expand NAME VCPUS MEM TEXT
#                            TEXT with $VCPUS, $MEM and its env.NAME knobs
#   manifest_figures         the seeds' figures, ci/fidelity.sh's columns
#   manifest_traded          the kernels that trade places on a base:
#                            BASE SEED LABEL_ON_6.1 LABEL_ON_BASE
#   manifest_thresholds NAME its threshold lines as regress.sh overrides
#   manifest_resolve NAME    the stanza a name or an old name (alias) names
#   manifest_names_of NAME   the name and its old ones, one a line
#   manifest_night_dir NIGHT NAME [SUFFIX]
#                            its folder (or NAME.json) in a night, under
#                            an old name in a night from before the rename

: "${MMUBENCH_EXPERIMENTS:=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)/experiments.conf}"

# NAME<TAB>KEY<TAB>VALUE records of the file, stanza by stanza ("NAME<TAB>[<TAB>"
# opens one), or one line "FILE:LINE: what is wrong" on stderr and exit 2.
manifest_records() {
	awk -v file="$1" '
	function bad(why) {
		printf "%s:%d: %s\n", file, FNR, why > "/dev/stderr"
		failed = 1
		exit 2
	}
	function trim(s) { gsub(/^[ \t]+|[ \t]+$/, "", s); return s }
	function close_stanza() {
		if (name == "")
			return
		if (!((name, "arch") in have) || !((name, "run") in have) ||
		    !((name, "series") in have))
			bad("[" name "] needs arch, series and run")
	}
	/^[ \t]*(#|$)/ { next }
	/^\[/ {
		close_stanza()
		if ($0 !~ /^\[[A-Za-z0-9._-]+\]$/)
			bad("\"" $0 "\": a stanza is [NAME], NAME a folder name")
		name = substr($0, 2, length($0) - 2)
		if (name in seen)
			bad("[" name "] twice (first on line " seen[name] ")")
		seen[name] = FNR
		printf "%s\t[\t\n", name
		next
	}
	{
		if (name == "")
			bad("\"" $0 "\": a key before the first [NAME]")
		eq = index($0, "=")
		if (!eq)
			bad("\"" $0 "\": expected KEY = VALUE")
		key = trim(substr($0, 1, eq - 1))
		val = trim(substr($0, eq + 1))
		if (key ~ /^(alias|scaling|figure|threshold)$/)
			rep = 1
		else if (key ~ /^(seed|arch|series|run|smp|mem|append|timeout|default|part_of|about|about_direct|headline)$/ ||
			 key ~ /^(series|traded)@[0-9]+\.[0-9]+$/ || key ~ /^env\.[A-Z_][A-Z0-9_]*$/)
			rep = 0
		else
			bad("[" name "] " key ": no such key (experiments.conf says which)")
		if (!rep && (name SUBSEP key) in have)
			bad("[" name "] " key ": given twice")
		have[name, key] = 1
		if (val == "")
			bad("[" name "] " key ": no value")
		if (key == "arch" && val !~ /^(x86_64|arm64)$/)
			bad("[" name "] arch " val ": x86_64 or arm64")
		if (key == "seed" && val !~ /^[0-9][0-9][0-9]$/)
			bad("[" name "] seed " val ": three digits")
		if ((key == "default" || key ~ /^traded@/) && val !~ /^(yes|no)$/)
			bad("[" name "] " key " " val ": yes or no")
		if ((key == "smp" || key == "timeout") && val !~ /^[1-9][0-9]*$/)
			bad("[" name "] " key " " val ": a number")
		if (key == "figure" && split(val, f, / \| /) != 9)
			bad("[" name "] figure: 9 fields between \" | \", TABLE | ROW | BEFORE | AFTER | UNITS | METRIC | A | B | SOURCE")
		if (key == "threshold" && val !~ / (lower|higher) [0-9]+(\.[0-9]+)?$/)
			bad("[" name "] threshold " val ": METRIC lower|higher PERCENT")
		if (key == "alias") {
			if (val !~ /^[A-Za-z0-9._-]+$/)
				bad("[" name "] alias " val ": a name (letters, digits, ., _ and -)")
			if (val in aliased)
				bad("[" name "] alias " val ": already an alias of " aliased[val])
			aliased[val] = name
			aline[val] = FNR
		}
		printf "%s\t%s\t%s\n", name, key, val
	}
	END {
		if (failed)
			exit 2
		close_stanza()
		# An old name may not be the name of a stanza: --only would not know
		# which is meant.
		for (a in aliased)
			if (a in seen) {
				FNR = aline[a]
				bad("[" aliased[a] "] alias " a ": the name of the stanza on line " seen[a])
			}
		if (failed)
			exit 2
		if (name == "")
			bad("no experiment in it")
	}' "$1"
}

manifest_load() {
	local n k v records

	[[ -z ${mf_loaded:-} ]] || return 0
	[[ -r $MMUBENCH_EXPERIMENTS ]] || {
		echo "${prog:-ci/manifest.sh}: error: $MMUBENCH_EXPERIMENTS: cannot read the experiments' manifest" >&2
		exit 2
	}
	records=$(manifest_records "$MMUBENCH_EXPERIMENTS") || exit 2
	declare -gA mf=()
	declare -ga mf_names=()
	while IFS=$'\t' read -r n k v; do
		if [[ $k == '[' ]]; then
			mf_names+=("$n")
		elif [[ -n ${mf[$n.$k]+x} ]]; then
			mf[$n.$k]+=$'\n'$v
		else
			mf[$n.$k]=$v
		fi
	done <<<"$records"
	mf_loaded=1
}

manifest_get() { # NAME KEY
	printf '%s' "${mf[$1.$2]:-}"
}

manifest_default() {
	local n
	for n in "${mf_names[@]}"; do
		[[ ${mf[$n.default]:-no} != yes ]] || echo "$n"
	done
}

manifest_series() { # NAME BASE
	echo "${mf[$1.series@$2]:-${mf[$1.series]}}"
}

# $VCPUS and $MEM (the caller's: the nightly's NIGHTLY_VCPUS and
# NIGHTLY_MEM) and the stanza's env.NAME knobs, each from the
# environment or its default; nothing is evaluated.
manifest_expand() { # NAME VCPUS MEM TEXT
	local text=$4 k var
	text=${text//\$VCPUS/$2}
	text=${text//\$MEM/$3}
	for k in "${!mf[@]}"; do
		[[ $k == "$1.env."* ]] || continue
		var=${k#"$1.env."}
		text=${text//\$$var/${!var:-${mf[$k]}}}
	done
	printf '%s' "$text"
}

manifest_figures() {
	local n line
	for n in "${mf_names[@]}"; do
		[[ -n ${mf[$n.figure]+x} ]] || continue
		while IFS= read -r line; do
			printf '%s\t%s\t%s\n' "${mf[$n.seed]:-}" "$n" "$line"
		done <<<"${mf[$n.figure]}"
	done | awk -F'\t' '{
		split($3, f, / \| /)
		printf "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", $1,
		       f[1], f[2], f[3], f[4], f[5], $2, f[6], f[7], f[8], f[9]
	}'
}

manifest_traded() {
	local n k on s
	for n in "${mf_names[@]}"; do
		for k in "${!mf[@]}"; do
			[[ $k == "$n.traded@"* && ${mf[$k]} == yes ]] || continue
			on=${k#"$n.traded@"} s=${mf[$n.series]}
			printf '%s\t%s\toriginal\t%s\n' "$on" "${mf[$n.seed]:-}" \
				"$(manifest_series "$n" "$on")"
			printf '%s\t%s\t%s\toriginal\n' "$on" "${mf[$n.seed]:-}" "$s"
		done
	done | awk '!seen[$0]++'
}

manifest_thresholds() { # NAME
	local line metric better pct sc
	[[ -n ${mf[$1.threshold]+x} ]] || return 0
	read -r sc _ <<<"${mf[$1.run]}"
	while IFS= read -r line; do
		pct=${line##* } line=${line% *}
		better=${line##* } metric=${line% *}
		printf '| %s | %s | %s | %s |\n' "$sc" "$metric" "$better" "$pct"
	done <<<"${mf[$1.threshold]}"
}

# The stanza NAME names: itself, or the one that has it as an alias (an
# experiment's old name, accepted for a while after a rename); nothing
# for a name the manifest does not have.
manifest_resolve() { # NAME
	local n a
	if [[ -n ${mf[$1.arch]+x} ]]; then
		echo "$1"
		return
	fi
	for n in "${mf_names[@]}"; do
		[[ -n ${mf[$n.alias]+x} ]] || continue
		while IFS= read -r a; do
			[[ $a != "$1" ]] || { echo "$n"; return; }
		done <<<"${mf[$n.alias]}"
	done
}

# NAME and its old names, one a line: what its results were filed under
# in the nights and the store before a rename.
manifest_names_of() { # NAME
	echo "$1"
	[[ -z ${mf[$1.alias]+x} ]] || echo "${mf[$1.alias]}"
}

# NAME's folder in the night NIGHT (or, with SUFFIX ".json", a direct
# night's file NIGHT/LABEL/NAME.json): NIGHT/NAME, or the one of an old
# name that a night from before the rename has (NIGHT/NAME when none
# exists, for the caller's "missing").
manifest_night_dir() { # NIGHT NAME [SUFFIX]
	local n
	while IFS= read -r n; do
		[[ ! -e $1/$n${3:-} ]] || { echo "$1/$n${3:-}"; return; }
	done < <(manifest_names_of "$2")
	echo "$1/$2${3:-}"
}

# Run rather than sourced: the names, or its usage.
if [[ ${BASH_SOURCE[0]} == "$0" ]]; then
	case ${1:-} in
	--names)
		manifest_load || exit
		printf '%s\n' "${mf_names[@]}" ;;
	-h|--help)
		echo "usage: ci/manifest.sh --names   (the experiments of $MMUBENCH_EXPERIMENTS)" ;;
	*)
		echo "ci/manifest.sh: ${1:+$1: }accepted: --names (or source it)" >&2
		exit 2 ;;
	esac
fi
