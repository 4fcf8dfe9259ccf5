#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
# The retry rule (ci/retry.sh, used by test/helpers.bash's mmub and by
# ci/ab.sh): only ci/nested/run.sh's marker for a failure of the nested
# setup itself is retried, once, announced; never in direct mode, never
# with an error of mmubench's own in the output.  A fake kvm-exec plays
# the runs back.
load helpers

MARKER='ci/nested/run.sh: nested-infra: QEMU died of signal 11 (SEGV) after 12.3 s'

setup() {
	FAKE=$BATS_TEST_TMPDIR/fake
	mkdir -p "$FAKE"
	echo 0 >"$FAKE/n"
	cat >"$FAKE/kvm-exec" <<'SH'
#!/bin/bash
# Replays the runs queued with "queue RC OUTPUT", one per call.
d=$(dirname "$0")
n=$(($(<"$d/n") + 1))
echo "$n" >"$d/n"
cat "$d/out.$n"
exit "$(<"$d/rc.$n")"
SH
	chmod +x "$FAKE/kvm-exec"
	export KVM_EXEC=$FAKE/kvm-exec MMUB_NESTED=1
}

queue() { # RC OUTPUT: the next run's status and output
	local n=$(($(ls "$FAKE" | grep -c '^rc\.') + 1))
	echo "$1" >"$FAKE/rc.$n"
	printf '%s\n' "$2" >"$FAKE/out.$n"
}

calls() { cat "$FAKE/n"; }

@test "retry rule: the runner's marker alone earns one announced retry, in nested mode" {
	queue 125 "$MARKER"
	queue 0 "run 2 ok"
	mmub --nested touch -b 4m 3>"$FAKE/fd3"
	assert_success
	assert_output "run 2 ok"
	assert_equal "$(calls)" 2
	assert_equal "$(cat "$FAKE/fd3")" "# retried: nested-infra: QEMU died of signal 11 (SEGV) after 12.3 s"
}

@test "retry rule: at most once; the second failure stands" {
	queue 125 "$MARKER"
	queue 125 "$MARKER"
	queue 0 "never reached"
	mmub --nested touch -b 4m 3>/dev/null
	assert_equal "$status" 125
	assert_equal "$(calls)" 2
}

@test "retry rule: never in direct mode" {
	queue 125 "$MARKER"
	queue 0 "never reached"
	MMUB_DIRECT=1 mmub touch -b 4m 3>/dev/null
	assert_equal "$status" 125
	assert_equal "$(calls)" 1
}

@test "retry rule: never with an error of mmubench's own (a missed page, a watchdog)" {
	queue 1 "$MARKER"$'\n'"mmubench: --verify: 1 page missed, first slot 1 gfn 0x12"
	queue 0 "never reached"
	mmub --nested dirty-log --verify 3>/dev/null
	assert_equal "$status" 1
	assert_equal "$(calls)" 1
	run nested_infra_failure <<<"mmubench: watchdog: vCPU 0 made no progress for 30 s (state busy, --watchdog 30) while running a command: RIP=0xffffffff8130182c"
	assert_failure
}

@test "retry rule: symptoms named anywhere in the output are not the marker" {
	queue 1 "mmubench: vCPU 0: guest shut down (triple fault: an exception before its IDT was loaded)"
	queue 0 "never reached"
	mmub --nested touch -b 4m 3>/dev/null
	assert_equal "$status" 1
	assert_equal "$(calls)" 1
	run nested_infra_failure <<<"the L1 guest died; see nested-infra: QEMU died of signal 11"
	assert_failure
	run nested_infra_failure <<<"$MARKER"
	assert_success
	assert_output "QEMU died of signal 11 (SEGV) after 12.3 s"
}

# ci/ab.sh's own redo, as its time.txt records it, counts as a retry.
@test "ab_redone: each run ci/ab.sh redid is announced; a time.txt without the count fails" {
	local d=$BATS_TEST_TMPDIR/ab
	mkdir -p "$d"
	printf '%s\n' "where the time went (seconds):" \
		"runs redone for the nested setup's own failures: 2" \
		"  A-1: nested-infra: QEMU died of signal 11 (SEGV) after 12.3 s" \
		"  B-3: nested-infra: QEMU died of signal 6 (ABRT) after 2.0 s" >"$d/time.txt"
	run ab_redone "$d" 3>"$FAKE/fd3"
	assert_success
	assert_equal "$(grep -c '^# retried: ab.sh: ' "$FAKE/fd3")" 2
	printf '%s\n' "runs redone for the nested setup's own failures: 0" >"$d/time.txt"
	run ab_redone "$d" 3>"$FAKE/fd3"
	assert_success
	assert_equal "$(cat "$FAKE/fd3")" ""
	# Two counted, one named: the count and the names disagree.
	printf '%s\n' "runs redone for the nested setup's own failures: 2" \
		"  A-1: nested-infra: QEMU died of signal 11 (SEGV) after 12.3 s" >"$d/time.txt"
	run ab_redone "$d" 3>"$FAKE/fd3"
	assert_failure
	assert_output --partial "2 runs redone, not as many named"
	: >"$d/time.txt"
	run ab_redone "$d" 3>"$FAKE/fd3"
	assert_failure
	assert_output --partial "no count of the runs redone"
}
