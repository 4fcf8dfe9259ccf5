// SPDX-License-Identifier: GPL-2.0
/*
 * The arm64 guest image after an EFI boot (handover.h): the loader has
 * put the image at its link address, claimed the system and test memory,
 * left boot services and cleaned all of it to the point of coherency;
 * entry-arm64.S turned the MMU off and gave us our own stack and vectors.
 * From here on it is the second half of virt_main(): page tables from the
 * shared builder (with the MMU off), the MMU on, a standalone boot info,
 * the other vCPUs started with PSCI CPU_ON (arm64_start_secondaries()),
 * and arm64_el1_init(), which drops to EL0.  For more than one vCPU the
 * loader passes the firmware's device tree, read here as virt.c reads
 * QEMU's: the MPIDRs of /cpus and the PSCI conduit.
 */
#include <mmubench/boot.h>
#include <mmubench/pgtable.h>
#include "../arch/arm64/arm64.h"
#include "../arch/arm64/standalone.h"
#include "handover.h"
#include "../guest.h"

extern char __image_start[], __ro_end[], __image_end[];
extern struct mmub_boot_info *arm64_boot_info;
__attribute__((noreturn))
void efi_handover_main(const struct mmub_efi_handover *ho);

static struct mmub_boot_info efi_bi;
static struct arm64_fdt_info fdt;

/* The other CPUs and how to start them, with the MMU off. */
static void read_cpus(const struct mmub_efi_handover *ho, u32 vcpus)
{
	const char *m;

	if (vcpus == 1)
		return;
	if (!ho->fdt || arm64_fdt_read((const void *)ho->fdt, &fdt))
		early_fail("device tree: ", "the firmware's is malformed");
	m = fdt.psci_method;
	if (m && (m[0] != 'h' || m[1] != 'v' || m[2] != 'c' || m[3]))
		early_fail("PSCI: ", "the conduit is not HVC");
	if (vcpus > fdt.nr_cpus)
		early_fail("vcpus: ", "more than the CPUs QEMU has (-smp)");
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
	    l.image_end != (u64)__image_end ||
	    l.sys_end > ho->owned_end || l.sys_base > l.image_start)
		early_fail("EFI: ", "the loader's layout does not fit this "
			   "image");
	/* @ho is the loader's memory, which the new tables leave unmapped. */
	read_cpus(ho, l.nr_vcpus);
	efi_bi.wl = ho->wl;
	efi_bi.flags |= MMUB_BOOT_STANDALONE;
	clk_hz = ho->clk_hz;
	arm64_build_tables(&l, &pt, mmub_wl_executes(&efi_bi.wl));
	/* Written with the MMU off: no stale cached copy may hide them. */
	arm64_dcache_inval(l.image_start, l.sys_end);
	arm64_mmu_on(pt.root);

	/* Claimed from the firmware, so not zeroed: clear ours. */
	__builtin_memset((void *)l.mailbox, 0, l.pgtable - l.mailbox);
	mmub_boot_info_init(&efi_bi, &l);
	efi_bi.pgtable_root = pt.root;
	efi_bi.clk_hz = clk_hz;
	arm64_boot_info = &efi_bi;
	arm64_start_secondaries(&efi_bi, &fdt);
	arm64_el1_init(&efi_bi, 0);
}
