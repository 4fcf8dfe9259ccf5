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

@test "4K guest pages map 4K only (pages_4k > 0, pages_2m = 0)" {
	require_kvm
	mmub touch -b 16m -s anonymous_thp --guest-page 4k -i 1 --json "$J"
	assert_success
	run json_stat "$J" populate vm pages_2m
	assert_output 0
	run json_stat "$J" populate vm pages_4k
	(( output >= 4096 ))
}
