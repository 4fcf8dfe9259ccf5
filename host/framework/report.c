// SPDX-License-Identifier: GPL-2.0
/* Tables and JSON for the scenarios; see report.h. */
#define _GNU_SOURCE
#include <dirent.h>
#include <elf.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/utsname.h>
#include <unistd.h>
#include <linux/kvm.h>
#include "util/util.h"
#include "results/json.h"
#include "framework/report.h"

#ifndef MMUB_VERSION
#define MMUB_VERSION "unknown"
#endif

/* Always shown in the stats table, even when they did not move. */
static const char *const key_stats[] = {
	"pages_4k", "pages_2m", "pages_1g", "pf_fixed", "pf_taken", "exits",
	"remote_tlb_flush",
};

int snap_take(struct vm *vm, struct snap *s)
{
	u32 nv = vm->vcpus[0].stats.n;
	u64 *tmp = calloc(nv + 1, sizeof(u64));
	int ret = 0;

	s->vm = calloc(vm->stats.n + 1, sizeof(u64));
	s->vcpu = calloc(nv + 1, sizeof(u64));
	if (!tmp || !s->vm || !s->vcpu)
		die("out of memory");
	if (kstats_read(&vm->stats, s->vm)) {
		err_msg("reading VM stats failed");
		ret = -1;
	}
	for (u32 i = 0; i < vm->p.nr_vcpus; i++) {
		if (kstats_read(&vm->vcpus[i].stats, tmp)) {
			err_msg("reading vCPU %u stats failed", i);
			ret = -1;
		}
		for (u32 k = 0; k < nv; k++)
			s->vcpu[k] += tmp[k];
	}
	free(tmp);
	return ret;
}

void snap_free(struct snap *s)
{
	free(s->vm);
	free(s->vcpu);
	s->vm = s->vcpu = NULL;
}

bool snap_stat(const struct vm *vm, const struct snap *s, bool vcpu,
	       const char *name, u64 *val)
{
	int i = kstats_index(vcpu ? &vm->vcpus[0].stats : &vm->stats, name);

	if (i < 0)
		return false;
	*val = vcpu ? s->vcpu[i] : s->vm[i];
	return true;
}

bool snap_stat_delta(const struct vm *vm, const struct snap *from,
		     const struct snap *to, bool vcpu, const char *name,
		     s64 *delta)
{
	u64 a, b;

	if (!snap_stat(vm, from, vcpu, name, &a) ||
	    !snap_stat(vm, to, vcpu, name, &b))
		return false;
	*delta = (s64)(b - a);
	return true;
}

bool phase_stat_delta(const struct vm *vm, const struct phase *p, bool vcpu,
		      const char *name, s64 *delta)
{
	return snap_stat_delta(vm, &p->before, &p->after, vcpu, name, delta);
}

s64 phase_stat_or(const struct vm *vm, const struct phase *p, bool vcpu,
		  const char *name, s64 missing)
{
	s64 d;

	return phase_stat_delta(vm, p, vcpu, name, &d) ? d : missing;
}

void phase_begin(struct vm *vm, struct phase *p, const char *name)
{
	memset(p, 0, sizeof(*p));
	snprintf(p->name, sizeof(p->name), "%s", name);
	p->nr_vcpus = vm->p.nr_vcpus;
	snap_take(vm, &p->before);
	p->wall_ms = now_ms();
}

void phase_end(struct vm *vm, struct phase *p, bool guest_results)
{
	p->wall_ms = now_ms() - p->wall_ms;
	snap_take(vm, &p->after);
	if (!guest_results)
		return;
	p->pass = calloc(p->nr_vcpus, sizeof(*p->pass));
	p->lat = calloc(p->nr_vcpus, sizeof(*p->lat));
	if (!p->pass || !p->lat)
		die("out of memory");
	for (u32 i = 0; i < p->nr_vcpus; i++) {
		p->pass[i] = vm->vcpus[i].mb->last;
		p->lat[i] = vm->vcpus[i].mb->lat;
	}
}

