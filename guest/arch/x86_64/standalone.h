/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the x86_64 standalone entries (PVH under QEMU, EFI handover) share
 * before the core runs: at CPL0, with no VMM and no printf.
 */
#ifndef GUEST_X86_STANDALONE_H
#define GUEST_X86_STANDALONE_H

#include <mmubench/boot.h>
#include <mmubench/pgtable.h>

/* "MMUB error: WHAT DETAIL" on COM1, then exit status 2. */
__attribute__((noreturn)) void early_fail(const char *what,
					  const char *detail);

/*
 * Identity-map the system memory (page 0 left out, to catch NULL) and
 * the test memory (executable if @test_exec) into tables from l->pgtable.
 */
void x86_build_tables(const struct mmub_layout *l, struct mmub_pt *pt,
		      bool test_exec);

/*
 * Start vCPUs 1..bi->nr_vcpus - 1 into x86_cpl0_init(bi, cpu) with INIT
 * and SIPI to every other CPU (any beyond nr_vcpus stay halted), through
 * a real-mode trampoline at X86_AP_TRAMPOLINE.  @pt must be the live,
 * identity-mapped tables, below 4 GiB, mapping that page; bi->clk_hz must
 * be known.  Returns once all have started, or fails saying how many did.
 */
void x86_start_aps(struct mmub_boot_info *bi, struct mmub_pt *pt);

static inline u64 rdtsc(void)
{
	u32 lo, hi;

	asm volatile("rdtsc" : "=a"(lo), "=d"(hi));
	return ((u64)hi << 32) | lo;
}

__attribute__((noreturn)) void x86_cpl0_init(struct mmub_boot_info *bi,
					     u64 cpu);

#endif
