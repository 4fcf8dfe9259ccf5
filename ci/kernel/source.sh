# shellcheck shell=bash
# SPDX-License-Identifier: GPL-2.0
# The pristine linux-source-6.1, unpacked once under the cache and never
# written to afterwards: every build works in a `cp -al` of it.  Sourced
# by ci/kernel/build.sh (the L1 kernels) and ci/peer.sh (the selftest).
#
# Sets, when sourced:
#   tarball  $MMUBENCH_KERNEL_TARBALL, or /usr/src/linux-source-6.1.tar.xz
#   src      ${MMUBENCH_CACHE:-$HOME/.cache/mmubench}/kernel/src/linux-6.1
#
# kernel_source [WRAPPER...]: unpack the tarball into $src unless it is
# there from this very tarball, and set src_id (its size and mtime), the
# id that builds key their trees with.  A new tarball unpacks afresh.
# The unpack runs as "WRAPPER... kernel_source_unpack" (build.sh's timer);
# a short lock (kernel/.lock-src) lets concurrent callers wait.
tarball=${MMUBENCH_KERNEL_TARBALL:-/usr/src/linux-source-6.1.tar.xz}
src=${MMUBENCH_CACHE:-$HOME/.cache/mmubench}/kernel/src/linux-6.1
src_id=

kernel_source_unpack() {
	rm -rf "$src" "$src.tmp"
	mkdir "$src.tmp"
	tar -xJf "$tarball" -C "$src.tmp" --strip-components=1
	mv "$src.tmp" "$src"
	echo "$src_id" >"$src.id"
}

kernel_source() {
	[[ -f $tarball ]] || {
		echo "missing $tarball: apt-get install linux-source-6.1" >&2
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
