// SPDX-License-Identifier: GPL-2.0
/*
 * mmubench: measure what KVM's second-stage MMU costs while a guest
 * touches its memory.  "mmubench SCENARIO [options]" runs an experiment
 * on a VM; "mmubench COMMAND ..." works on results.  The usage is made
 * from the two tables below.
 */
#include <stdlib.h>
#include <string.h>
#include "util/cleanup.h"
#include "util/progress.h"
#include "util/util.h"
#include "cli.h"
#include "results/commands.h"
#include "results/metrics.h"
#include "migrate/migrate.h"
#include "scenarios/scenarios.h"

#ifndef MMUB_VERSION
#define MMUB_VERSION "unknown"
#endif

/*
 * Commands with their own arguments: they work on results, or are the
 * far end of a scenario (migrate-receive), not a VM of their own.
 */
static const struct command {
	const char *name;
	const char *help;
	int (*run)(int argc, char **argv);
} commands[] = {
	{ "compare", "A.json B.json [C.json ...]: per metric medians, B/A "
	  "(C/A ...), t-test and Mann-Whitney at 95 %", cmd_compare },
	{ "merge", "OUT.json IN.json...: the runs of several documents in one",
	  cmd_merge },
	{ "metrics", "[SCENARIO]: the metrics each scenario declares, which way is "
	  "better, the regression gate's threshold", cmd_metrics },
	{ "migrate-receive", "--listen PORT: the destination of migrate --to",
	  cmd_migrate_receive },
};

static void usage(FILE *f)
{
	fprintf(f, "usage: mmubench SCENARIO [options]\n"
		   "       mmubench COMMAND [arguments]\n\nScenarios:\n");
	for (size_t i = 0; i < scenario_count; i++)
		fprintf(f, "  %-11s %s\n", scenario_list[i]->name,
			scenario_list[i]->help);
	fprintf(f, "\nCommands (mmubench COMMAND --help):\n");
	for (size_t i = 0; i < MMUB_ARRAY_SIZE(commands); i++)
		fprintf(f, "  %-11s %s\n", commands[i].name, commands[i].help);
	fprintf(f, "\nA/B experiments across kernels: tools/ab.sh in the source "
		   "tree (it builds and boots the kernels, this binary runs in "
		   "them).\n");
	fprintf(f, "\n");
	cli_usage_options(f, NULL);
	for (size_t i = 0; i < scenario_count; i++)
		if (scenario_list[i]->opts->name) {
			fprintf(f, "\n%s:\n", scenario_list[i]->name);
			cli_usage_scenario(f, scenario_list[i]);
		}
	fprintf(f, "\nNeeds /dev/kvm (root or group kvm). Version "
		   MMUB_VERSION ".\n");
}

/*
 * The scenarios' metrics for the results commands (compare, metrics),
 * which link without scenario code.
 */
static void use_metrics(void)
{
	/* Kept until exit: the commands read it to the end. */
	struct metric_set *sets = calloc(scenario_count, sizeof(*sets));

	if (!sets)
		die("out of memory");
	for (size_t i = 0; i < scenario_count; i++)
		sets[i] = (struct metric_set){ scenario_list[i]->name,
					       scenario_list[i]->metrics,
					       scenario_list[i]->row_keys };
	metric_sets_use(sets, scenario_count);
}

static void unknown(const char *name)
{
	char list[256] = "";

	/*
	 * An A/B experiment builds kernels and boots them nested, shell
	 * work: tools/ab.sh does it and runs this binary in each boot.
	 */
	if (!strcmp(name, "ab"))
		die("ab: A/B experiments across kernels are tools/ab.sh in the "
		    "source tree (it builds and boots the kernels and runs this "
		    "binary in each)");
	for (size_t i = 0; i < scenario_count; i++)
		snprintf(list + strlen(list), sizeof(list) - strlen(list),
			 "%s, ", scenario_list[i]->name);
	for (size_t i = 0; i < MMUB_ARRAY_SIZE(commands); i++)
		snprintf(list + strlen(list), sizeof(list) - strlen(list),
			 "%s%s", commands[i].name,
			 i + 1 < MMUB_ARRAY_SIZE(commands) ? ", " : "");
	die("%s: unknown scenario (accepted: %s)", name, list);
}

int main(int argc, char **argv)
{
	struct common c;

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc < 2 || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") ||
	    !strcmp(argv[1], "help")) {
		usage(argc < 2 ? stderr : stdout);
		return argc < 2 ? 2 : 0;
	}
	if (!strcmp(argv[1], "--version")) {
		printf("mmubench %s\n", MMUB_VERSION);
		return 0;
	}
	use_metrics();
	for (size_t i = 0; i < MMUB_ARRAY_SIZE(commands); i++)
		if (!strcmp(argv[1], commands[i].name))
			return commands[i].run(argc - 1, argv + 1);
	for (size_t i = 0; i < scenario_count; i++) {
		if (strcmp(argv[1], scenario_list[i]->name))
			continue;
		progress_init();
		cleanup_install();
		cli_parse(scenario_list[i], scenario_list, scenario_count,
			  &c, argc - 1, argv + 1);
		return scenario_list[i]->run(&c);
	}
	unknown(argv[1]);
}
