#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
# test/run.sh, the runner itself, on stand-in files (test/fixtures/runner/)
# and no VM: its files side by side (one a CPU), each file's TAP whole and
# in order, and its accounting: what each file passed, failed and
# skipped; a host setting or a test-only kernel left behind, tests that
# never reported, a bats that failed with no test failing, and retries
# past the budget, each counted as a failure and named.
load helpers

@test "make check's files side by side: each file's TAP whole and in order, its failures and skips counted" {
	MMUB_RESULTS=$BATS_TEST_TMPDIR/results MMUB_LANES=2 \
		run "$ROOT/test/run.sh" --check test/fixtures/runner/pass.bats test/fixtures/runner/fail.bats
	assert_failure 1
	assert_line --regexp '^# host settings compared before and after all the files \(they run 2 at a time\): [0-9]+ '
	assert_line "3 passed, 1 failed, 1 skipped"
	# pass.bats (its sleep makes it end last) whole, then fail.bats.
	local tap
	tap=$(grep -E '^(not )?ok |^1\.\.' <<<"$output" | sed 's/ # in [0-9]* ms$//')
	assert_equal "$tap" "1..3
ok 1 fixture pass one
ok 2 fixture pass two
ok 3 fixture skip # skip a fixture's skip
1..2
ok 1 fixture pass three
not ok 2 fixture fail"
	assert_line --regexp '^#   the files, 2 at a time \(wall\) +[0-9.]+$'
	[[ -f $BATS_TEST_TMPDIR/results/pass.xml && -f $BATS_TEST_TMPDIR/results/fail.xml ]] ||
		fail "no JUnit XML for each file in $BATS_TEST_TMPDIR/results"
}

@test "side by side, the slowest file of the last whole run starts first; each says when it ends" {
	local r=$BATS_TEST_TMPDIR/results
	mkdir -p "$r"
	printf 'pass.bats\t1.5\nfail.bats\t30\nthe files, 2 at a time (wall)\t31\n' >"$r/times.tsv"
	MMUB_RESULTS=$r MMUB_LANES=2 \
		run "$ROOT/test/run.sh" --check test/fixtures/runner/pass.bats test/fixtures/runner/fail.bats
	assert_failure 1
	assert_line --regexp '^# fail\.bats done in [0-9]+ s \(bats exited 1\)$'
	assert_line --regexp '^# pass\.bats done in [0-9]+ s \(bats exited 0\)$'
	# fail.bats, the slower last time, first: its TAP before pass.bats'.
	local tap
	tap=$(grep -E '^1\.\.' <<<"$output" | tr '\n' ' ')
	assert_equal "$tap" "1..2 1..3 "
	assert_line "3 passed, 1 failed, 1 skipped"
}

# runner FILE...: test/run.sh --check on fixtures, one by one unless
# MMUB_LANES says otherwise, with its results, a stand-in host and a
# stand-in kernel cache in the test's directory.
runner() {
	local d=$BATS_TEST_TMPDIR
	mkdir -p "$d/host/sys/kernel/mm/hugepages/hugepages-2048kB" "$d/cache"
	echo 0 >"$d/host/sys/kernel/mm/hugepages/hugepages-2048kB/nr_hugepages"
	MMUB_FIXTURE=1 HOST_STATE_ROOT=$d/host MMUBENCH_CACHE=$d/cache \
		MMUB_RESULTS=$d/results MMUB_LANES=${MMUB_LANES:-1} \
		run "$ROOT/test/run.sh" --check "${@/#/test/fixtures/runner/}"
}

@test "a file that leaves a host setting changed fails, named, one by one and side by side" {
	local f=/sys/kernel/mm/hugepages/hugepages-2048kB/nr_hugepages
	runner host.bats pass.bats
	assert_failure 1
	assert_line "# test/fixtures/runner/host.bats: left the host changed (counted as one failure):"
	assert_line "#   $f: was 0, now 4"
	refute_line --partial "pass.bats: left the host changed"
	assert_line "3 passed, 1 failed, 1 skipped"
	MMUB_LANES=2 runner host.bats pass.bats
	assert_failure 1
	assert_line "# the files: left the host changed (counted as one failure):"
	assert_line "#   $f: was 0, now 4"
	assert_line "3 passed, 1 failed, 1 skipped"
}

@test "a file that leaves a test-only kernel in the cache fails, naming it" {
	runner kernel.bats
	assert_failure 1
	assert_line "# test/fixtures/runner/kernel.bats: left test-only kernels in the kernel cache (counted as one failure):"
	assert_line "#   $BATS_TEST_TMPDIR/cache/kernel/trees/6.1/test-fixture-x86_64"
	assert_line "1 passed, 1 failed, 0 skipped"
}

@test "more announced retries than MMUB_MAX_RETRIES is one failure" {
	MMUB_MAX_RETRIES=1 runner retries.bats
	assert_failure 1
	assert_line "retries: 2 (at most 1)"
	assert_line "# more retries than 1: counted as one failure"
	assert_line "2 passed, 1 failed, 0 skipped"
	# At the budget: no failure.
	MMUB_MAX_RETRIES=2 runner retries.bats
	assert_success
	assert_line "retries: 2 (at most 2)"
	assert_line "2 passed, 0 failed, 0 skipped"
}

@test "a file whose tests never all report, or whose bats fails with none failing, is counted failed" {
	runner noplan.bats killed.bats
	assert_failure 1
	assert_line "# test/fixtures/runner/noplan.bats: 1 of its 3 tests never reported: counted as failed"
	assert_line "# test/fixtures/runner/killed.bats: bats exited 1 without a failing test: counted as one failure"
	assert_line "4 passed, 2 failed, 0 skipped"
}
