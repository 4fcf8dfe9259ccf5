/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Kernel-side timing with kprobes, for the kernels that allow it: the
 * seed timed tdp_mmu_zap_leafs() and queued_read_lock_slowpath() this
 * way.  Where the kernel does not (no kprobe events, lockdown, the symbol
 * is inlined), the scenarios say so once and report user-space proxies.
 * Kept apart from the scenarios so that every one can use it.
 */
#ifndef HOST_KVM_PROBES_H
#define HOST_KVM_PROBES_H

#include <stdbool.h>
#include <stddef.h>
#include <mmubench/histogram.h>

/* 0 if kprobe events can be placed at all; else -1 and the reason. */
int probes_tracefs_status(char *why, size_t len);
/* The same, and the TDP MMU's leaf zap is there to probe (zap's set). */
int probes_status(char *why, size_t len);
/* Is @sym a function of the running kernel (not inlined away)? */
bool probes_have_symbol(const char *sym);
/* Does /proc/kallsyms text @text name @sym, as a whole word? */
bool probes_kallsyms_has(const char *text, const char *sym);

/*
 * A set of kprobe events, for any scenario: each one "name" in the trace,
 * placed by its kprobe_events line ("p:mmub/name symbol", "r:..." for
 * the return).  probes_trace_start() places them (the first @required
 * must be, the others where they exist) and enables them in a tracing
 * instance of mmubench's own; probes_trace_stop() returns the trace
 * text (to free; NULL if unreadable), with the ns a timestamp unit is,
 * for probes_parse(), and removes everything.  Every probe and the
 * instance are undone on every way out (util/cleanup.h) meanwhile.
 */
struct probe_def {
	const char *name;
	const char *def;
};

int probes_trace_start(const struct probe_def *defs, u32 n, u32 required,
		       char *why, size_t len);
/* Was the @i-th probe of the set placed? */
bool probes_trace_placed(u32 i);
char *probes_trace_stop(double *ns_per_unit);

/*
 * Time the TDP MMU's leaf zap and the fault side's wait for mmu_lock
 * (probes_start(), zap's set), or both rwlock slow paths and the NX
 * recovery worker's zaps (probes_start_nx()), until probes_stop(),
 * with kprobe/kretprobe pairs in tracefs.  Durations are in ns; a
 * figure of the other set is 0, or -1 where it says so.
 */
struct probe_times {
	struct mmub_hist zap;
	struct mmub_hist lock_wait;
	u64 zap_calls, lock_calls;
	/*
	 * The write side (queued_write_lock_slowpath): a writer, such as the
	 * NX recovery worker, waiting for the readers (vCPU faults) to leave
	 * mmu_lock.  write_calls -1 if the probe could not be placed.
	 */
	struct mmub_hist write_wait;
	s64 write_calls;
	/*
	 * kvm_tdp_mmu_zap_sp() calls: the NX recovery worker zapping one
	 * split huge page (its only caller in 6.1 and 6.12).  -1 if the
	 * probe could not be placed.
	 */
	s64 sp_zaps;
	/*
	 * TDP MMU page tables freed (tdp_mmu_free_sp_rcu_callback runs once
	 * per table, after its RCU grace period): seed 001's patch makes
	 * same-range zaps free the emptied leaf tables.  -1 if the probe
	 * could not be placed.
	 */
	s64 tables_freed;
	/*
	 * Every zap call's duration, exactly (the histogram's buckets are
	 * 1/16 of an octave wide, too coarse for a change of a few per
	 * cent): the median, and the interquartile mean, the mean of the
	 * middle half, which a preempted call or two cannot move.  In ns.
	 */
	double zap_p50_ns, zap_iqm_ns;
};

int probes_start(char *why, size_t len);
int probes_start_nx(char *why, size_t len);
int probes_stop(struct probe_times *t);

/* Durations (ns) as found, when each one is wanted. */
struct probe_durations {
	u64 *ns;
	size_t n, cap;
};

/*
 * Pair "<task>-<pid> [cpu] ... <secs>: <entry>:" lines with the next
 * "<exit>:" line of the same pid, in ftrace's or perf script's text
 * format, adding each duration (ns) to @h, and to @all unless NULL (a
 * duration that finds no memory there is left out of @all only).
 * @ns_per_unit turns the timestamps into ns: 1e9 for ftrace's seconds,
 * the ns a cycle for x86-tsc's counts.  Returns the pairs found.
 */
u64 probes_parse(const char *text, const char *entry, const char *exit_ev,
		 double ns_per_unit, struct mmub_hist *h,
		 struct probe_durations *all);

/*
 * The same pairs, of task @pid only (-1: any): @fn gets, for each, the
 * text after each line's event name (the probe's fetched arguments,
 * "start=0x100 end=0x101", "(... <- f) ret=0x1") and its duration in
 * ns.  Returns the pairs found.
 */
typedef void (*probe_pair_fn)(const char *entry_args, const char *exit_args,
			      u64 ns, void *arg);
u64 probes_pairs(const char *text, const char *entry, const char *exit_ev,
		 long pid, double ns_per_unit, probe_pair_fn fn, void *arg);

/*
 * The exact median and interquartile mean of @d (sorted in place); NaN
 * for none.  Frees nothing: the caller owns @d->ns.
 */
void probes_middle(struct probe_durations *d, double *p50, double *iqm);

/* Lines of @event in trace text (ftrace or perf script format). */
u64 probes_count(const char *text, const char *event);

#endif
