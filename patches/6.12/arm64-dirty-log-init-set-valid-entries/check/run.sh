#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Usage: check/run.sh /path/to/linux-6.12-with-this-series-applied [iterations]
# Extracts the patched functions from the kernel tree, compiles them into a
# userspace harness with ASan/UBSan and runs randomized checks (see README).
set -e
src=${1:?usage: $0 KERNEL_SRC [iterations]}
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
p=$src/arch/arm64/kvm/hyp/pgtable.c
h=$src/arch/arm64/include/asm/kvm_pgtable.h
k=$src/arch/arm64/include/asm/kvm_mmu.h
m=$src/arch/arm64/kvm/mmu.c
# shellcheck source=../../../check-lib.sh
. "$here/../../../check-lib.sh"	# ex FILE PATTERN [MODE]
{
	ex "$h" 'static inline bool kvm_pte_valid'
	ex "$h" 'static inline u64 kvm_granule_shift'
	ex "$h" 'static inline u64 kvm_granule_size'
	ex "$h" 'enum kvm_pgtable_walk_flags {' struct
	ex "$h" 'struct kvm_pgtable_visit_ctx {' struct
	ex "$h" 'typedef int (*kvm_pgtable_visitor_fn_t)' decl
	ex "$h" 'static inline bool kvm_pgtable_walk_shared'
	ex "$h" 'struct kvm_pgtable_walker {' struct
	# The first of each pair is the hypervisor's (no RCU), which is what
	# a userspace harness wants.
	ex "$h" 'typedef kvm_pte_t *kvm_pteref_t;' decl
	ex "$h" 'static inline kvm_pte_t *kvm_dereference_pteref'
	ex "$h" 'static inline int kvm_pgtable_walk_begin'
	ex "$h" 'static inline bool kvm_pgtable_walk_lock_held'
	ex "$h" 'struct kvm_pgtable {' struct
	ex "$k" 'static inline bool kvm_s2_mmu_valid'
	ex "$p" 'struct kvm_pgtable_walk_data {' struct
	for f in 'static u32 kvm_pgtable_idx' 'static u32 kvm_pgd_page_idx' \
		 'static bool kvm_pte_table' 'static kvm_pte_t *kvm_pte_follow' \
		 'static int kvm_pgtable_visitor_cb' 'static bool kvm_pgtable_walk_continue'; do
		ex "$p" "$f"
	done
	printf 'static int __kvm_pgtable_walk(struct kvm_pgtable_walk_data *data,\n\t\t\t      struct kvm_pgtable_mm_ops *mm_ops, kvm_pteref_t pgtable, s8 level);\n\n'
	ex "$p" 'static inline int __kvm_pgtable_visit'
	# The definition; check-extract.awk skips the declaration before it.
	ex "$p" 'static int __kvm_pgtable_walk(struct kvm_pgtable_walk_data *data,'
	ex "$p" 'static int _kvm_pgtable_walk'
	ex "$p" 'int kvm_pgtable_walk('
	ex "$m" 'static phys_addr_t __stage2_range_addr_end'
	ex "$m" 'static phys_addr_t stage2_range_addr_end'
	ex "$m" 'static void stage2_mark_range_dirty'
	ex "$m" 'static int stage2_mark_dirty_walker'
	ex "$m" 'static bool kvm_nested_s2_in_use'
	ex "$m" 'static void kvm_mmu_mark_dirty_memory_region'
} >"$tmp/extracted.c"
cp "$here/harness.c" "$tmp/"
cd "$tmp"
${CC:-gcc} -O2 -g -Wall -Wno-unused-function -fsanitize=address,undefined \
	-fno-sanitize-recover=all -o harness harness.c
./harness ${2:+"$2"}
