// SPDX-License-Identifier: GPL-2.0
/*
 * The x86_64 guest image after an EFI boot (handover.h): the loader has
 * put the image at its link address, claimed the system and test memory
 * and left boot services; entry-x86_64.S gave us our own GDT and stack.
 * From here on it is the second half of pvh_main(): page tables from the
 * shared builder, a standalone boot info, CR3, the other vCPUs started
 * with INIT/SIPI (x86_start_aps(); the loader claimed the trampoline page
 * and counted the firmware's CPUs), and x86_cpl0_init(), which drops to
 * CPL3.  CPL0 code, built -mgeneral-regs-only like cpu.c.  The APs come
 * out of INIT with nothing of the firmware's CPU state left.
 *
 * Unlike PVH, the CPU is in whatever state the firmware left: the bits of
 * CR4 that would stop CPL0 from using the user-accessible pages the
 * builder makes (SMEP, SMAP, PKE, CET) go, and so do global pages and
 * PCIDs, which could keep the firmware's translations after the CR3 load.
 */
#include <mmubench/boot.h>
#include <mmubench/pgtable.h>
#include "../arch/x86_64/x86.h"
#include "../arch/x86_64/standalone.h"
#include "handover.h"
#include "../guest.h"

#define X86_CR4_PGE	(1ULL << 7)
#define X86_CR4_PCIDE	(1ULL << 17)
#define X86_CR4_SMEP	(1ULL << 20)
#define X86_CR4_SMAP	(1ULL << 21)
#define X86_CR4_PKE	(1ULL << 22)
#define X86_CR4_CET	(1ULL << 23)
#define CR4_CLEAR	(X86_CR4_PGE | X86_CR4_PCIDE | X86_CR4_SMEP | \
			 X86_CR4_SMAP | X86_CR4_PKE | X86_CR4_CET)

static struct mmub_boot_info efi_bi;
extern char __image_start[], __image_end[];
__attribute__((noreturn))
void efi_handover_main(const struct mmub_efi_handover *ho);

static void cpu_setup(void)
{
	u64 cr4;
	u32 lo, hi;

	asm volatile("mov %%cr4, %0" : "=r"(cr4));
	if (cr4 & CR4_CLEAR) {
		cr4 &= ~CR4_CLEAR;
		asm volatile("mov %0, %%cr4" : : "r"(cr4) : "memory");
	}
	/* The builder sets NX on data; firmware need not have enabled it. */
	asm volatile("rdmsr" : "=a"(lo), "=d"(hi) : "c"(MSR_EFER));
	if (!(lo & EFER_NXE))
		asm volatile("wrmsr"
			     : : "a"(lo | EFER_NXE), "d"(hi), "c"(MSR_EFER));
}

void efi_handover_main(const struct mmub_efi_handover *ho)
{
	struct mmub_layout l;
	struct mmub_pt pt;

	if (ho->magic != MMUB_EFI_MAGIC || ho->size != sizeof(*ho))
		early_fail("EFI: ", "no handover from guest.efi's loader");
	if (ho->error[0])
		early_fail(ho->error, "");
	l = ho->layout;
	if (l.image_start != (u64)__image_start ||
	    l.image_end != (u64)__image_end ||
	    l.sys_end > ho->owned_end)
		early_fail("EFI: ", "the loader's layout does not fit this "
			   "image");

	cpu_setup();
	/* Claimed from the firmware, so not zeroed: clear ours. */
	__builtin_memset((void *)l.mailbox, 0, l.pgtable - l.mailbox);
	efi_bi.wl = ho->wl;
	efi_bi.flags |= MMUB_BOOT_STANDALONE;
	x86_build_tables(&l, &pt, mmub_wl_executes(&efi_bi.wl));
	mmub_boot_info_init(&efi_bi, &l);
	efi_bi.pgtable_root = pt.root;
	efi_bi.clk_hz = ho->clk_hz;
	asm volatile("mov %0, %%cr3" : : "r"(pt.root) : "memory");
	x86_start_aps(&efi_bi, &pt);
	x86_cpl0_init(&efi_bi, 0);
}
