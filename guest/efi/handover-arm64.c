// SPDX-License-Identifier: GPL-2.0
/*
 * The arm64 guest image after an EFI boot (handover.h): the loader has
 * put the image at its link address, claimed the system and test memory,
 * left boot services and cleaned all of it to the point of coherency;
 * entry-arm64.S turned the MMU off and gave us our own stack and vectors.
 * From here on it is the second half of virt_main(): page tables from the
 * shared builder (with the MMU off), the MMU on, a standalone boot info,
 * and arm64_el1_init(), which drops to EL0.  One vCPU: PSCI CPU_ON would
 * need the firmware's CPU list, which the loader does not pass.
 */
#include <mmubench/boot.h>
#include <mmubench/pgtable.h>
#include "../arch/arm64/arm64.h"
#include "handover.h"
#include "../guest.h"

extern char __image_start[], __ro_end[], __image_end[];
extern struct mmub_boot_info *arm64_boot_info;
__attribute__((noreturn))
void efi_handover_main(const struct mmub_efi_handover *ho);

static struct mmub_boot_info efi_bi;

__attribute__((noreturn))
static void early_fail(const char *what, const char *detail)
{
	arm64_el1_puts("MMUB error: ");
	arm64_el1_puts(what);
	arm64_el1_puts(detail);
	arm64_el1_puts("\nMMUB-EXIT status=2\n");
	arm64_el1_exit(2);
}

static void zero(u64 start, u64 end)
{
	u64 *p;

	/* Device memory while the MMU is off: aligned 8-byte stores only. */
	for (p = (u64 *)start; (u64)p < end; p++)
		*p = 0;
}

/* As virt.c: text read-only, the rest of the system memory RW, the UART. */
static void build_tables(const struct mmub_layout *l, struct mmub_pt *pt)
{
	u32 rw = MMUB_PROT_WRITE | MMUB_PROT_USER;
	u32 ro = MMUB_PROT_EXEC | MMUB_PROT_USER;
	u32 test = rw | (efi_bi.flags & MMUB_BOOT_TEST_EXEC ?
			 MMUB_PROT_EXEC : 0);
	u64 img = (u64)__image_start, ro_end = (u64)__ro_end;

	zero(l->pgtable, l->pgtable + MMUB_SZ_4K);
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

/* MMU off: every access here is Device memory, read it with care. */
void efi_handover_main(const struct mmub_efi_handover *ho)
{
	struct mmub_layout l;
	struct mmub_pt pt;
	u64 el, clk_hz;

	if (ho->magic != MMUB_EFI_MAGIC || ho->size != sizeof(*ho))
		early_fail("EFI: ", "no handover from guest.efi's loader");
	if (ho->error[0])
		early_fail(ho->error, "");
	asm volatile("mrs %0, CurrentEL" : "=r"(el));
	if (el != (1 << 2))
		early_fail("boot: ", "not entered at EL1");
	l = ho->layout;
	if (l.image_start != (u64)__image_start ||
	    l.image_end != (u64)__image_end || l.nr_vcpus != 1 ||
	    l.sys_end > ho->owned_end || l.sys_base > l.image_start)
		early_fail("EFI: ", "the loader's layout does not fit this "
			   "image");
	/* @ho is the loader's memory, which the new tables leave unmapped. */
	efi_bi.wl = ho->wl;
	efi_bi.flags |= MMUB_BOOT_STANDALONE;
	clk_hz = ho->clk_hz;
	build_tables(&l, &pt);
	/* Written with the MMU off: no stale cached copy may hide them. */
	arm64_dcache_inval(l.image_start, l.sys_end);
	arm64_mmu_on(pt.root);

	/* Claimed from the firmware, so not zeroed: clear ours. */
	__builtin_memset((void *)l.mailbox, 0, l.pgtable - l.mailbox);
	mmub_boot_info_init(&efi_bi, &l);
	efi_bi.pgtable_root = pt.root;
	efi_bi.clk_hz = clk_hz;
	arm64_boot_info = &efi_bi;
	arm64_el1_init(&efi_bi, 0);
}
