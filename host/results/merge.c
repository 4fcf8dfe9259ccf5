// SPDX-License-Identifier: GPL-2.0
/*
 * "mmubench merge OUT.json IN.json...": one document with the runs of
 * all the inputs, in order.  tools/ab.sh boots a kernel per run; merging
 * gives "compare" one document per kernel.  The inputs must be the same
 * scenario with the same config (repeat aside); the first one gives
 * config and env.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "util/util.h"
#include "results/commands.h"
#include "results/json.h"

/* Merging runs of different experiments would make a wrong sample. */
static void same_config(json_t *first, const char *first_file, json_t *doc,
			const char *file)
{
	json_t *a = json_object_get(first, "config");
	json_t *b = json_object_get(doc, "config");
	const char *key;
	json_t *x;

	json_object_foreach(a, key, x) {
		if (!strcmp(key, "repeat"))
			continue;
		if (!json_equal(x, json_object_get(b, key)))
			die("merge: %s: config.%s differs from %s's", file, key,
			    first_file);
	}
}

int cmd_merge(int argc, char **argv)
{
	json_t *out, *runs;

	if (argc == 2 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
		puts("usage: mmubench merge OUT.json IN.json...\n"
		     "  every run of the IN documents (one scenario, one config) in one OUT");
		exit(0);
	}
	if (argc < 3 || argv[1][0] == '-')
		die("usage: mmubench merge OUT.json IN.json...");
	out = results_load("merge", argv[2]);
	runs = results_runs(out);
	for (int k = 3; k < argc; k++) {
		json_t *in = results_load("merge", argv[k]);

		if (strcmp(results_scenario(in), results_scenario(out)))
			die("merge: %s is a \"%s\" document, %s a \"%s\" one",
			    argv[k], results_scenario(in), argv[2],
			    results_scenario(out));
		same_config(out, argv[2], in, argv[k]);
		if (json_array_extend(runs, results_runs(in)))
			die("out of memory");
		json_decref(in);
	}
	if (json_write_atomic(argv[1], out))
		die("merge: %s: cannot write it: %m", argv[1]);
	json_decref(out);
	return 0;
}
