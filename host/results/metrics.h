/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The metrics of a scenario's documents, declared in the scenario's own
 * file (struct scenario's metrics and row_keys) and handed to the
 * results commands by main.c: results/ links without scenario code.
 */
#ifndef HOST_RESULTS_METRICS_H
#define HOST_RESULTS_METRICS_H

#include <stdbool.h>
#include <stddef.h>

/* Which way a metric moves when the MMU got better. */
enum better {
	BETTER_UNSTATED,	/* shown, never judged */
	BETTER_LOWER,
	BETTER_HIGHER,
};

/*
 * A figure of the scenario's documents that a change to the MMU moves.
 * "mmubench compare" shows it by default; the regression gate
 * (ci/regress.sh, which reads "mmubench metrics") judges it where it
 * has a direction and a threshold.  ci/regressions.conf may override a
 * threshold for a night's machine.
 */
struct metric_def {
	const char *name;	/* compare's rows, the gate's key */
	const char *path;	/* where in a document (results/json_path.h) */
	const char *unit;	/* "ms", "us", "ns", "pages", "calls"... */
	enum better better;
	/* Per cent worse that fails a night; 0: shown, not judged. */
	unsigned int threshold;
	/* In one shape of document only (--table or not): no note if absent. */
	bool shape;
};

/* One scenario's: its metrics ({ NULL }-ended) and row keys. */
struct metric_set {
	const char *scenario;
	const struct metric_def *metrics;
	/*
	 * What compare files a run under before its row, where one document
	 * holds several cells (--table): members of a run ("zap.pattern"),
	 * NULL-ended; NULL: none.
	 */
	const char *const *row_keys;
};

/* The scenarios' sets, from main.c, before any results command runs. */
void metric_sets_use(const struct metric_set *sets, size_t n);
/* The set of @scenario, or NULL. */
const struct metric_set *metric_set_find(const char *scenario);

#endif
