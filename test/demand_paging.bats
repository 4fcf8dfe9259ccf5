#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
# demand-paging: the test memory arrives through userfaultfd, MISSING
# (anonymous, hugetlb) and MINOR (shmem, hugetlbfs) faults, in the nested
# kernels of both arches; the guest checks every page it is given, and
# names the one a handler supplies wrong.  Bad input is one line, exit 2,
# before any VM.
load helpers

# 2 vCPUs x 8 MiB: 4096 4K pages, or 8 2M ones, each supplied once.
DP_SH="$ONE_SH"'
one miss4k demand-paging -v 2 -b 8m -i 1
one miss2m demand-paging -v 2 -b 8m -i 1 -s anonymous_hugetlb_2mb --reserve-hugepages
one minor4k demand-paging -v 2 -b 8m -i 1 -s shmem -u minor --readers 2
one minor2m demand-paging -v 2 -b 8m -i 1 -s shared_hugetlb -u minor --reserve-hugepages
one single demand-paging -v 2 -b 8m -i 1 --single-uffd --readers 2 -d 20
one wrong demand-paging -v 2 -b 8m -i 1 --debug-wrong-page 100
one wrongminor demand-paging -v 2 -b 8m -i 1 -s shmem -u minor --debug-wrong-page 3000
:'

# assert_supplied TAG PAGES PAGE_BYTES UFFDS READERS MODE: run TAG passed,
# its handlers supplied every page once, and the demand pass faulted
# (its vCPUs' latency percentiles exist).
assert_supplied() {
	assert_line "RESULT $1 rc=0"
	result_json "$1" | assert_json - '
		.results.runs[0].demand_paging as $d |
		$d.pages_supplied == $n and $d.pages_raced == 0 and
		$d.page_bytes == $b and $d.uffds == $u and $d.uffd_mode == $m and
		($d.handlers | length) == $u * $r and
		([$d.handlers[].supplied] | add) == $n and
		$d.service.faults == $n and $d.service.p50_us > 0 and
		([.results.runs[0].phases[] | select(.name == "demand") |
		  .vcpus[].latency_ns.p99 > 0] | length == 2 and all)' \
		--argjson n "$2" --argjson b "$3" --argjson u "$4" \
		--argjson r "$5" --arg m "$6"
}

# The runs of one arch's 6.1 kernel, in one boot.
demand_paging_on() { # ARCH
	require_series original "$1"
	mmub --arch "$1" --sh "$DP_SH"
	assert_success
	assert_supplied miss4k 4096 4096 2 1 missing
	assert_supplied miss2m 8 2097152 2 1 missing
	assert_supplied minor4k 4096 4096 2 2 minor
	assert_supplied minor2m 8 2097152 2 1 minor
	assert_supplied single 4096 4096 1 2 missing
	result_json single | assert_json - '.config.single_uffd == true and
		.config.uffd_delay_us == 20 and
		.results.runs[0].demand_paging.service.p50_us >= 20'
	# A page supplied with the next page's contents: the guest names it.
	assert_line "RESULT wrong rc=1"
	assert_line "mmubench: demand-paging: demand: 1 pages wrong; the first, 4K page 100 (test offset 0x64000), held 0xd5a0000000006500, expected 0xd5a0000000006400"
	assert_line "RESULT wrongminor rc=1"
	assert_line "mmubench: demand-paging: demand: 1 pages wrong; the first, 4K page 3000 (test offset 0xbb8000), held 0xd5a00000000bb900, expected 0xd5a00000000bb800"
}

@test "x86_64: MISSING and MINOR faults supply every page once, checked by the guest; a wrong page is named" {
	demand_paging_on x86_64
}

@test "arm64: MISSING and MINOR faults supply every page once, checked by the guest; a wrong page is named" {
	demand_paging_on arm64
}

@test "demand-paging: bad input is one line naming the option, exit 2, before any VM" {
	bad() { # WANT ARGS...
		local want=$1
		shift
		run "$MMUBENCH" demand-paging "$@"
		assert_failure 2
		assert_output "mmubench: $want"
	}
	bad "--uffd-mode minor: backing anonymous has no file, and MINOR faults are served from a page cache (use shmem, shared_hugetlb or memfd)" \
		-u minor
	bad "--uffd-mode minor: backing anonymous_hugetlb_2mb has no file, and MINOR faults are served from a page cache (use shmem, shared_hugetlb or memfd)" \
		-u minor -s anonymous_hugetlb_2mb
	bad "--uffd-mode sometimes: unknown (accepted: missing, minor)" -u sometimes
	bad "--readers 0: out of range (accepted: 1..64)" --readers 0
	bad "--uffd-delay 2000000: out of range (accepted: 0..1000000)" -d 2000000
	bad "--debug-wrong-page 4096: the test memory has 4096 4K pages" -b 16m --debug-wrong-page 4096
	bad "--prefault: not with demand-paging: its memory arrives through userfaultfd" --prefault
	bad "--backing anonymous_thp: not with demand-paging: userfaultfd supplies base pages there (use anonymous, a hugetlb backing or shmem)" \
		-s anonymous_thp
}
