// SPDX-License-Identifier: GPL-2.0
/*
 * Scenario "nx-recovery" (seed 002): with kvm.nx_huge_pages on, every
 * huge page the guest executes from is split (nx_lpage_splits), and KVM's
 * recovery worker later zaps those splits so the huge page can come back.
 * While a slot is dirty-logged that zap is wasted work: logging maps at
 * 4K anyway.  The run:
 *
 *   execute     every vCPU calls a RET at each stride (splits appear)
 *   enable      dirty logging on every test slot (-x N, as the seed's 16);
 *               not with --no-dirty-log, the control
 *   recovery    vCPUs idle; the worker, parked until now, is let run
 *               until it has taken the workload's splits off its list
 *               (it unaccounts or zaps each), then parked again
 *               --under-load: a pass first takes logging's write
 *               faults, then the vCPUs keep executing and writing while
 *               the worker runs for LOAD_PERIODS periods: their mmu_lock
 *               waits and access latency meanwhile
 *   re-execute  the same code again: faults only where the worker zapped
 *   disable     dirty logging off
 *
 * The worker's period and ratio are set for the run and restored, as the
 * kernel's nx_huge_pages_test.sh does; its CPU time comes from schedstat,
 * as the seed reported it.  The vCPUs stay idle while the worker runs so
 * that every change to pages_4k in that phase is the worker's; under load
 * they re-map (and, logging off, re-split) what it zaps meanwhile, so the
 * counters net both sides and the worker's zaps are counted by a kprobe
 * (under_load.c).
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "util/util.h"
#include "util/parse.h"
#include "kvm/dirty_log.h"
#include "kvm/nx_worker.h"
#include "kvm/params.h"
#include "results/json.h"
#include "framework/dlog_opts.h"
#include "scenarios/scenarios.h"
#include "scenarios/nx_recovery/nx_run.h"
#include "scenarios/nx_recovery/under_load.h"

static const struct field nx_fields[] = {
	FIELD_AS("dirty_logging", struct nx_run, dirty_logging, FIELD_BOOL, 0, 0),
	FIELD_AS("splits_after_execute", struct nx_run, splits_exec,
		 FIELD_U64, 0, 0),
	FIELD_AS("recovery_wait_ms", struct nx_run, wait_ms, FIELD_DOUBLE, 0, 0),
	FIELD_AS("recovery_tlb_flushes", struct nx_run, tlb_flushes, FIELD_S64,
		 0, 0),
	FIELD_AS("recovery_tlb_flush_ipis", struct nx_run, tlb_flush_ipis,
		 FIELD_S64, 0, 0),
	FIELD_AS("recovery_pages_4k_delta", struct nx_run, pages_4k_delta,
		 FIELD_S64, 0, 0),
	FIELD_AS("recovery_pages_2m_delta", struct nx_run, pages_2m_delta,
		 FIELD_S64, 0, 0),
	FIELD_AS("reexecute_pf_fixed", struct nx_run, reexec_faults,
		 FIELD_U64, 0, 0),
	{ NULL },
};

/*
 * The idle form's: the splits left, and the worker's pace.  Under load
 * the vCPUs put splits back as the worker takes them (logging off), so
 * neither is the worker's alone.
 */
static const struct field idle_fields[] = {
	FIELD(struct nx_run, splits_left, FIELD_U64, 0, 0),
	FIELD_AS("recovery_periods", struct nx_run, periods, FIELD_DOUBLE,
		 0, 0),
	FIELD_AS("recovered_per_period", struct nx_run, per_period,
		 FIELD_DOUBLE, 0, 0),
	{ NULL },
};

/* Where a split's size is known (ptes_per_split): zapped or only unaccounted. */
static const struct field split_fields[] = {
	FIELD(struct nx_run, ptes_per_split, FIELD_U32, 0, 0),
	FIELD(struct nx_run, splits_zapped, FIELD_U64, 0, 0),
	FIELD(struct nx_run, splits_unaccounted, FIELD_U64, 0, 0),
	{ NULL },
};

