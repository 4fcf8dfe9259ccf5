/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A small, strict JSON reader (RFC 8259): one document into a tree.
 * Every read is bounds-checked against the input length; anything the
 * grammar does not allow (trailing commas, comments, NaN, control
 * characters in strings, bad escapes or UTF-16 surrogates, garbage after
 * the document, nesting deeper than JREAD_MAX_DEPTH) is an error with
 * its line and column.  Duplicate keys are kept; lookups find the first.
 *
 * Free of the harness's headers, so the unit test links it alone.
 */
#ifndef HOST_JSON_READ_H
#define HOST_JSON_READ_H

#include <stdbool.h>
#include <stddef.h>

#define JREAD_MAX_DEPTH	64

enum jv_type {
	JV_NULL,
	JV_BOOL,
	JV_NUM,
	JV_STR,
	JV_ARR,
	JV_OBJ,
};

struct jv {
	enum jv_type type;
	bool b;
	double num;
	/* JV_STR: NUL-terminated UTF-8; JV_NUM: the number as written */
	char *str;
	size_t str_len;		/* may hold NULs from \u0000 */
	size_t n;		/* JV_ARR, JV_OBJ: members */
	struct jv *items;
	char **keys;		/* JV_OBJ only */
};

/* Parse @len bytes.  NULL on error, with a message in @err. */
struct jv *jread_parse(const char *text, size_t len, char *err,
		       size_t err_len);
/* Read and parse a file; the message names what failed, not the file. */
struct jv *jread_file(const char *path, char *err, size_t err_len);
void jread_free(struct jv *v);

/* Member @key of an object, or NULL (also if @v is not an object). */
const struct jv *jv_get(const struct jv *v, const char *key);
/* Element @i of an array, or NULL. */
const struct jv *jv_at(const struct jv *v, size_t i);
const char *jv_type_name(enum jv_type t);

#endif
