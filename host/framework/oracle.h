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
 * Enabling: oracle_live() right after logging went live bumps the epoch
 * once more; a write stamped with an epoch from before it may predate
 * logging and need not be reported, every later one must be.
 *
 * Over-reporting: a page reported although its content did not change
 * since the previous harvest's read is a false positive, unless
 *  - that content carries the previous round's epoch: then a second
 *    write may have landed after that harvest ("raced");
 *  - the vCPUs were writing during the harvest, and by the next round a
 *    write has landed on the page: KVM records a write when it faults,
 *    before the store lands, so a harvest can report a store that the
 *    read after it does not see yet ("in flight").  In those rounds a
 *    false report on a page that is rewritten anyway cannot be told
 *    from this; the rounds at rest (-i) and the pages outside the
 *    working set (--fraction, --ranges) show every false report.
 *  - the page reads as zero after an invalidation (zap): the write that
 *    was reported may have been zapped since ("zapped").
 * The first harvest's false positives are counted apart, as
 * KVM_DIRTY_LOG_INITIALLY_SET reports every page there by design.  The
 * count is exact when each written page has its stamp in its first word
 * (a 4K stride).
 *
 * Pages written once (sentinels, mmubench/sentinel.h): with
 * MMUB_WL_SENTINEL each vCPU writes one chunk of its strides once when it
 * adopts an epoch and leaves them alone while it lasts.  Written before
 * epoch_seen, they must be in that round's harvest: not "this or the
 * next", for a later write cannot refresh them.  A kernel that loses one
 * report and logs the page's next write hides the loss on a rewritten
 * page; on a sentinel it is a miss, named with its window.
 *
 * Cold pages (mmubench/cold.h, MMUB_WL_COLD): one in every 64-page word
 * of the bitmap, written before logging starts (vm_write_cold(), before
 * oracle_init()) and never again, as most memory is in a migration.
 * With KVM_DIRTY_LOG_INITIALLY_SET the first harvest must report each:
 * one it leaves out is a miss, named with its slot, gfn and bitmap word
 * (a migration in that mode would never send it).  In the other modes a
 * cold page reported dirty is a false report, counted and named: it
 * costs a migration a resend and loses nothing.
 *
 * What it cannot see: a page reported in a harvest and written again
 * between that harvest and the read of its content shows the newer value
 * already, so the newer write is not required in the next harvest.  Any
 * oracle that lets the vCPUs run during the harvest has this window.
 */
#ifndef HOST_FRAMEWORK_ORACLE_H
#define HOST_FRAMEWORK_ORACLE_H

#include "vmm/vmm.h"
#include "kvm/dirty_log.h"
#include "results/json.h"

struct oracle {
	struct dlog *d;
	u64 pages;
	u64 *prev;		/* first word of each page at the last look */
	u64 *pending;		/* bitmap: must be in the next harvest */
	u64 *dirty;		/* this round's harvest */
	u64 epoch;		/* this round's */
	u64 last_epoch;		/* the previous round's */
	u64 live_epoch;		/* first epoch surely after logging went live */
	bool zeroes;		/* a page may be invalidated: reads as 0 */
	bool writing;		/* the vCPUs write during the harvests */
	u64 *suspect;		/* reported unchanged while they wrote */
	u64 *sent;		/* this round's sentinels (MMUB_WL_SENTINEL) */
	const struct mmub_workload *wl;
	u64 sentinels;		/* checked: written once in their window */
	u64 rounds;
	u64 missed;
	u64 reported;
	u64 changed;
	u64 before_live;	/* changed by writes that may predate logging */
	u64 zeroed;		/* read as 0 after an invalidation */
	u64 zapped;		/* reported, reads 0: written, then zapped */
	u64 raced;		/* reported again after a write in the window */
	u64 in_flight;		/* reported before the store was seen */
	u64 false_pos;		/* reported, unchanged, nothing to explain it */
	u64 false_pos_max;	/* the most in one harvest */
	u64 first_false_pos;	/* the same, in the first harvest */
	u64 first_missed;	/* page index */
	u64 *cold;		/* bitmap: the cold pages, none without them */
	bool init_set;		/* the first harvest must report them */
	bool first_seen;	/* oracle_first_harvest() done */
	u64 cold_pages;
	u64 cold_required;	/* checked in the first harvest (init-set) */
	u64 cold_missed;	/* of those, not reported */
	u64 cold_false;		/* reported later, or in another mode */
};

/*
 * With the vCPUs idle: what each page holds now is the reference.
 * @zeroes: the test memory is invalidated meanwhile (zap).
 */
void oracle_init(struct oracle *o, struct vm *vm, struct dlog *d,
		 bool zeroes);
/*
 * The workload with write-once pages when it writes at all (@p: the VM's
 * parameters, before it boots): what --verify runs.
 */
void oracle_shape(struct vm_params *p, bool cold);
/* The vCPUs keep writing from now on (@on), or are idle. */
void oracle_writing(struct oracle *o, bool on);
/* Right after logging went live; the vCPUs may be writing. */
int oracle_live(struct oracle *o, struct vm *vm);
/*
 * A first harvest the scenario took itself (@dirty, test pages), before
 * oracle_init(): with init-set every cold page must be in it.  Returns
 * the cold pages missed.
 */
u64 oracle_first_harvest(struct oracle *o, const struct vm *vm,
			 const u64 *dirty);
/* One round; returns the pages missed in it (0 is the only good answer). */
u64 oracle_round(struct oracle *o, struct vm *vm);
/* The two "  verify:" lines of a run's report, and its JSON fields. */
void oracle_print(const struct oracle *o);
extern const struct field oracle_fields[];
/*
 * --debug-drop-dirty @drop (or --debug-drop-cold) must fail the run: true
 * (said why) if no page was dropped, or if the oracle did not catch the
 * one that was.
 */
bool oracle_drop_unseen(const struct oracle *o, const struct dlog *d,
			s64 drop);
void oracle_free(struct oracle *o);

#endif
