#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Build the L1 host kernel that runs KVM under QEMU TCG from Debian's
# linux-source-BASE, optionally with a patch series from
# patches/BASE/NAME/*.patch.  Two kinds:
#   modules  x86_64's default: Debian's own image of the base, and KVM
#            built from the source as its modules, with the image's config
#            and the series (lib/kernel/modules.sh): about 2 minutes cold,
#            20 s a series, for a series that changes KVM only;
#   full     arm64's (KVM cannot be a module there), and x86_64's with
#            --full: `make tinyconfig` + lib/kernel/ARCH.config (+
#            lib/kernel/BASE/ARCH.config where the base needs more), the
#            whole kernel (4 to 13 minutes cold).
#
#   lib/kernel/build.sh [--base 6.1|6.12] [--arch x86_64|arm64] [--series NAME] [--full] [--plan]
#   lib/kernel/build.sh [--arch A] [--full] --kernel-src GIT-TREE --ref REF [--onto REF0] --name NAME
#   lib/kernel/build.sh [--arch A] [--full] --kernel-src TARBALL [--patches DIR|MBOX] --name NAME
#   (each also with [--hold-for PID])
#
# --plan builds nothing: it prints, for the base's original and the
# series, "KIND original|SERIES cached|to build" a line (test/run.sh
# says so before it starts).
# The last line of stdout is the kernel image path; timings go to stderr.
# The kernel and the original it was built on stay held (lib/kernel/
# hold.sh) until process PID ends: --hold-for PID, else
# MMUBENCH_HOLD_PID, else the caller; lib/kernel/cache.sh removes no
# kernel a run holds.  Beside the image, build/.mmubench-id has the GNU
# build ids the booted kernel must report (lib/nested/run.sh checks).
# The kernel says which base and series it is: a whole build's release
# (uname -r, /proc/version) is the base's version and -mmub-SERIES
# (CONFIG_LOCALVERSION), e.g. 6.1.192-mmub-original, 6.12.117-mmub-NAME;
# Debian's image keeps its release and kvm.ko says mmub-SERIES.
# Everything lives in ${MMUBENCH_CACHE:-$HOME/.cache/mmubench}/kernel:
#   src/linux-BASE/           pristine source, unpacked once (lib/kernel/source.sh)
#   trees/BASE/SERIES-ARCH.KEY/
#                             `cp -al` of it (+ patches), build dir in ./build
#                             (x86_64 --full: SERIES-x86_64-full.KEY); KEY is
#                             the first 16 hex digits of the hash of all the
#                             build's inputs (key_of): two contents never share
#                             a folder, and none is rebuilt in place
#   trees/BASE/SERIES-ARCH    a symbolic link to the newest one built
#   debian/PACKAGE_VERSION/   Debian's image of a base, for the modules kind
# Series live in $MMUBENCH_PATCHES/BASE/NAME/*.patch (default: <repo>/patches).
# The build dir is a direct subdirectory of its tree so that kbuild uses
# srctree=".." and every command line and .cmd file is relative: a
# series' build dir seeded from the original's then only recompiles the
# files the patches touched.
#
# With --kernel-src the kernel is the user's (lib/kernel/user-source.sh):
# a git tree's commit REF, as a diff from REF0 (default REF) built on
# REF0's tree, or a tarball with the patches of a folder or an mbox,
# released as VERSION-mmub-NAME.  The base is the source's
# VERSION.PATCHLEVEL, whose fragment lib/kernel/BASE/ARCH.config is used
# where there is one.  On x86_64 a source that is Debian's
# linux-source-BASE (lib/kernel/user-source.sh says when) is of the
# modules kind like the bases; any other is built whole.
set -euo pipefail

prog=lib/kernel/build.sh
# shellcheck source=lib/preamble.sh
source "$(dirname "${BASH_SOURCE[0]}")/../preamble.sh"
# shellcheck source=source.sh
source "$here/source.sh"	# kernel_base, kernel_source (sets src_id)
# shellcheck source=user-source.sh
source "$here/user-source.sh"	# user_source
# shellcheck source=debian.sh
source "$here/debian.sh"	# debian_image, debian_closure
# shellcheck source=modules.sh
source "$here/modules.sh"	# build_modules_original, build_modules_series
# shellcheck source=hold.sh
source "$here/hold.sh"	# hold_for
cache=${MMUBENCH_CACHE:-$HOME/.cache/mmubench}/kernel
arch=x86_64
series=original
base=6.1 base_given=0 series_given=0 full=0 plan=0 built=0
ksrc='' ref='' onto='' upatches='' name='' split_dir=''
hold_pid=${MMUBENCH_HOLD_PID:-$PPID}
trap '[[ -z $split_dir ]] || rm -rf "$split_dir"' EXIT


