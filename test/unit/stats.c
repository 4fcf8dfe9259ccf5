// SPDX-License-Identifier: GPL-2.0
/*
 * host/results/statistics.c against textbook values: Student's t table, the sleep
 * data of Student (1908) as every statistics package prints it, and
 * Mann-Whitney p-values counted by hand (or enumerated).
 */
#include <math.h>
#include <stdio.h>
#include "results/resolution.h"
#include "results/statistics.h"
#include "check.h"


#define NEAR(x, want, tol) CHECK(fabs((x) - (want)) <= (tol))
#define N(a) (sizeof(a) / sizeof((a)[0]))

/* Two-sided critical values, as printed in any t table. */
static void test_t_table(void)
{
	static const struct { unsigned int df; double level, t; } tab[] = {
		{ 1, 0.95, 12.7062047 }, { 2, 0.95, 4.3026527 },
		{ 3, 0.95, 3.1824463 }, { 4, 0.95, 2.7764451 },
		{ 5, 0.95, 2.5705818 }, { 8, 0.95, 2.3060041 },
		{ 10, 0.95, 2.2281389 }, { 18, 0.95, 2.1009220 },
		{ 30, 0.95, 2.0422725 }, { 120, 0.95, 1.9799304 },
		{ 10, 0.99, 3.1692727 }, { 1, 0.90, 6.3137515 },
		{ 4, 0.90, 2.1318468 },
	};

	for (size_t i = 0; i < N(tab); i++)
		NEAR(stats_t_crit(tab[i].level, tab[i].df), tab[i].t, 2e-6);
	/* df 1 is Cauchy: P(|T| <= 1) = 1/2; df 2: t / sqrt(2 + t^2). */
	NEAR(stats_t_central(1, 1), 0.5, 1e-12);
	NEAR(stats_t_central(2, 2), 2 / sqrt(6), 1e-12);
	NEAR(stats_t_central(0, 7), 0, 1e-12);
	NEAR(stats_t_central(1e300, 7), 1, 1e-12);
	/*
	 * A probability, whatever the rounding: 1 - P is a p-value, and a
	 * central P past 1 made compare print a negative one.
	 */
	for (unsigned int df = 1; df <= 40; df++)
		for (double t = 1e-3; t < 1e9; t *= 1.7) {
			double p = stats_t_central(t, df);

			CHECK(p >= 0 && p <= 1);
		}
	/* Huge df tends to the normal: 1.959964 at 95 %. */
	NEAR(stats_t_crit(0.95, 1000000), 1.959964, 1e-5);
	CHECK(isnan(stats_t_crit(0.95, 0)));
	CHECK(isnan(stats_t_crit(1.5, 3)));
}

static void test_summary(void)
{
	static const double v[] = { 9, 2, 5, 4, 12, 7, 8, 11, 9, 3 };
	static const double one[] = { 42 };
	struct stats_summary s;

	CHECK(!stats_summarize(v, N(v), &s));
	CHECK(s.n == 10 && s.min == 2 && s.max == 12);
	NEAR(s.median, 7.5, 1e-12);
	NEAR(s.mean, 7, 1e-12);
	NEAR(s.stddev, sqrt(104.0 / 9), 1e-12);
	CHECK(!stats_summarize(one, 1, &s));
	CHECK(s.median == 42 && s.stddev == 0);
	CHECK(stats_summarize(v, 0, &s) == -1);
}

/* Student's sleep data; pooled t-test: t = 1.8608, df = 18, not significant. */
static void test_ttest_sleep(void)
{
	static const double g1[] = { 0.7, -1.6, -0.2, -1.2, -0.1, 3.4, 3.7,
				     0.8, 0.0, 2.0 };
	static const double g2[] = { 1.9, 0.8, 1.1, 0.1, -0.1, 4.4, 5.5, 1.6,
				     4.6, 3.4 };
	struct stats_summary a, b;
	struct stats_ttest t;

	stats_summarize(g1, N(g1), &a);
	stats_summarize(g2, N(g2), &b);
	stats_ttest(&a, &b, 0.95, &t);
	CHECK(t.valid && t.df == 18 && !t.significant);
	NEAR(t.diff, 1.58, 1e-12);
	NEAR(t.t, 1.8608135, 1e-6);
	NEAR(t.pooled_s, 1.8986252, 1e-6);
	NEAR(t.ci_lo, -0.2038740, 1e-6);
	NEAR(t.ci_hi, 3.3638740, 1e-6);
	NEAR(t.pct, 1.58 / 0.75 * 100, 1e-9);
}

