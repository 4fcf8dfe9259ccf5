#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
# Scenario "dirty-log": every mode, the oracle, first-harvest accounting.
load helpers

MODES="get clear clear-init-set ring ring-acq-rel"

# 2 vCPUs write while the host harvests, 200 rounds per mode, one boot
# (or one script here).
oracle_all_modes() { # [mmub options]
	local m
	mmub "$@" --sh "$ONE_SH"'
for m in '"$MODES"'; do
	one $m dirty-log -v 2 -b 4m -i 2 --mode $m --verify --rounds 200
done'
	assert_success
	for m in $MODES; do
		assert_line "RESULT $m rc=0"
		# 200 concurrent + 2 iteration + 1 final harvest, nothing missed.
		result_json "$m" | assert_json - '.results.runs[0].dirty_log.verify |
			.harvests == 203 and .changed > 0 and .missed == 0'
	done
}

@test "the oracle finds no missed page in any mode (200 concurrent rounds each), this machine's KVM" {
	[[ $MMUB_DIRECT == 1 ]] || skip "$MMUB_DIRECT (the nested test below runs anyway)"
	oracle_all_modes
}

@test "the oracle finds no missed page in any mode (200 concurrent rounds each), nested TDP MMU" {
	require_nested
	oracle_all_modes --nested
}

@test "a small dirty ring fills, the vCPUs wait, and nothing is lost" {
	require_kvm
	mmub dirty-log -v 2 -b 8m -i 2 --mode ring --ring-size 4k --verify --rounds 20
	assert_success
	assert_line --regexp "^  dirty ring: 256 entries per vCPU, [1-9][0-9]* ring-full exits"
	assert_line --regexp "^  verify: 23 harvests checked, [1-9][0-9]* pages changed, 0 missed"
}

@test "the oracle catches a page dropped on purpose, naming slot and gfn" {
	require_kvm
	mmub dirty-log -v 2 -b 4m -i 1 --mode clear --verify --rounds 20 --debug-drop-dirty 3
	assert_equal "$status" 1
	# Round 3, or the first later one whose harvest has a page to drop.
	assert_output --regexp "dropped slot 1 gfn (0x[0-9a-f]+) from round ([3-9]|[1-9][0-9]+) on purpose"
	local gfn round
	gfn=$(grep -oE 'dropped slot 1 gfn 0x[0-9a-f]+' <<<"$output" | grep -oE '0x[0-9a-f]+$')
	round=$(grep -oE 'from round [0-9]+ on purpose' <<<"$output" | grep -oE '[0-9]+')
	assert_output --partial "oracle: slot 1 gfn $gfn changed but was not reported dirty (written before the harvest, round $round)"
	assert_output --partial "--verify: 1 page missed, first slot 1 gfn $gfn"
}

@test "first harvest: init-set reports every page, get/clear/ring only written ones" {
	require_kvm
	local m
	# A quarter of 2 x 8 MiB is touched: 1024 of 4096 pages.
	mmub --sh "$ONE_SH"'
for m in get clear clear-init-set ring; do
	one $m dirty-log -v 2 -b 8m -i 1 --fraction 0.25 --mode $m
done'
	assert_success
	for m in get clear ring; do
		assert_line "RESULT $m rc=0"
		result_json "$m" | assert_json - '.results.runs[0].dirty_log |
			.first_harvest_reported == 0 and .guest_touched == 1024'
	done
	# Stock kernels set every bit; the arm64 series changes exactly this.
	assert_line "RESULT clear-init-set rc=0"
	result_json clear-init-set | assert_json - '.results.runs[0].dirty_log |
		.first_harvest_reported == 4096 and .guest_touched == 1024'
}

@test "clear-init-set enables faster than get on 4K pages (ratio printed)" {
	require_kvm
	local j=$BATS_TEST_TMPDIR/t.json
	mmub dirty-log --table enable -b 256m --repeat 3 --json "$j"
	assert_success
	assert_line --regexp "^  4K +[0-9.]+ +[0-9.]+ +[0-9.]+$"
	assert_output --regexp "  1G +(n/a: .+|[0-9.]+ +[0-9.]+ +[0-9.]+)$"
	local get init
	get=$(json_val "$j" '[.results.runs[] | select(.page == "4K" and .mode == "get") | .enable_ms] | sort | .[1]')
	init=$(json_val "$j" '[.results.runs[] | select(.page == "4K" and .mode == "clear-init-set") | .enable_ms] | sort | .[1]')
	echo "# enable 4K: get ${get} ms, clear-init-set ${init} ms, ratio $(echo "scale=2; $get / $init" | bc)" >&3
	(( $(echo "$init < $get" | bc) )) || fail "clear-init-set $init ms is not below get $get ms"
}

@test "dirty-log options are checked before any VM exists" {
	run "$MMUBENCH" dirty-log --mode foo
	assert_equal "$status" 2
	assert_output --partial "--mode foo: unknown (accepted: get, clear, clear-init-set, ring, ring-acq-rel)"
	run "$MMUBENCH" dirty-log -g -k 64
	assert_equal "$status" 2
	assert_output --partial "-k 64: only with --mode clear or clear-init-set, not get"
	run "$MMUBENCH" dirty-log --mode ring --ring-size 5000
	assert_equal "$status" 2
	assert_output --partial "--ring-size 5000: must be a power of two"
	run "$MMUBENCH" dirty-log --mode clear --ring-size 4k
	assert_equal "$status" 2
	assert_output --partial "--ring-size: only with --mode ring or ring-acq-rel, not clear"
	run "$MMUBENCH" dirty-log -k 100
	assert_equal "$status" 2
	assert_output --partial "-k 100: must be a multiple of 64 pages"
	run "$MMUBENCH" dirty-log --debug-drop-dirty 1
	assert_equal "$status" 2
	assert_output --partial "--debug-drop-dirty: needs --verify"
	run "$MMUBENCH" touch --verify
	assert_equal "$status" 2
	assert_output "mmubench: --verify: belongs to the dirty-log scenario, not touch"
	run "$MMUBENCH" dirty-log --table frob
	assert_equal "$status" 2
	assert_output --partial "--table frob: unknown (accepted: enable)"
}
