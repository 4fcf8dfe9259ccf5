#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Build the L1 host kernel that runs KVM under QEMU TCG: Debian's
# linux-source-6.1, `make tinyconfig` + ci/kernel/ARCH.config, optionally
# with a patch series from patches/NAME/*.patch.
#
#   ci/kernel/build.sh [--arch x86_64|arm64] [--series NAME]
#
# The last line of stdout is the kernel image path; timings go to stderr.
# The kernel says which series it is: its release (uname -r, /proc/version)
# ends in -mmub-SERIES (CONFIG_LOCALVERSION), e.g. 6.1.192-mmub-original.
# Everything lives in ${MMUBENCH_CACHE:-$HOME/.cache/mmubench}/kernel:
#   src/linux-6.1/         pristine source, unpacked once (ci/kernel/source.sh)
#   trees/SERIES-ARCH/     `cp -al` of it (+ patches), build dir in ./build
# Series live in $MMUBENCH_PATCHES/NAME/*.patch (default: <repo>/patches).
# The build dir is a direct subdirectory of its tree so that kbuild uses
# srctree=".." and every command line and .cmd file is relative: a
# series' build dir seeded from the original's then only recompiles the
# files the patches touched.
set -euo pipefail

prog=ci/kernel/build.sh
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(cd "$here/../.." && pwd)
# shellcheck source=source.sh
source "$here/source.sh"	# tarball, src, kernel_source (sets src_id)
cache=${MMUBENCH_CACHE:-$HOME/.cache/mmubench}/kernel
arch=x86_64
series=original

die() { echo "$prog: error: $*" >&2; exit 1; }
note() { echo "$prog: $*" >&2; }

usage() { # [STATUS]: 0 for --help, on stdout
	local fd=2
	[[ ${1:-2} != 0 ]] || fd=1
	echo "usage: $prog [--arch x86_64|arm64] [--series NAME]" >&$fd
	exit "${1:-2}"
}

while (($#)); do
	case $1 in
	--arch) arch=${2:?--arch needs a value}; shift 2 ;;
	--series) series=${2:?--series needs a value}; shift 2 ;;
	-h|--help) usage 0 ;;
	*) usage ;;
	esac
done

