/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The source side of a migration (source.c): pre-copy rounds from the
 * dirty log while the vCPUs write, stop-and-copy, and the destination's
 * check.  The scenario (scenarios/migrate.c) makes the VM, the stream
 * and the dirty log, starts the vCPUs, and prints what is filled here.
 */
#ifndef HOST_MIGRATE_SOURCE_H
#define HOST_MIGRATE_SOURCE_H

#include "vmm/vmm.h"
#include "kernel/dirty_log.h"
#include "migrate/wire.h"

struct mig_params {
	enum dlog_mode mode;
	u64 bandwidth;		/* bytes/s, 0: no cap */
	u32 downtime_ms;
	u32 max_rounds;
	s64 skip;		/* a page never sent (debug), or -1 */
	s64 drop;		/* --debug-drop-dirty harvest, or -1 */
	bool idle;		/* the vCPUs run no loop */
};

struct mig {
	/* results */
	u32 rounds;
	u64 pages_sent, zero_pages, first_harvest;
	double total_ms, downtime_ms, zero_check_ms, wire_mib;
	u64 verified, mismatches;
	/* the caller's */
	const struct mig_params *p;
	struct wire w;
	struct dlog *d;
	u64 pages;
	u8 *mem;
	/* ours */
	double start_ms, stop_ms;
	u64 *pending;		/* bitmap: to send */
	u64 *scratch;		/* bitmap: one harvest */
	u32 *sent_in;		/* round that last sent each page, 0: none */
	u64 epoch;		/* the vCPUs' write window, bumped per harvest */
	u64 *once;		/* bitmap: the window's write-once pages */
};

/*
 * Migrate @m->pages test pages at @m->mem over @m->w while @vm's vCPUs
 * run a loop (unless idle): enable logging, the rounds, the vCPUs stopped, the last
 * round, then the destination's hashes against ours.  A differing page
 * is counted in m->mismatches and named on stderr.  0, or -1 if the
 * stream or the VM failed.
 */
int mig_source_run(struct vm *vm, struct mig *m);

#endif
