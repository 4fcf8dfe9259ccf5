#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
# The execute workload and scenario "nx-recovery" (seed 002): NX huge
# pages split by executing, then KVM's recovery worker with dirty logging
# on.  The effect test compares the original and the patched kernel.
load helpers

SERIES=x86-nx-skip-dirty-tracked-recovery

# A small seed-shaped run: 2 vCPUs, 4 slots, 2M hugetlb, one RET per 2M.
NX_ARGS="nx-recovery -v 2 -b 16m -x 4 --reserve-hugepages --recovery-period 500"

@test "nx-recovery and --exec: bad input is named" {
	run "$MMUBENCH" nx-recovery --recovery-ratio 0
	assert_equal "$status" 2
	assert_output "mmubench: --recovery-ratio 0: out of range (accepted: 1..3600)"
	run "$MMUBENCH" touch --recovery-period 100
	assert_equal "$status" 2
	assert_output --partial "belong to the nx-recovery scenario"
	run "$MMUBENCH" dirty-log --exec
	assert_equal "$status" 2
	assert_output --partial "--exec: only with touch or nx-recovery"
	run "$MMUBENCH" nx-recovery --verify
	assert_equal "$status" 2
	assert_output --partial "belong to the dirty-log scenario (nx-recovery takes --mode)"
}

@test "--exec under QEMU: the first pass plants every RET, later passes only call" {
	local a q j=$BATS_TEST_TMPDIR/e.json
	for a in x86_64 arm64; do
		q=qemu-system-$a
		[[ $a == arm64 ]] && q=qemu-system-aarch64
		command -v "$q" >/dev/null || skip "$q missing: apt-get install qemu-system-x86 qemu-system-arm"
		run "$MMUBENCH" touch --backend qemu --exec -v 2 -b 4m -i 2 --guest "$O/$a/guest.elf" --json "$j"
		assert_success
		run jq -e --arg a "$a" '.arch == $a and .config.action == "exec" and
			(.passes | length == 6) and all(.passes[]; .accesses == 1024) and
			all(.passes[] | select(.pass == 0); .writes == 1024) and
			all(.passes[] | select(.pass > 0); .writes == 0)' "$j"
		assert_success
	done
}

# nx_sh SCRIPT [SERIES]: mmub_sh with kvm.nx_huge_pages=force on the L1
# command line, on the original kernel or SERIES.  Directly on a host it
# runs only where the mitigation is already on (a test must not flip it).
nx_sh() {
	local try k=(--append kvm.nx_huge_pages=force ${2:+--series "$2"})

	if [[ $MMUBENCH_KVM == direct ]]; then
		[[ -z ${2:-} ]] || skip "boots the $2 kernel: nested mode only"
		[[ $(cat /sys/module/kvm/parameters/nx_huge_pages 2>/dev/null) == Y ]] ||
			skip "kvm.nx_huge_pages is not on here"
	fi
	run "$ROOT/ci/kvm-exec.sh" --arch "$ARCH" "${k[@]}" --sh "$1" "$MMUBENCH" "$GUEST"
	for ((try = 0; try < NESTED_RETRIES; try++)); do
		nested_flake || break
		retry_note
		run "$ROOT/ci/kvm-exec.sh" --arch "$ARCH" "${k[@]}" --sh "$1" "$MMUBENCH" "$GUEST"
	done
}

# splits ACTION: nx_lpage_splits after the populate pass of that run.
splits() {
	grep "^JSON $1 " <<<"$output" | cut -d' ' -f3- |
		jq '.results.runs[0].phases[0].vm_stats.nx_lpage_splits // 0'
}

@test "--exec on KVM with nx_huge_pages=force splits every executed huge page" {
	require_kvm
	[[ $ARCH == x86_64 ]] || skip "NX huge pages are an x86 mitigation"
	nx_sh '
for a in touch exec; do
	f=; [ $a = exec ] && f=--exec
	mmubench touch $f -v 1 -b 16m -s anonymous_hugetlb_2mb --reserve-hugepages --guest-page 2m --touch 2m -i 0 --json /tmp/t.json >/tmp/o 2>&1
	rc=$?
	echo "RESULT action=$a rc=$rc"
	[ $rc = 0 ] && echo "JSON $a $(tr -d "\n" </tmp/t.json)" || cat /tmp/o
done'
	assert_success
	assert_line "RESULT action=touch rc=0"
	assert_line "RESULT action=exec rc=0"
	assert_equal "$(splits touch)" 0
	assert_equal "$(splits exec)" 8
}

