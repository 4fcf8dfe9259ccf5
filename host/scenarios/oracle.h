/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The dirty-log correctness oracle: every page whose content changed must
 * have been reported dirty, by the harvest that follows the write.
 *
 * The guest stamps each write with the host's epoch (mailbox), and
 * publishes epoch_seen with release order once it adopted a new epoch.
 * A round: bump the epoch, wait until every running vCPU adopted it, then
 * harvest, then read the pages.  A page that changed since the last round
 * and carries an older epoch was written before the harvest began, so it
 * must be in this harvest; one with the current epoch may have been
 * written after, so it must be in this harvest or the next one.
 *
 * What it cannot see: a page reported in a harvest and written again
 * between that harvest and the read of its content shows the newer value
 * already, so the newer write is not required in the next harvest.  Any
 * oracle that lets the vCPUs run during the harvest has this window.
 */
#ifndef HOST_SCENARIOS_ORACLE_H
#define HOST_SCENARIOS_ORACLE_H

#include "vmm/vmm.h"
#include "kernel/dirty_log.h"

struct oracle {
	struct dlog *d;
	u64 pages;
	u64 *prev;		/* first word of each page at the last look */
	u64 *pending;		/* bitmap: must be in the next harvest */
	u64 *dirty;		/* this round's harvest */
	u64 epoch;
	u64 rounds;
	u64 missed;
	u64 false_pos;		/* reported, but the content is unchanged */
	u64 reported;
	u64 changed;
	u64 first_missed;	/* page index */
	s64 drop_round;		/* debug: drop one reported page then */
	s64 dropped;		/* page index dropped on purpose, or -1 */
};

/* @drop_round: --debug-drop-dirty, or -1. */
void oracle_init(struct oracle *o, struct vm *vm, struct dlog *d,
		 s64 drop_round);
/* One round; returns the pages missed in it (0 is the only good answer). */
u64 oracle_round(struct oracle *o, struct vm *vm);
void oracle_free(struct oracle *o);
/* "slot N gfn 0x..." of test page @page. */
void oracle_describe(const struct vm *vm, u64 page, char *buf, size_t len);

#endif
