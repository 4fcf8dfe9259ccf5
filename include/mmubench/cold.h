/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Cold pages: written once before dirty logging starts and never again,
 * as most of a real guest's memory is during a migration.  With
 * KVM_DIRTY_LOG_INITIALLY_SET the first harvest must report each of
 * them (a migration in that mode sends in its first round what it
 * reports, and a cold page left out is lost); in the other modes a cold
 * page reported dirty is a false report.  Under the workload's
 * MMUB_WL_COLD the guest writes them on MMUB_CMD_COLD and its loop
 * leaves them alone.
 *
 * One page in every 64-page word of the dirty bitmap: in word w (test
 * page index / 64), the page at bit 2 * (w % 32) + 1.  Odd, so never
 * the first 4K of a stride of 8K or more, the only page such a stride
 * writes: only a 4K stride has to skip them.  The bit moves from word
 * to word, over every odd bit in 32 words: a kernel's bug at one bit
 * position of its words is seen.  The host's slots are whole words of
 * the test memory (the oracle checks it), so every slot's words have
 * one each.  Shared by the guest's engine and the host's oracle.
 */
#ifndef MMUBENCH_COLD_H
#define MMUBENCH_COLD_H

#include <mmubench/types.h>

/* Is test page @page (index from the start of the test memory) cold? */
static inline bool mmub_cold_page(u64 page)
{
	return (page & 1) && ((page & 63) >> 1) == ((page >> 6) & 31);
}

#endif
