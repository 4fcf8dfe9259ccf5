/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The columns a migration's table starts with, before its zero-check
 * time: those of mmubench's model (struct mig, migrate.c) and of QEMU's
 * (qemu.c), which fill one table either way, their members named alike.
 */
#ifndef HOST_SCENARIOS_MIGRATE_TABLE_H
#define HOST_SCENARIOS_MIGRATE_TABLE_H

#include "results/json.h"

#define MIG_TABLE_FIELDS(st)				\
	FIELD(st, total_ms, FIELD_DOUBLE, 10, 1),	\
	FIELD(st, rounds, FIELD_U32, 7, 0),		\
	FIELD(st, pages_sent, FIELD_U64, 11, 0),	\
	FIELD(st, zero_pages, FIELD_U64, 11, 0),	\
	FIELD(st, wire_mib, FIELD_DOUBLE, 9, 1),	\
	FIELD(st, downtime_ms, FIELD_DOUBLE, 12, 1)

#endif
