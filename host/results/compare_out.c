// SPDX-License-Identifier: GPL-2.0
/*
 * "mmubench compare" output: per metric a table in the seed's shape
 * (one row per pattern or phase, each side's median, B/A (C/A, ...) and
 * the verdicts), then the notes; and the same as JSON.
 */
#include <math.h>
#include <string.h>
#include "util/util.h"
#include "results/compare.h"
#include "results/json.h"
#include "results/resolution.h"

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

static void ratio_text(const struct row *r, int s, char *buf, size_t len)
{
	if (r->s[0].median)
		snprintf(buf, len, "%.3f", r->s[s].median / r->s[0].median);
	else
		snprintf(buf, len, "-");
}

/* The MDE in per cent of A's mean; NaN where A's mean is 0. */
static double mde_pct(const struct row *r, int s)
{
	return r->s[0].mean ? r->mde[s] / fabs(r->s[0].mean) * 100 : NAN;
}

/* "+/-4.3%"; "n/a" where Mann-Whitney cannot reach 95 % at all. */
static void res_text(const struct row *r, int s, char *buf, size_t len)
{
	double p = mde_pct(r, s);

	if (isinf(r->mde[s]))
		snprintf(buf, len, "n/a");
	else if (isnan(p))
		snprintf(buf, len, "-");
	else
		snprintf(buf, len, "+/-%.*f%%", p < 10 ? 1 : 0, p);
}

/* Two sides: the difference of means and its interval, as ministat. */
static void print_row(const struct row *r, int w)
{
	char a[32], b[32], ratio[32], ci[96], res[32];
	const struct stats_ttest *t = &r->t[1];

	if (!r->tested[1]) {
		printf("  %-*s %3zu %3zu %11s %11s   only in %s\n", w, r->label,
		       r->n[0], r->n[1], r->n[0] ? num(r->s[0].median, a, 32) :
		       "-", r->n[1] ? num(r->s[1].median, b, 32) : "-",
		       r->n[0] ? "A" : "B");
		return;
	}
	ratio_text(r, 1, ratio, sizeof(ratio));
	diff_text(t, ci, sizeof(ci));
	res_text(r, 1, res, sizeof(res));
	printf("  %-*s %3zu %3zu %11s %11s %7s  %-34s %-4s %6.3f %-3s %8s\n", w,
	       r->label, r->n[0], r->n[1], num(r->s[0].median, a, sizeof(a)),
	       num(r->s[1].median, b, sizeof(b)), ratio, ci,
	       t->valid ? (t->significant ? "yes" : "no") : "n/a", r->mw[1].p,
	       r->mw[1].significant ? "yes" : "no", res);
}

/*
 * More sides: each side's runs and median, then per side against the
 * reference its ratio and the two verdicts (t, Mann-Whitney); the
 * intervals and p values are in the JSON.
 */
static void print_row_n(const struct compare *c, const struct row *r, int w)
{
	char med[32], ratio[32], res[32];

	printf("  %-*s", w, r->label);
	for (int s = 0; s < c->nsides; s++)
		printf(" %3zu", r->n[s]);
	for (int s = 0; s < c->nsides; s++)
		printf(" %11s", r->n[s] ? num(r->s[s].median, med, 32) : "-");
	for (int s = 1; s < c->nsides; s++) {
		const struct stats_ttest *t = &r->t[s];

		if (!r->tested[s]) {
			printf("  %7s %-3s %-3s %8s", "-", "-", "-", "-");
			continue;
		}
		ratio_text(r, s, ratio, sizeof(ratio));
		res_text(r, s, res, sizeof(res));
		printf("  %7s %-3s %-3s %8s", ratio,
		       t->valid ? (t->significant ? "yes" : "no") : "n/a",
		       r->mw[s].significant ? "yes" : "no", res);
	}
	printf("\n");
}

