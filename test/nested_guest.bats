#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
# --nested-guest: the workload in an L2 of the guest's own, under SVM
# with nested paging, so that KVM's shadow MMU serves it.  Only the
# nested x86 kernels have it (kvm_amd nested=1 on QEMU's SVM): there,
# on both bases, touch at 4K and 2M, the five dirty-log modes verified,
# zap with logging verified and a migration pass, each served by the
# shadow MMU by the counts, and each check fails on its fault in the L2.
# Everywhere, the option is refused before any VM, naming what is
# missing.
load helpers

# Per kernel.  The L2's writes fault through KVM's shadow of the NPT,
# one fault per write-protected page: about 130,000 faults for the 203
# harvests of a 4 MiB --verify run, 20-30 s under TCG, 13-20 s with
# 2 MiB (measured); the runs here are of 1 or 2 MiB.
NESTED_SH='
oneo t4k touch --nested-guest -v 2 -b 4m -i 1
oneo t2m touch --nested-guest -v 2 -b 4m -i 1 -s anonymous_thp --guest-page 2m --l2-page 2m
for m in get clear clear-init-set ring ring-acq-rel; do
	oneo dl-$m dirty-log --nested-guest -v 1 -b 1m --verify --mode $m -i 1
done
oneo drop-get dirty-log --nested-guest -v 1 -b 1m --verify --mode get -i 1 --debug-drop-dirty 3
oneo cold-drop dirty-log --nested-guest -v 1 -b 1m --verify --mode clear-init-set -i 1 --debug-drop-cold
oneo zap zap --nested-guest -v 1 -b 2m --zap same:1m --zap-count 20 --mode clear --verify
oneo zdrop zap --nested-guest -v 1 -b 2m --zap rolling:1m --zap-count 10 --mode clear --verify --debug-drop-dirty 5
oneo cor zap --nested-guest -v 1 -b 2m --zap same:1m --zap-count 5 --debug-corrupt-refault
oneo mig migrate --nested-guest -v 1 -b 2m
oneo skip migrate --nested-guest -v 1 -b 2m --debug-skip-page 5'

MODES="get clear clear-init-set ring ring-acq-rel"

setup_file() {
	batch_add x61 --nested --arch x86_64 --base 6.1 -- "$NESTED_SH"
	batch_add x612 --nested --arch x86_64 --base 6.12 -- "$NESTED_SH"
	# The arm64 harness runs in its own kernel only.
	batch_add a61 --arch arm64 --base 6.1 -- "one refused touch --nested-guest -b 4m"
	batch_boots
}

# served TAG: run TAG's document says the shadow MMU served its L2: the
# L2 ran, KVM made shadow pages, the shadow MMU faulted and the TDP MMU
# mapped nothing for it; its line says the same.  Every check here and
# below is a plain command, so that bats' errexit stops at the first
# that fails (a check in an || or && list would not stop it).
served() {
	result_json "$1" | assert_json - '.results.runs[0].nested as $n |
		$n.nested_runs >= 1 and $n.shadow_pages > 0 and
		$n.shadow_fault > 0 and $n.child_sp > 0 and $n.tdp_map == 0'
	served_line "$1"
}

# served_line TAG: the same from the line alone, for a run that failed
# on purpose (and wrote no document).
served_line() {
	result_lines "$1" | grep -qE '^nested: the L2 ran [1-9][0-9]* times \(nested_run\); shadow MMU: [1-9][0-9]* faults \(paging64_page_fault\), [0-9]+ child tables \(kvm_mmu_get_child_sp\), [0-9]+ syncs \(mmu_sync_children\), [1-9][0-9]* shadow pages \(mmu_cache_miss\); TDP MMU: 0 maps \(kvm_tdp_mmu_map\)$' ||
		fail "$1: no line saying the shadow MMU served it: $(result_lines "$1")"
}

# both_bases CHECK: CHECK for the boots of 6.1 and 6.12.
both_bases() {
	local b
	require_nested
	require_series original x86_64 6.12
	for b in x61 x612; do
		batch "$b"
		"$@"
	done
}

touch_served() {
	assert_line "RESULT t4k rc=0"
	assert_line "RESULT t2m rc=0"
	served t4k
	served t2m
	# 2M in the NPT and in the guest, over THP: one fault per 2 MiB.
	result_json t2m | assert_json - '.results.runs[0].nested |
		.l2_page == 2097152 and .shadow_fault <= 8'
	result_json t4k | assert_json - '.env.nested_guest.mmu == "shadow_nested" and
		.results.runs[0].nested.l2_page == 4096'
}

@test "touch in the L2 at 4K and 2M: the shadow MMU serves it, by the counts (x86 6.1, 6.12)" {
	both_bases touch_served
}

modes_verified() {
	local m
	for m in $MODES; do
		assert_line "RESULT dl-$m rc=0"
		served "dl-$m"
		result_lines "dl-$m" | grep -qE '^  verify: [0-9]+ harvests checked, [1-9][0-9]* pages changed, 0 missed, 0 false positives$' ||
			fail "dl-$m: no clean verify line: $(result_lines "dl-$m")"
	done
}

@test "dirty-log --verify in the L2, every mode: no page lost (x86 6.1, 6.12)" {
	both_bases modes_verified
}

