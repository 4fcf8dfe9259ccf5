#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
# --backend qemu: the guest alone under QEMU TCG, results parsed into the
# same table, on any host (no KVM needed).
load helpers

setup() {
	command -v qemu-system-x86_64 >/dev/null || fail "qemu-system-x86_64 missing: apt-get install qemu-system-x86 (make deps)"
}

@test "x86_64 guest under QEMU with 2 vCPUs: every pass in the table and in JSON" {
	not_in_check "boots no guest under QEMU"
	local j=$BATS_TEST_TMPDIR/q.json t0=$EPOCHREALTIME wall_ns
	run "$MMUBENCH" touch --backend qemu -v 2 -b 16m -i 2 --guest "$O/x86_64/guest.elf" --json "$j"
	wall_ns=$(awk -v a="$t0" -v b="$EPOCHREALTIME" 'BEGIN { printf "%d", (b - a) * 1e9 }')
	assert_success
	assert_line --regexp "^boot [0-9]+\.[0-9] ms: QEMU -M microvm started until the guest's engine began$"
	assert_line --regexp "^  populate +0 +4096 +[0-9.]+ +[0-9.]+ +[0-9]+ +[0-9]+ +[0-9]+$"
	assert_line --regexp "^  populate +1 +4096 +[0-9.]+ +[0-9.]+ +[0-9]+ +[0-9]+ +[0-9]+$"
	assert_line --regexp "^  iter2 +0 +4096 "
	assert_line --regexp "^  iter2 +1 +4096 "
	# The same document as a KVM run's: one run, its phases and vCPUs.
	run jq -e '.scenario == "touch" and .config.backend == "qemu" and
		.env.backend == "qemu" and .env.machine == "microvm" and
		(.results.runs | length == 1) and .results.runs[0].boot_ms > 0 and
		([.results.runs[0].phases[].name] == ["populate", "iter1", "iter2"]) and
		([.results.runs[0].phases[].vcpus[]] | length == 6) and
		([.results.runs[0].phases[].vcpus[] | select(.vcpu == 1)] | length == 3) and
		all(.results.runs[0].phases[].vcpus[]; .accesses == 4096 and .latency_ns.p99 > 0)' "$j"
	assert_success
	# compare reads it as it reads any touch document.
	run "$MMUBENCH" compare "$j" "$j"
	assert_success
	assert_line --regexp '^ns_sum  '
	assert_line --regexp '^  iter2 +1 +1 '
	# The guest's clock, measured against the PIT, is right: no pass
	# lasts longer than the whole run did on the host's clock.
	run jq -e --argjson wall "$wall_ns" 'all(.results.runs[0].phases[].vcpus[]; .ns > 0 and .ns < $wall)' "$j"
	assert_success
}

@test "x86_64 guest under QEMU -M microvm without a PIT: one error line, no hang" {
	not_in_check "boots no guest under QEMU"
	run timeout 60 qemu-system-x86_64 -M microvm,pit=off -accel tcg -nodefaults \
		-display none -no-reboot -m 256M -smp 1 \
		-kernel "$O/x86_64/guest.elf" -append "vcpus=1 mem=16m" \
		-device isa-debug-exit,iobase=0xf4,iosize=4 -serial stdio -monitor none
	assert_equal "$status" 5
	assert_line "MMUB error: TSC: no PIT to measure it against, or below 10 MHz (-M microvm needs pit=on, its default)"
}

@test "x86_64 guest under QEMU: vcpus= above -smp is one error line, no hang" {
	not_in_check "boots no guest under QEMU"
	run timeout 60 qemu-system-x86_64 -M pc -accel tcg -nodefaults \
		-display none -no-reboot -m 256M -smp 2 \
		-kernel "$O/x86_64/guest.elf" -append "vcpus=3 mem=16m" \
		-device isa-debug-exit,iobase=0xf4,iosize=4 -serial stdio -monitor none
	# isa-debug-exit: status 2 from the guest is exit code 5.
	assert_equal "$status" 5
	assert_line "MMUB error: vcpus: only 2 of 3 vCPUs started (is QEMU's -smp below vcpus=?)"
}

@test "arm64 guest under QEMU with 2 vCPUs, from any host" {
	not_in_check "boots no guest under QEMU"
	command -v qemu-system-aarch64 >/dev/null || fail "qemu-system-aarch64 missing: apt-get install qemu-system-arm (make deps)"
	[[ -f $A64_GUEST ]] || fail "no arm64 guest (test/run.sh builds it: make ARCH=arm64 guest)"
	run "$MMUBENCH" touch --backend qemu -v 2 -b 8m -i 1 --fraction 0.5 --guest "$A64_GUEST"
	assert_success
	assert_line --regexp "^  populate +0 +1024 "
	assert_line --regexp "^  populate +1 +1024 "
	assert_line --regexp "^  iter1 +1 +1024 "
}

@test "a guest fault under QEMU is reported, exit non-zero" {
	not_in_check "boots no guest under QEMU"
	run "$MMUBENCH" touch --backend qemu -b 4m --debug-action fault --guest "$O/x86_64/guest.elf"
	assert_failure
	assert_output --regexp "guest: MMUB fault vector=0x000000000000000e rip=0x[0-9a-f]+ cr2=0x00007ffff0000000"
}

@test "--backend bad input is rejected with the accepted values" {
	run "$MMUBENCH" touch --backend xen
	assert_equal "$status" 2
	assert_output "mmubench: --backend xen: unknown (accepted: kvm, qemu)"
	run "$MMUBENCH" dirty-log --backend qemu
	assert_equal "$status" 2
	assert_output "mmubench: --backend: belongs to the touch scenario, not dirty-log"
	run "$MMUBENCH" touch --backend qemu -s shmem
	assert_equal "$status" 2
	assert_output --partial "--backend qemu: -s, -x, -c, --reserve-hugepages and --prefault are about KVM memslots"
}
