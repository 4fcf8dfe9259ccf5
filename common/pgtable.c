// SPDX-License-Identifier: GPL-2.0
/* Format-independent page-table walker; see include/mmubench/pgtable.h. */
#include <mmubench/pgtable.h>

#define PT_ENTRIES	512

static u64 level_size(u32 level)
{
	return MMUB_SZ_4K << (9 * level);
}

static u32 level_index(u64 va, u32 level)
{
	return (u32)((va >> (12 + 9 * level)) & (PT_ENTRIES - 1));
}

u64 mmub_pt_tables_needed(u64 size, u64 page)
{
	u64 n = 1, span, level;

	/* Per level: tables covering the range, plus one at each edge. */
	for (level = 0; level < 3; level++) {
		span = level_size(level) * PT_ENTRIES;
		if (span <= page)
			continue;
		n += size / span + 2;
	}
	return n;
}

int mmub_pt_init(struct mmub_pt *pt, const struct mmub_pt_fmt *fmt,
		 void *(*gpa_to_ptr)(void *, u64), void *ctx,
		 u64 pool, u64 pool_size)
{
	pt->fmt = fmt;
	pt->gpa_to_ptr = gpa_to_ptr;
	pt->ctx = ctx;
	pt->pool = pool;
	pt->pool_end = pool + pool_size;
	pt->tables = 0;
	pt->root = 0;
	pt->pool_zeroed = false;
	if (!mmub_is_aligned(pool, MMUB_SZ_4K) || pool_size < MMUB_SZ_4K)
		return -1;
	pt->root = pt->pool;
	pt->pool += MMUB_SZ_4K;
	pt->tables = 1;
	return 0;
}

static u64 *table_of(struct mmub_pt *pt, u64 gpa)
{
	return pt->gpa_to_ptr(pt->ctx, gpa);
}

/* Hand out a table, cleared unless the pool is known to be zeros. */
static int alloc_table(struct mmub_pt *pt, u64 *gpa)
{
	u64 *t;
	u32 i;

	if (pt->pool + MMUB_SZ_4K > pt->pool_end)
		return -1;
	*gpa = pt->pool;
	pt->pool += MMUB_SZ_4K;
	pt->tables++;
	if (pt->pool_zeroed)
		return 0;
	t = table_of(pt, *gpa);
	for (i = 0; i < PT_ENTRIES; i++)
		t[i] = 0;
	return 0;
}

/* The table holding @va's entry at @leaf_level, made as needed. */
static u64 *leaf_table(struct mmub_pt *pt, u64 va, u32 leaf_level)
{
	const struct mmub_pt_fmt *f = pt->fmt;
	u64 *t = table_of(pt, pt->root);
	u64 next;
	u32 level;

	for (level = f->levels - 1; level > leaf_level; level--) {
		u64 *e = &t[level_index(va, level)];

		if (!f->present(*e)) {
			if (alloc_table(pt, &next))
				return NULL;
			*e = next | f->table;
		} else if (f->is_leaf(*e, level)) {
			return NULL;
		}
		t = table_of(pt, *e & f->addr_mask);
	}
	return t;
}

/*
 * Fill @t from @va's entry to the table's end or @end, whichever comes
 * first; returns the address after the last entry filled, or 0 if an
 * entry already maps something else.  One walk per table, not per page:
 * a GiB of 4K pages is 512 walks instead of 262144.
 */
static u64 fill_table(struct mmub_pt *pt, u64 *t, u64 va, u64 pa, u64 end,
		      u32 leaf_level, u64 bits)
{
	const struct mmub_pt_fmt *f = pt->fmt;
	u64 page = level_size(leaf_level), leaf;
	u32 i = level_index(va, leaf_level);

	for (; i < PT_ENTRIES && va < end; i++, va += page, pa += page) {
		leaf = (pa & f->addr_mask) | bits;
		if (f->present(t[i]) && t[i] != leaf)
			return 0;
		t[i] = leaf;
	}
	return va;
}

int mmub_pt_map(struct mmub_pt *pt, u64 va, u64 pa, u64 size, u64 page,
		u32 prot)
{
	u64 *t, bits, end, next;
	u32 leaf_level;

	if (page == MMUB_SZ_4K)
		leaf_level = 0;
	else if (page == MMUB_SZ_2M)
		leaf_level = 1;
	else if (page == MMUB_SZ_1G)
		leaf_level = 2;
	else
		return -1;
	if (leaf_level > pt->fmt->max_leaf_level ||
	    !mmub_is_aligned(va | pa | size, page))
		return -1;
	bits = pt->fmt->leaf(leaf_level, prot);
	for (end = va + size; va < end; pa += next - va, va = next) {
		t = leaf_table(pt, va, leaf_level);
		next = t ? fill_table(pt, t, va, pa, end, leaf_level, bits) : 0;
		if (!next)
			return -1;
	}
	return 0;
}

/* The entry mapping @va at the level where the walk ends, or NULL. */
static u64 *leaf_entry(struct mmub_pt *pt, u64 va, u32 *level_out)
{
	const struct mmub_pt_fmt *f = pt->fmt;
	u64 *t = table_of(pt, pt->root);
	u32 level;

	for (level = f->levels - 1;; level--) {
		u64 *e = &t[level_index(va, level)];

		if (!f->present(*e))
			return NULL;
		if (level == 0 || f->is_leaf(*e, level)) {
			*level_out = level;
			return e;
		}
		t = table_of(pt, *e & f->addr_mask);
	}
}

u64 mmub_pt_lookup(struct mmub_pt *pt, u64 va, u64 *page)
{
	u32 level;
	u64 *e = leaf_entry(pt, va, &level);

	if (!e)
		return 0;
	if (page)
		*page = level_size(level);
	return *e;
}

int mmub_pt_protect(struct mmub_pt *pt, u64 va, u64 size, u32 prot)
{
	const struct mmub_pt_fmt *f = pt->fmt;
	u64 end = va + size, *e;
	u32 level;

	while (va < end) {
		e = leaf_entry(pt, va, &level);
		if (!e || !mmub_is_aligned(va, level_size(level)) ||
		    end - va < level_size(level))
			return -1;
		*e = (*e & f->addr_mask) | f->leaf(level, prot);
		va += level_size(level);
	}
	return 0;
}
