#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
# Bad input: one line naming the option and what it accepts, exit 2,
# and no VM is created (these run without /dev/kvm).
load helpers

bad() { # EXPECTED-TEXT ARGS...
	local want=$1
	shift
	run "$MMUBENCH" "$@"
	assert_equal "$status" 2
	assert_equal "${#lines[@]}" 1
	assert_output --partial "$want"
	refute_output --partial "/dev/kvm"
}

@test "bad size" { bad "-b 12q: bad size" touch -b 12q; }
@test "size not a multiple of 4K" { bad "-b 5000: bad size" touch -b 5000; }
@test "unknown backing lists the accepted ones" {
	bad "-s foo: unknown backing (accepted: anonymous, anonymous_thp," touch -s foo
}
@test "0 vCPUs" { bad "-v 0: out of range (accepted: 1..64)" touch -v 0; }
@test "too many vCPUs" { bad "-v 65: out of range" touch -v 65; }
@test "fraction above 1" { bad "--fraction 1.5: out of range" touch --fraction 1.5; }
@test "fraction 0" { bad "--fraction 0: out of range" touch --fraction 0; }
@test "write percentage above 100" { bad "-w 101: out of range (accepted: 0..100)" touch -w 101; }
@test "more passes than a run holds" { bad "-i 1001: out of range (accepted: 0..1000)" touch -i 1001; }
@test "unknown guest page size" { bad "--guest-page 8k: unknown page size (accepted: 4k, 2m, 1g)" touch --guest-page 8k; }
@test "unknown stride" { bad "--touch 3m: unknown page size" touch --touch 3m; }
@test "memory not a multiple of the guest page" {
	bad "-b 3M: must be a multiple of 2M" touch -b 3m --guest-page 2m
}
@test "stride larger than memory" { bad "--touch 1G: stride larger than -b 64M" touch -b 64m --touch 1g; }
@test "slots that do not divide the memory" { bad "-x 3: 64M of test memory does not split into 3 slots" touch -b 64m -x 3; }
@test "range outside the test memory" { bad "--ranges: range 0 (offset" touch -b 64m --ranges 60m+8m; }
@test "malformed ranges" { bad "--ranges 1m: bad list" touch --ranges 1m; }
# The accepted names are the binary's own (mmubench --list), not a copy.
@test "unknown scenario" {
	local names
	names=$("$MMUBENCH" --list | cut -f1 | paste -sd, | sed 's/,/, /g')
	[[ $names == *", "* ]] || fail "mmubench --list names fewer than two: '$names'"
	bad "frob: unknown scenario (accepted: $names)" frob
}
@test "unknown option" { bad "--frob: unknown option" touch --frob; }
@test "option without its value" { bad "-v: needs a value" touch -v; }
@test "repeat 0" { bad "--repeat 0: out of range" touch --repeat 0; }
@test "watchdog 0" { bad "--watchdog 0: out of range" touch --watchdog 0; }
@test "pin list shorter than the vCPUs" { bad "-c: 1 CPUs listed for 2 vCPUs" touch -v 2 -c 0; }
@test "unknown debug action" { bad "--debug-action boom: unknown (accepted: fault, hang)" touch --debug-action boom; }
# Numbers are decimal: a leading zero is not octal, 0x is not hex.
@test "numbers are decimal: -v 065 is 65, out of range" { bad "-v 065: out of range (accepted: 1..64)" touch -v 065; }
@test "numbers are decimal: -v 0x10 is not a number" { bad "-v 0x10: not a number (accepted: 1..64)" touch -v 0x10; }
@test "numbers are decimal: -v abc is not a number" { bad "-v abc: not a number (accepted: 1..64)" touch -v abc; }
# Pinned to CPU 0 by taskset, whatever the machine has: CPU 8 ("08" is
# decimal) is not this process's to use.
@test "-c names a CPU this process may not use" {
	run taskset -c 0 "$MMUBENCH" touch -c 08
	assert_equal "$status" 2
	assert_output "mmubench: -c 08: this process may not run on CPU 8 (accepted: 0)"
}
@test "-b 0" { bad "-b 0: bad size" touch -b 0; }
@test "a size that overflows" { bad "-b 99999999999999t: bad size" touch -b 99999999999999t; }
@test "more memory than can be mapped" { bad "-b 65536G x -v 64: more test memory than mmubench can map" touch -b 64t -v 64; }
@test "-x 0" { bad "-x 0: out of range (accepted: 1..256)" touch -x 0; }
@test "fraction that is not a number" { bad "--fraction abc: not a number" touch --fraction abc; }
@test "overlapping ranges" { bad "--ranges 0+4m,2m+4m: ranges 0 and 1 overlap" touch --ranges 0+4m,2m+4m; }
@test "more than 8 ranges" {
	bad "bad list (accepted: up to 8 OFFSET+LENGTH pairs" touch \
		--ranges 0+1m,2m+1m,4m+1m,6m+1m,8m+1m,10m+1m,12m+1m,14m+1m,16m+1m
}
@test "a stray argument" { bad "stray: unexpected argument (see mmubench touch --help)" touch stray; }
@test "an unwritable --json is found before the run" {
	bad "--json /nonexistent/dir/x.json: cannot write there: No such file or directory" \
		touch --json /nonexistent/dir/x.json
}
@test "a --guest that is not ELF" { bad "--guest /etc/passwd: not an ELF64 file" touch --guest /etc/passwd; }
@test "a --guest for the other arch" {
	local other=arm64
	[[ $ARCH == arm64 ]] && other=x86_64
	[[ -f $O/$other/guest.elf ]] || skip "no $other guest built (test/run.sh builds it)"
	bad "built for another architecture than this mmubench ($ARCH)" \
		touch --guest "$O/$other/guest.elf"
}
@test "an option of another scenario, even at its default value" {
	bad "--zap-count: belongs to the zap scenario, not touch" touch --zap-count 200
	bad "--verify: belongs to the dirty-log scenario, not nx-recovery" nx-recovery --verify
}
@test "--debug-drop-dirty beyond the last harvest" {
	bad "--debug-drop-dirty 5000: past the last harvest (accepted: 0..13, as -i 2 and --rounds 10 make 14 harvests)" \
		dirty-log --verify --rounds 10 --debug-drop-dirty 5000
}

