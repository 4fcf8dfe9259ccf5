#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
# test/run.sh, the runner itself: make check runs its files side by side
# (one a CPU) and still prints each file's TAP whole, in the files'
# order, and counts what each file passed, failed and skipped.
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