static void print_header_n(const struct compare *c, int w)
{
	char h[16];

	printf("\n  %-*s", w, "row");
	for (int s = 0; s < c->nsides; s++) {
		snprintf(h, sizeof(h), "n%c", side_letter(s));
		printf(" %3s", h);
	}
	for (int s = 0; s < c->nsides; s++) {
		snprintf(h, sizeof(h), "%c median", side_letter(s));
		printf(" %11s", h);
	}
	for (int s = 1; s < c->nsides; s++) {
		snprintf(h, sizeof(h), "%c/A", side_letter(s));
		printf("  %7s %-3s %-3s %8s", h, "t", "MW", "res");
	}
	printf("\n");
}

/* "| Run | A | B |": each run's value in the order the runs were made. */
static void print_runs(const struct compare *c, const struct row *r)
{
	int w[COMPARE_MAX_SIDES];
	size_t n = 0;
	char v[32];

	printf("  %s, every run:\n  | %-4s |", r->label, "Run");
	for (int s = 0; s < c->nsides; s++) {
		n = mmub_max(n, r->n[s]);
		w[s] = (int)mmub_max((size_t)10, strlen(c->side[s].label));
		printf(" %*s |", w[s], c->side[s].label);
	}
	printf("\n");
	for (size_t i = 0; i < n; i++) {
		printf("  | %-4zu |", i + 1);
		for (int s = 0; s < c->nsides; s++)
			printf(" %*s |", w[s], i < r->n[s] ?
			       num(r->v[s][i], v, sizeof(v)) : "-");
		printf("\n");
	}
}

static void print_metric(const struct compare *c, const struct metric *m)
{
	int w = 8;

	for (size_t i = 0; i < m->nrows; i++)
		w = (int)mmub_max((size_t)w, strlen(m->rows[i].label));
	printf("\n%s", m->name);
	if (strcmp(m->name, m->path.text))
		printf("  (%s)", m->path.text);
	if (c->nsides > 2) {
		print_header_n(c, w);
		for (size_t i = 0; i < m->nrows; i++)
			print_row_n(c, &m->rows[i], w);
	} else {
		printf("\n  %-*s %3s %3s %11s %11s %7s  %-34s %-4s %6s %-3s %8s\n",
		       w, "row", "nA", "nB", "A median", "B median", "B/A",
		       "B-A mean +/- 95% CI (% of A)", "t", "MW p", "MW",
		       "res");
		for (size_t i = 0; i < m->nrows; i++)
			print_row(&m->rows[i], w);
	}
	for (size_t i = 0; c->runs && i < m->nrows; i++)
		print_runs(c, &m->rows[i]);
}

/* --nested-guest: the MMU of the workload, in its L2, then the guest's. */
static const char *side_mmu(const struct side *s, char *buf, size_t len)
{
	json_t *env = json_object_get(s->doc, "env");

	if (!json_object_get(env, "nested_guest"))
		return env_str(s, "mmu");
	snprintf(buf, len, "shadow_nested (the L2; the guest's: %s)",
		 env_str(s, "mmu"));
	return buf;
}

static void print_side(const struct side *s, int i)
{
	const char ab[2] = { side_letter(i), 0 };
	bool named = strcmp(s->label, ab);
	const char *clock = env_str(s, "clock");
	/* The host's clock goes without saying; instructions do not. */
	bool say = strcmp(clock, "?") && strcmp(clock, "host");
	/* KVM as a module of Debian's image names its series itself. */
	const char *kvm = env_str(s, "kvm_module");
	bool mod = strcmp(kvm, "?");
	char mmu[96];

	printf("  %s%s%s: %s, %zu run%s, kernel %s%s%s, MMU %s%s%s\n", ab,
	       named ? " = " : "", named ? s->label : "", s->file, s->runs,
	       s->runs > 1 ? "s" : "", env_str(s, "kernel"),
	       mod ? " + kvm " : "", mod ? kvm : "",
	       side_mmu(s, mmu, sizeof(mmu)),
	       say ? ", clock " : "", say ? clock : "");
}

