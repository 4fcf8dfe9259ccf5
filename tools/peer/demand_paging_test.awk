# SPDX-License-Identifier: GPL-2.0
#
# The kernel's demand_paging_test, its stdout as an mmubench
# "demand-paging" document, so that "mmubench compare" reads it beside
# mmubench's own: one file of output per run, each run one element of
# results.runs.
#
#   awk -v runs=R -v vcpus=N -v bytes=B -v mode=M -v kernel=K -v mmu=U \
#       -f tools/peer/common.awk -f tools/peer/demand_paging_test.awk RUN1.txt... \
#       >peer.json
#
# M is the userfaultfd mode, missing or minor.  "Total guest execution
# time: S.NNNNNNNNNs" (from the vCPUs' start to the last one's end)
# becomes demand_paging.demand_ms, and the rate is computed from it: the
# guest's 4K pages (N x B / 4096) over that time, as the test means its
# "Overall demand paging rate".  The rate the test prints is kept apart
# (printed_pages_per_s): 6.1's divides the nanoseconds by 1e8, not 1e9.
# A run without the time line, or other than R files of runs, is an
# error (exit 1, naming the file).

function finish(   s, sep) {
	if (total == "")
		fail(file ": no \"Total guest execution time\" line (did the peer fail?)")
	if (printed == "")
		fail(file ": no \"Overall demand paging rate\" line (did the peer fail?)")
	s = total
	sub(/s$/, "", s)
	if (s !~ /^[0-9]+\.[0-9]+$/ || s + 0 <= 0)
		fail(file ": not a time in seconds: " total)
	sep = nruns++ ? ",\n" : ""
	out = out sep sprintf("   {\"demand_paging\": {\"uffd_mode\": \"%s\", " \
			      "\"demand_ms\": %.6f, \"pages_per_s\": %.3f, " \
			      "\"printed_pages_per_s\": %s}}", mode, s * 1000,
			      vcpus * bytes / 4096 / s, printed)
	total = printed = ""
}

BEGIN {
	conv = "tools/peer/demand_paging_test.awk"
	if (mode != "missing" && mode != "minor")
		fail("-v mode=" mode ": expected missing or minor")
	need_sizes()
}

# 6.1 separates with a space, 6.12 with a tab.
/^Total guest execution time:[ \t]/ { total = $NF }
/^Overall demand paging rate:[ \t]/ {
	printed = $(NF - 1)
	if (printed !~ /^[0-9]+(\.[0-9]+)?$/)
		fail(FILENAME ": line " FNR ": not a rate: " $0)
}

END {
	printf "{\n \"scenario\": \"demand-paging\",\n"
	printf " \"config\": {\"vcpus\": %d, \"vcpu_bytes\": %s, \"uffd_mode\": \"%s\"},\n",
	       vcpus, bytes, mode
	printf " \"env\": {\"program\": \"demand_paging_test\", \"kernel\": \"%s\", " \
	       "\"mmu\": \"%s\"},\n", jstr(kernel), jstr(mmu)
	printf " \"results\": {\"runs\": [\n%s\n ]}\n}\n", out
}
