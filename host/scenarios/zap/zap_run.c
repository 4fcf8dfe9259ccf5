// SPDX-License-Identifier: GPL-2.0
/*
 * One run of seed 001's experiment: every vCPU keeps faulting and writing
 * its slice while the host invalidates guest memory with MADV_DONTNEED,
 * the same range again and again (same:SIZE) or consecutive chunks across
 * the whole memory (rolling:SIZE).  Reported: madvise latency per call
 * (the zap as user space sees it, on any kernel), the guest's access
 * latency and throughput meanwhile (the fault side), KVM's counters, and
 * the guest's check of every refault: zeros for private memory, its own
 * data for shared memory.  With --dirty-log, a harvest follows every
 * invalidation (zap_log.c).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include "util/util.h"
#include "results/json.h"
#include "scenarios/zap/zap_log.h"
#include "scenarios/zap/zap_run.h"

/* Where invalidation number @k lands. */
static u64 zap_offset(const struct zap_opts *zo, u64 total, u64 k)
{
	if (!zo->rolling)
		return 0;
	return (k * zo->size) % (total - total % zo->size);
}

/*
 * --debug-corrupt-refault: after the last invalidation, a word no vCPU
 * wrote where the guest's check reads, at the first page of the range
 * just invalidated: what a kernel that mapped a stale or foreign page
 * there would show.  settle() then runs every vCPU through two more
 * passes, so the page's owner reads it and the run must fail on it.
 */
#define ZAP_FOREIGN_WORD	0xbadbadbadbadbad0ULL

static void corrupt_refault(struct vm *vm, u64 off, struct zap_result *z)
{
	char where[64];

	*(volatile u64 *)(vm->test.hva + off) = ZAP_FOREIGN_WORD;
	z->corrupt_off = (s64)off;
	vm_test_page_where(vm, off / MMUB_SZ_4K, where, sizeof(where));
	err_msg("--debug-corrupt-refault: wrote 0x%llx at 0x%llx (%s) after "
		"the last invalidation, on purpose",
		(unsigned long long)ZAP_FOREIGN_WORD,
		(unsigned long long)(vm->layout.test_gpa + off), where);
}

/* The corrupted page must be the one the guest's check names; say if not. */
static void corrupt_check(const struct vm *vm, const struct zap_result *z)
{
	if (z->corrupt_off < 0)
		return;
	if (z->violations &&
	    z->bad_addr == vm->layout.test_gpa + (u64)z->corrupt_off &&
	    z->bad_value == ZAP_FOREIGN_WORD)
		return;
	err_msg("--debug-corrupt-refault: the guest's check did not name the "
		"page corrupted at 0x%llx (%llu violations)",
		(unsigned long long)(vm->layout.test_gpa + (u64)z->corrupt_off),
		(unsigned long long)z->violations);
}

static int invalidate(struct vm *vm, const struct zap_opts *zo,
		      struct zap_result *z, struct zap_log *l)
{
	u64 total = vm->test.size, k, off = 0;
	double start = now_ms(), t;

	for (k = 0; k < zo->count || zo->duration_s; k++) {
		if (zo->duration_s && now_ms() - start > zo->duration_s * 1e3)
			break;
		off = zap_offset(zo, total, k);
		t = now_ms();
		if (madvise(vm->test.hva + off, zo->size, MADV_DONTNEED))
			die("--zap: madvise(MADV_DONTNEED) at offset %llu: %m",
			    (unsigned long long)off);
		t = now_ms() - t;
		mmub_hist_add(&z->madvise_ns, (u64)(t * 1e6));
		z->madvise_ms += t;
		z->bytes += zo->size;
		if (vm_check(vm) || (l && zap_log_round(l, vm)))
			return -1;
		if (zo->pause_us)
			usleep(zo->pause_us);
	}
	z->calls = k;
	z->wall_ms = now_ms() - start;
	if (zo->corrupt && k)
		corrupt_refault(vm, off, z);
	return 0;
}

/*
 * Invalidations can finish before the vCPUs come back to the memory they
 * hit; keep them writing until each has done a whole pass after the last
 * one, so every invalidated page is refaulted (and checked) at least once.
 */
static int settle(struct vm *vm)
{
	return vm_wait_passes(vm, 2, "finishing a pass after the "
			      "invalidations");
}

/* What the guest saw while memory went away under it. */
static void zap_collect(struct vm *vm, const struct phase *p,
			struct zap_result *z)
{
	struct mmub_hist *all = &z->guest_lat;
	u64 longest = 0;

