// SPDX-License-Identifier: GPL-2.0
/* Log-linear histogram: see include/mmubench/histogram.h. */
#include <mmubench/histogram.h>

void mmub_hist_reset(struct mmub_hist *h)
{
	u32 i;

	/* A plain loop: the guest calls this at CPL0-safe points too. */
	for (i = 0; i < MMUB_HIST_BUCKETS; i++)
		h->bucket[i] = 0;
	h->count = 0;
	h->sum = 0;
	h->min = ~0ULL;
	h->max = 0;
}

u64 mmub_hist_bucket_low(u32 idx)
{
	u32 msb;

	if (idx < MMUB_HIST_SUB)
		return idx;
	msb = idx / MMUB_HIST_SUB + MMUB_HIST_SUB_BITS - 1;
	return (1ULL << msb) |
	       ((u64)(idx % MMUB_HIST_SUB) << (msb - MMUB_HIST_SUB_BITS));
}

u64 mmub_hist_quantile(const struct mmub_hist *h, u32 q_ppm)
{
	u64 rank, seen = 0;
	u32 i;

	if (!h->count)
		return 0;
	/* The smallest value with at least q of the samples at or below it. */
	rank = (h->count * (u64)q_ppm + 999999) / 1000000;
	if (rank == 0)
		rank = 1;
	for (i = 0; i < MMUB_HIST_BUCKETS; i++) {
		seen += h->bucket[i];
		if (seen >= rank) {
			u64 v = mmub_hist_bucket_low(i);

			/* Never report outside what was really seen. */
			if (v < h->min)
				v = h->min;
			if (v > h->max)
				v = h->max;
			return v;
		}
	}
	return h->max;
}

void mmub_hist_merge(struct mmub_hist *dst, const struct mmub_hist *src)
{
	u32 i;

	if (!src->count)
		return;
	for (i = 0; i < MMUB_HIST_BUCKETS; i++)
		dst->bucket[i] += src->bucket[i];
	if (!dst->count || src->min < dst->min)
		dst->min = src->min;
	if (src->max > dst->max)
		dst->max = src->max;
	dst->count += src->count;
	dst->sum += src->sum;
}