static void test_ttest_edges(void)
{
	static const double lo[] = { 1, 2, 3, 4, 5 }, hi[] = { 6, 7, 8, 9, 10 };
	static const double c1[] = { 3, 3, 3 }, c2[] = { 4, 4, 4 };
	struct stats_summary a, b;
	struct stats_ttest t;

	/* s = 1.5811, SE = 1: the interval is 5 +- t(0.975, 8). */
	stats_summarize(lo, 5, &a);
	stats_summarize(hi, 5, &b);
	stats_ttest(&a, &b, 0.95, &t);
	CHECK(t.significant);
	NEAR(t.t, 5, 1e-12);
	NEAR(t.ci_lo, 5 - 2.3060041, 1e-6);
	/* Identical samples: no difference. */
	stats_ttest(&a, &a, 0.95, &t);
	CHECK(t.valid && !t.significant && t.diff == 0 && t.t == 0);
	/* No spread at all (counters): any difference is the difference. */
	stats_summarize(c1, 3, &a);
	stats_summarize(c2, 3, &b);
	stats_ttest(&a, &b, 0.95, &t);
	CHECK(t.significant && isinf(t.t) && t.t > 0);
	stats_ttest(&a, &a, 0.95, &t);
	CHECK(!t.significant && t.t == 0);
	/* One run a side: no variance, no test. */
	stats_summarize(c1, 1, &a);
	stats_ttest(&a, &b, 0.95, &t);
	CHECK(!t.valid && !t.significant && t.diff == 1);
}

static void test_mwu(void)
{
	/* The example in R's wilcox.test help: W = 35, two-sided p 0.2544. */
	static const double x[] = { 0.80, 0.83, 1.89, 1.04, 1.45, 1.38, 1.91,
				    1.64, 0.73, 1.46 };
	static const double y[] = { 1.15, 0.88, 0.90, 0.74, 1.21 };
	static const double s3a[] = { 1, 2, 3 }, s3b[] = { 4, 5, 6 };
	static const double s4a[] = { 4, 1, 3, 2 }, s4b[] = { 8, 5, 7, 6 };
	static const double ta[] = { 1, 1, 2, 2 }, tb[] = { 2, 3, 3, 3 };
	static const double same[] = { 5, 5, 5 };
	double big_a[40], big_b[40];
	struct stats_mwu r;

	CHECK(!stats_mwu(x, N(x), y, N(y), 0.95, &r));
	CHECK(r.exact && r.u == 35 && !r.significant);
	NEAR(r.p, 0.2544123, 1e-6);
	/* Fully separated: 2 / C(6,3), 2 / C(8,4). */
	CHECK(!stats_mwu(s3a, 3, s3b, 3, 0.95, &r));
	CHECK(r.u == 0 && !r.significant);
	NEAR(r.p, 0.1, 1e-12);
	NEAR(r.p_min, 0.1, 1e-12);
	CHECK(!stats_mwu(s4b, 4, s4a, 4, 0.95, &r));
	CHECK(r.u == 16 && r.significant);
	NEAR(r.p, 2.0 / 70, 1e-12);
	/* Ties: the exact permutation distribution of the mid-ranks. */
	CHECK(!stats_mwu(ta, 4, tb, 4, 0.95, &r));
	CHECK(r.exact && r.u == 1 && !r.significant);
	NEAR(r.p, 0.0857143, 1e-6);
	NEAR(r.p_min, 2.0 / 70, 1e-12);
	/* Everything tied: nothing to tell apart. */
	CHECK(!stats_mwu(same, 3, same, 3, 0.95, &r));
	CHECK(r.p == 1 && !r.significant);
	/* Past the exact limit: normal approximation, continuity-corrected. */
	for (int i = 0; i < 40; i++) {
		big_a[i] = i;
		big_b[i] = i + 20.5;
	}
	CHECK(!stats_mwu(big_a, 40, big_b, 40, 0.95, &r));
	CHECK(!r.exact && r.u == 190 && r.significant);
	NEAR(r.p / 4.4935881e-09, 1, 1e-6);
	CHECK(stats_mwu(big_a, 0, big_b, 3, 0.95, &r) == -1);
}

/* An LCG and Box-Muller of its own: not the stream resolution.c uses. */
static double lcg_normal(unsigned long long *s)
{
	double u, v;

	*s = *s * 6364136223846793005ULL + 1442695040888963407ULL;
	u = ((*s >> 11) + 1) * 0x1.0p-53;
	*s = *s * 6364136223846793005ULL + 1442695040888963407ULL;
	v = ((*s >> 11) + 1) * 0x1.0p-53;
	return sqrt(-2 * log(u)) * sin(2 * M_PI * v);
}

