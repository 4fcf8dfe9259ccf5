#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
# KVM's own counters prove the page size the test memory is mapped with.
load helpers

setup() {
	J=$BATS_TEST_TMPDIR/r.json
}

@test "2M guest pages on THP map 2M in KVM (pages_2m > 0)" {
	require_kvm
	mmub touch -b 16m -s anonymous_thp --guest-page 2m -i 1 --json "$J"
	assert_success
	run json_stat "$J" populate vm pages_2m
	assert_success
	(( output >= 4 ))
}

@test "2M guest pages on hugetlb map 2M in KVM (pages_2m > 0)" {
	require_kvm
	mmub touch -b 16m -s anonymous_hugetlb_2mb --reserve-hugepages --guest-page 2m -i 1 --json "$J"
	assert_success
	run json_stat "$J" populate vm pages_2m
	assert_success
	(( output >= 4 ))
}

@test "4K backing maps 4K only, even under 2M guest pages (pages_2m = 0)" {
	require_kvm
	mmub touch -b 16m -s anonymous --guest-page 2m -i 1 --json "$J"
	assert_success
	run json_stat "$J" populate vm pages_2m
	assert_output 0
	run json_stat "$J" populate vm pages_4k
	(( output >= 4096 ))
}

# The shadow MMU cannot map larger than the guest does; TDP (NPT/EPT)
# follows the host page alone.  Either way the stats must say so.
@test "4K guest pages on THP: 4K only with the shadow MMU, 2M with TDP" {
	require_kvm
	mmub touch -b 16m -s anonymous_thp --guest-page 4k -i 1 --json "$J"
	assert_success
	run jq -r .env.mmu "$J"
	local mmu=$output
	run json_stat "$J" populate vm pages_2m
	if [[ $mmu == shadow ]]; then
		assert_output 0
		run json_stat "$J" populate vm pages_4k
		(( output >= 4096 ))
	else
		(( output >= 4 ))
	fi
}
