// SPDX-License-Identifier: GPL-2.0
/* JSON helpers over jansson; see json.h. */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "util/util.h"
#include "results/json.h"

/* Enough digits for every figure, and "330.1" stays "330.1". */
#define JSON_FLAGS	(JSON_INDENT(1) | JSON_REAL_PRECISION(15))

json_t *jnum(double v)
{
	return isfinite(v) ? json_real(v) : json_null();
}

double hist_us(const struct mmub_hist *h, u32 ppm)
{
	if (!h->count)
		return 0;
	if (ppm >= 1000000)
		return h->max / 1e3;
	return mmub_hist_quantile(h, ppm) / 1e3;
}

json_t *hist_us_json(const struct mmub_hist *h)
{
	return json_pack("{s:o, s:o, s:o, s:o}",
			 "p50_us", jnum(hist_us(h, 500000)),
			 "p99_us", jnum(hist_us(h, 990000)),
			 "p999_us", jnum(hist_us(h, 999000)),
			 "max_us", jnum(hist_us(h, 1000000)));
}

json_t *hist_calls_json(const struct mmub_hist *h)
{
	json_t *j = hist_us_json(h);

	jset(j, "calls", json_integer((json_int_t)h->count));
	jset(j, "total_ms", jnum(h->sum / 1e6));
	return j;
}

void jset(json_t *obj, const char *key, json_t *val)
{
	if (!val || json_object_set_new(obj, key, val))
		die("out of memory building the JSON document (%s)", key);
}

int json_write_atomic(const char *path, const json_t *root)
{
	char *text = json_dumps(root, JSON_FLAGS);
	int ret;

	if (!text) {
		errno = ENOMEM;
		return -1;
	}
	ret = write_file_atomic(path, text, strlen(text));
	free(text);
	return ret;
}

const char *json_path_unwritable(const char *path)
{
	static char why[320];
	size_t len = strlen(path) + 32;
	char *tmp = malloc(len);
	int fd;

	if (!tmp)
		return "out of memory";
	/* Where write_file_atomic() will put its temporary file. */
	snprintf(tmp, len, "%s.tmp.%d", path, (int)getpid());
	fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
	if (fd < 0) {
		snprintf(why, sizeof(why), "cannot write there: %s",
			 strerror(errno));
		free(tmp);
		return why;
	}
	close(fd);
	unlink(tmp);
	free(tmp);
	return NULL;
}

const char *jtype_name(const json_t *v)
{
	switch (json_typeof(v)) {
	case JSON_OBJECT:
		return "an object";
	case JSON_ARRAY:
		return "an array";
	case JSON_STRING:
		return "a string";
	case JSON_INTEGER:
	case JSON_REAL:
		return "a number";
	case JSON_TRUE:
	case JSON_FALSE:
		return "a boolean";
	case JSON_NULL:
		break;
	}
	return "null";
}

const char *results_scenario(const json_t *doc)
{
	return json_string_value(json_object_get(doc, "scenario"));
}

json_t *results_runs(const json_t *doc)
{
	return json_object_get(json_object_get(doc, "results"), "runs");
}

json_t *results_load(const char *cmd, const char *path)
{
	FILE *f = fopen(path, "r");
	json_error_t e;
	json_t *doc;

	if (!f)
		die("%s: %s: cannot open it: %m", cmd, path);
	doc = json_loadf(f, JSON_REJECT_DUPLICATES, &e);
	fclose(f);
	if (!doc)
		die("%s: %s: not a JSON document: %s (line %d, column %d)",
		    cmd, path, e.text, e.line, e.column);
	if (!results_scenario(doc) || !json_is_array(results_runs(doc))) {
		json_decref(doc);
		die("%s: %s: not an mmubench document (it needs a \"scenario\" "
		    "string and a results.runs array)", cmd, path);
	}
	if (!json_array_size(results_runs(doc))) {
		json_decref(doc);
		die("%s: %s: results.runs is empty: the run wrote no result",
		    cmd, path);
	}
	return doc;
}

static json_t *field_value(const struct field *f, const void *base)
{
	const char *p = (const char *)base + f->off;

	switch (f->type) {
	case FIELD_U64:
		return json_integer((json_int_t)*(const u64 *)p);
	case FIELD_S64:
		return json_integer((json_int_t)*(const s64 *)p);
	case FIELD_U32:
		return json_integer(*(const u32 *)p);
	case FIELD_DOUBLE:
		return jnum(*(const double *)p);
	case FIELD_BOOL:
		return json_boolean(*(const bool *)p);
	case FIELD_STR:
		return *(const char *const *)p ?
		       json_string(*(const char *const *)p) : json_null();
	}
	return json_null();
}

void fields_json(json_t *obj, const struct field *f, const void *base)
{
	for (; f->name; f++)
		jset(obj, f->name, field_value(f, base));
}

void fields_head(const struct field *f)
{
	for (; f->name; f++)
		if (f->width)
			printf(" %*s", f->width, f->name);
	printf("\n");
}

void fields_row(const struct field *f, const void *base)
{
	for (; f->name; f++) {
		const char *p = (const char *)base + f->off;

		if (!f->width)
			continue;
		switch (f->type) {
		case FIELD_U64:
			printf(" %*llu", f->width,
			       (unsigned long long)*(const u64 *)p);
			break;
		case FIELD_S64:
			printf(" %*lld", f->width, (long long)*(const s64 *)p);
			break;
		case FIELD_U32:
			printf(" %*u", f->width, *(const u32 *)p);
			break;
		case FIELD_DOUBLE:
			printf(" %*.*f", f->width, f->prec, *(const double *)p);
			break;
		case FIELD_BOOL:
			printf(" %*s", f->width, *(const bool *)p ? "yes" : "no");
			break;
		case FIELD_STR:
			printf(" %*s", f->width, *(const char *const *)p ?
			       *(const char *const *)p : "-");
			break;
		}
	}
	printf("\n");
}