static const struct field worker_fields[] = {
	FIELD(struct nx_run, worker_ms, FIELD_DOUBLE, 0, 0),
	FIELD(struct nx_run, worker_recovery_ms, FIELD_DOUBLE, 0, 0),
	{ NULL },
};

/* Idle form only: under load it also zaps what the vCPUs re-split. */
static const struct field worker_split_fields[] = {
	FIELD(struct nx_run, worker_us_per_split, FIELD_DOUBLE, 0, 0),
	{ NULL },
};
/* A VM stat at @s; 0 where the kernel has none. */
static u64 vm_stat(const struct vm *vm, const struct snap *s, const char *n)
{
	u64 v = 0;

	snap_stat(vm, s, false, n, &v);
	return v;
}

/* A stat's change over @p; 0 where the kernel has none. */
static u64 splits_now(struct vm *vm)
{
	int i = kstats_index(&vm->stats, "nx_lpage_splits");
	u64 *v = calloc(vm->stats.n + 1, sizeof(u64));
	u64 n = 0;

	if (!v)
		die("out of memory");
	if (i >= 0 && !kstats_read(&vm->stats, v))
		n = v[i];
	free(v);
	return n;
}

enum {
	O_MODE = 512, O_PERIOD, O_RATIO, O_WAIT, O_NO_LOG, O_UNDER_LOAD,
};

static const struct opt opts[] = {
	DLOG_OPT_MODE("get"),
	DLOG_OPT_RING,
	{ "recovery-period", O_PERIOD, required_argument, "MS",
	  "kvm.nx_huge_pages_recovery_period_ms, 1..3600000 (1000)" },
	{ "recovery-ratio", O_RATIO, required_argument, "N",
	  "kvm.nx_huge_pages_recovery_ratio, 1..3600; 1 = all at once (1)" },
	{ "recovery-wait", O_WAIT, required_argument, "S",
	  "give up if splits remain after S seconds (30)" },
	{ "no-dirty-log", O_NO_LOG, no_argument, NULL,
	  "the control: logging stays off, so every kernel zaps" },
	{ "under-load", O_UNDER_LOAD, no_argument, NULL,
	  "the vCPUs keep executing and writing while the worker runs "
	  "(3 recovery periods): their mmu_lock waits and access latency" },
	{ NULL },
};

static struct {
	struct dlog_opts dl;
	u32 period_ms, ratio, wait_s;
	bool no_log, under_load, wait_given;
} o = {
	.dl = DLOG_OPTS(DLOG_GET), .period_ms = 1000, .ratio = 1, .wait_s = 30,
};

static void parse(int key, const char *arg)
{
	if (dlog_opts_parse(&o.dl, key, arg))
		return;
	switch (key) {
	case O_PERIOD:
		o.period_ms = (u32)parse_u64("--recovery-period", arg, 1,
					     3600000);
		break;
	case O_RATIO:
		o.ratio = (u32)parse_u64("--recovery-ratio", arg, 1, 3600);
		break;
	case O_WAIT:
		o.wait_s = (u32)parse_u64("--recovery-wait", arg, 1, 86400);
		o.wait_given = true;
		break;
	case O_NO_LOG:
		o.no_log = true;
		break;
	case O_UNDER_LOAD:
		o.under_load = true;
		break;
	}
}

/* The seed's set-up (hugetlb, 2M guest pages, one RET per 2M) by default. */
static void validate(struct common *c)
{
	struct vm_params *p = &c->vm;

	if (p->wl.action != MMUB_ACT_TOUCH)
		die("--debug-action: not with nx-recovery");
	p->wl.action = MMUB_ACT_EXEC;
	if (!(c->given & GIVEN_BACKING))
		p->backing = BACKING_ANONYMOUS_HUGETLB_2MB;
	if (!(c->given & GIVEN_PAGE))
		p->guest_page = MMUB_SZ_2M;
	if (!(c->given & GIVEN_STRIDE))
		p->wl.stride = MMUB_SZ_2M;
	dlog_opts_check(&o.dl, false);
	dlog_opts_apply(&o.dl, p);
	if (o.under_load)
		nx_validate_load(p, o.wait_given);
}

