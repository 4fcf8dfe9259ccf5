// SPDX-License-Identifier: GPL-2.0
/* Metric paths; see json_path.h. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "json_path.h"

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

const struct jv *jpath_samples(const struct jpath *p, const struct jv *doc,
			       char *why, size_t len)
{
	const struct jv *v = doc;
	char loc[256];

	for (size_t i = 0; i <= p->axis; i++) {
		const struct jp_seg *g = &p->seg[i];
		const struct jv *c = jv_get(v, g->key);

		if (!c) {
			snprintf(why, len, "no \"%s\" in %s", g->key,
				 where(p, i, 0, loc, sizeof(loc)));
			return NULL;
		}
		if (g->sel == JP_INDEX) {
			c = jv_at(c, g->index);
		} else if (g->sel == JP_MATCH) {
			const struct jv *arr = c;

			c = NULL;
			for (size_t k = 0; arr->type == JV_ARR && k < arr->n; k++) {
				const struct jv *m = jv_get(&arr->items[k], g->mkey);

				if (m && m->type == JV_STR &&
				    !strcmp(m->str, g->mval)) {
					c = &arr->items[k];
					break;
				}
			}
		}
		if (!c || (g->sel == JP_ALL && c->type != JV_ARR)) {
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

static void walk(struct walk *w, const struct jv *v, size_t i);

static void leaf(struct walk *w, const struct jv *v)
{
	char loc[256];

	if (v->type == JV_NUM) {
		add(w, v->num);
	} else if (v->type == JV_NULL) {
		miss(w, "%s is null", where(w->p, w->p->n, w->sample, loc,
					     sizeof(loc)));
	} else {
		snprintf(w->why, w->len, "%s is %s, not a number",
			 where(w->p, w->p->n, w->sample, loc, sizeof(loc)),
			 jv_type_name(v->type));
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

static void each(struct walk *w, const struct jv *arr, const char *key,
		 size_t i)
{
	char label[128], loc[256];
	int emitted = 0;

	if (!arr->n)
		miss(w, "%s is empty", where(w->p, i + 1, w->sample, loc,
					     sizeof(loc)));
	for (size_t k = 0; k < arr->n && !w->err; k++) {
		const struct jv *name = jv_get(&arr->items[k], "name");

		if (name && name->type == JV_STR)
			snprintf(label, sizeof(label), "%s", name->str);
		else
			snprintf(label, sizeof(label), "%s[%zu]", key, k);
		w->acc = 0;
		w->cnt = 0;
		walk(w, &arr->items[k], i + 1);
		flush_row(w, label, &emitted);
	}
	w->cnt = (size_t)emitted;
}

static void walk(struct walk *w, const struct jv *v, size_t i)
{
	const struct jp_seg *g;
	const struct jv *c;
	char loc[256];

	if (w->err)
		return;
	if (i == w->p->n) {
		leaf(w, v);
		return;
	}
	g = &w->p->seg[i];
	c = jv_get(v, g->key);
	if (!c) {
		miss(w, "no \"%s\" in %s", g->key,
		     where(w->p, i, w->sample, loc, sizeof(loc)));
		return;
	}
	if (g->sel != JP_KEY && c->type != JV_ARR) {
		snprintf(w->why, w->len, "%s is %s, not an array",
			 where(w->p, i + 1, w->sample, loc, sizeof(loc)),
			 jv_type_name(c->type));
		w->err = -1;
		return;
	}
	switch (g->sel) {
	case JP_KEY:
		walk(w, c, i + 1);
		break;
	case JP_INDEX:
		if (g->index < c->n)
			walk(w, &c->items[g->index], i + 1);
		else
			miss(w, "%s has no element %zu", where(w->p, i + 1,
			     w->sample, loc, sizeof(loc)), g->index);
		break;
	case JP_MATCH:
		for (size_t k = 0; k < c->n; k++) {
			const struct jv *m = jv_get(&c->items[k], g->mkey);

			if (m && m->type == JV_STR && !strcmp(m->str, g->mval)) {
				walk(w, &c->items[k], i + 1);
				return;
			}
		}
		miss(w, "no element with %s=%s in %s", g->mkey, g->mval,
		     where(w->p, i + 1, w->sample, loc, sizeof(loc)));
		break;
	case JP_ALL:
		for (size_t k = 0; k < c->n; k++)
			walk(w, &c->items[k], i + 1);
		break;
	case JP_EACH:
		each(w, c, g->key, i);
		break;
	}
}

int jpath_eval(const struct jpath *p, const struct jv *sample, size_t i,
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
