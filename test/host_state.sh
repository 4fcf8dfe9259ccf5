# shellcheck shell=bash
# SPDX-License-Identifier: GPL-2.0
# The host's settings a test may change and must put back (README.md,
# "Run the tests"): both hugetlb pools, the kvm modules' parameters, and
# tracing's kprobes, instances, tracer, switch and global buffer size.
# test/run.sh takes them before and after every bats file and fails the
# file that leaves one changed.  Under $HOST_STATE_ROOT (a stand-in
# tree, for test/host_state.bats) when it is set.

# host_state: one line a setting, "PATH VALUE" ("(none)" for an empty
# one), in a stable order; what cannot be read (no such file, not root)
# is left out on both sides.
host_state() {
	local r=${HOST_STATE_ROOT:-} f t=${HOST_STATE_ROOT:-}/sys/kernel/tracing

	for f in "$r"/sys/kernel/mm/hugepages/hugepages-*/nr_hugepages \
		 "$r"/sys/kernel/mm/hugepages/hugepages-*/nr_overcommit_hugepages \
		 "$r"/sys/module/kvm*/parameters/* \
		 "$t"/kprobe_events "$t"/current_tracer "$t"/tracing_on; do
		[[ -f $f && -r $f ]] || continue
		host_setting "${f#"$r"}" "$(head -c 4096 "$f" 2>/dev/null)"
	done
	# Before 6.7 the first event enabled anywhere grows the global
	# buffer from "7 (expanded: 1408)" to 1408: the kernel's one-time
	# step for any tracing user, not a setting (test/zap.bats).
	[[ ! -r $t/buffer_size_kb ]] ||
		host_setting /sys/kernel/tracing/buffer_size_kb \
			"$(sed -E 's/^[0-9]+ \(expanded: ([0-9]+)\)$/\1/' "$t/buffer_size_kb")"
	[[ ! -d $t/instances ]] ||
		host_setting /sys/kernel/tracing/instances "$(ls -A "$t/instances")"
}

host_setting() { # PATH TEXT: its lines joined by spaces
	local v

	v=$(tr '\n' ' ' <<<"$2" | sed 's/ *$//')
	printf '%s %s\n' "$1" "${v:-(none)}"
}

# host_state_diff BEFORE AFTER: the settings that differ, "PATH: was
# OLD, now NEW" (OLD or NEW "<absent>" where there was none), one a
# line; nothing when they agree.
host_state_diff() {
	LC_ALL=C join -a 1 -a 2 -e '<absent>' -o 0,1.2,2.2 -t $'\t' \
		<(sed -E 's/ /\t/' <<<"$1" | LC_ALL=C sort) <(sed -E 's/ /\t/' <<<"$2" | LC_ALL=C sort) |
		awk -F'\t' '$1 != "" && $2 != $3 { printf "%s: was %s, now %s\n", $1, $2, $3 }'
}
