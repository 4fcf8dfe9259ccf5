#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
# tools/peer.sh: the kernel's selftests (dirty_log_perf_test,
# demand_paging_test, pre_fault_memory_test, memslot_perf_test,
# access_tracking_perf_test) beside the mmubench scenario that measures
# the same, in one nested boot, through "mmubench compare":
# tools/peer/TEST.awk, which turns the peer's lines into the document
# compare reads, each shown to fail on a missing or doubled line; the
# dirty-log peer end to end, small (-g, -e); bad input.  Each peer at
# its full size, in its nested boot, is the nightly's
# (test/nightly/peer.bats).
load helpers

@test "tools/peer.sh -g: the peer's -g against mmubench's get mode, no clear row" {
	require_nested
	local out=$BATS_TEST_TMPDIR/peer
	peer_run --arch x86_64 -g -v 1 -b 8m -i 2 --runs 1 --out "$out"
	assert_success
	assert_line --regexp '^tools/peer.sh: 1 runs each of dirty_log_perf_test -v 1 -b 8m -i 2 -g and mmubench dirty-log -v 1 -b 8m -i 2 --mode get '
	run table_rows "$out/compare.txt"
	assert_success
	assert_line --regexp '^results\.runs\[\]\.dirty_log\.iterations\[\*\]\.dirty_ms\|get iterations\[1\]\|1\|1\|[0-9]+\.[0-9]+$'
	refute_line --partial 'clear_ms'
	assert_equal "$(wc -l <<<"$output")" 7
	peer_ratios_sane "$out"
}

@test "tools/peer.sh -e: both disable logging while the vCPUs write; the disable row compares them" {
	require_nested
	local out=$BATS_TEST_TMPDIR/peer
	peer_run --arch x86_64 -e -v 1 -b 8m -i 2 --runs 1 --out "$out"
	assert_success
	# 6.1's -e falls through into -g: mmubench's side in get mode too.
	assert_line "tools/peer.sh: linux-source-6.1's dirty_log_perf_test -e also turns manual protect off (its -e falls through into -g): mmubench runs --mode get to match"
	assert_line --regexp '^tools/peer.sh: 1 runs each of dirty_log_perf_test -v 1 -b 8m -i 2 -e and mmubench dirty-log -v 1 -b 8m -i 2 --mode get --no-populate --no-latency -e, '
	assert_json "$out/mmubench.json" '.config.disable_writing == true'
	run table_rows "$out/compare.txt"
	assert_success
	assert_line --regexp '^results\.runs\[\]\.dirty_log\.disable_ms\|get\|1\|1\|[0-9]+\.[0-9]+$'
	peer_ratios_sane "$out"
}

# The lines of one run of the peer, as 6.1's dirty_log_perf_test prints
# them (-v 1 -b 16m -i 2, nested x86_64).
peer_lines() { # DIRTY1 [CLEAR2]
	cat <<EOF
Test iterations: 2
Testing guest mode: PA-bits:ANY, VA-bits:48,  4K pages
guest physical test memory: [0xfcfefff000, 0xfcfffff000)
Populate memory time: 0.853677890s
Enabling dirty logging time: 0.001597670s

Iteration 1 dirty memory time: $1
Iteration 1 get dirty log time: 0.000267780s
Iteration 1 clear dirty log time: 0.010538620s
Iteration 2 dirty memory time: 0.589040950s
Iteration 2 get dirty log time: 0.000058820s
${2-Iteration 2 clear dirty log time: 0.007969780s}
Disabling dirty logging time: 0.001966610s
Get dirty log over 2 iterations took 0.000326600s. (Avg 0.000163300s/iteration)
Clear dirty log over 2 iterations took 0.018508400s. (Avg 0.009254200s/iteration)
EOF
}