	mmub_hist_reset(all);
	z->zero_lo = ~0ULL;
	for (u32 i = 0; i < p->nr_vcpus; i++) {
		const struct mmub_pass *r = &p->pass[i];

		mmub_hist_merge(all, &p->lat[i]);
		z->accesses += r->accesses;
		z->zero_reads += r->zero_reads;
		z->violations += r->violations;
		if (r->zero_reads)
			z->zero_lo = mmub_min(z->zero_lo, r->zero_lo);
		z->zero_hi = mmub_max(z->zero_hi, r->zero_hi);
		if (r->violations && !z->bad_addr) {
			z->bad_addr = r->bad_addr;
			z->bad_value = r->bad_value;
		}
		longest = mmub_max(longest, r->clk_end - r->clk_start);
	}
	if (!z->zero_reads)
		z->zero_lo = 0;
	z->guest_ms = cycles_to_ns(vm, longest) / 1e6;
	z->clk_hz = vm->bi->clk_hz;
}

static double lat_us(const struct zap_result *z, u32 ppm)
{
	u64 c = mmub_hist_quantile(&z->guest_lat, ppm);

	return z->clk_hz ? (double)c * 1e6 / (double)z->clk_hz : 0;
}

double zap_metric(const struct zap_result *z, enum zap_metric m)
{
	switch (m) {
	case ZAP_TOTAL_MS:
		return z->madvise_ms;
	case ZAP_CALL_P50_US:
		return mmub_hist_quantile(&z->madvise_ns, 500000) / 1e3;
	case ZAP_CALL_P99_US:
		return mmub_hist_quantile(&z->madvise_ns, 990000) / 1e3;
	case ZAP_CALL_P999_US:
		return mmub_hist_quantile(&z->madvise_ns, 999000) / 1e3;
	case ZAP_FAULT_P50_US:
		return lat_us(z, 500000);
	case ZAP_FAULT_P99_US:
		return lat_us(z, 990000);
	case ZAP_FAULT_P999_US:
		return lat_us(z, 999000);
	case ZAP_PAGES_PER_S:
		return z->guest_ms > 0 ?
		       z->accesses / (z->guest_ms / 1e3) / z->nr_vcpus : 0;
	case ZAP_KERNEL_TOTAL_MS:
		return z->kprobes ? z->pt.zap.sum / 1e6 : NAN;
	case ZAP_FWAIT_P999_US:
		return z->kprobes ?
		       mmub_hist_quantile(&z->pt.lock_wait, 999000) / 1e3 : NAN;
	case ZAP_KERNEL_P50_US:
		return z->kprobes ? z->pt.zap_p50_ns / 1e3 : NAN;
	case ZAP_KERNEL_IQM_US:
		return z->kprobes ? z->pt.zap_iqm_ns / 1e3 : NAN;
	default:
		return 0;
	}
}

const char *const zap_metric_names[ZAP_METRIC_NR] = {
	[ZAP_TOTAL_MS] = "zap_total_ms",
	[ZAP_CALL_P50_US] = "madvise_p50_us",
	[ZAP_CALL_P99_US] = "madvise_p99_us",
	[ZAP_CALL_P999_US] = "madvise_p999_us",
	[ZAP_FAULT_P50_US] = "fault_p50_us",
	[ZAP_FAULT_P99_US] = "fault_p99_us",
	[ZAP_FAULT_P999_US] = "fault_p999_us",
	[ZAP_PAGES_PER_S] = "pages_per_s_per_vcpu",
	[ZAP_KERNEL_TOTAL_MS] = "kernel_zap_total_ms",
	/*
	 * Seed 001's name: the p99.9 of the vCPUs' waits for mmu_lock, which
	 * the seed timed with perf probes on queued_read_lock_slowpath().
	 * Documents before it called this kernel_fwait_p999_us.
	 */
	[ZAP_FWAIT_P999_US] = "fwait_p999_us",
	[ZAP_KERNEL_P50_US] = "kernel_zap_p50_us",
	[ZAP_KERNEL_IQM_US] = "kernel_zap_iqm_us",
};

static json_t *zap_json(const struct zap_opts *zo, const struct zap_result *z)
{
	json_t *j = json_object();

	jset(j, "pattern", json_string(zo->name));
	jset(j, "calls", json_integer((json_int_t)z->calls));
	jset(j, "bytes", json_integer((json_int_t)z->bytes));
	jset(j, "wall_ms", jnum(z->wall_ms));
	for (u32 m = 0; m < ZAP_METRIC_NR; m++)
		jset(j, zap_metric_names[m], jnum(zap_metric(z, m)));
	jset(j, "guest_accesses", json_integer((json_int_t)z->accesses));
	jset(j, "refaults_zero", json_integer((json_int_t)z->zero_reads));
	jset(j, "zero_lo", json_integer((json_int_t)z->zero_lo));
	jset(j, "zero_hi", json_integer((json_int_t)z->zero_hi));
	jset(j, "integrity_violations", json_integer((json_int_t)z->violations));
	if (z->kprobes && z->pt.tables_freed >= 0)
		jset(j, "kernel_tables_freed",
		     json_integer((json_int_t)z->pt.tables_freed));
	if (z->kprobes)
		jset(j, "kernel_zap_calls",
		     json_integer((json_int_t)z->pt.zap_calls));
	return j;
}

