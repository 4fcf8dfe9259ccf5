/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What a run of nx-recovery measures, in either form: idle (nx_recovery.c,
 * the seed's), where the vCPUs wait while the worker runs, and
 * --under-load (under_load.h), where they keep executing and writing
 * meanwhile; and the worker's ratio knob, which both turn.
 */
#ifndef HOST_SCENARIOS_NX_RECOVERY_NX_RUN_H
#define HOST_SCENARIOS_NX_RECOVERY_NX_RUN_H

#include <stdio.h>
#include "util/util.h"
#include "kvm/params.h"
#include "kvm/probes.h"
#include "framework/scenario.h"

/*
 * --under-load: what the vCPUs saw, and what the kernel did, while they
 * kept executing and writing through the recovery phase.
 */
struct nx_load {
	u64 accesses;
	struct mmub_hist lat;	/* the vCPUs' accesses, guest clock cycles */
	u64 refaults;		/* pf_fixed: mapping again what was zapped */
	u64 splits_end;		/* nx_lpage_splits (ours) at the phase's end */
	bool kprobes;
	char why[200];		/* ... why not */
	struct probe_times pt;
};

struct nx_run {
	bool dirty_logging;
	u64 splits_exec;	/* nx_lpage_splits the workload added */
	u64 splits_left;	/* ... still there when the wait ended */
	double wait_ms;
	double periods;		/* the wait in recovery periods */
	double per_period;	/* splits recovered per period */
	s64 tlb_flushes;	/* flushes the recovery phase asked for */
	s64 tlb_flush_ipis;	/* ... that had to interrupt a running vCPU */
	u32 ptes_per_split;	/* 4K entries a split held; 0: not known */
	u32 ptes_exec;		/* ... as executing mapped them; 0: the model's */
	u64 splits_zapped;	/* ... of which the worker dropped */
	u64 splits_unaccounted;	/* ... and the ones it only unaccounted */
	s64 pages_4k_delta;	/* during the recovery phase */
	s64 pages_2m_delta;
	u64 reexec_faults;	/* pf_fixed while executing again */
	bool worker_found;
	double worker_ms;	/* its runtime over the whole run */
	double worker_recovery_ms;	/* ... over the recovery phase */
	double worker_us_per_split;	/* ... per split it took off its list */
	char worker_why[160];
	struct nx_load *load;	/* --under-load's figures, else NULL */
};

/*
 * Under load the recovery phase lasts this many recovery periods: the
 * worker, woken when let run, runs at their start, then once a period.
 */
#define LOAD_PERIODS	3

/*
 * Let the worker run at @ratio (kvm.nx_huge_pages_recovery_ratio), or
 * park it with 0.  Setting it wakes the worker.
 */
static inline void nx_let_run(u32 ratio)
{
	char why[256], val[32];

	snprintf(val, sizeof(val), "%u", ratio);
	if (kparam_set("nx_huge_pages_recovery_ratio", val, why, sizeof(why)))
		die("nx-recovery: --recovery-ratio: %s", why);
}

#endif