# The offline commands: a file that is not a whole mmubench document.
doc() { # NAME CONTENT
	printf '%s' "$2" >"$BATS_TEST_TMPDIR/$1"
	echo "$BATS_TEST_TMPDIR/$1"
}
good_doc() {
	doc good.json '{"scenario": "zap", "config": {}, "results": {"runs": [{"zap": {"zap_total_ms": 1}}]}}'
}
@test "compare and merge: an empty file" {
	local e g
	e=$(doc empty.json '') g=$(good_doc)
	bad "compare: $e: not a JSON document: " compare "$g" "$e"
	bad "merge: $e: not a JSON document: " merge "$BATS_TEST_TMPDIR/o.json" "$g" "$e"
	[[ ! -e $BATS_TEST_TMPDIR/o.json ]]
}
@test "compare and merge: a truncated file" {
	local t g
	t=$(doc trunc.json '{"scenario": "zap", "results": {"runs": [{"zap": {"zap_to') g=$(good_doc)
	bad "compare: $t: not a JSON document: " compare "$g" "$t"
	bad "merge: $t: not a JSON document: " merge "$BATS_TEST_TMPDIR/o.json" "$t" "$g"
}
@test "compare and merge: runs: []" {
	local r g
	r=$(doc runs.json '{"scenario": "zap", "config": {}, "results": {"runs": []}}') g=$(good_doc)
	bad "compare: $r: results.runs is empty: the run wrote no result" compare "$r" "$g"
	bad "merge: $r: results.runs is empty: the run wrote no result" merge "$BATS_TEST_TMPDIR/o.json" "$g" "$r"
}
@test "compare and merge: a file that is not there" {
	local g
	g=$(good_doc)
	bad "compare: $BATS_TEST_TMPDIR/none.json: cannot open it: No such file or directory" \
		compare "$g" "$BATS_TEST_TMPDIR/none.json"
	bad "merge: $BATS_TEST_TMPDIR/none.json: cannot open it: No such file or directory" \
		merge "$BATS_TEST_TMPDIR/o.json" "$g" "$BATS_TEST_TMPDIR/none.json"
}

