#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
# Seed 000's effect (patch 3), on arm64 KVM in the nested arm64 kernel:
# after dirty logging is enabled with KVM_DIRTY_LOG_INITIALLY_SET
# (dirty-log --mode clear-init-set), the first harvest reports every page
# of the test slots on the original kernel, and on the
# arm64-dirty-log-init-set-valid-entries kernel only the pages with a
# valid stage-2 entry: the pages the guest touched (4K backing), or the
# whole 2M blocks that map them (hugetlb backing).
#
# On both bases, 6.1 and 6.12: patch 3 is upstream in neither.
# Both kernels are booted under QEMU, even on an arm64 machine with
# /dev/kvm: only that way can the two kernels be compared.
load helpers

SERIES=arm64-dirty-log-init-set-valid-entries
VCPUS=2
BYTES=$((8 << 20))	# per vCPU, as -b
PAGE=4096
BLOCK=$((2 << 20))

# kernels BASE: both of its arm64 kernels are built.
kernels() {
	require_series original arm64 "$1"
	require_series "$SERIES" arm64 "$1"
}

setup() {
	[[ -x $A64_MMUBENCH && -f $A64_GUEST ]] ||
		fail "no arm64 harness and guest (test/run.sh builds them: make ARCH=arm64 guest host)"
}

# One boot a kernel (batch_add), each of its runs a dirty-log
# --mode clear-init-set: a quarter of each share written (fh), a tenth
# on hugetlb (block, the series only), and the quarter under the oracle
# (ora).
setup_file() {
	local b k dl="dirty-log -v $VCPUS -b $((BYTES >> 20))m -i 1 --mode clear-init-set"
	for b in 6.1 6.12; do
		for k in original "$SERIES"; do
			batch_add "$b-$k" --arch arm64 --base "$b" --series "$k" -- "
one fh $dl --fraction 0.25
one ora $dl --fraction 0.25 --verify --rounds 50
$([[ $k == original ]] || echo "one block $dl --fraction 0.1 -s anonymous_hugetlb_2mb --reserve-hugepages")"
		done
	done
	batch_boots
}

# a64 BASE SERIES TAG JSON: that run of that kernel's boot passed; its
# document in JSON.
a64() {
	batch "$1-$2"
	assert_line "RESULT $3 rc=0"
	result_json "$3" >"$4"
}

dl() { # JSONFILE FIELD
	json_val "$1" ".results.runs[0].dirty_log.$2"
}

first_harvest() { # BASE
	local base=$1 a=$BATS_TEST_TMPDIR/a.json b=$BATS_TEST_TMPDIR/b.json
	kernels "$base"
	# A quarter of each vCPU's share is written, from its start.
	local all=$((VCPUS * BYTES / PAGE))
	local touched=$((VCPUS * (BYTES / PAGE / 4)))

	a64 "$base" original fh "$a"
	a64 "$base" "$SERIES" fh "$b"
	echo "# $base: first harvest of $all pages, $touched touched: original $(dl "$a" first_harvest_reported)," \
		"patched $(dl "$b" first_harvest_reported);" \
		"enable_ms $(dl "$a" enable_ms) vs $(dl "$b" enable_ms)" >&3
	assert_equal "$(dl "$a" guest_touched)" "$touched"
	assert_equal "$(dl "$b" guest_touched)" "$touched"
	assert_equal "$(dl "$a" first_harvest_reported)" "$all"
	assert_equal "$(dl "$b" first_harvest_reported)" "$touched"
	((all != touched)) || fail "the run cannot tell the kernels apart: $all pages, all touched"
}

block() { # BASE
	local base=$1 b=$BATS_TEST_TMPDIR/b.json
	kernels "$base"
	# A tenth of each share: not a whole number of 2M blocks.
	local per=$((BYTES / PAGE / 10))
	local blocks=$(((per * PAGE + BLOCK - 1) / BLOCK))
	local expect=$((VCPUS * blocks * BLOCK / PAGE))

	a64 "$base" "$SERIES" block "$b"
	echo "# $base patched, hugetlb 2M: first harvest $(dl "$b" first_harvest_reported)," \
		"touched $(dl "$b" guest_touched), expected $blocks block(s) per vCPU = $expect pages" >&3
	assert_equal "$(dl "$b" guest_touched)" $((VCPUS * per))
	assert_equal "$(dl "$b" first_harvest_reported)" "$expect"
	((expect != VCPUS * per)) || fail "the touched pages fill whole blocks: pick another fraction"
}

# The same runs under the oracle, with the vCPUs writing across the
# enable and the first harvest: a kernel that loses a page there fails.
# Its cold pages (one in each 64-page word, written before logging and
# never since) are mapped: both kernels must report each, the patched
# one as a valid stage-2 entry.  The written quarter leaves its own
# cold pages alone.
oracle() { # BASE
	local base=$1 a=$BATS_TEST_TMPDIR/a.json b=$BATS_TEST_TMPDIR/b.json
	kernels "$base"
	local all=$((VCPUS * BYTES / PAGE)) cold=$((VCPUS * BYTES / PAGE / 64))
	local touched=$((VCPUS * (BYTES / PAGE / 4) * 63 / 64))

	a64 "$base" original ora "$a"
	a64 "$base" "$SERIES" ora "$b"
	# The first, 1 at rest (-i 1), 50 while writing, 1 at rest.
	assert_json "$a" '.results.runs[0].dirty_log.verify | .harvests == 53 and
		.changed > 0 and .missed == 0 and .false_positives == 0'
	assert_json "$b" '.results.runs[0].dirty_log.verify | .harvests == 53 and
		.changed > 0 and .missed == 0 and .false_positives == 0'
	# The effect holds with writes in flight: every page, or the mapped.
	assert_json "$a" ".results.runs[0].dirty_log | .guest_touched == $touched and
		.first_harvest_reported == $all and
		.verify.first_harvest_false_positives == $((all - touched))"
	assert_json "$b" ".results.runs[0].dirty_log | .guest_touched == $touched and
		.first_harvest_reported == $((touched + cold)) and
		.verify.first_harvest_false_positives == $cold"
	assert_json "$a" ".results.runs[0].dirty_log.verify | .cold_pages == $cold and
		.cold_required == $cold and .cold_missed == 0"
	assert_json "$b" ".results.runs[0].dirty_log.verify | .cold_pages == $cold and
		.cold_required == $cold and .cold_missed == 0"
}

@test "seed 000 (6.1): init-set's first harvest is every page on the original kernel, the touched ones patched" {
	first_harvest 6.1
}

@test "seed 000 (6.12): init-set's first harvest is every page on the original kernel, the touched ones patched" {
	first_harvest 6.12
}

@test "seed 000 (6.1): patched, a 2M stage-2 block reports all of its pages (hugetlb)" {
	block 6.1
}

@test "seed 000 (6.12): patched, a 2M stage-2 block reports all of its pages (hugetlb)" {
	block 6.12
}

@test "seed 000 under the oracle (6.1): writes across the enable, no page lost on either kernel" {
	oracle 6.1
}

@test "seed 000 under the oracle (6.12): writes across the enable, no page lost on either kernel" {
	oracle 6.12
}
