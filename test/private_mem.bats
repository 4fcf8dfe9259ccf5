#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
# -s guest_memfd and private-mem: private test memory in a guest_memfd of a
# KVM_X86_SW_PROTECTED_VM (the nested x86_64 6.12 kernel has
# CONFIG_KVM_SW_PROTECTED_VM), converted to shared and back while the
# vCPUs write.  The host cannot read private memory: the guest's checks
# stand in (the scenario's header comment), and each fails on the fault it
# guards against, made on purpose.  A KVM without the VM type (6.1, or a
# shadow MMU) is one line, before any VM, and so is arm64; bad input too.
load helpers

# 2 vCPUs x 8 MiB: 4096 private 4K pages; 4 ranges of 1 MiB (256 pages)
# each converted to shared and back.  The debug runs break one
# conversion each: the first to shared, the first back to private, and
# the private side of the first range (punched while it is shared).  The
# last makes a vCPU exit with KVM_EXIT_MEMORY_FAULT (its mailbox page, in
# a slot without a guest_memfd, made private), which it must go on from.
PM_SH='
one pm private-mem -v 2 -b 8m
one touch touch -v 2 -b 8m -i 1 -s guest_memfd
one skipshared private-mem -v 2 -b 8m --conversions 1 --debug-skip 1
one skipprivate private-mem -v 2 -b 8m --conversions 1 --debug-skip 2
one discard private-mem -v 2 -b 8m --conversions 1 --debug-discard 1
oneo fault private-mem -v 2 -b 8m --conversions 1 --debug-fault-exit'

# One boot a kernel (batch_add): 6.12 x86 has the VM type, 6.1 and arm64
# say what they lack.
setup_file() {
	batch_add x86-612 --arch x86_64 --base 6.12 -- "$PM_SH"
	batch_add x86-61 --arch x86_64 --base 6.1 -- '
one pm61 private-mem -v 1 -b 4m
one touch61 touch -v 1 -b 4m -s guest_memfd'
	batch_add a64-61 --arch arm64 --base 6.1 -- '
oneo a64 private-mem -v 1 -b 4m'
	batch_boots
}

@test "6.12 x86: private-mem converts guest_memfd ranges while the vCPUs write; each conversion zaps its range; the guest's checks hold and fail on the faults they guard against" {
	require_series original x86_64 6.12
	batch x86-612
	assert_success
	assert_line "RESULT pm rc=0"
	# 8 conversions of 256 pages, each zapping its 256 mappings (the
	# drop of pages_4k plus the refaults meanwhile) with at least one TLB
	# flush request (the TDP MMU flushes again before it yields, as it
	# does on a loaded host), each rebuilt by the vCPUs; the guest read
	# the host's shared word once per stride converted to shared, 1024
	# in all.
	result_json pm | assert_json - '.config.backing == "guest_memfd" and
		.config.conversions == 4 and .config.convert_bytes == 1048576 and
		.results.runs[0].private_mem as $p |
		$p.conversions == 8 and $p.pages_converted == 2048 and
		$p.shared_reads == 1024 and $p.shared_reads_expected == 1024 and
		($p.memory_fault_exits | type) == "number" and ($p.checks | test("cannot read private memory")) and
		($p.each | length) == 8 and
		([$p.each[] | .zapped_pages == 256 and .rebuilt_pages == 256 and
		  .tlb_flush_requests >= 1 and .ms > 0 and .skipped == false] | all) and
		([$p.each[].to] == ["shared","private","shared","private",
				    "shared","private","shared","private"]) and
		([$p.each[].offset] == [0,0,1048576,1048576,2097152,2097152,3145728,3145728]) and
		$p.to_shared.conversions == 4 and $p.to_private.conversions == 4 and
		$p.to_shared.ms_mean > 0 and $p.to_private.ms_mean > 0 and
		$p.to_shared.zapped_per_conversion == 256'
	# The phases: every private page faulted in once, none refaulted in
	# the baseline pass, every converted page mapped again by the end.
	result_json pm >"$BATS_TEST_TMPDIR/pm.json"
	result_json pm | assert_json - '[.results.runs[0].phases[] |
		{(.name): .vm_stats.pages_4k}] | add ==
		{"populate": 4096, "private": 0, "convert": 0}'
	result_json pm | assert_json - '[.results.runs[0].phases[] |
		select(.name == "convert") | .vcpus[].latency_ns.p99 > 0] ==
		[true, true]'
	# touch runs on guest_memfd too: its private pages faulted in once.
	assert_line "RESULT touch rc=0"
	result_json touch | assert_json - '.config.backing == "guest_memfd" and
		[.results.runs[0].phases[] | .vm_stats.pages_4k] == [4096, 0]'
	# Conversion 1 left out: the guest wrote its private page, not the
	# shared side, which still holds the host's word.
	assert_line "RESULT skipshared rc=1"
	assert_line "mmubench: private-mem: conversion 1 (to shared, test offset 0x0+0x100000): 4K page 0 still holds 0x5a4e000000000000 (the host's shared word) after every vCPU passed over it: the guest's writes did not reach the shared side"
	# Conversion 2 left out: the range stayed shared, and the guest read
	# the host's stale word at each of its 256 pages, the first wherever
	# the vCPU was when the host wrote them (page 0 to 255: the word
	# names it).
	assert_line "RESULT skipprivate rc=1"
	assert_line --regexp "^mmubench: private-mem: the guest found 256 words it did not write; the first, 4K page [0-9]+ \(test offset 0x[0-9a-f]+\), held 0x57a100000000[0-9a-f]{2}00: the host's word for a page gone private: a shared mapping left in place$"
	# The private side punched out: back to private, the guest's data
	# there was gone, all 256 pages of it.
	assert_line "RESULT discard rc=1"
	assert_line --regexp "^mmubench: private-mem: the guest found 256 words it did not write; the first, 4K page ([0-9]|[1-9][0-9]|1[0-9][0-9]|2[0-4][0-9]|25[0-5]) \(test offset 0x[0-9a-f]+\), held 0x0000000000000000: zero: private data lost across the conversions$"
	# mmubench compare takes the scenario's metrics (last: run replaces
	# the output).
	run "$MMUBENCH" compare "$BATS_TEST_TMPDIR/pm.json" "$BATS_TEST_TMPDIR/pm.json"
	assert_success
	assert_line "to_shared_ms  (results.runs[].private_mem.to_shared.ms_mean)"
	assert_line "to_private_zapped  (results.runs[].private_mem.to_private.zapped_per_conversion)"
	assert_line --regexp '^  all +1 +1 +256\.0 +256\.0 +1\.000 '
}

