// SPDX-License-Identifier: GPL-2.0
/* Metric paths; see json_path.h. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "results/json_path.h"
#include "results/json.h"

static const char *const agg_names[] = {
	[JP_SUM] = "sum", [JP_MAX] = "max", [JP_MIN] = "min",
	[JP_MEAN] = "mean",
};

void jpath_free(struct jpath *p)
{
	for (size_t i = 0; i < p->n; i++) {
		free(p->seg[i].key);
		free(p->seg[i].mkey);
		free(p->seg[i].mval);
	}
	free(p->seg);
	free(p->text);
	memset(p, 0, sizeof(*p));
}

/* A key up to '.', '[' or the end; \. \[ \\ are the key's own chars. */
static const char *parse_key(const char *s, char **key, char *err,
			     size_t len)
{
	char *k = malloc(strlen(s) + 1);
	size_t n = 0;

	if (!k) {
		snprintf(err, len, "out of memory");
		return NULL;
	}
	for (; *s && *s != '.' && *s != '['; s++) {
		if (*s == '\\') {
			if (s[1] != '.' && s[1] != '[' && s[1] != '\\') {
				snprintf(err, len, "bad escape '\\%c' (accepted:"
					 " \\. \\[ \\\\)", s[1]);
				free(k);
				return NULL;
			}
			s++;
		}
		k[n++] = *s;
	}
	k[n] = 0;
	if (!n) {
		snprintf(err, len, "empty key");
		free(k);
		return NULL;
	}
	*key = k;
	return s;
}

/* What is between '[' and ']'. */
static int parse_sel(const char *s, size_t n, struct jp_seg *g, char *err,
		     size_t len)
{
	const char *eq = memchr(s, '=', n);
	char *end;

	if (!n) {
		g->sel = JP_ALL;
	} else if (n == 1 && *s == '*') {
		g->sel = JP_EACH;
	} else if (*s >= '0' && *s <= '9') {
		g->sel = JP_INDEX;
		g->index = strtoul(s, &end, 10);
		if (end != s + n) {
			snprintf(err, len, "bad index '%.*s'", (int)n, s);
			return -1;
		}
	} else if (eq && eq > s && eq < s + n - 1) {
		g->sel = JP_MATCH;
		g->mkey = strndup(s, (size_t)(eq - s));
		g->mval = strndup(eq + 1, (size_t)(s + n - eq - 1));
		if (!g->mkey || !g->mval) {
			snprintf(err, len, "out of memory");
			return -1;
		}
	} else {
		snprintf(err, len, "bad selector '[%.*s]' (accepted: [], [*], "
			 "[N], [KEY=VALUE])", (int)n, s);
		return -1;
	}
	return 0;
}

static int parse_segments(struct jpath *p, const char *s, char *err,
			  size_t len)
{
	size_t cap = 0;

	for (;;) {
		struct jp_seg *g;
		const char *close;

		if (p->n == cap) {
			cap = cap ? cap * 2 : 8;
			g = realloc(p->seg, cap * sizeof(*g));
			if (!g) {
				snprintf(err, len, "out of memory");
				return -1;
			}
			p->seg = g;
		}
		g = &p->seg[p->n++];
		memset(g, 0, sizeof(*g));
		s = parse_key(s, &g->key, err, len);
		if (!s)
			return -1;
		if (*s == '[') {
			close = strchr(s, ']');
			if (!close) {
				snprintf(err, len, "'[' without ']'");
				return -1;
			}
			if (parse_sel(s + 1, (size_t)(close - s - 1), g, err,
				      len))
				return -1;
			s = close + 1;
		}
		g->src_end = (size_t)(s - p->text);
		if (!*s)
			return 0;
		if (*s != '.') {
			snprintf(err, len, "expected '.' at '%s'", s);
			return -1;
		}
		s++;
	}
}