drops_caught() {
	served_line drop-get
	served_line cold-drop
	assert_drop_caught drop-get 3 \
		"oracle: slot 1 gfn GFN changed but was not reported dirty" \
		"--verify: 1 page missed, first slot 1 gfn GFN"
	assert_cold_caught cold-drop "dirty-log oracle: slot 1 gfn GFN, bitmap word 0 bit 1, a cold page \(written before logging, never since\), is not in the first harvest"
}

@test "the oracle names the page it lost from the L2's writes, and a cold page (x86 6.1, 6.12)" {
	both_bases drops_caught
}

zap_checked() {
	local gpa
	assert_line "RESULT zap rc=0"
	served zap
	result_lines zap | grep -qE '^  verify: [0-9]+ harvests checked, [1-9][0-9]* pages changed, 0 missed, 0 false positives$' ||
		fail "zap: no clean verify line: $(result_lines zap)"
	served_line zdrop
	assert_drop_caught zdrop 5 \
		"oracle: slot 1 gfn GFN changed but was not reported dirty" \
		"--verify: 1 page missed, first slot 1 gfn GFN"
	assert_line "RESULT cor rc=1"
	served_line cor
	gpa=$(result_lines cor | sed -n 's/^mmubench: --debug-corrupt-refault: wrote 0xbadbadbadbadbad0 at \(0x[0-9a-f]*\) (slot [0-9]* gfn 0x[0-9a-f]*) after the last invalidation, on purpose$/\1/p')
	[[ $gpa =~ ^0x[0-9a-f]+$ ]] || fail "cor: no corrupted page named: $(result_lines cor)"
	result_lines cor | grep -qxF "mmubench: integrity: the guest found 0xbadbadbadbadbad0 at $gpa after an invalidation (private memory must read zeros or its data)" ||
		fail "cor: the L2's check did not name $gpa: $(result_lines cor)"
}

@test "zap in the L2: logging verified, a lost page and a corrupted refault named (x86 6.1, 6.12)" {
	both_bases zap_checked
}

migrate_checked() {
	assert_line "RESULT mig rc=0"
	served mig
	result_lines mig | grep -qE '^  first harvest: [0-9]+ pages reported; destination: 512 pages checked, 0 differ$' ||
		fail "mig: no clean destination line: $(result_lines mig)"
	assert_line "RESULT skip rc=1"
	served_line skip
	result_lines skip | grep -qE '^mmubench: migrate: slot 1 gfn 0x100005 differs at the destination from byte [0-9]+ on \(.*; never sent\)$' ||
		fail "skip: page 5 not named: $(result_lines skip)"
}

@test "migrate from the L2: the destination checked, a page never sent named (x86 6.1, 6.12)" {
	both_bases migrate_checked
}

@test "--nested-guest is refused before any VM where this KVM has no nested SVM, naming it" {
	local nested=/sys/module/kvm_amd/parameters/nested
	[[ ! -r $nested ]] || [[ $(<"$nested") != [Y1]* ]] ||
		skip "this machine's kvm_amd has nested=1: the option is taken here"
	run "$MMUBENCH" touch --nested-guest -b 4m --guest "$GUEST"
	assert_failure 2
	if [[ ! -e /dev/kvm ]]; then
		assert_output "mmubench: --nested-guest: /dev/kvm: No such file or directory"
	elif [[ -r $nested ]]; then
		assert_output --regexp "^mmubench: --nested-guest: kvm_amd.nested is [0N]: reload it with nested=1 "
	else
		assert_output --regexp "^mmubench: --nested-guest: needs AMD SVM: (this KVM is [a-z_]+, not kvm_amd|kvm_amd is not loaded) \($nested is missing\)"
	fi
}

@test "--nested-guest: bad input and the options it does not go with, exit 2 before any VM" {
	run "$MMUBENCH" touch --l2-page 2m --guest "$GUEST"
	assert_failure 2
	assert_output "mmubench: --l2-page: only with --nested-guest"
	run "$MMUBENCH" touch --nested-guest --l2-page 3m --guest "$GUEST"
	assert_failure 2
	assert_output "mmubench: --l2-page 3m: unknown page size (accepted: 4k, 2m, 1g)"
	run "$MMUBENCH" touch --nested-guest -s guest_memfd --guest "$GUEST"
	assert_failure 2
	assert_output "mmubench: --nested-guest: not with -s guest_memfd (private memory has no nested page table here)"
	run "$MMUBENCH" touch --nested-guest --prefault --guest "$GUEST"
	assert_failure 2
	assert_output "mmubench: --nested-guest: not with --prefault (KVM_PRE_FAULT_MEMORY maps the guest's TDP, never the L2's shadow)"
	run "$MMUBENCH" touch --nested-guest -b 3m --l2-page 2m --guest "$GUEST"
	assert_failure 2
	assert_output "mmubench: -b 3M: must be a multiple of --l2-page 2M"
	run "$MMUBENCH" migrate --backend qemu --nested-guest --guest "$GUEST"
	assert_failure 2
	assert_output "mmubench: --nested-guest: this run boots no guest on KVM (accepted: the KVM backend)"
}

@test "--nested-guest on arm64: refused, x86_64 only" {
	require_nested
	batch a61
	assert_line "RESULT refused rc=2"
	assert_line "mmubench: --nested-guest: x86_64 only: the guest's L2 runner uses AMD SVM (KVM/arm64 of 6.1 and 6.12 gives its guests no EL2)"
}
