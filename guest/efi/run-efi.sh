#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Boot guest.efi under UEFI firmware in QEMU (TCG) and end with the
# guest's exit status.
#
#   guest/efi/run-efi.sh --arch x86_64|arm64 [--removable] [--raw]
#                        [--qemu-mem SIZE] [--smp N] [--timeout SEC]
#                        GUEST.EFI [WORD...]
#
# The image goes on a FAT directory that QEMU shows as a disk.  By default
# it is \EFI\mmubench\guest.efi, run by the UEFI Shell from startup.nsh
# with the WORDs (vcpus=1 mem=64m passes=3 ...), which the guest reads
# from its LoadOptions.  --removable puts it where firmware boots it by
# itself (\EFI\BOOT\BOOTX64.EFI or BOOTAA64.EFI), with no command line:
# the guest's defaults.
#
# QEMU gets -smp N: --smp, else the last vcpus=N among the WORDs, else 1
# (the guest says so if vcpus= is above it).
#
# Firmware: x86_64 OVMF (/usr/share/OVMF/OVMF_CODE_4M.fd with a private
# copy of OVMF_VARS_4M.fd; package ovmf), exit status through
# isa-debug-exit; arm64 QEMU_EFI.fd (package qemu-efi-aarch64) on -M virt
# at EL1, exit status through semihosting, with acpi=off: then the
# firmware publishes QEMU's device tree, where the guest finds the other
# CPUs (with ACPI tables it publishes none).  The console is the serial
# port; the firmware's escape sequences and CRs are removed unless --raw.
#
# Exit status: the guest's (0 ran every pass, 2 bad input, 3 exception),
# 1 if QEMU ended without one (timeout, crash, firmware power-off), or 4
# if firmware or QEMU is missing.
set -uo pipefail

prog=guest/efi/run-efi.sh
arch=
removable=0
raw=0
qemu_mem=256M
smp=
limit=120
ovmf_code=/usr/share/OVMF/OVMF_CODE_4M.fd
ovmf_vars=/usr/share/OVMF/OVMF_VARS_4M.fd
aavmf=/usr/share/qemu-efi-aarch64/QEMU_EFI.fd

usage() { # [STATUS]: 0 for --help, on stdout
	local fd=2
	[[ ${1:-2} != 0 ]] || fd=1
	echo "usage: $prog --arch x86_64|arm64 [--removable] [--raw] [--qemu-mem SIZE] [--smp N] [--timeout SEC] GUEST.EFI [WORD...]" >&$fd
	exit "${1:-2}"
}
missing() { echo "$prog: $*" >&2; exit 4; }

while (($#)); do
	case $1 in
	--arch) arch=${2:?--arch needs a value}; shift 2 ;;
	--removable) removable=1; shift ;;
	--raw) raw=1; shift ;;
	--qemu-mem) qemu_mem=${2:?--qemu-mem needs a value}; shift 2 ;;
	--smp) smp=${2:?--smp needs a value}; shift 2 ;;
	--timeout) limit=${2:?--timeout needs a value}; shift 2 ;;
	-h|--help) usage 0 ;;
	-*) usage ;;
	*) break ;;
	esac
