// SPDX-License-Identifier: GPL-2.0
/*
 * Lets the host link the guest's engine (for "bench", which runs the
 * guest's loop in a host process to compare): the arch services the
 * engine calls, as a host process provides them.
 */
#include <stdlib.h>
#include <x86intrin.h>
#include <mmubench/engine.h>

u64 arch_clock(void)
{
	return __rdtsc();
}

void arch_relax(void)
{
	_mm_pause();
}

void arch_doorbell(u32 event)
{
	(void)event;
	abort();
}