case $arch in
x86_64) cross='' target=bzImage image=arch/x86/boot/bzImage ;;
arm64) cross=aarch64-linux-gnu- target=Image image=arch/arm64/boot/Image ;;
*) die "unknown --arch '$arch' (x86_64 or arm64)" ;;
esac
[[ $series =~ ^[A-Za-z0-9._-]+$ ]] || die "bad --series name '$series'"
# The release (uname -r) is at most 64 characters: "6.1.NNN-mmub-" and the name.
((${#series} <= 48)) || die "--series $series: longer than 48 characters (the kernel release holds 64)"

fragment=$here/$arch.config
[[ -f $fragment ]] || die "missing config fragment $fragment"
[[ -f $tarball ]] || die "missing $tarball: apt-get install linux-source-6.1"

# Name the package to install rather than letting make fail 5 minutes in.
need() {
	command -v "$1" >/dev/null || die "missing '$1': apt-get install $2"
}
need make make
need "${cross}gcc" "$([[ $cross ]] && echo gcc-aarch64-linux-gnu || echo gcc)"
need gcc gcc
need bc bc
need bison bison
need flex flex
need xz xz-utils
need patch patch
need flock util-linux
need sha256sum coreutils
echo '#include <gelf.h>' | gcc -E -x c - >/dev/null 2>&1 ||
	die "missing libelf headers (objtool needs them): apt-get install libelf-dev"
echo '#include <openssl/opensslv.h>' | gcc -E -x c - >/dev/null 2>&1 ||
	die "missing OpenSSL headers: apt-get install libssl-dev"

patches=()
if [[ $series != original ]]; then
	pdir=${MMUBENCH_PATCHES:-$repo/patches}/$series
	[[ -d $pdir ]] || die "no series '$series': $pdir does not exist"
	while IFS= read -r -d '' p; do patches+=("$p"); done < <(
		find "$pdir" -maxdepth 1 -name '*.patch' -print0 | LC_ALL=C sort -z)
	((${#patches[@]})) || die "series '$series' has no $pdir/*.patch"
fi

mkdir -p "$cache/trees"

# Seconds per step, on stderr: the caller wants to know where time went.
timed() {
	local name=$1 t0=$EPOCHREALTIME
	shift
	"$@"
	note "$(printf '%-22s %7.1f s' "$arch/$series $name" \
		"$(echo "$EPOCHREALTIME - $t0" | bc)")"
}

# Hash of everything the build depends on besides the source tree.
key_of() {
	{
		echo "$src_id $arch $1"
		echo "localversion -mmub-$1"
		"${cross}gcc" --version | sed -n 1p
		cat "$fragment"
		[[ $1 == original ]] || cat "${patches[@]}"
	} | sha256sum | cut -d' ' -f1
}

kmake() {
	nice -n "${MMUBENCH_NICE:-10}" make -C "$tree" O="$tree/build" \
		ARCH="$arch" ${cross:+CROSS_COMPILE=$cross} "$@" \
		>>"$tree/build/build.log" 2>&1 ||
		{ tail -n 25 "$tree/build/build.log" >&2
		  die "make $* failed; full log: $tree/build/build.log"; }
}

configure() {
	kmake tinyconfig
	"$tree/scripts/kconfig/merge_config.sh" -m -O "$tree/build" \
		"$tree/build/.config" "$fragment" >>"$tree/build/build.log" 2>&1
	localversion original
	kmake olddefconfig
}

# The series in the release: what the kernel itself reports is what a
# test checks (ci/kexec-ab.sh), not what the caller believed it booted.
localversion() { # SERIES
	"$tree/scripts/config" --file "$tree/build/.config" \
		--set-str LOCALVERSION "-mmub-$1"
}

# tinyconfig drops any option whose dependencies are unmet, without a word.
verify_config() { # SERIES
	local line missing=()
	while IFS= read -r line; do
		[[ $line =~ ^CONFIG_[A-Z0-9_]+= ]] || continue
		grep -qxF -- "$line" "$tree/build/.config" || missing+=("${line%%=*}")
	done <"$fragment"
	grep -qxF "CONFIG_LOCALVERSION=\"-mmub-$1\"" "$tree/build/.config" ||
		missing+=(CONFIG_LOCALVERSION)
	((${#missing[@]} == 0)) ||
		die "not in the final .config (unmet dependency?): ${missing[*]}; fix $fragment"
}

compile() {
	kmake -j"$(nproc)" "$target"
}

# Patches are applied to a hardlinked copy: break the links of the files
# they touch first, so the pristine tree can never be written through.
apply_patches() {
	local p f
	for p in "${patches[@]}"; do
		sed -n 's|^+++ b/\([^[:space:]]*\).*|\1|p; s|^--- a/\([^[:space:]]*\).*|\1|p' "$p" |
		sort -u | while IFS= read -r f; do
			[[ -f $tree/$f ]] || continue
			cp -p "$tree/$f" "$tree/$f.mmubench-unlink"
			mv "$tree/$f.mmubench-unlink" "$tree/$f"
			# Newer than every object copied from the original build.
			touch "$tree/$f"
		done
		patch -d "$tree" -p1 --batch --forward --no-backup-if-mismatch -s <"$p" >&2 ||
			die "patch ${p#"$repo"/} does not apply to linux-source-6.1 (see $tree)"
	done
}

build_original() {
	tree=$cache/trees/original-$arch
	local key; key=$(key_of original)
	if [[ -f $tree/build/$image && $(cat "$tree/build/.mmubench-key" 2>/dev/null) == "$key" ]]; then
		note "cache hit: $tree/build/$image"
		return
	fi
	# A new source tarball has old mtimes from the archive: start afresh.
	if [[ $(cat "$tree/.mmubench-src" 2>/dev/null) != "$src_id" ]]; then
		rm -rf "$tree"
		timed "cp -al source" cp -al "$src" "$tree"
		echo "$src_id" >"$tree/.mmubench-src"
	fi
	mkdir -p "$tree/build"
	rm -f "$tree/build/.mmubench-key" "$tree/build/build.log"
	timed configure configure
	verify_config original
	timed "make $target" compile
	echo "$key" >"$tree/build/.mmubench-key"
}

# tools/ (objtool) is built with absolute paths, unlike the kernel proper.
# Left alone, objtool would rebuild and, being a prerequisite of every
# object, drag the whole kernel along: point those paths at the new tree,
# keeping the mtimes make compares.
seed() {
	local f t from
	cp -a "$1" "$tree/build"
	# The root the original was built in: its own path, or another if the
	# cache was built elsewhere and moved here (then grep -F below would
	# find nothing, and objtool would rebuild with the whole kernel).
	from=$(grep -rhoIE --exclude=build.log \
		"/[^[:space:]:\"'=]*/trees/original-$arch/" "$1/tools" |
		sort | uniq -c | sort -rn | awk 'NR == 1 { print $2 }') || true
	from=${from%/}
	[[ $from ]] || from=${1%/build}
	{ grep -rlIZ --exclude=build.log -F "$from/" "$tree/build" || true; } |
	while IFS= read -r -d '' f; do
		t=$(stat -c %y "$f")
		sed -i "s|$from/|$tree/|g" "$f"
		touch -d "$t" "$f"
	done
}

build_series() {
	local orig_build=$tree/build
	tree=$cache/trees/$series-$arch
	local key; key=$(key_of "$series")
	if [[ -f $tree/build/$image && $(cat "$tree/build/.mmubench-key" 2>/dev/null) == "$key" ]]; then
		note "cache hit: $tree/build/$image"
		return
	fi
	[[ ! -e $tree ]] || timed "remove old tree" rm -rf "$tree"
	timed "cp -al source" cp -al "$src" "$tree"
	timed "apply ${#patches[@]} patches" apply_patches
	timed "seed build dir" seed "$orig_build"
	rm -f "$tree/build/.mmubench-key" "$tree/build/build.log"
	localversion "$series"
	# Same fragment as the seed; olddefconfig only picks up new symbols.
	timed configure kmake olddefconfig
	verify_config "$series"
	timed "make $target" compile
	echo "$key" >"$tree/build/.mmubench-key"
}

t_all=$EPOCHREALTIME
exec 9>"$cache/.lock-$arch"
if ! flock -n 9; then
	note "waiting for another build of $arch ($cache/.lock-$arch)"
	timed "wait for lock" flock 9
fi
# Shared by both arches: its own short lock, taken under the arch lock.
kernel_source timed unpack
build_original
[[ $series == original ]] || build_series
note "$(printf '%-22s %7.1f s' "$arch/$series total" "$(echo "$EPOCHREALTIME - $t_all" | bc)")"
echo "$tree/build/$image"
