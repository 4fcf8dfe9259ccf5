#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Put one night's results into the results store: per architecture,
# kernel (the series name a side booted, or --direct's label) and
# experiment, one entry per night (ci/README.md, "The results store").
#
#   ci/store.sh --store STORE [--date YYYYMMDD-HHMMSS] NIGHT_DIR
#
#   --store STORE  the store (created if missing)
#   --date D       the night's start, UTC (default: now); with the
#                  mmubench commit the runs report it names the entry
#   NIGHT_DIR      ci/nightly's --out: NAME/{A,B,compare}.json of each
#                  tools/ab.sh experiment, or LABEL/NAME.json of --direct
#
# Each entry is written to STORE/.tmp-* and renamed into place, then
# STORE/index.tsv (rewritten, renamed) lists it; an entry that is not in
# the index is the leftover of an interrupted store and ignored.
# Prints the entries it stored, "ARCH/KERNEL/EXPERIMENT/NIGHT", one a
# line.  Exit 1 if the night is already in the store or has no results.
set -euo pipefail

prog=ci/store.sh
# shellcheck source=lib/preamble.sh
source "$(dirname "${BASH_SOURCE[0]}")/../lib/preamble.sh"
store='' date='' night_dir=''
mmubench=${MMUBENCH_BIN:-$repo/build/mmubench}

while (($#)); do
	case $1 in
	--store|--date) (($# >= 2)) || usage_die "$1 needs a value" ;;&
	--store) store=$2; shift 2 ;;
	--date) date=$2; shift 2 ;;
	-h|--help) usage_exit 0 ;;
	-*) usage_die "unknown option '$1' (accepted: --store STORE, --date YYYYMMDD-HHMMSS)" ;;
	*) [[ -z $night_dir ]] || usage_die "one NIGHT_DIR only ('$night_dir', then '$1')"
	   night_dir=$1; shift ;;
	esac
done
[[ $store ]] || usage_die "--store STORE is required"
[[ $night_dir ]] || usage_die "no NIGHT_DIR (ci/nightly's --out)"
[[ -d $night_dir ]] || usage_die "NIGHT_DIR $night_dir: not a directory"
: "${date:=$(date -u +%Y%m%d-%H%M%S)}"
[[ $date =~ ^[0-9]{8}-[0-9]{6}$ ]] ||
	usage_die "--date $date: expected YYYYMMDD-HHMMSS (UTC), e.g. $(date -u +%Y%m%d-%H%M%S)"
[[ -x $mmubench ]] || die "$mmubench: no mmubench binary (run make)"
command -v jq >/dev/null || die "missing jq: apt-get install jq (ci/deps.sh)"
night_dir=$(cd "$night_dir" && pwd)
mkdir -p "$store" || usage_die "--store $store: cannot create it"
store=$(cd "$store" && pwd)

# A key's part must stay one path component.
clean() { tr -c 'A-Za-z0-9._+\n-' '_' <<<"$1"; }

# The experiments: ab.sh's (A.json, B.json and compare.json, whose labels
# name the kernels) and --direct's (LABEL/NAME.json, LABEL the kernel).
# Each: "KERNEL<TAB>EXPERIMENT<TAB>FILE[ FILE]", the files of that kernel.
found=()
for d in "$night_dir"/*/; do
	d=${d%/}
	if [[ -f $d/compare.json && -f $d/A.json && -f $d/B.json ]]; then
		# One entry per kernel: sides A, B, C, ... (compare.json's
		# "sides"; "a" and "b" before N-way), a kernel booted on two
		# sides (A/A) one entry of both.
		labels=() kfiles=() letters=ABCDEFGH
		mapfile -t sl < <(jq -r '(.sides // [.a, .b])[].label' "$d/compare.json")
		for i in "${!sl[@]}"; do
			f=$d/${letters:i:1}.json
			[[ -f $f ]] || die "$d: compare.json names side $((i + 1)) ${sl[i]}, but there is no $f"
			for j in "${!labels[@]}"; do
				[[ ${labels[j]} == "${sl[i]}" ]] || continue
				kfiles[j]+=" $f"
				continue 2
			done
			labels+=("${sl[i]}") kfiles+=("$f")
		done
		for j in "${!labels[@]}"; do
			found+=("${labels[j]}	${d##*/}	${kfiles[j]}")
		done
	elif [[ ! -e $d/compare.json && ! -e $d/command.txt && ! -e $d/runs ]]; then
		# (Not an ab.sh or peer.sh folder that ended early.)
		for f in "$d"/*.json; do
			[[ -f $f ]] || continue
			jq -e 'has("scenario") and has("results")' "$f" >/dev/null 2>&1 ||
				continue
			n=${f##*/}
			found+=("${d##*/}	${n%.json}	$f")
		done
	fi
