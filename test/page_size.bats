#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
# KVM's own counters prove the page size the test memory is mapped with.
load helpers

# Every run in one boot a kernel (batch_add): this machine's KVM, or
# else the nested one (whose TDP MMU run then shares it).
setup_file() {
	batch_add kvm -- '
one thp2m touch -b 16m -s anonymous_thp --guest-page 2m -i 1
one tlb2m touch -b 16m -s anonymous_hugetlb_2mb --reserve-hugepages --guest-page 2m -i 1
one anon4k touch -b 16m -s anonymous --guest-page 2m -i 1
one thp4k touch -b 16m -s anonymous_thp --guest-page 4k -i 1'
	batch_add tdp --nested -- '
one tdp-thp4k touch -b 16m -s anonymous_thp --guest-page 4k -i 1'
	batch_boots
}

setup() {
	J=$BATS_TEST_TMPDIR/r.json
}

# kvm_run BATCH TAG: the run passed; its document in J.
kvm_run() {
	batch "$1"
	assert_line "RESULT $2 rc=0"
	result_json "$2" >"$J"
}

@test "2M guest pages on THP map 2M in KVM (pages_2m > 0)" {
	require_kvm
	kvm_run kvm thp2m
	(( $(json_stat "$J" populate vm pages_2m) >= 4 ))
}

@test "2M guest pages on hugetlb map 2M in KVM (pages_2m > 0)" {
	require_kvm
	kvm_run kvm tlb2m
	(( $(json_stat "$J" populate vm pages_2m) >= 4 ))
}

@test "4K backing maps 4K only, even under 2M guest pages (pages_2m = 0)" {
	require_kvm
	kvm_run kvm anon4k
	assert_equal "$(json_stat "$J" populate vm pages_2m)" 0
	(( $(json_stat "$J" populate vm pages_4k) >= 4096 ))
}

# The shadow MMU cannot map larger than the guest does; TDP (NPT/EPT)
# follows the host page alone.  Both are shown where both exist: the
# machine's own KVM (a shadow MMU on these cloud machines) and the nested
# kernel's TDP MMU, which every machine runs.
thp_under_4k_guest_pages() { # MMU(shadow|tdp_mmu) BATCH TAG
	local want=$1
	kvm_run "$2" "$3"
	local mmu
	mmu=$(json_val "$J" .env.mmu)
	[[ $want == any || $mmu == "$want" ]] || fail "expected the $want MMU, ran on $mmu"
	if [[ $mmu == shadow ]]; then
		assert_equal "$(json_stat "$J" populate vm pages_2m)" 0
		(( $(json_stat "$J" populate vm pages_4k) >= 4096 ))
	else
		(( $(json_stat "$J" populate vm pages_2m) >= 4 ))
	fi
}

@test "4K guest pages on THP, this machine's KVM: 4K only with a shadow MMU, 2M with TDP" {
	[[ $MMUB_DIRECT == 1 ]] || skip "$MMUB_DIRECT (the nested test below runs anyway)"
	thp_under_4k_guest_pages any kvm thp4k
}

@test "4K guest pages on THP, nested TDP MMU: 2M mappings" {
	require_nested
	thp_under_4k_guest_pages tdp_mmu tdp tdp-thp4k
}
