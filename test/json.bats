#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
# The JSON document: every field users compare runs with.
load helpers

@test "--json writes scenario, config, env and results, atomically" {
	require_kvm
	local j=$BATS_TEST_TMPDIR/touch.json
	mmub touch -v 2 -b 8m -i 2 --repeat 2 --json "$j"
	assert_success
	assert_json "$j" '.scenario == "touch" and .config.vcpus == 2 and
		.config.vcpu_bytes == 8388608 and .config.backing == "anonymous"
		and (.env.kernel | length > 0) and (.env.mmubench_version | length > 0)
		and (.env.kvm_params.kvm | has("tdp_mmu")) and .env.guest_clock_hz > 0
		and .env.cpus == '"$(nproc)"'
		and (.results.runs | length == 2)
		and ([.results.runs[0].phases[].name] == ["populate", "iter1", "iter2"])
		and (.results.runs[0].phases[0].vcpus | length == 2)
		and .results.runs[0].phases[0].vcpus[0].latency_ns.p99 > 0
		and .results.runs[0].phases[0].vm_stats.pages_4k > 0
		and .results.runs[0].phases[0].vcpu_stats.pf_fixed > 0'
	run compgen -G "$j.tmp.*"
	assert_failure
}

@test "the JSON assertions fail on missing, empty, null and false input" {
	local f=$BATS_TEST_TMPDIR/x.json
	# Each must fail; "run" catches the failure.
	run assert_json "$f" 'true'
	assert_failure
	assert_output --partial "missing or empty"
	: >"$f"
	run assert_json "$f" 'true'
	assert_failure
	run assert_json - '.a' <<<''
	assert_failure
	assert_output --partial "empty JSON input"
	run assert_json - '.a == 1' <<<'{"a": null}'
	assert_failure
	run json_val - '.a' <<<'{"b": 1}'
	assert_failure
	assert_output --partial "is null"
	run json_val - '.a' <<<'not json'
	assert_failure
	assert_output --partial "not JSON"
	run assert_json_eq - '.a' 0 <<<'{"a": null}'
	assert_failure
	# And pass on the real thing.
	run assert_json - '.a == 1' <<<'{"a": 1}'
	assert_success
	run json_val - '.a' <<<'{"a": 0}'
	assert_success
	assert_output 0
}
