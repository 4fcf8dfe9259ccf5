/*
 * Userspace check for the 6.1 port of "KVM: x86/mmu: Zap empty TDP leaf page
 * tables".  check/run.sh copies the real code (struct tdp_iter, tdp_iter.c,
 * tdp_mmu_iter_cond_resched(), tdp_mmu_zap_completed_empty_leaf_pt() and
 * tdp_mmu_zap_leafs()) out of a patched kernel tree into extracted.c; this
 * file stubs the rest and runs tdp_mmu_zap_leafs() over random 4-level TDP
 * tables and random zap ranges, with random yields.  Checked:
 *  - every present leaf in [start, end) is zapped, nothing outside;
 *  - a 4K leaf table is unlinked iff its 2M range lies inside [start, end)
 *    and it had no present leaf before the pass (so it was empty), and the
 *    unlinked table really is empty when it is removed;
 *  - no RCU read-side section ends while a removed table awaits a TLB flush;
 *  - when a table was unlinked, the function returns flush == false.
 * Not modelled: concurrent vCPU faults, A/D bits, MMIO generation.
 *
 * Built with -DEXPECT_NO_UNLINK (../../tdp-mmu-no-unlink-control/check/),
 * the same walk must unlink nothing: a covered empty table stays linked,
 * as in the original kernel; the run counts how many such tables v2
 * would have unlinked, so that the check is known to have met them.
 */
#include <stdio.h>
#include <stdlib.h>
#include <stdbool.h>
#include <string.h>
#include <assert.h>
#include <stdint.h>

typedef uint64_t u64;
typedef u64 gfn_t;
typedef u64 *tdp_ptep_t;
#define PAGE_SHIFT 12
#define PT64_ROOT_MAX_LEVEL 5
#define PG_LEVEL_4K 1
#define PG_LEVEL_2M 2
#define PG_LEVEL_1G 3
#define SPTE_ENT_PER_PAGE 512
#define SPTE_INDEX(a, l) (((a) >> (PAGE_SHIFT + ((l) - 1) * 9)) & 511)
#define KVM_PAGES_PER_HPAGE(l) (1ULL << (((l) - 1) * 9))
#define rcu_dereference(p) (p)
#define WARN_ON(c) ({ int __c = !!(c); assert(!__c); __c; })
#define __must_check
#define min(a, b) ((a) < (b) ? (a) : (b))
#define lockdep_assert_held_write(x) do { } while (0)

#define NPAGES 4096
static u64 pool[NPAGES][512] __attribute__((aligned(4096)));
struct kvm_mmu_page {
	struct { int level; bool invalid; } role;
	u64 *spt; tdp_ptep_t ptep; gfn_t gfn; bool used, freed;
	bool had_present; /* model: 4K table had a present leaf before the pass */
};
static struct kvm_mmu_page sps[NPAGES];
static int next_page = 1;
struct kvm { int mmu_lock; };

static u64 kvm_tdp_mmu_read_spte(tdp_ptep_t p) { return *p; }
static bool is_shadow_present_pte(u64 s) { return s & 1; }
static bool is_last_spte(u64 s, int level) { return level == 1 || (s & 0x80); }
static u64 spte_to_pfn(u64 s) { return s >> 12; }
static void *__va(u64 pa) { return pool[pa >> 12]; }
static int kvm_mmu_page_as_id(struct kvm_mmu_page *sp) { (void)sp; return 0; }
static struct kvm_mmu_page *spte_to_child_sp(u64 s) { return &sps[s >> 12]; }
static struct kvm_mmu_page *sptep_to_sp(u64 *p) { return &sps[(p - &pool[0][0]) / 512]; }
static gfn_t tdp_mmu_max_gfn_exclusive(void) { return 1ULL << 36; }

static int in_rcu, pending_free, nr_flush, nr_unlink, yield_pct;
#ifdef EXPECT_NO_UNLINK
static long nr_kept;	/* covered empty tables left linked */
#endif
static void rcu_read_lock(void) { assert(!in_rcu); in_rcu = 1; }
static void rcu_read_unlock(void) { assert(in_rcu); assert(pending_free == 0); in_rcu = 0; }
static void kvm_flush_remote_tlbs(struct kvm *k) { (void)k; nr_flush++; pending_free = 0; }
static bool need_resched(void) { return yield_pct && rand() % 100 < yield_pct; }
static bool rwlock_needbreak(int *l) { (void)l; return false; }
static void cond_resched_rwlock_write(int *l) { (void)l; }
static void cond_resched_rwlock_read(int *l) { (void)l; }

struct tdp_iter;
/* leaf zap through the iterator (6.1 tdp_mmu_set_spte(kvm, iter, 0)) */
static void tdp_mmu_set_spte(struct kvm *k, struct tdp_iter *iter, u64 new);
/* 6.1 __tdp_mmu_set_spte(), reduced to what matters here */
static u64 __tdp_mmu_set_spte(struct kvm *k, int as_id, tdp_ptep_t sptep,
			      u64 old, u64 new, gfn_t gfn, int level, bool a, bool d)
{
	assert(in_rcu);
	assert(*sptep == old);
	*sptep = new;
	if (is_shadow_present_pte(old) && !is_last_spte(old, level)) {
		struct kvm_mmu_page *c = spte_to_child_sp(old);
		int i;
		assert(c->used && !c->freed && c->role.level == level - 1);
		assert(c->gfn == gfn);
		for (i = 0; i < 512; i++) /* no concurrency here: must be empty */
			assert(!is_shadow_present_pte(c->spt[i]));
		c->freed = true; pending_free++; nr_unlink++;
	}
	return old;
}

#include "extracted.c"

