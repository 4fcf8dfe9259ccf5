// SPDX-License-Identifier: GPL-2.0
/*
 * Workload descriptor defaults and parsing.  The guest runs this before
 * it has a C library it may call (at CPL0 on the PVH path), so it uses no
 * libc and no floating point.
 */
#include <mmubench/workload.h>

const char *const mmub_action_names[MMUB_ACT_NR] = {
	[MMUB_ACT_TOUCH] = "touch",
	[MMUB_ACT_FAULT] = "fault",
	[MMUB_ACT_HANG] = "hang",
	[MMUB_ACT_EXEC] = "exec",
};

static bool str_eq(const char *a, const char *b)
{
	while (*a && *a == *b) {
		a++;
		b++;
	}
	return *a == *b;
}

void mmub_wl_defaults(struct mmub_workload *wl)
{
	u8 *p = (u8 *)wl;
	size_t i;

	for (i = 0; i < sizeof(*wl); i++)
		p[i] = 0;
	wl->action = MMUB_ACT_TOUCH;
	wl->flags = MMUB_WL_LATENCY;
	wl->write_pct = 100;
	wl->passes = 2;
	wl->seed = 1;
	wl->stride = MMUB_SZ_4K;
	wl->fraction_ppm = MMUB_FRACTION_ONE;
}

/*
 * Decimal digits into @out; returns the first byte after them (not the
 * host's parse_u64(), which takes a whole option value and dies).
 */
static const char *scan_digits(const char *s, u64 *out)
{
	u64 v = 0;

	if (*s < '0' || *s > '9')
		return NULL;
	while (*s >= '0' && *s <= '9') {
		if (v > (~0ULL - 9) / 10)
			return NULL;
		v = v * 10 + (u64)(*s - '0');
		s++;
	}
	*out = v;
	return s;
}

static const char *parse_size_prefix(const char *s, u64 *out)
{
	u64 v, mul = 1;

	s = scan_digits(s, &v);
	if (!s)
		return NULL;
	switch (*s) {
	case 'k': case 'K':
		mul = MMUB_KIB;
		s++;
		break;
	case 'm': case 'M':
		mul = MMUB_MIB;
		s++;
		break;
	case 'g': case 'G':
		mul = MMUB_GIB;
		s++;
		break;
	case 't': case 'T':
		mul = MMUB_GIB * 1024;
		s++;
		break;
	}
	if (*s == 'b' || *s == 'B')
		s++;
	if (v && mul > 1 && v > ~0ULL / mul)
		return NULL;
	*out = v * mul;
	return s;
}

int mmub_parse_size(const char *s, u64 *out)
{
	const char *end = parse_size_prefix(s, out);

	return end && !*end ? 0 : -1;
}

int mmub_parse_fraction(const char *s, u32 *ppm)
{
	u64 whole, frac = 0, scale = 1000000;
	const char *p = scan_digits(s, &whole);

	if (!p)
		return -1;
	if (*p == '%') {
		if (p[1] || whole > 100)
			return -1;
		*ppm = (u32)(whole * 10000);
		return 0;
	}
	if (*p == '.') {
		p++;
		if (*p < '0' || *p > '9')
			return -1;
		/* Six digits of precision; further digits must be zeros. */
		while (*p >= '0' && *p <= '9') {
			scale /= 10;
			if (scale)
				frac += (u64)(*p - '0') * scale;
			else if (*p != '0')
				return -1;
			p++;
		}
	}
	if (*p || whole > 1 || (whole == 1 && frac))
		return -1;
	*ppm = (u32)(whole * 1000000 + frac);
	return 0;
}

int mmub_parse_action(const char *s)
{
	int i;

	for (i = 0; i < MMUB_ACT_NR; i++)
		if (str_eq(s, mmub_action_names[i]))
			return i;
	return -1;
}

/* "off+len,off+len": up to MMUB_MAX_RANGES ranges of the test memory. */
static int parse_ranges(struct mmub_workload *wl, const char *s)
{
	u32 n = 0;

	while (*s) {
		u64 off, len;

		if (n == MMUB_MAX_RANGES)
			return -1;
		s = parse_size_prefix(s, &off);
		if (!s || *s != '+')
			return -1;
		s = parse_size_prefix(s + 1, &len);
		if (!s || !len || (*s && *s != ','))
			return -1;
		wl->ranges[n].offset = off;
		wl->ranges[n].length = len;
		n++;
		if (*s == ',')
			s++;
	}
	wl->nr_ranges = n;
	return n ? 0 : -1;
}

static int parse_flag(u32 *flags, u32 bit, const char *val)
{
	if (str_eq(val, "1"))
		*flags |= bit;
	else if (str_eq(val, "0"))
		*flags &= ~bit;
	else
		return -1;
	return 0;
}

int mmub_wl_parse_word(struct mmub_workload *wl, const char *key,
		       const char *val)
{
	u64 v;
	int a;

	if (str_eq(key, "action")) {
		a = mmub_parse_action(val);
		if (a < 0)
			return -1;
		wl->action = (u32)a;
	} else if (str_eq(key, "passes")) {
		if (mmub_parse_size(val, &v) || !v || v > 1000000)
			return -1;
		wl->passes = (u32)v;
	} else if (str_eq(key, "write")) {
		if (mmub_parse_size(val, &v) || v > 100)
			return -1;
		wl->write_pct = (u32)v;
	} else if (str_eq(key, "seed")) {
		if (mmub_parse_size(val, &v))
			return -1;
		wl->seed = v;
	} else if (str_eq(key, "stride")) {
		if (mmub_parse_size(val, &v) || (v != MMUB_SZ_4K &&
		    v != MMUB_SZ_2M && v != MMUB_SZ_1G))
			return -1;
		wl->stride = v;
	} else if (str_eq(key, "fraction")) {
		if (mmub_parse_fraction(val, &wl->fraction_ppm) ||
		    !wl->fraction_ppm)
			return -1;
	} else if (str_eq(key, "ranges")) {
		return parse_ranges(wl, val);
	} else if (str_eq(key, "random")) {
		return parse_flag(&wl->flags, MMUB_WL_RANDOM, val);
	} else if (str_eq(key, "latency")) {
		return parse_flag(&wl->flags, MMUB_WL_LATENCY, val);
	} else {
		return 1;
	}
	return 0;
}

static int guest_word(struct mmub_guest_args *a, struct mmub_workload *wl,
		      const char *key, const char *val)
{
	u64 v;

	if (!val)
		return -1;
	if (str_eq(key, "vcpus")) {
		if (mmub_parse_size(val, &v) || !v || v > 64)
			return -1;
		a->vcpus = (u32)v;
		return 0;
	}
	if (str_eq(key, "mem"))
		return mmub_parse_size(val, &a->mem) || !a->mem ? -1 : 0;
	if (str_eq(key, "page"))
		return mmub_parse_size(val, &a->page) ? -1 : 0;
	return mmub_wl_parse_word(wl, key, val);
}

const char *mmub_cmdline_parse(char *s, struct mmub_guest_args *a,
			       struct mmub_workload *wl, bool skip_bare_first)
{
	bool first = true;
	char *key, *val;

	while (s && *s) {
		while (*s == ' ')
			s++;
		if (!*s)
			break;
		key = s;
		val = NULL;
		while (*s && *s != ' ') {
			if (*s == '=' && !val) {
				*s = 0;
				val = s + 1;
			}
			s++;
		}
		if (*s)
			*s++ = 0;
		if (first && skip_bare_first && !val) {
			first = false;
			continue;
		}
		first = false;
		if (guest_word(a, wl, key, val) < 0)
			return key;
	}
	return NULL;
}
