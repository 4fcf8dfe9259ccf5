// SPDX-License-Identifier: GPL-2.0
/*
 * "mmubench merge OUT.json IN.json...": one document with the runs of
 * all the inputs, in order.  ci/ab.sh boots a kernel per run; merging
 * gives "compare" one document per kernel.  The inputs must be the same
 * scenario with the same config (repeat aside); the first one gives
 * config and env.  Numbers are copied as written, not reformatted.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "mmubench.h"
#include "commands.h"
#include "json_read.h"

struct merge {
	const char *out;
	struct jv **in;
	const char **file;
	int n;
	const struct jv *runs0;	/* the first input's results.runs */
};

static void put_string(FILE *f, const char *s, size_t len)
{
	fputc('"', f);
	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)s[i];

		if (c == '"' || c == '\\')
			fprintf(f, "\\%c", c);
		else if (c < 0x20)
			fprintf(f, "\\u%04x", c);
		else
			fputc(c, f);
	}
	fputc('"', f);
}

static void dump(FILE *f, const struct merge *m, const struct jv *v);

/* Where the first input's runs are, every input's runs go. */
static void dump_runs(FILE *f, const struct merge *m)
{
	bool first = true;

	fputc('[', f);
	for (int k = 0; k < m->n; k++) {
		const struct jv *r = jv_get(jv_get(m->in[k], "results"), "runs");

		for (size_t i = 0; i < r->n; i++) {
			if (!first)
				fputc(',', f);
			first = false;
			dump(f, m, &r->items[i]);
		}
	}
	fputc(']', f);
}

static void dump(FILE *f, const struct merge *m, const struct jv *v)
{
	switch (v->type) {
	case JV_NULL:
		fputs("null", f);
		break;
	case JV_BOOL:
		fputs(v->b ? "true" : "false", f);
		break;
	case JV_NUM:
		fputs(v->str, f);
		break;
	case JV_STR:
		put_string(f, v->str, v->str_len);
		break;
	case JV_ARR:
		if (v == m->runs0) {
			dump_runs(f, m);
			break;
		}
		fputc('[', f);
		for (size_t i = 0; i < v->n; i++) {
			if (i)
				fputc(',', f);
			dump(f, m, &v->items[i]);
		}
		fputc(']', f);
		break;
	case JV_OBJ:
		fputc('{', f);
		for (size_t i = 0; i < v->n; i++) {
			if (i)
				fputc(',', f);
			put_string(f, v->keys[i], strlen(v->keys[i]));
			fputc(':', f);
			dump(f, m, &v->items[i]);
		}
		fputc('}', f);
		break;
	}
}

/* Merging runs of different experiments would make a wrong sample. */
static void same_config(const struct merge *m, int k)
{
	const struct jv *a = jv_get(m->in[0], "config");
	const struct jv *b = jv_get(m->in[k], "config");

	for (size_t i = 0; a && i < a->n; i++) {
		const struct jv *x = &a->items[i], *y = jv_get(b, a->keys[i]);
		bool same;

		if (!strcmp(a->keys[i], "repeat"))
			continue;
		if (!y || x->type != y->type)
			same = false;
		else if (x->type == JV_NUM)
			same = x->num == y->num;
		else if (x->type == JV_STR)
			same = !strcmp(x->str, y->str);
		else if (x->type == JV_BOOL)
			same = x->b == y->b;
		else
			same = true;
		if (!same)
			die("merge: %s: config.%s differs from %s's", m->file[k],
			    a->keys[i], m->file[0]);
	}
}

static void load(struct merge *m, int k)
{
	const struct jv *sc, *runs, *sc0;
	char err[256];

	m->in[k] = jread_file(m->file[k], err, sizeof(err));
	if (!m->in[k])
		die("merge: %s: cannot read it as JSON: %s", m->file[k], err);
	sc = jv_get(m->in[k], "scenario");
	runs = jv_get(jv_get(m->in[k], "results"), "runs");
	if (!sc || sc->type != JV_STR || !runs || runs->type != JV_ARR)
		die("merge: %s: not an mmubench document (it needs a "
		    "\"scenario\" string and a results.runs array)", m->file[k]);
	if (!k) {
		m->runs0 = runs;
		return;
	}
	sc0 = jv_get(m->in[0], "scenario");
	if (strcmp(sc->str, sc0->str))
		die("merge: %s is a \"%s\" document, %s a \"%s\" one",
		    m->file[k], sc->str, m->file[0], sc0->str);
	same_config(m, k);
}

/* Reachable at exit even after die(): see compare.c. */
static struct merge mrg;

int cmd_merge(int argc, char **argv)
{
	struct merge *m = &mrg;
	size_t len = 0;
	char *buf = NULL;
	FILE *f;

	if (argc == 2 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
		puts("usage: mmubench merge OUT.json IN.json...\n"
		     "  every run of the IN documents (one scenario, one config) in one OUT");
		exit(0);
	}
	if (argc < 3 || argv[1][0] == '-')
		die("usage: mmubench merge OUT.json IN.json...");
	m->out = argv[1];
	m->n = argc - 2;
	m->file = (const char **)argv + 2;
	m->in = calloc((size_t)m->n, sizeof(*m->in));
	if (!m->in)
		die("out of memory");
	for (int k = 0; k < m->n; k++)
		load(m, k);
	f = open_memstream(&buf, &len);
	if (!f)
		die("out of memory");
	dump(f, m, m->in[0]);
	fputc('\n', f);
	if (fclose(f))
		die("out of memory");
	if (write_file_atomic(m->out, buf, len))
		die("merge: %s: cannot write it: %m", m->out);
	free(buf);
	for (int k = 0; k < m->n; k++)
		jread_free(m->in[k]);
	free(m->in);
	return 0;
}
