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

/* A counter's verdict against the reference (counters.c). */
enum counter_verdict {
	COUNTER_UNTESTED,
	COUNTER_CHANGED,	/* both tests, after the correction */
	COUNTER_EXACT,		/* one value a side, every run, and they differ */
	COUNTER_IDENTICAL,	/* the same value in every run of both */
	COUNTER_NO_CHANGE,	/* none found */
};

/* The false discovery rate the counters are judged at. */
#define COUNTERS_FDR	0.05

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
	/* Counters: the larger p of the two tests, and the verdict. */
	double p[COMPARE_MAX_SIDES];
	enum counter_verdict verdict[COMPARE_MAX_SIDES];
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

/* What a side's counters came to. */
struct counter_side {
	size_t compared, varying, changed, exact, identical;
};

struct compare {
	struct side side[COMPARE_MAX_SIDES];
	int nsides;
	struct metric *m;
	size_t nm;
	/* Every other number of the runs (counters.c), judged apart. */
	struct metric *cm;
	size_t ncm;
	struct counter_side cs[COMPARE_MAX_SIDES];
	bool all_counters;	/* --all-counters: list them all */
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

/*
 * A metric read at @path, appended to the @n of @ms; a path that does not
 * parse dies naming @what ("--metric", "counter").
 */
struct metric *metric_append(struct metric **ms, size_t *n,
			     const char *what, const char *path);

/* The counters of side 0's runs that no declared metric reads. */
void counters_add(struct compare *c);
/* Each side's verdicts, once the counters' rows are tested. */
void counters_judge(struct compare *c);
void counters_free(struct compare *c);

/* The seed-shaped tables and the notes, on stdout. */
void compare_print(const struct compare *c);
/* The same as JSON, written atomically to c->json. */
void compare_write_json(const struct compare *c);

#endif
