// SPDX-License-Identifier: GPL-2.0
/* Strict JSON reader; see json_read.h. */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include "json_read.h"

/* mmubench documents are a few MB at most; this bounds a bad input. */
#define JREAD_MAX_FILE	(256u << 20)

struct reader {
	const char *start, *p, *end;
	char *err;
	size_t err_len;
	bool failed;
};

__attribute__((format(printf, 2, 3)))
static void fail(struct reader *r, const char *fmt, ...)
{
	unsigned int line = 1, col = 1;
	size_t used;
	va_list ap;

	if (r->failed)
		return;
	r->failed = true;
	for (const char *c = r->start; c < r->p && c < r->end; c++) {
		if (*c == '\n') {
			line++;
			col = 1;
		} else {
			col++;
		}
	}
	snprintf(r->err, r->err_len, "line %u, column %u: ", line, col);
	used = strlen(r->err);
	va_start(ap, fmt);
	vsnprintf(r->err + used, r->err_len - used, fmt, ap);
	va_end(ap);
}

static void skip_ws(struct reader *r)
{
	while (r->p < r->end && (*r->p == ' ' || *r->p == '\t' ||
				 *r->p == '\n' || *r->p == '\r'))
		r->p++;
}

static bool at(const struct reader *r, char c)
{
	return r->p < r->end && *r->p == c;
}

static bool is_digit(const struct reader *r)
{
	return r->p < r->end && *r->p >= '0' && *r->p <= '9';
}

static int hex4(struct reader *r, unsigned int *out)
{
	*out = 0;
	if (r->end - r->p < 4) {
		fail(r, "\\u needs four hex digits");
		return -1;
	}
	for (int i = 0; i < 4; i++) {
		char c = *r->p++;
		unsigned int d;

		if (c >= '0' && c <= '9')
			d = (unsigned int)(c - '0');
		else if (c >= 'a' && c <= 'f')
			d = (unsigned int)(c - 'a' + 10);
		else if (c >= 'A' && c <= 'F')
			d = (unsigned int)(c - 'A' + 10);
		else {
			r->p--;
			fail(r, "\\u needs four hex digits");
			return -1;
		}
		*out = *out << 4 | d;
	}
	return 0;
}

static size_t put_utf8(char *o, unsigned int cp)
{
	if (cp < 0x80) {
		o[0] = (char)cp;
		return 1;
	}
	if (cp < 0x800) {
		o[0] = (char)(0xc0 | cp >> 6);
		o[1] = (char)(0x80 | (cp & 0x3f));
		return 2;
	}
	if (cp < 0x10000) {
		o[0] = (char)(0xe0 | cp >> 12);
		o[1] = (char)(0x80 | (cp >> 6 & 0x3f));
		o[2] = (char)(0x80 | (cp & 0x3f));
		return 3;
	}
	o[0] = (char)(0xf0 | cp >> 18);
	o[1] = (char)(0x80 | (cp >> 12 & 0x3f));
	o[2] = (char)(0x80 | (cp >> 6 & 0x3f));
	o[3] = (char)(0x80 | (cp & 0x3f));
	return 4;
}

/* \uXXXX, with a surrogate pair joined; r->p is past the 'u'. */
static int unicode_escape(struct reader *r, unsigned int *cp)
{
	unsigned int lo;

	if (hex4(r, cp))
		return -1;
	if (*cp >= 0xdc00 && *cp <= 0xdfff) {
		fail(r, "lone low surrogate \\u%04x", *cp);
		return -1;
	}
	if (*cp < 0xd800 || *cp > 0xdbff)
		return 0;
	if (r->end - r->p < 2 || r->p[0] != '\\' || r->p[1] != 'u') {
		fail(r, "high surrogate \\u%04x without its low half", *cp);
		return -1;
	}
	r->p += 2;
	if (hex4(r, &lo))
		return -1;
	if (lo < 0xdc00 || lo > 0xdfff) {
		fail(r, "high surrogate \\u%04x followed by \\u%04x", *cp, lo);
		return -1;
	}
	*cp = 0x10000 + ((*cp - 0xd800) << 10) + (lo - 0xdc00);
	return 0;
}

/* Length of a valid UTF-8 sequence at r->p, or 0. */
static size_t utf8_len(const struct reader *r)
{
	const unsigned char *s = (const unsigned char *)r->p;
	size_t left = (size_t)(r->end - r->p), n;
	unsigned int cp;

	if (s[0] < 0x80)
		return 1;
	if (s[0] >= 0xc2 && s[0] <= 0xdf)
		n = 2, cp = s[0] & 0x1f;
	else if (s[0] >= 0xe0 && s[0] <= 0xef)
		n = 3, cp = s[0] & 0x0f;
	else if (s[0] >= 0xf0 && s[0] <= 0xf4)
		n = 4, cp = s[0] & 0x07;
	else
		return 0;
	if (left < n)
		return 0;
	for (size_t i = 1; i < n; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (s[i] & 0x3f);
	}
	/* Overlong forms, surrogates, past U+10FFFF. */
	if ((n == 3 && cp < 0x800) || (n == 4 && cp < 0x10000) ||
	    (cp >= 0xd800 && cp <= 0xdfff) || cp > 0x10ffff)
		return 0;
	return n;
}

