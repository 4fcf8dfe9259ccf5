#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
# memslot: slot operations (moves of an active and an inactive slot,
# delete and add back, unmap in chunks) while the vCPUs write, in the
# nested 6.1 kernels of both arches; the churned slot's content checked
# page by page at the GPA each sequence leaves it at, and the check shown
# failing on a page lost on purpose.  Bad input is one line, exit 2,
# before any VM.
load helpers

# 2 vCPUs x 8 MiB over 8 slots of 2 MiB: the vCPUs write to the first 6,
# slot 7 (id 7) is churned, slot 8's range its move target.  One round:
# 16 operations (--chunks 4), 6 content checks of 512 pages.  The debug
# runs lose a page after the first move (active, to the hole) and after
# the first inactive move (caught after the second, back home).  The
# last puts back, at the check after operation 3 (after the fourth), one
# page's word from before the guest's pass: the host's check must fail.
MS_SH="$ONE_SH"'
one ms memslot -v 2 -b 8m --rounds 1
one lose1 memslot -v 2 -b 8m --rounds 1 --debug-lose-page 1
one lose3 memslot -v 2 -b 8m --rounds 1 --debug-lose-page 3
one lostw memslot -v 2 -b 8m --rounds 1 --debug-lose-write 3
:'

# assert_ops: the run's operations in order, each timed, and its checks.
assert_ops() {
	assert_line "RESULT ms rc=0"
	result_json ms | assert_json - '.config.rounds == 1 and
		.config.chunks == 4 and .config.slots == 8 and
		.results.runs[0].memslot as $m |
		$m.operations == 16 and $m.content_checks == 6 and
		$m.pages_checked == 3072 and $m.slot_bytes == 2097152 and
		[$m.each[].op] == ["move_active","move_active","move_inactive",
			"move_inactive","delete","add","delete","add_chunk",
			"add_chunk","add_chunk","add_chunk","delete_chunk",
			"delete_chunk","delete_chunk","delete_chunk","add"] and
		[$m.each[].slot] == [7,7,7,7,7,7,7,9,10,11,12,9,10,11,12,7] and
		([$m.each[] | .ms > 0 and .accesses > 0 and
		  .latency_ns.p99 > 0] | all) and
		$m.by_op.move_active.count == 2 and
		$m.by_op.delete_chunk.count == 4 and
		($m.checks | test("page of the churned slot"))'
	# The moves alternate between the slot'"'"'s place and the hole,
	# 2 MiB above it; the chunks tile the slot.
	result_json ms | assert_json - '.results.runs[0].memslot.each as $e |
		($e[0].gpa - $e[1].gpa) == 2097152 and $e[2].gpa == $e[0].gpa and
		$e[3].gpa == $e[1].gpa and
		[$e[7:11][].gpa - $e[1].gpa] == [0,524288,1048576,1572864] and
		([$e[4], $e[6], $e[11:15][]] | all(.bytes == 0))'
	# A page lost after a move to the hole: the guest finds it there,
	# page 256 of the slot with the word of test offset 15 MiB (the hole
	# at 14 MiB); back home (12 MiB) that of 13 MiB.
	assert_line "RESULT lose1 rc=1"
	assert_line --regexp "^mmubench: memslot: after operation 1, the guest found 1 of the churned slot's 512 pages without their data at gpa 0x[0-9a-f]+; the first, 4K page 256 of the slot, held 0x0000000000000000, not 0xd5a00000000f0000: a page lost in the slot's operations$"
	# Lost after the first inactive move: found back home, after op 4.
	assert_line "RESULT lose3 rc=1"
	assert_line --regexp "^mmubench: memslot: after operation 4, the guest found 1 of the churned slot's 512 pages without their data at gpa 0x[0-9a-f]+; the first, 4K page 256 of the slot, held 0x0000000000000000, not 0xd5a00000000d0000: a page lost in the slot's operations$"
	# The guest's write kept from the slot: the host's check, after op 4.
	assert_line "RESULT lostw rc=1"
	assert_line --regexp "^mmubench: --debug-lose-write: after operation 4, 4K page 256 of the churned slot's memory \\(gpa (0x[0-9a-f]+)\\) given back its word from before the guest's pass, on purpose$"
	assert_line --regexp "^mmubench: memslot: after operation 4, 4K page 256 of the churned slot's memory holds 0xd5a00000000d0000, not the stamp the guest wrote at gpa 0x[0-9a-f]+: its writes did not reach the slot$"
}