@test "tools/peer/dirty_log_perf_test.awk: the peer's lines as a dirty-log document; a missing line or run fails" {
	local d=$BATS_TEST_TMPDIR conv
	conv=(awk -v vcpus=1 -v bytes=16777216 -v iterations=2 -v mode=clear-init-set
	      -v kernel=6.1.0 -v mmu=tdp_mmu -f "$ROOT/tools/peer/common.awk"
	      -f "$ROOT/tools/peer/dirty_log_perf_test.awk")
	peer_lines 0.005803960s >"$d/1.txt"
	peer_lines 1.250000000s >"$d/2.txt"
	run "${conv[@]}" -v runs=2 "$d/1.txt" "$d/2.txt"
	assert_success
	echo "$output" >"$d/peer.json"
	assert_json "$d/peer.json" '.scenario == "dirty-log" and .config.dirty_mode == "clear-init-set"'
	assert_json_eq "$d/peer.json" '.results.runs[0].phases[0].wall_ms' 853.67789
	assert_json_eq "$d/peer.json" '.results.runs[0].dirty_log.enable_ms' 1.59767
	assert_json_eq "$d/peer.json" '.results.runs[1].dirty_log.iterations[0].dirty_ms' 1250
	assert_json_eq "$d/peer.json" '.results.runs[0].dirty_log.iterations[1].clear_ms' 7.96978
	assert_json_eq "$d/peer.json" '.results.runs[1].dirty_log.disable_ms' 1.96661
	# compare reads it, the peer against itself: B/A of the first
	# iteration's dirty memory time is 1250 / 5.80396.
	run "$MMUBENCH" compare "$d/peer.json" "$d/peer.json" \
		--metric 'results.runs[].dirty_log.iterations[*].dirty_ms'
	assert_success
	assert_line --regexp '^  clear-init-set iterations\[0\] +2 +2 +627\.9 +627\.9 +1\.000 '
	# A run without a line, or a run missing: an error naming it.
	peer_lines 0.005803960s '' >"$d/2.txt"
	run "${conv[@]}" -v runs=2 "$d/1.txt" "$d/2.txt"
	assert_failure
	assert_output "tools/peer/dirty_log_perf_test.awk: $d/2.txt: no \"Iteration 2 clear dirty log time\" line (did the peer fail?)"
	: >"$d/2.txt"
	run "${conv[@]}" -v runs=2 "$d/1.txt" "$d/2.txt"
	assert_failure
	assert_output "tools/peer/dirty_log_perf_test.awk: 1 runs read, expected 2 (an empty file?)"
}

@test "tools/peer/demand_paging_test.awk: 6.1's and 6.12's lines as a demand-paging document; a missing line or run fails" {
	local d=$BATS_TEST_TMPDIR conv
	conv=(awk -v vcpus=2 -v bytes=16777216 -v mode=missing -v kernel=6.1.0
	      -v mmu=tdp_mmu -f "$ROOT/tools/peer/common.awk"
	      -f "$ROOT/tools/peer/demand_paging_test.awk")
	# 6.1 separates with a space (and divides its nanoseconds by 1e8);
	# 6.12 with a tab.
	printf 'Total guest execution time: 0.250000000s\nOverall demand paging rate: 3276.800000 pgs/sec\n' >"$d/1.txt"
	printf 'Total guest execution time:\t0.500000000s\nPer-vcpu demand paging rate:\t8192.000000 pgs/sec/vcpu\nOverall demand paging rate:\t16384.000000 pgs/sec\n' >"$d/2.txt"
	run "${conv[@]}" -v runs=2 "$d/1.txt" "$d/2.txt"
	assert_success
	echo "$output" >"$d/peer.json"
	assert_json "$d/peer.json" '.scenario == "demand-paging" and .env.program == "demand_paging_test"'
	# 8192 4K pages over the time the test gives.
	assert_json_eq "$d/peer.json" '.results.runs[0].demand_paging.demand_ms' 250
	assert_json_eq "$d/peer.json" '.results.runs[0].demand_paging.pages_per_s' 32768
	assert_json_eq "$d/peer.json" '.results.runs[0].demand_paging.printed_pages_per_s' 3276.8
	assert_json_eq "$d/peer.json" '.results.runs[1].demand_paging.pages_per_s' 16384
	run "$MMUBENCH" compare "$d/peer.json" "$d/peer.json" \
		--metric 'results.runs[].demand_paging.pages_per_s'
	assert_success
	assert_line --regexp '^  all +2 +2 +24576 +24576 +1\.000 '
	printf 'Total guest execution time: 0.250000000s\n' >"$d/2.txt"
	run "${conv[@]}" -v runs=2 "$d/1.txt" "$d/2.txt"
	assert_failure
	assert_output "tools/peer/demand_paging_test.awk: $d/2.txt: no \"Overall demand paging rate\" line (did the peer fail?)"
	run "${conv[@]}" -v runs=3 "$d/1.txt" "$d/1.txt"
	assert_failure
	assert_output "tools/peer/demand_paging_test.awk: 2 runs read, expected 3 (an empty file?)"
}

