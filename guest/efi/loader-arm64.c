// SPDX-License-Identifier: GPL-2.0
/* guest.efi's loader on arm64 (see loader.h). */
#include "loader.h"

#define EM_AARCH64	183
/* As guest/arch/arm64/arm64.h: the image is linked 2 MiB into RAM. */
#define IMAGE_OFFSET	0x200000
#define CURRENT_EL_1	(1 << 2)

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