static void tdp_mmu_set_spte(struct kvm *k, struct tdp_iter *iter, u64 new)
{
	assert(is_last_spte(iter->old_spte, iter->level));
	iter->old_spte = __tdp_mmu_set_spte(k, 0, iter->sptep, iter->old_spte,
					    new, iter->gfn, iter->level, true, true);
}

static struct kvm_mmu_page *alloc_table(int level, gfn_t gfn, tdp_ptep_t parent)
{
	int n = next_page++;
	assert(n < NPAGES);
	memset(pool[n], 0, sizeof(pool[n]));
	sps[n] = (struct kvm_mmu_page){ .role.level = level, .spt = pool[n],
					.ptep = parent, .gfn = gfn, .used = true };
	if (parent)
		*parent = ((u64)n << 12) | 1;
	return &sps[n];
}

static u64 leaf(int level) { return ((u64)(rand() % 100000 + NPAGES) << 12) | 1 | (level > 1 ? 0x80 : 0); }

int main(int argc, char **argv)
{
	int iters = argc > 1 ? atoi(argv[1]) : 2000, it;
	srand(12345);
	for (it = 0; it < iters; it++) {
		struct kvm kvm = {0};
		struct kvm_mmu_page *root;
		gfn_t base = 0x40000; /* 1G-aligned gfn window start (gfn 1G = 2^18) */
		gfn_t start, end, g;
		int i, j, k;
		bool ret;

		next_page = 1; nr_unlink = 0; nr_flush = 0; pending_free = 0;
		memset(sps, 0, sizeof(sps));
		yield_pct = rand() % 3 == 0 ? rand() % 30 : 0;
		root = alloc_table(4, 0, NULL);
		{
			struct kvm_mmu_page *l3 = alloc_table(3, 0, &root->spt[0]);
			for (i = 0; i < 4; i++) {
				int kind = rand() % 6;
				gfn_t g1 = base + (gfn_t)i * 512 * 512;
				tdp_ptep_t p3 = &l3->spt[SPTE_INDEX(g1 << 12, 3)];
				if (kind == 0) continue;
				if (kind == 1) { *p3 = leaf(3); continue; }
				struct kvm_mmu_page *l2 = alloc_table(2, g1, p3);
				for (j = 0; j < 512; j++) {
					int k2 = rand() % 8;
					gfn_t g2 = g1 + (gfn_t)j * 512;
					if (k2 <= 2) continue;
					if (k2 == 3) { l2->spt[j] = leaf(2); continue; }
					struct kvm_mmu_page *l1 = alloc_table(1, g2, &l2->spt[j]);
					int fill = rand() % 4; /* empty, sparse, full, mmio-only */
					for (k = 0; k < 512; k++) {
						if (fill == 1 && rand() % 64 == 0) l1->spt[k] = leaf(1);
						if (fill == 2) l1->spt[k] = leaf(1);
						if (fill == 3 && rand() % 64 == 0) l1->spt[k] = 0x6; /* non-present "MMIO" */
					}
				}
			}
		}
		for (i = 1; i < next_page; i++)
			if (sps[i].role.level == 1)
				for (k = 0; k < 512; k++)
					sps[i].had_present |= is_shadow_present_pte(sps[i].spt[k]);
		/* random range, sometimes 2M aligned */
		start = base + rand() % (4 * 512 * 512);
		end = start + 1 + rand() % (2 * 512 * 512);
		if (rand() % 2) { start &= ~511ULL; end = (end + 511) & ~511ULL; }
		if (end > base + 4 * 512 * 512) end = base + 4 * 512 * 512;

		rcu_read_lock(); rcu_read_unlock(); /* sanity */
		pending_free = 0;
		ret = tdp_mmu_zap_leafs(&kvm, root, start, end, true, false);
		assert(!in_rcu && pending_free == 0);

		/* check every 4K table */
		for (i = 1; i < next_page; i++) {
			struct kvm_mmu_page *sp = &sps[i];
			gfn_t lo = sp->gfn, hi = sp->gfn + KVM_PAGES_PER_HPAGE(sp->role.level + 1);
			if (sp->role.level != 1) { assert(!sp->freed); continue; }
			bool covered = lo >= start && hi <= end;
			bool expect_unlink = covered && !sp->had_present;
#ifdef EXPECT_NO_UNLINK
			nr_kept += expect_unlink;
			expect_unlink = false;
#endif
			if (expect_unlink != sp->freed) {
				printf("it %d table gfn %llx covered %d had_present %d freed %d [%llx,%llx)\n",
				       it, (unsigned long long)lo, covered, sp->had_present, sp->freed,
				       (unsigned long long)start, (unsigned long long)end);
				return 1;
			}
			if (sp->freed) { assert(*sp->ptep == 0); continue; }
			for (k = 0; k < 512; k++) {
				g = lo + k;
				if (g >= start && g < end)
					assert(!is_shadow_present_pte(sp->spt[k]));
			}
		}
		if (nr_unlink) assert(ret == false && nr_flush >= 1);
		if (it % 500 == 0)
			printf("it %d: range [%llx,%llx) yield%% %d unlinked %d flushes %d ret %d\n", it,
			       (unsigned long long)start, (unsigned long long)end, yield_pct, nr_unlink, nr_flush, ret);
	}
#ifdef EXPECT_NO_UNLINK
	/* Without such tables the run would prove nothing. */
	if (!nr_kept) {
		printf("no covered empty table in %d iterations\n", iters);
		return 1;
	}
	printf("no-unlink: %ld covered empty tables kept linked\n", nr_kept);
#endif
	printf("OK %d iterations\n", iters);
	return 0;
}
