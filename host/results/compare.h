/* SPDX-License-Identifier: GPL-2.0 */
/*
 * "mmubench compare": what compare.c collects and tests, and what
 * compare_out.c prints and writes from it.
 */
#ifndef HOST_RESULTS_COMPARE_H
#define HOST_RESULTS_COMPARE_H

#include <stdbool.h>
#include <jansson.h>
#include "results/json_path.h"
#include "results/statistics.h"

/* Confidence of both tests, two-sided. */
#define COMPARE_LEVEL	0.95
/* Documents in one comparison: the reference and up to 7 variants. */
#define COMPARE_MAX_SIDES	8

struct side {
	const char *file;
	const char *label;
	json_t *doc;
	const char *scenario;
	size_t runs;
};

/*
 * Side 0 is the reference: t[i], mw[i] and tested[i] are side i against
 * it (index 0 unused).
 */
struct row {
	char *label;
	double *v[COMPARE_MAX_SIDES];
	size_t n[COMPARE_MAX_SIDES], cap[COMPARE_MAX_SIDES];
	struct stats_summary s[COMPARE_MAX_SIDES];
	struct stats_ttest t[COMPARE_MAX_SIDES];
	struct stats_mwu mw[COMPARE_MAX_SIDES];
	/* Resolution: the smallest change of the mean both tests would see. */
	double mde[COMPARE_MAX_SIDES];
	bool tested[COMPARE_MAX_SIDES];
	bool any;		/* tested against at least one side */
};

struct metric {
	const char *name;
	struct jpath path;
	bool explicit;		/* --metric: absence is an error */
	bool shape;		/* a default only some documents have */
	struct row *rows;
	size_t nrows, cap;
	size_t found[COMPARE_MAX_SIDES];	/* runs with a value */
	/* Why the first run had none. */
	char why[COMPARE_MAX_SIDES][256];
};

struct compare {
	struct side side[COMPARE_MAX_SIDES];
	int nsides;
	struct metric *m;
	size_t nm;
	const char *json;
	char *labels;		/* --labels, split after the files */
	bool runs;		/* --runs: every run's value too */
	char **notes;
	size_t nnotes;
};

/* "A", "B", ...: a side's column in the tables. */
static inline char side_letter(int s)
{
	return (char)('A' + s);
}

/* The seed-shaped tables and the notes, on stdout. */
void compare_print(const struct compare *c);
/* The same as JSON, written atomically to c->json. */
void compare_write_json(const struct compare *c);

#endif