@test "tools/peer/access_tracking_perf_test.awk: the peer's lines as an aging document; a missing line or run, or a line twice, fails" {
	local d=$BATS_TEST_TMPDIR conv
	conv=(awk -v vcpus=2 -v bytes=16777216 -v kernel=6.1.0 -v mmu=tdp_mmu
	      -f "$ROOT/tools/peer/common.awk"
	      -f "$ROOT/tools/peer/access_tracking_perf_test.awk")
	# Its lines as 6.1 prints them ("%-30s: %ld.%09lds"), a warning too.
	printf '%s\n' 'Testing guest mode: PA-bits:ANY, VA-bits:48,  4K pages' '' \
		'Populating memory             : 0.900000000s' \
		'Writing to populated memory   : 0.010000000s' \
		'Reading from populated memory : 0.008000000s' \
		'Mark memory idle              : 1.250000000s' \
		'WARNING: vCPU1: Too many pages still idle (12out of 4096), this will affect performance results.' \
		'Writing to idle memory        : 0.020000000s' \
		'Mark memory idle              : 0.750000000s' \
		'Reading from idle memory      : 0.015000000s' >"$d/1.txt"
	run "${conv[@]}" -v runs=1 "$d/1.txt"
	assert_success
	echo "$output" >"$d/peer.json"
	assert_json "$d/peer.json" '.scenario == "aging" and .env.program == "access_tracking_perf_test"'
	assert_json_eq "$d/peer.json" '.results.runs[0].aging.mark_idle_ms' 2000
	assert_json_eq "$d/peer.json" '.results.runs[0].phases[0].wall_ms' 10
	assert_json_eq "$d/peer.json" '.results.runs[0].phases[1].wall_ms' 20
	assert_json_eq "$d/peer.json" '.results.runs[0].aging.idle_warnings' 1
	run "$MMUBENCH" compare "$d/peer.json" "$d/peer.json" \
		--metric 'results.runs[].phases[name=aged1].wall_ms'
	assert_success
	assert_line --regexp '^  all +1 +1 +20\.00 +20\.00 +1\.000 '
	grep -v "Writing to idle" "$d/1.txt" >"$d/2.txt"
	run "${conv[@]}" -v runs=1 "$d/2.txt"
	assert_failure
	assert_output "tools/peer/access_tracking_perf_test.awk: $d/2.txt: no \"Writing to idle memory\" line (did the peer fail?)"
	grep -v "^Mark memory idle" "$d/1.txt" >"$d/2.txt"
	run "${conv[@]}" -v runs=1 "$d/2.txt"
	assert_failure
	assert_output "tools/peer/access_tracking_perf_test.awk: $d/2.txt: 0 \"Mark memory idle\" lines, expected 2"
	{ cat "$d/1.txt"; echo 'Writing to idle memory        : 0.030000000s'; } >"$d/3.txt"
	run "${conv[@]}" -v runs=1 "$d/3.txt"
	assert_failure
	assert_output "tools/peer/access_tracking_perf_test.awk: $d/3.txt: line 11: a second \"Writing to idle memory\" line"
	run "${conv[@]}" -v runs=2 "$d/1.txt"
	assert_failure
	assert_output "tools/peer/access_tracking_perf_test.awk: 1 runs read, expected 2 (an empty file?)"
}

