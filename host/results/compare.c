// SPDX-License-Identifier: GPL-2.0
/*
 * "mmubench compare A.json B.json": the same metrics from two documents
 * (typically the original and a patched kernel), every run one sample,
 * as the seed's tables: per metric, one row per pattern or phase, the
 * two medians, their ratio, and whether the difference is significant
 * at 95 % by Student's t (the difference of means and its interval, as
 * ministat prints it) and by Mann-Whitney U (no normality assumed).
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

struct default_metric {
	const char *scenario, *name, *path;
	/* Only in one shape of document (--table or not): no note if absent. */
	bool shape;
};

/*
 * What a patch to the MMU moves, per scenario.  A default absent from
 * both documents (kernel probes unavailable, a --table document) is
 * listed as skipped, not an error.
 */
static const struct default_metric defaults[] = {
	{ "touch", "ns_sum", "results.runs[].phases[*].vcpus[].ns" },
	{ "touch", "pages_per_s_sum",
	  "results.runs[].phases[*].vcpus[].pages_per_s" },
	{ "touch", "latency_p99_ns_max",
	  "max:results.runs[].phases[*].vcpus[].latency_ns.p99" },
	{ "dirty-log", "enable_ms", "results.runs[].dirty_log.enable_ms", true },
	{ "dirty-log", "disable_ms", "results.runs[].dirty_log.disable_ms",
	  true },
	{ "dirty-log", "first_harvest_reported",
	  "results.runs[].dirty_log.first_harvest_reported", true },
	{ "dirty-log", "get_ms",
	  "results.runs[].dirty_log.iterations[*].get_ms", true },
	{ "dirty-log", "clear_ms",
	  "results.runs[].dirty_log.iterations[*].clear_ms", true },
	{ "dirty-log", "enable_ms (--table)", "results.runs[].enable_ms", true },
	{ "zap", "zap_total_ms", "results.runs[].zap.zap_total_ms" },
	/* Under emulation the median call separates kernels best (measured). */
	{ "zap", "madvise_p50_us", "results.runs[].zap.madvise_p50_us" },
	{ "zap", "fault_p999_us", "results.runs[].zap.fault_p999_us" },
	{ "zap", "kernel_zap_total_ms", "results.runs[].zap.kernel_zap_total_ms" },
	{ "zap", "kernel_fwait_p999_us",
	  "results.runs[].zap.kernel_fwait_p999_us" },
	{ "zap", "kernel_tables_freed",
	  "results.runs[].zap.kernel_tables_freed" },
	/* Seed 002: the worker's CPU time, and what it undid. */
	{ "nx-recovery", "worker_ms", "results.runs[].nx_recovery.worker_ms" },
	{ "nx-recovery", "worker_recovery_ms",
	  "results.runs[].nx_recovery.worker_recovery_ms" },
	{ "nx-recovery", "recovery_pages_4k_delta",
	  "results.runs[].nx_recovery.recovery_pages_4k_delta" },
	{ "nx-recovery", "reexecute_pf_fixed",
	  "results.runs[].nx_recovery.reexecute_pf_fixed" },
	{ "nx-recovery", "splits_zapped",
	  "results.runs[].nx_recovery.splits_zapped" },
	{ "nx-recovery", "worker_us_per_split",
	  "results.runs[].nx_recovery.worker_us_per_split" },
	/* Seed 000's second table: what the first harvest lets it skip. */
	{ "migrate", "total_ms", "results.runs[].migrate.total_ms" },
	{ "migrate", "first_harvest", "results.runs[].migrate.first_harvest" },
	{ "migrate", "pages_sent", "results.runs[].migrate.pages_sent" },
	{ "migrate", "zero_pages", "results.runs[].migrate.zero_pages" },
	{ "migrate", "bytes", "results.runs[].migrate.bytes" },
	{ "migrate", "downtime_ms", "results.runs[].migrate.downtime_ms" },
	{ "migrate", "zero_check_ms", "results.runs[].migrate.zero_check_ms" },
	{ "migrate", "mismatches", "results.runs[].migrate.mismatches" },
};

/*
 * Runs that must not be pooled: a --table document holds several
 * patterns (zap) or page/backing/mode cells (dirty-log).  Each run is
 * filed under the values of these members, then the row.
 */
