// SPDX-License-Identifier: GPL-2.0
/*
 * The engine's clock and spin hint on arm64, the same at EL0 in the
 * guest and in a Linux process (bench): CNTVCT_EL0, which the guest's EL1
 * set-up (CNTKCTL_EL1.EL0VCTEN) and Linux both let EL0 read.
 */
#include <mmubench/engine.h>

/* The ISB keeps the read from being done before earlier instructions. */
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
