#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
# Scenario "migrate": pre-copy live migration while the vCPUs write, to a
# receiver process or over TCP, and the destination checked page by page.
load helpers

MODES="get clear clear-init-set ring ring-acq-rel"

# A quarter of 2 x 16 MiB is written, all the time: 2048 of 8192 pages.
@test "migration with concurrent writes in every dirty-log mode: the destination is equal" {
	require_kvm
	local m
	mmub --sh "$ONE_SH"'
for m in '"$MODES"'; do
	one $m migrate -v 2 -b 16m --fraction 0.25 --mode $m --bandwidth 256m
done'
	assert_success
	for m in $MODES; do
		assert_line "RESULT $m rc=0"
		# Every page checked, none differs; round 1 sent every page,
		# the untouched ones as zero markers; later rounds the written.
		result_json "$m" | assert_json - '.results.runs[0].migrate |
			.verified == 8192 and .mismatches == 0 and .rounds >= 2 and
			.zero_pages >= 6144 and .pages_sent > 8192 and
			.downtime_ms > 0 and .total_ms >= .downtime_ms and
			.bytes > 2048 * 4096 and .bytes < .pages_sent * 4200'
	done
	# Only init-set's first harvest decides round 1: every page on
	# these kernels (the arm64 series: only the mapped ones).
	result_json clear-init-set | assert_json - '.results.runs[0].migrate.first_harvest == 8192'
}

@test "a page the source never sends is caught, naming slot, gfn and round" {
	require_kvm
	mmub migrate -v 2 -b 16m --fraction 0.25 --debug-skip-page 5
	assert_failure
	assert_output --regexp "migrate: slot 1 gfn 0x[0-9a-f]*5 differs at the destination from byte 0 on \(0x[0-9a-f]+ here, 0x0 there; never sent\)"
	assert_output --partial "migrate: 1 of 8192 pages differ at the destination"
}

# Seed 000's rows: one migration per page size.  Each row migrates, or
# says n/a and why (1G: a CPU without it; 2M: THP disabled); none is
# dropped, and 4K always runs.
@test "--table: a migration per page size, 4K 2M 1G, each checked or n/a with its reason" {
	require_kvm
	mmub --sh "$ONE_SH"'one t migrate -v 2 -b 4m --fraction 0.25 --table
cat t.out'
	assert_success
	assert_line "RESULT t rc=0"
	assert_line --regexp "^  page +total_ms +rounds +pages_sent +zero_pages +wire_mib +downtime_ms +zero_check_ms$"
	assert_line --regexp "^  4K +[0-9.]+ +[0-9]+ +[0-9]+ +1536 +"
	assert_line --regexp "^  2M +([0-9.]+ +[0-9]+ +[0-9]+ +1536 +|n/a: .+)"
	assert_line --regexp "^  1G +([0-9.]+ +[0-9]+ +[0-9]+ +|n/a: .+)"
	result_json t | assert_json - '.results.runs | length == 3 and
		([.[].page] == ["4K", "2M", "1G"]) and
		(.[0].migrate.verified == 2048 and .[0].migrate.mismatches == 0) and
		all(.[1:][]; (.migrate.mismatches == 0 and .migrate.verified > 0) or
			(.na | type == "string" and length > 0))'
}

# On a terminal, where the migration is; never in a pipe or a file.
@test "a progress line on a TTY: round, pending dirty pages, rate" {
	[[ $MMUB_DIRECT == 1 ]] || skip "a TTY needs this machine's KVM: $MMUB_DIRECT (the nested runs read a pipe)"
	run script -qec "$MMUBENCH migrate -v 2 -b 4m --fraction 0.25 --guest $GUEST" /dev/null
	assert_success
	assert_output --regexp "migrate: round 1, [0-9]+ dirty pages pending, [0-9.]+ MiB/s"
	run "$MMUBENCH" migrate -v 2 -b 4m --fraction 0.25 --guest "$GUEST"
	assert_success
	refute_output --partial "dirty pages pending"
}

# The receiver listens on a free port on the loopback; migrate --to it.
@test "migration over TCP to migrate-receive --listen" {
	require_kvm
	mmub --sh "$ONE_SH"'
bin=${MMUB_BIN:-/root/mmubench}
# The nested kernel boots with the loopback down.
ip link set lo up 2>/dev/null || ifconfig lo 127.0.0.1 up 2>/dev/null
$bin migrate-receive --listen 0 >rx.out 2>&1 &
rx=$!
i=0
while ! grep -q "^listening on" rx.out && [ $i -lt 30 ]; do sleep 1; i=$((i + 1)); done
port=$(sed -n "s/^listening on //p" rx.out)
one tcp migrate -v 2 -b 16m --fraction 0.25 --to 127.0.0.1:$port
wait $rx
echo "RECEIVER rc=$?"'
	assert_success
	assert_line "RESULT tcp rc=0"
	assert_line "RECEIVER rc=0"
	result_json tcp | assert_json - '.config.to | test("^127.0.0.1:[0-9]+$")'
	result_json tcp | assert_json - '.results.runs[0].migrate |
		.verified == 8192 and .mismatches == 0'
}

