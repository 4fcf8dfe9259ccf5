# shellcheck shell=bash
# SPDX-License-Identifier: GPL-2.0
# What tools/ab.sh (A/B in QEMU) and tools/kexec-ab.sh (A/B by kexec) share:
# the scenario's checks, the output folder, the timings, the harness and
# kernel builds, and the end (merge, compare, time.txt), so that both
# leave the same files.  Sourced; the caller sets prog, repo, arch,
# host_arch, base, series, repeat, and die() (MESSAGE [STATUS]).
# shellcheck disable=SC2154,SC2034 # those globals, set before use
# shellcheck source=lib/kernel/user-source.sh
source "$repo/lib/kernel/user-source.sh"	# kernel_src_kind

declare -A took=()
order=()
t_all=$EPOCHREALTIME
compare_opts=()

clock() { # NAME CMD...: time CMD, added to NAME
	local name=$1 t0=$EPOCHREALTIME rc=0
	shift
	"$@" || rc=$?
	[[ -n ${took[$name]+x} ]] || order+=("$name")
	took[$name]=$(echo "${took[$name]:-0} + $EPOCHREALTIME - $t0" | bc)
	return "$rc"
}

# A series a run may name: a folder of patches/BASE (or MMUBENCH_PATCHES, as
# lib/kernel/build.sh reads it), or original.
ab_check_series() { # NAME
	local pdir=${MMUBENCH_PATCHES:-$repo/patches}/$base
	[[ $1 == original || -d $pdir/$1 ]] ||
		die "--series $1: no such series for base $base (a folder of $pdir, or original for A/A)" 2
}

