// SPDX-License-Identifier: GPL-2.0
/* x86_64 4-level page-table entry bits for the shared builder. */
#include <mmubench/pgtable.h>

#define X86_P		(1ULL << 0)
#define X86_RW		(1ULL << 1)
#define X86_US		(1ULL << 2)
#define X86_A		(1ULL << 5)
#define X86_D		(1ULL << 6)
#define X86_PS		(1ULL << 7)
#define X86_NX		(1ULL << 63)

static u64 x86_leaf(u32 level, u32 prot)
{
	/*
	 * A and D are preset so the guest's first access is only KVM's
	 * fault, not also a guest page-table update.
	 */
	u64 e = X86_P | X86_A | X86_D;

	if (level > 0)
		e |= X86_PS;
	if (prot & MMUB_PROT_WRITE)
		e |= X86_RW;
	if (prot & MMUB_PROT_USER)
		e |= X86_US;
	if (!(prot & MMUB_PROT_EXEC))
		e |= X86_NX;
	return e;
}

static bool x86_is_leaf(u64 pte, u32 level)
{
	return level == 0 || (pte & X86_PS);
}

static bool x86_present(u64 pte)
{
	return pte & X86_P;
}

/*
 * Tables allow everything (U, RW, X); the leaf decides.  CPL3 code needs
 * the U bit at every level.
 */
const struct mmub_pt_fmt mmub_pt_x86_64 = {
	.name = "x86_64",
	.levels = 4,
	.addr_mask = 0x000ffffffffff000ULL,
	.table = X86_P | X86_RW | X86_US | X86_A,
	.leaf = x86_leaf,
	.is_leaf = x86_is_leaf,
	.present = x86_present,
	.max_leaf_level = 2,
};
