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

# QEMU's own migration between two QEMUs (TCG): no KVM needed.  Under
# QEMU 7.2's TCG a few hot guest pages outside the test memory (its
# barrier counter, its vCPUs' state) reach the destination stale:
# the check names them and fails the run; the test memory must be equal.
qemu_migrate_checks() { # JSON ARCH
	local n
	assert_line --regexp "^  4K +[0-9]+\.[0-9] +[0-9]+ +[0-9]+ +[0-9]+ +[0-9]+\.[0-9] +[0-9]+\.[0-9] +-$"
	assert_output --regexp "destination: 57344 pages checked \(all of RAM\), [0-9]+ differ, 0 of them in the test memory"
	assert_json "$1" '.backend == "qemu" and .arch == $a and .config.backend == "qemu"' --arg a "$2"
	# Every page went once (QEMU migrates all 224M of RAM), the written
	# ones again; zero pages as markers; QEMU's first harvest and
	# zero-check time are not reported: null.
	assert_json "$1" '.results.runs[0].migrate |
		.verified == 57344 and .test_mismatches == 0 and .rounds >= 2 and
		.pages_sent >= 57344 and .zero_pages >= 6144 and
		.zero_pages < .pages_sent and .bytes > 2048 * 4096 and
		(.wire_mib - .bytes / 1048576 | fabs) < 0.001 and
		.downtime_ms >= 0 and .total_ms >= .downtime_ms and
		.zero_check_ms == null and .first_harvest == null'
	n=$(json_val "$1" '.results.runs[0].migrate.mismatches') || return
	if ((n == 0)); then
		assert_success
	else
		assert_failure 1
		assert_line "mmubench: migrate: $n of 57344 pages differ at the destination"
		refute_output --partial "(test page"
	fi
}

@test "the QEMU backend: QEMU's own migration fills the same table, the destination's test memory equal" {
	command -v qemu-system-x86_64 >/dev/null || fail "qemu-system-x86_64 missing: apt-get install qemu-system-x86 (make deps)"
	local j=$BATS_TEST_TMPDIR/q.json
	run "$MMUBENCH" migrate --backend qemu -v 2 -b 16m --fraction 0.25 --bandwidth 64m --guest "$O/x86_64/guest.elf" --json "$j"
	qemu_migrate_checks "$j" x86_64
	assert_line --partial "under qemu-system-x86_64 (TCG), 224M of RAM each"
}

@test "the QEMU backend with the arm64 guest, from any host" {
	command -v qemu-system-aarch64 >/dev/null || fail "qemu-system-aarch64 missing: apt-get install qemu-system-arm (make deps)"
	[[ -f $A64_GUEST ]] || fail "no arm64 guest (test/run.sh builds it: make ARCH=arm64 guest)"
	local j=$BATS_TEST_TMPDIR/q.json
	run "$MMUBENCH" migrate --backend qemu -v 2 -b 16m --fraction 0.25 --bandwidth 64m --guest "$A64_GUEST" --json "$j"
	qemu_migrate_checks "$j" arm64
}

# The check itself: a byte of test page 5 flipped at the destination
# after QEMU's migration completed must fail the run, naming it.
@test "the QEMU backend: a page changed at the destination is caught, naming it" {
	local j=$BATS_TEST_TMPDIR/q.json
	run "$MMUBENCH" migrate --backend qemu -v 2 -b 16m --fraction 0.25 --bandwidth 64m --guest "$O/x86_64/guest.elf" --debug-skip-page 5 --json "$j"
	assert_failure 1
	assert_line --regexp "^mmubench: migrate: guest-physical 0x[0-9a-f]+ \(test page 5\) differs at the destination from byte 0 on \(0x[0-9a-f]{2} here, 0x[0-9a-f]{2} there\)$"
	assert_output --regexp "mmubench: migrate: [0-9]+ of 57344 pages differ at the destination"
	assert_json "$j" '.results.runs[0].migrate | .test_mismatches == 1 and .mismatches >= 1'
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
	run "$MMUBENCH" migrate --backend qemu --to 127.0.0.1:1
	assert_equal "$status" 2
	assert_output "mmubench: --backend qemu: not with --to (QEMU's migration has its own)"
	run "$MMUBENCH" migrate --backend qemu --mode ring
	assert_equal "$status" 2
	assert_output "mmubench: --backend qemu: not with --mode (QEMU's migration has its own)"
	run "$MMUBENCH" migrate --backend qemu --max-rounds 3
	assert_equal "$status" 2
	assert_output "mmubench: --backend qemu: not with --max-rounds (QEMU's migration has its own)"
	run "$MMUBENCH" migrate --backend qemu --repeat 2
	assert_equal "$status" 2
	assert_output "mmubench: --backend qemu: not with --repeat (QEMU's migration has its own)"
	run "$MMUBENCH" migrate --backend qemu -s shmem
	assert_equal "$status" 2
	assert_output --partial "--backend qemu: -s, -x, -c and --reserve-hugepages are about KVM memslots"
	run "$MMUBENCH" migrate --backend xen
	assert_equal "$status" 2
	assert_output "mmubench: --backend xen: unknown (accepted: kvm, qemu)"
	run "$MMUBENCH" migrate --backend qemu -v 2 -b 2g --guest "$O/x86_64/guest.elf"
	assert_equal "$status" 2
	assert_output "mmubench: --backend qemu: the test memory and QEMU's 192M must stay below 3.5G on x86_64 (-M pc splits RAM there)"
	run env PATH=/nonexistent "$MMUBENCH" migrate --backend qemu -b 4m --guest "$O/x86_64/guest.elf"
	assert_equal "$status" 2
	assert_output "mmubench: --backend qemu: qemu-system-x86_64 is not installed (Debian package qemu-system-x86; make deps)"
	run "$MMUBENCH" migrate-receive --frob 1
	assert_equal "$status" 2
	assert_output "mmubench: migrate-receive: --frob: unknown option (accepted: --listen PORT, --fd N)"
}
