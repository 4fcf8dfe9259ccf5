// SPDX-License-Identifier: GPL-2.0
/* JSON writer; see json.h.  @key is NULL inside arrays. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "json.h"

void json_init(struct json *j)
{
	memset(j, 0, sizeof(*j));
	j->first[0] = true;
}

void json_free(struct json *j)
{
	free(j->buf);
	j->buf = NULL;
}

static void put(struct json *j, const char *s, size_t n)
{
	char *nb;

	if (j->failed)
		return;
	if (j->len + n + 1 > j->cap) {
		size_t cap = (j->cap ? j->cap * 2 : 4096) + n;

		nb = realloc(j->buf, cap);
		if (!nb) {
			j->failed = true;
			return;
		}
		j->buf = nb;
		j->cap = cap;
	}
	memcpy(j->buf + j->len, s, n);
	j->len += n;
	j->buf[j->len] = 0;
}

static void putf(struct json *j, const char *fmt, ...)
{
	char tmp[64];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(tmp, sizeof(tmp), fmt, ap);
	va_end(ap);
	put(j, tmp, (size_t)n);
}

static void put_string(struct json *j, const char *s)
{
	put(j, "\"", 1);
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '"' || c == '\\') {
			put(j, "\\", 1);
			put(j, s, 1);
		} else if (c < 0x20) {
			putf(j, "\\u%04x", c);
		} else {
			put(j, s, 1);
		}
	}
	put(j, "\"", 1);
}

static void member(struct json *j, const char *key)
{
	if (!j->first[j->depth])
		put(j, ",", 1);
	j->first[j->depth] = false;
	if (key) {
		put_string(j, key);
		put(j, ":", 1);
	}
}

static void open_(struct json *j, const char *key, const char *bracket)
{
	member(j, key);
	put(j, bracket, 1);
	if (j->depth + 1 >= JSON_MAX_DEPTH) {
		j->failed = true;
		return;
	}
	j->first[++j->depth] = true;
}

void json_obj_begin(struct json *j, const char *key)
{
	open_(j, key, "{");
}

void json_obj_end(struct json *j)
{
	j->depth--;
	put(j, "}", 1);
}

void json_arr_begin(struct json *j, const char *key)
{
	open_(j, key, "[");
}

void json_arr_end(struct json *j)
{
	j->depth--;
	put(j, "]", 1);
}

void json_str(struct json *j, const char *key, const char *val)
{
	member(j, key);
	if (val)
		put_string(j, val);
	else
		put(j, "null", 4);
}

void json_u64(struct json *j, const char *key, u64 val)
{
	member(j, key);
	putf(j, "%llu", (unsigned long long)val);
}

void json_s64(struct json *j, const char *key, s64 val)
{
	member(j, key);
	putf(j, "%lld", (long long)val);
}

/* JSON has no NaN or infinity: those become null. */
void json_num(struct json *j, const char *key, double val)
{
	member(j, key);
	if (isfinite(val))
		putf(j, "%.6g", val);
	else
		put(j, "null", 4);
}

void json_bool(struct json *j, const char *key, bool val)
{
	member(j, key);
	put(j, val ? "true" : "false", val ? 4 : 5);
}
