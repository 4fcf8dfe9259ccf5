#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
# The guest image: how it is built, and that it boots under QEMU (PVH).
load helpers

qemu_guest() { # APPEND
	run timeout 60 qemu-system-x86_64 -M pc -accel tcg -nodefaults \
		-display none -no-reboot -m 256M -kernel "$GUEST" \
		-append "$1" -device isa-debug-exit,iobase=0xf4,iosize=4 \
		-serial stdio -monitor none
}

@test "the guest image carries the PVH entry and the protocol note" {
	[[ $ARCH == x86_64 ]] || skip "PVH is x86_64 only"
	run readelf -n "$GUEST"
	assert_success
	assert_output --regexp "Xen +0x00000004[[:space:]]+Unknown note type: \(0x00000012\)"
	assert_output --regexp "mmubench +0x00000004[[:space:]]+NT_VERSION"
}

@test "the guest boots under QEMU -kernel (PVH) and reports every pass" {
	[[ $ARCH == x86_64 ]] || skip "PVH is x86_64 only"
	qemu_guest "passes=3 mem=16m stride=4k"
	# isa-debug-exit: status 0 from the guest is exit code 1.
	assert_equal "$status" 1
	assert_line --regexp "^MMUB start vcpus=1 .* selected=4096"
	assert_line --regexp "^MMUB pass=0 cpu=0 accesses=4096 writes=4096 .*lat_p99=[0-9]+"
	assert_line --regexp "^MMUB pass=2 cpu=0 accesses=4096 "
	assert_line "MMUB-EXIT status=0"
}

@test "under QEMU, fraction and stride select the pages the guest touches" {
	[[ $ARCH == x86_64 ]] || skip "PVH is x86_64 only"
	qemu_guest "passes=1 mem=32m page=2m stride=2m fraction=0.5"
	assert_equal "$status" 1
	assert_line --regexp "^MMUB pass=0 cpu=0 accesses=8 "
}

@test "under QEMU, a bad guest command line word is an error naming it" {
	[[ $ARCH == x86_64 ]] || skip "PVH is x86_64 only"
	qemu_guest "passes=1 stride=3k"
	assert_equal "$status" 5
	assert_line --partial "MMUB error: bad value for guest command line key stride"
}

@test "under QEMU, a guest exception is reported with vector, RIP and CR2" {
	[[ $ARCH == x86_64 ]] || skip "PVH is x86_64 only"
	qemu_guest "action=fault mem=4m"
	assert_equal "$status" 7
	assert_line --regexp "^MMUB fault vector=0x000000000000000e rip=0x[0-9a-f]+ cr2=0x00007ffff0000000"
}