# Half the machine's RAM in 2M pages, more than any pool here holds free,
# and judged by the message's own numbers, not by a second read of the
# host's counters (which another process may change meanwhile).
@test "hugetlb pool too small names the sysctl and the number" {
	local d=/sys/kernel/mm/hugepages/hugepages-2048kB kib need
	[[ -d $d ]] || skip "this kernel has no 2M hugetlb pool"
	kib=$(awk '$1 == "MemTotal:" { print $2 }' /proc/meminfo)
	need=$((kib / 2 / 2048))
	run "$MMUBENCH" touch -s anonymous_hugetlb_2mb -b $((need * 2))m
	assert_equal "$status" 2
	assert_equal "${#lines[@]}" 1
	[[ $output =~ ^mmubench:\ -s\ anonymous_hugetlb_2mb:\ hugetlb\ pool\ too\ small:\ ([0-9]+)\ free,\ $need\ needed\;\ raise\ $d/nr_hugepages\ by\ ([0-9]+)\ or\ pass\ --reserve-hugepages$ ]] ||
		fail "not the pool's message for $need pages: $output"
	assert_equal "$((BASH_REMATCH[1] + BASH_REMATCH[2]))" "$need"
}
@test "a missing guest image is named" {
	run "$MMUBENCH" touch --guest /nonexistent/guest.elf
	assert_equal "$status" 2
	assert_output --partial "--guest /nonexistent/guest.elf: No such file or directory"
}
@test "help names every common option; a scenario's --help says what each does" {
	local o
	run "$MMUBENCH" --help
	assert_success
	for o in vcpus bytes backing slots iterations writes random seed cpus \
		 guest-page touch fraction ranges repeat json no-populate prefault \
		 reserve-hugepages watchdog guest no-latency debug-action; do
		assert_line --regexp "^  (.* )?(-[a-z], )?--$o( [A-Z]|$| )"
	done
	run "$MMUBENCH" touch --help
	assert_success
	for o in vcpus bytes backing slots iterations writes random seed cpus \
		 guest-page touch fraction ranges repeat json no-populate prefault \
		 reserve-hugepages watchdog guest no-latency debug-action exec backend; do
		assert_line --regexp "^  (-[a-z], )?--$o( |$)"
	done
}

# mmubench --help is a page, not the manual (issue 42): at most 40 lines;
# it and every NAME --help fit 80 columns, every scenario and command
# with one line in it.
@test "--help: at most 40 lines; it and every NAME --help fit 80 columns" {
	local c wide n
	run --separate-stderr "$MMUBENCH" --help
	assert_success
	# $lines leaves out the empty ones.
	n=$(grep -c "" <<<"$output")
	((n <= 40)) || fail "mmubench --help: $n lines, more than 40"
	wide=$(awk 'length($0) > 80' <<<"$output")
	[[ -z $wide ]] || fail "mmubench --help: wider than 80 columns: $wide"
	for c in $("$MMUBENCH" --list | cut -f1); do
		assert_line --regexp "^  $c +[^ ]"
		run --separate-stderr "$MMUBENCH" "$c" --help
		assert_success
		wide=$(awk 'length($0) > 80' <<<"$output")
		[[ -z $wide ]] || fail "mmubench $c --help: wider than 80 columns: $wide"
		run --separate-stderr "$MMUBENCH" --help
	done
}

@test "every --help prints its usage on stdout and exits 0" {
	local c s
	for c in $("$MMUBENCH" --list | cut -f1); do
		run --separate-stderr "$MMUBENCH" "$c" --help
		assert_success
		[[ -n $output && -z $stderr ]] || fail "mmubench $c --help: stdout '${output:0:80}', stderr '$stderr'"
	done
	# The usage names the script: a header comment's pattern that no
	# longer matches its path prints "usage:" alone (as the tools' did
	# when they moved to tools/).
	for s in tools/ab.sh tools/kexec-ab.sh tools/kvm-exec.sh tools/peer.sh tools/resolution.sh \
		 ci/nightly ci/report/report.sh ci/store.sh ci/baseline.sh ci/regress.sh ci/fidelity.sh \
		 ci/lava/run.sh ci/workflow.sh lib/kernel/build.sh lib/nested/run.sh \
		 lib/nested/mkinitramfs.sh lib/nested/selftest.sh guest/efi/run-efi.sh test/run.sh; do
		run --separate-stderr "$ROOT/$s" --help
		assert_success
		[[ $output == *usage* && $output == *"$s "* && -z $stderr ]] ||
			fail "$s --help: stdout '${output:0:80}', stderr '$stderr'"
	done
}

@test "test/run.sh: a name that is not a bats file is one line naming it, exit 2, before any build" {
	run --separate-stderr "$ROOT/test/run.sh" test/unit.bats nope.bats
	assert_failure 2
	assert_output ''
	assert_equal "$stderr" "test/run.sh: nope.bats: not a bats file of this repository (test/run.sh [--check] [FILE.bats...])"
	# make check builds no kernel: the file that does is refused.
	run --separate-stderr "$ROOT/test/run.sh" --check test/kernels.bats
	assert_failure 2
	assert_output ''
	assert_equal "$stderr" "test/run.sh: --check builds no kernel: test/kernels.bats is make test's"
}
