#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
# The progress line (host/util/progress.h, and tools/ab.sh's): on a
# terminal, what runs, k/N done and the time left, erased before any
# other output, so that the terminal keeps what a pipe gets; nothing at
# all unless stdout and stderr are both terminals.  script(1) gives a
# command a pseudo-terminal, here or in the nested kernel (tty_run).
# MMUBENCH_PROGRESS_AFTER_MS=0 takes away the line's 2 s delay, so that
# the runs here can be short.
load helpers

PT=$O/san/progress-test

# OUTPUT of a command on a terminal: COMMAND run by script(1).
on_tty() { # COMMAND
	run script -qec "$1" /dev/null
}

# What a terminal keeps of stdin: the line's draws and erasures ("\r",
# text, ESC [K) taken out, and the pseudo-terminal's "\r" before "\n".
kept() {
	perl -pe 's/\r[^\r\n]*\e\[K//g; s/\r$//'
}

# The line was drawn only at the start of a line and erased before the
# next output: no draw followed by anything but another "\r" or the end.
assert_clean_draws() { # TEXT
	local bad
	bad=$(perl -0777 -ne 'print "$&\n" while /\r[^\r\n]+\e\[K(?!\r|$)/g' <<<"$1")
	[[ -z $bad ]] || fail "a line not erased before other output: $(cat -A <<<"$bad")"
}

# Without a terminal: no "\r" other than a pseudo-terminal's before
# "\n", no ESC, no "done".
refute_progress() { # TEXT
	local bad
	bad=$(perl -0777 -ne 'print "$&\n" while /\r(?!\n)|\e|done,|\/[0-9]+ done/g' <<<"$1")
	[[ -z $bad ]] || fail "progress where there must be none: $(cat -A <<<"$bad")"
}

# Numbers vary from run to run, and so do the columns' widths: compare
# the shape of the output.
shape() {
	sed -E 's/-?[0-9]+(\.[0-9]+)?/N/g; s/ +/ /g'
}

# The line is drawn only where this machine's /dev/kvm runs the guest:
# the nested kernels have no terminal.  The module itself is tested by
# progress-test on every machine.
# tty_run TAG ARGS...: mmubench ARGS on a terminal, the line at once,
# where a guest runs: this machine's /dev/kvm, else the nested kernel,
# where util-linux's script (carried in, with its libraries) makes the
# terminal and the console brings its bytes back unchanged.  Nested,
# every run of the file is made in one boot (setup_file): TAG names its.
tty_run() { # TAG ARGS...
	local tag=$1
	shift
	if [[ $MMUB_DIRECT == 1 ]]; then
		MMUBENCH_PROGRESS_AFTER_MS=0 on_tty "$MMUBENCH $* --guest $GUEST"
		return
	fi
	require_nested
	nested_case "$tag" tty
}

# piped_run TAG ARGS...: the same run, its output a pipe.
piped_run() { # TAG ARGS...
	local tag=$1
	shift
	if [[ $MMUB_DIRECT == 1 ]]; then
		run "$MMUBENCH" "$@" --guest "$GUEST"
		return
	fi
	require_nested
	nested_case "$tag" pipe
}

