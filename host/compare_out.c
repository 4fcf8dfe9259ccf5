// SPDX-License-Identifier: GPL-2.0
/*
 * "mmubench compare" output: per metric a table in the seed's shape
 * (one row per pattern or phase, A and B medians, B/A, the verdicts),
 * then the notes; and the same as JSON.
 */
#include <math.h>
#include <string.h>
#include "compare.h"
#include "json.h"

static const char *env_str(const struct side *s, const char *key)
{
	const struct jv *v = jv_get(jv_get(s->doc, "env"), key);

	return v && v->type == JV_STR ? v->str : "?";
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

static void json_summary(struct json *j, const char *key,
			 const struct stats_summary *s, const struct row *r,
			 int side)
{
	json_obj_begin(j, key);
	json_u64(j, "n", s->n);
	json_num(j, "min", s->min);
	json_num(j, "max", s->max);
	json_num(j, "median", s->median);
	json_num(j, "mean", s->mean);
	json_num(j, "stddev", s->stddev);
	json_arr_begin(j, "values");
	for (size_t i = 0; i < r->n[side]; i++)
		json_num(j, NULL, r->v[side][i]);
	json_arr_end(j);
	json_obj_end(j);
}

static void json_row(struct json *j, const struct metric *m,
		     const struct row *r)
{
	json_obj_begin(j, NULL);
	json_str(j, "metric", m->name);
	json_str(j, "path", m->path.text);
	json_str(j, "row", r->label);
	json_summary(j, "a", &r->s[0], r, 0);
	json_summary(j, "b", &r->s[1], r, 1);
	json_num(j, "ratio", r->s[0].median ?
		 r->s[1].median / r->s[0].median : NAN);
	json_obj_begin(j, "ttest");
	json_bool(j, "valid", r->t.valid);
	json_num(j, "diff", r->t.diff);
	json_num(j, "ci_low", r->t.valid ? r->t.ci_lo : NAN);
	json_num(j, "ci_high", r->t.valid ? r->t.ci_hi : NAN);
	json_num(j, "diff_pct", r->t.pct);
	json_num(j, "t", r->t.t);
	json_u64(j, "df", r->t.df);
	json_num(j, "t_crit", r->t.valid ? r->t.t_crit : NAN);
	json_bool(j, "significant", r->t.significant);
	json_obj_end(j);
	json_obj_begin(j, "mann_whitney");
	json_num(j, "u", r->mw.u);
	json_num(j, "p", r->mw.p);
	json_num(j, "p_min", r->mw.p_min);
	json_bool(j, "exact", r->mw.exact);
	json_bool(j, "significant", r->mw.significant);
	json_obj_end(j);
	json_obj_end(j);
}

void compare_write_json(const struct compare *c)
{
	struct json j;

	json_init(&j);
	json_obj_begin(&j, NULL);
	json_str(&j, "scenario", c->side[0].scenario);
	json_num(&j, "level", COMPARE_LEVEL);
	for (int s = 0; s < 2; s++) {
		json_obj_begin(&j, s ? "b" : "a");
		json_str(&j, "label", c->side[s].label);
		json_str(&j, "file", c->side[s].file);
		json_u64(&j, "runs", c->side[s].runs);
		json_str(&j, "kernel", env_str(&c->side[s], "kernel"));
		json_str(&j, "mmu", env_str(&c->side[s], "mmu"));
		json_obj_end(&j);
	}
	json_arr_begin(&j, "rows");
	for (size_t k = 0; k < c->nm; k++)
		for (size_t i = 0; i < c->m[k].nrows; i++)
			if (c->m[k].rows[i].tested)
				json_row(&j, &c->m[k], &c->m[k].rows[i]);
	json_arr_end(&j);
	json_arr_begin(&j, "notes");
	for (size_t i = 0; i < c->nnotes; i++)
		json_str(&j, NULL, c->notes[i]);
	json_arr_end(&j);
	json_obj_end(&j);
	if (j.failed)
		die("--json %s: out of memory building the document", c->json);
	if (write_file_atomic(c->json, j.buf, j.len))
		die("--json %s: cannot write it: %m", c->json);
	json_free(&j);
}
