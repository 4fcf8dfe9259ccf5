#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
# tools/ab.sh's A/A run end to end, the nightly's (ci/nightly's tests
# step runs test/nightly/ after make test): the original against itself,
# two boots a side, alternating.  make test keeps its twin: the same run
# with a series on side B (test/compare.bats), and an A/A experiment's
# pooling in the store on fixtures (test/baseline.bats).
load ../helpers

@test "ab.sh: an A/A run (original against itself) end to end" {
	ab_run original
}
