// SPDX-License-Identifier: GPL-2.0
/*
 * arm64 services for the EL0 core: doorbell, serial, exit (the clock is
 * common/arch/arm64/clock.c).  Every instruction here is legal at EL0:
 * the doorbell and the PL011 because they are mapped for EL0, and the
 * exit goes through an SVC to EL1.
 */
#include "../../guest.h"
#include "arm64.h"

/*
 * One plain 32-bit store (so the syndrome is valid and KVM can hand it
 * to the VMM as KVM_EXIT_MMIO) to an address no memslot backs.
 */
void arch_doorbell(u32 event)
{
	asm volatile("str %w0, [%1]"
		     : : "r"(event), "r"(MMUB_ARM64_DOORBELL_GPA) : "memory");
}

void arch_serial_write(const char *s, size_t n)
{
	volatile u32 *uart = (volatile u32 *)PL011_BASE;
	size_t i;

	for (i = 0; i < n; i++) {
		while (uart[PL011_FR / 4] & PL011_FR_TXFF)
			;
		uart[PL011_DR / 4] = (u8)s[i];
	}
}

void arch_standalone_exit(int status)
{
	register u64 x0 asm("x0") = (u64)(s64)status;

	asm volatile("svc %1" : : "r"(x0), "i"(SVC_EXIT) : "memory");
	/* EL1 does not come back from an exit. */
	for (;;)
		arch_relax();
}
