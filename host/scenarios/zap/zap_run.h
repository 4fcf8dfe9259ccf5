/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Seed 001's invalidation runs, shared by the zap scenario (zap.c) and
 * its --table (zap_table.c): zap_run.c makes one run and its results.
 */
#ifndef HOST_SCENARIOS_ZAP_ZAP_RUN_H
#define HOST_SCENARIOS_ZAP_ZAP_RUN_H

#include "kvm/probes.h"
#include "framework/scenario.h"
#include "framework/dlog_opts.h"

struct zap_opts {
	bool rolling;		/* rolling:SIZE, else same:SIZE */
	u64 size;
	const char *name;	/* the pattern as given, for tables */
	u32 count;		/* --zap-count */
	u32 duration_s;		/* --zap-duration, 0: count only */
	u32 pause_us;		/* --zap-pause */
	bool corrupt;		/* --debug-corrupt-refault */
	bool no_kprobes;	/* --no-kprobes */
	struct dlog_opts dl;	/* --mode, -k, --ring-size, --verify, ... */
};

enum zap_metric {
	ZAP_TOTAL_MS,		/* all madvise calls: the seed's zap_total_ms */
	ZAP_CALL_P50_US,
	ZAP_CALL_P99_US,
	ZAP_CALL_P999_US,
	ZAP_FAULT_P50_US,	/* guest access latency: the fault side */
	ZAP_FAULT_P99_US,
	ZAP_FAULT_P999_US,	/* user space's proxy for fwait_p999_us */
	ZAP_PAGES_PER_S,
	ZAP_KERNEL_TOTAL_MS,	/* kprobes: sum of tdp_mmu_zap_leafs() */
	ZAP_FWAIT_P999_US,	/* kprobes: queued_read_lock_slowpath() */
	/* kprobes: one tdp_mmu_zap_leafs() call, exact over all calls */
	ZAP_KERNEL_P50_US,
	ZAP_KERNEL_IQM_US,	/* the middle half's mean: no outlier moves it */
	ZAP_METRIC_NR,
};

extern const char *const zap_metric_names[ZAP_METRIC_NR];

struct zap_result {
	u32 nr_vcpus;
	u64 calls, bytes;
	double wall_ms, madvise_ms, guest_ms;
	struct mmub_hist madvise_ns;
	struct mmub_hist guest_lat;	/* guest clock cycles */
	u64 clk_hz;
	u64 accesses, zero_reads, violations, zero_lo, zero_hi;
	u64 bad_addr, bad_value;
	s64 corrupt_off;	/* --debug-corrupt-refault's page, -1: none */
	bool kprobes;		/* probe times below are valid */
	struct probe_times pt;
};

/* A zap run's part: run_hooks.arg of zap_once(). */
struct zap_ctx {
	const struct zap_opts *zo;
	struct zap_result z;
	bool print;
};

/*
 * run_hooks.once: populate, then invalidate while the vCPUs write; the
 * results in the run.  -1 after saying why, an integrity violation too.
 */
int zap_once(struct vm *vm, struct run *r, u32 index, void *arg);
/* The guest checks every refault: zeros, or its data on shared memory. */
void zap_shape(struct vm_params *p);
double zap_metric(const struct zap_result *z, enum zap_metric m);
void zap_print(const struct zap_opts *zo, enum backing_type backing,
	       const struct zap_result *z);
/* Parse "same:16m", "rolling:4m" or a seed name (same16, c4, ...). */
int zap_parse_pattern(struct zap_opts *zo, const char *s);
/* Why the pattern cannot run on @total bytes of @backing, or NULL. */
const char *zap_unfit(const struct zap_opts *zo, enum backing_type backing,
		      u64 total);
/* The kprobe line of every zap header, where probes are off or missing. */
void zap_say_probes(const struct zap_opts *zo);

#endif
