/* SPDX-License-Identifier: GPL-2.0 */
#ifndef HOST_SCENARIOS_DIRTY_LOG_TABLE_H
#define HOST_SCENARIOS_DIRTY_LOG_TABLE_H

#include "scenarios/scenario.h"

/* dirty-log --table enable: rows page sizes, columns modes; exit status. */
int dirty_log_table(const struct common *c);

#endif