void phase_free(struct phase *p)
{
	snap_free(&p->before);
	snap_free(&p->after);
	free(p->pass);
	free(p->lat);
}

double cycles_to_ns(const struct vm *vm, u64 cycles)
{
	return vm->bi->clk_hz ? (double)cycles * 1e9 / (double)vm->bi->clk_hz :
				0;
}

u64 phase_latency(const struct phase *p, struct mmub_hist *all)
{
	u64 accesses = 0;

	mmub_hist_reset(all);
	for (u32 i = 0; p->lat && i < p->nr_vcpus; i++) {
		mmub_hist_merge(all, &p->lat[i]);
		accesses += p->pass[i].accesses;
	}
	return accesses;
}

double access_ns(const struct vm *vm, const struct mmub_hist *h, u32 ppm)
{
	if (!h->count)
		return 0;
	return cycles_to_ns(vm, ppm >= 1000000 ? h->max :
			    mmub_hist_quantile(h, ppm));
}

json_t *access_us_json(const struct vm *vm, const struct mmub_hist *h)
{
	return json_pack("{s:o, s:o, s:o, s:o}",
			 "p50_us", jnum(access_ns(vm, h, 500000) / 1e3),
			 "p99_us", jnum(access_ns(vm, h, 990000) / 1e3),
			 "p999_us", jnum(access_ns(vm, h, 999000) / 1e3),
			 "max_us", jnum(access_ns(vm, h, 1000000) / 1e3));
}

void report_header(const struct vm_params *c, const char *scenario)
{
	char b[32], g[32], s[32], w[32];

	/*
	 * exec writes only where a RET is missing, whatever -w says, or a word
	 * beside each RET too (MMUB_WL_EXEC_WRITE).
	 */
	if (mmub_wl_executes(&c->wl) && (c->wl.flags & MMUB_WL_EXEC_WRITE))
		snprintf(w, sizeof(w), "RET planted once, writes 100%%");
	else if (mmub_wl_executes(&c->wl))
		snprintf(w, sizeof(w), "RET planted once");
	else
		snprintf(w, sizeof(w), "writes %u%%", c->wl.write_pct);
	printf("mmubench %s: %u vCPU%s x %s, backing %s, guest pages %s, "
	       "%s stride %s, %u slot%s, %s, %s, fraction %.4g, MMU %s\n",
	       scenario, c->nr_vcpus, c->nr_vcpus > 1 ? "s" : "",
	       fmt_size(c->vcpu_bytes, b, sizeof(b)),
	       backing_names[c->backing], fmt_size(c->guest_page, g, sizeof(g)),
	       mmub_action_names[c->wl.action],
	       fmt_size(c->wl.stride, s, sizeof(s)), c->nr_slots,
	       c->nr_slots > 1 ? "s" : "", w,
	       c->wl.flags & MMUB_WL_RANDOM ? "random order" : "sequential",
	       c->wl.fraction_ppm / 1e6, vm_mmu_kind(c));
}

static void pass_row(const struct vm *vm, const char *name, const char *who,
		     u64 acc, u64 cycles, const struct mmub_hist *h)
{
	double ns = cycles_to_ns(vm, cycles);

	printf("  %-10s %4s %10llu %10.2f %10.3f", name, who,
	       (unsigned long long)acc, ns / 1e6,
	       ns > 0 ? (double)acc / ns * 1e3 : 0.0);
	if (h && h->count)
		printf(" %9.0f %9.0f %9.0f",
		       cycles_to_ns(vm, mmub_hist_quantile(h, 500000)),
		       cycles_to_ns(vm, mmub_hist_quantile(h, 990000)),
		       cycles_to_ns(vm, mmub_hist_quantile(h, 999000)));
	printf("\n");
}

