// SPDX-License-Identifier: GPL-2.0
/*
 * The engine's clock and spin hint on x86_64, the same at CPL3 in the
 * guest and in a host process (bench): the TSC, which the guest's CPL0
 * set-up leaves readable from CPL3 (CR4.TSD clear).
 */
#include <mmubench/engine.h>

u64 arch_clock(void)
{
	u32 lo, hi;

	asm volatile("rdtsc" : "=a"(lo), "=d"(hi));
	return ((u64)hi << 32) | lo;
}

void arch_relax(void)
{
	asm volatile("pause" ::: "memory");
}
