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

struct side {
	const char *file;
	const char *label;
	json_t *doc;
	const char *scenario;
	size_t runs;
};

struct row {
	char *label;
	double *v[2];
	size_t n[2], cap[2];
	struct stats_summary s[2];
	struct stats_ttest t;
	struct stats_mwu mw;
	bool tested;
};

struct metric {
	const char *name;
	struct jpath path;
	bool explicit;		/* --metric: absence is an error */
	bool shape;		/* a default only some documents have */
	struct row *rows;
	size_t nrows, cap;
	size_t found[2];	/* runs with a value */
	char why[2][256];	/* why the first run had none */
};

struct compare {
	struct side side[2];
	struct metric *m;
	size_t nm;
	const char *json;
	bool runs;		/* --runs: every run's value too */
	char **notes;
	size_t nnotes;
};

/* The seed-shaped tables and the notes, on stdout. */
void compare_print(const struct compare *c);
/* The same as JSON, written atomically to c->json. */
void compare_write_json(const struct compare *c);

#endif