done
(($# >= 1)) || usage
efi=$1
shift
[[ -f $efi ]] || { echo "$prog: $efi: no such file (make efi ARCH=$arch)" >&2; exit 2; }
if [[ -z $smp ]]; then
	smp=1
	for w in "$@"; do
		# A bad value stays the guest's to report.
		[[ $w =~ ^vcpus=([1-9][0-9]*)$ ]] && smp=${BASH_REMATCH[1]}
	done
fi
[[ $smp =~ ^[1-9][0-9]*$ ]] || { echo "$prog: -smp $smp: not a CPU count" >&2; exit 2; }
if ((removable && $# > 0)); then
	echo "$prog: --removable boots without a command line: no WORDs" >&2
	exit 2
fi

case $arch in
x86_64)
	qemu="qemu-system-x86_64"
	bootname=BOOTX64.EFI
	[[ -f $ovmf_code && -f $ovmf_vars ]] ||
		missing "no OVMF firmware ($ovmf_code): apt-get install ovmf"
	;;
arm64)
	qemu="qemu-system-aarch64"
	bootname=BOOTAA64.EFI
	[[ -f $aavmf ]] ||
		missing "no arm64 UEFI firmware ($aavmf): apt-get install qemu-efi-aarch64"
	;;
*) usage ;;
esac
command -v "$qemu" >/dev/null ||
	missing "no $qemu: apt-get install $([[ $arch == x86_64 ]] && echo qemu-system-x86 || echo qemu-system-arm)"

tmp=$(mktemp -d "${TMPDIR:-/tmp}/mmubench-efi.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/fat"
if ((removable)); then
	mkdir -p "$tmp/fat/EFI/BOOT"
	cp "$efi" "$tmp/fat/EFI/BOOT/$bootname"
else
	mkdir -p "$tmp/fat/EFI/mmubench"
	cp "$efi" "$tmp/fat/EFI/mmubench/guest.efi"
	# The shell's own specials (% variables, # comments) escaped with ^.
	line='fs0:\EFI\mmubench\guest.efi'
	for w in "$@"; do
		w=${w//^/^^}
		w=${w//%/^%}
		w=${w//#/^#}
		line+=" $w"
	done
	printf '%s\r\n' "$line" >"$tmp/fat/startup.nsh"
fi

cmd=("$qemu" -accel tcg -m "$qemu_mem" -smp "$smp" -nodefaults -display none -no-reboot
     -monitor none -serial stdio)
if [[ $arch == x86_64 ]]; then
	cp "$ovmf_vars" "$tmp/vars.fd"
	cmd+=(-M pc
	      -drive "if=pflash,format=raw,unit=0,readonly=on,file=$ovmf_code"
	      -drive "if=pflash,format=raw,unit=1,file=$tmp/vars.fd"
	      -drive "file=fat:rw:$tmp/fat,format=raw"
	      -device "isa-debug-exit,iobase=0xf4,iosize=4")
else
	cmd+=(-M virt,acpi=off -cpu max -bios "$aavmf"
	      -drive "file=fat:rw:$tmp/fat,format=raw,if=virtio" -semihosting)
fi

# The firmware's screen handling, made readable in a log.
filter() {
	if ((raw)); then
		cat
	else
		sed -u -e 's/\x1b\[[0-9;=?]*[A-Za-z]//g' -e 's/\r//g'
	fi
}

# The shell counts 5 s down before it runs startup.nsh, unless a key is
# pressed: press one on the serial console when it asks.
mkfifo "$tmp/keys"
exec 3<>"$tmp/keys"
: >"$tmp/raw"
if ((!removable)); then
	(
		for ((i = 0; i < 10 * limit; i++)); do
			grep -q 'any other key to continue' "$tmp/raw" && break
			sleep 0.1
		done
		printf ' ' >&3
	) &
	presser=$!
fi
timeout "$limit" "${cmd[@]}" <&3 2>&1 | tee "$tmp/raw" | filter |
	tee "$tmp/console"
rc=${PIPESTATUS[0]}
[[ -n ${presser:-} ]] && kill "$presser" 2>/dev/null
exec 3>&-

# isa-debug-exit reports (status << 1) | 1, semihosting the status itself;
# QEMU also exits 0 when firmware powers off: then the console's last
# "MMUB-EXIT status=N" line tells.
said=$(sed -n 's/^MMUB-EXIT status=\([0-9]*\)\r*$/\1/p' "$tmp/console" | tail -n1)
if [[ $arch == x86_64 ]] && ((rc & 1)); then
	status=$((rc >> 1))
elif [[ $arch == arm64 && $rc != 0 && $rc != 124 ]]; then
	status=$rc
elif [[ $rc == 0 && -n $said ]]; then
	status=$said
else
	status=1
fi
echo "$prog: QEMU exit status $rc$( ((rc == 124)) && echo " (timeout after ${limit}s)"), guest status $status" >&2
exit "$status"
