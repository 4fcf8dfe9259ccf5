#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The kernel cache of lib/kernel/build.sh: what it holds, and pruning it.
#
#   lib/kernel/cache.sh [list]
#   lib/kernel/cache.sh prune [--max-age DAYS] [--max-size SIZE] [--dry-run] [KERNEL-DIR...]
#
# list: each kernel (trees/GROUP/NAME-ARCH.KEY), source (src/) and
# Debian image (debian/) with its size, its last use and whether a run
# holds it now.  A kernel's size is its own: the files that are not hard
# links of its source, what removing it frees.
#
# prune removes, of the kernels no run holds (lib/kernel/hold.sh):
#   1. those unused for more than DAYS (default 30, MMUBENCH_CACHE_MAX_AGE);
#   2. then the least recently used, until the kernels' own size is at
#      most SIZE (default 20G, MMUBENCH_CACHE_MAX_SIZE; K, M, G, T);
# and always the folders of the layout before keys (trees/GROUP/NAME-ARCH
# as a folder, which build.sh no longer reads).  Then, unless a build is
# running, the sources of src/git-*, src/tar-*, the Debian images and the
# diffs that no kernel left was built from.  A kernel a run holds is
# kept, and said so if the limits would have removed it.  With
# KERNEL-DIR..., only those kernels are considered, and nothing else.
# --dry-run says what it would remove.  lib/kernel/build.sh prunes by
# the defaults after each kernel it builds.
set -euo pipefail

prog=lib/kernel/cache.sh
# shellcheck source=lib/preamble.sh
source "$(dirname "${BASH_SOURCE[0]}")/../preamble.sh"
# shellcheck source=hold.sh
source "$here/hold.sh"	# free_to_remove, hold_file
cache=$(realpath -m "${MMUBENCH_CACHE:-$HOME/.cache/mmubench}/kernel")
max_age=${MMUBENCH_CACHE_MAX_AGE:-30} max_size=${MMUBENCH_CACHE_MAX_SIZE:-20G}
dry=0 only=()
key_re='\.[0-9a-f]{16}$'

usage() { # [STATUS]
	usage_exit "${1:-2}"
}

# bytes SIZE: SIZE (a number, optionally K, M, G or T) in bytes.
bytes() { # SIZE
	numfmt --from=iec "$1"
}

# human BYTES: 1.2G, 110M, 4K.
human() { # BYTES
	numfmt --to=iec --format='%.1f' "$1" | sed 's/\.0\([KMGT]\?\)$/\1/'
}

# The kernels: "LAST-USE-EPOCH SIZE DIR" a line, oldest use first.
kernels() {
	local d f size
	for d in "$cache"/trees/*/*; do
		[[ -d $d && ! -L $d && ${d##*/} =~ $key_re ]] || continue
		f=$(hold_file "$d")
		size=$(cat "$d/.mmubench-size" 2>/dev/null) || size=0
		printf '%s %s %s\n' "$(stat -c %Y "$f" 2>/dev/null || stat -c %Y "$d")" \
			"$size" "$d"
	done | sort -n
}

# The folders of the layout before keys: built in place, read by no one.
old_layout() {
	local d
	for d in "$cache"/trees/*/*; do
		[[ -d $d && ! -L $d && ! ${d##*/} =~ $key_re && ${d##*/} != *.tmp.* ]] || continue
		echo "$d"
	done
}

rel() { echo "${1#"$cache"/}"; }

# users_of DIR: the kernels' .mmubench-src and .mmubench-deb that name
# DIR, a source or a Debian image: the kernels built from it.
users_of() { # DIR
	grep -lxF -- "$1" "$cache"/trees/*/*.????????????????/.mmubench-src \
		"$cache"/trees/*/*.????????????????/.mmubench-deb 2>/dev/null || true
}
when() { date -d "@$1" '+%Y-%m-%d %H:%M'; }

# is_held DIR: a run holds it (its exclusive lock cannot be had now).
is_held() { # DIR
	free_to_remove "$1" || return 0
	exec {hold_fd}>&-
	return 1
}

cmd_list() {
	local t size d n=0 total=0 st f users
	echo "kernel cache: $cache"
	echo "kernels (trees/GROUP/NAME-ARCH.KEY), last use first to last:"
	while read -r t size d; do
		st=built
		[[ -f $d/build/.mmubench-key ]] || st=incomplete
		! is_held "$d" || st=held
		printf '  %7s  %s  %-10s %s\n' "$(human "$size")" "$(when "$t")" "$st" "$(rel "$d")"
		n=$((n + 1)) total=$((total + size))
	done < <(kernels)
	echo "  $n kernels, $(human "$total") of their own"
	while read -r d; do
		echo "  old layout (prune removes it): $(rel "$d")"
	done < <(old_layout)
	echo "sources (src/) and Debian images (debian/):"
	for d in "$cache"/src/*/ "$cache"/debian/*/; do
		[[ -d $d ]] || continue
		d=${d%/}
		users=$(users_of "$d" | wc -l)
		printf '  %7s  %s  %s (kernels built from it: %d)\n' \
			"$(du -sh "$d" | cut -f1)" "$(when "$(stat -c %Y "$d")")" "$(rel "$d")" "$users"
	done
	echo "limits: prune removes kernels unused for more than $max_age days, then the"
	echo "least recently used beyond $max_size of their own; never one a run holds"
}

