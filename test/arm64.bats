#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
# The arm64 port, on any build machine: the guest image's protocol note,
# standalone runs under QEMU TCG (-M virt -kernel), SMP included, and the
# arm64 harness on KVM inside the nested arm64 kernel (or this arm64
# machine's /dev/kvm).  test/run.sh builds guest and harness.
load helpers

setup() {
	command -v qemu-system-aarch64 >/dev/null ||
		fail "qemu-system-aarch64 missing (apt-get install qemu-system-arm, make deps)"
	[[ -f $A64_GUEST ]] ||
		fail "no arm64 guest (test/run.sh builds it: make ARCH=arm64 guest)"
}

qemu_a64() { # SMP APPEND [QEMU OPTIONS...]
	local smp=$1 append=$2
	shift 2
	run timeout 120 qemu-system-aarch64 -M virt -accel tcg -cpu max \
		-smp "$smp" -m 256M -nodefaults -display none -no-reboot \
		-serial stdio -monitor none -kernel "$A64_GUEST" \
		-append "$append" "$@"
}

@test "arm64: the image loads at 0x40200000 and carries the protocol note" {
	run readelf -hn "$A64_GUEST"
	assert_success
	assert_output --regexp "Entry point address: +0x40200000"
	assert_output --regexp "mmubench +0x00000004[[:space:]]+NT_VERSION"
}

@test "arm64: under QEMU every vCPU runs every pass and CPU 0 reports them" {
	qemu_a64 2 "vcpus=2 mem=32m passes=3" -semihosting
	assert_success
	assert_line --regexp "^MMUB start vcpus=2 .* selected=4096$"
	for pass in 0 1 2; do
		for cpu in 0 1; do
			assert_line --regexp "^MMUB pass=$pass cpu=$cpu accesses=4096 writes=4096 .*clk_hz=[1-9][0-9]* .*lat_p99=[0-9]+"
		done
	done
	assert_line "MMUB-EXIT status=0"
}

@test "arm64: under QEMU, 2M pages, stride and fraction select the pages" {
	qemu_a64 1 "mem=32m page=2m stride=2m fraction=0.5 passes=1" -semihosting
	assert_success
	assert_line --regexp "^MMUB start vcpus=1 .*guest_page=2097152 "
	assert_line --regexp "^MMUB pass=0 cpu=0 accesses=8 "
}

@test "arm64: under QEMU, a guest exception is reported with ESR, FAR and ELR" {
	qemu_a64 2 "vcpus=2 action=fault mem=4m" -semihosting
	assert_equal "$status" 3
	# A data abort from EL0, translation fault (DFSC 0b0001xx), at the
	# debug action's address.
	assert_line --regexp "^MMUB fault class=0x0000000000000024 \(data abort from EL0\) esr=0x000000009200004[4-7] far=0x00007ffff0000000 elr=0x00000000402[0-9a-f]+ spsr=0x[0-9a-f]+ el=0x0000000000000000 cpu=0x000000000000000[01]$"
	assert_line "MMUB-EXIT status=3"
}

@test "arm64: under QEMU, bad input is an error naming it" {
	qemu_a64 1 "passes=1 stride=3k" -semihosting
	assert_equal "$status" 2
	assert_line "MMUB error: bad value for guest command line key stride"
	qemu_a64 1 "vcpus=2 mem=4m" -semihosting
	assert_equal "$status" 2
	assert_line --partial "MMUB error: vcpus: more than the CPUs QEMU has"
	qemu_a64 1 "mem=512m" -semihosting
	assert_equal "$status" 2
	assert_line --partial "MMUB error: mem: larger than the RAM"
}

@test "arm64: without -semihosting the run ends with PSCI SYSTEM_OFF" {
	qemu_a64 1 "mem=4m passes=1"
	assert_success
	assert_line "MMUB-EXIT status=0"
	qemu_a64 1 "action=fault mem=4m"
	# QEMU exits 0 on SYSTEM_OFF; the console still tells the failure.
	assert_success
	assert_line "MMUB-EXIT status=3"
}

@test "arm64: the arm64 harness runs the guest on KVM (here or nested)" {
	if [[ $(uname -m) != aarch64 ]]; then
		require_series original arm64
		[[ -x $A64_MMUBENCH ]] ||
			fail "no arm64 harness (test/run.sh builds it: make ARCH=arm64 host)"
	fi
	mmub --arch arm64 --sh '
		mmubench touch -v 2 -b 4m -i 1; echo "touch rc=$?"
		mmubench touch -v 1 -b 4m --debug-action fault; echo "fault rc=$?"
	'
	assert_success
	assert_line --regexp "^  iter1 +1 +1024 "
	assert_line "touch rc=0"
	assert_line --regexp "guest exception on vCPU 0: exception class 0x24 \(data abort from EL0, translation fault at level 0\) at ELR 0x402[0-9a-f]+, FAR 0x7ffff0000000, ESR 0x9200004[4-7], EL0$"
	assert_line --regexp "vCPU 0 registers: PC=0x[0-9a-f]+ .*ESR_EL1=0x9200004[4-7] FAR_EL1=0x7ffff0000000 ELR_EL1=0x402"
	assert_line "fault rc=1"
}

# The other arch's harness or image, by mistake: named with the one to
# use, exit 2, before an initramfs is made or anything boots.
@test "arm64: tools/kvm-exec.sh names a harness or image of the other arch, and the one to use" {
	local k=$ROOT/tools/kvm-exec.sh x=$O/x86_64/guest.elf host
	host=$(uname -m | sed -e 's/aarch64/arm64/')
	[[ -f $x ]] || fail "no x86_64 guest (test/run.sh builds it: make ARCH=x86_64 guest)"
	if [[ $host == x86_64 ]]; then
		run "$k" --arch arm64 "$MMUBENCH" "$A64_GUEST" touch
		assert_equal "$status" 2
		assert_output "tools/kvm-exec.sh: error: $MMUBENCH: an x86_64 harness, and --arch arm64 needs arm64's (make ARCH=arm64 host: build/arm64/mmubench)"
	fi
	run "$k" --arch arm64 "$A64_MMUBENCH" "$x" touch
	assert_equal "$status" 2
	assert_output "tools/kvm-exec.sh: error: $x: an x86_64 guest image, and --arch arm64 needs arm64's (make ARCH=arm64 guest: build/arm64/guest.elf)"
	run "$k" --arch "$host" "$MMUBENCH" "$ROOT/Makefile" touch
	assert_equal "$status" 2
	assert_output "tools/kvm-exec.sh: error: $ROOT/Makefile: not an ELF file, and --arch $host needs $host's (make ARCH=$host guest: build/$host/guest.elf)"
}
