/* SPDX-License-Identifier: GPL-2.0 */
/* The scenarios, one file each; main.c lists them. */
#ifndef HOST_SCENARIOS_SCENARIOS_H
#define HOST_SCENARIOS_SCENARIOS_H

#include "scenarios/scenario.h"

extern const struct scenario scenario_touch;
extern const struct scenario scenario_dirty_log;
extern const struct scenario scenario_zap;
extern const struct scenario scenario_nx_recovery;
extern const struct scenario scenario_bench;
extern const struct scenario scenario_migrate;
extern const struct scenario scenario_scale;

#endif
