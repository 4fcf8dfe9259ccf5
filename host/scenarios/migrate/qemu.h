/* SPDX-License-Identifier: GPL-2.0 */
/*
 * "migrate --backend qemu": the migrate scenario through QEMU's own
 * pre-copy migration, between two QEMUs (TCG) booting the same guest, as
 * an anchor beside mmubench's model of it.
 */
#ifndef HOST_SCENARIOS_MIGRATE_QEMU_H
#define HOST_SCENARIOS_MIGRATE_QEMU_H

#include "backend/qemu.h"
#include "framework/scenario.h"

struct qemu_migrate_opts {
	u64 bandwidth;		/* bytes/s; 0: no cap */
	u32 downtime_ms;	/* QEMU's downtime-limit */
	s64 corrupt_page;	/* test page to flip at the destination, -1 */
	s64 postcopy_rounds;	/* post-copy after that many rounds, -1 */
};

/*
 * Migrate, compare the two QEMUs' RAM page by page, print the migrate
 * table and write --json.  The exit status: 0, or 1 after saying why.
 */
int qemu_migrate(const struct common *c, const struct qemu_migrate_opts *o);

#endif