static int escape(struct reader *r, char *o, size_t *len)
{
	static const char from[] = "\"\\/bfnrt", to[] = "\"\\/\b\f\n\r\t";
	const char *e;
	unsigned int cp;

	if (r->p >= r->end) {
		fail(r, "unterminated string");
		return -1;
	}
	if (*r->p == 'u') {
		r->p++;
		if (unicode_escape(r, &cp))
			return -1;
		*len += put_utf8(o + *len, cp);
		return 0;
	}
	e = *r->p ? strchr(from, *r->p) : NULL;
	if (!e) {
		fail(r, "bad escape '\\%c'", *r->p);
		return -1;
	}
	o[(*len)++] = to[e - from];
	r->p++;
	return 0;
}

/*
 * r->p is past the opening quote.  The decoded string is never longer
 * than its source, so one buffer of the source's length is enough.
 */
static int parse_string(struct reader *r, char **out, size_t *out_len)
{
	const char *q = r->p;
	size_t len = 0;
	char *o;

	while (q < r->end && *q != '"') {
		if (*q == '\\' && r->end - q < 2)
			break;
		q += *q == '\\' ? 2 : 1;
	}
	if (q >= r->end || *q != '"') {
		fail(r, "unterminated string");
		return -1;
	}
	o = malloc((size_t)(q - r->p) + 1);
	if (!o) {
		fail(r, "out of memory");
		return -1;
	}
	while (!r->failed && *r->p != '"') {
		unsigned char c = (unsigned char)*r->p;
		size_t n = utf8_len(r);

		if (c == '\\') {
			r->p++;
			escape(r, o, &len);
		} else if (c < 0x20) {
			fail(r, "control character 0x%02x in a string", c);
		} else if (!n) {
			fail(r, "invalid UTF-8 in a string");
		} else {
			memcpy(o + len, r->p, n);
			len += n;
			r->p += n;
		}
	}
	if (r->failed) {
		free(o);
		return -1;
	}
	r->p++;
	o[len] = 0;
	*out = o;
	*out_len = len;
	return 0;
}

static void digits(struct reader *r)
{
	while (is_digit(r))
		r->p++;
}

/* The grammar first; strtod only ever sees a valid, NUL-ended copy. */
static int parse_number(struct reader *r, double *out, char **raw)
{
	const char *s = r->p;

	if (at(r, '-'))
		r->p++;
	if (at(r, '0')) {
		r->p++;
	} else if (is_digit(r)) {
		digits(r);
	} else {
		fail(r, "expected a value");
		return -1;
	}
	if (at(r, '.')) {
		r->p++;
		if (!is_digit(r)) {
			fail(r, "expected a digit after '.'");
			return -1;
		}
		digits(r);
	}
	if (at(r, 'e') || at(r, 'E')) {
		r->p++;
		if (at(r, '+') || at(r, '-'))
			r->p++;
		if (!is_digit(r)) {
			fail(r, "expected a digit in the exponent");
			return -1;
		}
		digits(r);
	}
	/* Kept as written: merge copies numbers without reformatting. */
	*raw = strndup(s, (size_t)(r->p - s));
	if (!*raw) {
		fail(r, "out of memory");
		return -1;
	}
	*out = strtod(*raw, NULL);
	if (isinf(*out)) {
		r->p = s;
		fail(r, "number out of range");
		return -1;
	}
	return 0;
}

static int literal(struct reader *r, const char *word)
{
	size_t n = strlen(word);

	if ((size_t)(r->end - r->p) < n || memcmp(r->p, word, n)) {
		fail(r, "expected a value");
		return -1;
	}
	r->p += n;
	return 0;
}

static int parse_value(struct reader *r, struct jv *v, int depth);

/* Room for one more member; @keys too for objects. */
static int grow(struct reader *r, struct jv *v, size_t *cap)
{
	struct jv *items;
	char **keys;

	if (v->n < *cap)
		return 0;
	*cap = *cap ? *cap * 2 : 8;
	items = realloc(v->items, *cap * sizeof(*items));
	if (items)
		v->items = items;
	if (items && v->type == JV_OBJ) {
		keys = realloc(v->keys, *cap * sizeof(*keys));
		if (keys)
			v->keys = keys;
		else
			items = NULL;
	}
	if (!items) {
		fail(r, "out of memory");
		return -1;
	}
	return 0;
}

