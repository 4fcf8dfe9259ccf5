#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
# Scenario "touch" on KVM, for 1, 2 and 4 vCPUs and every backing.
load helpers

# One boot of the nested kernel per vCPU count; each backing is a run.
touch_all_backings() { # VCPUS
	local v=$1
	mmub_sh "
for s in anonymous anonymous_thp anonymous_hugetlb_2mb shmem shared_hugetlb memfd; do
	mmubench touch -v $v -b 4m -i 1 -s \$s --reserve-hugepages --guest-page 2m --touch 4k >/tmp/out 2>&1
	rc=\$?
	echo \"RESULT backing=\$s rc=\$rc\"
	grep -E '^  populate +0 ' /tmp/out
	[ \$rc = 0 ] || cat /tmp/out
done"
	assert_success
	for s in anonymous anonymous_thp anonymous_hugetlb_2mb shmem shared_hugetlb memfd; do
		assert_line "RESULT backing=$s rc=0"
	done
	# Every backing touched every page of every vCPU's 4 MiB.
	assert_equal "$(grep -cE '^  populate +0 +1024 ' <<<"$output")" 6
}

@test "touch completes with 1 vCPU on every backing" {
	require_kvm
	touch_all_backings 1
}

@test "touch completes with 2 vCPUs on every backing" {
	require_kvm
	touch_all_backings 2
}

@test "touch completes with 4 vCPUs on every backing" {
	require_kvm
	touch_all_backings 4
}

# 1G pages are reserved on the nested kernel's command line: at run time
# 2G of RAM rarely has a free, aligned gigabyte (with -m 4G neither did
# boot: measured); -m 6G does.
@test "touch with 1G hugetlb backing (pool reserved at boot)" {
	require_kvm
	[[ -d /sys/kernel/mm/hugepages/hugepages-1048576kB || $MMUB_KVM_MODE == nested ]] ||
		skip "this kernel has no 1G hugetlb pool"
	run "$ROOT/ci/kvm-exec.sh" --arch "$ARCH" --mem 6G \
		--append "hugepagesz=1G hugepages=1" "$MMUBENCH" "$GUEST" \
		touch -v 1 -b 1g -s anonymous_hugetlb_1gb --guest-page 2m --touch 2m -i 1
	assert_success
	assert_line --regexp "^  populate +0 +512 "
}

@test "a guest that faults is reported with vector, RIP and CR2, exit non-zero" {
	require_kvm
	mmub touch -b 4m --debug-action fault
	assert_failure
	assert_output --regexp "guest exception on vCPU 0: vector 14 \(#PF\) at RIP 0x[0-9a-f]+, CR2 0x7ffff0000000, error code 0x[0-9a-f]+, CPL3"
}

@test "a guest that hangs is stopped by the watchdog with its registers" {
	require_kvm
	mmub touch -b 4m --debug-action hang --watchdog 3
	assert_failure
	assert_output --regexp "watchdog: vCPU 0 made no progress for [0-9]+ s \(state busy, --watchdog 3\): RIP=0x[0-9a-f]+ .*\(CPL3\)"
}

@test "bench prints its figures" {
	require_kvm
	mmub bench -b 8m
	assert_success
	assert_line --regexp "^  boot_ms +[0-9.]+ "
	assert_line --regexp "^  guest_host_ratio +[0-9.]+ "
	assert_line --regexp "^  guest_exits_per_pass +[0-9]+ "
	assert_line --regexp "^  exits_per_pass +[0-9]+ "
}