# One run of 6.12's pre_fault_memory_test under tools/peer.sh's "traced",
# as captured in a nested x86_64 boot: the test's output, the trace of
# its KVM_PRE_FAULT_MEMORY ioctls in three VMs, its exit status.
PF_RUN=$ROOT/test/fixtures/peer/pre_fault_memory_test-6.12-x86_64.txt

@test "tools/peer/pre_fault_memory_test.awk: a traced run as a touch document with prefault_ms; a failed or malformed run fails" {
	local d=$BATS_TEST_TMPDIR conv
	conv=(awk -v vcpus=1 -v bytes=2101248 -v kernel=6.12.118 -v mmu=tdp_mmu
	      -f "$ROOT/tools/peer/common.awk"
	      -f "$ROOT/tools/peer/pre_fault_memory_test.awk")
	cp "$PF_RUN" "$d/1.txt"
	cp "$PF_RUN" "$d/2.txt"
	run "${conv[@]}" -v runs=2 "$d/1.txt" "$d/2.txt"
	assert_success
	echo "$output" >"$d/peer.json"
	assert_json "$d/peer.json" '.scenario == "touch" and .config.prefault == true and
		.env.program == "pre_fault_memory_test" and (.results.runs | length) == 2'
	# The default VM's two ioctls that mapped its memory: 2 MiB from
	# 4.661759 s to 4.682104 s, then 8 KiB (4K mapped) from 4.682349 s to
	# 4.682937 s; the two -ENOENT after them are not counted.
	assert_json_eq "$d/peer.json" '.results.runs[0].prefault_ms' 20.933
	assert_json_eq "$d/peer.json" '.results.runs[0].prefault_bytes' 2101248
	assert_json "$d/peer.json" '.results.runs[1].vm_prefault_ms == [20.933, 16.851, 69.163]'
	run "$MMUBENCH" compare "$d/peer.json" "$d/peer.json" --metric 'results.runs[].prefault_ms'
	assert_success
	assert_line --regexp '^  all +2 +2 +20\.93 +20\.93 +1\.000 '
	# The fault guarded against: a trace that does not show the whole
	# memory mapped (here the ioctl of its last page lost) is no figure.
	grep -v 'gpa=0xfcffe00000 size=0x2000' "$PF_RUN" >"$d/2.txt"
	run "${conv[@]}" -v runs=2 "$d/1.txt" "$d/2.txt"
	assert_failure
	assert_output "tools/peer/pre_fault_memory_test.awk: $d/2.txt: ioctl 2 of 9 asks from 0xfcffe01000, not within what ioctl 1 asked (0xfcffc00000+0x200000): an ioctl lost?"
	# The test failed; the probes were not set (no trace); an ioctl
	# without its return; a line that is not the trace's.
	sed 's/^@@ exit status 0$/@@ exit status 1/' "$PF_RUN" >"$d/2.txt"
	run "${conv[@]}" -v runs=2 "$d/1.txt" "$d/2.txt"
	assert_failure
	assert_output "tools/peer/pre_fault_memory_test.awk: $d/2.txt: the test failed (exit status 1)"
	printf 'Random seed: 0x6b8b4567\ntraced: the kprobes on kvm_vcpu_ioctl could not be set\n' >"$d/2.txt"
	run "${conv[@]}" -v runs=2 "$d/1.txt" "$d/2.txt"
	assert_failure
	assert_output "tools/peer/pre_fault_memory_test.awk: $d/2.txt: no \"@@ trace\" line (did the probes or the run fail?)"
	sed '/5\.185042: pf_enter/q' "$PF_RUN" >"$d/2.txt"
	echo '@@ exit status 0' >>"$d/2.txt"
	run "${conv[@]}" -v runs=2 "$d/1.txt" "$d/2.txt"
	assert_failure
	assert_output "tools/peer/pre_fault_memory_test.awk: $d/2.txt: an ioctl of pid 68 did not return in the trace"
	sed 's/^\(.*4\.683015: pf_exit\)/CPU:1 [LOST 3 EVENTS]\n\1/' "$PF_RUN" >"$d/2.txt"
	run "${conv[@]}" -v runs=2 "$d/1.txt" "$d/2.txt"
	assert_failure
	assert_output "tools/peer/pre_fault_memory_test.awk: $d/2.txt: line 17: not a line of the trace: CPU:1 [LOST 3 EVENTS]"
	run "${conv[@]}" -v runs=3 "$d/1.txt" "$d/1.txt"
	assert_failure
	assert_output "tools/peer/pre_fault_memory_test.awk: 2 runs read, expected 3 (an empty file?)"
}

