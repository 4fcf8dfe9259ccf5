// SPDX-License-Identifier: GPL-2.0
/*
 * "mmubench compare A.json B.json [C.json ...]": the same metrics from
 * two to eight documents (the original kernel first, then patched ones),
 * every run one sample, as the seed's tables: per metric, one row per
 * pattern or phase, each side's median, and each side's ratio to the
 * first and whether that difference is significant at 95 % by Student's
 * t (the difference of means and its interval, as ministat prints it)
 * and by Mann-Whitney U (no normality assumed).
 */
#define _GNU_SOURCE
#include <getopt.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include "util/util.h"
#include "results/commands.h"
#include "results/compare.h"
#include "results/json.h"
#include "results/resolution.h"
#include "results/metrics.h"


static void usage(FILE *f)
{
	fprintf(f,
"usage: mmubench compare A.json B.json [C.json ...] [--metric PATH]...\n"
"                        [--json FILE] [--labels NAME_A,NAME_B,...] [--runs]\n"
"                        [--all-counters]\n"
"\n"
"Every run of each document is one sample; A is the reference, and up to\n"
"%d documents compare.  Per metric and row: medians, B/A (C/A, ...),\n"
"Student's t (pooled; difference of means and its 95 %% interval) and\n"
"Mann-Whitney U (two-sided p), significant at 95 %% or not.  With more\n"
"than two documents the table keeps the ratios and both verdicts.\n"
"Then every other number of the runs (each phase's VM and vCPU stats and\n"
"wall time, the scenario's own counts): those Student's t flags after\n"
"Benjamini-Hochberg (false discovery rate 5 %%), Mann-Whitney agreeing at\n"
"95 %%, are listed as \"also changed\", with one line counting the rest.\n"
"\n"
"  --metric PATH   instead of the scenario's defaults, e.g.\n"
"                  results.runs[].zap.zap_total_ms or\n"
"                  max:results.runs[].phases[*].vcpus[].latency_ns.p99\n"
"                  ([] the runs, then sums; [*] one row per element;\n"
"                  [N], [KEY=VALUE]; sum: max: min: mean:; \\. in keys)\n"
"  --json FILE     also write the comparison as JSON (atomically)\n"
"  --labels A,B,.. names of the sides in the output, one per document\n"
"                  (default A,B,...)\n"
"  --runs          also every run's value, side by side (seed 002's table)\n"
"  --all-counters  every counter compared, each with its verdict\n",
		COMPARE_MAX_SIDES);
}

