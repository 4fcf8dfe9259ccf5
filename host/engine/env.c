// SPDX-License-Identifier: GPL-2.0
/*
 * The guest engine's execute hooks, as the host links the engine for
 * "bench": that loop runs in host memory, which is not executable, and
 * the CLI allows --exec only where a guest runs it.  Reaching these is a
 * bug.
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
