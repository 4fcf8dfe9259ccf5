// SPDX-License-Identifier: GPL-2.0
/*
 * arm64 code planting for the execute workload (at EL0).  One RET
 * (0xd65f03c0) at the start of each visited stride.  The instruction
 * cache is not coherent with stores here, so a new instruction is cleaned
 * to the point of unification and its I-cache line invalidated before it
 * runs; EL1 set SCTLR_EL1.UCI so EL0 may do both.
 */
#include "../../guest.h"

#define A64_RET	0xd65f03c0U

bool arch_code_plant(u64 addr)
{
	volatile u32 *p = (volatile u32 *)addr;

	if (*p == A64_RET)
		return false;
	*p = A64_RET;
	asm volatile("dc cvau, %0\n\t"
		     "dsb ish\n\t"
		     "ic ivau, %0\n\t"
		     "dsb ish\n\t"
		     "isb" : : "r"(addr) : "memory");
	return true;
}

void arch_code_call(u64 addr)
{
	/* BLR clobbers x30 (the return address RET uses) and nothing else. */
	asm volatile("blr %0" : : "r"(addr) : "x30", "memory");
}
