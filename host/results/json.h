/* SPDX-License-Identifier: GPL-2.0 */
/*
 * JSON through jansson: documents are built as json_t trees and written
 * once complete, atomically; plus field tables, so that a result's
 * fields are listed once and serve both the printed table and the JSON.
 */
#ifndef HOST_RESULTS_JSON_H
#define HOST_RESULTS_JSON_H

#include <stddef.h>
#include <jansson.h>
#include <mmubench/types.h>
#include <mmubench/histogram.h>

/* A measured value: NaN (no measurement) is null. */
json_t *jnum(double v);
/*
 * A histogram of nanoseconds (a handler's service, a page's pull) in
 * microseconds: its quantile @ppm, 1000000 its maximum, 0 if empty; and
 * as {p50_us, p99_us, p999_us, max_us}.
 */
double hist_us(const struct mmub_hist *h, u32 ppm);
json_t *hist_us_json(const struct mmub_hist *h);
/* The same with "calls" and "total_ms": a wait timed by kprobes. */
json_t *hist_calls_json(const struct mmub_hist *h);
/* Set @key of @obj, taking @val; dies if jansson runs out of memory. */
void jset(json_t *obj, const char *key, json_t *val);
/* @root to @path: a temporary file, then rename.  0, or -1 and errno. */
int json_write_atomic(const char *path, const json_t *root);
/* Can a document be written at @path?  NULL, or why not. */
const char *json_path_unwritable(const char *path);
/* "an object", "a string", ...: for messages. */
const char *jtype_name(const json_t *v);

/*
 * An mmubench document read by an offline command (@cmd: "compare",
 * "merge"): strict JSON, a "scenario" string and a non-empty
 * results.runs array, or die() with the file and what is wrong.
 */
json_t *results_load(const char *cmd, const char *path);
const char *results_scenario(const json_t *doc);
json_t *results_runs(const json_t *doc);

/* One field of a result struct. */
enum field_type {
	FIELD_U64,
	FIELD_S64,
	FIELD_U32,
	FIELD_DOUBLE,
	FIELD_BOOL,
	FIELD_STR,		/* const char * */
};

struct field {
	const char *name;	/* JSON key and column head */
	enum field_type type;
	size_t off;		/* offsetof() in the struct */
	int width;		/* table column; 0: not in the table */
	int prec;		/* FIELD_DOUBLE: digits after the point */
};

#define FIELD(st, member, t, w, p) \
	{ #member, t, offsetof(st, member), w, p }
#define FIELD_AS(name, st, member, t, w, p) \
	{ name, t, offsetof(st, member), w, p }

/* The fields of @base as members of @obj (the list ends with name NULL). */
void fields_json(json_t *obj, const struct field *f, const void *base);
/* A table's head, then one row per struct: the fields with a width. */
void fields_head(const struct field *f);
void fields_row(const struct field *f, const void *base);

#endif
