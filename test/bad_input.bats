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
@test "unknown guest page size" { bad "--guest-page 8k: unknown page size (accepted: 4k, 2m, 1g)" touch --guest-page 8k; }
@test "unknown stride" { bad "--touch 3m: unknown page size" touch --touch 3m; }
@test "memory not a multiple of the guest page" {
	bad "-b 3M: must be a multiple of 2M" touch -b 3m --guest-page 2m
}
@test "stride larger than memory" { bad "--touch 1G: stride larger than -b 64M" touch -b 64m --touch 1g; }
@test "slots that do not divide the memory" { bad "-x 3: 64M of test memory does not split into 3 slots" touch -b 64m -x 3; }
@test "range outside the test memory" { bad "--ranges: range 0 (offset" touch -b 64m --ranges 60m+8m; }
@test "malformed ranges" { bad "--ranges 1m: bad list" touch --ranges 1m; }
@test "unknown scenario" { bad "frob: unknown scenario (accepted: touch, dirty-log, zap, nx-recovery, bench, compare, ab, merge)" frob; }
@test "unknown option" { bad "--frob: unknown option" touch --frob; }
@test "option without its value" { bad "-v: needs a value" touch -v; }
@test "repeat 0" { bad "--repeat 0: out of range" touch --repeat 0; }
@test "watchdog 0" { bad "--watchdog 0: out of range" touch --watchdog 0; }
@test "pin list shorter than the vCPUs" { bad "-c: 1 CPUs listed for 2 vCPUs" touch -v 2 -c 0; }
@test "unknown debug action" { bad "--debug-action boom: unknown (accepted: fault, hang)" touch --debug-action boom; }
@test "hugetlb pool too small names the sysctl and the number" {
	local f=/sys/kernel/mm/hugepages/hugepages-2048kB/free_hugepages
	[[ -r $f ]] || skip "this kernel has no 2M hugetlb pool"
	local need=$(( $(cat "$f") + 1 ))
	bad "hugetlb pool too small: $(cat "$f") free, $need needed; raise /sys/kernel/mm/hugepages/hugepages-2048kB/nr_hugepages by 1" \
		touch -s anonymous_hugetlb_2mb -b $((need * 2))m
}
@test "a missing guest image is named" {
	run "$MMUBENCH" touch --guest /nonexistent/guest.elf
	assert_equal "$status" 2
	assert_output --partial "--guest /nonexistent/guest.elf: No such file or directory"
}
@test "help lists every option" {
	run "$MMUBENCH" --help
	assert_success
	for o in -v -b -s -x -i -w -a -r -c --guest-page --touch --fraction \
		 --ranges --repeat --json --no-populate --reserve-hugepages \
		 --watchdog --guest --no-latency --debug-action; do
		assert_output --partial "  $o "
	done
}

@test "every --help prints its usage on stdout and exits 0" {
	local c s
	for c in touch dirty-log zap nx-recovery bench compare merge ab; do
		run --separate-stderr "$MMUBENCH" "$c" --help
		assert_success
		[[ -n $output && -z $stderr ]] || fail "mmubench $c --help: stdout '${output:0:80}', stderr '$stderr'"
	done
	for s in ci/ab.sh ci/kvm-exec.sh ci/nightly ci/kernel/build.sh ci/nested/run.sh \
		 ci/nested/mkinitramfs.sh ci/nested/selftest.sh guest/efi/run-efi.sh; do
		run --separate-stderr "$ROOT/$s" --help
		assert_success
		[[ $output == *usage* && -z $stderr ]] || fail "$s --help: stdout '${output:0:80}', stderr '$stderr'"
	done
}
