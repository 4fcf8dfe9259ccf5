#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
# Selective access: only part of the memory is touched.
load helpers

# Every run in one boot (batch_add): this machine's KVM, or else the
# nested kernel.
setup_file() {
	batch_add kvm -- '
one quarter touch -v 2 -b 16m --fraction 0.25 -i 1
one ranges touch -v 1 -b 16m --ranges 0+1m,8m+2m -i 1
one random touch -v 1 -b 8m -a -r 42 --fraction 0.5 -i 1'
	batch_boots
}

setup() {
	J=$BATS_TEST_TMPDIR/r.json
}

# kvm_run TAG: the run passed; its document in J.
kvm_run() {
	batch kvm
	assert_line "RESULT $1 rc=0"
	result_json "$1" >"$J"
}

@test "fraction 0.25 touches a quarter of the pages (guest counters and KVM stats)" {
	require_kvm
	# 2 vCPUs x 16 MiB = 8192 pages; a quarter is 2048.
	kvm_run quarter
	assert_json_eq "$J" '[.results.runs[0].phases[0].vcpus[].accesses] | add' 2048
	# The boot already mapped the guest's own pages; allow a little for
	# neighbours a shadow MMU may prefetch at the edge of each quarter.
	local n
	n=$(json_stat "$J" populate vm pages_4k)
	(( n >= 2048 && n <= 2048 + 64 )) || fail "pages_4k $n, expected 2048..2112"
}

@test "explicit ranges touch only those ranges" {
	require_kvm
	kvm_run ranges
	assert_json_eq "$J" '.results.runs[0].phases[0].vcpus[0].accesses' 768
}

@test "random order touches every selected page exactly once" {
	require_kvm
	kvm_run random
	assert_json_eq "$J" '.results.runs[0].phases[0].vcpus[0].accesses' 1024
	local n
	n=$(json_stat "$J" populate vm pages_4k)
	(( n >= 1024 && n <= 1024 + 64 )) || fail "pages_4k $n, expected 1024..1088"
}
