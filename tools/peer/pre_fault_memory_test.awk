# SPDX-License-Identifier: GPL-2.0
#
# The kernel's pre_fault_memory_test, traced, as an mmubench "touch"
# document with prefault_ms, so that "mmubench compare" reads it beside
# "mmubench touch --prefault": one file per run, each run one element of
# results.runs.
#
#   awk -v runs=R -v vcpus=1 -v bytes=B -v kernel=K -v mmu=U \
#       -f tools/peer/common.awk -f tools/peer/pre_fault_memory_test.awk \
#       RUN1.txt... >peer.json
#
# The test prints no time, so tools/peer.sh runs it under two kprobes
# (its "traced"): the entry of kvm_vcpu_ioctl with KVM_PRE_FAULT_MEMORY
# (pf_enter: the gpa and size asked) and its return (pf_exit: ret).  A
# run's file is the test's output, "@@ trace: ..." and the trace's lines,
# then "@@ exit status N".
#
# Each VM the test makes starts with an ioctl asking 2 MiB at the base G
# of its memory; the ioctls that return 0 map it (the second maps the
# last 4K page, then meets the end of the memslot), and the first that
# fails must be -ENOENT at G + B: exactly B bytes were mapped.  A VM's
# figure is the sum of those ioctls' times, entry to return on the
# trace's clock (microseconds).  prefault_ms is the first VM's, the
# default VM type with anonymous memory as mmubench's; every VM's is in
# vm_prefault_ms (on 6.12 x86, then KVM_X86_SW_PROTECTED_VM with shared
# and with private guest_memfd memory), not compared.  A run without its
# trace or exit status 0, with an ioctl that did not return, another
# sequence of ioctls or a line of the trace not understood (lost events),
# or other than R files of runs, is an error (exit 1, naming the file).

# "0x1f" -> 31 (mawk has no strtonum); exact below 2^53.
function hex(s,   v, i, d) {
	if (s !~ /^0x[0-9a-f]+$/)
		return -1
	v = 0
	for (i = 3; i <= length(s); i++) {
		d = index("0123456789abcdef", substr(s, i, 1)) - 1
		v = v * 16 + d
	}
	return v
}

# 31 -> "0x1f", beyond mawk's 32-bit %x.
function tohex(v,   s) {
	s = ""
	do {
		s = substr("0123456789abcdef", v % 16 + 1, 1) s
		v = int(v / 16)
	} while (v > 0)
	return "0x" s
}

# FIELD=VALUE among the line's fields, or "".
function field(name,   i, n) {
	n = length(name) + 1
	for (i = 1; i <= NF; i++)
		if (substr($i, 1, n) == name "=")
			return substr($i, n + 1)
	return ""
}

function finish(   k, v, g, done, sum, vms, first, sep) {
	if (!traced)
		fail(file ": no \"@@ trace\" line (did the probes or the run fail?)")
	if (status == "")
		fail(file ": no \"@@ exit status\" line (did the run end early?)")
	if (status != 0)
		fail(file ": the test failed (exit status " status ")")
	for (p in open)
		fail(file ": an ioctl of pid " p " did not return in the trace")
	if (n == 0)
		fail(file ": no KVM_PRE_FAULT_MEMORY ioctl in the trace")
	vms = ""
	for (k = 1; k <= n; k++) {
		if (size[k] == 2097152) {
			# A VM: its ioctls that mapped, up to the first failure.
			g = gpa[k]
			sum = 0
			for (; k <= n && ret[k] == 0; k++) {
				sum += t1[k] - t0[k]
				# It mapped from its gpa to where the next one
				# starts: some of what it asked, and no more.
				if (k < n && (gpa[k + 1] <= gpa[k] ||
					      gpa[k + 1] > gpa[k] + size[k]))
					fail(file ": ioctl " k + 1 " of " n \
					     " asks from " tohex(gpa[k + 1]) \
					     ", not within what ioctl " k " asked " \
					     "(" tohex(gpa[k]) "+" tohex(size[k]) "): an ioctl lost?")
			}
			if (k > n || ret[k] != -2 || gpa[k] != g + bytes)
				fail(file ": a VM's ioctls from " tohex(g) \
				     " did not map exactly " bytes " bytes, then " \
				     "-ENOENT (ioctl " k " of " n ")")
			vms = vms (vms == "" ? "" : ", ") sprintf("%.3f", sum * 1000)
			if (first == "")
				first = sprintf("%.3f", sum * 1000)
		} else if (first == "") {
			fail(file ": the first ioctl asks " size[k] " bytes, " \
			     "not the test's 2 MiB")
		}
	}
	sep = nruns++ ? ",\n" : ""
	out = out sep sprintf("   {\"prefault_ms\": %s, \"prefault_bytes\": %s, " \
			      "\"vm_prefault_ms\": [%s]}", first, bytes, vms)
	traced = n = 0
	status = ""
	split("", open); split("", t0); split("", t1)
	split("", gpa); split("", size); split("", ret)
}

BEGIN {
	conv = "tools/peer/pre_fault_memory_test.awk"
	need_sizes()
}

/^@@ trace: / { traced = 1; next }
/^@@ exit status [0-9]+$/ { status = $NF; traced = traced ? 2 : 0; next }
/Test Assertion Failure/ { fail(FILENAME ": line " FNR ": " $0) }

# The trace: "COMM-PID [CPU] FLAGS SECONDS: EVENT: (...) ARGS".
traced == 1 && NF {
	for (c = 1; c <= NF && $c !~ /^\[[0-9]+\]$/; c++)
		;
	for (t = c + 1; t <= NF && $t !~ /^[0-9]+\.[0-9]+:$/; t++)
		;
	if (c < 2 || t >= NF || ($(t + 1) != "pf_enter:" && $(t + 1) != "pf_exit:"))
		fail(FILENAME ": line " FNR ": not a line of the trace: " $0)
	pid = $(c - 1)
	sub(/.*-/, "", pid)
	ts = $t
	sub(/:$/, "", ts)
	if ($(t + 1) == "pf_enter:") {
		if (pid in open)
			fail(FILENAME ": line " FNR ": an ioctl entered before the last returned")
		n++
		t0[n] = ts
		gpa[n] = hex(field("gpa"))
		size[n] = hex(field("size"))
		if (gpa[n] < 0 || size[n] < 0)
			fail(FILENAME ": line " FNR ": no gpa or size: " $0)
		open[pid] = n
	} else if (pid in open) {
		# Returns of the vCPU's other ioctls have none open.
		k = open[pid]
		delete open[pid]
		t1[k] = ts
		ret[k] = field("ret")
		if (ret[k] !~ /^-?[0-9]+$/)
			fail(FILENAME ": line " FNR ": no ret: " $0)
		ret[k] += 0
	}
}

END {
	printf "{\n \"scenario\": \"touch\",\n"
	printf " \"config\": {\"vcpus\": %d, \"vcpu_bytes\": %s, \"prefault\": true},\n",
	       vcpus, bytes
	printf " \"env\": {\"program\": \"pre_fault_memory_test\", \"kernel\": \"%s\", " \
	       "\"mmu\": \"%s\"},\n", jstr(kernel), jstr(mmu)
	printf " \"results\": {\"runs\": [\n%s\n ]}\n}\n", out
}
