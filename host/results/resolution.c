// SPDX-License-Identifier: GPL-2.0
/*
 * The resolution of "mmubench compare": the smallest true change of a
 * metric that its verdict (Student's t AND Mann-Whitney, both at 95 %)
 * would report with a given power, for the run counts at hand.
 *
 * Student's t alone has a closed form for this, (t_{a/2} + t_b) * s *
 * sqrt(1/na + 1/nb), but the verdict needs both tests, and with a
 * handful of runs Mann-Whitney's exact distribution is coarse (3 runs a
 * side can never reach 95 %; 5 a side reject only U <= 2 of 25).  So the
 * power of the pair is simulated: normal noise of standard deviation 1,
 * B shifted by d, both tests applied as compare applies them, and d
 * bisected to the wanted power.  The samples are drawn once from a fixed
 * seed and reused for every d, so the result is repeatable and the
 * power rises with d without noise of its own.
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "results/resolution.h"
#include "results/statistics.h"

#define SIMS		4000
#define SEED		0x6d6d7562656e6368ULL	/* "mmubench" */

/* splitmix64: small, and the same stream on every machine. */
static uint64_t next_u64(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static double uniform01(uint64_t *s)
{
	/* (0, 1]: log() below never sees 0. */
	return ((next_u64(s) >> 11) + 1) * 0x1.0p-53;
}

/* Box-Muller; the second value of each pair is dropped for simplicity. */
static double normal(uint64_t *s)
{
	double u = uniform01(s), v = uniform01(s);

	return sqrt(-2 * log(u)) * cos(2 * M_PI * v);
}

/*
 * Which values of U (of sample A, 0..na*nb) Mann-Whitney calls
 * significant, from U's exact distribution without ties: c[j][u] counts
 * the orders of i values of A and j of B with U = u, built up one value
 * of A at a time (a value of A above j values of B adds j to U).  The
 * p-value is two-sided, as stats_mwu() computes it.
 */
static bool *mw_exact_table(size_t na, size_t nb, double level)
{
	size_t umax = na * nb, w = umax + 1;
	double *c = calloc((nb + 1) * w, sizeof(*c)), total = 0, lo = 0;
	double *cum = calloc(w, sizeof(*cum));
	bool *sig = calloc(w, sizeof(*sig));

	if (!c || !cum || !sig)
		goto fail;
	for (size_t j = 0; j <= nb; j++)
		c[j * w] = 1;	/* no value of A yet: U = 0 */
	for (size_t i = 1; i <= na; i++) {
		/* In place: row j reads row j - 1 of this i, row j of i - 1. */
		for (size_t j = 0; j <= nb; j++) {
			for (size_t u = umax + 1; u-- > 0;) {
				double prev_i = u >= j ? c[j * w + u - j] : 0;
				double prev_j = j ? c[(j - 1) * w + u] : 0;

				c[j * w + u] = prev_i + prev_j;
			}
		}
	}
	for (size_t u = 0; u <= umax; u++)
		total += c[nb * w + u];
	for (size_t u = 0; u <= umax; u++) {
		lo += c[nb * w + u];
		cum[u] = lo;
	}
	for (size_t u = 0; u <= umax; u++) {
		double p_lo = cum[u] / total;
		double p_hi = (total - (u ? cum[u - 1] : 0)) / total;

		sig[u] = fmin(1, 2 * fmin(p_lo, p_hi)) < 1 - level;
	}
	free(c);
	free(cum);
	return sig;
fail:
	free(c);
	free(cum);
	free(sig);
	return NULL;
}

struct sim {
	size_t na, nb;
	double level;
	double t_crit;
	bool *mw_sig;		/* exact table, or NULL: normal approximation */
	double *a, *b;		/* SIMS samples of each side, N(0, 1) */
};

/* U of A: pairs with A's value above B's (no ties in continuous data). */
static size_t u_of(const double *a, size_t na, const double *b, size_t nb,
		   double d)
{
	size_t u = 0;

	for (size_t i = 0; i < na; i++)
		for (size_t j = 0; j < nb; j++)
			u += a[i] > b[j] + d;
	return u;
}

static bool mw_significant(const struct sim *m, size_t u)
{
	double mean = m->na * (double)m->nb / 2, sd, z;

	if (m->mw_sig)
		return m->mw_sig[u];
	sd = sqrt(m->na * (double)m->nb * (double)(m->na + m->nb + 1) / 12);
	z = fmax(0, fabs((double)u - mean) - 0.5) / sd;
	return erfc(z / M_SQRT2) < 1 - m->level;
}

static bool t_significant(const struct sim *m, const double *a,
			  const double *b, double d)
{
	double ma = 0, mb = 0, sa = 0, sb = 0, s, se;
	size_t df = m->na + m->nb - 2;

	for (size_t i = 0; i < m->na; i++)
		ma += a[i];
	for (size_t j = 0; j < m->nb; j++)
		mb += b[j] + d;
	ma /= (double)m->na;
	mb /= (double)m->nb;
	for (size_t i = 0; i < m->na; i++)
		sa += (a[i] - ma) * (a[i] - ma);
	for (size_t j = 0; j < m->nb; j++)
		sb += (b[j] + d - mb) * (b[j] + d - mb);
	s = sqrt((sa + sb) / (double)df);
	se = s * sqrt(1.0 / (double)m->na + 1.0 / (double)m->nb);
	return fabs(mb - ma) > m->t_crit * se;
}

/* Share of the simulated experiments that both tests flag at shift d. */
static double power_at(const struct sim *m, double d)
{
	size_t hits = 0;

	for (size_t k = 0; k < SIMS; k++) {
		const double *a = m->a + k * m->na, *b = m->b + k * m->nb;

		hits += t_significant(m, a, b, d) &&
			mw_significant(m, u_of(a, m->na, b, m->nb, d));
	}
	return (double)hits / SIMS;
}

static int sim_init(struct sim *m, size_t na, size_t nb, double level)
{
	uint64_t seed = SEED;

	memset(m, 0, sizeof(*m));
	m->na = na;
	m->nb = nb;
	m->level = level;
	m->t_crit = stats_t_crit(level, (unsigned int)(na + nb - 2));
	if (na + nb <= STATS_MWU_EXACT_MAX) {
		m->mw_sig = mw_exact_table(na, nb, level);
		if (!m->mw_sig)
			return -1;
	}
	m->a = malloc(SIMS * na * sizeof(*m->a));
	m->b = malloc(SIMS * nb * sizeof(*m->b));
	if (!m->a || !m->b)
		return -1;
	for (size_t k = 0; k < SIMS * na; k++)
		m->a[k] = normal(&seed);
	for (size_t k = 0; k < SIMS * nb; k++)
		m->b[k] = normal(&seed);
	return 0;
}

static void sim_free(struct sim *m)
{
	free(m->mw_sig);
	free(m->a);
	free(m->b);
}

/*
 * Many runs: Student's t in closed form, widened by Mann-Whitney's
 * asymptotic efficiency against it on normal data, 3 / pi.
 */
static double closed_form(size_t na, size_t nb, double level, double power)
{
	unsigned int df = (unsigned int)(na + nb - 2);
	double k = stats_t_crit(level, df) + stats_t_crit(2 * power - 1, df);

	return k * sqrt(1.0 / (double)na + 1.0 / (double)nb) / sqrt(3 / M_PI);
}

/* The most extreme order of the runs: can Mann-Whitney reach level? */
static bool mw_can_reach(size_t na, size_t nb, double level)
{
	struct stats_mwu r;
	double a[RESOLUTION_MAX_RUNS], b[RESOLUTION_MAX_RUNS];

	for (size_t i = 0; i < na; i++)
		a[i] = (double)i;
	for (size_t j = 0; j < nb; j++)
		b[j] = (double)(na + j);
	return !stats_mwu(a, na, b, nb, level, &r) && r.significant;
}

double resolution_sd(size_t na, size_t nb, double level, double power)
{
	static struct { size_t na, nb; double level, power, k; } cache[16];
	static size_t cached;
	double lo = 0, hi = 1, k;
	struct sim m;

	if (na < 2 || nb < 2 || !(power > 0 && power < 1))
		return NAN;
	if (na > RESOLUTION_MAX_RUNS || nb > RESOLUTION_MAX_RUNS)
		return closed_form(na, nb, level, power);
	for (size_t i = 0; i < cached; i++)
		if (cache[i].na == na && cache[i].nb == nb &&
		    cache[i].level == level && cache[i].power == power)
			return cache[i].k;
	if (!mw_can_reach(na, nb, level))
		return INFINITY;
	if (sim_init(&m, na, nb, level)) {
		sim_free(&m);
		return NAN;
	}
	while (power_at(&m, hi) < power && hi < 1e3)
		hi *= 2;
	/* 0.2 % of the shift is finer than the simulation's own error. */
	while (hi - lo > 0.002 * hi) {
		double mid = (lo + hi) / 2;

		if (power_at(&m, mid) < power)
			lo = mid;
		else
			hi = mid;
	}
	sim_free(&m);
	k = hi;
	if (cached < sizeof(cache) / sizeof(cache[0]))
		cache[cached++] = (typeof(cache[0])){ na, nb, level, power, k };
	return k;
}

double resolution_of(const struct stats_summary *a,
		     const struct stats_summary *b, double level, double power)
{
	double k = resolution_sd(a->n, b->n, level, power), var;

	if (isnan(k))
		return NAN;
	var = ((double)(a->n - 1) * a->stddev * a->stddev +
	       (double)(b->n - 1) * b->stddev * b->stddev) /
	      (double)(a->n + b->n - 2);
	/* No spread (a counter): any change is seen, if MW can see one. */
	if (var == 0)
		return isinf(k) ? INFINITY : 0;
	return k * sqrt(var);
}
