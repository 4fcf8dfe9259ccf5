/* SPDX-License-Identifier: GPL-2.0 */
/* One file per experiment; each returns the process exit status. */
#ifndef HOST_SCENARIOS_H
#define HOST_SCENARIOS_H

#include "../mmubench.h"

int scenario_touch(const struct run_config *cfg);
int scenario_bench(const struct run_config *cfg);
int scenario_dirty_log(const struct run_config *cfg);
int dirty_log_table(const struct run_config *cfg);
int scenario_zap(const struct run_config *cfg);
int scenario_nx_recovery(const struct run_config *cfg);

#endif
