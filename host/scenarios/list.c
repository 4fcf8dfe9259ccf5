// SPDX-License-Identifier: GPL-2.0
/*
 * Every scenario, for main.c's dispatch and usage and for the results
 * commands that take a scenario's metrics from its own file (compare,
 * metrics).  A new scenario is its file and one name here, in the
 * usage's order: its definition, scenario_NAME, is declared here alone.
 */
#include <string.h>
#include "util/util.h"
#include "scenarios/scenarios.h"

#define SCENARIOS(X)							\
	X(touch) X(dirty_log) X(zap) X(nx_recovery) X(bench) X(migrate)	\
	X(scale) X(demand_paging) X(private_mem) X(memslot) X(aging)

#define DECLARE(name)	extern const struct scenario scenario_##name;
SCENARIOS(DECLARE)

#define ENTRY(name)	&scenario_##name,
const struct scenario *const scenario_list[] = { SCENARIOS(ENTRY) };

const size_t scenario_count = MMUB_ARRAY_SIZE(scenario_list);

const struct scenario *scenario_find(const char *name)
{
	for (size_t i = 0; i < scenario_count; i++)
		if (name && !strcmp(scenario_list[i]->name, name))
			return scenario_list[i];
	return NULL;
}
