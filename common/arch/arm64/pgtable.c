// SPDX-License-Identifier: GPL-2.0
/*
 * arm64 stage-1 entry bits for the shared builder: 4K granule, 48-bit VA,
 * four levels (the builder's level 3 is the architecture's level 0).
 * Blocks are allowed at the builder's levels 1 (2M) and 2 (1G).
 *
 * AttrIndx values assume MAIR_EL1 == MMUB_ARM64_MAIR (see pgtable.h).
 */
#include <mmubench/pgtable.h>

#define A64_VALID	(1ULL << 0)
/* A table, or at the last level a page (0 there would be reserved). */
#define A64_TABLE	(1ULL << 1)
#define A64_ATTR(i)	((u64)(i) << 2)
#define A64_AP_EL0	(1ULL << 6)	/* AP[1]: EL0 may access */
#define A64_AP_RO	(1ULL << 7)	/* AP[2]: read-only at every EL */
#define A64_SH_INNER	(3ULL << 8)
#define A64_AF		(1ULL << 10)
#define A64_PXN		(1ULL << 53)
#define A64_UXN		(1ULL << 54)

#define A64_ATTR_NORMAL	0
#define A64_ATTR_DEVICE	1

static u64 a64_leaf(u32 level, u32 prot)
{
	/*
	 * AF is preset so that the first access is only KVM's stage-2
	 * fault, not also an Access Flag fault in the guest.
	 */
	u64 e = A64_VALID | A64_AF | A64_SH_INNER;

	if (level == 0)
		e |= A64_TABLE;
	e |= A64_ATTR(prot & MMUB_PROT_DEVICE ? A64_ATTR_DEVICE :
					       A64_ATTR_NORMAL);
	if (prot & MMUB_PROT_USER)
		e |= A64_AP_EL0;
	if (!(prot & MMUB_PROT_WRITE))
		e |= A64_AP_RO;
	/*
	 * The architecture never lets EL1 execute what EL0 may write, so
	 * USER|WRITE|EXEC is executable at EL0 only; code that EL1 runs
	 * must be mapped without MMUB_PROT_WRITE.
	 */
	if (!(prot & MMUB_PROT_EXEC) || (prot & MMUB_PROT_DEVICE))
		e |= A64_PXN | A64_UXN;
	return e;
}

static bool a64_is_leaf(u64 pte, u32 level)
{
	return level == 0 || !(pte & A64_TABLE);
}

static bool a64_present(u64 pte)
{
	return pte & A64_VALID;
}

/* Tables restrict nothing (APTable, XNTable, PXNTable are 0). */
const struct mmub_pt_fmt mmub_pt_arm64 = {
	.name = "arm64",
	.levels = 4,
	.addr_mask = 0x0000fffffffff000ULL,
	.table = A64_VALID | A64_TABLE,
	.leaf = a64_leaf,
	.is_leaf = a64_is_leaf,
	.present = a64_present,
	.max_leaf_level = 2,
};