void zap_print(const struct zap_opts *zo, enum backing_type backing,
	       const struct zap_result *z)
{
	char a[32], b[32];

	printf("  %s: %llu madvise calls of %s in %.0f ms\n", zo->name,
	       (unsigned long long)z->calls,
	       fmt_size(zo->size, a, sizeof(a)), z->wall_ms);
	/* Everything the invalidator does besides madvise itself. */
	if (z->madvise_ms > 0 && !zo->pause_us && !zo->dl.mode)
		printf("  invalidator overhead: %.2f %% of the madvise time "
		       "(target < 2 %%)\n",
		       100 * (z->wall_ms - z->madvise_ms) / z->madvise_ms);
	printf("  zap (madvise, user space): total %.2f ms, p50 %.1f us, "
	       "p99 %.1f us, p99.9 %.1f us\n", zap_metric(z, ZAP_TOTAL_MS),
	       zap_metric(z, ZAP_CALL_P50_US), zap_metric(z, ZAP_CALL_P99_US),
	       zap_metric(z, ZAP_CALL_P999_US));
	printf("  guest accesses meanwhile: p50 %.2f us, p99 %.2f us, "
	       "p99.9 %.2f us, %.0f pages/s per vCPU\n",
	       zap_metric(z, ZAP_FAULT_P50_US), zap_metric(z, ZAP_FAULT_P99_US),
	       zap_metric(z, ZAP_FAULT_P999_US),
	       zap_metric(z, ZAP_PAGES_PER_S));
	if (z->kprobes)
		printf("  kernel (kprobes): tdp_mmu_zap_leafs %llu calls, %.2f ms"
		       " in all; queued_read_lock_slowpath %llu calls, p99.9 "
		       "%.1f us (fwait_p999_us)\n",
		       (unsigned long long)z->pt.zap_calls,
		       zap_metric(z, ZAP_KERNEL_TOTAL_MS),
		       (unsigned long long)z->pt.lock_calls,
		       zap_metric(z, ZAP_FWAIT_P999_US));
	if (z->kprobes)
		printf("  kernel (kprobes): a tdp_mmu_zap_leafs call: median %.1f "
		       "us, interquartile mean %.1f us\n",
		       zap_metric(z, ZAP_KERNEL_P50_US),
		       zap_metric(z, ZAP_KERNEL_IQM_US));
	if (z->kprobes && z->pt.tables_freed >= 0)
		printf("  kernel (kprobes): %lld TDP MMU page tables freed "
		       "during the zaps\n", (long long)z->pt.tables_freed);
	printf("  refaults the guest saw: %llu zero pages in [%s, %s]; "
	       "integrity violations: %llu\n",
	       (unsigned long long)z->zero_reads,
	       fmt_size(z->zero_lo, a, sizeof(a)),
	       fmt_size(z->zero_hi ? z->zero_hi + MMUB_SZ_4K : 0, b,
			sizeof(b)),
	       (unsigned long long)z->violations);
	if (z->violations)
		err_msg("integrity: the guest found 0x%llx at 0x%llx after an "
			"invalidation (%s memory must read %s)",
			(unsigned long long)z->bad_value,
			(unsigned long long)z->bad_addr,
			backing_is_file(backing) ? "shared" : "private",
			backing_is_file(backing) ? "its data" :
			"zeros or its data");
}

/* Invalidate while the vCPUs write, harvesting after each with @l. */
static int zap_phase(struct vm *vm, struct run *r, struct zap_ctx *x,
		     struct zap_log *l)
{
	struct zap_result *z = &x->z;
	struct phase *p;
	char why[200];
	int ret;

	p = run_phase_begin(vm, r, "zap");
	z->kprobes = !x->zo->no_kprobes && !probes_start(why, sizeof(why));
	ret = vm_post(vm, MMUB_CMD_LOOP, 1);
	if (l && !ret)
		zap_log_writing(l);
	ret = ret || invalidate(vm, x->zo, z, l) || settle(vm) ||
	      vm_stop_loop(vm) || (l && zap_log_stop(l, vm));
	if (z->kprobes)
		z->kprobes = !probes_stop(&z->pt);
	phase_end(vm, p, !ret);
	if (!ret)
		zap_collect(vm, p, z);
	return ret ? -1 : 0;
}

