/*
 * Userspace check for the 6.12 port of "KVM/arm64: Only set bits of dirty
 * bitmap with valid translation entries".  check/run.sh copies the real 6.12
 * stage-2 walker (kvm_pgtable_walk() and helpers from hyp/pgtable.c, the
 * hypervisor's non-RCU variants of the pteref helpers from kvm_pgtable.h) and
 * the patched stage2_mark_range_dirty(), stage2_mark_dirty_walker(),
 * kvm_nested_s2_in_use() and kvm_mmu_mark_dirty_memory_region()
 * (arm64/kvm/mmu.c) into extracted.c.  This file builds random stage-2 tables
 * (4K granule) with 1G blocks, 2M blocks and pages in one of three shapes:
 *   - 39-bit IPA, walk starting at level 1;
 *   - 40-bit IPA, level 1, two concatenated pgd pages, the memory in the
 *     second one (IPA 513G..521G);
 *   - 48-bit IPA, walk starting at level 0;
 * a random memslot (aligned or not), a dirty bitmap with random bits already
 * set, and 0-3 nested stage-2 MMUs, valid or not; and checks that afterwards
 *   bit == old bit || (page in slot && (page covered by a valid leaf ||
 *                                       a nested stage-2 MMU is valid)),
 * i.e. exactly the mapped pages are added (every page of the slot while a
 * shadow stage-2 may map some), nothing outside the slot is touched, and
 * bits set before (concurrent mark_page_dirty()) are kept.
 * Little-endian host only (set_bit_le() is modelled as set_bit()).
 */
#include <stdio.h>
#include <stdlib.h>
#include <stdbool.h>
#include <string.h>
#include <assert.h>
#include <stdint.h>
#include <stddef.h>
typedef uint64_t u64; typedef uint32_t u32; typedef uint8_t u8; typedef int8_t s8;
typedef u64 kvm_pte_t; typedef u64 phys_addr_t; typedef u64 gfn_t;
#define PAGE_SHIFT 12
#define PAGE_SIZE (1ULL << PAGE_SHIFT)
#define BIT(x) (1ULL << (x))
#define BITS_PER_LONG 64
#define PTRS_PER_PTE 512
#define ARM64_HW_PGTABLE_LEVEL_SHIFT(n) ((PAGE_SHIFT - 3) * (4 - (n)) + 3)
#define KVM_PGTABLE_FIRST_LEVEL -1
#define KVM_PGTABLE_LAST_LEVEL 3
#define KVM_PGTABLE_MIN_BLOCK_LEVEL 1
#define KVM_PTE_VALID BIT(0)
#define KVM_PTE_TYPE BIT(1)
#define KVM_PTE_TYPE_TABLE 1
#define VTTBR_CNP_BIT BIT(0)
#define FIELD_GET(m, v) (((v) & (m)) >> __builtin_ctzll(m))
#define ALIGN_DOWN(x, a) ((x) & ~((u64)(a) - 1))
#define PAGE_ALIGN(x) (((x) + PAGE_SIZE - 1) & ~(PAGE_SIZE - 1))
#define IS_ALIGNED(x, a) (((x) & ((u64)(a) - 1)) == 0)
#define WARN_ON_ONCE(c) ({ int __c = !!(c); assert(!__c); __c; })
#define READ_ONCE(x) (x)
#define WRITE_ONCE(x, v) ((x) = (v))
#define min(a, b) ((a) < (b) ? (a) : (b))
#define unlikely(x) (x)
#define ERANGE 34
#define EINVAL 22
#define EPERM 1
#define EAGAIN 11
#define __rcu
#define lockdep_assert_held_write(l) ((void)(l))
struct kvm_pgtable_mm_ops { void *(*phys_to_virt)(phys_addr_t); };
enum kvm_pgtable_stage2_flags { KVM_PGTABLE_S2_NOFWB = BIT(0) };
typedef void *kvm_pgtable_force_pte_cb_t;
struct kvm_pgtable_walker;
static inline void kvm_pgtable_walk_end(struct kvm_pgtable_walker *walker) {}
static u64 kvm_pte_to_phys(kvm_pte_t pte) { return pte & (((1ULL << 48) - 1) & ~(PAGE_SIZE - 1)); }
#define NPAGES 5000
static u64 pool[NPAGES][512];
static int next_page;
static void *p2v(phys_addr_t pa) { return pool[pa >> PAGE_SHIFT]; }
static struct kvm_pgtable_mm_ops mm_ops = { .phys_to_virt = p2v };
struct kvm_memory_slot { gfn_t base_gfn; unsigned long npages; unsigned long *dirty_bitmap; };
static int resched;
static void write_lock(int *l) { assert(!*l); *l = 1; }
static void write_unlock(int *l) { assert(*l); *l = 0; }
static void cond_resched_rwlock_write(int *l) { assert(*l); resched++; }
static void set_bit_le(unsigned long nr, unsigned long *addr)
{ __atomic_fetch_or(&addr[nr / 64], 1UL << (nr % 64), __ATOMIC_RELAXED); }
struct kvm_pgtable;
struct kvm_s2_mmu { u64 tlb_vttbr; struct kvm_pgtable *pgt; };
struct kvm {
	struct {
		struct kvm_s2_mmu mmu;
		struct kvm_s2_mmu **nested_mmus;
		size_t nested_mmus_size;
	} arch;
	int mmu_lock;
};
#include "extracted.c"