/* "N of M rows differ": side @s against the reference. */
static void print_verdict(const struct compare *c, int s)
{
	size_t sig = 0, rows = 0;

	for (size_t k = 0; k < c->nm; k++) {
		for (size_t i = 0; i < c->m[k].nrows; i++) {
			const struct row *r = &c->m[k].rows[i];

			rows += r->tested[s];
			sig += r->tested[s] && r->t[s].significant &&
			       r->mw[s].significant;
		}
	}
	if (c->nsides > 2)
		printf("%c against A: ", side_letter(s));
	printf("%zu of %zu rows differ at 95 %% by both tests\n", sig, rows);
}

static const char *const verdict_word[] = {
	[COUNTER_UNTESTED] = "-",
	[COUNTER_CHANGED] = "changed",
	[COUNTER_EXACT] = "changed, exactly",
	[COUNTER_IDENTICAL] = "identical",
	[COUNTER_NO_CHANGE] = "no change found",
};

/* A counter of side @s's list: a change, or any with --all-counters. */
static bool counter_listed(const struct compare *c, const struct row *r,
			   int s)
{
	return r->tested[s] && (c->all_counters ||
				r->verdict[s] == COUNTER_CHANGED ||
				r->verdict[s] == COUNTER_EXACT);
}

static void print_counter(const struct compare *c, const struct metric *m,
			  const struct row *r, int s, int w, int wr)
{
	char a[32], b[32], ratio[32], p[32], res[32];

	ratio_text(r, s, ratio, sizeof(ratio));
	res_text(r, s, res, sizeof(res));
	if (r->verdict[s] == COUNTER_EXACT || r->verdict[s] == COUNTER_IDENTICAL)
		snprintf(p, sizeof(p), "exact");
	else
		snprintf(p, sizeof(p), "%.2g", r->p[s]);
	printf("  %-*s %-*s %3zu %3zu %11s %11s %7s %8s %8s", w, m->name, wr,
	       r->label, r->n[0], r->n[s], num(r->s[0].median, a, sizeof(a)),
	       num(r->s[s].median, b, sizeof(b)), ratio, p, res);
	if (c->all_counters)
		printf("  %s", verdict_word[r->verdict[s]]);
	printf("\n");
}

/*
 * "also changed": side @s's counters that changed (every one with
 * --all-counters), then one line counting them all.
 */
static void print_counters(const struct compare *c, int s)
{
	const struct counter_side *cs = &c->cs[s];
	char h[3][16];
	size_t listed = 0;
	int w = 7, wr = 3;

	if (!cs->compared)
		return;
	for (size_t k = 0; k < c->ncm; k++) {
		for (size_t i = 0; i < c->cm[k].nrows; i++) {
			if (!counter_listed(c, &c->cm[k].rows[i], s))
				continue;
			w = (int)mmub_max((size_t)w, strlen(c->cm[k].name));
			wr = (int)mmub_max((size_t)wr,
					   strlen(c->cm[k].rows[i].label));
			listed++;
		}
	}
	if (listed) {
		printf("\nalso changed, %c against A: the runs' other numbers; "
		       "t after Benjamini-Hochberg (false discovery rate "
		       "%.0f %%), Mann-Whitney at 95 %%\n", side_letter(s),
		       COUNTERS_FDR * 100);
		snprintf(h[0], sizeof(h[0]), "n%c", side_letter(s));
		snprintf(h[1], sizeof(h[1]), "%c median", side_letter(s));
		snprintf(h[2], sizeof(h[2]), "%c/A", side_letter(s));
		printf("  %-*s %-*s %3s %3s %11s %11s %7s %8s %8s%s\n", w,
		       "counter", wr, "row", "nA", h[0], "A median", h[1],
		       h[2], "t p", "res", c->all_counters ? "  verdict" : "");
		for (size_t k = 0; k < c->ncm; k++)
			for (size_t i = 0; i < c->cm[k].nrows; i++)
				if (counter_listed(c, &c->cm[k].rows[i], s))
					print_counter(c, &c->cm[k],
						      &c->cm[k].rows[i], s, w,
						      wr);
	}
	printf("%s%c against A: %zu counters compared: %zu changed (%zu "
	       "exactly), %zu identical in every run, %zu no change found; "
	       "uncorrected, about %.1f of the %zu that vary would be "
	       "flagged by chance at 95 %%\n", listed ? "" : "\n",
	       side_letter(s), cs->compared, cs->changed + cs->exact,
	       cs->exact, cs->identical, cs->varying - cs->changed,
	       (double)cs->varying * (1 - COMPARE_LEVEL), cs->varying);
}

