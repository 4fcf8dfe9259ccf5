# SPDX-License-Identifier: GPL-2.0
#
# What every converter of tools/peer/ shares, loaded before it:
#
#   awk -v runs=R ... -f tools/peer/common.awk -f tools/peer/TEST.awk RUN1.txt...
#
# TEST.awk sets conv (its own name, for messages) first in its BEGIN and
# defines finish(), which checks the run read from the file named in
# "file", appends it to "out" and counts it in nruns.  Here: fail(), the
# one way out on bad input (exit 1, no document); need_sizes() for the
# -v values; ms() and need() for the tests' timing lines; jstr();
# finish() at each file's end; and, before TEST.awk's END prints the
# document, the check that R files of runs were read, so that a missing
# figure or run never becomes a smaller sample.

function fail(msg) {
	printf "%s: %s\n", conv, msg >"/dev/stderr"
	failed = 1
	exit 1
}

# The selftests' times, "0.853677890s", in ms: "853.677890".
function ms(word) {
	if (word !~ /^[0-9]+\.[0-9]+s$/)
		fail(FILENAME ": line " FNR ": not a time in seconds: " word)
	sub(/s$/, "", word)
	return sprintf("%.6f", word * 1000)
}

# A line the run in "file" must have had (its value @v, empty if not).
function need(what, v) {
	if (v == "")
		fail(file ": no \"" what "\" line (did the peer fail?)")
}

# The -v runs, vcpus and bytes of a converter (but dirty_log_perf_test's,
# which takes 0 and iterations too): numbers, 1 or more.
function need_sizes() {
	if (runs !~ /^[1-9][0-9]*$/ || vcpus !~ /^[1-9][0-9]*$/ ||
	    bytes !~ /^[1-9][0-9]*$/)
		fail("-v runs, vcpus and bytes must be numbers")
}

# A JSON string's content.
function jstr(s) {
	gsub(/[\\"]/, "\\\\&", s)
	return s
}

FNR == 1 {
	if (file != "")
		finish()
	file = FILENAME
}

# Runs before TEST.awk's END: an exit here ends awk without it.
END {
	if (failed)
		exit 1
	if (file == "")
		fail("no input: expected the peer's output, one file per run")
	finish()
	if (nruns != runs)
		fail(nruns " runs read, expected " runs " (an empty file?)")
}
