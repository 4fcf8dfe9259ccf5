/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Page-table builder shared by the host (which builds the guest's tables
 * before the first KVM_RUN) and the guest's standalone entries (which
 * build their own after firmware or QEMU hands over).
 *
 * Tables live in guest physical memory; the caller says how to reach a
 * table (gpa -> pointer) and hands out zeroed 4K tables from a region.
 * The format (x86_64 4-level, arm64 stage-1 4K granule) is a small table
 * of bits, so the walker is written once.
 */
#ifndef MMUBENCH_PGTABLE_H
#define MMUBENCH_PGTABLE_H

#include <mmubench/types.h>

#define MMUB_PROT_WRITE	(1U << 0)
#define MMUB_PROT_EXEC	(1U << 1)
#define MMUB_PROT_USER	(1U << 2)
/* Device memory (MMIO: a UART, a doorbell); never executable.  arm64 only. */
#define MMUB_PROT_DEVICE	(1U << 3)

/*
 * MAIR_EL1 that mmub_pt_arm64's AttrIndx values assume: index 0 is
 * Normal write-back (read/write-allocate), index 1 Device-nGnRE.
 */
#define MMUB_ARM64_MAIR	0x04ffULL

struct mmub_pt_fmt {
	const char *name;
	u32 levels;		/* 4: level 3 is the root, level 0 maps 4K */
	u64 addr_mask;		/* output address bits of an entry */
	u64 table;		/* bits of an entry that points to a table */
	u64 (*leaf)(u32 level, u32 prot);	/* bits of a leaf at @level */
	bool (*is_leaf)(u64 pte, u32 level);
	bool (*present)(u64 pte);
	u32 max_leaf_level;	/* 2 = 1G leaves allowed, 1 = 2M only */
};

extern const struct mmub_pt_fmt mmub_pt_x86_64;
extern const struct mmub_pt_fmt mmub_pt_arm64;

struct mmub_pt {
	const struct mmub_pt_fmt *fmt;
	void *(*gpa_to_ptr)(void *ctx, u64 gpa);
	void *ctx;
	u64 pool;		/* next free table (gpa) */
	u64 pool_end;
	u64 root;		/* gpa of the root table */
	u64 tables;		/* tables handed out so far */
	/*
	 * The pool is known to hold zeros (fresh anonymous memory): tables
	 * are not cleared, so each is written once, by its entries.
	 */
	bool pool_zeroed;
};

/* Tables needed to map @size bytes with @page-sized leaves (upper bound). */
u64 mmub_pt_tables_needed(u64 size, u64 page);

int mmub_pt_init(struct mmub_pt *pt, const struct mmub_pt_fmt *fmt,
		 void *(*gpa_to_ptr)(void *, u64), void *ctx,
		 u64 pool, u64 pool_size);

/*
 * Map [va, va + size) to [pa, pa + size) with leaves of @page bytes.
 * va, pa and size must be @page-aligned.  Returns 0, or -1 if the pool
 * is exhausted, the page size is not allowed, or an existing mapping
 * would be overwritten with a different one.
 */
int mmub_pt_map(struct mmub_pt *pt, u64 va, u64 pa, u64 size, u64 page,
		u32 prot);

/* Walk: the leaf entry for @va and its page size, or 0 if unmapped. */
u64 mmub_pt_lookup(struct mmub_pt *pt, u64 va, u64 *page);

/*
 * Give the leaves that map [va, va + size) the attributes of @prot,
 * keeping their output addresses.  Returns 0, or -1 (possibly after
 * changing a part) if some of the range is unmapped or only part of a
 * leaf is covered.  No TLB or cache maintenance: the caller's job.
 */
int mmub_pt_protect(struct mmub_pt *pt, u64 va, u64 size, u32 prot);

#endif
