// SPDX-License-Identifier: GPL-2.0
/* Small-sample statistics; see stats.h. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "results/statistics.h"

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

int stats_summarize(const double *v, size_t n, struct stats_summary *s)
{
	double *w, sum = 0, sq = 0;

	memset(s, 0, sizeof(*s));
	if (!n)
		return -1;
	w = malloc(n * sizeof(*w));
	if (!w)
		return -1;
	memcpy(w, v, n * sizeof(*w));
	qsort(w, n, sizeof(*w), cmp_double);
	s->n = n;
	s->min = w[0];
	s->max = w[n - 1];
	s->median = n % 2 ? w[n / 2] : (w[n / 2 - 1] + w[n / 2]) / 2;
	for (size_t i = 0; i < n; i++)
		sum += w[i];
	s->mean = sum / (double)n;
	/* Two passes: the one-pass formula cancels badly on close values. */
	for (size_t i = 0; i < n; i++)
		sq += (w[i] - s->mean) * (w[i] - s->mean);
	s->stddev = n > 1 ? sqrt(sq / (double)(n - 1)) : 0;
	free(w);
	return 0;
}

/* Rounding takes the series just past 1 for a large t. */
static double probability(double p)
{
	return fmin(fmax(p, 0), 1);
}

/*
 * For integer df the t distribution has a closed form in
 * theta = atan(t / sqrt(df)): a finite series in cos^2(theta), odd and
 * even df differing (Abramowitz & Stegun 26.7.3-4).  It needs no
 * incomplete beta function and is exact to rounding.
 */
double stats_t_central(double t, unsigned int df)
{
	double th, c2, term, sum;

	if (!df || isnan(t))
		return NAN;
	t = fabs(t);
	if (isinf(t))
		return 1;
	/* Far beyond any sample mmubench takes; t is normal there. */
	if (df > 100000)
		return erf(t / sqrt(2));
	th = atan(t / sqrt((double)df));
	c2 = cos(th) * cos(th);
	if (df % 2) {
		term = cos(th);
		sum = df > 1 ? term : 0;
		for (unsigned int k = 1; 2 * k + 1 < df; k++) {
			term *= c2 * (2.0 * k) / (2.0 * k + 1);
			sum += term;
		}
		return probability(2 / M_PI * (th + sin(th) * sum));
	}
	term = 1;
	sum = 1;
	for (unsigned int k = 0; 2 * k + 2 < df; k++) {
		term *= c2 * (2.0 * k + 1) / (2.0 * k + 2);
		sum += term;
	}
	return probability(sin(th) * sum);
}

/* Bisection: stats_t_central() is monotonic in t. */
double stats_t_crit(double level, unsigned int df)
{
	double lo = 0, hi = 1;

	if (!df || !(level > 0 && level < 1))
		return NAN;
	while (stats_t_central(hi, df) < level && hi < 1e12)
		hi *= 2;
	for (int i = 0; i < 200 && hi - lo > 1e-13 * hi; i++) {
		double mid = (lo + hi) / 2;

		if (stats_t_central(mid, df) < level)
			lo = mid;
		else
			hi = mid;
	}
	return (lo + hi) / 2;
}

void stats_ttest(const struct stats_summary *a, const struct stats_summary *b,
		 double level, struct stats_ttest *r)
{
	double var, se, half;

	memset(r, 0, sizeof(*r));
	r->diff = b->mean - a->mean;
	r->pct = a->mean != 0 ? r->diff / fabs(a->mean) * 100 : NAN;
	if (a->n < 2 || b->n < 2)
		return;
	r->valid = true;
	r->df = (unsigned int)(a->n + b->n - 2);
	var = ((double)(a->n - 1) * a->stddev * a->stddev +
	       (double)(b->n - 1) * b->stddev * b->stddev) / r->df;
	r->pooled_s = sqrt(var);
	se = r->pooled_s * sqrt(1.0 / (double)a->n + 1.0 / (double)b->n);
	r->t_crit = stats_t_crit(level, r->df);
	half = r->t_crit * se;
	r->ci_lo = r->diff - half;
	r->ci_hi = r->diff + half;
	if (se > 0)
		r->t = r->diff / se;
	else
		r->t = r->diff == 0 ? 0 : copysign(INFINITY, r->diff);
	/* The interval excludes zero: ministat's "Difference at ...". */
	r->significant = fabs(r->diff) > half;
}

struct ranked {
	double v;
	int from_a;
};

static int cmp_ranked(const void *x, const void *y)
{
	return cmp_double(&((const struct ranked *)x)->v,
			  &((const struct ranked *)y)->v);
}

/*
 * Mid-ranks, doubled so that they stay integers: a tie group at sorted
 * positions i..j (1-based) gets i + j each.  Also the tie correction
 * sum of (t^3 - t) over tie groups.
 */
