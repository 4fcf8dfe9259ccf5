#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
# The peers at full size, the nightly's (ci/nightly's tests step runs
# test/nightly/ after make test): tools/peer.sh runs each of the kernel's
# selftests beside the mmubench scenario that measures the same, in one
# nested boot, and compares them.  make test keeps their short twins
# (test/peer.bats): the converters of each peer's output, which fail on
# a missing, doubled or foreign line, and the dirty-log peer's -g and -e
# runs, which build and boot the peer end to end.
load ../helpers

# A peer's selftests build once a base and arch (minutes cold), then
# each boots with both sides' runs.
BATS_TEST_TIMEOUT=1800

@test "tools/peer.sh: dirty_log_perf_test and mmubench side by side in one nested boot" {
	require_nested
	local out=$BATS_TEST_TMPDIR/peer m r n=0
	peer_run --arch x86_64 -v 1 -b 16m -i 2 --runs 2 --out "$out"
	assert_success
	assert_line --regexp '^tools/peer.sh: 2 runs each of dirty_log_perf_test -v 1 -b 16m -i 2 and mmubench dirty-log -v 1 -b 16m -i 2 --mode clear-init-set '
	assert_line --regexp '^  A = dirty_log_perf_test: .*/peer.json, 2 runs, kernel 6\.1\.'
	assert_line --regexp '^  B = mmubench: .*/mmubench.json, 2 runs, kernel 6\.1\.'
	# Every row: both sides' 2 runs, and B/A a number.
	run table_rows "$out/compare.txt"
	assert_success
	for m in 'phases[name=populate].wall_ms|clear-init-set' \
		 'dirty_log.enable_ms|clear-init-set' \
		 'dirty_log.iterations[*].dirty_ms|clear-init-set iterations[0]' \
		 'dirty_log.iterations[*].dirty_ms|clear-init-set iterations[1]' \
		 'dirty_log.iterations[*].get_ms|clear-init-set iterations[0]' \
		 'dirty_log.iterations[*].get_ms|clear-init-set iterations[1]' \
		 'dirty_log.iterations[*].clear_ms|clear-init-set iterations[0]' \
		 'dirty_log.iterations[*].clear_ms|clear-init-set iterations[1]' \
		 'dirty_log.disable_ms|clear-init-set'; do
		r=$(grep -F "results.runs[].$m|" <<<"$output") ||
			fail "no row '$m' in the table: $output"
		[[ $r =~ \|2\|2\|[0-9]+\.[0-9]+$ ]] || fail "row '$r': not 2 runs a side and a numeric B/A"
		n=$((n + 1))
	done
	assert_equal "$(wc -l <<<"$output")" "$n"
	# The same figures as JSON, each ratio a number.
	assert_json "$out/compare.json" '(.rows | length) == 9 and all(.rows[]; (.ratio | type) == "number" and .a.n == 2 and .b.n == 2)'
	peer_ratios_sane "$out"
	assert_json "$out/peer.json" '.env.program == "dirty_log_perf_test" and (.results.runs | length) == 2'
	assert_file_exists "$out/runs/peer-2.txt"
}
@test "tools/peer.sh --test demand_paging_test: the peer and mmubench demand-paging side by side in one nested boot" {
	require_nested
	local out=$BATS_TEST_TMPDIR/peer
	peer_run --test demand_paging_test --arch x86_64 -v 2 -b 16m --runs 2 --out "$out"
	assert_success
	assert_line --regexp '^tools/peer.sh: 2 runs each of demand_paging_test -v 2 -b 16m -s anonymous -u MISSING and mmubench demand-paging -v 2 -b 16m -s anonymous -u missing -i 0 --no-latency, '
	assert_line --regexp '^  A = demand_paging_test: .*/peer.json, 2 runs, kernel 6\.1\.'
	assert_json "$out/compare.json" '[.rows[].metric] == ["results.runs[].demand_paging.demand_ms", "results.runs[].demand_paging.pages_per_s"] and
		all(.rows[]; (.ratio | type) == "number" and .a.n == 2 and .b.n == 2)'
	peer_ratios_sane "$out"
	# mmubench supplied every page of its runs, once.
	assert_json "$out/mmubench.json" '(.results.runs | length) == 2 and all(.results.runs[]; .demand_paging.pages_supplied == 8192)'
}
# On arm64 6.12: x86_64's nested kernels are Debian's images, which
# have no page_idle bitmap (the peer exits 4, KSFT_SKIP, there), and
# 6.1's selftests build the peer for x86_64 only.
@test "tools/peer.sh --test access_tracking_perf_test: the peer and mmubench aging side by side in one nested boot (arm64 6.12)" {
	require_series original arm64 6.12
	local out=$BATS_TEST_TMPDIR/peer
	# 4G: the L1's last frame ends a bitmap word (on an x86_64 L1 of 2G
	# the last word is cut by max_pfn, 0x7ffe0, and the peer stops on a
	# frame there: docs/scenarios/aging.md).
	peer_run --test access_tracking_perf_test --kernel 6.12 --arch arm64 -v 2 -b 8m --runs 2 --mem 4G --out "$out"
	assert_success
	assert_line --regexp '^tools/peer.sh: 2 runs each of access_tracking_perf_test -v 2 -b 8m -m 5 and mmubench aging --method page_idle -v 2 -b 8m -i 2 --no-populate --no-latency, '
	assert_line --regexp '^  A = access_tracking_perf_test: .*/peer.json, 2 runs, kernel 6\.12\.'
	assert_json "$out/compare.json" '[.rows[].metric] == ["results.runs[].phases[name=control].wall_ms", "results.runs[].aging.mark_idle_ms", "results.runs[].phases[name=aged1].wall_ms"] and
		all(.rows[]; (.ratio | type) == "number" and .a.n == 2 and .b.n == 2)'
	peer_ratios_sane "$out"
	# mmubench's side found every page it touched young, and no other.
	assert_json "$out/mmubench.json" '(.results.runs | length) == 2 and all(.results.runs[]; .aging.touched > 0 and .aging.found_young == .aging.touched and .aging.false_young == 0)'
}
@test "tools/peer.sh --test pre_fault_memory_test: the peer and mmubench touch --prefault side by side in one nested 6.12 boot" {
	require_series original x86_64 6.12
	local out=$BATS_TEST_TMPDIR/peer
	peer_run --test pre_fault_memory_test --kernel 6.12 --arch x86_64 --runs 2 --out "$out"
	assert_success
	assert_line --regexp '^tools/peer.sh: 2 runs each of pre_fault_memory_test and mmubench touch -v 1 -b 2052k --prefault --no-populate -i 0 -w 0 --no-latency, '
	assert_line --regexp '^  A = pre_fault_memory_test: .*/peer.json, 2 runs, kernel 6\.12\.'
	assert_line --regexp '^  B = mmubench: .*/mmubench.json, 2 runs, kernel 6\.12\.'
	run table_rows "$out/compare.txt"
	assert_success
	assert_output --regexp '^results\.runs\[\]\.prefault_ms\|all\|2\|2\|[0-9]+\.[0-9]+$'
	assert_json "$out/compare.json" '(.rows | length) == 1 and
		all(.rows[]; (.ratio | type) == "number" and .a.n == 2 and .b.n == 2)'
	peer_ratios_sane "$out"
	# Both sides mapped the same 513 4K pages: the peer's every VM
	# (checked by the conversion), mmubench's by KVM's stats; and its
	# reading pass built no more mappings.
	assert_json "$out/peer.json" '(.results.runs | length) == 2 and all(.results.runs[]; .prefault_bytes == 2101248 and (.vm_prefault_ms | length) == 3)'
	assert_json "$out/mmubench.json" '(.results.runs | length) == 2 and all(.results.runs[]; .prefault_pages == {"4k": 513, "2m": 0, "1g": 0} and
		([.phases[] | select(.name == "populate") | .vm_stats.pages_4k] == [0]))'
}
@test "tools/peer.sh --test memslot_perf_test: the peer's moves and mmubench memslot's, one vCPU, 16 MiB slots, side by side in one nested boot" {
	require_nested
	local out=$BATS_TEST_TMPDIR/peer
	peer_run --test memslot_perf_test --arch x86_64 --runs 2 --out "$out"
	assert_success
	assert_line --regexp '^tools/peer.sh: 2 runs each of memslot_perf_test -s 33 -f 3 -e 4 -l 1 -r 1 and mmubench memslot -v 1 -b 48m -x 3 --rounds 2, '
	assert_line --regexp '^  A = memslot_perf_test: .*/peer.json, 2 runs, kernel 6\.1\.'
	assert_json "$out/compare.json" '[.rows[].metric] == ["results.runs[].memslot.by_op.move_active.ms_mean", "results.runs[].memslot.by_op.move_inactive.ms_mean"] and
		all(.rows[]; (.ratio | type) == "number" and .a.n == 2 and .b.n == 2)'
	peer_ratios_sane "$out"
	# The peer looped over its moves; mmubench checked its moved slot.
	assert_json "$out/peer.json" '(.results.runs | length) == 2 and all(.results.runs[]; .memslot.by_op.move_active.loops > 0 and .memslot.by_op.move_inactive.loops > 0)'
	assert_json "$out/mmubench.json" '(.results.runs | length) == 2 and all(.results.runs[]; .memslot.slot_bytes == 16777216 and .memslot.content_checks == 11)'
}
