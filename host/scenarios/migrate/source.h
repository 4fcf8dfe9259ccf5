/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The source side of a migration (source.c): pre-copy rounds from the
 * dirty log while the vCPUs write, stop-and-copy, and the destination's
 * check.  The scenario (migrate.c here) makes the VM, the stream
 * and the dirty log, starts the vCPUs, and prints what is filled here.
 */
#ifndef HOST_SCENARIOS_MIGRATE_SOURCE_H
#define HOST_SCENARIOS_MIGRATE_SOURCE_H

#include "vmm/vmm.h"
#include "kvm/dirty_log.h"
#include "migrate/wire.h"
#include "framework/scenario.h"
#include "framework/dlog_opts.h"

struct mig_params {
	struct dlog_opts dl;	/* --mode, -k, --ring-size, --debug-drop-dirty */
	u64 bandwidth;		/* bytes/s, 0: no cap */
	u32 downtime_ms;
	u32 max_rounds;
	s64 skip;		/* a page never sent (debug), or -1 */
	bool idle;		/* the vCPUs run no loop */
	bool postcopy;		/* --postcopy: switch after postcopy_rounds */
	u32 postcopy_rounds;	/* pre-copy rounds before the switch, 0.. */
	bool flip;		/* --debug-flip-postcopy */
	bool cut;		/* --debug-break-postcopy */
};

/* The post-copy phase's results (postcopy.c). */
struct mig_postcopy {
	u64 pages;		/* the destination lacked them at the switch */
	u64 pulled;		/* asked for on a vCPU's fault, then installed */
	u64 pushed;		/* installed as the source pushed them, unasked */
	u64 faults;		/* userfaultfd faults read (pages x vCPUs) */
	u64 missing;		/* never arrived: named, zero-filled */
	u64 bad;		/* arrived different from the source's: named */
	u64 bytes;		/* its stream */
	double staging_ms;	/* the model's own work at the switch */
	double postcopy_ms;	/* resume until the destination has it all */
	struct mmub_hist pull_ns; /* a pulled page: fault read to installed */
};

struct mig {
	/* results */
	u32 rounds;
	u64 pages_sent, zero_pages, first_harvest;
	double total_ms, downtime_ms, zero_check_ms, wire_mib;
	u64 verified, mismatches;
	/*
	 * The cold pages (mmubench/cold.h) at the destination: by the round
	 * that last sent them (1, a later one, none), and those that differ.
	 */
	u64 cold_pages, cold_first, cold_later, cold_never, cold_differ;
	u64 cold_in_first_harvest;
	struct mig_postcopy pc;
	/* the caller's */
	struct run *run;	/* the post-copy phase goes in it */
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
	u64 *cold;		/* bitmap: the cold pages (vm_cold_pages) */
};

/*
 * Migrate @m->pages test pages at @m->mem over @m->w while @vm's vCPUs
 * run a loop (unless idle): enable logging, the rounds, the vCPUs stopped, the last
 * round, then the destination's hashes against ours.  A differing page
 * is counted in m->mismatches and named on stderr.  0, or -1 if the
 * stream or the VM failed.
 */
int mig_source_run(struct vm *vm, struct mig *m);

/*
 * --postcopy (postcopy.c): the vCPUs stopped after the last harvest, the
 * pages @m->pending the destination lacks; run them where the
 * destination's vCPUs run, pulled on faults and pushed, each checked.
 * 0, or -1 if the stream, the VM or userfaultfd failed (a wrong or
 * missing page is counted in m->mismatches and named, not -1).
 */
int mig_postcopy_run(struct vm *vm, struct mig *m);

#endif