@test "tools/peer.sh --test pre_fault_memory_test: a base or arch whose selftests lack it is one line, exit 2, before any boot" {
	local a out=$BATS_TEST_TMPDIR/peer
	[[ -f /usr/src/linux-source-6.1.tar.xz && -f /usr/src/linux-source-6.12.tar.xz ]] ||
		fail "no linux-source-6.1 and 6.12 (ci/deps.sh installs them)"
	run --separate-stderr "$ROOT/tools/peer.sh" --test pre_fault_memory_test --arch x86_64 --out "$out"
	assert_equal "$status" 2
	assert_equal "$output" ""
	assert_equal "$stderr" "tools/peer.sh: error: --test pre_fault_memory_test: linux-source-6.1's selftests do not build it for x86_64 (no 'TEST_GEN_PROGS_x86_64 += pre_fault_memory_test' in tools/testing/selftests/kvm/Makefile)"
	run --separate-stderr "$ROOT/tools/peer.sh" --test pre_fault_memory_test --kernel 6.12 --arch arm64 --out "$out"
	assert_equal "$status" 2
	assert_equal "$stderr" "tools/peer.sh: error: --test pre_fault_memory_test: linux-source-6.12's selftests do not build it for arm64 (no 'TEST_GEN_PROGS_aarch64 += pre_fault_memory_test' in tools/testing/selftests/kvm/Makefile)"
	assert_not_exists "$out"
	# Its one size is the test's own.
	for a in "-v 2" "-b 4m"; do
		# shellcheck disable=SC2086 # the option and its value
		run --separate-stderr "$ROOT/tools/peer.sh" --test pre_fault_memory_test --kernel 6.12 $a
		assert_equal "$status" 2
		assert_equal "$stderr" "tools/peer.sh: error: ${a%% *}: pre_fault_memory_test has its own size (one vCPU, 2 MiB + 4 KiB), not settable"
	done
}

@test "tools/peer.sh: bad input is one line naming the option, exit 2; --help on stdout" {
	local a
	for a in "-z" "--vcpus 2" "-v 0" "-v 65" "-i 1" "-b 12x" "--mode ring" \
		 "--runs 0" "--arch ppc64" "--timeout soon" "--runs" \
		 "--test frob_test" "--uffd-mode major --test demand_paging_test" \
		 "-s tmpfs --test demand_paging_test" "--uffd-mode minor --test demand_paging_test" \
		 "--uffd-mode minor" "-s tmpfs" "-e --test demand_paging_test" \
		 "-v 2 --test memslot_perf_test" "-b 3m --test memslot_perf_test" \
		 "-b 1g --test memslot_perf_test" "-i 3 --test memslot_perf_test" \
		 "-g --test access_tracking_perf_test" "-s shmem --test access_tracking_perf_test" \
		 "--mode get --test demand_paging_test"; do
		# shellcheck disable=SC2086 # the option and its value
		run --separate-stderr "$ROOT/tools/peer.sh" $a
		assert_equal "$status" 2
		[[ -z $output ]] || fail "$a: stdout '$output'"
		[[ $stderr == "tools/peer.sh: error: "*"${a%% *}"* && $stderr != *$'\n'* ]] ||
			fail "$a: not one line naming ${a%% *}: '$stderr'"
	done
	run --separate-stderr "$ROOT/tools/peer.sh" -z
	assert_equal "$stderr" "tools/peer.sh: error: unknown option '-z' (see --help)"
	run --separate-stderr "$ROOT/tools/peer.sh" --test memslot_perf_test -i 3
	assert_equal "$stderr" "tools/peer.sh: error: -i: dirty_log_perf_test's, not memslot_perf_test's"
	run --separate-stderr "$ROOT/tools/peer.sh" --help
	assert_success
	assert_line --regexp '^   tools/peer.sh \[--test T\] \[--kernel 6\.1\|6\.12\] \[--arch x86_64\|arm64\]'
	assert_line --partial 'pre_fault_memory_test'
	assert_equal "$stderr" ""
	run --separate-stderr "$ROOT/tools/peer.sh" --test demand_paging_test --uffd-mode minor
	assert_equal "$stderr" "tools/peer.sh: error: --uffd-mode minor: -s anonymous has no file (use shmem or shared_hugetlb)"
}

