#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Fetch Debian's gnu-efi:arm64 (crt0, linker script, libgnuefi/libefi and
# headers for aarch64) and unpack it into DIR, for building the arm64
# guest.efi on an amd64 machine, where the package cannot be installed
# next to the amd64 one.  A private apt state (lists, cache, status under
# DIR/apt) leaves the machine's own apt setup untouched, as
# ci/nested/mkinitramfs.sh does for busybox-static:arm64.
#
#   guest/efi/fetch-gnu-efi-arm64.sh DIR
#
# DIR/.stamp marks a complete unpack; with it the script does nothing.
set -euo pipefail

prog=guest/efi/fetch-gnu-efi-arm64.sh
die() { echo "$prog: error: $*" >&2; exit 1; }

(($# == 1)) || { echo "usage: $prog DIR" >&2; exit 2; }
dir=$1
[[ -f $dir/.stamp ]] && exit 0
for t in apt-get dpkg-deb flock; do
	command -v $t >/dev/null || die "missing '$t' (a Debian system is needed)"
done

mkdir -p "$dir"
exec 8>"$dir/.lock"
flock 8
[[ -f $dir/.stamp ]] && exit 0

apt=(apt-get -qq -o APT::Sandbox::User=root -o Dir::State::Lists="$dir/apt/lists"
     -o Dir::Cache="$dir/apt/cache" -o Dir::State::status="$dir/apt/status"
     -o APT::Architecture=arm64 -o APT::Architectures::=arm64)
mkdir -p "$dir/apt/lists/partial" "$dir/apt/cache/archives/partial"
touch "$dir/apt/status"
echo "$prog: fetching gnu-efi:arm64 into $dir" >&2
"${apt[@]}" update >&2 ||
	die "apt-get update for arm64 failed (is a Debian mirror reachable?)"
(cd "$dir" && rm -f gnu-efi_*_arm64.deb && "${apt[@]}" download gnu-efi:arm64 >&2) ||
	die "could not download gnu-efi:arm64"
rm -rf "$dir/root"
dpkg-deb -x "$dir"/gnu-efi_*_arm64.deb "$dir/root"
for f in lib/crt0-efi-aarch64.o lib/elf_aarch64_efi.lds lib/libgnuefi.a \
	 lib/libefi.a include/efi/aarch64/efibind.h; do
	[[ -f $dir/root/usr/$f ]] || die "gnu-efi:arm64 has no /usr/$f"
done
rm -f "$dir"/gnu-efi_*_arm64.deb
touch "$dir/.stamp"