/*
 * Set the worker's knobs for the run (put back on every way out).
 * The ratio starts at 0, which parks the worker: otherwise it would run
 * every period from the VM's creation and could recover the splits before
 * logging is on.  nx_let_run() sets the real one, which wakes it.
 */
static void set_params(void)
{
	char why[256], val[32], cur[32];

	if (kparam_read("nx_huge_pages", cur, sizeof(cur)))
		die("nx-recovery: /sys/module/kvm/parameters/nx_huge_pages "
		    "not found: this kernel's KVM has no NX huge page "
		    "mitigation (x86 only)");
	if (strcmp(cur, "Y") && kparam_set("nx_huge_pages", "force", why,
					   sizeof(why)))
		die("nx-recovery: kvm.nx_huge_pages is %s: %s", cur, why);
	if (kparam_set("nx_huge_pages_recovery_ratio", "0", why, sizeof(why)))
		die("nx-recovery: %s", why);
	snprintf(val, sizeof(val), "%u", o.period_ms);
	if (kparam_set("nx_huge_pages_recovery_period_ms", val, why,
		       sizeof(why)))
		die("nx-recovery: --recovery-period: %s", why);
}

/*
 * Wake the worker and poll until it has taken the test memory's splits
 * off its list (down to the @base the system memory had before the
 * workload ran), then park it again, so that nothing else it does lands
 * in the later phases.
 */
static void wait_recovery(struct vm *vm, struct nx_run *r, u64 base)
{
	double t0 = now_ms(), limit = o.wait_s * 1000.0;
	u64 n;

	nx_let_run(o.ratio);
	while ((n = splits_now(vm)) > base && now_ms() - t0 < limit)
		usleep(10000);
	nx_let_run(0);
	r->wait_ms = now_ms() - t0;
	r->splits_left = n > base ? n - base : 0;
	/*
	 * Each period the worker takes 1/ratio of the splits (rounded up),
	 * however long that takes: per period, not per pass, is what polling
	 * can tell (a pass of many zaps spans several polls).
	 */
	r->periods = r->wait_ms / o.period_ms;
	if (r->periods > 0)
		r->per_period = (r->splits_exec - r->splits_left) /
				r->periods;
}

/*
 * The 4K entries one split held once the workload ran: every stride of a
 * 2M huge page was executed and mapped at 4K.  Not known for 1G backing
 * (a 1G split is one table of 2M entries and 512 of 4K).
 */
static u32 ptes_per_split(const struct vm_params *p)
{
	if (backing_page_size(p->backing) != MMUB_SZ_2M ||
	    p->wl.stride > MMUB_SZ_2M)
		return 0;
	return (u32)(MMUB_SZ_2M / p->wl.stride);
}

/*
 * The 4K entries each split holds, as KVM counted them while executing:
 * 6.1 maps the executed 4K page alone (1 a split at one RET per 2M);
 * later kernels split the huge mapping whole on the NX fault (512), so
 * executing maps 512 a split and a few of the guest's own (8198 for 16
 * splits in 6.12).  512 when it mapped that many, else 0: the workload's
 * own count then holds (ptes_per_split()).
 */
static u32 ptes_executed(const struct vm *vm, const struct phase *ex,
			 u64 splits)
{
	u64 a = vm_stat(vm, &ex->before, "pages_4k");
	u64 b = vm_stat(vm, &ex->after, "pages_4k");

	return splits && b >= a + 512 * splits ? 512 : 0;
}

/*
 * Zapped or unaccounted: both take a split off the worker's list
 * (nx_lpage_splits), only a zap drops its 4K entries (pages_4k), and the
 * vCPUs are idle meanwhile, so every 4K entry dropped is the worker's.
 */