@test "a KVM without KVM_X86_SW_PROTECTED_VM (6.1) is one line naming the capability, before any VM" {
	require_series original x86_64 6.1
	batch x86-61
	assert_success
	assert_line "RESULT pm61 rc=2"
	assert_line "RESULT touch61 rc=2"
	run grep -c "^mmubench: -s guest_memfd: this KVM has no KVM_X86_SW_PROTECTED_VM in KVM_CAP_VM_TYPES (Linux 6.8 and later, x86_64, CONFIG_KVM_SW_PROTECTED_VM=y, the TDP MMU: EPT or NPT)$" <<<"$output"
	assert_output 2
}

@test "arm64: -s guest_memfd is x86-only (6.12 has no arm64 VM type with guest_memfd), one line before any VM" {
	require_series original arm64 6.1
	batch_run a64-61 a64
	assert_failure 2
	assert_output "mmubench: -s guest_memfd: x86_64 only (KVM_X86_SW_PROTECTED_VM); arm64 KVM has no VM type with guest_memfd in Linux 6.12"
}

@test "bad input to private-mem and -s guest_memfd is one line, exit 2, before any VM" {
	refused "-s anonymous: private-mem converts private memory (accepted: guest_memfd)" \
		private-mem -s anonymous
	refused "-w 50: private-mem writes every stride it visits, its checks read what each write replaces (accepted: 100)" \
		private-mem -w 50
	refused "--fraction/--ranges: private-mem visits all the test memory, every converted stride must be checked" \
		private-mem --fraction 0.5
	refused "--convert-size 3M: must be a multiple of the stride (4K) dividing the 16M of test memory" \
		private-mem -v 2 -b 8m --convert-size 3m
	refused "--convert-size 32M: must be a multiple of the stride (4K) dividing the 16M of test memory" \
		private-mem -v 2 -b 8m --convert-size 32m
	refused "--conversions 0: out of range (accepted: 1..1000)" private-mem --conversions 0
	refused "--debug-skip 9: there are 8 conversions (--conversions 4, each range twice)" \
		private-mem -b 8m --debug-skip 9
	refused "--debug-discard 5: there are 4 ranges (--conversions)" \
		private-mem -b 8m --debug-discard 5
	refused "--debug-action: not with private-mem" private-mem --debug-action hang
	refused "-s guest_memfd: dirty-log reads or changes the test memory from the host, which cannot map private memory (accepted: touch, private-mem)" \
		dirty-log -s guest_memfd
	refused "-s guest_memfd: demand-paging reads or changes the test memory from the host, which cannot map private memory (accepted: touch, private-mem)" \
		demand-paging -s guest_memfd
}

# vcpu.c's answer to KVM_EXIT_MEMORY_FAULT, which the runs above never
# met (no fault raced a conversion): the run goes on, its checks hold,
# and it counts the exits.
@test "6.12 x86: a vCPU that exits with KVM_EXIT_MEMORY_FAULT enters again and goes on; the exits are counted" {
	require_series original x86_64 6.12
	batch_run x86-612 fault
	assert_success
	assert_line --regexp '^mmubench: --debug-fault-exit: the mailbox page \(gpa 0x[0-9a-f]+\) made private until a vCPU exited with KVM_EXIT_MEMORY_FAULT, then shared again, on purpose$'
	result_json fault | assert_json - '.results.runs[0].private_mem |
		.memory_fault_exits >= 1 and .conversions == 2 and
		.shared_reads == .shared_reads_expected'
}
