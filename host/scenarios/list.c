// SPDX-License-Identifier: GPL-2.0
/*
 * Every scenario, for main.c's dispatch and usage and for the results
 * commands that take a scenario's metrics from its own file (compare,
 * metrics).  A new scenario is its file and one line here.
 */
#include <string.h>
#include "util/util.h"
#include "scenarios/scenarios.h"

const struct scenario *const scenario_list[] = {
	&scenario_touch,
	&scenario_dirty_log,
	&scenario_zap,
	&scenario_nx_recovery,
	&scenario_bench,
	&scenario_migrate,
	&scenario_scale,
	&scenario_demand_paging,
	&scenario_private_mem,
	&scenario_memslot,
	&scenario_aging,
};

const size_t scenario_count = MMUB_ARRAY_SIZE(scenario_list);

const struct scenario *scenario_find(const char *name)
{
	for (size_t i = 0; i < scenario_count; i++)
		if (name && !strcmp(scenario_list[i]->name, name))
			return scenario_list[i];
	return NULL;
}
