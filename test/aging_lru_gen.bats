#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
# aging --method lru_gen: MGLRU's aging pass, with the vCPUs idle and
# under load, on both arches and both bases.  6.12's walk asks KVM for
# every young PTE (ptep_clear_young_notify), so the pages kvm_age_gfn
# found young must be the pages touched; 6.1's walk clears the host's
# PTEs only, so KVM is not called from it, by the count.  The check
# fires on a dropped page, and MGLRU's switch, the probes and the
# tracing instance are left as found.
load helpers

# One line of what a run could leave changed: MGLRU's capabilities,
# kprobe events and tracing instances.
STATE_SH='
state() {
	echo "STATE $1 $(cat /sys/kernel/mm/lru_gen/enabled) $(grep -c . /sys/kernel/tracing/kprobe_events) $(ls -A /sys/kernel/tracing/instances | grep -c .)"
}
'

# Per kernel: a run under load (2 vCPUs x 8 MiB, half touched: 2048
# pages, one 2 MiB chunk of them invalidated meanwhile), an idle one
# with the fault, and the state around both.
RUNS_SH=$STATE_SH'
state before
oneo load aging --method lru_gen --under-load -v 2 -b 8m --fraction 0.5 -i 1
state after-load
one drop aging --method lru_gen -v 2 -b 8m --fraction 0.5 -i 1 --debug-drop-young || :
state after-drop'

setup_file() {
	batch_add x61 --nested --arch x86_64 --base 6.1 -- "$RUNS_SH"'
umount /sys/kernel/debug
one nodebugfs aging --method lru_gen -v 2 -b 8m
mount -t debugfs debugfs /sys/kernel/debug'
	batch_add x612 --nested --arch x86_64 --base 6.12 -- "$RUNS_SH"
	batch_add a61 --arch arm64 --base 6.1 -- "$RUNS_SH"
	batch_add a612 --arch arm64 --base 6.12 -- "$RUNS_SH"
	batch_boots
}

# The run under load of batch $1 passed its check, with KVM asked for
# each touched page from the walk, and every figure of both windows.
assert_walk_asks_kvm() {
	batch "$1"
	assert_line "RESULT load rc=0"
	result_json load | assert_json - '.results.runs[0].aging as $a |
		$a.method == "lru_gen" and ($a.rounds | length) == 1 and
		($a.rounds[0] as $r |
		 $r.kvm_called and $r.churned == 512 and
		 $r.touched == 1536 and $r.found_young == $r.touched and
		 $r.missed == 0 and $r.false_young == 0 and
		 $r.pass.clear_young_calls > 0 and
		 $r.pass.age_gfn_young >= $r.touched and
		 $r.pass.ms > 0 and $r.pass.accesses > 0 and
		 $r.outside.accesses > 0 and $r.outside.clear_young_calls == 0 and
		 ($r.pass.read_wait | type) == "object" and
		 ($r.pass.write_wait | type) == "object" and
		 $r.pass.latency.p99_us > 0 and $r.outside.latency.p99_us > 0) and
		$a.clear_young_calls > 0 and $a.invalidations > 0'
}

# The same on 6.1: the walk did not call KVM, not once, in any pass.
assert_walk_skips_kvm() {
	batch "$1"
	assert_line "RESULT load rc=0"
	result_json load | assert_json - '.results.runs[0].aging as $a |
		$a.clear_young_calls == 0 and $a.settle.clear_young_calls == 0 and
		$a.settle.age_gfn_calls == 0 and
		($a.rounds[0] as $r | ($r.kvm_called | not) and
		 $r.pass.clear_young_calls == 0 and $r.pass.age_gfn_calls == 0 and
		 $r.found_young == 0 and $r.touched == 1536 and
		 $r.pass.accesses >= 0 and $r.outside.accesses > 0)'
	result_lines load | grep -q "^round 1: KVM was not called from the walk (0 clear_young calls)" ||
		fail "no line saying KVM was not called: $(result_lines load)"
}

