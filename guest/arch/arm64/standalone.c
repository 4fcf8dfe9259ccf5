// SPDX-License-Identifier: GPL-2.0
/* Shared by the arm64 standalone entries; see standalone.h. */
#include "arm64.h"
#include "standalone.h"

extern char __image_start[], __ro_end[];

void early_fail(const char *what, const char *detail)
{
	arm64_el1_puts("MMUB error: ");
	arm64_el1_puts(what);
	arm64_el1_puts(detail);
	arm64_el1_puts("\nMMUB-EXIT status=2\n");
	arm64_el1_exit(2);
}

/* Device memory while the MMU is off: aligned 8-byte stores only. */
static void zero_page(u64 addr)
{
	u64 *p = (u64 *)addr;
	u32 i;

	for (i = 0; i < MMUB_SZ_4K / 8; i++)
		p[i] = 0;
}

void arm64_build_tables(const struct mmub_layout *l, struct mmub_pt *pt,
			bool test_exec)
{
	u32 rw = MMUB_PROT_WRITE | MMUB_PROT_USER;
	u32 ro = MMUB_PROT_EXEC | MMUB_PROT_USER;
	u32 test = rw | (test_exec ? MMUB_PROT_EXEC : 0);
	u64 img = (u64)__image_start, ro_end = (u64)__ro_end;

	zero_page(l->pgtable);
	if (mmub_pt_init(pt, &mmub_pt_arm64, arm64_identity, NULL, l->pgtable,
			 l->pgtable_size))
		early_fail("page tables: ", "bad pool");
	if (mmub_pt_map(pt, l->sys_base + MMUB_SZ_4K, l->sys_base + MMUB_SZ_4K,
			img - l->sys_base - MMUB_SZ_4K, MMUB_SZ_4K, rw) ||
	    mmub_pt_map(pt, img, img, ro_end - img, MMUB_SZ_4K, ro) ||
	    mmub_pt_map(pt, ro_end, ro_end, l->sys_end - ro_end, MMUB_SZ_4K,
			rw) ||
	    mmub_pt_map(pt, PL011_BASE, PL011_BASE, MMUB_SZ_4K, MMUB_SZ_4K,
			rw | MMUB_PROT_DEVICE) ||
	    mmub_pt_map(pt, l->test_gpa, l->test_gpa, l->test_size,
			l->guest_page, test))
		early_fail("page tables: ", "pool too small or page size "
			   "not supported");
}
