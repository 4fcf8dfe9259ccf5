# shellcheck shell=bash
# SPDX-License-Identifier: GPL-2.0
# What ci/ab.sh (A/B in QEMU) and ci/kexec-ab.sh (A/B by kexec) share:
# the scenario's checks, the output folder, the timings, the harness and
# kernel builds, and the end (merge, compare, time.txt), so that both
# leave the same files.  Sourced; the caller sets prog, repo, arch,
# host_arch, base, series, repeat, and die() (MESSAGE [STATUS]).
# shellcheck disable=SC2154,SC2034 # those globals, set before use

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
# ci/kernel/build.sh reads it), or original.
ab_check_series() { # NAME
	local pdir=${MMUBENCH_PATCHES:-$repo/patches}/$base
	[[ $1 == original || -d $pdir/$1 ]] ||
		die "--series $1: no such series for base $base (a folder of $pdir, or original for A/A)" 2
}

# The scenario's own options that only the A/B script may set.
ab_check_scenario() { # SCENARIO OPTIONS...
	local a
	for a in "$@"; do
		case $a in
		--json|--json=*|--guest|--guest=*)
			die "$a: ${prog#ci/} writes each run's JSON and passes the guest itself" 2 ;;
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

# ab_kernel SERIES: ci/kernel/build.sh, its log in DIR/build-SERIES.log;
# the image's path in kernel_image[SERIES].
declare -A kernel_image=()
ab_kernel() {
	local log=$out/build-$1.log
	echo "$prog: kernel $1 ($base, $arch): ci/kernel/build.sh, log in $log" >&2
	clock "kernel $1" "$repo/ci/kernel/build.sh" --base "$base" --arch "$arch" --series "$1" \
		>"$log" 2>&1 ||
		{ tail -n 20 "$log" >&2; die "kernel $1 did not build; see $log"; }
	kernel_image[$1]=$(tail -n1 "$log")
}

# ab_sides: from series (NAME or NAME,NAME,...) the sides A B C ... and
# their kernels, names=(original NAME ...): side A is always the original.
ab_sides() {
	local letters=ABCDEFGH s list
	IFS=, read -ra list <<<"$series"
	sides=(A) names=(original)
	for s in "${list[@]}"; do
		sides+=("${letters:${#sides[@]}:1}")
		names+=("$s")
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