# The dropped page is named, and the check names the same one.
assert_drop_named() {
	local page
	batch "$1"
	assert_line "RESULT drop rc=1"
	page=$(sed -n 's/^mmubench: --debug-drop-young: test page \([0-9]*\) (slot 1 gfn 0x[0-9a-f]*), found young, left out of the count on purpose$/\1/p' <<<"$output")
	[[ $page =~ ^[0-9]+$ ]] || fail "no dropped page named: $output"
	assert_line --regexp "^mmubench: aging: round 1: 1 touched pages not found young, the first test page $page \(slot 1 gfn 0x[0-9a-f]+\)$"
}

# Nothing left changed, after a run that passed and one that failed.
assert_state_kept() {
	local before
	batch "$1"
	before=$(sed -n 's/^STATE before //p' <<<"$output")
	# No probe; the x86_64 L1's one instance is the hold's (kvm-hold).
	[[ $before =~ ^0x[0-9a-f]{4}\ 0\ [01]$ ]] || fail "no state before: $output"
	assert_line "STATE after-load $before"
	assert_line "STATE after-drop $before"
}

@test "x86_64 6.12: the walk asks KVM; under load, every touched page found young, none else" {
	require_nested
	assert_walk_asks_kvm x612
}

@test "arm64 6.12: the walk asks KVM; under load, every touched page found young, none else" {
	require_series original arm64 6.12
	assert_walk_asks_kvm a612
}

@test "x86_64 6.1: the walk does not call KVM, by the count" {
	require_nested
	assert_walk_skips_kvm x61
}

@test "arm64 6.1: the walk does not call KVM, by the count" {
	require_series original arm64 6.1
	assert_walk_skips_kvm a61
}

@test "aging --method lru_gen --debug-drop-young: the check fails naming the page (6.12), or finds none to drop (6.1)" {
	require_series original arm64 6.12
	assert_drop_named x612
	assert_drop_named a612
	batch x61
	assert_line "RESULT drop rc=1"
	assert_line "mmubench: --debug-drop-young: no touched page was found young to drop"
}

# 6.1's Debian image and the arm64 kernels boot with MGLRU off (0x0000):
# the run turns it on and puts it back.
@test "aging --method lru_gen leaves MGLRU, the probes and the tracing instances as it found them" {
	require_series original arm64 6.12
	local b
	for b in x61 x612 a61 a612; do
		assert_state_kept "$b"
	done
	batch x61
	assert_line --regexp "^STATE before 0x0000 "
	batch a612
	assert_line --regexp "^STATE before 0x0000 "
}

@test "aging --method lru_gen without debugfs: one line naming it, exit 2" {
	require_nested
	batch x61
	assert_line "RESULT nodebugfs rc=2"
	assert_line "mmubench: aging --method lru_gen: /sys/kernel/debug/lru_gen: No such file or directory (needs CONFIG_DEBUG_FS and debugfs mounted: mount -t debugfs none /sys/kernel/debug)"
}

# This host's kvm_pvm kernel has no MGLRU: one line, exit 2, before any VM.
@test "aging --method lru_gen on a kernel without CONFIG_LRU_GEN: one line naming it, exit 2" {
	[[ ! -e /sys/kernel/mm/lru_gen ]] || skip "this kernel has MGLRU"
	refused "aging --method lru_gen: /sys/kernel/mm/lru_gen/enabled: No such file or directory (the kernel has no CONFIG_LRU_GEN)" \
		aging --method lru_gen -v 2 -b 16m
}

@test "aging --method, --under-load: bad input names the option and what it accepts" {
	local args want
	while IFS='|' read -r args want; do
		# shellcheck disable=SC2086
		refused "$want" aging $args
	done <<'EOF'
--method lru|--method lru: accepted: page_idle, lru_gen
--under-load|--under-load: needs --method lru_gen
--method lru_gen -s anonymous_thp|-s anonymous_thp: aging --method lru_gen ages 4K pages on the LRU lists (accepted: anonymous, shmem, memfd)
--method lru_gen --debug-host-touch|--debug-host-touch, --debug-move-page: --method page_idle's; lru_gen's fault is --debug-drop-young
--method lru_gen --under-load -s shmem|--under-load: needs -s anonymous, whose pages MADV_DONTNEED frees for the vCPUs to fault back
--method lru_gen --under-load --no-latency|--under-load: not with --no-latency: the vCPUs' access latency is one of its figures
--method lru_gen --under-load -v 1 -b 4m|--under-load: needs 8 MiB of test memory or more (-v x -b): it invalidates every fourth 2 MiB chunk
EOF
}
