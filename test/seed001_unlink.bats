#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
# Seed 001's effect, shown by the kernel rather than by timing: with the
# tdp-mmu-unlink-empty-leaf-tables series, a same-range invalidation
# unlinks the 4K leaf tables it empties, so TDP MMU page tables are freed
# during the zaps; the original kernel frees none there (it keeps the
# empty tables until teardown).  Counted with a kprobe on
# tdp_mmu_free_sp_rcu_callback, next to the seed's zap_total_ms.  The
# no-unlink control (tdp-mmu-no-unlink-control: v2's iterator event,
# acted on by nobody) must free none, as the original.
load helpers

SERIES=tdp-mmu-unlink-empty-leaf-tables
CONTROL=tdp-mmu-no-unlink-control
# same4 zaps [0, 4M): two 4K leaf tables, populated before the first zap.
ZAP_ARGS=(zap --zap same4 -v 1 -b 16m --zap-count 20)

@test "seed 001: the patched kernel frees the emptied leaf tables; the original and the no-unlink control none" {
	[[ $ARCH == x86_64 ]] || skip "an x86 TDP MMU series"
	require_series "$SERIES"
	require_series "$CONTROL"
	local a=$BATS_TEST_TMPDIR/a.json b=$BATS_TEST_TMPDIR/b.json c=$BATS_TEST_TMPDIR/c.json fa fb fc
	mmub --nested "${ZAP_ARGS[@]}" --json "$a"
	assert_success
	assert_output --partial "TDP MMU page tables freed during the zaps"
	mmub --series "$SERIES" "${ZAP_ARGS[@]}" --json "$b"
	assert_success
	mmub --series "$CONTROL" "${ZAP_ARGS[@]}" --json "$c"
	assert_success
	assert_output --partial "TDP MMU page tables freed during the zaps"
	fa=$(json_val "$a" .results.runs[0].zap.kernel_tables_freed)
	fb=$(json_val "$b" .results.runs[0].zap.kernel_tables_freed)
	fc=$(json_val "$c" .results.runs[0].zap.kernel_tables_freed)
	echo "# tables freed: original $fa, patched $fb, control $fc; kernel_zap_total_ms" \
		"$(json_val "$a" .results.runs[0].zap.kernel_zap_total_ms) vs" \
		"$(json_val "$b" .results.runs[0].zap.kernel_zap_total_ms) vs" \
		"$(json_val "$c" .results.runs[0].zap.kernel_zap_total_ms)" >&3
	assert_equal "$fa" 0
	(( fb >= 2 )) || fail "patched kernel freed $fb tables, expected >= 2"
	# The control walks with v2's iterator and keeps every table.
	assert_equal "$fc" "$fa"
	# Every kernel kept every refault's data right.
	assert_json_eq "$a" .results.runs[0].zap.integrity_violations 0
	assert_json_eq "$b" .results.runs[0].zap.integrity_violations 0
	assert_json_eq "$c" .results.runs[0].zap.integrity_violations 0
}

# The same zaps with dirty logging on, every harvest under the oracle: a
# series that loses a write after an invalidation fails here.
@test "seed 001 under the oracle: zaps while logging lose no write on either kernel" {
	[[ $ARCH == x86_64 ]] || skip "an x86 TDP MMU series"
	require_series "$SERIES"
	local a=$BATS_TEST_TMPDIR/a.json b=$BATS_TEST_TMPDIR/b.json j
	mmub --nested "${ZAP_ARGS[@]}" --dirty-log clear --verify --json "$a"
	assert_success
	mmub --series "$SERIES" "${ZAP_ARGS[@]}" --dirty-log clear --verify --json "$b"
	assert_success
	for j in "$a" "$b"; do
		# 20 harvests after the zaps, 1 at rest.
		assert_json "$j" '.results.runs[0].zap | .integrity_violations == 0 and
			.refaults_zero > 0 and (.dirty_log.verify | .harvests == 21 and
			.changed > 0 and .missed == 0 and .false_positives == 0 and
			.zeroed > 0)'
	done
}