static void mid_ranks(const struct ranked *r, size_t n, unsigned int *rank2,
		      double *ties)
{
	*ties = 0;
	for (size_t i = 0, j; i < n; i = j) {
		double t;

		for (j = i + 1; j < n && r[j].v == r[i].v; j++)
			;
		for (size_t k = i; k < j; k++)
			rank2[k] = (unsigned int)(i + 1 + j);
		t = (double)(j - i);
		*ties += t * t * t - t;
	}
}

/*
 * Exact: count the subsets of size na by their sum of doubled ranks
 * (ties keep their mid-ranks, so this is the permutation distribution
 * of the data as it is).  Counts are doubles: C(60, 30) ~ 1.2e17 loses
 * a few low bits, far below what a p-value shows.
 */
static int mwu_exact(const unsigned int *rank2, size_t n, size_t na,
		     unsigned int w2, struct stats_mwu *r)
{
	size_t smax = (size_t)n * (n + 1);
	double *cnt = calloc((na + 1) * (smax + 1), sizeof(*cnt));
	double total = 0, lo = 0, hi = 0;
	const double *row;

	if (!cnt)
		return -1;
	cnt[0] = 1;
	for (size_t m = 0; m < n; m++) {
		for (size_t k = m + 1 < na ? m + 1 : na; k >= 1; k--) {
			double *to = cnt + k * (smax + 1);
			const double *from = cnt + (k - 1) * (smax + 1);

			for (size_t s = smax; s >= rank2[m]; s--)
				to[s] += from[s - rank2[m]];
		}
	}
	row = cnt + na * (smax + 1);
	for (size_t s = 0; s <= smax; s++) {
		total += row[s];
		if (s <= w2)
			lo += row[s];
		if (s >= w2)
			hi += row[s];
	}
	r->p = fmin(1, 2 * fmin(lo, hi) / total);
	/* Without ties, one arrangement is the most extreme of C(n, na). */
	r->p_min = fmin(1, 2 / total);
	r->exact = true;
	free(cnt);
	return 0;
}

static double mwu_normal_p(double u, double mean, double sd)
{
	double z;

	if (!(sd > 0))
		return 1;
	z = fmax(0, fabs(u - mean) - 0.5) / sd;
	return fmin(1, erfc(z / M_SQRT2));
}

int stats_mwu(const double *a, size_t na, const double *b, size_t nb,
	      double level, struct stats_mwu *r)
{
	size_t n = na + nb;
	struct ranked *all;
	unsigned int *rank2, w2 = 0;
	double ties, mean, sd;
	int ret = 0;

	memset(r, 0, sizeof(*r));
	if (!na || !nb)
		return -1;
	all = malloc(n * sizeof(*all));
	rank2 = malloc(n * sizeof(*rank2));
	if (!all || !rank2) {
		free(all);
		free(rank2);
		return -1;
	}
	for (size_t i = 0; i < n; i++) {
		all[i].from_a = i < na;
		all[i].v = i < na ? a[i] : b[i - na];
	}
	qsort(all, n, sizeof(*all), cmp_ranked);
	mid_ranks(all, n, rank2, &ties);
	for (size_t i = 0; i < n; i++)
		if (all[i].from_a)
			w2 += rank2[i];
	r->u = w2 / 2.0 - (double)na * (double)(na + 1) / 2;
	if (n <= STATS_MWU_EXACT_MAX) {
		ret = mwu_exact(rank2, n, na, w2, r);
	} else {
		mean = (double)na * (double)nb / 2;
		sd = sqrt((double)na * (double)nb / 12 *
			  ((double)(n + 1) - ties / ((double)n * (double)(n - 1))));
		r->p = mwu_normal_p(r->u, mean, sd);
		r->p_min = mwu_normal_p(0, mean, sqrt((double)na * (double)nb *
						      (double)(n + 1) / 12));
	}
	r->significant = !ret && r->p < 1 - level;
	free(all);
	free(rank2);
	return ret;
}

static int cmp_p(const void *x, const void *y)
{
	double a = **(const double *const *)x, b = **(const double *const *)y;

	return (a > b) - (a < b);
}

int stats_bh(const double *p, size_t n, double q, bool *flag)
{
	const double **by_p = malloc(n * sizeof(*by_p));
	double cut = -1;

	if (n && !by_p)
		return -1;
	for (size_t i = 0; i < n; i++)
		by_p[i] = &p[i];
	qsort(by_p, n, sizeof(*by_p), cmp_p);
	/* Step up: the largest rank k whose p is at most k q / n. */
	for (size_t k = n; k >= 1 && cut < 0; k--)
		if (*by_p[k - 1] <= (double)k * q / (double)n)
			cut = *by_p[k - 1];
	for (size_t i = 0; i < n; i++)
		flag[i] = p[i] <= cut;
	free(by_p);
	return 0;
}