/* r->p is past '[' or '{'. */
static int parse_container(struct reader *r, struct jv *v, int depth)
{
	bool obj = v->type == JV_OBJ;
	char close = obj ? '}' : ']';
	size_t cap = 0, klen;

	if (depth >= JREAD_MAX_DEPTH) {
		fail(r, "nested deeper than %d", JREAD_MAX_DEPTH);
		return -1;
	}
	skip_ws(r);
	if (at(r, close)) {
		r->p++;
		return 0;
	}
	for (;;) {
		if (grow(r, v, &cap))
			return -1;
		memset(&v->items[v->n], 0, sizeof(v->items[0]));
		if (obj) {
			skip_ws(r);
			if (!at(r, '"')) {
				fail(r, "expected a string key");
				return -1;
			}
			r->p++;
			if (parse_string(r, &v->keys[v->n], &klen))
				return -1;
			v->n++;
			skip_ws(r);
			if (!at(r, ':')) {
				fail(r, "expected ':' after a key");
				return -1;
			}
			r->p++;
		} else {
			v->n++;
		}
		if (parse_value(r, &v->items[v->n - 1], depth + 1))
			return -1;
		skip_ws(r);
		if (at(r, close)) {
			r->p++;
			return 0;
		}
		if (!at(r, ',')) {
			fail(r, "expected ',' or '%c'", close);
			return -1;
		}
		r->p++;
	}
}

static int parse_value(struct reader *r, struct jv *v, int depth)
{
	skip_ws(r);
	if (r->p >= r->end) {
		fail(r, "unexpected end of input");
		return -1;
	}
	switch (*r->p) {
	case '{':
	case '[':
		v->type = *r->p++ == '{' ? JV_OBJ : JV_ARR;
		return parse_container(r, v, depth);
	case '"':
		v->type = JV_STR;
		r->p++;
		return parse_string(r, &v->str, &v->str_len);
	case 't':
	case 'f':
		v->type = JV_BOOL;
		v->b = *r->p == 't';
		return literal(r, v->b ? "true" : "false");
	case 'n':
		v->type = JV_NULL;
		return literal(r, "null");
	default:
		v->type = JV_NUM;
		if (parse_number(r, &v->num, &v->str))
			return -1;
		v->str_len = strlen(v->str);
		return 0;
	}
}

static void free_contents(struct jv *v)
{
	for (size_t i = 0; i < v->n; i++) {
		free_contents(&v->items[i]);
		if (v->type == JV_OBJ)
			free(v->keys[i]);
	}
	free(v->items);
	free(v->keys);
	free(v->str);
}

void jread_free(struct jv *v)
{
	if (!v)
		return;
	free_contents(v);
	free(v);
}

struct jv *jread_parse(const char *text, size_t len, char *err,
		       size_t err_len)
{
	struct reader r = { text, text, text + len, err, err_len, false };
	struct jv *v = calloc(1, sizeof(*v));

	if (!v) {
		snprintf(err, err_len, "out of memory");
		return NULL;
	}
	if (!parse_value(&r, v, 0)) {
		skip_ws(&r);
		if (r.p < r.end)
			fail(&r, "unexpected data after the document");
	}
	if (r.failed) {
		jread_free(v);
		return NULL;
	}
	return v;
}

struct jv *jread_file(const char *path, char *err, size_t err_len)
{
	struct jv *v = NULL;
	struct stat st;
	size_t got = 0;
	char *buf;
	int fd;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		snprintf(err, err_len, "%s", strerror(errno));
		return NULL;
	}
	if (fstat(fd, &st))
		snprintf(err, err_len, "%s", strerror(errno));
	else if (!S_ISREG(st.st_mode))
		snprintf(err, err_len, "not a regular file");
	else if ((unsigned long long)st.st_size > JREAD_MAX_FILE)
		snprintf(err, err_len, "larger than 256 MiB");
	else
		err[0] = 0;
	if (err[0]) {
		close(fd);
		return NULL;
	}
	buf = malloc((size_t)st.st_size + 1);
	while (buf && got < (size_t)st.st_size) {
		ssize_t n = read(fd, buf + got, (size_t)st.st_size - got);

		if (n <= 0)
			break;
		got += (size_t)n;
	}
	close(fd);
	if (!buf)
		snprintf(err, err_len, "out of memory");
	else if (got != (size_t)st.st_size)
		snprintf(err, err_len, "short read");
	else if (!got)
		snprintf(err, err_len, "empty file");
	else
		v = jread_parse(buf, got, err, err_len);
	free(buf);
	return v;
}

const struct jv *jv_get(const struct jv *v, const char *key)
{
	if (!v || v->type != JV_OBJ)
		return NULL;
	for (size_t i = 0; i < v->n; i++)
		if (!strcmp(v->keys[i], key))
			return &v->items[i];
	return NULL;
}

const struct jv *jv_at(const struct jv *v, size_t i)
{
	if (!v || v->type != JV_ARR || i >= v->n)
		return NULL;
	return &v->items[i];
}

const char *jv_type_name(enum jv_type t)
{
	static const char *const names[] = {
		[JV_NULL] = "null", [JV_BOOL] = "a boolean",
		[JV_NUM] = "a number", [JV_STR] = "a string",
		[JV_ARR] = "an array", [JV_OBJ] = "an object",
	};

	return t <= JV_OBJ ? names[t] : "?";
}