@test "tools/peer/memslot_perf_test.awk: the move tests' lines as a memslot document, a move half a loop; a missing line, another test or run, the test's refusal or a result twice fails" {
	local d=$BATS_TEST_TMPDIR conv
	conv=(awk -v vcpus=1 -v bytes=16777216 -v kernel=6.1.0 -v mmu=tdp_mmu
	      -f "$ROOT/tools/peer/common.awk"
	      -f "$ROOT/tools/peer/memslot_perf_test.awk")
	printf '%s\n' 'Testing move active area performance with 1 runs, 1 seconds each' \
		'Test took 0.010000000s for slot setup + 1.000100000s all iterations' \
		'Done 1000 iterations, avg 0.001000100s each' \
		'Best runtime result was 0.001000100s per iteration (with 1000 iterations)' '' \
		'Testing move inactive area performance with 1 runs, 1 seconds each' \
		'Test took 0.010000000s for slot setup + 1.000000000s all iterations' \
		'Done 250 iterations, avg 0.004000000s each' >"$d/1.txt"
	run "${conv[@]}" -v runs=1 "$d/1.txt"
	assert_success
	echo "$output" >"$d/peer.json"
	assert_json "$d/peer.json" '.scenario == "memslot" and .env.program == "memslot_perf_test" and
		.results.runs[0].memslot.by_op.move_active.loops == 1000 and
		.results.runs[0].memslot.by_op.move_inactive.loops == 250'
	assert_json_eq "$d/peer.json" '.results.runs[0].memslot.by_op.move_active.ms_mean' 0.50005
	assert_json_eq "$d/peer.json" '.results.runs[0].memslot.by_op.move_inactive.ms_mean' 2
	head -n 4 "$d/1.txt" >"$d/2.txt"
	run "${conv[@]}" -v runs=1 "$d/2.txt"
	assert_failure
	assert_output "tools/peer/memslot_perf_test.awk: $d/2.txt: no \"Done ... iterations\" line for move inactive area (did the peer fail, or run other tests?)"
	sed 's/move inactive area/RW/' "$d/1.txt" >"$d/3.txt"
	run "${conv[@]}" -v runs=1 "$d/3.txt"
	assert_failure
	assert_output "tools/peer/memslot_perf_test.awk: $d/3.txt: line 8: a result of \"RW\", not a move test"
	run "${conv[@]}" -v runs=2 "$d/1.txt"
	assert_failure
	assert_output "tools/peer/memslot_perf_test.awk: 1 runs read, expected 2 (an empty file?)"
	# The test's own refusal, with its exit 0; a result given twice.
	printf '%s\n' 'Memslot count too high for this test, decrease the cap (max is 32)' >"$d/4.txt"
	run "${conv[@]}" -v runs=1 "$d/4.txt"
	assert_failure
	assert_output "tools/peer/memslot_perf_test.awk: $d/4.txt: line 1: Memslot count too high for this test, decrease the cap (max is 32)"
	sed -n '1,3p' "$d/1.txt" >"$d/5.txt"
	cat "$d/1.txt" >>"$d/5.txt"
	run "${conv[@]}" -v runs=1 "$d/5.txt"
	assert_failure
	assert_output "tools/peer/memslot_perf_test.awk: $d/5.txt: line 6: a second result of \"move active area\""
}

