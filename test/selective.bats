#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
# Selective access: only part of the memory is touched.
load helpers

setup() {
	J=$BATS_TEST_TMPDIR/r.json
}

@test "fraction 0.25 touches a quarter of the pages (guest counters and KVM stats)" {
	require_kvm
	# 2 vCPUs x 16 MiB = 8192 pages; a quarter is 2048.
	mmub touch -v 2 -b 16m --fraction 0.25 -i 1 --json "$J"
	assert_success
	assert_json_eq "$J" '[.results.runs[0].phases[0].vcpus[].accesses] | add' 2048
	# The boot already mapped the guest's own pages; allow a little for
	# neighbours a shadow MMU may prefetch at the edge of each quarter.
	local n
	n=$(json_stat "$J" populate vm pages_4k)
	(( n >= 2048 && n <= 2048 + 64 )) || fail "pages_4k $n, expected 2048..2112"
}

@test "explicit ranges touch only those ranges" {
	require_kvm
	mmub touch -v 1 -b 16m --ranges 0+1m,8m+2m -i 1 --json "$J"
	assert_success
	assert_json_eq "$J" '.results.runs[0].phases[0].vcpus[0].accesses' 768
}

@test "random order touches every selected page exactly once" {
	require_kvm
	mmub touch -v 1 -b 8m -a -r 42 --fraction 0.5 -i 1 --json "$J"
	assert_success
	assert_json_eq "$J" '.results.runs[0].phases[0].vcpus[0].accesses' 1024
	local n
	n=$(json_stat "$J" populate vm pages_4k)
	(( n >= 1024 && n <= 1024 + 64 )) || fail "pages_4k $n, expected 1024..1088"
}
