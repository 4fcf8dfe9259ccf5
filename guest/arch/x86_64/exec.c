// SPDX-License-Identifier: GPL-2.0
/*
 * x86_64 code planting for the execute workload (at CPL3).  One byte,
 * RET (0xc3), at the start of each visited stride.  x86 keeps the
 * instruction stream coherent with stores, so no maintenance is needed.
 */
#include "../../guest.h"

#define X86_RET	0xc3

bool arch_code_plant(u64 addr)
{
	volatile u8 *p = (volatile u8 *)addr;

	if (*p == X86_RET)
		return false;
	*p = X86_RET;
	return true;
}

void arch_code_call(u64 addr)
{
	/*
	 * Called like a function: the RET pops our return address.  The
	 * CALL's push must not land in this function's red zone (CPL3 code
	 * is built with one), so step over it first.
	 */
	asm volatile("lea -128(%%rsp), %%rsp\n\t"
		     "call *%0\n\t"
		     "lea 128(%%rsp), %%rsp" : : "r"(addr) : "memory");
}
