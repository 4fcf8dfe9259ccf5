#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
# guest.efi: the guest as an EFI application (make efi, guest/efi/), for
# x86_64 and arm64 on any build machine, booted under UEFI firmware in
# QEMU TCG (OVMF, QEMU_EFI.fd) by guest/efi/run-efi.sh.  A firmware boot
# takes 8-15 s here, so each test boots as few times as it can.
load helpers

RUN_EFI=$ROOT/guest/efi/run-efi.sh
OVMF=/usr/share/OVMF/OVMF_CODE_4M.fd
AAVMF=/usr/share/qemu-efi-aarch64/QEMU_EFI.fd

setup_file() {
	local a
	for a in x86_64 arm64; do
		make -s -C "$ROOT" O="$O" ARCH=$a efi \
			>"$BATS_FILE_TMPDIR/build-$a.log" 2>&1 || true
	done
}

# need ARCH: the image built, firmware and QEMU (make deps), else fail.
need() {
	local efi=$O/$1/guest.efi
	[[ -f $efi ]] ||
		fail "make ARCH=$1 efi failed: $(tail -n 5 "$BATS_FILE_TMPDIR/build-$1.log")"
	case $1 in
	x86_64)
		[[ -f $OVMF ]] || fail "no OVMF firmware ($OVMF): apt-get install ovmf (make deps)"
		command -v qemu-system-x86_64 >/dev/null ||
			fail "qemu-system-x86_64 missing (apt-get install qemu-system-x86, make deps)"
		;;
	arm64)
		[[ -f $AAVMF ]] ||
			fail "no arm64 UEFI firmware ($AAVMF): apt-get install qemu-efi-aarch64 (make deps)"
		command -v qemu-system-aarch64 >/dev/null ||
			fail "qemu-system-aarch64 missing (apt-get install qemu-system-arm, make deps)"
		;;
	esac
}

efi() { # ARCH [RUN-EFI OPTIONS] [WORDS...]
	local a=$1
	shift
	not_in_check "boots no EFI firmware"
	run "$RUN_EFI" --arch "$a" --timeout 150 "$@"
}

# "MACHINE SUBSYSTEM" from a PE image's headers, in hex.
pe_info() {
	local pe
	pe=$(od -An -tu4 -j60 -N4 "$1" | tr -d ' ')
	[[ $(od -An -c -N2 "$1" | tr -d ' ') == MZ ]] || return 1
	[[ $(od -An -tx1 -j"$pe" -N4 "$1" | tr -d ' ') == 50450000 ]] || return 1
	printf '%s %s\n' "$(od -An -tx2 -j$((pe + 4)) -N2 "$1" | tr -d ' ')" \
		"$(od -An -tx2 -j$((pe + 24 + 68)) -N2 "$1" | tr -d ' ')"
}

@test "efi: guest.efi is an EFI application for each arch, carrying guest.elf" {
	[[ -f $O/x86_64/guest.efi ]] ||
		fail "make ARCH=x86_64 efi failed: $(tail -n 5 "$BATS_FILE_TMPDIR/build-x86_64.log")"
	[[ -f $O/arm64/guest.efi ]] ||
		fail "make ARCH=arm64 efi failed: $(tail -n 5 "$BATS_FILE_TMPDIR/build-arm64.log")"
	run pe_info "$O/x86_64/guest.efi"
	assert_output "8664 000a"
	run pe_info "$O/arm64/guest.efi"
	assert_output "aa64 000a"
	# The aarch64 image is a raw copy of crt0's PE layout: whole pages.
	(($(stat -c %s "$O/arm64/guest.efi") % 4096 == 0))
	# The image's EFI entry is announced in a note of its own.
	run readelf -n "$O/x86_64/guest.elf" "$O/arm64/guest.elf"
	assert_success
	[[ $(grep -c "mmubench-efi *0x00000008" <<<"$output") == 2 ]]
}

# run-efi.sh gives QEMU -smp 2 for vcpus=2; the APs start with INIT/SIPI.
@test "efi: x86_64, boots under OVMF from the UEFI Shell, 2 vCPUs report every pass" {
	need x86_64
	efi x86_64 "$O/x86_64/guest.efi" vcpus=2 mem=16m passes=3
	assert_success
	assert_line "Shell> fs0:\\EFI\\mmubench\\guest.efi vcpus=2 mem=16m passes=3"
	assert_line --regexp "^MMUB start vcpus=2 test_gpa=0x[0-9a-f]+ test_size=16777216 guest_page=4096 .* selected=2048$"
	for pass in 0 1 2; do
		for cpu in 0 1; do
			assert_line --regexp "^MMUB pass=$pass cpu=$cpu accesses=2048 writes=2048 .*clk_hz=[1-9][0-9]* .*lat_p99=[0-9]+"
		done
	done
	assert_line "MMUB-EXIT status=0"
	# isa-debug-exit: status 0 from the guest is QEMU's 1.
	assert_line --partial "QEMU exit status 1, guest status 0"
}

