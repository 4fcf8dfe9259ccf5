// SPDX-License-Identifier: GPL-2.0
/*
 * nx-recovery --under-load: after a pass that takes logging's write
 * faults, the vCPUs loop over the same code, executing and writing in
 * the 4K page after each instruction, while the recovery worker runs for
 * LOAD_PERIODS periods.  What they saw (access latency, refaults), what
 * the worker did (its zaps, counted by a kprobe, since the vCPUs re-map
 * and re-split meanwhile and the counters net both sides), and the waits
 * for mmu_lock on either side.  The idle form is nx_recovery.c's.
 */
#include <string.h>
#include <unistd.h>
#include "results/json.h"
#include "scenarios/nx_recovery/under_load.h"

/*
 * The vCPUs write in the 4K page after each instruction
 * (MMUB_WL_EXEC_WRITE), and their latency is one of its figures.
 */
void nx_validate_load(struct vm_params *p, bool wait_given)
{
	if (wait_given)
		die("--recovery-wait: not with --under-load, whose recovery "
		    "phase lasts %u recovery periods", LOAD_PERIODS);
	if (p->wl.stride < 2 * MMUB_SZ_4K)
		die("--under-load: needs a stride (--touch) of 8K or more: the "
		    "vCPUs write in the 4K page after each instruction");
	if (!(p->wl.flags & MMUB_WL_LATENCY))
		die("--under-load: not with --no-latency: the vCPUs' access "
		    "latency is one of its figures");
	p->wl.flags |= MMUB_WL_EXEC_WRITE;
}

/*
 * The recovery phase: kprobes time the waits for mmu_lock on both sides
 * and count the worker's zaps meanwhile.
 */
int nx_load_recovery(struct vm *vm, struct nx_run *r, struct phase *rec,
		     u32 period_ms, u32 ratio)
{
	struct nx_load *l = r->load;
	double t0, len = LOAD_PERIODS * (double)period_ms;
	int ret;

	l->kprobes = !probes_start_nx(l->why, sizeof(l->why));
	ret = vm_post(vm, MMUB_CMD_LOOP, 2);
	t0 = now_ms();
	if (!ret)
		nx_let_run(ratio);
	while (!ret && now_ms() - t0 < len) {
		usleep(10000);
		ret = vm_check(vm);
	}
	nx_let_run(0);
	r->wait_ms = now_ms() - t0;
	ret = ret || vm_stop_loop(vm);
	/* The phase ends here: reading the trace takes seconds nested. */
	phase_end(vm, rec, !ret);
	if (l->kprobes && probes_stop(&l->pt)) {
		l->kprobes = false;
		snprintf(l->why, sizeof(l->why), "reading the trace failed");
	}
	return ret ? -1 : 0;
}

/* What the vCPUs did meanwhile, and the splits left at the end. */
void nx_load_collect(const struct vm *vm, const struct phase *rec,
		     struct nx_load *l, u64 base)
{
	u64 end = 0;

	snap_stat(vm, &rec->after, false, "nx_lpage_splits", &end);
	l->accesses = phase_latency(rec, &l->lat);
	l->refaults = (u64)phase_stat_or(vm, rec, true, "pf_fixed", 0);
	l->splits_end = end > base ? end - base : 0;
}

json_t *nx_load_json(const struct vm *vm, const struct nx_load *l)
{
	const struct mmub_hist *h = &l->lat;
	json_t *j = json_object();

	jset(j, "periods", json_integer(LOAD_PERIODS));
	jset(j, "accesses", json_integer((json_int_t)l->accesses));
	jset(j, "access_latency", access_us_json(vm, h));
	jset(j, "vcpu_refaults", json_integer((json_int_t)l->refaults));
	jset(j, "splits_at_end", json_integer((json_int_t)l->splits_end));
	if (!l->kprobes) {
		jset(j, "kprobes_unavailable", json_string(l->why));
		return j;
	}
	jset(j, "lock_wait", hist_calls_json(&l->pt.lock_wait));
	if (l->pt.write_calls >= 0)
		jset(j, "write_wait", hist_calls_json(&l->pt.write_wait));
	if (l->pt.sp_zaps >= 0)
		jset(j, "worker_sp_zaps", json_integer(l->pt.sp_zaps));
	return j;
}

static void print_wait(const char *what, const struct mmub_hist *h)
{
	printf("  mmu_lock %s: %llu, %.3f ms in all, p50 %.1f us, p99 %.1f "
	       "us, p99.9 %.1f us, max %.1f us\n", what,
	       (unsigned long long)h->count, h->sum / 1e6,
	       hist_us(h, 500000), hist_us(h, 990000), hist_us(h, 999000),
	       hist_us(h, 1000000));
}

void nx_print_load(const struct vm *vm, const struct nx_run *r)
{
	const struct nx_load *l = r->load;
	const struct mmub_hist *h = &l->lat;

	printf("  under load: the vCPUs executed and wrote through %u "
	       "recovery periods (%.0f ms): %llu accesses, p50 %.2f us, p99 "
	       "%.2f us, p99.9 %.2f us, max %.1f us\n", LOAD_PERIODS,
	       r->wait_ms, (unsigned long long)l->accesses,
	       access_ns(vm, h, 500000) / 1e3, access_ns(vm, h, 990000) / 1e3,
	       access_ns(vm, h, 999000) / 1e3, access_ns(vm, h, 1000000) / 1e3);
	printf("  nx_lpage_splits from executing: %llu; at the end: %llu "
	       "(split again by the vCPUs, not yet recovered again)\n",
	       (unsigned long long)r->splits_exec,
	       (unsigned long long)l->splits_end);
	printf("  meanwhile the vCPUs faulted %llu times (pf_fixed: mapping "
	       "again what the worker zapped); pages_4k changed by %lld, "
	       "pages_2m by %lld (the worker's and the vCPUs', net)\n",
	       (unsigned long long)l->refaults, (long long)r->pages_4k_delta,
	       (long long)r->pages_2m_delta);
	printf("  TLB flushes: %lld asked, %lld interrupting a running vCPU\n",
	       (long long)r->tlb_flushes, (long long)r->tlb_flush_ipis);
	if (!l->kprobes) {
		printf("  kernel probes: unavailable (%s)\n", l->why);
		return;
	}
	if (l->pt.sp_zaps >= 0)
		printf("  the worker zapped %lld split pages "
		       "(kvm_tdp_mmu_zap_sp calls: a page split again and "
		       "zapped again counts again)\n",
		       (long long)l->pt.sp_zaps);
	print_wait("read waits (queued_read_lock_slowpath: the vCPUs' "
		   "faults)", &l->pt.lock_wait);
	if (l->pt.write_calls >= 0)
		print_wait("write waits (queued_write_lock_slowpath: the "
			   "worker)", &l->pt.write_wait);
}

