// SPDX-License-Identifier: GPL-2.0
/* guest.efi's loader on arm64 (see loader.h). */
#include "loader.h"

#define EM_AARCH64	183
/* As guest/arch/arm64/arm64.h: the image is linked 2 MiB into RAM. */
#define IMAGE_OFFSET	0x200000
#define CURRENT_EL_1	(1 << 2)
#define FDT_MAGIC	0xd00dfeed
/* As guest/arch/arm64/fdt.c reads them. */
#define FDT_MAX_SIZE	(4 * MMUB_MIB)

const u16 loader_elf_machine = EM_AARCH64;

/* As the virt entry: the system memory starts 2 MiB below the image. */
u64 loader_sys_base(u64 image_start)
{
	return image_start - IMAGE_OFFSET;
}

const char *loader_page_check(u64 page)
{
	(void)page;
	return NULL;
}

/* The image runs at EL1 (its vectors, its TTBR0_EL1 tables). */
const char *loader_cpu_check(void)
{
	u64 el;

	asm volatile("mrs %0, CurrentEL" : "=r"(el));
	if (el != CURRENT_EL_1)
		return "boot: the firmware runs at EL2 (QEMU virtualization=on"
		       "); the guest needs EL1";
	return NULL;
}

static u32 be32(const void *p)
{
	const u8 *b = p;

	return (u32)b[0] << 24 | (u32)b[1] << 16 | (u32)b[2] << 8 | b[3];
}

/* The device tree's size if @fdt has one, else 0. */
static u32 fdt_size(u64 fdt)
{
	u32 size;

	if (!fdt || (fdt & 7) || be32((void *)fdt) != FDT_MAGIC)
		return 0;
	size = be32((void *)(fdt + 4));
	return size <= FDT_MAX_SIZE ? size : 0;
}

/*
 * The image starts the others with PSCI CPU_ON, as the virt entry does,
 * and reads their MPIDRs and the PSCI conduit from the device tree that
 * the firmware publishes in the configuration table.  It also counts the
 * CPUs there: none are counted here.  The tree stays in the firmware's
 * memory, which nothing reuses before the image has read it.
 */
const char *loader_smp_prepare(struct mmub_efi_handover *ho, u32 *nr_cpus)
{
	EFI_GUID guid = EFI_DTB_TABLE_GUID;
	void *fdt = NULL;

	*nr_cpus = 0;
	if (LibGetSystemConfigurationTable(&guid, &fdt) != EFI_SUCCESS ||
	    !fdt_size((u64)fdt))
		return "vcpus: the firmware gives no device tree to find the "
		       "other CPUs in (with QEMU: -M virt,acpi=off)";
	ho->fdt = (u64)fdt;
	return NULL;
}

/* The image reads CNTFRQ_EL0 itself. */
u64 loader_clk_hz(void)
{
	return 0;
}

/* Clean and invalidate [start, end) to the point of coherency. */
static void clean_inval(u64 start, u64 end)
{
	u64 ctr, line, a;

	asm volatile("mrs %0, ctr_el0" : "=r"(ctr));
	line = 4ULL << ((ctr >> 16) & 0xf);
	for (a = mmub_align_down(start, line); a < end; a += line)
		asm volatile("dc civac, %0" : : "r"(a) : "memory");
	asm volatile("dsb sy" ::: "memory");
}

/*
 * The image turns the MMU off first thing and then reads and writes this
 * memory uncached: nothing of it may stay only (or dirty) in the cache.
 * The image was written through the D-cache, so the I-cache goes too.
 */
void loader_enter(u64 entry, struct mmub_efi_handover *ho, u64 start,
		  u64 end)
{
	asm volatile("msr daifset, #0xf" ::: "memory");
	clean_inval(start, end);
	clean_inval((u64)ho, (u64)ho + sizeof(*ho));
	/* The image reads the device tree with the MMU off, too. */
	if (ho->fdt)
		clean_inval(ho->fdt, ho->fdt + fdt_size(ho->fdt));
	asm volatile("ic iallu\n\tdsb sy\n\tisb" ::: "memory");
	((void (*)(struct mmub_efi_handover *))entry)(ho);
	__builtin_unreachable();
}

/*
 * Before the image runs there is no safe way to ask for semihosting (its
 * HLT is undefined without -semihosting): power off; QEMU exits 0 and the
 * console says why.
 */
void loader_fail_exit(void)
{
	RT->ResetSystem(EfiResetShutdown, EFI_ABORTED, 0, NULL);
	for (;;)
		asm volatile("wfi");
}
