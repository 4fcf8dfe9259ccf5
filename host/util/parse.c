// SPDX-License-Identifier: GPL-2.0
/* Option values; see parse.h. */
#include <errno.h>
#include <stdlib.h>
#include <mmubench/workload.h>
#include "util/util.h"
#include "util/parse.h"

u64 parse_u64(const char *opt, const char *val, u64 lo, u64 hi)
{
	char *end;
	unsigned long long v;

	if (val[0] < '0' || val[0] > '9')
		die("%s %s: not a number (accepted: %llu..%llu)", opt, val,
		    (unsigned long long)lo, (unsigned long long)hi);
	errno = 0;
	v = strtoull(val, &end, 10);
	if (*end)
		die("%s %s: not a number (accepted: %llu..%llu)", opt, val,
		    (unsigned long long)lo, (unsigned long long)hi);
	if (errno || v < lo || v > hi)
		die("%s %s: out of range (accepted: %llu..%llu)", opt, val,
		    (unsigned long long)lo, (unsigned long long)hi);
	return v;
}

u64 parse_size(const char *opt, const char *val, u64 align)
{
	char a[32];
	u64 v;

	if (mmub_parse_size(val, &v) || !v || v % align)
		die("%s %s: bad size (accepted: a multiple of %s with an "
		    "optional k/m/g/t suffix, e.g. 512M)", opt, val,
		    fmt_size(align, a, sizeof(a)));
	return v;
}

u64 parse_page(const char *opt, const char *val)
{
	u64 v;

	if (mmub_parse_size(val, &v) ||
	    (v != MMUB_SZ_4K && v != MMUB_SZ_2M && v != MMUB_SZ_1G))
		die("%s %s: unknown page size (accepted: 4k, 2m, 1g)", opt, val);
	return v;
}
