/* SPDX-License-Identifier: GPL-2.0 */
/* The scenarios, one file each; list.c lists them. */
#ifndef HOST_SCENARIOS_SCENARIOS_H
#define HOST_SCENARIOS_SCENARIOS_H

#include <stddef.h>
#include "framework/scenario.h"

extern const struct scenario scenario_touch;
extern const struct scenario scenario_dirty_log;
extern const struct scenario scenario_zap;
extern const struct scenario scenario_nx_recovery;
extern const struct scenario scenario_bench;
extern const struct scenario scenario_migrate;
extern const struct scenario scenario_scale;
extern const struct scenario scenario_demand_paging;
extern const struct scenario scenario_private_mem;
extern const struct scenario scenario_memslot;
extern const struct scenario scenario_aging;

/* Every scenario, in the usage's order. */
extern const struct scenario *const scenario_list[];
extern const size_t scenario_count;

/* The scenario named @name, or NULL. */
const struct scenario *scenario_find(const char *name);

#endif
