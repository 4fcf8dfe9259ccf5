// SPDX-License-Identifier: GPL-2.0
/*
 * compare's counters: beside the scenario's declared metrics, every
 * number a run's document carries about the kernel and the run, judged
 * the same way, so that what a patch changed inside KVM shows without a
 * --metric naming it.  They are each phase's VM and vCPU statistics
 * (KVM_GET_STATS_FD deltas) and wall time, and the numbers of the
 * scenario's own object (its kprobe counts among them).
 *
 * Many counters are tested at once: at 95 % some would be flagged by
 * chance.  So a counter is "also changed" only if Student's t flags it
 * after Benjamini-Hochberg over the side's counters (false discovery
 * rate 5 %) and Mann-Whitney at 95 %, or if every run of each side has
 * one value, the two differ and Mann-Whitney can see it with these
 * runs; one every run of both has the same value is "identical".
 */
#define _GNU_SOURCE
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "util/util.h"
#include "results/compare.h"
#include "results/json.h"

static bool have_path(const struct compare *c, const char *path)
{
	for (size_t k = 0; k < c->nm; k++)
		if (!strcmp(c->m[k].path.text, path))
			return true;
	for (size_t k = 0; k < c->ncm; k++)
		if (!strcmp(c->cm[k].path.text, path))
			return true;
	return false;
}

static void add_counter(struct compare *c, const char *name,
			const char *path)
{
	struct metric *m;

	if (have_path(c, path))
		return;
	m = metric_append(&c->cm, &c->ncm, "counter", path);
	m->name = strdup(name);
	if (!m->name)
		die("out of memory");
}

/* Every number of @obj as a counter "NAME_PREFIX.KEY" at "PATH.KEY". */
static void add_numbers(struct compare *c, const json_t *obj,
			const char *name, const char *path)
{
	const char *key;
	json_t *v;

	json_object_foreach((json_t *)obj, key, v) {
		char n[256], p[512];

		/* A key the path syntax would split stays out. */
		if (!json_is_number(v) || strpbrk(key, ".[]=:\\"))
			continue;
		snprintf(n, sizeof(n), "%s%s", name, key);
		snprintf(p, sizeof(p), "%s.%s", path, key);
		add_counter(c, n, p);
	}
}

static void add_phase(struct compare *c, const json_t *ph)
{
	const char *name = json_string_value(json_object_get(ph, "name"));
	char n[128], p[256];

	if (!name || strpbrk(name, ".[]=:\\ "))
		return;
	snprintf(n, sizeof(n), "%s wall_ms", name);
	snprintf(p, sizeof(p), "results.runs[].phases[name=%s].wall_ms", name);
	if (json_is_number(json_object_get(ph, "wall_ms")))
		add_counter(c, n, p);
	snprintf(n, sizeof(n), "%s vm.", name);
	snprintf(p, sizeof(p), "results.runs[].phases[name=%s].vm_stats", name);
	add_numbers(c, json_object_get(ph, "vm_stats"), n, p);
	snprintf(n, sizeof(n), "%s vcpu.", name);
	snprintf(p, sizeof(p), "results.runs[].phases[name=%s].vcpu_stats", name);
	add_numbers(c, json_object_get(ph, "vcpu_stats"), n, p);
}

void counters_add(struct compare *c)
{
	const json_t *runs = results_runs(c->side[0].doc), *run, *ph;
	const char *key;
	size_t i, j;
	json_t *v;

	json_array_foreach(runs, i, run) {
		json_array_foreach(json_object_get(run, "phases"), j, ph)
			add_phase(c, ph);
		/* The scenario's own object: zap's "zap", and so on. */
		json_object_foreach((json_t *)run, key, v) {
			char n[128], p[256];

			if (!json_is_object(v) || !strcmp(key, "boot") ||
			    strpbrk(key, ".[]=:\\"))
				continue;
			snprintf(n, sizeof(n), "%s.", key);
			snprintf(p, sizeof(p), "results.runs[].%s", key);
			add_numbers(c, v, n, p);
		}
	}
}

/* Every run of the side has the same value. */
static bool constant(const struct row *r, int s)
{
	return r->n[s] && r->s[s].min == r->s[s].max;
}

/*
 * Student's t p-value, which the correction takes: Mann-Whitney's
 * cannot go below 2/252 with 5 runs a side, above the first threshold
 * of Benjamini-Hochberg over 7 counters or more, so it only has to
 * agree at 95 %.
 */
static double p_ttest(const struct row *r, int s)
{
	const struct stats_ttest *t = &r->t[s];

	if (!t->valid)
		return 1;
	return isinf(t->t) ? 0 : 1 - stats_t_central(fabs(t->t), t->df);
}

static void judge_side(struct compare *c, int s)
{
	struct counter_side *cs = &c->cs[s];
	size_t n = 0, k = 0;
	double *p;
	bool *flag;

	for (size_t m = 0; m < c->ncm; m++)
		for (size_t i = 0; i < c->cm[m].nrows; i++)
			n += c->cm[m].rows[i].tested[s];
	p = calloc(n + 1, sizeof(*p));
	flag = calloc(n + 1, sizeof(*flag));
	if (!p || !flag)
		die("out of memory");
	for (size_t m = 0; m < c->ncm; m++) {
		for (size_t i = 0; i < c->cm[m].nrows; i++) {
			struct row *r = &c->cm[m].rows[i];

			if (!r->tested[s])
				continue;
			cs->compared++;
			r->p[s] = p_ttest(r, s);
			if (constant(r, 0) && constant(r, s) &&
			    r->s[0].min == r->s[s].min) {
				r->verdict[s] = COUNTER_IDENTICAL;
				cs->identical++;
				continue;
			}
			/*
			 * One value a side, apart, and runs enough for
			 * Mann-Whitney to see it: no noise to correct for.
			 * With fewer runs two equal values prove nothing.
			 */
			if (constant(r, 0) && constant(r, s) &&
			    r->mw[s].significant) {
				r->verdict[s] = COUNTER_EXACT;
				cs->exact++;
				continue;
			}
			p[k++] = r->p[s];
		}
	}
	cs->varying = k;
	if (stats_bh(p, k, COUNTERS_FDR, flag))
		die("out of memory");
	k = 0;
	for (size_t m = 0; m < c->ncm; m++) {
		for (size_t i = 0; i < c->cm[m].nrows; i++) {
			struct row *r = &c->cm[m].rows[i];

			if (!r->tested[s] || r->verdict[s])
				continue;
			r->verdict[s] = flag[k++] && r->mw[s].significant ?
					COUNTER_CHANGED : COUNTER_NO_CHANGE;
			cs->changed += r->verdict[s] == COUNTER_CHANGED;
		}
	}
	free(p);
	free(flag);
}

void counters_judge(struct compare *c)
{
	for (int s = 1; s < c->nsides; s++)
		judge_side(c, s);
}

void counters_free(struct compare *c)
{
	for (size_t k = 0; k < c->ncm; k++)
		free((char *)c->cm[k].name);
}
