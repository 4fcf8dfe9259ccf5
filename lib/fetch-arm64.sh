#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Fetch Debian arm64 packages on any machine and unpack them into DIR/root,
# for what the arm64 builds need and an amd64 system cannot install next to
# its own: gnu-efi:arm64 (guest.efi), libjansson-dev:arm64 (the static arm64
# harness), busybox-static:arm64 (the nested arm64 initramfs).  A private
# apt state under DIR/apt leaves the machine's own apt setup untouched.
#
#   lib/fetch-arm64.sh DIR PACKAGE... [-- FILE...]
#
# FILEs are paths under DIR/root that must exist afterwards.  DIR/.stamp
# marks a complete unpack of those packages; with it nothing is done.
set -euo pipefail

prog=lib/fetch-arm64.sh
# shellcheck source=lib/preamble.sh
source "$(dirname "${BASH_SOURCE[0]}")/preamble.sh"
usage() { # STATUS
	echo "usage: $prog DIR PACKAGE... [-- FILE...]" >&"$(( $1 ? 2 : 1 ))"
	exit "$1"
}

[[ ${1:-} == -h || ${1:-} == --help ]] && usage 0
(($# >= 2)) || usage 2
dir=$1
shift
pkgs=() files=()
while (($#)) && [[ $1 != -- ]]; do pkgs+=("$1"); shift; done
(($#)) && shift
files=("$@")
want="${pkgs[*]}"
[[ -f $dir/.stamp && $(<"$dir/.stamp") == "$want" ]] && exit 0
for t in apt-get dpkg-deb flock; do
	command -v $t >/dev/null || die "missing '$t' (a Debian system is needed)"
done

mkdir -p "$dir"
exec 8>"$dir/.lock"
flock 8
[[ -f $dir/.stamp && $(<"$dir/.stamp") == "$want" ]] && exit 0

apt=(apt-get -qq -o APT::Sandbox::User=root -o Dir::State::Lists="$dir/apt/lists"
     -o Dir::Cache="$dir/apt/cache" -o Dir::State::status="$dir/apt/status"
     -o APT::Architecture=arm64 -o APT::Architectures::=arm64)
mkdir -p "$dir/apt/lists/partial" "$dir/apt/cache/archives/partial" "$dir/debs"
touch "$dir/apt/status"
echo "$prog: fetching ${pkgs[*]} (arm64) into $dir" >&2
"${apt[@]}" update >&2 ||
	die "apt-get update for arm64 failed (is a Debian mirror reachable?)"
rm -f "$dir"/debs/*.deb
(cd "$dir/debs" && "${apt[@]}" download "${pkgs[@]/%/:arm64}" >&2) ||
	die "could not download ${pkgs[*]} for arm64"
rm -rf "$dir/root"
for d in "$dir"/debs/*.deb; do
	dpkg-deb -x "$d" "$dir/root"
done
rm -f "$dir"/debs/*.deb
for f in "${files[@]}"; do
	[[ -e $dir/root/$f ]] || die "${pkgs[*]} (arm64) has no /$f"
done
echo "$want" >"$dir/.stamp"