/* The sample axis, and [*] where it can be evaluated. */
static int check_shape(struct jpath *p, char *err, size_t len)
{
	bool axis = false, each = false, agg = false;

	for (size_t i = 0; i < p->n; i++) {
		enum jp_sel sel = p->seg[i].sel;

		if (sel == JP_EACH && (!axis || each || agg)) {
			snprintf(err, len, "[*] must come after the runs' [] "
				 "and before any other [], once");
			return -1;
		}
		each |= sel == JP_EACH;
		if (sel == JP_ALL && axis)
			agg = true;
		if (sel == JP_ALL && !axis) {
			axis = true;
			p->axis = i;
		}
	}
	if (!axis) {
		snprintf(err, len, "no [] marks the array of runs (e.g. "
			 "results.runs[].zap.zap_total_ms)");
		return -1;
	}
	return 0;
}

int jpath_parse(const char *text, struct jpath *p, char *err, size_t len)
{
	const char *s = text;

	memset(p, 0, sizeof(*p));
	for (int a = JP_SUM; a <= JP_MEAN; a++) {
		size_t n = strlen(agg_names[a]);

		if (!strncmp(s, agg_names[a], n) && s[n] == ':') {
			p->agg = (enum jp_agg)a;
			s += n + 1;
			break;
		}
	}
	p->text = strdup(s);
	if (!p->text) {
		snprintf(err, len, "out of memory");
		return -1;
	}
	if (parse_segments(p, p->text, err, len) ||
	    check_shape(p, err, len)) {
		jpath_free(p);
		return -1;
	}
	return 0;
}

/* "results.runs[3].zap": the text up to segment @upto, sample @i filled in. */
static const char *where(const struct jpath *p, size_t upto, size_t i,
			 char *buf, size_t len)
{
	size_t axis_end = p->seg[p->axis].src_end;
	size_t end = upto ? p->seg[upto - 1].src_end : 0;

	if (upto <= p->axis)
		snprintf(buf, len, "%.*s", (int)end, p->text);
	else
		snprintf(buf, len, "%.*s%zu]%.*s", (int)axis_end - 1, p->text,
			 i, (int)(end - axis_end), p->text + axis_end);
	return buf[0] ? buf : "the document";
}

/* The element of array @arr whose member @key is the string @val. */
static const json_t *match(const json_t *arr, const char *key,
			   const char *val)
{
	size_t k;
	json_t *e;

	json_array_foreach(arr, k, e) {
		const char *s = json_string_value(json_object_get(e, key));

		if (s && !strcmp(s, val))
			return e;
	}
	return NULL;
}

const json_t *jpath_samples(const struct jpath *p, const json_t *doc,
			    char *why, size_t len)
{
	const json_t *v = doc;
	char loc[256];

	for (size_t i = 0; i <= p->axis; i++) {
		const struct jp_seg *g = &p->seg[i];
		const json_t *c = json_object_get(v, g->key);

		if (!c) {
			snprintf(why, len, "no \"%s\" in %s", g->key,
				 where(p, i, 0, loc, sizeof(loc)));
			return NULL;
		}
		if (g->sel == JP_INDEX)
			c = json_array_get(c, g->index);
		else if (g->sel == JP_MATCH)
			c = match(c, g->mkey, g->mval);
		if (!c || (g->sel == JP_ALL && !json_is_array(c))) {
			snprintf(why, len, "%s is not there or not an array",
				 where(p, i + 1, 0, loc, sizeof(loc)));
			return NULL;
		}
		v = c;
	}
	return v;
}

struct walk {
	const struct jpath *p;
	size_t sample;
	jp_emit emit;
	void *ctx;
	char *why;
	size_t len;
	double acc;
	size_t cnt;
	int err;
};

__attribute__((format(printf, 2, 3)))
static void miss(struct walk *w, const char *fmt, ...)
{
	va_list ap;

	if (w->why[0])
		return;
	va_start(ap, fmt);
	vsnprintf(w->why, w->len, fmt, ap);
	va_end(ap);
}

static void add(struct walk *w, double v)
{
	switch (w->p->agg) {
	case JP_MAX:
		w->acc = w->cnt ? fmax(w->acc, v) : v;
		break;
	case JP_MIN:
		w->acc = w->cnt ? fmin(w->acc, v) : v;
		break;
	default:
		w->acc += v;
	}
	w->cnt++;
}