void report_passes(const struct vm *vm, const struct phase *p, u32 n)
{
	struct mmub_hist *all = malloc(sizeof(*all));
	char who[12];

	if (!all)
		die("out of memory");
	printf("  %-10s %4s %10s %10s %10s %9s %9s %9s\n", "pass", "vcpu",
	       "accesses", "ms", "Mpages/s", "p50_ns", "p99_ns", "p99.9_ns");
	for (u32 k = 0; k < n; k++) {
		u64 acc = 0, longest = 0;

		if (!p[k].pass)
			continue;
		mmub_hist_reset(all);
		for (u32 i = 0; i < p[k].nr_vcpus; i++) {
			const struct mmub_pass *r = &p[k].pass[i];

			snprintf(who, sizeof(who), "%u", i);
			pass_row(vm, p[k].name, who, r->accesses,
				 r->clk_end - r->clk_start, &p[k].lat[i]);
			acc += r->accesses;
			longest = mmub_max(longest, r->clk_end - r->clk_start);
			mmub_hist_merge(all, &p[k].lat[i]);
		}
		if (p[k].nr_vcpus > 1)
			pass_row(vm, p[k].name, "all", acc, longest, all);
	}
	free(all);
}

static bool is_key_stat(const char *name)
{
	for (u32 i = 0; i < MMUB_ARRAY_SIZE(key_stats); i++)
		if (!strcmp(name, key_stats[i]))
			return true;
	return false;
}

static void stats_rows(const struct kstats *ks, const struct phase *p, u32 n,
		       bool vm_side)
{
	for (u32 s = 0; s < ks->n; s++) {
		bool moved = false;

		for (u32 k = 0; k < n; k++) {
			const u64 *a = vm_side ? p[k].before.vm : p[k].before.vcpu;
			const u64 *b = vm_side ? p[k].after.vm : p[k].after.vcpu;

			moved |= a[s] != b[s];
		}
		if (!moved && !is_key_stat(ks->names[s]))
			continue;
		printf("  %-5s %-26s", vm_side ? "vm" : "vcpu", ks->names[s]);
		for (u32 k = 0; k < n; k++) {
			const u64 *a = vm_side ? p[k].before.vm : p[k].before.vcpu;
			const u64 *b = vm_side ? p[k].after.vm : p[k].after.vcpu;

			printf(" %+12lld", (long long)(b[s] - a[s]));
		}
		printf("\n");
	}
}

void report_stats(const struct vm *vm, const struct phase *p, u32 n)
{
	printf("  KVM stats, change per phase (vCPU stats summed over vCPUs; "
	       "other unchanged stats omitted):\n");
	printf("  %-5s %-26s", "", "stat");
	for (u32 k = 0; k < n; k++)
		printf(" %12s", p[k].name);
	printf("\n");
	stats_rows(&vm->stats, p, n, true);
	stats_rows(&vm->vcpus[0].stats, p, n, false);
}

static json_t *first_line(const char *path, const char *prefix)
{
	char line[256];
	FILE *f = fopen(path, "r");
	json_t *v = NULL;

	while (f && !v && fgets(line, sizeof(line), f)) {
		char *s = line;

		if (prefix) {
			if (strncmp(line, prefix, strlen(prefix)))
				continue;
			s = strchr(line, ':');
			if (!s)
				continue;
			s += 2;
		}
		s[strcspn(s, "\n")] = 0;
		v = json_string(s);
	}
	if (f)
		fclose(f);
	return v ? v : json_null();
}

/*
 * What the nested runner (lib/nested/run.sh) says on the kernel command
 * line as "mmubench.KEY=VALUE": VALUE, else null.
 */
static json_t *runner_says(const char *key)
{
	char line[4096], want[64], *p, *end;
	FILE *f = fopen("/proc/cmdline", "r");
	bool got = f && fgets(line, sizeof(line), f);

	if (f)
		fclose(f);
	snprintf(want, sizeof(want), "mmubench.%s=", key);
	p = got ? strstr(line, want) : NULL;
	if (!p)
		return json_null();
	p += strlen(want);
	end = p + strcspn(p, " \n");
	*end = 0;
	return json_string(p);
}

/*
 * Which clock the times are on: "icount:SHIFT" when the nested runner
 * booted this kernel under QEMU's instruction counting, else "host": the
 * machine's own.  Times on different clocks do not compare.
 */
static json_t *clock_kind(void)
{
	json_t *v = runner_says("clock");

	return json_is_null(v) ? json_string("host") : v;
}

