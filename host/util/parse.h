/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Option values, for the common options and every scenario's own: one
 * line naming the option and what it accepts, exit status 2, if bad.
 * Numbers are decimal: "010" is ten, "0x10" is not a number.
 */
#ifndef HOST_UTIL_PARSE_H
#define HOST_UTIL_PARSE_H

#include <mmubench/types.h>

/* A number in lo..hi: else "not a number" or "out of range". */
u64 parse_u64(const char *opt, const char *val, u64 lo, u64 hi);
/* A size with an optional k/m/g/t suffix, a multiple of @align. */
u64 parse_size(const char *opt, const char *val, u64 align);
/* 4k, 2m or 1g. */
u64 parse_page(const char *opt, const char *val);

#endif
