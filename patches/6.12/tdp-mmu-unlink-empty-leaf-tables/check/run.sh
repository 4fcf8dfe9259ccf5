#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Usage: check/run.sh /path/to/linux-6.12-with-this-series-applied [iterations]
# Extracts the patched functions from the kernel tree, compiles them into a
# userspace harness with ASan/UBSan and runs randomized checks (see README).
# CHECK_EXPECT=no-unlink: the tree is tdp-mmu-no-unlink-control's, whose
# walk must unlink nothing (its check/run.sh sets it).
set -e
src=${1:?usage: $0 KERNEL_SRC [iterations]}
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
h=$src/arch/x86/kvm/mmu/tdp_iter.h
c=$src/arch/x86/kvm/mmu/tdp_iter.c
m=$src/arch/x86/kvm/mmu/tdp_mmu.c
# shellcheck source=../../../check-lib.sh
. "$here/../../../check-lib.sh"	# ex FILE PATTERN [MODE]
mac() { # FILE NAME: a #define, up to its first line not ending in "\"
	sed -n "/^#define $2(/,/[^\\]\$/p" "$1" | grep . ||
		{ echo "$0: macro '$2' not found in $1" >&2; exit 1; }
	echo
}
{
	ex "$h" 'struct tdp_iter {' struct
	# Used by the pristine tdp_mmu_zap_leafs(), so that the check also
	# runs, and fails, on a tree without the series.
	mac "$h" for_each_tdp_pte_min_level
	! grep -q '^struct tdp_iter_child_event {' "$h" ||
		ex "$h" 'struct tdp_iter_child_event {' struct
	ex "$c" 'static void tdp_iter_refresh_sptep' tail
	# 6.12's leaf zap through the iterator; it calls the harness's
	# tdp_mmu_set_spte(), a model of 6.12's.
	ex "$m" 'static inline void tdp_mmu_iter_set_spte'
	ex "$m" 'static inline bool __must_check tdp_mmu_iter_cond_resched'
	! grep -q 'tdp_mmu_zap_completed_empty_leaf_pt' "$m" ||
		ex "$m" 'static bool tdp_mmu_zap_completed_empty_leaf_pt'
	ex "$m" 'static bool tdp_mmu_zap_leafs'
} >"$tmp/extracted.c"
cp "$here/harness.c" "$tmp/"
cd "$tmp"
case ${CHECK_EXPECT:-unlink} in
unlink) expect= ;;
no-unlink) expect=-DEXPECT_NO_UNLINK ;;
*) echo "$0: CHECK_EXPECT=$CHECK_EXPECT: unlink or no-unlink" >&2; exit 2 ;;
esac
${CC:-gcc} -O2 -g -Wall -Wno-unused-function -fsanitize=address,undefined \
	-fno-sanitize-recover=all $expect -o harness harness.c
./harness ${2:+"$2"}