/*
 * The CPUs this process may run on: what the vCPUs and the thread that
 * zaps or logs share, and so how much they wait for each other (on
 * the host's clock the nested runner keeps an x86_64 L1's CPU 0 apart).
 */
static int cpus_allowed(void)
{
	cpu_set_t set;

	if (sched_getaffinity(0, sizeof(set), &set))
		return (int)sysconf(_SC_NPROCESSORS_ONLN);
	return CPU_COUNT(&set);
}

static json_t *module_params(const char *module)
{
	char dir[128], path[512];
	json_t *o = json_object();
	struct dirent *d;
	DIR *dp;

	snprintf(dir, sizeof(dir), "/sys/module/%s/parameters", module);
	dp = opendir(dir);
	while (dp && (d = readdir(dp))) {
		if (d->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, d->d_name);
		jset(o, d->d_name, first_line(path, NULL));
	}
	if (dp)
		closedir(dp);
	return o;
}

/* The capabilities this run relies on, as the kernel reports them. */
static json_t *caps(const struct vm *vm)
{
	static const struct { const char *name; long cap; } list[] = {
		{ "KVM_CAP_BINARY_STATS_FD", KVM_CAP_BINARY_STATS_FD },
		{ "KVM_CAP_IMMEDIATE_EXIT", KVM_CAP_IMMEDIATE_EXIT },
		{ "KVM_CAP_NR_VCPUS", KVM_CAP_NR_VCPUS },
		{ "KVM_CAP_MAX_VCPUS", KVM_CAP_MAX_VCPUS },
		{ "KVM_CAP_NR_MEMSLOTS", KVM_CAP_NR_MEMSLOTS },
		{ "KVM_CAP_GET_TSC_KHZ", KVM_CAP_GET_TSC_KHZ },
		{ "KVM_CAP_MANUAL_DIRTY_LOG_PROTECT2", KVM_CAP_MANUAL_DIRTY_LOG_PROTECT2 },
		{ "KVM_CAP_DIRTY_LOG_RING", KVM_CAP_DIRTY_LOG_RING },
	};
	json_t *o = json_object();

	for (u32 i = 0; i < MMUB_ARRAY_SIZE(list); i++)
		jset(o, list[i].name, json_integer(ioctl(vm->fd,
				KVM_CHECK_EXTENSION, list[i].cap)));
	return o;
}

static bool param_is_y(const char *path)
{
	char c = 0;
	FILE *f = fopen(path, "r");

	if (f) {
		if (fread(&c, 1, 1, f) != 1)
			c = 0;
		fclose(f);
	}
	return c == 'Y' || c == 'y' || c == '1';
}

/*
 * Which second-stage MMU serves this VM.  It matters for reading stats:
 * with TDP (NPT/EPT) the host page decides KVM's mapping size; with the
 * shadow MMU the guest's page size limits it too.
 */
const char *kvm_mmu_kind(void)
{
	bool tdp = param_is_y("/sys/module/kvm_amd/parameters/npt") ||
		   param_is_y("/sys/module/kvm_intel/parameters/ept");

	/* arm64 KVM always has its own stage-2 tables, no shadow MMU. */
	if (arch_elf_machine == EM_AARCH64)
		return "stage2";

	if (!tdp)
		return "shadow";
	return param_is_y("/sys/module/kvm/parameters/tdp_mmu") ? "tdp_mmu" :
								 "tdp_legacy";
}

/*
 * The MMU of a run's workload: --nested-guest puts it in an L2, whose
 * accesses KVM serves by shadowing the guest's nested page table.
 */
const char *vm_mmu_kind(const struct vm_params *p)
{
	static char buf[96];

	if (!p->l2_page)
		return kvm_mmu_kind();
	snprintf(buf, sizeof(buf), "shadow_nested (the L2 under the guest's "
		 "NPT at %s; the guest's own: %s)",
		 p->l2_page == MMUB_SZ_4K ? "4K" :
		 p->l2_page == MMUB_SZ_2M ? "2M" : "1G", kvm_mmu_kind());
	return buf;
}

