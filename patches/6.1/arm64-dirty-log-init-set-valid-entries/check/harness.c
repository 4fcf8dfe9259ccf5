/*
 * Userspace check for the 6.1 port of "KVM/arm64: Only set bits of dirty
 * bitmap with valid translation entries".  check/run.sh copies the real 6.1
 * stage-2 walker (kvm_pgtable_walk() and helpers from hyp/pgtable.c) and the
 * patched stage2_mark_range_dirty(), stage2_mark_dirty_walker() and
 * kvm_mmu_mark_dirty_memory_region() (arm64/kvm/mmu.c) into extracted.c; this
 * file builds random 3-level (4K granule, 39-bit IPA) stage-2 tables with 1G
 * blocks, 2M blocks and pages, a random memslot (aligned or not) and a dirty
 * bitmap with random bits already set, and checks that afterwards
 *   bit == old bit || (page in slot && page covered by a valid leaf),
 * i.e. exactly the mapped pages are added, nothing outside the slot is
 * touched, and bits set before (concurrent mark_page_dirty()) are kept.
 * Little-endian host only (set_bit_le() is modelled as set_bit()).
 */
#include <stdio.h>
#include <stdlib.h>
#include <stdbool.h>
#include <string.h>
#include <assert.h>
#include <stdint.h>
typedef uint64_t u64; typedef uint32_t u32; typedef uint8_t u8;
typedef u64 kvm_pte_t; typedef u64 phys_addr_t; typedef u64 gfn_t;
#define PAGE_SHIFT 12
#define PAGE_SIZE (1ULL << PAGE_SHIFT)
#define BIT(x) (1ULL << (x))
#define BITS_PER_LONG 64
#define PTRS_PER_PTE 512
#define KVM_PGTABLE_MAX_LEVELS 4U
#define KVM_PGTABLE_MIN_BLOCK_LEVEL 1U
#define KVM_PTE_VALID BIT(0)
#define KVM_PTE_TYPE BIT(1)
#define KVM_PTE_TYPE_TABLE 1
#define FIELD_GET(m, v) (((v) & (m)) >> __builtin_ctzll(m))
#define ALIGN_DOWN(x, a) ((x) & ~((u64)(a) - 1))
#define PAGE_ALIGN(x) (((x) + PAGE_SIZE - 1) & ~(PAGE_SIZE - 1))
#define IS_ALIGNED(x, a) (((x) & ((u64)(a) - 1)) == 0)
#define WARN_ON_ONCE(c) ({ int __c = !!(c); assert(!__c); __c; })
#define READ_ONCE(x) (x)
#define WRITE_ONCE(x, v) ((x) = (v))
#define min(a, b) ((a) < (b) ? (a) : (b))
#define ERANGE 34
#define EINVAL 22
static bool kvm_pte_valid(kvm_pte_t pte) { return pte & KVM_PTE_VALID; }
static u64 kvm_granule_shift(u32 level) { return (PAGE_SHIFT - 3) * (4 - level) + 3; }
static u64 kvm_granule_size(u32 level) { return BIT(kvm_granule_shift(level)); }
static u64 kvm_pte_to_phys(kvm_pte_t pte) { return pte & (((1ULL << 48) - 1) & ~(PAGE_SIZE - 1)); }
#define NPAGES 5000
static u64 pool[NPAGES][512];
static int next_page;
struct kvm_pgtable_mm_ops { void *(*phys_to_virt)(phys_addr_t); };
static void *p2v(phys_addr_t pa) { return pool[pa >> PAGE_SHIFT]; }
static struct kvm_pgtable_mm_ops mm_ops = { .phys_to_virt = p2v };
struct kvm_pgtable { u32 ia_bits; u32 start_level; kvm_pte_t *pgd; struct kvm_pgtable_mm_ops *mm_ops; };
struct kvm_memory_slot { gfn_t base_gfn; unsigned long npages; unsigned long *dirty_bitmap; };
struct kvm { struct { struct { struct kvm_pgtable *pgt; } mmu; } arch; int mmu_lock; };
static int resched;
static void write_lock(int *l) { (void)l; }
static void write_unlock(int *l) { (void)l; }
static void cond_resched_rwlock_write(int *l) { (void)l; resched++; }
static void set_bit_le(unsigned long nr, unsigned long *addr)
{ __atomic_fetch_or(&addr[nr / 64], 1UL << (nr % 64), __ATOMIC_RELAXED); }
#include "extracted.c"

