#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
# The long sweeps of the dirty-log oracle, the nightly's (ci/nightly's
# tests step runs test/nightly/ after make test): 1000 concurrent rounds
# a mode, on both bases' TDP MMU and arm64's ring.  make test keeps their
# short twins, 20 rounds a mode, and makes the oracle fire there
# (test/dirty_log.bats); a race that needs more rounds to show is this
# file's to find.
load ../helpers

MODES="get clear clear-init-set ring ring-acq-rel"
ROUNDS=1000

# A sweep is 5 modes x 1000 rounds: about 5 minutes a kernel nested.
BATS_TEST_TIMEOUT=2400

sweep_sh() { # MODES
	local m
	for m in $1; do
		echo "one $m dirty-log -v 2 -b 4m -i 2 --fraction 0.5 --mode $m --verify --rounds $ROUNDS"
	done
}

setup_file() {
	batch_add x86-61 --nested --timeout 1800 -- "$(sweep_sh "$MODES")"
	batch_add x86-612 --base 6.12 --timeout 1800 -- "$(sweep_sh "$MODES")"
	batch_add a64-612 --arch arm64 --base 6.12 --timeout 1800 -- "$(sweep_sh "clear-init-set ring-acq-rel")"
	batch_add a64-61 --arch arm64 --base 6.1 --timeout 1800 -- "$(sweep_sh clear-init-set)"
	batch_boots
}

# swept BATCH MODES: every mode's sweep missed nothing and reported
# nothing that was not written, in all its harvests; its 32 cold pages
# (2048 pages, one in each 64-page word) all in init-set's first
# harvest, and none reported dirty in any other.
swept() {
	local m req
	batch "$1"
	assert_success
	for m in $2; do
		assert_line "RESULT $m rc=0"
		[[ $m == clear-init-set ]] && req=32 || req=0
		result_json "$m" | assert_json - '.results.runs[0].dirty_log.verify |
			.harvests == $n + 4 and .changed > 0 and .missed == 0 and
			.false_positives == 0 and .sentinels > 0 and
			.cold_pages == 32 and .cold_required == $req and
			.cold_missed == 0 and .cold_false_reports == 0' \
			--argjson n "$ROUNDS" --argjson req "$req"
		echo "# $1 $m: $(result_json "$m" | jq -c '.results.runs[0].dirty_log.verify |
			{harvests, changed, missed, sentinels, cold_pages, cold_required, cold_missed, cold_false_reports}')" >&3
	done
}

@test "the oracle over 1000 concurrent rounds a mode, nested TDP MMU (6.1)" {
	require_nested
	swept x86-61 "$MODES"
}

@test "the oracle over 1000 concurrent rounds a mode, nested TDP MMU (6.12)" {
	require_series original x86_64 6.12
	swept x86-612 "$MODES"
}

@test "the oracle over 1000 concurrent rounds, arm64 6.12's init-set and ring" {
	require_series original arm64 6.12
	swept a64-612 "clear-init-set ring-acq-rel"
}

@test "the oracle over 1000 concurrent rounds, arm64 6.1's init-set" {
	require_series original arm64 6.1
	swept a64-61 clear-init-set
}