usage() { # [STATUS]: 0 for --help, on stdout
	usage_exit "${1:-2}" '/^#   lib\/kernel\/build.sh/s/^#  //p'
}

while (($#)); do
	case $1 in
	--arch) arch=${2:?--arch needs a value}; shift 2 ;;
	--series) series=${2:?--series needs a value} series_given=1; shift 2 ;;
	--base) base=${2:?--base needs a value} base_given=1; shift 2 ;;
	--kernel-src) ksrc=${2:?--kernel-src needs a value}; shift 2 ;;
	--ref) ref=${2:?--ref needs a value}; shift 2 ;;
	--onto) onto=${2:?--onto needs a value}; shift 2 ;;
	--patches) upatches=${2:?--patches needs a value}; shift 2 ;;
	--name) name=${2:?--name needs a value}; shift 2 ;;
	--full) full=1; shift ;;
	--hold-for) hold_pid=${2:?--hold-for needs a value}; shift 2 ;;
	--plan) plan=1; shift ;;
	-h|--help) usage 0 ;;
	*) usage ;;
	esac
done

[[ $hold_pid =~ ^[1-9][0-9]*$ ]] || die "--hold-for $hold_pid: a process id (the run that boots the kernel)" 2
case $arch in
x86_64) cross='' target=bzImage image=arch/x86/boot/bzImage ;;
arm64) cross=aarch64-linux-gnu- target=Image image=arch/arm64/boot/Image ;;
*) die "unknown --arch '$arch' (x86_64 or arm64)" ;;
esac
if [[ $ksrc ]]; then
	((!base_given && !series_given)) ||
		die "--kernel-src: the base is the source's own version and the side is --name; --base and --series are for Debian's sources" 2
	[[ $name ]] || die "--kernel-src needs --name NAME, the side's name in the kernel's release" 2
	[[ $name != original || -z $upatches && ( -z $onto || $onto == "$ref" ) ]] ||
		die "--name original: the name of the unchanged source (the seed); name a side with changes otherwise" 2
	user_check
	series=$name
else
	[[ -z $ref$onto$upatches$name ]] ||
		die "--ref, --onto, --patches and --name: only with --kernel-src" 2
	kernel_base "$base" 2>/dev/null ||
		die "--base $base: accepted: ${kernel_bases[*]} (Debian's linux-source-BASE)" 2
	[[ -f $tarball ]] || die "missing $tarball: apt-get install linux-source-$base"