static void split_fate(const struct vm *vm, struct nx_run *r)
{
	u64 dropped, gone = r->splits_exec - r->splits_left;

	r->ptes_per_split = r->ptes_exec ? r->ptes_exec :
			     ptes_per_split(&vm->p);
	if (!r->ptes_per_split)
		return;
	dropped = r->pages_4k_delta < 0 ? (u64)-r->pages_4k_delta : 0;
	r->splits_zapped = (dropped + r->ptes_per_split / 2) /
			   r->ptes_per_split;
	if (r->splits_zapped > gone)
		r->splits_zapped = gone;
	r->splits_unaccounted = gone - r->splits_zapped;
}

/*
 * The worker's CPU time so far in @ms.  A read that fails (the thread is
 * gone) drops every worker figure of the run, with the reason, rather
 * than report a difference taken from a missing value.
 */
static bool worker_read(struct nx_run *r, const struct nx_worker *w,
			double *ms)
{
	u64 ns;

	if (!r->worker_found)
		return false;
	if (nx_worker_runtime(w, &ns, r->worker_why, sizeof(r->worker_why))) {
		r->worker_found = false;
		return false;
	}
	*ms = ns / 1e6;
	return true;
}

/*
 * The worker's time over the recovery phase, begun at @t0, and over the
 * splits it took off its list.  A failed read of @t0 has cleared
 * worker_found, so this one fails too.
 */
static void worker_recovery(struct nx_run *r, const struct nx_worker *w,
			    double t0)
{
	double t1;

	if (!worker_read(r, w, &t1))
		return;
	r->worker_recovery_ms = t1 - t0;
	if (r->splits_exec > r->splits_left)
		r->worker_us_per_split = r->worker_recovery_ms * 1000 /
					 (r->splits_exec - r->splits_left);
}

/* Logging on or off, the phase around it (not with --no-dirty-log). */
static void log_phase(struct vm *vm, struct run *run, struct dlog *d,
		      const char *name, bool on)
{
	struct phase *p = run_phase_begin(vm, run, name);

	if (!o.no_log)
		dlog_enable(d, on);
	run_phase_end(vm, p);
}

/* The recovery phase, idle or under load, and what the stats say of it. */
static int recovery(struct vm *vm, struct run *run, struct nx_run *r,
		    struct nx_worker *w, u64 base)
{
	struct phase *rec;
	double t_rec = 0;

	/*
	 * Under load, a pass first: it takes logging's write faults, so
	 * that the recovery phase's faults are the worker's doing.
	 */
	if (r->load && run_pass(vm, run, "warm", 1))
		return -1;
	worker_read(r, w, &t_rec);
	rec = run_phase_begin(vm, run, "recovery");
	if (r->load) {
		if (nx_load_recovery(vm, r, rec, o.period_ms, o.ratio))
			return -1;
		nx_load_collect(vm, rec, r->load, base);
	} else {
		wait_recovery(vm, r, base);
		run_phase_end(vm, rec);
	}
	worker_recovery(r, w, t_rec);
	r->pages_4k_delta = phase_stat_or(vm, rec, false, "pages_4k", 0);
	r->pages_2m_delta = phase_stat_or(vm, rec, false, "pages_2m", 0);
	/*
	 * remote_tlb_flush counts only the flushes that had to IPI a vCPU in
	 * guest mode on another CPU (none if the vCPU was out of the guest or
	 * on the worker's own CPU); every flush the worker asks for is in
	 * remote_tlb_flush_requests.
	 */
	r->tlb_flushes = phase_stat_or(vm, rec, false,
				       "remote_tlb_flush_requests", 0);
	r->tlb_flush_ipis = phase_stat_or(vm, rec, false, "remote_tlb_flush", 0);
	if (!r->load)
		split_fate(vm, r);
	return 0;
}

static int nx_once(struct vm *vm, struct run *run, struct nx_run *r,
		   struct nx_worker *w, struct dlog *d)
{
	struct phase *ex = &run->ph[0];
	u64 base;