static int alloc_table(void) { int n = next_page++; assert(n < NPAGES); memset(pool[n], 0, sizeof(pool[n])); return n; }
static kvm_pte_t table_pte(int n) { return ((u64)n << PAGE_SHIFT) | 3; }
static kvm_pte_t leaf_pte(s8 level) { return ((u64)(rand() % 1000 + 4096) << PAGE_SHIFT) | 1 | (level == 3 ? 2 : 0); }
/* model: is the IPA mapped by a valid leaf? walk the tables directly */
static bool mapped(struct kvm_pgtable *pgt, u64 ipa)
{
	kvm_pte_t *t = pgt->pgd;
	s8 l;
	for (l = pgt->start_level; l <= 3; l++) {
		u64 shift = kvm_granule_shift(l);
		u64 idx = l == pgt->start_level ?
			(ipa & (BIT(pgt->ia_bits) - 1)) >> shift : (ipa >> shift) & 511;
		kvm_pte_t pte = t[idx];
		if (!(pte & 1)) return false;
		if (l == 3 || !(pte & 2)) return true;
		t = pool[kvm_pte_to_phys(pte) >> PAGE_SHIFT];
	}
	return false;
}
int main(int argc, char **argv)
{
	int iters = argc > 1 ? atoi(argv[1]) : 300, it, shapes[3] = { 0 };
	int nested_valid_runs = 0, nested_invalid_runs = 0;
	srand(777);
	for (it = 0; it < iters; it++) {
		struct kvm_pgtable pgt = { .mm_ops = &mm_ops };
		struct kvm kvm = { .arch.mmu.pgt = &pgt };
		struct kvm_s2_mmu nested[3], *nested_ptrs[3];
		static unsigned long bm[(8ULL << 18) / 64 + 1], init[(8ULL << 18) / 64 + 1];
		struct kvm_memory_slot slot;
		int i, j, k, shape = it % 3, gbase = 0, n;
		kvm_pte_t *l1;
		bool any_valid = false;
		u64 g;
		next_page = 0;
		shapes[shape]++;
		if (shape == 0) {
			pgt.ia_bits = 39; pgt.start_level = 1;
			pgt.pgd = l1 = pool[alloc_table()];
		} else if (shape == 1) {
			/* two concatenated level-1 pages: pool rows are contiguous */
			pgt.ia_bits = 40; pgt.start_level = 1;
			pgt.pgd = pool[alloc_table()];
			alloc_table();
			l1 = pgt.pgd;
			gbase = 512;
		} else {
			int t1;
			pgt.ia_bits = 48; pgt.start_level = 0;
			pgt.pgd = pool[alloc_table()];
			t1 = alloc_table();
			pgt.pgd[0] = table_pte(t1);
			l1 = pool[t1];
		}
		/* populate 1G entries gbase+1..gbase+8 */
		for (i = gbase + 1; i <= gbase + 8; i++) {
			int kind = rand() % 5, t2;
			if (kind == 0) continue;
			if (kind == 1) { l1[i] = leaf_pte(1); continue; }
			t2 = alloc_table(); l1[i] = table_pte(t2);
			for (j = 0; j < 512; j++) {
				int k2 = rand() % 6, t3, fill;
				if (k2 <= 1) continue;
				if (k2 == 2) { pool[t2][j] = leaf_pte(2); continue; }
				t3 = alloc_table(); pool[t2][j] = table_pte(t3);
				fill = rand() % 3;
				for (k = 0; k < 512; k++)
					if (fill == 2 || (fill == 1 && rand() % 50 == 0))
						pool[t3][k] = leaf_pte(3);
			}
		}
		/* 0-3 nested stage-2 MMUs, each valid or not (CnP bit set) */
		n = rand() % 4 == 0 ? 1 + rand() % 3 : 0;
		for (i = 0; i < n; i++) {
			nested[i].tlb_vttbr = rand() % 3 ? VTTBR_CNP_BIT : 0x1000;
			nested[i].pgt = NULL;
			nested_ptrs[i] = &nested[i];
			any_valid |= !(nested[i].tlb_vttbr & VTTBR_CNP_BIT);
		}
		kvm.arch.nested_mmus = nested_ptrs;
		kvm.arch.nested_mmus_size = n;
		if (n) { if (any_valid) nested_valid_runs++; else nested_invalid_runs++; }

		slot.base_gfn = ((u64)(gbase + 1) << 18) + rand() % (7ULL << 18);
		slot.npages = 1 + rand() % (((u64)(gbase + 9) << 18) - slot.base_gfn);
		if (rand() % 3 == 0) { slot.base_gfn &= ~511ULL; slot.npages &= ~511ULL; if (!slot.npages) slot.npages = 512; }
		if (slot.base_gfn + slot.npages > ((u64)(gbase + 9) << 18))
			slot.npages = ((u64)(gbase + 9) << 18) - slot.base_gfn;
		slot.dirty_bitmap = bm;
		for (i = 0; i < (int)(sizeof(bm) / 8); i++)
			init[i] = bm[i] = rand() % 4 == 0 ? ((unsigned long)rand() << 33 | rand()) & ((unsigned long)rand() << 20 | rand()) : 0;
		/* bits beyond npages must stay untouched */
		resched = 0;
		kvm_mmu_mark_dirty_memory_region(&kvm, &slot);
		assert(!kvm.mmu_lock);
		for (g = 0; g < sizeof(bm) * 8; g++) {
			bool was = init[g / 64] >> (g % 64) & 1;
			bool is = bm[g / 64] >> (g % 64) & 1;
			bool exp = was || (g < slot.npages &&
					   (any_valid || mapped(&pgt, (slot.base_gfn + g) << PAGE_SHIFT)));
			if (is != exp) {
				printf("it %d shape %d nested %d/%d rel gfn %llx: is %d exp %d (slot %llx+%lx)\n",
				       it, shape, any_valid, n, (unsigned long long)g, is, exp,
				       (unsigned long long)slot.base_gfn, slot.npages);
				return 1;
			}
		}
		if (it % 50 == 0) printf("it %d shape %d slot %llx+%lx tables %d nested %d/%d resched %d\n", it,
					 shape, (unsigned long long)slot.base_gfn, slot.npages,
					 next_page, any_valid, n, resched);
	}
	printf("shapes: ia39/l1 %d, ia40/l1 concatenated %d, ia48/l0 %d; "
	       "nested: valid %d, all invalid %d\n", shapes[0], shapes[1], shapes[2],
	       nested_valid_runs, nested_invalid_runs);
	printf("OK %d iterations\n", iters);
	return 0;
}
