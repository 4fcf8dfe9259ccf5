#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
# The retry rule (lib/retry.sh, used by test/helpers.bash's mmub and by
# tools/ab.sh): only lib/nested/run.sh's marker for a failure of the nested
# setup itself is retried, once, announced; never in direct mode, never
# with an error of mmubench's own in the output.  A fake kvm-exec plays
# the runs back.
load helpers

MARKER='lib/nested/run.sh: nested-infra: QEMU was killed (signal 9, KILL) after 12.3 s, before the 600 s timeout: by the OOM killer (dmesg) or a user'

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
	assert_equal "$(cat "$FAKE/fd3")" "# retried: nested-infra: QEMU was killed (signal 9, KILL) after 12.3 s, before the 600 s timeout: by the OOM killer (dmesg) or a user"
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
	run nested_infra_failure <<<"the L1 guest died; see nested-infra: QEMU was killed"
	assert_failure
	run nested_infra_failure <<<"$MARKER"
	assert_success
	assert_output "QEMU was killed (signal 9, KILL) after 12.3 s, before the 600 s timeout: by the OOM killer (dmesg) or a user"
}

# tools/ab.sh's own redo, as its time.txt records it, counts as a retry.
@test "ab_redone: each run tools/ab.sh redid is announced; a time.txt without the count fails" {
	local d=$BATS_TEST_TMPDIR/ab
	mkdir -p "$d"
	printf '%s\n' "where the time went (seconds):" \
		"runs redone for the nested setup's own failures: 2" \
		"  A-1: nested-infra: QEMU was killed (signal 9, KILL) after 12.3 s, before the 600 s timeout: by the OOM killer (dmesg) or a user" \
		"  B-3: nested-infra: QEMU was ended by signal 15 (TERM) from outside after 2.0 s" >"$d/time.txt"
	run ab_redone "$d" 3>"$FAKE/fd3"
	assert_success
	assert_equal "$(grep -c '^# retried: ab.sh: ' "$FAKE/fd3")" 2
	printf '%s\n' "runs redone for the nested setup's own failures: 0" >"$d/time.txt"
	run ab_redone "$d" 3>"$FAKE/fd3"
	assert_success
	assert_equal "$(cat "$FAKE/fd3")" ""
	# Two counted, one named: the count and the names disagree.
	printf '%s\n' "runs redone for the nested setup's own failures: 2" \
		"  A-1: nested-infra: QEMU was killed (signal 9, KILL) after 12.3 s, before the 600 s timeout: by the OOM killer (dmesg) or a user" >"$d/time.txt"
	run ab_redone "$d" 3>"$FAKE/fd3"
	assert_failure
	assert_output --partial "2 runs redone, not as many named"
	: >"$d/time.txt"
	run ab_redone "$d" 3>"$FAKE/fd3"
	assert_failure
	assert_output --partial "no count of the runs redone"
}

# lib/nested/run.sh names how QEMU ended; only a signal from outside gets
# the marker.  A fake qemu-system-x86_64 ends itself with the signal
# (after saying its version, which run.sh records).
@test "lib/nested/run.sh: a QEMU crash is an error, never the marker; a kill from outside is; a kill at the timeout is a timeout" {
	local bin=$BATS_TEST_TMPDIR/bin s
	mkdir -p "$bin"
	printf '#!/bin/bash\n[[ $1 != --version ]] || exec echo "QEMU emulator version 7.2.22"\ntrap "" TERM\nsleep "${FAKE_QEMU_SLEEP:-0}"\nkill -"$FAKE_QEMU_SIGNAL" $$\n' >"$bin/qemu-system-x86_64"
	chmod +x "$bin/qemu-system-x86_64"
	: >"$bin/bzImage"
	for s in ABRT SEGV; do
		FAKE_QEMU_SIGNAL=$s PATH=$bin:$PATH run --separate-stderr \
			"$ROOT/lib/nested/run.sh" --kernel "$bin/bzImage" -- true
		assert_equal "$status" 125
		[[ $stderr =~ "lib/nested/run.sh: error: QEMU crashed (signal "[0-9]+", $s) after "[0-9.]+" s: an emulator failure, which the guest's code may have provoked (not retried)" ]] ||
			fail "$s: $stderr"
		run nested_infra_failure <<<"$stderr"
		assert_failure
	done
	FAKE_QEMU_SIGNAL=KILL PATH=$bin:$PATH run --separate-stderr \
		"$ROOT/lib/nested/run.sh" --kernel "$bin/bzImage" -- true
	assert_equal "$status" 125
	run nested_infra_failure <<<"$stderr"
	assert_success
	assert_output --regexp '^QEMU was killed \(signal 9, KILL\) after [0-9.]+ s, before the 600 s timeout: by the OOM killer \(dmesg\) or a user$'
	# Deaf to TERM, ended by timeout(1)'s KILL 5 s later: a timeout.
	FAKE_QEMU_SIGNAL=KILL FAKE_QEMU_SLEEP=9 PATH=$bin:$PATH run --separate-stderr \
		"$ROOT/lib/nested/run.sh" --timeout 1 --kernel "$bin/bzImage" -- true
	assert_equal "$status" 124
	[[ $stderr == *"timed out after 1 s"* ]] || fail "$stderr"
}