static const struct { const char *scenario, *keys[4]; } groups[] = {
	{ "zap", { "zap.pattern" } },
	{ "dirty-log", { "dirty_log.mode", "page", "backing", "mode" } },
	{ "migrate", { "page" } },
};

static void usage(FILE *f)
{
	fprintf(f,
"usage: mmubench compare A.json B.json [--metric PATH]... [--json FILE]\n"
"                        [--labels NAME_A,NAME_B] [--runs]\n"
"\n"
"Every run of each document is one sample.  Per metric and row: medians,\n"
"B/A, Student's t (pooled; difference of means and its 95 %% interval)\n"
"and Mann-Whitney U (two-sided p), significant at 95 %% or not.\n"
"\n"
"  --metric PATH   instead of the scenario's defaults, e.g.\n"
"                  results.runs[].zap.zap_total_ms or\n"
"                  max:results.runs[].phases[*].vcpus[].latency_ns.p99\n"
"                  ([] the runs, then sums; [*] one row per element;\n"
"                  [N], [KEY=VALUE]; sum: max: min: mean:; \\. in keys)\n"
"  --json FILE     also write the comparison as JSON (atomically)\n"
"  --labels A,B    names of the two sides in the output (A,B)\n"
"  --runs          also every run's value, side by side (seed 002's table)\n");
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

static struct metric *add_metric(struct compare *c, const char *name,
				 const char *path, bool explicit)
{
	struct metric *m;
	char err[256];

	m = realloc(c->m, (c->nm + 1) * sizeof(*m));
	if (!m)
		die("out of memory");
	c->m = m;
	m = &c->m[c->nm];
	memset(m, 0, sizeof(*m));
	if (jpath_parse(path, &m->path, err, sizeof(err)))
		die("--metric %s: %s", path, err);
	m->name = name;
	m->explicit = explicit;
	c->nm++;
	return m;
}

static void add_defaults(struct compare *c)
{
	for (size_t i = 0; i < MMUB_ARRAY_SIZE(defaults); i++)
		if (!strcmp(defaults[i].scenario, c->side[0].scenario))
			add_metric(c, defaults[i].name, defaults[i].path,
				   false)->shape = defaults[i].shape;
	if (!c->nm)
		die("%s: no default metrics for scenario \"%s\"; name them "
		    "with --metric PATH", c->side[0].file, c->side[0].scenario);
}

/* "same4", "clear 4K anonymous": what a run is filed under. */
static void group_of(const char *scenario, const json_t *run, char *buf,
		     size_t len)
{
	size_t used = 0;

	buf[0] = 0;
	for (size_t g = 0; g < MMUB_ARRAY_SIZE(groups); g++) {
		if (strcmp(groups[g].scenario, scenario))
			continue;
		for (size_t k = 0; k < 4 && groups[g].keys[k]; k++) {
			const char *key = groups[g].keys[k], *dot, *v;
			const json_t *o = run;
			char part[64];

			/* At most one level of nesting in these keys. */
			dot = strchr(key, '.');
			if (dot) {
				snprintf(part, sizeof(part), "%.*s",
					 (int)(dot - key), key);
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

static void test_rows(struct metric *m)
{
	for (size_t i = 0; i < m->nrows; i++) {
		struct row *r = &m->rows[i];

		for (int s = 0; s < 2; s++)
			if (r->n[s] && stats_summarize(r->v[s], r->n[s],
						       &r->s[s]))
				die("out of memory");
		if (!r->n[0] || !r->n[1])
			continue;
		if (stats_mwu(r->v[0], r->n[0], r->v[1], r->n[1], COMPARE_LEVEL,
			      &r->mw))
			die("out of memory");
		stats_ttest(&r->s[0], &r->s[1], COMPARE_LEVEL, &r->t);
		r->tested = true;
	}
}

/* A config member that differs is worth a line: is this the same test? */
static void config_diff(struct compare *c)
{
	const json_t *a = json_object_get(c->side[0].doc, "config");
	const json_t *b = json_object_get(c->side[1].doc, "config");
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
		note(c, "config.%s differs: %s in A, %s in B", key, xs, ys);
		free(xs);
		free(ys);
	}
}

/* Limits of the tests that a reader of the table must know. */
static void test_notes(struct compare *c)
{
	double p_min = 0;
	size_t na = 0, nb = 0, no_t = 0;

	for (size_t k = 0; k < c->nm; k++) {
		for (size_t i = 0; i < c->m[k].nrows; i++) {
			const struct row *r = &c->m[k].rows[i];

			if (!r->tested)
				continue;
			no_t += !r->t.valid;
			if (r->mw.p_min >= 1 - COMPARE_LEVEL && r->mw.p_min > p_min) {
				p_min = r->mw.p_min;
				na = r->n[0];
				nb = r->n[1];
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
}

static void skipped_notes(struct compare *c)
{
	for (size_t k = 0; k < c->nm; k++) {
		const struct metric *m = &c->m[k];

		if (!m->found[0] && !m->found[1] && m->shape)
			continue;
		if (!m->found[0] && !m->found[1])
			note(c, "%s: skipped, in neither document (%s)",
			     m->name, m->why[0]);
		else if (!m->found[0] || !m->found[1])
			note(c, "%s: only in %s; %s: %s", m->name,
			     m->found[0] ? "A" : "B",
			     c->side[m->found[0] ? 1 : 0].file,
			     m->why[m->found[0] ? 1 : 0]);
	}
}

static void parse_labels(struct compare *c, char *arg)
{
	char *comma = strchr(arg, ',');

	if (!comma || comma == arg || !comma[1] || strchr(comma + 1, ','))
		die("--labels %s: expected two names, NAME_A,NAME_B", arg);
	*comma = 0;
	c->side[0].label = arg;
	c->side[1].label = comma + 1;
}

static void parse_args(struct compare *c, int argc, char **argv)
{
	static const struct option opts[] = {
		{ "metric", required_argument, NULL, 'm' },
		{ "json", required_argument, NULL, 'j' },
		{ "labels", required_argument, NULL, 'l' },
		{ "runs", no_argument, NULL, 'r' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int o, nfiles = 0;

	c->side[0].label = "A";
	c->side[1].label = "B";
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
			parse_labels(c, optarg);
			break;
		case 'r':
			c->runs = true;
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
		if (nfiles < 2)
			c->side[nfiles].file = argv[optind];
	if (nfiles != 2) {
		usage(stderr);
		die("compare: expected two documents, A.json B.json (got %d)",
		    nfiles);
	}
}

static size_t total_rows(const struct compare *c)
{
	size_t n = 0;

	for (size_t k = 0; k < c->nm; k++)
		n += c->m[k].nrows;
	return n;
}

static size_t tested_rows(const struct compare *c)
{
	size_t n = 0;

	for (size_t k = 0; k < c->nm; k++)
		for (size_t i = 0; i < c->m[k].nrows; i++)
			n += c->m[k].rows[i].tested;
	return n;
}

static void compare_free(struct compare *c)
{
	for (size_t k = 0; k < c->nm; k++) {
		for (size_t i = 0; i < c->m[k].nrows; i++) {
			free(c->m[k].rows[i].label);
			free(c->m[k].rows[i].v[0]);
			free(c->m[k].rows[i].v[1]);
		}
		free(c->m[k].rows);
		jpath_free(&c->m[k].path);
	}
	free(c->m);
	for (size_t i = 0; i < c->nnotes; i++)
		free(c->notes[i]);
	free(c->notes);
	json_decref(c->side[0].doc);
	json_decref(c->side[1].doc);
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
	load_side(&c->side[0]);
	load_side(&c->side[1]);
	if (strcmp(c->side[0].scenario, c->side[1].scenario))
		die("%s is a \"%s\" document, %s a \"%s\" one: different "
		    "scenarios do not compare", c->side[0].file,
		    c->side[0].scenario, c->side[1].file, c->side[1].scenario);
	if (!c->nm)
		add_defaults(c);
	for (size_t k = 0; k < c->nm; k++) {
		collect(c, &c->m[k], 0);
		collect(c, &c->m[k], 1);
		test_rows(&c->m[k]);
	}
	if (!total_rows(c))
		die("no metric of scenario \"%s\" found in %s or %s (%s)",
		    c->side[0].scenario, c->side[0].file, c->side[1].file,
		    c->m[0].why[0]);
	config_diff(c);
	skipped_notes(c);
	test_notes(c);
	compare_print(c);
	if (c->json)
		compare_write_json(c);
	ret = tested_rows(c) ? 0 : 1;
	if (ret)
		err_msg("no row is in both %s and %s: nothing was compared",
			c->side[0].file, c->side[1].file);
	compare_free(c);
	return ret;
}
