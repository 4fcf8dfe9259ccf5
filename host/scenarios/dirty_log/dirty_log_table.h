/* SPDX-License-Identifier: GPL-2.0 */
#ifndef HOST_SCENARIOS_DIRTY_LOG_DIRTY_LOG_TABLE_H
#define HOST_SCENARIOS_DIRTY_LOG_DIRTY_LOG_TABLE_H

#include "kvm/dirty_log.h"
#include "kvm/eager_split.h"
#include "framework/scenario.h"

#define TABLE_MODES_MAX	3

/* The table's columns, in the order given; none given: all three. */
struct table_modes {
	enum dlog_mode mode[TABLE_MODES_MAX];
	u32 n;
};

/* --table-modes LIST: get, clear, clear-init-set; exits 2 on bad input. */
void table_modes_parse(struct table_modes *t, const char *arg);

/*
 * dirty-log --table enable: rows page sizes, columns modes, each under
 * every eager-split setting of @e (none: untouched); exit status.
 */
int dirty_log_table(const struct common *c, const struct table_modes *t,
		    const struct eager_list *e);

#endif
