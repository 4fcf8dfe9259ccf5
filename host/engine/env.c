// SPDX-License-Identifier: GPL-2.0
/*
 * What the engine needs from where it runs, as the host links it for
 * "bench" (the clock is common/arch/<arch>/clock.c).  That loop runs in
 * host memory, which is not executable, never exits to a VMM, and the
 * CLI allows --exec only where a guest runs it: reaching these is a bug.
 */
#include <stdlib.h>
#include <mmubench/engine.h>

bool arch_code_plant(u64 addr)
{
	(void)addr;
	abort();
}

void arch_code_call(u64 addr)
{
	(void)addr;
	abort();
}

void arch_doorbell(u32 event)
{
	(void)event;
	abort();
}
