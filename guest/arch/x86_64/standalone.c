// SPDX-License-Identifier: GPL-2.0
/* Shared by the x86_64 standalone entries; see standalone.h. */
#include "x86.h"
#include "standalone.h"

static void early_puts(const char *s)
{
	while (*s)
		asm volatile("outb %b0, %w1" : : "a"(*s++), "Nd"(COM1_PORT));
}

void early_fail(const char *what, const char *detail)
{
	early_puts("MMUB error: ");
	early_puts(what);
	early_puts(detail);
	early_puts("\nMMUB-EXIT status=2\n");
	asm volatile("outl %0, %w1" : : "a"(2), "Nd"(QEMU_DEBUG_EXIT_PORT));
	for (;;)
		asm volatile("cli; hlt");
}

static void *identity(void *ctx, u64 gpa)
{
	(void)ctx;
	return (void *)gpa;
}

void x86_build_tables(const struct mmub_layout *l, struct mmub_pt *pt,
		      bool test_exec)
{
	u32 sys = MMUB_PROT_WRITE | MMUB_PROT_EXEC | MMUB_PROT_USER;
	u32 test = MMUB_PROT_WRITE | MMUB_PROT_USER;

	if (test_exec)
		test |= MMUB_PROT_EXEC;
	/* Firmware's memory need not be zero: the root is cleared here. */
	__builtin_memset((void *)l->pgtable, 0, MMUB_SZ_4K);
	if (mmub_pt_init(pt, &mmub_pt_x86_64, identity, NULL, l->pgtable,
			 l->pgtable_size))
		early_fail("page tables: ", "bad pool");
	if (mmub_pt_map(pt, MMUB_SZ_4K, MMUB_SZ_4K, l->sys_end - MMUB_SZ_4K,
			MMUB_SZ_4K, sys) ||
	    mmub_pt_map(pt, l->test_gpa, l->test_gpa, l->test_size,
			l->guest_page, test))
		early_fail("page tables: ", "pool too small or page size "
			   "not supported");
}
