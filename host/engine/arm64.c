// SPDX-License-Identifier: GPL-2.0
/*
 * Lets the host link the guest's engine (for "bench", which runs the
 * guest's loop in a host process to compare): the arch services the
 * engine calls, as an arm64 Linux process provides them.  Linux lets
 * EL0 read CNTVCT_EL0, the guest's clock too.
 */
#include <stdlib.h>
#include <mmubench/engine.h>

u64 arch_clock(void)
{
	u64 v;

	asm volatile("isb\n\tmrs %0, cntvct_el0" : "=r"(v) : : "memory");
	return v;
}

void arch_relax(void)
{
	asm volatile("yield" ::: "memory");
}

void arch_doorbell(u32 event)
{
	(void)event;
	abort();
}