@test "bad migrate input is rejected before any VM exists" {
	run "$MMUBENCH" migrate --to nowhere
	assert_equal "$status" 2
	assert_output "mmubench: --to nowhere: HOST:PORT"
	run "$MMUBENCH" migrate -b 4m --debug-skip-page 2048
	assert_equal "$status" 2
	assert_output "mmubench: --debug-skip-page 2048: the test memory has pages 0..1023"
	run "$MMUBENCH" migrate --bandwidth fast
	assert_equal "$status" 2
	assert_output --partial "--bandwidth fast: bytes per second"
	run "$MMUBENCH" migrate --to 127.0.0.1:1 --repeat 2
	assert_equal "$status" 2
	assert_output "mmubench: --to: a receiver takes one migration; not with --repeat 2"
	run "$MMUBENCH" migrate --to 127.0.0.1:1 --table
	assert_equal "$status" 2
	assert_output "mmubench: --to: a receiver takes one migration; not with --table"
	run "$MMUBENCH" migrate --to 127.0.0.1:1
	assert_equal "$status" 2
	assert_output --partial "--to 127.0.0.1:1: cannot connect"
	run "$MMUBENCH" migrate --invalidate often
	assert_equal "$status" 2
	assert_output "mmubench: --invalidate often: mprotect, collapse or none"
	run "$MMUBENCH" migrate --invalidate collapse -s anonymous_thp
	assert_equal "$status" 2
	assert_output "mmubench: --invalidate collapse: collapses 4K anonymous memory; not with -s anonymous_thp"
	run "$MMUBENCH" migrate --table -s anonymous_thp
	assert_equal "$status" 2
	assert_output "mmubench: --table: each row sets its own backing and page size; not with -s or --guest-page"
	run "$MMUBENCH" migrate-receive --frob 1
	assert_equal "$status" 2
	assert_output "mmubench: migrate-receive: --frob: unknown option (accepted: --listen PORT, --fd N)"
}

# ---- seed 000 on the nested arm64 kernels ----------------------------

SERIES=arm64-dirty-log-init-set-valid-entries

# The seed's gain: with the series, KVM_DIRTY_LOG_INITIALLY_SET's first
# harvest is the mapped pages only, so round 1 zero-checks and sends a
# quarter of the memory instead of all of it.  Through "mmubench ab".
@test "seed 000 A/B: the first harvest decides round 1 (every page original, the touched quarter patched)" {
	require_series original arm64
	require_series "$SERIES" arm64
	local out=$BATS_TEST_TMPDIR/ab
	# 2 x 8 MiB = 4096 pages, 1024 written, then idle.
	run "$MMUBENCH" ab --series "$SERIES" --arch arm64 --repeat 1 \
		--out "$out" --mmubench "$A64_MMUBENCH" --guest "$A64_GUEST" \
		-- migrate -v 2 -b 8m --fraction 0.25 --idle
	assert_success
	assert_output --partial "first_harvest  (results.runs[].migrate.first_harvest)"
	assert_json "$out/A.json" '.results.runs[0].migrate |
		.first_harvest == 4096 and .pages_sent == 4096 and
		.zero_pages == 3072 and .mismatches == 0'
	assert_json "$out/B.json" '.results.runs[0].migrate |
		.first_harvest == 1024 and .pages_sent == 1024 and
		.zero_pages == 0 and .mismatches == 0'
	echo "# total_ms original $(json_val "$out/A.json" '.results.runs[0].migrate.total_ms')," \
		"patched $(json_val "$out/B.json" '.results.runs[0].migrate.total_ms')" >&3
}

# The series' own doubt (patches/$SERIES/README.md): a page the guest
# wrote, whose stage-2 entry was dropped with its content kept, is not in
# the patched first harvest.  Every page written, mappings dropped by an
# mprotect round trip, then the working set (the first quarter of each
# vCPU's share) writes: the patched kernel's migration loses the other
# three quarters, exactly; the original loses nothing; nor does the
# patched one without the invalidation (the control).
@test "the series' doubt: after an mprotect round trip the patched first harvest loses the unmapped history" {
	require_series original arm64
	require_series "$SERIES" arm64
	local k sh='
for inv in mprotect none; do
	one $inv migrate -v 2 -b 8m --fraction 0.25 --invalidate $inv
done'
	for k in original "$SERIES"; do
		mmub --arch arm64 --series "$k" --sh "$ONE_SH$sh"
		assert_success
		assert_line "RESULT none rc=0"
		result_json none | assert_json - '.results.runs[0].migrate |
			.first_harvest == 4096 and .mismatches == 0'
		if [[ $k == original ]]; then
			assert_line "RESULT mprotect rc=0"
			result_json mprotect | assert_json - '.results.runs[0].migrate |
				.first_harvest == 4096 and .mismatches == 0 and
				.verified == 4096'
		else
			assert_line "RESULT mprotect rc=1"
			assert_line --regexp "^mmubench: migrate: slot 1 gfn 0x[0-9a-f]+ differs at the destination from byte 0 on \(0x[0-9a-f]+ here, 0x0 there; never sent\)$"
			assert_line --regexp "^mmubench: migrate: 3072 of 4096 pages differ at the destination \(the first harvest reported [0-9]+ dirty\)$"
		fi
	done
}
