/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What every scenario reports: phases (a pass, an enable, a zap...) with
 * the guest's per-vCPU results and the kernel's counters before and
 * after, printed as tables and written as one JSON document.
 */
#ifndef HOST_REPORT_H
#define HOST_REPORT_H

#include <jansson.h>
#include "vmm/vmm.h"

/* KVM stats at one instant; vCPU stats summed over the vCPUs. */
struct snap {
	u64 *vm;
	u64 *vcpu;
};

struct phase {
	char name[32];
	struct snap before, after;
	double wall_ms;
	u32 nr_vcpus;
	struct mmub_pass *pass;	/* per vCPU, from the mailboxes */
	struct mmub_hist *lat;	/* per vCPU */
};

/*
 * Every VM and vCPU stat now, into @s (free with snap_free()); a stats
 * file that cannot be read is reported and its values stay 0: -1 then,
 * for a caller whose figures would be wrong with them (else 0).
 */
int snap_take(struct vm *vm, struct snap *s);
void snap_free(struct snap *s);
/* A stat in @s (vCPU side summed if @vcpu); false if the kernel lacks it. */
bool snap_stat(const struct vm *vm, const struct snap *s, bool vcpu,
	       const char *name, u64 *val);
/* Its change from @from to @to; false if the kernel lacks it. */
bool snap_stat_delta(const struct vm *vm, const struct snap *from,
		     const struct snap *to, bool vcpu, const char *name,
		     s64 *delta);
/* Its change over phase @p; false if the kernel lacks it. */
bool phase_stat_delta(const struct vm *vm, const struct phase *p, bool vcpu,
		      const char *name, s64 *delta);
/* The same, or @missing (a value no delta takes) where the kernel lacks it. */
s64 phase_stat_or(const struct vm *vm, const struct phase *p, bool vcpu,
		  const char *name, s64 missing);

void phase_begin(struct vm *vm, struct phase *p, const char *name);
void phase_end(struct vm *vm, struct phase *p, bool guest_results);
void phase_free(struct phase *p);

/* x86: "tdp_mmu", "tdp_legacy" or "shadow"; arm64: "stage2". */
const char *kvm_mmu_kind(void);
const char *vm_mmu_kind(const struct vm_params *p);

/* Guest clock cycles to nanoseconds. */
double cycles_to_ns(const struct vm *vm, u64 cycles);
/*
 * The vCPUs' access latency over phase @p (guest clock cycles), all
 * vCPUs merged into @all; returns their accesses.  Empty without the
 * guest's results.
 */
u64 phase_latency(const struct phase *p, struct mmub_hist *all);
/* A quantile (ppm; 1000000: the max) of such a histogram, in ns; 0 if empty. */
double access_ns(const struct vm *vm, const struct mmub_hist *h, u32 ppm);
/* The same as {p50_us, p99_us, p999_us, max_us}. */
json_t *access_us_json(const struct vm *vm, const struct mmub_hist *h);

/* The first line: the scenario and its VM. */
void report_header(const struct vm_params *c, const char *scenario);
void report_passes(const struct vm *vm, const struct phase *p, u32 n);
void report_stats(const struct vm *vm, const struct phase *p, u32 n);

/* What ran, and where: kernel, CPU, MMU, KVM capabilities and parameters. */
json_t *report_env(const struct vm *vm);
/* Where the boot went, and the host's populate apart: one line. */
void report_boot(const struct vm *vm, u32 index, u32 repeat);
/* The same as JSON members of @run: boot_ms, boot{...}, populate_ms. */
void report_boot_json(const struct vm *vm, json_t *run);
/* The phases: their vCPUs' results and the stats deltas. */
json_t *report_phases(const struct vm *vm, const struct phase *p, u32 n);

#endif