/* "4K/2M/1G 0/64/0" of what --prefault mapped; "n/a" without the stats. */
static const char *prefault_pages(const struct vm_boot *b, char *buf,
				  size_t len)
{
	const s64 *n = b->prefault_pages;

	if (n[0] < 0 || n[1] < 0 || n[2] < 0)
		snprintf(buf, len, "pages by size n/a (no pages_4k/2m/1g stats)");
	else
		snprintf(buf, len, "4K/2M/1G %lld/%lld/%lld", (long long)n[0],
			 (long long)n[1], (long long)n[2]);
	return buf;
}

void report_boot(const struct vm *vm, u32 index, u32 repeat)
{
	const struct vm_boot *b = &vm->boot;
	char buf[96];

	printf("run %u/%u: boot %.1f ms (", index + 1, repeat, vm->boot_ms);
	for (u32 i = 0; i < VM_BOOT_STEPS; i++)
		printf("%s%s %.1f", i ? ", " : "", vm_boot_steps[i].label,
		       vm_boot_step_ms(b, &vm_boot_steps[i]));
	printf(")");
	if (vm->p.populate)
		printf("; host populate %.1f ms apart", b->populate_ms);
	else
		printf("; no host populate");
	if (vm->p.prefault)
		printf("; KVM_PRE_FAULT_MEMORY %.1f ms apart, %s mapped",
		       b->prefault_ms, prefault_pages(b, buf, sizeof(buf)));
	printf("\n");
}

void report_boot_json(const struct vm *vm, json_t *run)
{
	const s64 *pf = vm->boot.prefault_pages;
	json_t *b = json_object();

	for (u32 i = 0; i < VM_BOOT_STEPS; i++)
		jset(b, vm_boot_steps[i].key,
		     jnum(vm_boot_step_ms(&vm->boot, &vm_boot_steps[i])));
	jset(run, "boot_ms", jnum(vm->boot_ms));
	jset(run, "boot", b);
	jset(run, "populate_ms", vm->p.populate ?
	     jnum(vm->boot.populate_ms) : json_null());
	jset(run, "prefault_ms", vm->p.prefault ?
	     jnum(vm->boot.prefault_ms) : json_null());
	jset(run, "prefault_pages", vm->p.prefault && pf[0] >= 0 ?
	     json_pack("{s:I, s:I, s:I}", "4k", (json_int_t)pf[0],
		       "2m", (json_int_t)pf[1], "1g", (json_int_t)pf[2]) :
	     json_null());
}

/*
 * The base a kernel was built from, "6.12" of "6.12.117-mmub-NAME": the
 * stable line its KVM belongs to.
 */
static json_t *release_base(const char *release)
{
	unsigned int major, minor;
	char base[32];

	if (sscanf(release, "%u.%u", &major, &minor) != 2)
		return json_null();
	snprintf(base, sizeof(base), "%u.%u", major, minor);
	return json_string(base);
}

/*
 * The series of an mmubench-built kernel: lib/kernel/build.sh sets a whole
 * kernel's release to BASE-mmub-SERIES, and on Debian's image, where KVM
 * is a module, kvm.ko's version to mmub-SERIES (lib/kernel/modules.sh).
 * Any other kernel has none (null).
 */
static json_t *kernel_series(const char *release, json_t *kvm_module)
{
	const char *p = strstr(release, "-mmub-");
	const char *v = json_string_value(kvm_module);

	if (p && p[6])
		return json_string(p + 6);
	if (v && !strncmp(v, "mmub-", 5) && v[5])
		return json_string(v + 5);
	return json_null();
}