# The secondaries start with PSCI CPU_ON, their MPIDRs from the device
# tree that the firmware publishes (run-efi.sh: -M virt,acpi=off).
@test "efi: arm64, boots under QEMU_EFI.fd from the UEFI Shell, 2 vCPUs report every pass" {
	need arm64
	efi arm64 "$O/arm64/guest.efi" vcpus=2 mem=32m page=2m stride=2m passes=2
	assert_success
	assert_line --regexp "^MMUB start vcpus=2 test_gpa=0x[0-9a-f]+ test_size=33554432 guest_page=2097152 .* selected=8$"
	for pass in 0 1; do
		for cpu in 0 1; do
			assert_line --regexp "^MMUB pass=$pass cpu=$cpu accesses=8 writes=8 .*clk_hz=[1-9][0-9]* "
		done
	done
	assert_line "MMUB-EXIT status=0"
	# Semihosting: QEMU exits with the guest's status.
	assert_line --partial "QEMU exit status 0, guest status 0"
}

@test "efi: x86_64, booted by OVMF itself as EFI/BOOT/BOOTX64.EFI, runs the defaults" {
	need x86_64
	efi x86_64 --removable "$O/x86_64/guest.efi"
	assert_success
	assert_line --regexp "^BdsDxe: starting Boot[0-9]+ \"UEFI QEMU HARDDISK"
	assert_line --regexp "^MMUB start vcpus=1 .*test_size=67108864 .* selected=16384$"
	assert_line --regexp "^MMUB pass=1 cpu=0 accesses=16384 "
	assert_line "MMUB-EXIT status=0"
}

@test "efi: arm64, booted by QEMU_EFI.fd itself as EFI/BOOT/BOOTAA64.EFI, runs the defaults" {
	need arm64
	efi arm64 --removable "$O/arm64/guest.efi"
	assert_success
	# 64M do not fit below the firmware's own memory with -m 256M, so
	# the test memory comes from higher up in its memory map.
	assert_line --regexp "^MMUB start vcpus=1 test_gpa=0x4[89a-f][0-9a-f]{6} test_size=67108864 .* selected=16384$"
	assert_line --regexp "^MMUB pass=1 cpu=0 accesses=16384 "
	assert_line "MMUB-EXIT status=0"
}

# over_smp ARCH SMP VCPUS MESSAGE QEMU_STATUS: asking for more vCPUs than
# QEMU has is one error line, status 2, and nothing started.
over_smp() {
	need "$1"
	efi "$1" --smp "$2" "$O/$1/guest.efi" vcpus="$3" mem=4m
	assert_equal "$status" 2
	assert_line "MMUB error: vcpus: $4"
	[[ $(grep -c "^MMUB error" <<<"$output") == 1 ]]
	refute_line --regexp "^MMUB start"
	assert_line --partial "QEMU exit status $5, guest status 2"
}

@test "efi: x86_64, vcpus= above QEMU's -smp is one error line and status 2" {
	over_smp x86_64 1 2 "more than the 1 CPU the firmware has (QEMU -smp)" 5
}

@test "efi: arm64, vcpus= above QEMU's -smp is one error line and status 2" {
	over_smp arm64 2 3 "more than the CPUs QEMU has (-smp)" 2
}

@test "efi: arm64, a bad word is an error naming it and status 2" {
	need arm64
	efi arm64 "$O/arm64/guest.efi" passes=1 stride=3k
	assert_equal "$status" 2
	assert_line "MMUB error: bad value for guest command line key stride"
	assert_line --partial "QEMU exit status 2, guest status 2"
}

@test "efi: x86_64, a guest exception after an EFI boot is reported with vector, RIP and CR2" {
	need x86_64
	efi x86_64 "$O/x86_64/guest.efi" action=fault mem=4m
	assert_equal "$status" 3
	assert_line --regexp "^MMUB fault vector=0x000000000000000e rip=0x[0-9a-f]+ cr2=0x00007ffff0000000 error=0x0000000000000006 cs=0x000000000000002b$"
	assert_line "MMUB-EXIT status=3"
}