# The nested runs: each case on a terminal and in a pipe, between marker
# lines, in one boot.
CASES=(
	"repeat|touch -v 2 -b 16m --repeat 4"
	"table-dl|dirty-log --table enable -b 8m --repeat 2"
	"table-zap|zap --table same4,c4 -v 2 -b 16m --zap-count 20 --no-kprobes --repeat 2"
	"table-mig|migrate --table -v 2 -b 4m --fraction 0.25 --repeat 2"
	"scale|scale --sizes 4m,8m,16m --vcpu-counts 1"
)
setup_file() {
	local c sh='' t0=$EPOCHREALTIME
	[[ $MMUB_DIRECT != 1 && $MMUB_NESTED == 1 && $MMUB_TIER != check ]] || return 0
	for c in "${CASES[@]}"; do
		sh+="
echo '@@CASE ${c%%|*} tty@@'
MMUBENCH_PROGRESS_AFTER_MS=0 ./script -qec '/root/mmubench ${c#*|} --guest /root/guest.elf' /dev/null
printf '\\n@@RC %s@@\\n' \$?
echo '@@CASE ${c%%|*} pipe@@'
/root/mmubench ${c#*|} --guest /root/guest.elf 2>&1
printf '\\n@@RC %s@@\\n' \$?"
	done
	env MMUBENCH_KVM=nested "$ROOT/tools/kvm-exec.sh" --arch "$ARCH" \
		--file "$(command -v script)" --sh "$sh" "$MMUBENCH" "$GUEST" \
		>"$BATS_FILE_TMPDIR/cases.out" 2>&1
	echo "$?" >"$BATS_FILE_TMPDIR/cases.rc"
	printf '# one boot (every nested case): %.0f s\n' "$(echo "$EPOCHREALTIME - $t0" | bc)" >&3
}

# nested_case TAG tty|pipe: that run's status and output, as run leaves them.
nested_case() {
	local all sec f=$BATS_FILE_TMPDIR/cases
	[[ -f $f.rc ]] || { fail "the nested cases did not run"; return; }
	all=$(<"$f.out")
	[[ $all == *"@@CASE $1 $2@@"$'\n'* ]] ||
		{ fail "no case $1 $2 in the boot (exit $(<"$f.rc")): ${all:0:3000}"; return; }
	sec=${all#*"@@CASE $1 $2@@"$'\n'}
	status=${sec#*$'\n'"@@RC "}
	status=${status%%@@*}
	output=${sec%%$'\n'"@@RC "*}
	# As run leaves them: trailing newlines gone, empty lines dropped.
	output=${output%"${output##*[!$'\n']}"}
	IFS=$'\n' read -d '' -r -a lines <<<"$output" || true
}

@test "the line: what runs, k/N done, the time left; the terminal keeps what a pipe gets" {
	local tty piped
	MMUBENCH_PROGRESS_AFTER_MS=0 on_tty "$PT 6 300"
	assert_success
	tty=$output
	assert_output --regexp $'\rprogress-test: step [2-6] of 6 \\([1-5]/6 done, [0-9]+ s left\\)\e\\[K'
	assert_clean_draws "$tty"
	run "$PT" 6 300
	assert_success
	piped=$output
	refute_progress "$piped"
	assert_equal "$(kept <<<"$tty")" "$piped"
	assert_line --index 1 "step 1: first half, second half"
}

@test "a run shorter than the line's delay (2 s) prints no line" {
	unset MMUBENCH_PROGRESS_AFTER_MS
	on_tty "$PT 4 300"
	assert_success
	refute_progress "$output"
	assert_line --partial "progress-test: done"
}

@test "no line unless stdout and stderr are both terminals" {
	local f=$BATS_TEST_TMPDIR/out
	export MMUBENCH_PROGRESS_AFTER_MS=0
	run "$PT" 4 300
	assert_success
	assert_equal "$(grep -c "^step" <<<"$output")" 4
	refute_progress "$output"
	# stdout in a file, stderr on the terminal.
	on_tty "$PT 4 300 >$f"
	assert_success
	refute_progress "$output"
	refute_progress "$(cat "$f")"
	assert_equal "$(grep -c "^step" "$f")" 4
	# stderr in a log, stdout on the terminal.
	on_tty "$PT 4 300 2>$f"
	assert_success
	refute_progress "$output"
	refute_progress "$(cat "$f")"
	assert_equal "$(grep -c "on stderr" "$f")" 4
}

@test "--repeat: run k of N, the runs done and the time left; the runs' output as in a pipe" {
	local cmd=(touch -v 2 -b 16m --repeat 4) tty
	tty_run repeat "${cmd[@]}"
	assert_success
	tty=$output
	assert_output --regexp $'\rtouch: run [2-4] of 4 \\([1-3]/4 done, [0-9]+ s left\\)(: [a-z0-9]+)?\e\\[K'
	assert_clean_draws "$tty"
	piped_run repeat "${cmd[@]}"
	assert_success
	refute_progress "$output"
	# Which KVM stats changed varies from run to run: all but those.
	assert_equal "$(kept <<<"$tty" | grep -Ev '^  (vm|vcpu) ' | shape)" \
		"$(grep -Ev '^  (vm|vcpu) ' <<<"$output" | shape)"
	assert_equal "$(grep -c '^run [1-4]/4: boot' <<<"$output")" 4
}

@test "--table (dirty-log, zap, migrate): the row and run on the line; the table as in a pipe" {
	local t cmd=() tty tag
	for t in "table-dl|dirty-log --table enable -b 8m --repeat 2|dirty-log --table: (4K|2M|1G) [a-z-]+, run [12] of 2 \\([0-9]+/(18|12|6) done, [0-9]+ s left\\)" \
		"table-zap|zap --table same4,c4 -v 2 -b 16m --zap-count 20 --no-kprobes --repeat 2|zap --table: (same4|c4), run [12] of 2 \\([123]/4 done, [0-9]+ s left\\)" \
		"table-mig|migrate --table -v 2 -b 4m --fraction 0.25 --repeat 2|migrate --table: (4K|2M|1G), run [12] of 2 \\([0-9]/[246] done, [0-9]+ s left\\)"; do
		tag=${t%%|*}
		t=${t#*|}
		read -ra cmd <<<"${t%%|*}"
		tty_run "$tag" "${cmd[@]}"
		assert_success
		tty=$output
		assert_output --regexp $'\r'"${t#*|}"
		assert_clean_draws "$tty"
		piped_run "$tag" "${cmd[@]}"
		assert_success
		refute_progress "$output"
		assert_equal "$(kept <<<"$tty" | shape)" "$(shape <<<"$output")"
	done
}

@test "scale: the block and size on the line, the time left weighed by size" {
	local cmd=(scale --sizes 4m,8m,16m --vcpu-counts 1) tty
	tty_run scale "${cmd[@]}"
	assert_success
	tty=$output
	assert_output --regexp $'\rscale: (4K|2M) pages, 1 vCPU, (4M|8M|16M) \\([1-5]/6 done, [0-9]+ s left\\)'
	assert_clean_draws "$tty"
	piped_run scale "${cmd[@]}"
	assert_success
	refute_progress "$output"
	# Which figure is flagged as superlinear varies from run to run.
	assert_equal "$(kept <<<"$tty" | grep -v FLAG | shape)" \
		"$(grep -v FLAG <<<"$output" | shape)"
}

# tools/ab.sh is shell: its own line, in the same words.  An A/A run of one
# boot a side, on the nested kernel (test/kernels.bats builds it).
@test "ab: which kernel's run boots, the runs done and the time left" {
	require_series original
	local out=$BATS_TEST_TMPDIR/ab
	MMUBENCH_PROGRESS_AFTER_MS=0 on_tty "$ROOT/tools/ab.sh --series original --arch $ARCH --repeat 1 --out $out --mmubench $MMUBENCH --guest $GUEST -- zap --zap same4 -v 1 -b 8m --zap-count 20 --no-kprobes"
	assert_success
	ab_redone "$out"
	assert_output --regexp $'\rab: A kernel run 1/1 \\(original\\) \\(0/2 done\\)\e\\[K\r\e\\[K'
	assert_output --regexp $'\rab: B kernel run 1/1 \\(original\\) \\(1/2 done, [0-9]+ s left\\)\e\\[K\r\e\\[K'
	assert_clean_draws "$output"
	# The comparison, as printed to a pipe (compare.txt).
	output=$(kept <<<"$output")
	assert_output --partial "$(cat "$out/compare.txt")"
}
