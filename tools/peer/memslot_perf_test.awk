# SPDX-License-Identifier: GPL-2.0
#
# The kernel's memslot_perf_test, its move tests (-f 3 -e 4: "move active
# area", "move inactive area"), as an mmubench "memslot" document, so
# that "mmubench compare" reads it beside "mmubench memslot": one file of
# output per run, each run one element of results.runs.
#
#   awk -v runs=R -v vcpus=1 -v bytes=B -v kernel=K -v mmu=U \
#       -f tools/peer/common.awk -f tools/peer/memslot_perf_test.awk RUN1.txt... \
#       >peer.json
#
# B is the moved slot's size.  The test's host loop moves its last slot
# to a GPA past its memory and back, two KVM_SET_USER_MEMORY_REGION a
# loop, for the test's seconds; "Done N iterations, avg S.NNNNNNNNNs each"
# is the loop's time over N.  Half of it is one move:
# memslot.by_op.move_active.ms_mean and move_inactive.ms_mean, as
# mmubench names its own moves' mean.  A run without both tests' "Done"
# lines, or other than R files of runs, is an error (exit 1, naming the
# file).

# "0.000812345s" -> milliseconds of one move, or fail.
function move_ms(s) {
	sub(/s$/, "", s)
	if (s !~ /^[0-9]+\.[0-9]+$/ || s + 0 <= 0)
		fail(file ": not a time in seconds: " s)
	return s * 1000 / 2
}

function finish(   sep) {
	if (active == "" || inactive == "")
		fail(file ": no \"Done ... iterations\" line for " \
		     (active == "" ? "move active area" : "move inactive area") \
		     " (did the peer fail, or run other tests?)")
	sep = nruns++ ? ",\n" : ""
	out = out sep sprintf("   {\"memslot\": {\"by_op\": {" \
			      "\"move_active\": {\"ms_mean\": %.6f, \"loops\": %d}, " \
			      "\"move_inactive\": {\"ms_mean\": %.6f, \"loops\": %d}}}}",
			      move_ms(active), nact, move_ms(inactive), ninact)
	active = inactive = test = ""
}

BEGIN {
	conv = "tools/peer/memslot_perf_test.awk"
	need_sizes()
}

/^Testing .* performance with [0-9]+ runs?, [0-9]+ seconds? each$/ {
	test = $0
	sub(/^Testing /, "", test)
	sub(/ performance with .*/, "", test)
	next
}

/^Done [0-9]+ iterations, avg [0-9]+\.[0-9]+s each$/ {
	# One result a test: a second would silently replace the first.
	if ((test == "move active area" && active != "") ||
	    (test == "move inactive area" && inactive != ""))
		fail(FILENAME ": line " FNR ": a second result of \"" test "\"")
	if (test == "move active area") {
		active = $5
		nact = $2
	} else if (test == "move inactive area") {
		inactive = $5
		ninact = $2
	} else {
		fail(FILENAME ": line " FNR ": a result of \"" test "\", not a move test")
	}
	next
}

# "Memslot count too high for this test, ..." and "... may be too high".
/Test Assertion Failure|Memslot count (may be )?too high/ { fail(FILENAME ": line " FNR ": " $0) }

END {
	printf "{\n \"scenario\": \"memslot\",\n"
	printf " \"config\": {\"vcpus\": %d, \"slot_bytes\": %s},\n", vcpus, bytes
	printf " \"env\": {\"program\": \"memslot_perf_test\", \"kernel\": \"%s\", " \
	       "\"mmu\": \"%s\"},\n", jstr(kernel), jstr(mmu)
	printf " \"results\": {\"runs\": [\n%s\n ]}\n}\n", out
}
