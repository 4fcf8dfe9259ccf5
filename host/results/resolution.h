/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The resolution of compare's verdict: the minimum detectable effect
 * (MDE), the smallest true change of a metric's mean that Student's t
 * and Mann-Whitney together flag at @level with probability @power, for
 * the run counts of the two samples and the noise (pooled standard
 * deviation) they show.  A change smaller than that may be real and go
 * unseen: "cannot tell", not "no change".
 *
 * Free of the harness's headers, so the unit test links it alone.
 */
#ifndef HOST_RESULTS_RESOLUTION_H
#define HOST_RESULTS_RESOLUTION_H

#include <stddef.h>
#include "results/statistics.h"

/* The power compare reports the MDE at. */
#define RESOLUTION_POWER	0.8
/* Runs a side simulated; more use the normal closed form. */
#define RESOLUTION_MAX_RUNS	100

/*
 * The MDE in standard deviations of the noise, for na and nb runs:
 * simulated with normal noise (repeatable, from a fixed seed), cached.
 * INFINITY where Mann-Whitney cannot reach @level with so few runs,
 * NaN for fewer than 2 runs a side or out of memory.
 */
double resolution_sd(size_t na, size_t nb, double level, double power);

/*
 * The MDE of a metric, in its own unit: resolution_sd() times the pooled
 * standard deviation of @a and @b.  0 for samples without any spread
 * (counters), where every change shows.
 */
double resolution_of(const struct stats_summary *a,
		     const struct stats_summary *b, double level, double power);

#endif