static void zap_log_missed(const struct vm *vm, const struct zap_log *l)
{
	char where[64];

	if (!l->dl->verify || !l->o.missed)
		return;
	vm_test_page_where(vm, l->o.first_missed, where, sizeof(where));
	err_msg("--verify: %llu page%s missed, first %s",
		(unsigned long long)l->o.missed, l->o.missed > 1 ? "s" : "",
		where);
}

int zap_once(struct vm *vm, struct run *r, u32 index, void *arg)
{
	struct zap_ctx *x = arg;
	struct zap_result *z = &x->z;
	struct zap_log l = { .dl = &x->zo->dl };
	int ret;

	(void)index;
	memset(z, 0, sizeof(*z));
	z->corrupt_off = -1;
	z->nr_vcpus = vm->p.nr_vcpus;
	mmub_hist_reset(&z->madvise_ns);
	if (run_pass(vm, r, "populate", 0))
		return -1;
	ret = l.dl->mode ? zap_log_start(&l, vm) : 0;
	if (!ret)
		ret = zap_phase(vm, r, x, l.dl->mode ? &l : NULL);
	if (!ret) {
		json_t *j = zap_json(x->zo, z);

		if (l.dl->mode)
			jset(j, "dirty_log", zap_log_json(&l));
		jset(r->json, "zap", j);
		if (x->print || z->violations)
			zap_print(x->zo, vm->p.backing, z);
		if (l.dl->mode && x->print)
			zap_log_print(&l);
	}
	if (l.dl->mode) {
		zap_log_missed(vm, &l);
		if (dlog_opts_drops(l.dl) &&
		    oracle_drop_unseen(&l.o, &l.d, l.dl->drop))
			ret = -1;
		zap_log_free(&l, vm);
	}
	if (!ret && x->zo->corrupt)
		corrupt_check(vm, z);
	/* Corrupted on purpose: caught or not, the run failed. */
	return ret || z->violations || x->zo->corrupt ? -1 : 0;
}

void zap_shape(struct vm_params *p)
{
	p->wl.flags |= MMUB_WL_CHECK;
	if (backing_is_file(p->backing))
		p->wl.flags |= MMUB_WL_KEEP;
}

void zap_say_probes(const struct zap_opts *zo)
{
	char why[200];

	if (zo->no_kprobes)
		printf("kernel probes: off (--no-kprobes); zap and fault-side "
		       "figures are user-space proxies\n");
	else if (probes_status(why, sizeof(why)))
		printf("kernel probes: unavailable (%s); zap and fault-side "
		       "figures are user-space proxies\n", why);
}
int zap_parse_pattern(struct zap_opts *zo, const char *s)
{
	u64 size;

	if (!strncmp(s, "same:", 5) && !mmub_parse_size(s + 5, &size)) {
		zo->rolling = false;
	} else if (!strncmp(s, "rolling:", 8) &&
		   !mmub_parse_size(s + 8, &size)) {
		zo->rolling = true;
	} else if (!strncmp(s, "same", 4) && s[4] &&
		   !mmub_parse_size(s + 4, &size)) {
		/* The seed's names: same16 = 16 MiB, c4 = rolling 4 MiB. */
		size *= MMUB_MIB;
		zo->rolling = false;
	} else if (s[0] == 'c' && s[1] && !mmub_parse_size(s + 1, &size)) {
		size *= MMUB_MIB;
		zo->rolling = true;
	} else {
		return -1;
	}
	if (!size)
		return -1;
	zo->size = size;
	zo->name = s;
	return 0;
}

/* The pattern must fit the memory and be whole pages of the backing. */
const char *zap_unfit(const struct zap_opts *zo, enum backing_type backing,
		      u64 total)
{
	static char why[200];
	/* MADV_DONTNEED splits a THP, but hugetlb takes whole pages only. */
	u64 unit = backing == BACKING_ANONYMOUS_THP ? MMUB_SZ_4K :
		   backing_page_size(backing);
	char a[32], b[32];

	if (zo->size > total)
		snprintf(why, sizeof(why), "%s is larger than the %s of test "
			 "memory", fmt_size(zo->size, a, sizeof(a)),
			 fmt_size(total, b, sizeof(b)));
	else if (zo->size % unit)
		snprintf(why, sizeof(why), "%s is not a multiple of the %s "
			 "page (accepted: multiples of %s)",
			 fmt_size(zo->size, a, sizeof(a)),
			 backing_names[backing],
			 fmt_size(unit, b, sizeof(b)));
	else
		return NULL;
	return why;
}
