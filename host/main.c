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
#include "migrate/receive.h"
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
	{ "compare", "A.json B.json...: medians, ratios, t-test, Mann-Whitney",
	  cmd_compare },
	{ "merge", "OUT.json IN.json...: the runs of several documents in one",
	  cmd_merge },
	{ "metrics", "[SCENARIO]: the metrics a scenario declares, its gate",
	  cmd_metrics },
	{ "migrate-receive", "--listen PORT: the far end of migrate --to",
	  cmd_migrate_receive },
};

/*
 * At most 40 lines of at most CLI_COLUMNS: what there is, and where the
 * rest is ("mmubench NAME --help", docs/scenarios/NAME.md).
 */
static void usage(FILE *f)
{
	fprintf(f, "usage: mmubench SCENARIO [options] | COMMAND [arguments] | "
		   "NAME --help\n\nScenarios (experiments on a VM; NAME --help: "
		   "every option):\n");
	for (size_t i = 0; i < scenario_count; i++)
		fprintf(f, "  %-15s %s\n", scenario_list[i]->name,
			scenario_list[i]->brief);
	fprintf(f, "\nCommands (on results):\n");
	for (size_t i = 0; i < MMUB_ARRAY_SIZE(commands); i++)
		fprintf(f, "  %-15s %s\n", commands[i].name, commands[i].help);
	fprintf(f, "\nOptions of every scenario (SCENARIO --help says what "
		   "each does):\n");
	cli_usage_common_names(f);
	fprintf(f, "\nExamples:\n"
		   "  mmubench touch -v 2 -b 64m -s anonymous_thp --guest-page 2m\n"
		   "  mmubench dirty-log -v 2 -b 4m --mode ring --verify "
		   "--json ring.json\n"
		   "  mmubench compare before.json after.json\n"
		   "\nA/B across kernels: tools/ab.sh in the source tree "
		   "(README.md). Needs /dev/kvm\n(root or group kvm). --list: the "
		   "names, one a line. Version "
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

/*
 * --list: "NAME<TAB>scenario" or "NAME<TAB>command", one a line, in the
 * usage's order, for scripts and tests that would otherwise repeat them.
 */
static void list(void)
{
	for (size_t i = 0; i < scenario_count; i++)
		printf("%s\tscenario\n", scenario_list[i]->name);
	for (size_t i = 0; i < MMUB_ARRAY_SIZE(commands); i++)
		printf("%s\tcommand\n", commands[i].name);
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
	if (!strcmp(argv[1], "--list")) {
		list();
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
