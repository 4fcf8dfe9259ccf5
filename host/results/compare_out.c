// SPDX-License-Identifier: GPL-2.0
/*
 * "mmubench compare" output: per metric a table in the seed's shape
 * (one row per pattern or phase, A and B medians, B/A, the verdicts),
 * then the notes; and the same as JSON.
 */
#include <math.h>
#include <string.h>
#include "util/util.h"
#include "results/compare.h"
#include "results/json.h"

static const char *env_str(const struct side *s, const char *key)
{
	const char *v = json_string_value(json_object_get(
				json_object_get(s->doc, "env"), key));

	return v ? v : "?";
}

/* Four significant digits, without exponents below ten million. */
static const char *num(double v, char *buf, size_t len)
{
	double a = fabs(v);

	if (isnan(v))
		snprintf(buf, len, "-");
	else if (a >= 1e7 || (a > 0 && a < 1e-3))
		snprintf(buf, len, "%.4g", v);
	else
		snprintf(buf, len, "%.*f",
			 a >= 1000 ? 0 : a >= 100 ? 1 : a >= 10 ? 2 : 3, v);
	return buf;
}

static void diff_text(const struct stats_ttest *t, char *buf, size_t len)
{
	char d[32], h[32], pct[32] = "";

	if (!isnan(t->pct))
		snprintf(pct, sizeof(pct), " (%+.1f%%)", t->pct);
	if (t->valid)
		snprintf(buf, len, "%s +/- %s%s", num(t->diff, d, sizeof(d)),
			 num(t->ci_hi - t->diff, h, sizeof(h)), pct);
	else
		snprintf(buf, len, "%s%s, no interval", num(t->diff, d,
			 sizeof(d)), pct);
}

static void print_row(const struct row *r, int w)
{
	char a[32], b[32], ratio[32], ci[96];
	const struct stats_ttest *t = &r->t;

	if (!r->tested) {
		printf("  %-*s %3zu %3zu %11s %11s   only in %s\n", w, r->label,
		       r->n[0], r->n[1], r->n[0] ? num(r->s[0].median, a, 32) :
		       "-", r->n[1] ? num(r->s[1].median, b, 32) : "-",
		       r->n[0] ? "A" : "B");
		return;
	}
	if (r->s[0].median)
		snprintf(ratio, sizeof(ratio), "%.3f",
			 r->s[1].median / r->s[0].median);
	else
		snprintf(ratio, sizeof(ratio), "-");
	diff_text(t, ci, sizeof(ci));
	printf("  %-*s %3zu %3zu %11s %11s %7s  %-34s %-4s %6.3f %s\n", w,
	       r->label, r->n[0], r->n[1], num(r->s[0].median, a, sizeof(a)),
	       num(r->s[1].median, b, sizeof(b)), ratio, ci,
	       t->valid ? (t->significant ? "yes" : "no") : "n/a", r->mw.p,
	       r->mw.significant ? "yes" : "no");
}

/* "| Run | A | B |": each run's value in the order the runs were made. */
static void print_runs(const struct compare *c, const struct row *r)
{
	size_t n = mmub_max(r->n[0], r->n[1]);
	int wa = (int)mmub_max((size_t)10, strlen(c->side[0].label));
	int wb = (int)mmub_max((size_t)10, strlen(c->side[1].label));
	char a[32], b[32];

	printf("  %s, every run:\n  | %-4s | %*s | %*s |\n", r->label, "Run",
	       wa, c->side[0].label, wb, c->side[1].label);
	for (size_t i = 0; i < n; i++)
		printf("  | %-4zu | %*s | %*s |\n", i + 1, wa,
		       i < r->n[0] ? num(r->v[0][i], a, sizeof(a)) : "-", wb,
		       i < r->n[1] ? num(r->v[1][i], b, sizeof(b)) : "-");
}

static void print_metric(const struct compare *c, const struct metric *m)
{
	int w = 8;

	for (size_t i = 0; i < m->nrows; i++)
		w = (int)mmub_max((size_t)w, strlen(m->rows[i].label));
	printf("\n%s", m->name);
	if (strcmp(m->name, m->path.text))
		printf("  (%s)", m->path.text);
	printf("\n  %-*s %3s %3s %11s %11s %7s  %-34s %-4s %6s %s\n", w, "row",
	       "nA", "nB", "A median", "B median", "B/A",
	       "B-A mean +/- 95% CI (% of A)", "t", "MW p", "MW");
	for (size_t i = 0; i < m->nrows; i++)
		print_row(&m->rows[i], w);
	for (size_t i = 0; c->runs && i < m->nrows; i++)
		print_runs(c, &m->rows[i]);
}

static void print_side(const struct side *s, const char *ab)
{
	bool named = strcmp(s->label, ab);

	printf("  %s%s%s: %s, %zu run%s, kernel %s, MMU %s\n", ab,
	       named ? " = " : "", named ? s->label : "", s->file, s->runs,
	       s->runs > 1 ? "s" : "", env_str(s, "kernel"), env_str(s, "mmu"));
}

