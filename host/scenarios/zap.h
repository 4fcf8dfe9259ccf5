/* SPDX-License-Identifier: GPL-2.0 */
/* The zap scenario's results, shared by zap.c and zap_table.c. */
#ifndef HOST_SCENARIOS_ZAP_H
#define HOST_SCENARIOS_ZAP_H

#include "../report.h"
#include "../kernel/probes.h"

enum zap_metric {
	ZAP_TOTAL_MS,		/* all madvise calls: the seed's zap_total_ms */
	ZAP_CALL_P50_US,
	ZAP_CALL_P99_US,
	ZAP_CALL_P999_US,
	ZAP_FAULT_P50_US,	/* guest access latency: the fault side */
	ZAP_FAULT_P99_US,
	ZAP_FAULT_P999_US,	/* the proxy for the seed's fwait_p999_us */
	ZAP_PAGES_PER_S,
	ZAP_KERNEL_TOTAL_MS,	/* kprobes: sum of tdp_mmu_zap_leafs() */
	ZAP_KERNEL_FWAIT_P999_US, /* kprobes: queued_read_lock_slowpath() */
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
	bool kprobes;		/* probe times below are valid */
	struct probe_times pt;
};

int zap_run_once(const struct run_config *cfg, struct zap_result *z,
		 struct json *j, bool *json_open, bool print);
/* Why the pattern cannot run on @total bytes of this backing, or NULL. */
const char *zap_unfit(const struct run_config *cfg, u64 total);
void zap_collect(struct vm *vm, const struct phase *p, struct zap_result *z);
double zap_metric(const struct zap_result *z, enum zap_metric m);
void zap_json(struct json *j, const struct run_config *cfg,
	      const struct zap_result *z);
void zap_print(const struct run_config *cfg, const struct zap_result *z);
/* Parse "same:16m", "rolling:4m" or a seed name (same16, c4, ...). */
int zap_parse_pattern(struct run_config *cfg, const char *s);
int zap_table(const struct run_config *cfg);

#endif
