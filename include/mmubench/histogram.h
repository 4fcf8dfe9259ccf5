/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Log-linear latency histogram: values below 16 have a bucket each, larger
 * values get 16 buckets per power of two.  Any percentile read from it is
 * within 1/16 (6.25 %) of the true sample, which is enough for p50, p99 and
 * p99.9 of access latencies, and it never needs a sample buffer, so the
 * guest's hot loop only increments one counter.
 */
#ifndef MMUBENCH_HISTOGRAM_H
#define MMUBENCH_HISTOGRAM_H

#include <mmubench/types.h>

#define MMUB_HIST_SUB_BITS	4
#define MMUB_HIST_SUB		(1U << MMUB_HIST_SUB_BITS)
#define MMUB_HIST_BUCKETS	(61 * MMUB_HIST_SUB)

struct mmub_hist {
	u64 count;
	u64 sum;
	u64 min;
	u64 max;
	u64 bucket[MMUB_HIST_BUCKETS];
};

static inline u32 mmub_hist_index(u64 v)
{
	u32 msb;

	if (v < MMUB_HIST_SUB)
		return (u32)v;
	msb = 63 - (u32)__builtin_clzll(v);
	return (msb - MMUB_HIST_SUB_BITS + 1) * MMUB_HIST_SUB +
	       (u32)((v >> (msb - MMUB_HIST_SUB_BITS)) & (MMUB_HIST_SUB - 1));
}

static inline void mmub_hist_add(struct mmub_hist *h, u64 v)
{
	h->bucket[mmub_hist_index(v)]++;
	h->count++;
	h->sum += v;
	if (v < h->min)
		h->min = v;
	if (v > h->max)
		h->max = v;
}

void mmub_hist_reset(struct mmub_hist *h);
/* Lowest value that falls into bucket @idx. */
u64 mmub_hist_bucket_low(u32 idx);
/* Value at quantile @q_ppm (parts per million, e.g. 999000 for p99.9). */
u64 mmub_hist_quantile(const struct mmub_hist *h, u32 q_ppm);
void mmub_hist_merge(struct mmub_hist *dst, const struct mmub_hist *src);

#endif