fi
[[ $series =~ ^[A-Za-z0-9._-]+$ ]] || die "bad --series/--name '$series' (letters, digits, . _ -)" 2
# The release (uname -r) is at most 64 characters: "6.12.NNN-mmub-" and the name.
((${#series} <= 48)) || die "--series $series: longer than 48 characters (the kernel release holds 64)" 2
[[ -f $here/$arch.config ]] || die "missing config fragment $here/$arch.config"

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

# patch_files DIR: its *.patch, in name order, appended to patches.
patch_files() {
	local p

	while IFS= read -r -d '' p; do patches+=("$p"); done < <(
		find "$1" -maxdepth 1 -name '*.patch' -print0 | LC_ALL=C sort -z)
}

# Debian's base and a series of patches/BASE: sets src_desc, patches,
# orig_trees (the original's) and trees (the series').
debian_series() {
	local pdir
	src_desc=linux-source-$base
	patches=()
	if [[ $series != original ]]; then
		pdir=${MMUBENCH_PATCHES:-$repo/patches}/$base/$series
		[[ -d $pdir ]] || die "no series '$series' for base $base: $pdir does not exist"
		patch_files "$pdir"
		((${#patches[@]})) || die "series '$series' has no $pdir/*.patch"
	fi
	orig_trees=$cache/trees/$base trees=$cache/trees/$base
	applier="patch"
}

# Seconds per step, on stderr: the caller wants to know where time went.
timed() {
	local name=$1 t0=$EPOCHREALTIME
	shift
	"$@"
	note "$(printf '%-22s %7.1f s' "$base/$arch/$series $name" \
		"$(echo "$EPOCHREALTIME - $t0" | bc)")"
}

# Hash of everything the build depends on besides the source tree.
key_of() {
	{
		echo "$src_id $base $arch $1"
		echo "localversion -mmub-$1"
		# The modules kind: Debian's image and how KVM is built on it.
		[[ $kind != modules ]] || { echo "modules $deb_id"; cat "$here/modules.sh"; }
		"${cross}gcc" --version | sed -n 1p
		cat "${fragments[@]}"
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
		"$tree/build/.config" "${fragments[@]}" >>"$tree/build/build.log" 2>&1
	localversion original
	kmake olddefconfig
}

# The series in the release: what the kernel itself reports is what a
# test checks (tools/kexec-ab.sh), not what the caller believed it booted.
localversion() { # SERIES
	"$tree/scripts/config" --file "$tree/build/.config" \
		--set-str LOCALVERSION "-mmub-$1"
}

# Is SYMBOL (without CONFIG_) defined by any Kconfig file of the tree?
kconfig_has() {
	grep -rqE --include='Kconfig*' "^[[:space:]]*(menu)?config $1\$" "$tree"
}

# tinyconfig (and olddefconfig on Debian's config) drops any option whose
# dependencies are unmet, without a word; an option the base does not
# have at all is dropped the same way.  A whole build's release names
# SERIES.
verify_config() { # [SERIES]
	local line f missing=() absent=()
	for f in "${fragments[@]}"; do
		while IFS= read -r line; do
			[[ $line =~ ^CONFIG_[A-Z0-9_]+= ]] || continue
			grep -qxF -- "$line" "$tree/build/.config" && continue
			line=${line%%=*}
			if kconfig_has "${line#CONFIG_}"; then
				missing+=("$line")
			else
				absent+=("$line (${f#"$repo"/})")
			fi
		done <"$f"
	done
	[[ -z ${1:-} ]] || grep -qxF "CONFIG_LOCALVERSION=\"-mmub-$1\"" "$tree/build/.config" ||
		missing+=(CONFIG_LOCALVERSION)
	((${#absent[@]} == 0)) ||
		die "$src_desc has no such option: ${absent[*]}; move it to a fragment of the bases that have it (lib/kernel/BASE/$arch.config)"
	((${#missing[@]} == 0)) ||
		die "not in the final .config (unmet dependency?): ${missing[*]}; fix ${fragments[*]#"$repo"/}"
}

compile() {
	kmake -j"$(nproc)" "$target"
}

# Patches are applied to a hardlinked copy: break the links of the files
# they touch first, so the pristine tree can never be written through.
# patches/ are applied by patch(1); the user's (an mbox, a folder, a diff
# of two commits) by git apply, which also knows binary files, renames
# and modes (git diff --binary).  No repository above the tree may claim
# it: git apply inside one would skip the paths outside its directory.
apply_one() { # PATCH
	if [[ $applier == git ]]; then
		GIT_CEILING_DIRECTORIES=${tree%/*} git -C "$tree" apply -p1 "$1"
	else
		patch -d "$tree" -p1 --batch --forward --no-backup-if-mismatch -s <"$1"
	fi
}

# patch_name K N PATCH: 'patch K/N "its Subject"' (and the file, where
# it is one of the repository's rather than a message split from an
# mbox into a temporary folder).
patch_name() { # K N PATCH
	local subj
	subj=$(awk '/^Subject: / { s = substr($0, 10); f = 1; next }
		f && /^[ \t]/ { sub(/^[ \t]+/, " "); s = s $0; next }
		f { exit } END { print s }' "$3")
	printf 'patch %s/%s' "$1" "$2"
	[[ -z $subj ]] || printf ' "%s"' "$subj"
	[[ $3 != "$repo"/* ]] || printf ' (%s)' "${3#"$repo"/}"
	[[ -n $subj || $3 == "$repo"/* ]] || printf ' (%s)' "$3"
}

# applied_where LOG: " at FILE:LINE" from git apply's error, " at FILE"
# from patch's rejects, else nothing.
applied_where() { # LOG
	sed -nE 's/^error: patch failed: (.*:[0-9]+)$/ at \1/p
		s/^.* FAILED -- saving rejects to file (.*)\.rej$/ at \1/p' "$1" | head -n 1
}

apply_patches() {
	local p f k=0 log
	log=$(mktemp)
	for p in "${patches[@]}"; do
		k=$((k + 1))
		sed -n 's|^+++ b/\([^[:space:]]*\).*|\1|p; s|^--- a/\([^[:space:]]*\).*|\1|p
			s|^diff --git a/\([^[:space:]]*\) b/\([^[:space:]]*\)$|\1\n\2|p' "$p" |
		sort -u | while IFS= read -r f; do
			[[ -f $tree/$f ]] || continue
			cp -p "$tree/$f" "$tree/$f.mmubench-unlink"
			mv "$tree/$f.mmubench-unlink" "$tree/$f"
			# Newer than every object copied from the original build.
			touch "$tree/$f"
		done
		if ! apply_one "$p" >"$log" 2>&1; then
			cat "$log" >&2
			f="$(patch_name "$k" "${#patches[@]}" "$p") does not apply to $src_desc$(applied_where "$log") (see $tree)"
			rm -f "$log"
			die "$f${apply_hint:+; $apply_hint}"
		fi
		cat "$log" >&2
	done
	rm -f "$log"
}

# built_with TREE KEY: TREE's image was built from the inputs KEY hashes.
built_with() { # TREE KEY
	[[ -f $1/build/$image && $(cat "$1/build/.mmubench-key" 2>/dev/null) == "$2" ]]
}

# ids_intact TREE: the files of TREE whose build ids its build recorded
# (build/.mmubench-id) still have them; else says which does not.
# Debian's vmlinux of the modules kind is not in the tree: only the
# boot's check (lib/nested/run.sh) sees it.
ids_intact() { # TREE
	local name id f now
	[[ -f $1/build/.mmubench-id ]] || { echo "build/.mmubench-id is gone"; return 1; }
	while read -r name id; do
		case $name in
		vmlinux) [[ $kind == full ]] || continue; f=$1/build/vmlinux ;;
		*) f=$1/build/mmubench-modules/${name//_/-}.ko ;;
		esac
		now=$([[ -f $f ]] && build_id "$f")
		[[ $now == "$id" ]] && continue
		echo "${f#"$1/"} has build id ${now:-(none: no such file)}, its build recorded $id"
		return 1
	done <"$1/build/.mmubench-id"
}

# kernel_at LINK NAME: tree and key for NAME's kernel, whose folder is
# LINK.KEY16, held for the run; success if it is built.  Otherwise the
# folder is emptied of an interrupted build's files (the arch's build
# lock is ours: nobody else builds it) for the caller to build in.
kernel_at() { # LINK NAME
	local why
	key=$(key_of "$2")
	tree=$1.${key:0:16}
	if built_with "$tree" "$key" && ! why=$(ids_intact "$tree"); then
		# Built, then changed (a file copied over, by hand or by a
		# test): not this key's kernel any more.  Built again, but
		# never under a run that holds it.
		free_to_remove "$tree" ||
			die "$tree: $why, and another run holds it: let that run end (it fails at its next boot) and run again"
		note "$tree: $why: built again"
		rm -f "$tree/build/.mmubench-key"
		exec {hold_fd}>&-
	fi
	hold_for "$hold_pid" "$tree"
	if built_with "$tree" "$key"; then
		note "cache hit: $tree/build/$image"
		kernel_link "$1"
		return 0
	fi
	find "$tree" -mindepth 1 -maxdepth 1 ! -name .mmubench-hold -exec rm -rf {} +
	return 1
}

# kernel_link LINK: LINK names tree, the newest kernel of its name, for
# whoever reads the cache by name (the tests); replaced atomically.  A
# folder of the layout before keys (a rebuild in place) goes.
kernel_link() { # LINK
	if [[ -d $1 && ! -L $1 ]]; then
		timed "remove old-layout tree" rm -rf "$1"
	fi
	ln -sfn "${tree##*/}" "$1.tmp.$$"
	mv -T "$1.tmp.$$" "$1"
}

# build_id ELF: its GNU build id, the one the running kernel reports in
# /sys/kernel/notes (or /sys/module/NAME/notes).
build_id() { # ELF
	readelf -n "$1" | awk '/Build ID:/ { print $3; exit }'
}

# kernel_done LINK: the build in tree is complete.  Written last: the
# build ids, the source it came from (lib/kernel/cache.sh), its own size
# (what removing it frees: the files not hard links of the source), the
# key, and then the link.
kernel_done() { # LINK
	local id
	if [[ $kind == full ]]; then
		id=$(build_id "$tree/build/vmlinux")
		[[ $id ]] || die "$tree/build/vmlinux has no GNU build id (ld --build-id)"
		echo "vmlinux $id" >"$tree/build/.mmubench-id"
	fi
	[[ -s $tree/build/.mmubench-id ]] || die "no build ids in $tree/build/.mmubench-id"
	echo "$src" >"$tree/.mmubench-src"
	[[ $kind != modules ]] || echo "${deb_image%/boot/*}" >"$tree/.mmubench-deb"
	find "$tree" -type f -links 1 -printf '%b\n' |
		awk '{ s += $1 } END { printf "%d\n", s * 512 }' >"$tree/.mmubench-size"
	echo "$key" >"$tree/build/.mmubench-key"
	kernel_link "$1"
	built=1
}

build_original() {
	local link=$orig_trees/original-$arch$sfx
	kernel_at "$link" original && return
	timed "cp -al source" cp -al "$src/." "$tree/"
	mkdir -p "$tree/build"
	timed configure configure
	verify_config original
	timed "make $target" compile
	kernel_done "$link"
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
		"/[^[:space:]:\"'=]*/trees/${orig_trees#"$cache/trees/"}/original-$arch$sfx\.[0-9a-f]{16}/" "$1/tools" |
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
	local orig_build=$tree/build link=$trees/$series-$arch$sfx
	kernel_at "$link" "$series" && return
	timed "cp -al source" cp -al "$src/." "$tree/"
	timed "apply ${#patches[@]} patches" apply_patches
	timed "seed build dir" seed "$orig_build"
	rm -f "$tree/build/.mmubench-key" "$tree/build/.mmubench-id" "$tree/build/build.log"
	localversion "$series"
	# Same fragment as the seed; olddefconfig only picks up new symbols.
	timed configure kmake olddefconfig
	verify_config "$series"
	timed "make $target" compile
	kernel_done "$link"
}

# --plan: "KIND NAME cached|to build", by the key the build would write.
plan_one() { # NAME LINK
	local st="to build" k
	k=$(key_of "$1")
	! built_with "$2.${k:0:16}" "$k" || st=cached
	echo "$kind $1 $st"
}

t_all=$EPOCHREALTIME
mkdir -p "$cache"
if ((plan)); then
	# Read only: no lock, nothing unpacked; the source's id is its
	# tarball's, as kernel_source makes it.
	[[ -z $ksrc ]] || die "--plan: for a base and its series, not --kernel-src" 2
	debian_series
	src_id=$(stat -c '%s-%Y' "$tarball")
else
	# Shared with every build: no source goes while one runs
	# (lib/kernel/cache.sh prune).
	exec 6>>"$cache/.lock-prune"
	flock -s 6
	exec 9>"$cache/.lock-$arch"
	if ! flock -n 9; then
		note "waiting for another build of $arch ($cache/.lock-$arch)"
		timed "wait for lock" flock 9
	fi
	# Shared by both arches: its own short lock, taken under the arch lock.
	if [[ $ksrc ]]; then
		user_source
	else
		debian_series
		kernel_source timed unpack
	fi
fi
# x86_64's KVM is Debian's module: built alone where the source is
# Debian's (a base, or a user's source found to be one).
kind=full sfx=''
if [[ $arch == x86_64 ]]; then
	if ((full)); then
		sfx=-full
	elif [[ $orig_trees != "$cache/trees/$base" ]]; then
		note "$src_desc is not Debian's linux-source of a base: the whole kernel is built"
		sfx=-full
	else
		kind=modules
	fi
fi
if [[ $kind == modules ]]; then
	fragments=("$here/kvm-modules.config")
	[[ ! -f $here/$base/kvm-modules.config ]] || fragments+=("$here/$base/kvm-modules.config")
	modules_check_patches
	if ((plan)); then debian_image_id; else debian_image; fi
else
	fragments=("$here/$arch.config")
	[[ ! -f $here/$base/$arch.config ]] || fragments+=("$here/$base/$arch.config")
fi
if ((plan)); then
	plan_one original "$orig_trees/original-$arch$sfx"
	[[ $series == original ]] || plan_one "$series" "$trees/$series-$arch$sfx"
	exit 0
fi
mkdir -p "$orig_trees" "$trees"
if [[ $kind == modules ]]; then
	build_modules_original
	[[ $series == original ]] || build_modules_series
else
	build_original
	[[ $series == original ]] || build_series
fi
note "$(printf '%-22s %7.1f s' "$base/$arch/$series total" "$(echo "$EPOCHREALTIME - $t_all" | bc)")"
# A new kernel: the cache's limits again (this build's kernels are held).
if ((built)); then
	exec 6>&- 9>&-
	"$here/cache.sh" prune >&2 || note "lib/kernel/cache.sh prune failed (the build is done)"
fi
echo "$tree/build/$image"
