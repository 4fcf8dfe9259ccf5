// SPDX-License-Identifier: GPL-2.0
/*
 * The scenarios' metrics (results/metrics.h), and "mmubench metrics
 * [SCENARIO]": every metric the scenarios declare in their own files,
 * one table row each: the name compare prints, which way is better, the
 * regression gate's threshold, the unit and where the figure is in a
 * document.  ci/regress.sh reads this table, then
 * ci/regressions.conf's overrides; a new metric is one line in its
 * scenario's file.
 */
#include <stdio.h>
#include <string.h>
#include "util/util.h"
#include "results/commands.h"
#include "results/json_path.h"
#include "results/metrics.h"

static const struct metric_set *sets;
static size_t nsets;

void metric_sets_use(const struct metric_set *s, size_t n)
{
	sets = s;
	nsets = n;
}

const struct metric_set *metric_set_find(const char *scenario)
{
	for (size_t i = 0; i < nsets; i++)
		if (scenario && !strcmp(sets[i].scenario, scenario))
			return &sets[i];
	return NULL;
}

static const char *const better_name[] = {
	[BETTER_UNSTATED] = "-",
	[BETTER_LOWER] = "lower",
	[BETTER_HIGHER] = "higher",
};

static void widen(int *w, const char *s)
{
	if ((int)strlen(s) > *w)
		*w = (int)strlen(s);
}

/* A declaration compare could not read is the scenario's bug. */
static void check_path(const struct metric_set *s, const struct metric_def *d)
{
	struct jpath p;
	char err[256];

	if (jpath_parse(d->path, &p, err, sizeof(err)))
		die("metrics: %s %s: path %s: %s", s->scenario, d->name, d->path,
		    err);
	jpath_free(&p);
	if (!d->unit || (d->better == BETTER_UNSTATED && d->threshold))
		die("metrics: %s %s: %s", s->scenario, d->name, !d->unit ?
		    "no unit" : "a threshold without a direction");
}

static void widths(const struct metric_set *only, int *ws, int *wm, int *wu)
{
	for (size_t i = 0; i < nsets; i++) {
		const struct metric_set *s = &sets[i];
		const struct metric_def *d;

		if ((only && s != only) || !s->metrics)
			continue;
		for (d = s->metrics; d->name; d++) {
			check_path(s, d);
			widen(ws, s->scenario);
			widen(wm, d->name);
			widen(wu, d->unit);
		}
	}
}

static void print_rows(const struct metric_set *only)
{
	int ws = 8, wm = 6, wu = 4;

	widths(only, &ws, &wm, &wu);
	printf("| %-*s | %-*s | better | threshold %% | %-*s | path |\n",
	       ws, "scenario", wm, "metric", wu, "unit");
	for (size_t i = 0; i < nsets; i++) {
		const struct metric_set *s = &sets[i];
		const struct metric_def *d;
		char pct[16] = "-";

		if ((only && s != only) || !s->metrics)
			continue;
		for (d = s->metrics; d->name; d++) {
			if (d->threshold && d->better != BETTER_UNSTATED)
				snprintf(pct, sizeof(pct), "%u", d->threshold);
			else
				strcpy(pct, "-");
			printf("| %-*s | %-*s | %-6s | %-11s | %-*s | %s |\n",
			       ws, s->scenario, wm, d->name, better_name[d->better],
			       pct, wu, d->unit, d->path);
		}
	}
}

int cmd_metrics(int argc, char **argv)
{
	const struct metric_set *only = NULL;

	if (argc == 2 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
		puts("usage: mmubench metrics [SCENARIO]\n"
		     "  the metrics each scenario declares: compare's default rows;\n"
		     "  better and threshold %: the regression gate's rule (\"-\": shown,\n"
		     "  not judged), which ci/regressions.conf may override");
		return 0;
	}
	if (argc > 2)
		die("metrics: expected at most one SCENARIO (got %d arguments)",
		    argc - 1);
	if (argc == 2) {
		only = metric_set_find(argv[1]);
		if (!only)
			die("metrics: %s: no such scenario (mmubench --help lists them)",
			    argv[1]);
		if (!only->metrics)
			die("metrics: %s declares no metrics (compare it with --metric PATH)",
			    argv[1]);
	}
	print_rows(only);
	return 0;
}
