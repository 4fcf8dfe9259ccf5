# shellcheck shell=bash
# SPDX-License-Identifier: GPL-2.0
# The pristine kernel source of a base, unpacked once under the cache and
# never written to afterwards: every build works in a `cp -al` of it.
# Sourced by lib/kernel/build.sh (the L1 kernels) and tools/peer.sh (the
# selftest).
#
# The bases are Debian's source packages, one per LTS line mmubench
# builds: linux-source-6.1 (Debian 12) and linux-source-6.12 (Debian 12's
# security archive).  A series of patches/ is written for one base
# (patches/BASE/NAME), so a base is part of every kernel's name.
#
# kernel_base BASE: check BASE and set, for it,
#   base     BASE
#   tarball  $MMUBENCH_KERNEL_TARBALL, or /usr/src/linux-source-BASE.tar.xz
#   src      ${MMUBENCH_CACHE:-$HOME/.cache/mmubench}/kernel/src/linux-BASE
# kernel_source [WRAPPER...]: unpack the tarball into $src unless it is
# there from this very tarball, and set src_id (its size and mtime), the
# id that builds key their trees with.  A new tarball unpacks afresh.
# The unpack runs as "WRAPPER... kernel_source_unpack" (build.sh's timer);
# a short lock (kernel/.lock-src) lets concurrent callers wait.
kernel_bases=(6.1 6.12)
base='' tarball='' src='' src_id=''

kernel_base() { # BASE
	local b
	for b in "${kernel_bases[@]}"; do
		[[ $1 != "$b" ]] || break
	done
	[[ $1 == "$b" ]] || {
		echo "--base $1: not a kernel base mmubench builds (${kernel_bases[*]})" >&2
		return 2
	}
	base=$1
	tarball=${MMUBENCH_KERNEL_TARBALL:-/usr/src/linux-source-$base.tar.xz}
	src=${MMUBENCH_CACHE:-$HOME/.cache/mmubench}/kernel/src/linux-$base
}

kernel_source_unpack() {
	rm -rf "$src" "$src.tmp"
	mkdir "$src.tmp"
	tar -xJf "$tarball" -C "$src.tmp" --strip-components=1
	mv "$src.tmp" "$src"
	echo "$src_id" >"$src.id"
}

kernel_source() {
	[[ -f $tarball ]] || {
		echo "missing $tarball: apt-get install linux-source-$base" >&2
		return 1
	}
	src_id=$(stat -c '%s-%Y' "$tarball")
	mkdir -p "${src%/*}"
	{
		flock 8
		[[ -d $src && -f $src.id && $(<"$src.id") == "$src_id" ]] ||
			"$@" kernel_source_unpack
	} 8>"${src%/*/*}/.lock-src"
}
