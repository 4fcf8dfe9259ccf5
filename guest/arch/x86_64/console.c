// SPDX-License-Identifier: GPL-2.0
/*
 * x86_64 services for the CPL3 core: doorbell, serial, exit (the clock is
 * common/arch/x86_64/clock.c).
 */
#include "../../guest.h"
#include "x86.h"

/* One exit to the VMM, only for rare events; see MMUB_X86_DOORBELL_GPA. */
void arch_doorbell(u32 event)
{
	asm volatile("movl %0, (%1)"
		     : : "r"(event), "r"(MMUB_X86_DOORBELL_GPA) : "memory");
}

static u8 inb(u16 port)
{
	u8 v;

	asm volatile("inb %w1, %0" : "=a"(v) : "Nd"(port));
	return v;
}

void arch_serial_write(const char *s, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		/* Wait for the transmitter; QEMU's is always ready. */
		while (!(inb(COM1_PORT + 5) & 0x20))
			;
		asm volatile("outb %b0, %w1" : : "a"(s[i]), "Nd"(COM1_PORT));
	}
}

void arch_standalone_exit(int status)
{
	asm volatile("outl %0, %w1"
		     : : "a"((u32)status), "Nd"(QEMU_DEBUG_EXIT_PORT));
	/* No isa-debug-exit device: spin; the runner's timeout ends us. */
	for (;;)
		arch_relax();
}