void compare_print(const struct compare *c)
{
	size_t sig = 0, rows = 0;

	printf("mmubench compare: %s, every run one sample; significance at "
	       "95 %% (two-sided)\n", c->side[0].scenario);
	print_side(&c->side[0], "A");
	print_side(&c->side[1], "B");
	for (size_t k = 0; k < c->nm; k++) {
		if (!c->m[k].nrows)
			continue;
		print_metric(c, &c->m[k]);
		for (size_t i = 0; i < c->m[k].nrows; i++) {
			const struct row *r = &c->m[k].rows[i];

			rows += r->tested;
			sig += r->tested && r->t.significant &&
			       r->mw.significant;
		}
	}
	printf("\n%zu of %zu rows differ at 95 %% by both tests\n", sig, rows);
	for (size_t i = 0; i < c->nnotes; i++)
		printf("note: %s\n", c->notes[i]);
}

static json_t *json_summary(const struct stats_summary *s,
			    const struct row *r, int side)
{
	json_t *o = json_object(), *values = json_array();

	if (!o || !values)
		die("out of memory");
	jset(o, "n", json_integer((json_int_t)s->n));
	jset(o, "min", jnum(s->min));
	jset(o, "max", jnum(s->max));
	jset(o, "median", jnum(s->median));
	jset(o, "mean", jnum(s->mean));
	jset(o, "stddev", jnum(s->stddev));
	for (size_t i = 0; i < r->n[side]; i++)
		if (json_array_append_new(values, jnum(r->v[side][i])))
			die("out of memory");
	jset(o, "values", values);
	return o;
}

static json_t *json_ttest(const struct stats_ttest *t)
{
	json_t *o = json_object();

	if (!o)
		die("out of memory");
	jset(o, "valid", json_boolean(t->valid));
	jset(o, "diff", jnum(t->diff));
	jset(o, "ci_low", jnum(t->valid ? t->ci_lo : NAN));
	jset(o, "ci_high", jnum(t->valid ? t->ci_hi : NAN));
	jset(o, "diff_pct", jnum(t->pct));
	jset(o, "t", jnum(t->t));
	jset(o, "df", json_integer(t->df));
	jset(o, "t_crit", jnum(t->valid ? t->t_crit : NAN));
	jset(o, "significant", json_boolean(t->significant));
	return o;
}

static json_t *json_mwu(const struct stats_mwu *mw)
{
	json_t *o = json_object();

	if (!o)
		die("out of memory");
	jset(o, "u", jnum(mw->u));
	jset(o, "p", jnum(mw->p));
	jset(o, "p_min", jnum(mw->p_min));
	jset(o, "exact", json_boolean(mw->exact));
	jset(o, "significant", json_boolean(mw->significant));
	return o;
}

static json_t *json_row(const struct metric *m, const struct row *r)
{
	json_t *o = json_object();

	if (!o)
		die("out of memory");
	jset(o, "metric", json_string(m->name));
	jset(o, "path", json_string(m->path.text));
	jset(o, "row", json_string(r->label));
	jset(o, "a", json_summary(&r->s[0], r, 0));
	jset(o, "b", json_summary(&r->s[1], r, 1));
	jset(o, "ratio", jnum(r->s[0].median ?
			      r->s[1].median / r->s[0].median : NAN));
	jset(o, "ttest", json_ttest(&r->t));
	jset(o, "mann_whitney", json_mwu(&r->mw));
	return o;
}

static json_t *json_side(const struct side *s)
{
	json_t *o = json_object();

	if (!o)
		die("out of memory");
	jset(o, "label", json_string(s->label));
	jset(o, "file", json_string(s->file));
	jset(o, "runs", json_integer((json_int_t)s->runs));
	jset(o, "kernel", json_string(env_str(s, "kernel")));
	jset(o, "mmu", json_string(env_str(s, "mmu")));
	return o;
}

void compare_write_json(const struct compare *c)
{
	json_t *doc = json_object(), *rows = json_array(), *notes = json_array();

	if (!doc || !rows || !notes)
		die("out of memory");
	jset(doc, "scenario", json_string(c->side[0].scenario));
	jset(doc, "level", jnum(COMPARE_LEVEL));
	jset(doc, "a", json_side(&c->side[0]));
	jset(doc, "b", json_side(&c->side[1]));
	for (size_t k = 0; k < c->nm; k++)
		for (size_t i = 0; i < c->m[k].nrows; i++)
			if (c->m[k].rows[i].tested &&
			    json_array_append_new(rows, json_row(&c->m[k],
						  &c->m[k].rows[i])))
				die("out of memory");
	jset(doc, "rows", rows);
	for (size_t i = 0; i < c->nnotes; i++)
		if (json_array_append_new(notes, json_string(c->notes[i])))
			die("out of memory");
	jset(doc, "notes", notes);
	if (json_write_atomic(c->json, doc))
		die("--json %s: cannot write it: %m", c->json);
	json_decref(doc);
}