json_t *report_env(const struct vm *vm)
{
	json_t *env = json_object(), *params = json_object();
	json_t *kvm_module = first_line("/sys/module/kvm/version", NULL);
	struct utsname u;

	/* KVM built as a module says its own version (null when built in). */
	jset(env, "kvm_module", json_incref(kvm_module));
	if (!uname(&u)) {
		jset(env, "kernel", json_string(u.release));
		jset(env, "kernel_base", release_base(u.release));
		jset(env, "kernel_series", kernel_series(u.release, kvm_module));
		jset(env, "machine", json_string(u.machine));
	}
	json_decref(kvm_module);
	jset(env, "cpu_model", first_line("/proc/cpuinfo", "model name"));
	jset(env, "arch", json_string(arch_name));
	jset(env, "clock", clock_kind());
	/* The QEMU whose TCG ran a nested kernel: its quirks are the run's. */
	jset(env, "qemu", runner_says("qemu"));
	jset(env, "cpus", json_integer(cpus_allowed()));
	jset(env, "mmu", json_string(kvm_mmu_kind()));
	if (vm->p.l2_page)
		jset(env, "nested_guest", json_pack("{s:s, s:I}", "mmu",
			"shadow_nested", "l2_page", (json_int_t)vm->p.l2_page));
	jset(env, "mmubench_version", json_string(MMUB_VERSION));
	jset(env, "guest_clock_hz", json_integer((json_int_t)vm->bi->clk_hz));
	jset(env, "backing", json_string(backing_names[vm->p.backing]));
	jset(env, "kvm_caps", caps(vm));
	jset(params, "kvm", module_params("kvm"));
	jset(params, "kvm_amd", module_params("kvm_amd"));
	jset(params, "kvm_intel", module_params("kvm_intel"));
	jset(env, "kvm_params", params);
	return env;
}

static json_t *stats_delta(const struct kstats *ks, const u64 *a, const u64 *b)
{
	json_t *o = json_object();

	for (u32 s = 0; s < ks->n; s++)
		jset(o, ks->names[s], json_integer((json_int_t)(b[s] - a[s])));
	return o;
}

static json_t *vcpu_result(const struct vm *vm, const struct phase *p, u32 i)
{
	const struct mmub_pass *r = &p->pass[i];
	const struct mmub_hist *h = &p->lat[i];
	double ns = cycles_to_ns(vm, r->clk_end - r->clk_start);
	json_t *o = json_object(), *lat = json_object();

	jset(o, "vcpu", json_integer(i));
	jset(o, "accesses", json_integer((json_int_t)r->accesses));
	jset(o, "writes", json_integer((json_int_t)r->writes));
	jset(o, "cycles", json_integer((json_int_t)(r->clk_end - r->clk_start)));
	jset(o, "ns", jnum(ns));
	jset(o, "pages_per_s", jnum(ns > 0 ? r->accesses / ns * 1e9 : 0));
	jset(lat, "count", json_integer((json_int_t)h->count));
	jset(lat, "p50", jnum(cycles_to_ns(vm, mmub_hist_quantile(h, 500000))));
	jset(lat, "p99", jnum(cycles_to_ns(vm, mmub_hist_quantile(h, 990000))));
	jset(lat, "p99.9", jnum(cycles_to_ns(vm, mmub_hist_quantile(h, 999000))));
	jset(lat, "max", jnum(cycles_to_ns(vm, h->max)));
	jset(lat, "mean", jnum(h->count ? cycles_to_ns(vm, h->sum) / h->count : 0));
	jset(o, "latency_ns", lat);
	return o;
}

json_t *report_phases(const struct vm *vm, const struct phase *p, u32 n)
{
	json_t *arr = json_array();

	for (u32 k = 0; k < n; k++) {
		json_t *o = json_object();

		jset(o, "name", json_string(p[k].name));
		jset(o, "wall_ms", jnum(p[k].wall_ms));
		if (p[k].pass) {
			json_t *v = json_array();

			for (u32 i = 0; i < p[k].nr_vcpus; i++)
				json_array_append_new(v, vcpu_result(vm, &p[k], i));
			jset(o, "vcpus", v);
		}
		jset(o, "vm_stats", stats_delta(&vm->stats, p[k].before.vm,
						p[k].after.vm));
		jset(o, "vcpu_stats", stats_delta(&vm->vcpus[0].stats,
						  p[k].before.vcpu,
						  p[k].after.vcpu));
		json_array_append_new(arr, o);
	}
	return arr;
}