# remove DIR WHY: DIR, whose exclusive lock the caller has (or which
# has none), moved out of its place at once, then deleted.
remove() { # DIR WHY
	local t
	echo "$prog: $( ((dry)) && echo would remove || echo removed) $(rel "$1"): $2"
	((dry)) && return
	mkdir -p "$cache/trash"
	t=$(mktemp -d "$cache/trash/XXXXXX")
	mv -T "$1" "$t/x"
	rm -rf "$t"
}

prune_kernels() {
	local t size d total=0 now limit list=()
	now=$(date +%s)
	limit=$(bytes "$max_size")
	while read -r t size d; do
		if ((${#only[@]})) && [[ " ${only[*]} " != *" $d "* ]]; then
			continue
		fi
		list+=("$t $size $d")
		total=$((total + size))
	done < <(kernels)
	for t in "${list[@]}"; do
		read -r t size d <<<"$t"
		local why=''
		if ((now - t > max_age * 86400)); then
			why="last used $(when "$t"), more than $max_age days ago"
		elif ((total > limit)); then
			why="the least recently used (last $(when "$t")), and the kernels' $(human "$total") exceed $max_size"
		fi
		[[ $why ]] || continue
		if ! free_to_remove "$d"; then
			echo "$prog: kept $(rel "$d"): held by a run (it would go: $why)"
			continue
		fi
		remove "$d" "$why"
		exec {hold_fd}>&-
		total=$((total - size))
	done
	return 0
}

# The links and groups left pointing at nothing, and the old layout.
prune_rest() {
	local d
	while read -r d; do
		remove "$d" "a folder of the layout before keys, which build.sh no longer reads"
	done < <(old_layout)
	((dry)) && return
	for d in "$cache"/trees/*/*; do
		[[ -L $d && ! -e $d ]] && rm -f "$d"
	done
	for d in "$cache"/trees/*/; do
		rmdir "$d" 2>/dev/null || true
	done
	rm -rf "$cache/trash"
}

# Sources, Debian images and diffs no kernel is built from, while no
# build runs (a build holds .lock-prune shared from its start).
prune_sources() {
	local d t
	exec {lk}>>"$cache/.lock-prune"
	if ! flock -x -n "$lk"; then
		echo "$prog: a build is running: its sources stay (prune again later)"
		return
	fi
	for d in "$cache"/src/git-* "$cache"/src/tar-* "$cache"/debian/linux-image-*; do
		[[ -d $d ]] || continue
		[[ -z $(users_of "$d") ]] || continue
		remove "$d" "no kernel left is built from it"
	done
	for d in "$cache"/diffs/*.patch; do
		[[ -f $d ]] || continue
		t=${d##*/}
		[[ -d $cache/trees/git-${t%%-*} ]] && continue
		((dry)) || rm -f "$d"
		echo "$prog: $( ((dry)) && echo would remove || echo removed) $(rel "$d"): no kernel of its tree is left"
	done
	exec {lk}>&-
}

cmd_prune() {
	while (($#)); do
		case $1 in
		--max-age) [[ ${2:-} =~ ^[0-9]+$ ]] ||
			die "--max-age ${2:-}: whole days since a kernel's last use (0: any unused)" 2
			max_age=$2; shift 2 ;;
		--max-size) [[ ${2:-} =~ ^[0-9]+[KMGT]?$ ]] ||
			die "--max-size ${2:-}: the kernels' own size at most, a number with K, M, G or T (20G)" 2
			max_size=$2; shift 2 ;;
		--dry-run) dry=1; shift ;;
		-*) die "prune: unknown option '$1' (--max-age DAYS, --max-size SIZE, --dry-run)" 2 ;;
		*) [[ -d $1 && $(realpath "$1") =~ ^$cache/trees/[^/]+/[^/]+$key_re ]] ||
			die "prune $1: not a kernel of $cache/trees (GROUP/NAME-ARCH.KEY)" 2
			only+=("$(realpath "$1")"); shift ;;
		esac
	done
	[[ $max_age =~ ^[0-9]+$ ]] || die "MMUBENCH_CACHE_MAX_AGE=$max_age: whole days" 2
	[[ $max_size =~ ^[0-9]+[KMGT]?$ ]] || die "MMUBENCH_CACHE_MAX_SIZE=$max_size: a size such as 20G" 2
	[[ -d $cache/trees ]] || return 0
	prune_kernels
	((${#only[@]})) && return
	prune_rest
	prune_sources
}

case ${1:-list} in
list) (($# <= 1)) || usage; [[ -d $cache ]] || { echo "kernel cache: $cache (empty)"; exit 0; }
	cmd_list ;;
prune) shift; cmd_prune "$@" ;;
-h|--help) usage 0 ;;
*) usage ;;
esac