	if (run_pass(vm, run, "execute", 0))
		return -1;
	/* Booting executes from the system memory: those splits are not ours. */
	base = vm_stat(vm, &ex->before, "nx_lpage_splits");
	r->splits_exec = vm_stat(vm, &ex->after, "nx_lpage_splits");
	r->splits_exec = r->splits_exec > base ? r->splits_exec - base : 0;
	if (!r->splits_exec) {
		err_msg("nx-recovery: executing split no huge page "
			"(nx_lpage_splits 0): KVM mapped no huge page to split "
			"(use -s anonymous_thp or a hugetlb backing, and "
			"--guest-page 2m)");
		return -1;
	}
	r->ptes_exec = ptes_executed(vm, ex, r->splits_exec);
	r->worker_found = !nx_worker_find(w, r->worker_why,
					  sizeof(r->worker_why));
	log_phase(vm, run, d, "enable", true);
	if (recovery(vm, run, r, w, base))
		return -1;
	if (run_pass(vm, run, "re-execute", 1))
		return -1;
	r->reexec_faults = (u64)phase_stat_or(vm, &run->ph[run->nph - 1], true,
					      "pf_fixed", 0);
	log_phase(vm, run, d, "disable", false);
	worker_read(r, w, &r->worker_ms);
	if (r->splits_left) {
		err_msg("nx-recovery: %llu of %llu split pages still accounted "
			"after %u s: the recovery worker did not run (see "
			"kvm.nx_huge_pages_recovery_period_ms and _ratio)",
			(unsigned long long)r->splits_left,
			(unsigned long long)r->splits_exec, o.wait_s);
		return -1;
	}
	return 0;
}

static void print_idle(const struct nx_run *r)
{
	printf("  nx_lpage_splits from executing: %llu; the worker took "
	       "them all off its list %.0f ms after it was let run\n",
	       (unsigned long long)r->splits_exec, r->wait_ms);
	printf("  then the worker changed pages_4k by %lld, "
	       "pages_2m by %lld (0: it zapped nothing)\n",
	       (long long)r->pages_4k_delta, (long long)r->pages_2m_delta);
	printf("  the wait: %.1f periods, %.1f splits recovered per period, "
	       "TLB flushes: %lld asked, %lld interrupting a running vCPU\n",
	       r->periods, r->per_period, (long long)r->tlb_flushes,
	       (long long)r->tlb_flush_ipis);
	if (r->ptes_per_split)
		printf("  splits zapped: %llu, unaccounted and kept: %llu "
		       "(%u 4K entries a split)\n",
		       (unsigned long long)r->splits_zapped,
		       (unsigned long long)r->splits_unaccounted,
		       r->ptes_per_split);
}

static void print_run(const struct vm *vm, const struct nx_run *r)
{
	if (r->load)
		nx_print_load(vm, r);
	else
		print_idle(r);
	printf("  executing again afterwards: %llu faults (pf_fixed)\n",
	       (unsigned long long)r->reexec_faults);
	if (r->worker_found && r->load)
		printf("  | kvm-nx-lpage-re:se.sum_exec_runtime | %.6f ms "
		       "(run), %.6f ms (recovery phase) |\n", r->worker_ms,
		       r->worker_recovery_ms);
	else if (r->worker_found)
		printf("  | kvm-nx-lpage-re:se.sum_exec_runtime | %.6f ms "
		       "(run), %.6f ms (recovery phase), %.1f us a split |\n",
		       r->worker_ms, r->worker_recovery_ms,
		       r->worker_us_per_split);
	else
		printf("  worker CPU time: n/a: %s\n", r->worker_why);
}

struct nx_ctx {
	struct nx_worker w;
	struct nx_load load;
};

/* 6.1 starts the worker in KVM_CREATE_VM, later kernels later. */
static void before(void *arg)
{
	struct nx_ctx *x = arg;

	nx_worker_init(&x->w);
}

