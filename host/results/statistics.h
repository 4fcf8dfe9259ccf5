/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Statistics on small samples (a handful of runs per kernel), in the
 * spirit of ministat: a summary of each sample, Student's two-sample
 * t-test with pooled variance, and the Mann-Whitney U test, which does
 * not assume normal data (latency percentiles rarely are).
 *
 * Free of the harness's headers, so the unit test links it alone.
 */
#ifndef HOST_RESULTS_STATISTICS_H
#define HOST_RESULTS_STATISTICS_H

#include <stdbool.h>
#include <stddef.h>

struct stats_summary {
	size_t n;
	double min, max, median, mean;
	double stddev;		/* sample (n - 1); 0 when n < 2 */
};

struct stats_ttest {
	bool valid;		/* false if n < 2 on either side */
	double diff;		/* mean(B) - mean(A) */
	double ci_lo, ci_hi;	/* confidence interval of diff */
	double pct;		/* diff as % of mean(A); NaN if mean(A) == 0 */
	double pooled_s;
	double t;		/* diff / standard error; +-inf if s == 0 */
	unsigned int df;
	double t_crit;		/* two-sided critical value at the level */
	bool significant;	/* |diff| > t_crit * standard error */
};

struct stats_mwu {
	double u;		/* U of sample A */
	double p;		/* two-sided */
	bool exact;		/* p from the exact distribution */
	bool significant;	/* p < 1 - level */
	double p_min;		/* smallest p these sample sizes give (no ties) */
};

/* Summary of @v (not modified); -1 if n == 0 or out of memory. */
int stats_summarize(const double *v, size_t n, struct stats_summary *s);

/*
 * P(|T| <= t) for Student's t with @df degrees of freedom (df >= 1);
 * exact closed form for integer df.
 */
double stats_t_central(double t, unsigned int df);

/* The t with P(|T| <= t) = @level (0 < level < 1): two-sided critical. */
double stats_t_crit(double level, unsigned int df);

/* Student's t-test, pooled variance, two-sided at @level (e.g. 0.95). */
void stats_ttest(const struct stats_summary *a, const struct stats_summary *b,
		 double level, struct stats_ttest *r);

/*
 * Mann-Whitney U, two-sided at @level.  Exact (ties included, through
 * the distribution of mid-rank sums) when na + nb <= STATS_MWU_EXACT_MAX,
 * normal approximation with tie and continuity corrections above.
 * Returns -1 if a sample is empty or memory runs out.
 */
#define STATS_MWU_EXACT_MAX	60
int stats_mwu(const double *a, size_t na, const double *b, size_t nb,
	      double level, struct stats_mwu *r);

/*
 * Benjamini-Hochberg over @n p-values: @flag[i] is set for those that
 * stay discoveries with the false discovery rate held at @q (e.g. 0.05):
 * every p at most the largest p_(k) <= k q / n.  -1 if out of memory.
 */
int stats_bh(const double *p, size_t n, double q, bool *flag);

#endif