done
((${#found[@]})) || die "$night_dir: no experiment's results (NAME/compare.json or LABEL/NAME.json)"

exec 9>"$store/.lock"
flock 9
idx=$store/index.tsv
stage=$(mktemp -d "$store/.tmp-$date.XXXXXX")
trap 'rm -rf "$stage"' EXIT

# Stage every entry first: a night is refused whole, or stored whole.
entries=() lines=()
for f in "${found[@]}"; do
	IFS=$'\t' read -r kernel exp files <<<"$f"
	read -ra files <<<"$files"
	first=${files[0]} dir=${files[0]%/*}
	arch=$(jq -r '.env.arch // "unknown"' "$first")
	commit=$(jq -r '.env.mmubench_version // "unknown"' "$first")
	# The kernel as it named itself, with its kvm.ko where KVM is a module.
	release=$(jq -r '.env | (.kernel // "unknown") +
		(if .kvm_module then " kvm " + .kvm_module else "" end)' "$first")
	scenario=$(jq -r '.scenario' "$first")
	key=$(clean "$arch")/$(clean "$kernel")/$(clean "$exp")
	night=$date-$(clean "$commit")
	! [[ -f $idx ]] || ! cut -f9 "$idx" | grep -qxF "$key/$night" ||
		die "$key/$night: already in $store"
	e=$stage/$key/$night
	mkdir -p "$e"
	"$mmubench" merge "$e/result.json" "${files[@]}" ||
		die "$key: mmubench merge ${files[*]} failed"
	# Of an ab.sh experiment: this kernel's runs as they were written,
	# and the night's A/B comparison.
	if [[ -f $dir/compare.json ]]; then
		mkdir "$e/runs"
		for side in "${files[@]}"; do
			s=${side##*/}
			for r in "$dir/runs/${s%.json}"-*.json; do
				[[ ! -f $r ]] || cp -p "$r" "$e/runs/"
			done
		done
		for x in compare.json compare.txt command.txt; do
			[[ ! -f $dir/$x ]] || cp -p "$dir/$x" "$e/ab-$x"
		done
	fi
	runs=$(jq '.results.runs | length' "$e/result.json")
	jq -n --arg date "$date" --arg commit "$commit" --arg arch "$arch" \
		--arg kernel "$kernel" --arg release "$release" --arg exp "$exp" \
		--arg scenario "$scenario" --argjson runs "$runs" \
		--arg night "$night_dir" '$ARGS.positional as $src |
		{date: $date, commit: $commit, arch: $arch, kernel: $kernel,
		 release: $release, experiment: $exp, scenario: $scenario,
		 runs: $runs, night: $night, source: $src}' \
		--args "${files[@]}" >"$e/meta.json"
	entries+=("$key/$night")
	lines+=("$date	$commit	$arch	$kernel	$exp	$scenario	$runs	$release	$key/$night")
done

# The night's fidelity report (ci/fidelity.sh), beside the entries:
# STORE/fidelity/DATE-COMMIT.json, named as the first entry's night.
fid=''
if [[ -f $night_dir/fidelity.json ]]; then
	jq -e '.rows | type == "array"' "$night_dir/fidelity.json" >/dev/null 2>&1 ||
		die "$night_dir/fidelity.json: not a report of ci/fidelity.sh"
	fid=fidelity/${entries[0]##*/}.json
	mkdir -p "$stage/fidelity"
	cp -p "$night_dir/fidelity.json" "$stage/$fid"
fi

# Into place, one rename per entry (an interrupted store's leftover, not
# in the index, is replaced), then the index that makes them seen.
for k in "${entries[@]}"; do
	mkdir -p "$store/${k%/*}"
	rm -rf "${store:?}/$k"
	mv -T "$stage/$k" "$store/$k"
done
if [[ $fid ]]; then
	mkdir -p "$store/fidelity"
	mv -T "$stage/$fid" "$store/$fid"
fi
{
	if [[ -f $idx ]]; then
		cat "$idx"
	else
		printf '#date\tcommit\tarch\tkernel\texperiment\tscenario\truns\trelease\tpath\n'
	fi
	printf '%s\n' "${lines[@]}"
} >"$stage/index.tsv"
mv "$stage/index.tsv" "$idx"
printf '%s\n' "${entries[@]}"
[[ -z $fid ]] || echo "$fid"