/* Share of  experiments that compare's two tests both flag. */
static double flag_rate(size_t n, double shift, int sims)
{
	unsigned long long seed = 12345;
	double a[16], b[16];
	int hits = 0;

	for (int k = 0; k < sims; k++) {
		struct stats_summary sa, sb;
		struct stats_ttest t;
		struct stats_mwu mw;

		for (size_t i = 0; i < n; i++) {
			a[i] = 100 + lcg_normal(&seed);
			b[i] = 100 + shift + lcg_normal(&seed);
		}
		stats_summarize(a, n, &sa);
		stats_summarize(b, n, &sb);
		stats_ttest(&sa, &sb, 0.95, &t);
		stats_mwu(a, n, b, n, 0.95, &mw);
		hits += t.significant && mw.significant;
	}
	return (double)hits / sims;
}

/*
 * The resolution: Student's t alone needs about 1.99 standard deviations
 * at 5 runs a side and 1.32 at 10 for 80 % power (any power table); the
 * pair of tests needs somewhat more.  Checked against the real tests on
 * draws of another generator: at the MDE they flag about 80 %.
 */
static void test_resolution(void)
{
	double k3 = resolution_sd(3, 3, 0.95, 0.8);
	double k4 = resolution_sd(4, 4, 0.95, 0.8);
	double k5 = resolution_sd(5, 5, 0.95, 0.8);
	double k10 = resolution_sd(10, 10, 0.95, 0.8);
	double k200 = resolution_sd(200, 200, 0.95, 0.8);
	struct stats_summary a = { .n = 5, .mean = 10, .stddev = 2 };
	struct stats_summary c = { .n = 5, .mean = 10, .stddev = 0 };
	double r5, r10;

	printf("resolution: 4+4 %.3f, 5+5 %.3f, 10+10 %.3f, 200+200 %.3f sd\n",
	       k4, k5, k10, k200);
	/* 3 a side: Mann-Whitney's smallest p is 0.1, never 95 %. */
	CHECK(isinf(k3));
	CHECK(k5 > 1.99 && k5 < 2.6);
	CHECK(k10 > 1.32 && k10 < 1.6);
	CHECK(k4 > k5 && k5 > k10 && k10 > k200);
	/* Closed form: (1.966 + 0.842) * sqrt(2 / 200) / sqrt(3 / pi). */
	NEAR(k200, 0.2874, 2e-3);
	CHECK(isnan(resolution_sd(1, 5, 0.95, 0.8)));
	CHECK(resolution_sd(5, 5, 0.95, 0.8) == k5);
	r5 = flag_rate(5, k5, 4000);
	r10 = flag_rate(10, k10, 2000);
	printf("resolution: the real tests flag %.3f at 5+5, %.3f at 10+10\n",
	       r5, r10);
	NEAR(r5, 0.8, 0.03);
	NEAR(r10, 0.8, 0.03);
	/* In the metric's unit: the pooled s (2) times k; no spread, 0. */
	NEAR(resolution_of(&a, &a, 0.95, 0.8), 2 * k5, 1e-9);
	CHECK(resolution_of(&c, &c, 0.95, 0.8) == 0);
}

/*
 * Benjamini and Hochberg (1995), section 4: fifteen p-values, q = 0.05;
 * the step-up rule keeps the four smallest (p_(4) = 0.0095 <= 4/15 of
 * 0.05, p_(5) = 0.0201 > 5/15 of it), where Bonferroni keeps three.
 */
static void test_bh(void)
{
	static const double p[] = {
		0.0201, 0.0001, 0.0278, 0.0004, 0.0298, 0.0019, 0.0344,
		0.0095, 0.0459, 0.3240, 0.4262, 0.5719, 0.6528, 0.7590, 1.0,
	};
	bool flag[N(p)];
	size_t n = 0;

	CHECK(!stats_bh(p, N(p), 0.05, flag));
	for (size_t i = 0; i < N(p); i++)
		n += flag[i];
	CHECK(n == 4);
	CHECK(flag[1] && flag[3] && flag[5] && flag[7] && !flag[0]);
	/* Nothing below its line: none kept; and none to test. */
	CHECK(!stats_bh((const double[]){ 0.5, 0.9 }, 2, 0.05, flag));
	CHECK(!flag[0] && !flag[1]);
	CHECK(!stats_bh(p, 0, 0.05, flag));
}

int main(void)
{
	test_t_table();
	test_summary();
	test_ttest_sleep();
	test_ttest_edges();
	test_mwu();
	test_resolution();
	test_bh();
	return check_report();
}