static void note(struct compare *c, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void note(struct compare *c, const char *fmt, ...)
{
	char **n = realloc(c->notes, (c->nnotes + 1) * sizeof(*n));
	va_list ap;

	if (!n)
		die("out of memory");
	c->notes = n;
	va_start(ap, fmt);
	if (vasprintf(&n[c->nnotes], fmt, ap) < 0)
		die("out of memory");
	va_end(ap);
	c->nnotes++;
}

static void load_side(struct side *s)
{
	s->doc = results_load("compare", s->file);
	s->scenario = results_scenario(s->doc);
	s->runs = json_array_size(results_runs(s->doc));
}

struct metric *metric_append(struct metric **ms, size_t *n,
			     const char *what, const char *path)
{
	struct metric *m;
	char err[256];

	m = realloc(*ms, (*n + 1) * sizeof(*m));
	if (!m)
		die("out of memory");
	*ms = m;
	m = &m[*n];
	memset(m, 0, sizeof(*m));
	if (jpath_parse(path, &m->path, err, sizeof(err)))
		die("%s %s: %s", what, path, err);
	(*n)++;
	return m;
}

static struct metric *add_metric(struct compare *c, const char *name,
				 const char *path, bool explicit)
{
	struct metric *m = metric_append(&c->m, &c->nm, "--metric", path);

	m->name = name;
	m->explicit = explicit;
	return m;
}

/* The metrics the documents' scenario declares (its own file). */
static void add_defaults(struct compare *c)
{
	const struct metric_set *s = metric_set_find(c->side[0].scenario);
	const struct metric_def *d;

	for (d = s ? s->metrics : NULL; d && d->name; d++)
		add_metric(c, d->name, d->path, false)->shape = d->shape;
	if (!c->nm)
		die("%s: no default metrics for scenario \"%s\"; name them "
		    "with --metric PATH", c->side[0].file, c->side[0].scenario);
}

/* "same4", "clear 4K anonymous": what a run is filed under. */
static void group_of(const char *scenario, const json_t *run, char *buf,
		     size_t len)
{
	const struct metric_set *s = metric_set_find(scenario);
	const char *const *keys = s ? s->row_keys : NULL;
	size_t used = 0;

	buf[0] = 0;
	for (size_t k = 0; keys && keys[k]; k++) {
		const char *key = keys[k], *dot, *v;
		const json_t *o = run;
		char part[64];

		/* At most one level of nesting in these keys. */
		dot = strchr(key, '.');
		if (dot) {
			snprintf(part, sizeof(part), "%.*s", (int)(dot - key),
				 key);
			o = json_object_get(o, part);
			key = dot + 1;
		}
		v = json_string_value(json_object_get(o, key));
		if (!v || used >= len)
			continue;
		used += (size_t)snprintf(buf + used, len - used, "%s%s",
					 used ? " " : "", v);
	}
}

struct emit_ctx {
	struct metric *m;
	int side;
	const char *group;
};

static struct row *row_get(struct metric *m, const char *label)
{
	struct row *r;

	for (size_t i = 0; i < m->nrows; i++)
		if (!strcmp(m->rows[i].label, label))
			return &m->rows[i];
	if (m->nrows == m->cap) {
		m->cap = m->cap ? m->cap * 2 : 8;
		r = realloc(m->rows, m->cap * sizeof(*r));
		if (!r)
			die("out of memory");
		m->rows = r;
	}
	r = &m->rows[m->nrows++];
	memset(r, 0, sizeof(*r));
	r->label = strdup(label);
	if (!r->label)
		die("out of memory");
	return r;
}

static int emit(void *ctx, const char *label, double v)
{
	struct emit_ctx *e = ctx;
	char name[256];
	struct row *r;
	int s = e->side;

	snprintf(name, sizeof(name), "%s%s%s", e->group,
		 e->group[0] && label[0] ? " " : "", label);
	r = row_get(e->m, name[0] ? name : "all");
	if (r->n[s] == r->cap[s]) {
		double *nv;

		r->cap[s] = r->cap[s] ? r->cap[s] * 2 : 8;
		nv = realloc(r->v[s], r->cap[s] * sizeof(*nv));
		if (!nv)
			die("out of memory");
		r->v[s] = nv;
	}
	r->v[s][r->n[s]++] = v;
	return 0;
}

static void collect(struct compare *c, struct metric *m, int s)
{
	const struct side *sd = &c->side[s];
	const json_t *runs, *run;
	char why[256], group[128];
	struct emit_ctx e = { m, s, group };
	size_t i;

	runs = jpath_samples(&m->path, sd->doc, why, sizeof(why));
	if (!runs) {
		if (m->explicit)
			die("--metric %s: %s: %s", m->path.text, sd->file, why);
		snprintf(m->why[s], sizeof(m->why[s]), "%s", why);
		return;
	}
	json_array_foreach(runs, i, run) {
		int n;

		group_of(sd->scenario, run, group, sizeof(group));
		n = jpath_eval(&m->path, run, i, emit, &e, why, sizeof(why));
		if (n < 0)
			die("--metric %s: %s: %s", m->path.text, sd->file, why);
		if (n)
			m->found[s]++;
		else if (!m->why[s][0])
			snprintf(m->why[s], sizeof(m->why[s]), "%s", why);
	}
	if (!m->found[s] && m->explicit)
		die("--metric %s: absent in %s (%s)", m->path.text, sd->file,
		    m->why[s]);
}

static void test_rows(struct metric *m, int nsides)
{
	for (size_t i = 0; i < m->nrows; i++) {
		struct row *r = &m->rows[i];

		for (int s = 0; s < nsides; s++)
			if (r->n[s] && stats_summarize(r->v[s], r->n[s],
						       &r->s[s]))
				die("out of memory");
		/* Each side against the reference, not against each other. */
		for (int s = 1; s < nsides; s++) {
			if (!r->n[0] || !r->n[s])
				continue;
			if (stats_mwu(r->v[0], r->n[0], r->v[s], r->n[s],
				      COMPARE_LEVEL, &r->mw[s]))
				die("out of memory");
			stats_ttest(&r->s[0], &r->s[s], COMPARE_LEVEL,
				    &r->t[s]);
			r->mde[s] = resolution_of(&r->s[0], &r->s[s],
						  COMPARE_LEVEL,
						  RESOLUTION_POWER);
			r->tested[s] = true;
			r->any = true;
		}
	}
}

/* Each metric's values on every side, then its rows tested. */
static void collect_and_test(struct compare *c, struct metric *m, size_t n)
{
	for (size_t k = 0; k < n; k++) {
		for (int s = 0; s < c->nsides; s++)
			collect(c, &m[k], s);
		test_rows(&m[k], c->nsides);
	}
}

/* A config member that differs is worth a line: is this the same test? */
static void config_diff(struct compare *c, int s)
{
	const json_t *a = json_object_get(c->side[0].doc, "config");
	const json_t *b = json_object_get(c->side[s].doc, "config");
	const char *key;
	json_t *x, *y;

	json_object_foreach((json_t *)a, key, x) {
		char *xs, *ys;

		y = json_object_get(b, key);
		if (!y || json_equal(x, y) || json_is_object(x) ||
		    json_is_array(x))
			continue;
		xs = json_dumps(x, JSON_ENCODE_ANY);
		ys = json_dumps(y, JSON_ENCODE_ANY);
		if (!xs || !ys)
			die("out of memory");
		note(c, "config.%s differs: %s in A, %s in %c", key, xs, ys,
		     side_letter(s));
		free(xs);
		free(ys);
	}
}

/*
 * Times on different clocks (the host's, or instructions counted under
 * QEMU's icount: env.clock) measure different things.  Documents from
 * before env.clock were on the host's.
 */
static void clock_diff(struct compare *c, int s)
{
	const char *a = json_string_value(json_object_get(
			json_object_get(c->side[0].doc, "env"), "clock"));
	const char *b = json_string_value(json_object_get(
			json_object_get(c->side[s].doc, "env"), "clock"));

	if (strcmp(a ? a : "host", b ? b : "host"))
		note(c, "env.clock differs: %s in A, %s in %c: times on "
		     "different clocks do not compare", a ? a : "host",
		     b ? b : "host", side_letter(s));
}

/*
 * Lock waits and remote flushes depend on how many CPUs the vCPUs and
 * the harness shared (env.cpus): on one, a vCPU never waits.
 */
static void cpus_diff(struct compare *c, int s)
{
	json_t *a = json_object_get(json_object_get(c->side[0].doc, "env"),
				    "cpus");
	json_t *b = json_object_get(json_object_get(c->side[s].doc, "env"),
				    "cpus");

	if (json_is_integer(a) && json_is_integer(b) &&
	    json_integer_value(a) != json_integer_value(b))
		note(c, "env.cpus differs: %lld in A, %lld in %c: waits "
		     "between CPUs do not compare",
		     (long long)json_integer_value(a),
		     (long long)json_integer_value(b), side_letter(s));
}

/* A nested run's figures carry its QEMU's scheduling (env.qemu). */
static void qemu_diff(struct compare *c, int s)
{
	const char *a = json_string_value(json_object_get(
			json_object_get(c->side[0].doc, "env"), "qemu"));
	const char *b = json_string_value(json_object_get(
			json_object_get(c->side[s].doc, "env"), "qemu"));

	if (a && b && strcmp(a, b))
		note(c, "env.qemu differs: %s in A, %s in %c: the nested "
		     "kernels ran on different emulators", a, b,
		     side_letter(s));
}

/* Limits of the tests that a reader of the table must know. */
static void test_notes(struct compare *c)
{
	double p_min = 0;
	size_t na = 0, nb = 0, no_t = 0;

	for (size_t k = 0; k < c->nm; k++) {
		for (size_t i = 0; i < c->m[k].nrows; i++) {
			const struct row *r = &c->m[k].rows[i];

			for (int s = 1; s < c->nsides; s++) {
				if (!r->tested[s])
					continue;
				no_t += !r->t[s].valid;
				if (r->mw[s].p_min >= 1 - COMPARE_LEVEL &&
				    r->mw[s].p_min > p_min) {
					p_min = r->mw[s].p_min;
					na = r->n[0];
					nb = r->n[s];
				}
			}
		}
	}
	if (p_min > 0)
		note(c, "Mann-Whitney with %zu and %zu runs cannot reach 95 %%: "
		     "its smallest two-sided p is %.3f; 4 runs a side or more "
		     "are needed", na, nb, p_min);
	if (no_t)
		note(c, "%zu row%s without a t-test: it needs 2 runs a side",
		     no_t, no_t > 1 ? "s" : "");
	note(c, "res: the resolution, the smallest change of the mean (in %% of "
	     "A's) that both tests flag 4 times in 5 with these runs and "
	     "this noise; a smaller real change may go unseen");
}

static void skipped_notes(struct compare *c)
{
	for (size_t k = 0; k < c->nm; k++) {
		const struct metric *m = &c->m[k];
		int have = 0;

		for (int s = 0; s < c->nsides; s++)
			have += m->found[s] > 0;
		if (!have && m->shape)
			continue;
		if (!have)
			note(c, "%s: skipped, in %s document (%s)", m->name,
			     c->nsides == 2 ? "neither" : "no", m->why[0]);
		else if (have == c->nsides)
			continue;
		else if (c->nsides == 2)
			note(c, "%s: only in %s; %s: %s", m->name,
			     m->found[0] ? "A" : "B",
			     c->side[m->found[0] ? 1 : 0].file,
			     m->why[m->found[0] ? 1 : 0]);
		else
			for (int s = 0; s < c->nsides; s++)
				if (!m->found[s])
					note(c, "%s: not in %c; %s: %s",
					     m->name, side_letter(s),
					     c->side[s].file, m->why[s]);
	}
}

/* --labels, once the number of documents is known: one name each. */
static void parse_labels(struct compare *c)
{
	static char copy[1024];
	bool empty = false;
	char *p, *comma;
	int n = 0;

	if (!c->labels)
		return;
	snprintf(copy, sizeof(copy), "%s", c->labels);
	for (p = copy; p; p = comma ? comma + 1 : NULL, n++) {
		comma = strchr(p, ',');
		if (comma)
			*comma = 0;
		empty |= !*p;
		if (n < c->nsides)
			c->side[n].label = p;
	}
	if (c->nsides == 2 && (n != 2 || empty))
		die("--labels %s: expected two names, NAME_A,NAME_B",
		    c->labels);
	if (n != c->nsides || empty)
		die("--labels %s: expected %d names, one per document, none "
		    "empty", c->labels, c->nsides);
}

/* "A", "B", ...: the default labels, the columns' letters. */
static void default_labels(struct compare *c)
{
	static char letters[COMPARE_MAX_SIDES][2];

	for (int s = 0; s < COMPARE_MAX_SIDES; s++) {
		letters[s][0] = side_letter(s);
		c->side[s].label = letters[s];
	}
}

static void parse_args(struct compare *c, int argc, char **argv)
{
	static const struct option opts[] = {
		{ "metric", required_argument, NULL, 'm' },
		{ "json", required_argument, NULL, 'j' },
		{ "labels", required_argument, NULL, 'l' },
		{ "runs", no_argument, NULL, 'r' },
		{ "all-counters", no_argument, NULL, 'a' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int o, nfiles = 0;

	default_labels(c);
	optind = 1;
	opterr = 0;
	while ((o = getopt_long(argc, argv, ":h", opts, NULL)) != -1) {
		switch (o) {
		case 'm':
			add_metric(c, optarg, optarg, true);
			break;
		case 'j':
			c->json = optarg;
			break;
		case 'l':
			c->labels = optarg;
			break;
		case 'r':
			c->runs = true;
			break;
		case 'a':
			c->all_counters = true;
			break;
		case 'h':
			usage(stdout);
			exit(0);
		case ':':
			die("%s needs a value", argv[optind - 1]);
		default:
			die("compare: unknown option %s (see mmubench compare "
			    "--help)", argv[optind - 1]);
		}
	}
	for (; optind < argc; optind++, nfiles++)
		if (nfiles < COMPARE_MAX_SIDES)
			c->side[nfiles].file = argv[optind];
	if (nfiles < 2 || nfiles > COMPARE_MAX_SIDES)
		die("compare: expected 2 to %d documents, A.json B.json "
		    "[C.json ...] (got %d)", COMPARE_MAX_SIDES, nfiles);
	c->nsides = nfiles;
	parse_labels(c);
}

static size_t total_rows(const struct compare *c)
{
	size_t n = 0;

	for (size_t k = 0; k < c->nm; k++)
		n += c->m[k].nrows;
	return n;
}

/* Rows side @s shares with the reference. */
static size_t tested_rows(const struct compare *c, int s)
{
	size_t n = 0;

	for (size_t k = 0; k < c->nm; k++)
		for (size_t i = 0; i < c->m[k].nrows; i++)
			n += c->m[k].rows[i].tested[s];
	return n;
}

static void metrics_free(struct metric *m, size_t n)
{
	for (size_t k = 0; k < n; k++) {
		for (size_t i = 0; i < m[k].nrows; i++) {
			free(m[k].rows[i].label);
			for (int s = 0; s < COMPARE_MAX_SIDES; s++)
				free(m[k].rows[i].v[s]);
		}
		free(m[k].rows);
		jpath_free(&m[k].path);
	}
	free(m);
}

static void compare_free(struct compare *c)
{
	metrics_free(c->m, c->nm);
	counters_free(c);
	metrics_free(c->cm, c->ncm);
	for (size_t i = 0; i < c->nnotes; i++)
		free(c->notes[i]);
	free(c->notes);
	for (int s = 0; s < c->nsides; s++)
		json_decref(c->side[s].doc);
	memset(c, 0, sizeof(*c));
}

/*
 * Global, so that what a die() leaves behind is still reachable: the
 * sanitized build's leak check then stays quiet on bad input.
 */
static struct compare cmp;

int cmd_compare(int argc, char **argv)
{
	struct compare *c = &cmp;
	int ret;

	parse_args(c, argc, argv);
	for (int s = 0; s < c->nsides; s++) {
		load_side(&c->side[s]);
		if (strcmp(c->side[0].scenario, c->side[s].scenario))
			die("%s is a \"%s\" document, %s a \"%s\" one: "
			    "different scenarios do not compare",
			    c->side[0].file, c->side[0].scenario,
			    c->side[s].file, c->side[s].scenario);
	}
	if (!c->nm)
		add_defaults(c);
	collect_and_test(c, c->m, c->nm);
	if (!total_rows(c))
		die("no metric of scenario \"%s\" found in %s or %s%s (%s)",
		    c->side[0].scenario, c->side[0].file, c->side[1].file,
		    c->nsides > 2 ? " or the others" : "", c->m[0].why[0]);
	counters_add(c);
	collect_and_test(c, c->cm, c->ncm);
	counters_judge(c);
	for (int s = 1; s < c->nsides; s++) {
		config_diff(c, s);
		clock_diff(c, s);
		cpus_diff(c, s);
		qemu_diff(c, s);
	}
	skipped_notes(c);
	test_notes(c);
	compare_print(c);
	if (c->json)
		compare_write_json(c);
	/* Every side must share a row with the reference. */
	ret = 0;
	for (int s = 1; s < c->nsides; s++) {
		if (tested_rows(c, s))
			continue;
		err_msg("no row is in both %s and %s: nothing was compared",
			c->side[0].file, c->side[s].file);
		ret = 1;
	}
	compare_free(c);
	return ret;
}
