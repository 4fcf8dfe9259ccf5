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
 *   re-execute  the same code again: faults only where the worker zapped
 *   disable     dirty logging off
 *
 * The worker's period and ratio are set for the run and restored, as the
 * kernel's nx_huge_pages_test.sh does; its CPU time comes from schedstat,
 * as the seed reported it.  The vCPUs stay idle while the worker runs so
 * that every change to pages_4k in that phase is the worker's.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "../kernel/nx_worker.h"
#include "../kernel/params.h"
#include "../report.h"
#include "scenarios.h"

enum { PH_EXEC, PH_ENABLE, PH_RECOVERY, PH_REEXEC, PH_DISABLE, PH_NR };

static const char *const phase_names[PH_NR] = {
	"execute", "enable", "recovery", "re-execute", "disable",
};

struct nx_run {
	u64 splits_exec;	/* nx_lpage_splits the workload added */
	u64 splits_left;	/* ... still there when the wait ended */
	s64 pages_4k_delta;	/* during the recovery phase */
	s64 pages_2m_delta;
	u64 reexec_faults;	/* pf_fixed while executing again */
	double wait_ms;
	bool worker_found;
	double worker_ms;	/* its runtime over the whole run */
	double worker_recovery_ms;	/* ... over the recovery phase */
	char worker_why[160];
};

/* A VM stat at @s; 0 where the kernel has none. */
static u64 vm_stat(const struct vm *vm, const struct snap *s, const char *n)
{
	u64 v = 0;

	snap_stat(vm, s, false, n, &v);
	return v;
}

/* A stat's change over @p; 0 where the kernel has none. */
static s64 delta(const struct vm *vm, const struct phase *p, bool vcpu,
		 const char *n)
{
	s64 d = 0;

	phase_stat_delta(vm, p, vcpu, n, &d);
	return d;
}

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

/*
 * Set the worker's knobs for the run (kparam_restore() puts them back).
 * The ratio starts at 0, which parks the worker: otherwise it would run
 * every period from the VM's creation and could recover the splits before
 * logging is on.  recovery_ratio() sets the real one, which wakes it.
 */
static void set_params(const struct run_config *cfg)
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
	snprintf(val, sizeof(val), "%u", cfg->nx_period_ms);
	if (kparam_set("nx_huge_pages_recovery_period_ms", val, why,
		       sizeof(why)))
		die("nx-recovery: --recovery-period: %s", why);
}

/* Let the worker run (@on) or park it again. */
static void recovery_ratio(const struct run_config *cfg, bool on)
{
	char why[256], val[32];

	snprintf(val, sizeof(val), "%u", on ? cfg->nx_ratio : 0);
	if (kparam_set("nx_huge_pages_recovery_ratio", val, why, sizeof(why)))
		die("nx-recovery: --recovery-ratio: %s", why);
}

static int run_pass(struct vm *vm, struct phase *p, u32 generation)
{
	phase_begin(vm, p, phase_names[generation ? PH_REEXEC : PH_EXEC]);
	vm_post(vm, MMUB_CMD_PASS, generation);
	if (vm_wait(vm))
		return -1;
	phase_end(vm, p, true);
	return 0;
}

/*
 * Wake the worker and poll until it has taken the test memory's splits
 * off its list (down to the @base the system memory had before the
 * workload ran), then park it again, so that nothing else it does lands
 * in the later phases.
 */
static void wait_recovery(struct vm *vm, struct nx_run *r, u64 base)
{
	const struct run_config *cfg = vm->cfg;
	double t0 = now_ms(), limit = cfg->nx_wait_s * 1000.0;
	u64 n;

	recovery_ratio(cfg, true);
	while ((n = splits_now(vm)) > base && now_ms() - t0 < limit)
		usleep(10000);
	recovery_ratio(cfg, false);
	r->wait_ms = now_ms() - t0;
	r->splits_left = n > base ? n - base : 0;
}

static double worker_ms(const struct nx_run *r, const struct nx_worker *w)
{
	u64 ns;

	if (!r->worker_found || nx_worker_runtime(w, &ns))
		return -1;
	return ns / 1e6;
}

static int nx_once(struct vm *vm, struct nx_run *r, struct phase *ph,
		   struct nx_worker *w)
{
	double t_rec;
	u64 base;

	if (vm_start(vm) || run_pass(vm, &ph[PH_EXEC], 0))
		return -1;
	/* Booting executes from the system memory: those splits are not ours. */
	base = vm_stat(vm, &ph[PH_EXEC].before, "nx_lpage_splits");
	r->splits_exec = vm_stat(vm, &ph[PH_EXEC].after, "nx_lpage_splits");
	r->splits_exec = r->splits_exec > base ? r->splits_exec - base : 0;
	if (!r->splits_exec) {
		err_msg("nx-recovery: executing split no huge page "
			"(nx_lpage_splits 0): KVM mapped no huge page to split "
			"(use -s anonymous_thp or a hugetlb backing, and "
			"--guest-page 2m)");
		return -1;
	}
	r->worker_found = !nx_worker_find(w, r->worker_why,
					  sizeof(r->worker_why));
	/* --no-dirty-log: the control, where every kernel should zap. */
	phase_begin(vm, &ph[PH_ENABLE], phase_names[PH_ENABLE]);
	if (!vm->cfg->nx_no_log)
		dlog_enable(vm, true);
	phase_end(vm, &ph[PH_ENABLE], false);

