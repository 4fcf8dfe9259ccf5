#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
# What test/run.sh compares before and after every bats file: the host's
# settings a test may change (test/host_state.sh), read here from a
# stand-in tree, and the difference it fails a file on.
load helpers
source "$ROOT/test/host_state.sh"

# A stand-in host: both pools, two kvm modules' parameters, tracing.
stand_in() { # DIR
	local r=$1 p
	for p in 2048kB 1048576kB; do
		mkdir -p "$r/sys/kernel/mm/hugepages/hugepages-$p"
		echo 0 >"$r/sys/kernel/mm/hugepages/hugepages-$p/nr_hugepages"
		echo 0 >"$r/sys/kernel/mm/hugepages/hugepages-$p/nr_overcommit_hugepages"
	done
	mkdir -p "$r/sys/module/kvm/parameters" "$r/sys/module/kvm_amd/parameters" \
		"$r/sys/kernel/tracing/instances"
	echo 60 >"$r/sys/module/kvm/parameters/nx_huge_pages_recovery_ratio"
	echo Y >"$r/sys/module/kvm_amd/parameters/npt"
	: >"$r/sys/kernel/tracing/kprobe_events"
	echo nop >"$r/sys/kernel/tracing/current_tracer"
	echo 1 >"$r/sys/kernel/tracing/tracing_on"
	echo "7 (expanded: 1408)" >"$r/sys/kernel/tracing/buffer_size_kb"
}

@test "host_state: pools, kvm parameters and tracing, one line each; the one-time buffer growth is no change" {
	export HOST_STATE_ROOT=$BATS_TEST_TMPDIR/host
	local before t=$BATS_TEST_TMPDIR/host/sys/kernel/tracing
	stand_in "$HOST_STATE_ROOT"
	run host_state
	assert_success
	assert_line "/sys/kernel/mm/hugepages/hugepages-2048kB/nr_hugepages 0"
	assert_line "/sys/kernel/mm/hugepages/hugepages-1048576kB/nr_hugepages 0"
	assert_line "/sys/module/kvm/parameters/nx_huge_pages_recovery_ratio 60"
	assert_line "/sys/module/kvm_amd/parameters/npt Y"
	assert_line "/sys/kernel/tracing/kprobe_events (none)"
	assert_line "/sys/kernel/tracing/buffer_size_kb 1408"
	assert_line "/sys/kernel/tracing/instances (none)"
	assert_equal "${#lines[@]}" 11
	before=$output
	echo 1408 >"$t/buffer_size_kb"
	assert_equal "$(host_state_diff "$before" "$(host_state)")" ""
	# What a run that does not put the host back leaves.
	echo 512 >"$HOST_STATE_ROOT/sys/kernel/mm/hugepages/hugepages-2048kB/nr_hugepages"
	echo 10 >"$HOST_STATE_ROOT/sys/module/kvm/parameters/nx_huge_pages_recovery_ratio"
	printf 'p:mmub/zap_entry tdp_mmu_zap_leafs\nr:mmub/zap_exit tdp_mmu_zap_leafs\n' >"$t/kprobe_events"
	mkdir "$t/instances/mmubench"
	echo 4096 >"$t/buffer_size_kb"
	rm "$HOST_STATE_ROOT/sys/kernel/mm/hugepages/hugepages-1048576kB/nr_overcommit_hugepages"
	run host_state_diff "$before" "$(host_state)"
	assert_success
	assert_output "$(printf '%s\n' \
		"/sys/kernel/mm/hugepages/hugepages-1048576kB/nr_overcommit_hugepages: was 0, now <absent>" \
		"/sys/kernel/mm/hugepages/hugepages-2048kB/nr_hugepages: was 0, now 512" \
		"/sys/kernel/tracing/buffer_size_kb: was 1408, now 4096" \
		"/sys/kernel/tracing/instances: was (none), now mmubench" \
		"/sys/kernel/tracing/kprobe_events: was (none), now p:mmub/zap_entry tdp_mmu_zap_leafs r:mmub/zap_exit tdp_mmu_zap_leafs" \
		"/sys/module/kvm/parameters/nx_huge_pages_recovery_ratio: was 60, now 10")"
}

# On this machine, not a stand-in: each setting whose file exists and
# reads is a line with what that file holds, and nothing else is.
@test "host_state on this machine: a line for each setting it can read, holding its file's value" {
	local f v n=0 t=/sys/kernel/tracing
	run host_state
	assert_success
	for f in /sys/kernel/mm/hugepages/hugepages-*/nr_hugepages \
		 /sys/kernel/mm/hugepages/hugepages-*/nr_overcommit_hugepages \
		 /sys/module/kvm*/parameters/* "$t"/kprobe_events "$t"/current_tracer "$t"/tracing_on; do
		[[ -f $f && -r $f ]] || continue
		v=$(head -c 4096 "$f" 2>/dev/null | tr '\n' ' ' | sed 's/ *$//')
		assert_line "$f ${v:-(none)}"
		n=$((n + 1))
	done
	[[ ! -r $t/buffer_size_kb ]] || n=$((n + 1))
	[[ ! -d $t/instances ]] || n=$((n + 1))
	((n > 0)) || fail "no setting of test/host_state.sh's is readable on this machine"
	assert_equal "${#lines[@]}" "$n"
	if [[ -d /sys/kernel/mm/hugepages/hugepages-2048kB ]]; then
		assert_line --regexp '^/sys/kernel/mm/hugepages/hugepages-2048kB/nr_hugepages [0-9]+$'
	fi
}

@test "test_kernels_put_back: the test-only trees a file added go, those found before and the user's stay" {
	export MMUBENCH_CACHE=$BATS_TEST_TMPDIR/cache
	local k=$MMUBENCH_CACHE/kernel before
	mkdir -p "$k/trees/6.1/original-x86_64" "$k/trees/6.1/v2-x86_64" \
		"$k/trees/6.1/test-slow-zap-x86_64"
	before=$(test_kernels)
	assert_equal "$before" "$k/trees/6.1/test-slow-zap-x86_64"
	mkdir -p "$k/trees/6.1/test-slow-zap-walk-25-x86_64" \
		"$k/trees/6.12/test-slow-zap-arm64" "$k/trees/6.1/v3-x86_64"
	run test_kernels_put_back "$before"
	assert_success
	assert_equal "$(cd "$k/trees" && ls -d */* | paste -sd' ')" \
		"6.1/original-x86_64 6.1/test-slow-zap-x86_64 6.1/v2-x86_64 6.1/v3-x86_64"
	# Nothing before: every test-only tree goes.
	run test_kernels_put_back ""
	assert_success
	assert_equal "$(test_kernels)" ""
	assert_dir_exists "$k/trees/6.1/v3-x86_64"
}
