/* SPDX-License-Identifier: GPL-2.0 */
/* Bitmaps of test pages, one bit per page in u64 words. */
#ifndef HOST_UTIL_BITMAP_H
#define HOST_UTIL_BITMAP_H

#include <mmubench/types.h>

static inline bool bitmap_test(const u64 *map, u64 i)
{
	return map[i / 64] & (1ULL << (i % 64));
}

static inline void bitmap_assign(u64 *map, u64 i, bool v)
{
	if (v)
		map[i / 64] |= 1ULL << (i % 64);
	else
		map[i / 64] &= ~(1ULL << (i % 64));
}

/* Set bits among the first @bits (the bits past them are kept 0). */
static inline u64 bitmap_weight(const u64 *map, u64 bits)
{
	u64 n = 0;

	for (u64 w = 0; w * 64 < bits; w++)
		n += (u64)__builtin_popcountll(map[w]);
	return n;
}

#endif