# --kernel-src SRC --sides NAME=WHAT,...: the user's own kernel
# (lib/kernel/build.sh --kernel-src), side NAME built from WHAT.  For a
# git tree WHAT is a ref, resolved to its commit here, once, before any
# build; every side is built on the first side's commit as the diff
# from it.  For a tarball WHAT is a folder of *.patch or an mbox, or
# nothing (or "none") for the tarball as it is.  The first side is A.
# Sets ksrc (absolute), ksrc_kind, side_names and side_what.
ksrc='' ksrc_kind=''
side_names=()
declare -A side_what=()
ab_check_kernel_src() { # SRC SPEC
	local items item n w
	command -v git >/dev/null || die "--kernel-src: missing git: apt-get install git" 2
	[[ -e $1 ]] || die "--kernel-src $1: no such git tree or tarball" 2
	ksrc=$(realpath "$1")
	ksrc_kind=$(kernel_src_kind "$ksrc" 2>&1) || die "$ksrc_kind" 2
	[[ $2 ]] || die "--kernel-src needs --sides NAME=WHAT,NAME=WHAT (a ref each for a git tree; patches or nothing for a tarball)" 2
	IFS=, read -ra items <<<"$2"
	((${#items[@]} >= 2 && ${#items[@]} <= 8)) ||
		die "--sides $2: 2 to 8 sides, NAME=WHAT joined by commas" 2
	for item in "${items[@]}"; do
		[[ $item == *=* ]] || die "--sides: '$item' is not NAME=WHAT" 2
		n=${item%%=*} w=${item#*=}
		[[ $n =~ ^[A-Za-z0-9._-]{1,48}$ ]] ||
			die "--sides: side name '$n': letters, digits, . _ - (48 at most: the kernel's release holds it)" 2
		[[ -z ${side_what[$n]+x} ]] || die "--sides $2: $n is named twice" 2
		if [[ $ksrc_kind == git ]]; then
			w=$(git -C "$ksrc" rev-parse -q --verify "${w:-@@}^{commit}") ||
				die "--sides $item: not a commit of $ksrc (a git tree's side is a ref)" 2
		elif [[ -z $w || $w == none ]]; then
			w=''
		else
			[[ -d $w || -f $w ]] ||
				die "--sides $item: neither a folder of *.patch nor an mbox (nothing, or none, for the tarball as it is)" 2
			w=$(realpath "$w")
		fi
		# "original" is what every kernel's release calls the unchanged
		# source: a side with changes may not take it.
		[[ $n != original ]] || [[ $ksrc_kind == git && ${#side_names[@]} == 0 ]] ||
			[[ $ksrc_kind == tarball && -z $w ]] ||
			die "--sides $item: original names the unchanged source (the first side of a git tree, or a tarball without patches)" 2
		side_names+=("$n")
		side_what[$n]=$w
	done
}

# ab_source_opts: the kernels come from --series (and --kernel) or from
# --kernel-src with --sides, never both; before anything else is checked.
# Reads the caller's ksrc_arg, sides_arg, series and kernel_given.
ab_source_opts() {
	if [[ $ksrc_arg ]]; then
		[[ -z $series ]] || die "--series and --kernel-src: one of them (the sides of --kernel-src are --sides)" 2
		((!kernel_given)) || die "--kernel and --kernel-src: one of them (the base of --kernel-src is its own version)" 2
	else
		[[ -z $sides_arg ]] || die "--sides: only with --kernel-src (Debian's bases take --series)" 2
		[[ $series ]] || die "--series NAME is required (a folder of patches/BASE, or original for A/A), or --kernel-src SRC --sides ..." 2
	fi
}

# The sides and their sources, for the experiment's folder.
ab_sides_txt() {
	local n
	for n in "${side_names[@]}"; do
		printf '%s\t%s\n' "$n" "${side_what[$n]:-(the tarball as it is)}"
	done
}

# The scenario's own options that only the A/B script may set.
ab_check_scenario() { # SCENARIO OPTIONS...
	local a
	for a in "$@"; do
		case $a in
		--json|--json=*|--guest|--guest=*)
			die "$a: ${prog#tools/} writes each run's JSON and passes the guest itself" 2 ;;
		esac
	done
}

# ab_out DIR: sets out to DIR, made (with runs/) and absolute; two
# experiments' runs must not mix.
ab_out() {
	if [[ -e $1 ]] && [[ -n $(ls -A "$1") ]]; then
		die "--out $1: exists and is not empty (runs of two experiments must not mix)" 2
	fi
	mkdir -p "$1/runs"
	out=$(cd "$1" && pwd)
}

# ab_harness: sets bin and guest (this tree's, made for $arch, unless
# given) and tool, the binary of this machine's arch that merges and
# compares.
ab_harness() {
	tool=$repo/build/mmubench
	if [[ -z $bin || -z $guest ]]; then
		echo "$prog: make (host and guest, $arch)" >&2
		clock "make" make -s -C "$repo" ARCH="$arch" all >"$out/make.log" 2>&1 ||
			{ tail -n 20 "$out/make.log" >&2; die "make failed; see $out/make.log"; }
		if [[ $arch == "$host_arch" ]]; then
			: "${bin:=$repo/build/mmubench}"
		else
			: "${bin:=$repo/build/$arch/mmubench}"
		fi
		: "${guest:=$repo/build/$arch/guest.elf}"
	fi
	if [[ $arch == "$host_arch" ]]; then
		tool=$bin
	fi
	if [[ ! -x $tool ]]; then
		clock "make" make -s -C "$repo" host >>"$out/make.log" 2>&1 ||
			die "make host failed; see $out/make.log"
	fi
	[[ -x $bin ]] || die "--mmubench $bin: not an executable"
	[[ -r $guest ]] || die "--guest $guest: cannot read it"
}

# ab_build_args SIDE: lib/kernel/build.sh's options for the side's kernel,
# in build_args; kernel_full=1 builds every side whole (--full).
kernel_full=0
ab_build_args() {
	if [[ -z $ksrc ]]; then
		build_args=(--base "$base" --series "$1")
	elif [[ $ksrc_kind == git ]]; then
		build_args=(--kernel-src "$ksrc" --name "$1" --ref "${side_what[$1]}"
			--onto "${side_what[${side_names[0]}]}")
	else
		build_args=(--kernel-src "$ksrc" --name "$1"
			${side_what[$1]:+--patches "${side_what[$1]}"})
	fi
	((!kernel_full)) || build_args+=(--full)
}

# ab_kernel SIDE: lib/kernel/build.sh, its log in DIR/build-SIDE.log; the
# image's path in kernel_image[SIDE], and the build ids every boot of it
# must report in DIR/build-SIDE.id (kernel_id[SIDE]), copied while the
# kernel is held: it stays held, in its own folder, until this script
# ends (lib/kernel/hold.sh).  With --kernel-src, base is set from the
# kernel built (its release).
declare -A kernel_image=() kernel_id=()
ab_kernel() {
	local log=$out/build-$1.log release
	ab_build_args "$1"
	echo "$prog: kernel $1 (${ksrc:-$base}, $arch): lib/kernel/build.sh, log in $log" >&2
	clock "kernel $1" "$repo/lib/kernel/build.sh" --arch "$arch" "${build_args[@]}" \
		--hold-for $$ >"$log" 2>&1 ||
		{ tail -n 20 "$log" >&2; die "kernel $1 did not build; see $log"; }
	kernel_image[$1]=$(tail -n1 "$log")
	kernel_id[$1]=$out/build-$1.id
	cp "${kernel_image[$1]%/arch/*}/.mmubench-id" "${kernel_id[$1]}" ||
		die "kernel $1: no build ids beside ${kernel_image[$1]}"
	[[ $ksrc ]] || return 0
	release=$(cat "${kernel_image[$1]%/arch/*}/include/config/kernel.release") ||
		die "kernel $1: no include/config/kernel.release beside ${kernel_image[$1]}"
	base=$(echo "$release" | cut -d. -f1,2)
}

# ab_sides: the sides A B C ... and their kernels: names=(original
# NAME ...) from series (NAME or NAME,NAME,...), side A the original;
# with --kernel-src, the names of --sides in their order.
ab_sides() {
	local letters=ABCDEFGH s list
	IFS=, read -ra list <<<"$series"
	sides=(A) names=(original)
	if [[ $ksrc ]]; then
		names=("${side_names[@]}")
		list=("${side_names[@]:1}")
	fi
	for s in "${list[@]}"; do
		sides+=("${letters:${#sides[@]}:1}")
		[[ $ksrc ]] || names+=("$s")
	done
	nsides=${#sides[@]}
}

side_name() { # SIDE: its kernel, original for A
	local k
	for k in "${!sides[@]}"; do
		[[ ${sides[k]} != "$1" ]] || { echo "${names[k]}"; return; }
	done
}

# The end: runs/SIDE-I.json of each side into A.json, B.json, ..., and
# "mmubench compare" of them into compare.txt and compare.json.
ab_merge() { # SIDE
	local files=() i
	for ((i = 1; i <= repeat; i++)); do files+=("$out/runs/$1-$i.json"); done
	"$tool" merge "$out/$1.json" "${files[@]}"
}
ab_merge_compare() {
	local rc=0 s docs=() labels
	ab_sides
	for s in "${sides[@]}"; do
		clock "merge, compare" ab_merge "$s"
		docs+=("$out/$s.json")
	done
	# A kernel of another base than 6.1 is NAME@BASE: the store, the
	# baseline and the report key kernels by these labels, and 6.12's
	# original is not 6.1's.  6.1's keep the names their history has.
	labels=$(IFS=,; echo "${names[*]}")
	[[ $base == 6.1 ]] || labels=$(IFS=,; printf '%s' "${names[*]/%/@$base}")
	clock "merge, compare" "$tool" compare "${docs[@]}" \
		--labels "$labels" --json "$out/compare.json" \
		"${compare_opts[@]}" >"$out/compare.txt" || rc=$?
	cat "$out/compare.txt"
	((rc == 0)) || die "mmubench compare failed (exit $rc)"
}

# The first lines of time.txt: where the time went, each side's boots.
ab_time_table() {
	local k
	ab_sides
	echo "where the time went (seconds):"
	for k in "${order[@]}"; do
		case $k in
		"runs "[A-H])
			printf '  %-40s %8.1f  (%d boot%s, %.1f each)\n' \
				"$k ($(side_name "${k#runs }"))" \
				"${took[$k]}" "$repeat" "$( ((repeat > 1)) && echo s)" \
				"$(echo "${took[$k]} / $repeat" | bc -l)" ;;
		*)	printf '  %-40s %8.1f\n' "$k" "${took[$k]}" ;;
		esac
	done
	printf '  %-40s %8.1f\n' total "$(echo "$EPOCHREALTIME - $t_all" | bc)"
}
