#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
# Seed 001's effect, shown by the kernel rather than by timing: with the
# tdp-mmu-unlink-empty-leaf-tables series, a same-range invalidation
# unlinks the 4K leaf tables it empties, so TDP MMU page tables are freed
# during the zaps; the original kernel frees none there (it keeps the
# empty tables until teardown).  Counted with a kprobe on
# tdp_mmu_free_sp_rcu_callback, next to the seed's zap_total_ms.
load helpers

SERIES=tdp-mmu-unlink-empty-leaf-tables
# same4 zaps [0, 4M): two 4K leaf tables, populated before the first zap.
ZAP_ARGS=(zap --zap same4 -v 1 -b 16m --zap-count 20)

# freed JSONFILE: kernel_tables_freed of the run (null without kprobes).
freed() {
	jq '.results.runs[0].zap.kernel_tables_freed' "$1"
}

@test "seed 001: the patched kernel frees the emptied leaf tables, the original none" {
	require_kvm
	[[ $ARCH == x86_64 ]] || skip "an x86 TDP MMU series"
	[[ $MMUBENCH_KVM == nested ]] || skip "boots the original and the $SERIES kernels: nested mode only"
	[[ -f $(series_image "$SERIES") ]] || skip "the $SERIES kernel is not built (make kernel PATCHES=$SERIES, about a minute after the original)"
	local a=$BATS_TEST_TMPDIR/a.json b=$BATS_TEST_TMPDIR/b.json
	mmub "${ZAP_ARGS[@]}" --json "$a"
	assert_success
	assert_output --partial "TDP MMU page tables freed during the zaps"
	local try
	for ((try = 0; try <= NESTED_RETRIES; try++)); do
		((try == 0)) || retry_note
		run "$ROOT/ci/kvm-exec.sh" --arch "$ARCH" --series "$SERIES" \
			"$MMUBENCH" "$GUEST" "${ZAP_ARGS[@]}" --json "$b"
		nested_flake || break
	done
	assert_success
	echo "# tables freed: original $(freed "$a"), patched $(freed "$b");" \
		"kernel_zap_total_ms $(jq '.results.runs[0].zap.kernel_zap_total_ms' "$a") vs" \
		"$(jq '.results.runs[0].zap.kernel_zap_total_ms' "$b")" >&3
	assert_equal "$(freed "$a")" 0
	(( $(freed "$b") >= 2 )) || fail "patched kernel freed $(freed "$b") tables, expected >= 2"
	# Both kernels kept every refault's data right.
	assert_equal "$(jq '[.results.runs[0].zap.integrity_violations] | add' "$a" "$b" | paste -sd+ | bc)" 0
}
