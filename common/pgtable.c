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

/* Hand out a table; the pool is guest memory that starts out zeroed. */
static int alloc_table(struct mmub_pt *pt, u64 *gpa)
{
	u64 *t;
	u32 i;

	if (pt->pool + MMUB_SZ_4K > pt->pool_end)
		return -1;
	*gpa = pt->pool;
	pt->pool += MMUB_SZ_4K;
	pt->tables++;
	t = table_of(pt, *gpa);
	for (i = 0; i < PT_ENTRIES; i++)
		t[i] = 0;
	return 0;
}

static int map_one(struct mmub_pt *pt, u64 va, u64 pa, u32 leaf_level,
		   u32 prot)
{
	const struct mmub_pt_fmt *f = pt->fmt;
	u64 *t = table_of(pt, pt->root);
	u64 next, leaf;
	u32 level;

	for (level = f->levels - 1; level > leaf_level; level--) {
		u64 *e = &t[level_index(va, level)];

		if (!f->present(*e)) {
			if (alloc_table(pt, &next))
				return -1;
			*e = next | f->table;
		} else if (f->is_leaf(*e, level)) {
			return -1;
		}
		t = table_of(pt, *e & f->addr_mask);
	}
	leaf = (pa & f->addr_mask) | f->leaf(leaf_level, prot);
	if (f->present(t[level_index(va, leaf_level)]) &&
	    t[level_index(va, leaf_level)] != leaf)
		return -1;
	t[level_index(va, leaf_level)] = leaf;
	return 0;
}

int mmub_pt_map(struct mmub_pt *pt, u64 va, u64 pa, u64 size, u64 page,
		u32 prot)
{
	u32 leaf_level;
	u64 off;

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
	for (off = 0; off < size; off += page)
		if (map_one(pt, va + off, pa + off, leaf_level, prot))
			return -1;
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
