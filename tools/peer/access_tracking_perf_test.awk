# SPDX-License-Identifier: GPL-2.0
#
# The kernel's access_tracking_perf_test, its stdout as an mmubench
# "aging" document, so that "mmubench compare" reads it beside
# mmubench's own: one file of output per run, each run one element of
# results.runs.
#
#   awk -v runs=R -v vcpus=N -v bytes=B -v kernel=K -v mmu=U \
#       -f tools/peer/common.awk -f tools/peer/access_tracking_perf_test.awk \
#       RUN1.txt... >peer.json
#
# Its "DESCRIPTION : S.NNNNNNNNNs" lines (every vCPU's part done, wall
# time) become milliseconds where mmubench keeps the same figure:
#   Writing to populated memory   phases[name=control].wall_ms
#   Mark memory idle (twice)      aging.mark_idle_ms, their sum
#   Writing to idle memory        phases[name=aged1].wall_ms
# and, with no mmubench twin, Populating memory (mmubench fills with one
# write a page), Reading from populated memory and Reading from idle
# memory as populate_ms, read_populated_ms and read_idle_ms.  Its
# warnings that too many pages were still idle when marked (the TLB or
# LRU effects the test names) are counted in aging.idle_warnings.  A run
# without one of those lines, or other than R files of runs, is an error
# (exit 1, naming the file).

function finish(   sep) {
	need("Populating memory", t["Populating memory"])
	need("Writing to populated memory", t["Writing to populated memory"])
	need("Reading from populated memory", t["Reading from populated memory"])
	need("Writing to idle memory", t["Writing to idle memory"])
	need("Reading from idle memory", t["Reading from idle memory"])
	if (marks != 2)
		fail(file ": " marks + 0 " \"Mark memory idle\" lines, expected 2")
	sep = nruns++ ? ",\n" : ""
	out = out sep sprintf("   {\"phases\": [{\"name\": \"control\", " \
		"\"wall_ms\": %s}, {\"name\": \"aged1\", \"wall_ms\": %s}],\n" \
		"    \"aging\": {\"mark_idle_ms\": %.6f, \"populate_ms\": %s, " \
		"\"read_populated_ms\": %s, \"read_idle_ms\": %s, " \
		"\"idle_warnings\": %d}}",
		t["Writing to populated memory"], t["Writing to idle memory"],
		mark_ms, t["Populating memory"],
		t["Reading from populated memory"],
		t["Reading from idle memory"], warnings)
	split("", t)
	marks = mark_ms = warnings = 0
}

BEGIN {
	conv = "tools/peer/access_tracking_perf_test.awk"
	need_sizes()
}

/^(Populating memory|Writing to populated memory|Reading from populated memory|Writing to idle memory|Reading from idle memory) *: / {
	what = $0
	sub(/ *: .*/, "", what)
	# Once a run: a second would silently replace the first.
	if (what in t)
		fail(FILENAME ": line " FNR ": a second \"" what "\" line")
	t[what] = ms($NF)
}
/^Mark memory idle *: / {
	marks++
	mark_ms += ms($NF)
}
/^WARNING: vCPU[0-9]+: Too many pages still idle/ { warnings++ }

END {
	printf "{\n \"scenario\": \"aging\",\n"
	printf " \"config\": {\"vcpus\": %d, \"vcpu_bytes\": %s},\n", vcpus, bytes
	printf " \"env\": {\"program\": \"access_tracking_perf_test\", " \
	       "\"kernel\": \"%s\", \"mmu\": \"%s\"},\n", jstr(kernel), jstr(mmu)
	printf " \"results\": {\"runs\": [\n%s\n ]}\n}\n", out
}
