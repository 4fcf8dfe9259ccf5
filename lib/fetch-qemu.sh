#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Unpack the QEMU of Debian's backports (10.0 for bookworm) into DIR,
# beside the system's own, for what the system's 7.2 cannot do: share
# instructions fairly between several CPUs under -icount (QEMU 8.1,
# 83ecdb18eb65 "accel/tcg/tcg-accel-ops-rr: ensure fairness with icount").
# A private apt state under DIR/apt reads the system's mirror and leaves
# its apt setup untouched; the system's QEMU stays the default.
#
#   lib/fetch-qemu.sh [DIR]
#
# DIR (${MMUBENCH_CACHE:-~/.cache/mmubench}/qemu) gets bin/qemu-system-x86_64
# and bin/qemu-system-aarch64, which run the unpacked binaries with their
# own firmware and modules.  DIR/.stamp names the version unpacked; with
# it nothing is done.
set -euo pipefail

prog=lib/fetch-qemu.sh
# shellcheck source=lib/preamble.sh
source "$(dirname "${BASH_SOURCE[0]}")/preamble.sh"

[[ ${1:-} == -h || ${1:-} == --help ]] && { echo "usage: $prog [DIR]"; exit 0; }
(($# <= 1)) || { echo "usage: $prog [DIR]" >&2; exit 2; }
dir=${1:-${MMUBENCH_CACHE:-$HOME/.cache/mmubench}/qemu}
pkgs=(qemu-system-x86 qemu-system-arm qemu-system-common qemu-system-data seabios)

[[ -x $dir/bin/qemu-system-x86_64 && -s $dir/.stamp ]] && exit 0
for t in apt-get dpkg-deb flock; do
	command -v $t >/dev/null || die "missing '$t' (a Debian system is needed)"
done
# shellcheck source=/dev/null
codename=$(. /etc/os-release && echo "${VERSION_CODENAME:-}")
[[ $codename ]] || die "/etc/os-release names no Debian release (VERSION_CODENAME)"
# The system's own mirror for its release, so that no host is named here.
# shellcheck disable=SC2016 # apt's own $(FIELD) placeholders
uri=$(apt-get indextargets --no-release-info --format '$(REPO_URI) $(RELEASE)' 2>/dev/null |
	awk -v r="$codename" '$2 == r { print $1; exit }')
[[ $uri ]] || die "apt has no source for $codename (apt-get update first)"

mkdir -p "$dir"
exec 8>"$dir/.lock"
flock 8
[[ -x $dir/bin/qemu-system-x86_64 && -s $dir/.stamp ]] && exit 0

mkdir -p "$dir/apt/lists/partial" "$dir/apt/cache/archives/partial" "$dir/debs"
echo "deb $uri $codename main" >"$dir/apt/sources.list"
echo "deb $uri $codename-backports main" >>"$dir/apt/sources.list"
touch "$dir/apt/status"
apt=(apt-get -qq -o APT::Sandbox::User=root -o Dir::Etc::sourcelist="$dir/apt/sources.list"
     -o Dir::Etc::sourceparts=- -o Dir::State::Lists="$dir/apt/lists"
     -o Dir::Cache="$dir/apt/cache" -o Dir::State::status="$dir/apt/status")
echo "$prog: fetching ${pkgs[*]} from $codename-backports into $dir" >&2
"${apt[@]}" update >&2 || die "apt-get update of $codename-backports failed"
rm -f "$dir"/debs/*.deb
(cd "$dir/debs" && "${apt[@]}" download "${pkgs[@]/%//$codename-backports}" >&2) ||
	die "could not download ${pkgs[*]} from $codename-backports"
rm -rf "${dir:?}/root" "${dir:?}/bin" "${dir:?}/bin.tmp" "$dir/.stamp"
for d in "$dir"/debs/*.deb; do
	dpkg-deb -x "$d" "$dir/root"
done
rm -f "$dir"/debs/*.deb
# Its modules' folder is the host's multiarch one (x86_64-linux-gnu).
mods=$(find "$dir/root/usr/lib" -mindepth 2 -maxdepth 2 -type d -name qemu | head -n1)
# The wrappers appear whole, once the QEMU they run has said its version.
mkdir -p "$dir/bin.tmp"
for q in qemu-system-x86_64 qemu-system-aarch64; do
	[[ -x $dir/root/usr/bin/$q ]] || die "$codename-backports' QEMU has no /usr/bin/$q"
	cat >"$dir/bin.tmp/$q" <<EOF
#!/bin/sh
# $codename-backports' QEMU, unpacked by $prog: its firmware and modules.
QEMU_MODULE_DIR='$mods' exec '$dir/root/usr/bin/$q' \\
	-L '$dir/root/usr/share/qemu' -L '$dir/root/usr/share/seabios' "\$@"
EOF
	chmod +x "$dir/bin.tmp/$q"
done
ver=$("$dir/bin.tmp/qemu-system-x86_64" --version | awk 'NR == 1 { print $4 }')
[[ $ver ]] || die "the unpacked QEMU does not run ($dir/bin.tmp/qemu-system-x86_64 --version)"
mv -T "$dir/bin.tmp" "$dir/bin"
echo "$ver" >"$dir/.stamp"
echo "$prog: QEMU $ver in $dir/bin" >&2