# nx_json TAG: the nx_recovery result of the run tagged TAG in this boot.
nx_json() {
	grep "^JSON $1 " <<<"$output" | cut -d' ' -f3- | jq -c '.results.runs[0].nx_recovery'
}

# One boot: the run with dirty logging (tag log), then the control
# without (tag nolog); the kvm parameters after each.
NX_SCRIPT='
for t in log nolog; do
	f=; [ $t = nolog ] && f=--no-dirty-log
	mmubench '"$NX_ARGS"' $f --json /tmp/n.json >/tmp/o 2>&1
	rc=$?
	echo "RESULT $t rc=$rc ratio=$(cat /sys/module/kvm/parameters/nx_huge_pages_recovery_ratio)"
	[ $rc = 0 ] && echo "JSON $t $(tr -d "\n" </tmp/n.json)" || cat /tmp/o
done'

# The zap of the worker, as seen by the stats: -16 4K entries, 16 refaults.
ZAPPED='.splits_after_execute == 16 and .splits_left == 0 and
	.recovery_pages_4k_delta == -16 and .reexecute_pf_fixed == 16'
# Without logging a refault maps 2M first, then splits again on the fetch.
ZAPPED_NOLOG='.splits_after_execute == 16 and .splits_left == 0 and
	.recovery_pages_4k_delta == -16 and .reexecute_pf_fixed >= 16'
KEPT='.splits_after_execute == 16 and .splits_left == 0 and
	.recovery_pages_4k_delta == 0 and .reexecute_pf_fixed == 0'

@test "nx-recovery: sets its knobs, restores them, reports the worker's CPU time" {
	require_kvm
	[[ $ARCH == x86_64 ]] || skip "NX huge pages are an x86 mitigation"
	# It sets kvm parameters; where they are read-only it cannot run.
	[[ $MMUBENCH_KVM == nested || -w /sys/module/kvm/parameters/nx_huge_pages_recovery_ratio ]] ||
		skip "kvm.nx_huge_pages_recovery_ratio is not writable here (read-only, or not root)"
	mmub_sh "$NX_SCRIPT"
	assert_success
	# The nested kernel boots with the default ratio, 60: put back.
	if [[ $MMUBENCH_KVM == nested ]]; then
		assert_line "RESULT log rc=0 ratio=60"
		assert_line "RESULT nolog rc=0 ratio=60"
	fi
	local r
	r=$(nx_json log)
	jq -e '.dirty_logging and .splits_after_execute == 16 and
		.splits_left == 0 and .worker_ms > 0 and
		.worker_recovery_ms >= 0' <<<"$r" >/dev/null ||
		fail "bad nx_recovery result: $r"
	# Without logging every kernel recovers the huge pages: a zap.
	r=$(nx_json nolog)
	jq -e "(.dirty_logging | not) and $ZAPPED_NOLOG" <<<"$r" >/dev/null ||
		fail "control run without logging: expected a zap: $r"
}

# Seed 002's effect, independent of timing: on the original kernel the
# worker zaps the split pages of dirty-logged slots (pages_4k drops, and
# executing again faults them back); on the patched one it zaps none, but
# still zaps them when logging is off.
@test "seed 002: the patched kernel does not recover dirty-tracked NX huge pages" {
	require_kvm
	[[ $ARCH == x86_64 ]] || skip "NX huge pages are an x86 mitigation"
	[[ $MMUBENCH_KVM == nested ]] || skip "boots the original and the $SERIES kernels: nested mode only"
	[[ -f $(series_image "$SERIES") ]] || skip "the $SERIES kernel is not built (make kernel PATCHES=$SERIES, about a minute after the original)"
	local a b
	nx_sh "$NX_SCRIPT"
	assert_success
	a=$(nx_json log)
	nx_sh "$NX_SCRIPT" "$SERIES"
	assert_success
	b=$(nx_json log)
	echo "# original: $a" >&3
	echo "# patched:  $b" >&3
	jq -e "$ZAPPED" <<<"$a" >/dev/null ||
		fail "original kernel: expected 16 zapped and refaulted: $a"
	jq -e "$KEPT" <<<"$b" >/dev/null ||
		fail "patched kernel: expected nothing zapped: $b"
	b=$(nx_json nolog)
	jq -e "$ZAPPED_NOLOG" <<<"$b" >/dev/null ||
		fail "patched kernel without logging: expected a zap: $b"
}
