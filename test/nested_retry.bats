#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
# The retry policy for nested-QEMU failures (helpers.bash): only the
# listed symptoms are retried, and only in nested mode; the in-boot
# retries that mmubench_retry already made do not count again.
load helpers

@test "a nested-QEMU symptom earns a retry, in nested mode only" {
	output='mmubench: vCPU 1: guest shut down (triple fault: an exception before its IDT was loaded)'
	MMUBENCH_KVM=nested nested_flake
	if MMUBENCH_KVM=direct nested_flake; then
		fail "retried outside nested mode"
	fi
}

@test "any other failure, such as a missed dirty page, is never retried" {
	output='mmubench: --verify: 1 page missed, first slot 1 gfn 0x12'
	if MMUBENCH_KVM=nested nested_flake; then
		fail "a lost page was taken for a flake"
	fi
}

@test "mmubench_retry's own FLAKE lines do not trigger a boot retry" {
	output=$'FLAKE: mmubench: vCPU 0: guest shut down (triple fault: x)\nRESULT mode=get rc=0'
	if MMUBENCH_KVM=nested nested_flake; then
		fail "an in-boot retry that succeeded was retried again"
	fi
	output=$'FLAKE: mmubench: vCPU 0: guest shut down (triple fault: x)\nmmubench: watchdog: a vCPU did not reach epoch 3 in 30 s'
	MMUBENCH_KVM=nested nested_flake
	assert_equal "$(flake_line)" "mmubench: watchdog: a vCPU did not reach epoch 3 in 30 s"
}
