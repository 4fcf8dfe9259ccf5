#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
# The shared code (parsers, histogram, layout, page tables) on its own.
load helpers

@test "unit tests of the code shared by guest and host pass" {
	run "$O/san/unit-tests"
	assert_success
	assert_output --partial "ok: 0 failures"
}
