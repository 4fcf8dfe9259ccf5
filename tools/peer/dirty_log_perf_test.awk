# SPDX-License-Identifier: GPL-2.0
#
# The kernel's dirty_log_perf_test, its stdout as an mmubench "dirty-log"
# document, so that "mmubench compare" reads it beside mmubench's own:
# one file of output per run, each run one element of results.runs.
#
#   awk -v runs=R -v vcpus=N -v bytes=B -v iterations=I -v mode=M \
#       -v kernel=K -v mmu=U -f tools/peer/common.awk \
#       -f tools/peer/dirty_log_perf_test.awk RUN1.txt... >peer.json
#
# M is mmubench's name for what the peer ran: clear-init-set (its
# default, MANUAL_DIRTY_LOG_PROTECT2 with INITIALLY_SET) or get (-g).
# Each "... time: S.NNNNNNNNNs" line becomes milliseconds where mmubench
# keeps the same figure:
#   Populate memory time               phases[name=populate].wall_ms
#   Enabling / Disabling dirty logging dirty_log.enable_ms / disable_ms
#   Iteration N dirty memory time      dirty_log.iterations[N-1].dirty_ms
#   Iteration N get / clear dirty log  dirty_log.iterations[N-1].get_ms
#                                      / clear_ms (clear-init-set only)
# A run without one of those lines, with another number of iterations or
# more than one guest mode, or other than R files of runs, is an error
# (exit 1, naming the file): a missing figure must never become a
# smaller sample.

# Check the run read from "file" and append it to the runs' JSON.
function finish(   i, it, sep) {
	if (guest_modes != 1)
		fail(file ": " guest_modes " guest modes tested, expected one (-m)")
	need("Populate memory time", populate)
	need("Enabling dirty logging time", enable)
	need("Disabling dirty logging time", disable)
	if (last_iter != iterations)
		fail(file ": " last_iter " iterations, expected " iterations)
	it = ""
	for (i = 1; i <= iterations; i++) {
		need("Iteration " i " dirty memory time", dirty[i])
		need("Iteration " i " get dirty log time", get[i])
		if (mode == "get" && clear[i] != "")
			fail(file ": a clear dirty log time in get mode (-g)")
		if (mode != "get")
			need("Iteration " i " clear dirty log time", clear[i])
		it = it (i > 1 ? ",\n" : "") "      {\"dirty_ms\": " dirty[i] \
		     ", \"get_ms\": " get[i] \
		     (mode != "get" ? ", \"clear_ms\": " clear[i] : "") "}"
	}
	sep = nruns++ ? ",\n" : ""
	out = out sep "   {\"phases\": [{\"name\": \"populate\", \"wall_ms\": " \
	       populate "}],\n    \"dirty_log\": {\"mode\": \"" mode "\"" \
	       ", \"enable_ms\": " enable ", \"disable_ms\": " disable \
	       ",\n     \"iterations\": [\n" it "]}}"
	populate = enable = disable = ""
	guest_modes = last_iter = 0
	split("", dirty); split("", get); split("", clear)
}

BEGIN {
	conv = "tools/peer/dirty_log_perf_test.awk"
	if (mode != "clear-init-set" && mode != "get")
		fail("-v mode=" mode ": expected clear-init-set or get")
	if (runs !~ /^[1-9][0-9]*$/ || vcpus !~ /^[0-9]+$/ || bytes !~ /^[0-9]+$/ ||
	    iterations !~ /^[0-9]+$/)
		fail("-v runs, vcpus, bytes and iterations must be numbers")
}

/^Testing guest mode: / { guest_modes++ }
/^Populate memory time: / { populate = ms($NF) }
/^Enabling dirty logging time: / { enable = ms($NF) }
/^Disabling dirty logging time: / { disable = ms($NF) }
/^Iteration [0-9]+ dirty memory time: / {
	if ($2 != last_iter + 1)
		fail(FILENAME ": line " FNR ": iteration " $2 " after " last_iter)
	last_iter = $2
	dirty[$2] = ms($NF)
}
/^Iteration [0-9]+ get dirty log time: / { get[$2] = ms($NF) }
/^Iteration [0-9]+ clear dirty log time: / { clear[$2] = ms($NF) }

END {
	printf "{\n \"scenario\": \"dirty-log\",\n"
	printf " \"config\": {\"vcpus\": %d, \"vcpu_bytes\": %s, \"iterations\": %d, " \
	       "\"dirty_mode\": \"%s\"},\n", vcpus, bytes, iterations, mode
	printf " \"env\": {\"program\": \"dirty_log_perf_test\", \"kernel\": \"%s\", " \
	       "\"mmu\": \"%s\"},\n", jstr(kernel), jstr(mmu)
	printf " \"results\": {\"runs\": [\n%s\n ]}\n}\n", out
}