static int alloc_table(void) { int n = next_page++; assert(n < NPAGES); memset(pool[n], 0, sizeof(pool[n])); return n; }
static kvm_pte_t table_pte(int n) { return ((u64)n << PAGE_SHIFT) | 3; }
static kvm_pte_t leaf_pte(u32 level) { return ((u64)(rand() % 1000 + 4096) << PAGE_SHIFT) | 1 | (level == 3 ? 2 : 0); }
/* model: is gfn mapped by a valid leaf? walk the tables directly */
static bool mapped(struct kvm_pgtable *pgt, u64 ipa)
{
	kvm_pte_t *t = pgt->pgd; u32 l;
	for (l = pgt->start_level; l < 4; l++) {
		kvm_pte_t pte = t[(ipa >> kvm_granule_shift(l)) & 511];
		if (!(pte & 1)) return false;
		if (l == 3 || !(pte & 2)) return true;
		t = pool[kvm_pte_to_phys(pte) >> PAGE_SHIFT];
	}
	return false;
}
int main(int argc, char **argv)
{
	int iters = argc > 1 ? atoi(argv[1]) : 300, it;
	srand(777);
	for (it = 0; it < iters; it++) {
		struct kvm_pgtable pgt = { .ia_bits = 39, .start_level = 1, .mm_ops = &mm_ops };
		struct kvm kvm = { .arch.mmu.pgt = &pgt };
		static unsigned long bm[(8ULL << 18) / 64 + 1], init[(8ULL << 18) / 64 + 1];
		struct kvm_memory_slot slot;
		int i, j, k;
		u64 g;
		next_page = 0;
		pgt.pgd = pool[alloc_table()];
		/* populate 1G entries 1..8 */
		for (i = 1; i <= 8; i++) {
			int kind = rand() % 5;
			if (kind == 0) continue;
			if (kind == 1) { pgt.pgd[i] = leaf_pte(1); continue; }
			int t2 = alloc_table(); pgt.pgd[i] = table_pte(t2);
			for (j = 0; j < 512; j++) {
				int k2 = rand() % 6;
				if (k2 <= 1) continue;
				if (k2 == 2) { pool[t2][j] = leaf_pte(2); continue; }
				int t3 = alloc_table(); pool[t2][j] = table_pte(t3);
				int fill = rand() % 3;
				for (k = 0; k < 512; k++)
					if (fill == 2 || (fill == 1 && rand() % 50 == 0))
						pool[t3][k] = leaf_pte(3);
			}
		}
		slot.base_gfn = (1ULL << 18) + rand() % (7ULL << 18);
		slot.npages = 1 + rand() % ((9ULL << 18) - slot.base_gfn);
		if (rand() % 3 == 0) { slot.base_gfn &= ~511ULL; slot.npages &= ~511ULL; if (!slot.npages) slot.npages = 512; }
		if (slot.base_gfn + slot.npages > (9ULL << 18)) slot.npages = (9ULL << 18) - slot.base_gfn;
		slot.dirty_bitmap = bm;
		for (i = 0; i < (int)(sizeof(bm) / 8); i++)
			init[i] = bm[i] = rand() % 4 == 0 ? ((unsigned long)rand() << 33 | rand()) & ((unsigned long)rand() << 20 | rand()) : 0;
		/* bits beyond npages must stay untouched */
		resched = 0;
		kvm_mmu_mark_dirty_memory_region(&kvm, &slot);
		for (g = 0; g < sizeof(bm) * 8; g++) {
			bool was = init[g / 64] >> (g % 64) & 1;
			bool is = bm[g / 64] >> (g % 64) & 1;
			bool exp = was || (g < slot.npages && mapped(&pgt, (slot.base_gfn + g) << PAGE_SHIFT));
			if (is != exp) {
				printf("it %d rel gfn %llx: is %d exp %d (slot %llx+%lx)\n", it,
				       (unsigned long long)g, is, exp, (unsigned long long)slot.base_gfn, slot.npages);
				return 1;
			}
		}
		if (it % 50 == 0) printf("it %d slot %llx+%lx tables %d resched %d\n", it,
					 (unsigned long long)slot.base_gfn, slot.npages, next_page, resched);
	}
	printf("OK %d iterations\n", iters);
	return 0;
}