void compare_print(const struct compare *c)
{
	printf("mmubench compare: %s, every run one sample; significance at "
	       "95 %% (two-sided)\n", c->side[0].scenario);
	for (int s = 0; s < c->nsides; s++)
		print_side(&c->side[s], s);
	for (size_t k = 0; k < c->nm; k++) {
		if (!c->m[k].nrows)
			continue;
		print_metric(c, &c->m[k]);
	}
	for (int s = 1; s < c->nsides; s++)
		print_counters(c, s);
	printf("\n");
	for (int s = 1; s < c->nsides; s++)
		print_verdict(c, s);
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

/* What compare could see: the MDE, in the unit and in % of A's mean. */
static json_t *json_resolution(const struct row *r, int s)
{
	json_t *o = json_object();

	if (!o)
		die("out of memory");
	jset(o, "power", jnum(RESOLUTION_POWER));
	jset(o, "mde", jnum(r->mde[s]));
	jset(o, "mde_pct", jnum(mde_pct(r, s)));
	/* Mann-Whitney cannot reach the level with these runs at all. */
	jset(o, "reachable", json_boolean(!isinf(r->mde[s])));
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

static double ratio_of(const struct row *r, int s)
{
	return r->tested[s] && r->s[0].median ?
	       r->s[s].median / r->s[0].median : NAN;
}

/* "vs": side @s against the reference; null tests if none was made. */
static json_t *json_vs(const struct compare *c, const struct row *r, int s)
{
	json_t *o = json_object();

	if (!o)
		die("out of memory");
	jset(o, "side", json_integer(s));
	jset(o, "label", json_string(c->side[s].label));
	jset(o, "ratio", jnum(ratio_of(r, s)));
	jset(o, "ttest", r->tested[s] ? json_ttest(&r->t[s]) : json_null());
	jset(o, "mann_whitney", r->tested[s] ? json_mwu(&r->mw[s]) :
						 json_null());
	jset(o, "resolution", r->tested[s] ? json_resolution(r, s) : json_null());
	return o;
}

static json_t *json_row(const struct compare *c, const struct metric *m,
			const struct row *r)
{
	json_t *o = json_object(), *sides = json_array(), *vs = json_array();

	if (!o || !sides || !vs)
		die("out of memory");
	jset(o, "metric", json_string(m->name));
	jset(o, "path", json_string(m->path.text));
	jset(o, "row", json_string(r->label));
	/* The first pair, as with two documents, for two-side readers. */
	jset(o, "a", json_summary(&r->s[0], r, 0));
	jset(o, "b", json_summary(&r->s[1], r, 1));
	jset(o, "ratio", jnum(r->s[0].median ?
			      r->s[1].median / r->s[0].median : NAN));
	jset(o, "ttest", json_ttest(&r->t[1]));
	jset(o, "mann_whitney", json_mwu(&r->mw[1]));
	jset(o, "resolution", r->tested[1] ? json_resolution(r, 1) : json_null());
	for (int s = 0; s < c->nsides; s++)
		if (json_array_append_new(sides, json_summary(&r->s[s], r, s)))
			die("out of memory");
	jset(o, "sides", sides);
	for (int s = 1; s < c->nsides; s++)
		if (json_array_append_new(vs, json_vs(c, r, s)))
			die("out of memory");
	jset(o, "vs", vs);
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
	jset(o, "kvm_module", json_deep_copy(json_object_get(
						json_object_get(s->doc, "env"), "kvm_module")) ?: json_null());
	jset(o, "mmu", json_string(env_str(s, "mmu")));
	return o;
}

static json_t *json_counter(const struct metric *m, const struct row *r,
			    int s)
{
	json_t *o = json_object();

	if (!o)
		die("out of memory");
	jset(o, "counter", json_string(m->name));
	jset(o, "path", json_string(m->path.text));
	jset(o, "row", json_string(r->label));
	jset(o, "verdict", json_string(verdict_word[r->verdict[s]]));
	jset(o, "a_median", jnum(r->s[0].median));
	jset(o, "median", jnum(r->s[s].median));
	jset(o, "ratio", jnum(ratio_of(r, s)));
	jset(o, "p_t", jnum(r->p[s]));
	jset(o, "mann_whitney_p", jnum(r->mw[s].p));
	jset(o, "resolution", json_resolution(r, s));
	return o;
}

/* Each side's counters: the counts, and the rows it lists. */
static json_t *json_counters(const struct compare *c)
{
	json_t *o = json_object(), *sides = json_array();

	if (!o || !sides)
		die("out of memory");
	jset(o, "correction", json_string("benjamini-hochberg"));
	jset(o, "fdr", jnum(COUNTERS_FDR));
	jset(o, "all", json_boolean(c->all_counters));
	for (int s = 1; s < c->nsides; s++) {
		const struct counter_side *cs = &c->cs[s];
		json_t *side = json_object(), *rows = json_array();

		if (!side || !rows)
			die("out of memory");
		jset(side, "side", json_integer(s));
		jset(side, "label", json_string(c->side[s].label));
		jset(side, "compared", json_integer((json_int_t)cs->compared));
		jset(side, "changed", json_integer((json_int_t)cs->changed));
		jset(side, "exact", json_integer((json_int_t)cs->exact));
		jset(side, "identical", json_integer((json_int_t)cs->identical));
		jset(side, "varying", json_integer((json_int_t)cs->varying));
		for (size_t k = 0; k < c->ncm; k++)
			for (size_t i = 0; i < c->cm[k].nrows; i++)
				if (counter_listed(c, &c->cm[k].rows[i], s) &&
				    json_array_append_new(rows, json_counter(
						&c->cm[k], &c->cm[k].rows[i], s)))
					die("out of memory");
		jset(side, "rows", rows);
		if (json_array_append_new(sides, side))
			die("out of memory");
	}
	jset(o, "sides", sides);
	return o;
}

void compare_write_json(const struct compare *c)
{
	json_t *doc = json_object(), *rows = json_array(), *notes = json_array();
	json_t *sides = json_array();

	if (!doc || !rows || !notes || !sides)
		die("out of memory");
	jset(doc, "scenario", json_string(c->side[0].scenario));
	jset(doc, "level", jnum(COMPARE_LEVEL));
	jset(doc, "a", json_side(&c->side[0]));
	jset(doc, "b", json_side(&c->side[1]));
	for (int s = 0; s < c->nsides; s++)
		if (json_array_append_new(sides, json_side(&c->side[s])))
			die("out of memory");
	jset(doc, "sides", sides);
	/* A row any side shares with the reference. */
	for (size_t k = 0; k < c->nm; k++)
		for (size_t i = 0; i < c->m[k].nrows; i++)
			if (c->m[k].rows[i].any &&
			    json_array_append_new(rows, json_row(c, &c->m[k],
						  &c->m[k].rows[i])))
				die("out of memory");
	jset(doc, "rows", rows);
	jset(doc, "counters", json_counters(c));
	for (size_t i = 0; i < c->nnotes; i++)
		if (json_array_append_new(notes, json_string(c->notes[i])))
			die("out of memory");
	jset(doc, "notes", notes);
	if (json_write_atomic(c->json, doc))
		die("--json %s: cannot write it: %m", c->json);
	json_decref(doc);
}