static void walk(struct walk *w, const json_t *v, size_t i);

static void leaf(struct walk *w, const json_t *v)
{
	char loc[256];

	if (json_is_number(v)) {
		add(w, json_number_value(v));
	} else if (json_is_null(v)) {
		miss(w, "%s is null", where(w->p, w->p->n, w->sample, loc,
					     sizeof(loc)));
	} else {
		snprintf(w->why, w->len, "%s is %s, not a number",
			 where(w->p, w->p->n, w->sample, loc, sizeof(loc)),
			 jtype_name(v));
		w->err = -1;
	}
}

static void flush_row(struct walk *w, const char *label, int *emitted)
{
	int r;

	if (!w->cnt || w->err)
		return;
	if (w->p->agg == JP_MEAN)
		w->acc /= (double)w->cnt;
	r = w->emit(w->ctx, label, w->acc);
	if (r < 0)
		w->err = r;
	else
		(*emitted)++;
}

static void each(struct walk *w, const json_t *arr, const char *key,
		 size_t i)
{
	char label[128], loc[256];
	int emitted = 0;
	size_t k;
	json_t *e;

	if (!json_array_size(arr))
		miss(w, "%s is empty", where(w->p, i + 1, w->sample, loc,
					     sizeof(loc)));
	json_array_foreach(arr, k, e) {
		const char *name = json_string_value(json_object_get(e, "name"));

		if (w->err)
			break;
		if (name)
			snprintf(label, sizeof(label), "%s", name);
		else
			snprintf(label, sizeof(label), "%s[%zu]", key, k);
		w->acc = 0;
		w->cnt = 0;
		walk(w, e, i + 1);
		flush_row(w, label, &emitted);
	}
	w->cnt = (size_t)emitted;
}

static void walk(struct walk *w, const json_t *v, size_t i)
{
	const struct jp_seg *g;
	const json_t *c;
	char loc[256];
	size_t k;
	json_t *e;

	if (w->err)
		return;
	if (i == w->p->n) {
		leaf(w, v);
		return;
	}
	g = &w->p->seg[i];
	c = json_object_get(v, g->key);
	if (!c) {
		miss(w, "no \"%s\" in %s", g->key,
		     where(w->p, i, w->sample, loc, sizeof(loc)));
		return;
	}
	if (g->sel != JP_KEY && !json_is_array(c)) {
		snprintf(w->why, w->len, "%s is %s, not an array",
			 where(w->p, i + 1, w->sample, loc, sizeof(loc)),
			 jtype_name(c));
		w->err = -1;
		return;
	}
	switch (g->sel) {
	case JP_KEY:
		walk(w, c, i + 1);
		break;
	case JP_INDEX:
		if (g->index < json_array_size(c))
			walk(w, json_array_get(c, g->index), i + 1);
		else
			miss(w, "%s has no element %zu", where(w->p, i + 1,
			     w->sample, loc, sizeof(loc)), g->index);
		break;
	case JP_MATCH:
		e = (json_t *)match(c, g->mkey, g->mval);
		if (e)
			walk(w, e, i + 1);
		else
			miss(w, "no element with %s=%s in %s", g->mkey,
			     g->mval, where(w->p, i + 1, w->sample, loc,
					    sizeof(loc)));
		break;
	case JP_ALL:
		json_array_foreach(c, k, e)
			walk(w, e, i + 1);
		break;
	case JP_EACH:
		each(w, c, g->key, i);
		break;
	}
}

int jpath_eval(const struct jpath *p, const json_t *sample, size_t i,
	       jp_emit emit, void *ctx, char *why, size_t len)
{
	struct walk w = { p, i, emit, ctx, why, len, 0, 0, 0 };
	bool rows = false;
	int emitted = 0;

	why[0] = 0;
	for (size_t k = p->axis + 1; k < p->n; k++)
		rows |= p->seg[k].sel == JP_EACH;
	walk(&w, sample, p->axis + 1);
	if (w.err)
		return w.err;
	if (rows)
		return (int)w.cnt;
	flush_row(&w, "", &emitted);
	return w.err ? w.err : emitted;
}
