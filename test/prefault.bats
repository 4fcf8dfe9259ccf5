#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
# --prefault: the test memory mapped in KVM through KVM_PRE_FAULT_MEMORY
# before any vCPU runs (Linux 6.10+, x86 with TDP), its time and the
# page sizes it built; a kernel without the capability is one line,
# before any VM.
load helpers

# 2 vCPUs x 8 MiB: 4096 4K pages, or 8 2M ones.  With and without
# --prefault in one boot: the populate pass (the guest's first touch of
# every page) builds its stage-2 mappings only where KVM did not
# pre-fault.
PF_SH="$ONE_SH"'
one pf4k touch -v 2 -b 8m -i 1 --prefault
one pf2m touch -v 2 -b 8m -i 1 -s anonymous_hugetlb_2mb --reserve-hugepages --prefault
one plain touch -v 2 -b 8m -i 1
:'

@test "6.12 x86: --prefault maps every test page before the guest runs, at the backing's page size" {
	require_series original x86_64 6.12
	mmub --arch x86_64 --base 6.12 --sh "$PF_SH"
	assert_success
	assert_line "RESULT pf4k rc=0"
	assert_line "RESULT pf2m rc=0"
	assert_line "RESULT plain rc=0"
	result_json pf4k | assert_json - '.config.prefault == true and
		(.results.runs[0] | .prefault_ms > 0 and
		 .prefault_pages == {"4k": 4096, "2m": 0, "1g": 0})'
	result_json pf2m | assert_json - '.results.runs[0].prefault_pages ==
		{"4k": 0, "2m": 8, "1g": 0}'
	result_json plain | assert_json - '.config.prefault == false and
		.results.runs[0].prefault_ms == null and
		.results.runs[0].prefault_pages == null'
	# The guest's first touch of every page built no mapping where KVM
	# had pre-faulted, and all 4096 where it had not (KVM's pages_4k
	# over the populate pass).
	result_json pf4k | assert_json - '[.results.runs[0].phases[] |
		select(.name == "populate") | .vm_stats.pages_4k] == [0]'
	result_json plain | assert_json - '[.results.runs[0].phases[] |
		select(.name == "populate") | .vm_stats.pages_4k] == [4096]'
}

@test "a KVM without KVM_PRE_FAULT_MEMORY (6.1; the shadow MMU) is one line, before any VM" {
	require_series original x86_64 6.1
	mmub --arch x86_64 --base 6.1 touch -v 1 -b 4m --prefault
	assert_failure 2
	assert_output "mmubench: --prefault: this KVM has no KVM_CAP_PRE_FAULT_MEMORY (Linux 6.10 and later, x86 with TDP: NPT or EPT; not the shadow MMU)"
}

@test "--prefault with --backend qemu is refused" {
	run "$MMUBENCH" touch --backend qemu --prefault -b 4m
	assert_failure 2
	assert_output "mmubench: --backend qemu: -s, -x, -c, --reserve-hugepages and --prefault are about KVM memslots and vCPU threads; QEMU's own memory is used"
}
