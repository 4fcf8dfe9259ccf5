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
	run "$MMUBENCH" migrate --to 127.0.0.1:1
	assert_equal "$status" 2
	assert_output --partial "--to 127.0.0.1:1: cannot connect"
	run "$MMUBENCH" migrate-receive --frob 1
	assert_equal "$status" 2
	assert_output "mmubench: migrate-receive: --frob: unknown option (accepted: --listen PORT, --fd N)"
}
