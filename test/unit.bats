#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
# The shared code (parsers, histogram, layout, page tables) on its own,
# and the host's kvm parameter handling against stand-in files.
load helpers

@test "unit tests of the code shared by guest and host pass" {
	run "$O/san/unit-tests"
	assert_success
	assert_output --partial "ok: 0 failures"
}

@test "a kvm parameter set for a run comes back; one that cannot be written is left alone" {
	# Stand-in parameters in a temporary directory, one of them a proc
	# file that even root cannot write (kvm_pvm's read-only parameters).
	# In the test's own directory (TMPDIR), which bats removes however
	# the test ends; a passing run leaves nothing there.
	run env TMPDIR="$BATS_TEST_TMPDIR" "$O/san/params-test"
	assert_success
	assert_line "ok: ratio restored to its first value, 60"
	assert_line --partial "ok: kvm.locked cannot be set to 1:"
	assert_line "params-test: 0 failures"
	# Nothing was changed, so nothing is "restored" at exit.
	refute_output --partial "could not restore"
	assert_equal "$(ls -A "$BATS_TEST_TMPDIR")" ""
}

@test "the NX worker's runtime: read from schedstat; a failed read is an error with its file, never a value" {
	run env TMPDIR="$BATS_TEST_TMPDIR" "$O/san/nx-worker-test"
	assert_success
	assert_line --regexp "^why: $BATS_TEST_TMPDIR/nxw\\.[^/]+/schedstat: No such file or directory "
	assert_equal "$(ls -A "$BATS_TEST_TMPDIR")" ""
	assert_line "ok: 0 failures"
}

@test "arm64's stage-2 dump: mappings counted by size in the test memory only; a malformed or short dump is an error, never a count" {
	run "$O/san/stage2-dump-test"
	assert_success
	assert_line "slot: 1024/2/0 "
	assert_line "why 0: the stage-2 dump stops at 0x0, before the end of the memory counted (0x80800000)"
	assert_line --partial 'why 2: an unreadable line in the stage-2 dump: "0x0000000080000000-0x0000000080800000 '
	assert_line "why 6: the stage-2 dump stops at 0x80400000, before the end of the memory counted (0x80800000)"
	assert_line --partial 'why 4: an unreadable line in the stage-2 dump: "0x0000000080001000-0x0000000080201000 '
	assert_line --partial 'why 7: a line of the stage-2 dump not starting where the last one ended (0x80000000): "0x0000000080200000-'
	assert_line --partial 'why 8: a line of the stage-2 dump not starting where the last one ended (0x80400000): "0x0000000080000000-'
	assert_line "ok: 0 failures"
}
