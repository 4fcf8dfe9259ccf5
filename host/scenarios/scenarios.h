/* SPDX-License-Identifier: GPL-2.0 */
/* The scenarios, one file each; list.c lists them (and only there). */
#ifndef HOST_SCENARIOS_SCENARIOS_H
#define HOST_SCENARIOS_SCENARIOS_H

#include <stddef.h>
#include "framework/scenario.h"

/* Every scenario, in the usage's order. */
extern const struct scenario *const scenario_list[];
extern const size_t scenario_count;

/* The scenario named @name, or NULL. */
const struct scenario *scenario_find(const char *name);

#endif