	t_rec = worker_ms(r, w);
	phase_begin(vm, &ph[PH_RECOVERY], phase_names[PH_RECOVERY]);
	wait_recovery(vm, r, base);
	phase_end(vm, &ph[PH_RECOVERY], false);
	r->worker_recovery_ms = t_rec < 0 ? -1 : worker_ms(r, w) - t_rec;
	r->pages_4k_delta = delta(vm, &ph[PH_RECOVERY], false, "pages_4k");
	r->pages_2m_delta = delta(vm, &ph[PH_RECOVERY], false, "pages_2m");

	if (run_pass(vm, &ph[PH_REEXEC], 1))
		return -1;
	r->reexec_faults = (u64)delta(vm, &ph[PH_REEXEC], true, "pf_fixed");

	phase_begin(vm, &ph[PH_DISABLE], phase_names[PH_DISABLE]);
	if (!vm->cfg->nx_no_log)
		dlog_enable(vm, false);
	phase_end(vm, &ph[PH_DISABLE], false);
	r->worker_ms = worker_ms(r, w);
	if (r->splits_left) {
		err_msg("nx-recovery: %llu of %llu split pages still accounted "
			"after %u s: the recovery worker did not run (see "
			"kvm.nx_huge_pages_recovery_period_ms and _ratio)",
			(unsigned long long)r->splits_left,
			(unsigned long long)r->splits_exec, vm->cfg->nx_wait_s);
		return -1;
	}
	return 0;
}

static void print_run(const struct nx_run *r)
{
	printf("  nx_lpage_splits from executing: %llu; the worker took "
	       "them all off its list %.0f ms after it was let run\n",
	       (unsigned long long)r->splits_exec, r->wait_ms);
	printf("  then the worker changed pages_4k by %lld, "
	       "pages_2m by %lld (0: it zapped nothing)\n",
	       (long long)r->pages_4k_delta, (long long)r->pages_2m_delta);
	printf("  executing again afterwards: %llu faults (pf_fixed)\n",
	       (unsigned long long)r->reexec_faults);
	if (r->worker_found)
		printf("  | kvm-nx-lpage-re:se.sum_exec_runtime | %.6f ms "
		       "(run), %.6f ms (recovery phase) |\n", r->worker_ms,
		       r->worker_recovery_ms);
	else
		printf("  worker CPU time: n/a: %s\n", r->worker_why);
}

static void json_run(struct json *j, const struct run_config *cfg,
		     const struct nx_run *r)
{
	json_obj_begin(j, "nx_recovery");
	json_bool(j, "dirty_logging", !cfg->nx_no_log);
	json_u64(j, "splits_after_execute", r->splits_exec);
	json_u64(j, "splits_left", r->splits_left);
	json_num(j, "recovery_wait_ms", r->wait_ms);
	json_num(j, "recovery_pages_4k_delta", (double)r->pages_4k_delta);
	json_num(j, "recovery_pages_2m_delta", (double)r->pages_2m_delta);
	json_u64(j, "reexecute_pf_fixed", r->reexec_faults);
	if (r->worker_found) {
		json_num(j, "worker_ms", r->worker_ms);
		json_num(j, "worker_recovery_ms", r->worker_recovery_ms);
	} else {
		json_str(j, "worker_unavailable", r->worker_why);
	}
	json_obj_end(j);
}

int scenario_nx_recovery(const struct run_config *cfg)
{
	struct phase ph[PH_NR];
	struct nx_worker w;
	struct nx_run r;
	struct json j;
	struct vm vm;
	int ret = 0;

	set_params(cfg);
	for (u32 k = 0; k < cfg->repeat && !ret; k++) {
		memset(&r, 0, sizeof(r));
		memset(ph, 0, sizeof(ph));
		/* 6.1 starts the worker in KVM_CREATE_VM, later kernels later. */
		nx_worker_init(&w);
		vm_create(&vm, cfg);
		if (!k) {
			report_header(&vm, "nx-recovery");
			printf("kvm.nx_huge_pages on, recovery period %u ms, "
			       "ratio %u, dirty logging %s\n",
			       cfg->nx_period_ms, cfg->nx_ratio,
			       cfg->nx_no_log ? "off (--no-dirty-log)" :
			       dlog_mode_names[cfg->dirty_mode]);
			report_json_begin(&j, &vm);
		}
		ret = nx_once(&vm, &r, ph, &w);
		if (!ret) {
			printf("run %u/%u:\n", k + 1, cfg->repeat);
			print_run(&r);
			report_passes(&vm, ph, PH_NR);
			report_stats(&vm, ph, PH_NR);
			report_json_run(&j, &vm, ph, PH_NR);
			json_run(&j, cfg, &r);
			json_obj_end(&j);
		}
		for (u32 i = 0; i < PH_NR; i++)
			phase_free(&ph[i]);
		vm_destroy(&vm);
	}
	if (ret) {
		json_free(&j);
		return 1;
	}
	report_json_finish(&j, cfg);
	return 0;
}