@test "6.1 x86: memslot moves, deletes and re-adds a slot while the vCPUs write; each op timed with its zaps; content kept page by page, a lost page named" {
	require_series original x86_64 6.1
	mmub --arch x86_64 --base 6.1 --sh "$MS_SH"
	assert_success
	assert_ops
	# The TDP MMU: a move or a delete zaps every mapping of the VM
	# (kvm_mmu_zap_all_fast()), the vCPUs refault their 3072 pages; an
	# add zaps nothing.  Counts from x86's pages_4k and pf_fixed: a
	# fault that gained no mapping counts as zapped too (an add showed 1
	# in one of three runs, 2026-12-03), so an add's is a few at most.
	result_json ms | assert_json - '.results.runs[0].memslot as $m |
		([$m.each[] | select(.op == "add" or .op == "add_chunk") |
		  .zapped | type == "number" and . <= 8] | all) and
		([$m.each[] | select(.op == "move_active") | .zapped >= 3072 + 512] | all) and
		([$m.each[] | select(.op == "move_inactive") | .zapped >= 3072] | all) and
		$m.by_op.move_active.zapped_mean > $m.by_op.move_inactive.zapped_mean'
}

@test "6.1 arm64: memslot's operations and content checks on stage 2; a lost page named" {
	require_series original arm64 6.1
	mmub --arch arm64 --base 6.1 --sh "$MS_SH"
	assert_success
	assert_ops
	# arm64 has no pages_4k nor pf_fixed: no zap count, said as null.
	result_json ms | assert_json - '[.results.runs[0].memslot.each[] |
		.zapped == null and .pf_fixed == null] | all'
}

@test "memslot: bad input is one line naming the option, exit 2, before any VM" {
	refused "-x 4: memslot needs at least 5 slots with 2 vCPUs (the last two are churned, and every vCPU's share must reach into the others)" \
		memslot -v 2 -b 8m -x 4
	refused "--touch 2M: memslot checks every 4K page of the churned slot (accepted: 4k)" \
		memslot --touch 2m
	refused "-w 50: memslot's checks read what each write replaces (accepted: 100)" \
		memslot -w 50
	refused "--fraction/--ranges: memslot chooses the vCPUs' ranges itself (all slots but the last two)" \
		memslot --ranges 0+1m
	refused "--chunks 3: a slot of 32M does not split into 3 chunks that are multiples of 4K" \
		memslot --chunks 3
	refused "--chunks 65: out of range (accepted: 1..64)" memslot --chunks 65
	refused "--rounds 0: out of range (accepted: 1..100)" memslot --rounds 0
	refused "--debug-lose-page 33: there are 32 operations (16 a round with --chunks 4)" \
		memslot --debug-lose-page 33
	refused "--debug-lose-write 33: there are 32 operations (16 a round with --chunks 4)" \
		memslot --debug-lose-write 33
	refused "--no-latency: not with memslot: the vCPUs' latency around each operation is one of its figures" \
		memslot --no-latency
	refused "-s guest_memfd: memslot reads or changes the test memory from the host, which cannot map private memory (accepted: touch, private-mem)" \
		memslot -s guest_memfd
}

@test "memslot: its stanza in experiments.conf is an A/A run, not in the default list, on both bases" {
	cd "$ROOT" || return 1
	local b out=$BATS_TEST_TMPDIR/night
	run ci/nightly --dry-run --out "$out"
	assert_success
	# The default list, which runs, without memslot.
	assert_line --regexp "^nx-recovery: tools/ab.sh "
	refute_line --partial "memslot"
	for b in 6.1 6.12; do
		run ci/nightly --dry-run --out "$out" --kernel "$b" --only memslot
		assert_success
		assert_line "memslot: tools/ab.sh --kernel $b --series original --arch x86_64 --clock host --repeat 5 --runs --out $out/memslot -- memslot -v 2 -b 64m"
	done
	run "$MMUBENCH" metrics memslot
	assert_success
	assert_line --partial "move_active_ms"
}