static int once(struct vm *vm, struct run *run, u32 index, void *arg)
{
	struct nx_ctx *x = arg;
	struct nx_run r = { .dirty_logging = !o.no_log };
	struct dlog d;
	json_t *j;
	int ret;

	(void)index;
	if (o.under_load) {
		memset(&x->load, 0, sizeof(x->load));
		r.load = &x->load;
	}
	dlog_opts_init(&d, vm, &o.dl);
	ret = nx_once(vm, run, &r, &x->w, &d);
	run_dlog_free(&d, vm);
	if (ret)
		return ret;
	print_run(vm, &r);
	report_passes(vm, run->ph, run->nph);
	j = json_object();
	fields_json(j, nx_fields, &r);
	if (!r.load)
		fields_json(j, idle_fields, &r);
	if (r.ptes_per_split && !r.load)
		fields_json(j, split_fields, &r);
	if (r.load)
		jset(j, "under_load", nx_load_json(vm, r.load));
	if (r.worker_found)
		fields_json(j, worker_fields, &r);
	if (r.worker_found && !r.load)
		fields_json(j, worker_split_fields, &r);
	if (!r.worker_found)
		jset(j, "worker_unavailable", json_string(r.worker_why));
	jset(run->json, "nx_recovery", j);
	return 0;
}

static int run(struct common *c)
{
	struct nx_ctx x;
	struct run_hooks h = { .before = before, .once = once, .arg = &x };
	json_t *config = json_object();

	set_params();
	report_header(&c->vm, "nx-recovery");
	printf("kvm.nx_huge_pages on, recovery period %u ms, ratio %u, dirty "
	       "logging %s\n", o.period_ms, o.ratio,
	       o.no_log ? "off (--no-dirty-log)" : dlog_mode_names[o.dl.mode]);
	if (o.under_load)
		printf("under load: the vCPUs execute and write through the "
		       "recovery phase, %u periods\n", LOAD_PERIODS);
	jset(config, "dirty_mode", json_string(dlog_mode_names[o.dl.mode]));
	jset(config, "recovery_period_ms", json_integer(o.period_ms));
	jset(config, "recovery_ratio", json_integer(o.ratio));
	jset(config, "dirty_logging", json_boolean(!o.no_log));
	if (o.under_load)
		jset(config, "under_load", json_true());
	return run_all(c, "nx-recovery", config, &h);
}

/*
 * Seed 002: the worker's CPU time, and what it undid.  The thresholds
 * are a first guess, to check against the A/A noise floor.
 */
static const struct metric_def metrics[] = {
	{ "worker_ms", "results.runs[].nx_recovery.worker_ms", "ms",
	  BETTER_LOWER, 50 },
	{ "worker_recovery_ms", "results.runs[].nx_recovery.worker_recovery_ms",
	  "ms", BETTER_LOWER, 50 },
	{ "recovery_pages_4k_delta",
	  "results.runs[].nx_recovery.recovery_pages_4k_delta", "pages" },
	{ "reexecute_pf_fixed", "results.runs[].nx_recovery.reexecute_pf_fixed",
	  "faults" },
	{ "splits_zapped", "results.runs[].nx_recovery.splits_zapped",
	  "splits" },
	{ "worker_us_per_split",
	  "results.runs[].nx_recovery.worker_us_per_split", "us",
	  BETTER_LOWER },
	/* --under-load's: the vCPUs' side, shown, not judged. */
	{ "load_lock_wait_ms",
	  "results.runs[].nx_recovery.under_load.lock_wait.total_ms", "ms",
	  BETTER_LOWER, 0, true },
	{ "load_lock_wait_p99_us",
	  "results.runs[].nx_recovery.under_load.lock_wait.p99_us", "us",
	  BETTER_LOWER, 0, true },
	{ "load_access_p999_us",
	  "results.runs[].nx_recovery.under_load.access_latency.p999_us", "us",
	  BETTER_LOWER, 0, true },
	{ "load_worker_sp_zaps",
	  "results.runs[].nx_recovery.under_load.worker_sp_zaps", "zaps",
	  BETTER_LOWER, 0, true },
	{ NULL }
};

const struct scenario scenario_nx_recovery = {
	.name = "nx-recovery",
	.brief = "KVM's NX recovery worker on logged slots: zaps, CPU time (x86)",
	.help = "execute (NX huge pages split), enable dirty logging, wait for "
		"KVM's recovery worker: what it zaps, its CPU time (x86)",
	.opts = opts,
	.parse = parse,
	.validate = validate,
	.run = run,
	.metrics = metrics,
};
