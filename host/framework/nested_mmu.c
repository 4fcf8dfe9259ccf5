// SPDX-License-Identifier: GPL-2.0
/*
 * Which MMU served an L2 run (nested_mmu.h), by counts: KVM's stats and
 * kprobes counted through perf (kvm/kcount.h) on the fault paths.
 *
 * - nested_run (a vCPU stat): the VMRUNs KVM emulated for the guest,
 *   since the vCPUs exist.  Each vCPU's L2 starts at boot, before the
 *   other counts begin, and runs for good: 1 each, unless it exited.
 * - FNAME(page_fault) of paging_tmpl.h for 64-bit tables,
 *   paging64_page_fault: the shadow MMU's fault handler.  NPT entries
 *   are the format of ordinary x86-64 page tables, so the shadow of the
 *   guest's NPT is served by it, in 6.1 as in 6.12.
 * - kvm_mmu_get_child_sp: a shadow table made or found below another.
 * - mmu_sync_children: unsync shadow pages brought back in sync.
 * - kvm_tdp_mmu_map: the TDP MMU's fault path, for the guest itself.
 * - mmu_cache_miss (a VM stat): shadow pages allocated.
 *
 * The table has the form of the probe tables (kvm/probes.h) so that the
 * x86 L1's kvm-hold keeps a kprobe on each function for the boot
 * (lib/nested/mkinitramfs.sh): a run's own kprobes then never rewrite
 * the kernel's text under QEMU's TCG.
 */
#include <stdio.h>
#include <string.h>
#include "util/util.h"
#include "results/json.h"
#include "kvm/probes.h"
#include "framework/nested_mmu.h"

enum { NM_SHADOW_FAULT, NM_CHILD_SP, NM_SYNC, NM_TDP_MAP };

static const struct probe_def nested_mmu_defs[NESTED_MMU_PROBES] = {
	{ "shadow_fault", "p:mmub/shadow_fault paging64_page_fault" },
	{ "child_sp", "p:mmub/child_sp kvm_mmu_get_child_sp" },
	{ "sync_children", "p:mmub/sync_children mmu_sync_children" },
	{ "tdp_map", "p:mmub/tdp_map kvm_tdp_mmu_map" },
};

/* "p:mmub/NAME FUNCTION": the function. */
static const char *probe_func(const struct probe_def *d)
{
	return strchr(d->def, ' ') + 1;
}

void nested_mmu_begin(struct nested_mmu *m, struct vm *vm)
{
	char why[160];

	memset(m, 0, sizeof(*m));
	/*
	 * The others may be missing ("n/a"); without the shadow MMU's
	 * fault, none of them counts.
	 */
	for (u32 i = 0; i < NESTED_MMU_PROBES; i++) {
		if (kcount_open(&m->k[i], probe_func(&nested_mmu_defs[i]),
				why, sizeof(why)) && i == NM_SHADOW_FAULT) {
			snprintf(m->why, sizeof(m->why), "%s", why);
			break;
		}
	}
	if (*m->why)
		for (u32 i = 0; i < NESTED_MMU_PROBES; i++)
			kcount_close(&m->k[i]);
	if (snap_take(vm, &m->s0))
		die("--nested-guest: reading KVM's stats failed");
}

/* A count, or "n/a" where its function is not in this kernel. */
static void count_str(char *buf, size_t len, s64 v)
{
	if (v < 0)
		snprintf(buf, len, "n/a");
	else
		snprintf(buf, len, "%lld", (long long)v);
}

static void print_counts(const struct nested_mmu *m, const s64 *c,
			 s64 runs, s64 sps)
{
	char s[4][24];

	for (u32 i = 0; i < NESTED_MMU_PROBES; i++)
		count_str(s[i], sizeof(s[i]), c[i]);
	if (*m->why) {
		printf("nested: the L2 ran %lld times (nested_run); %lld "
		       "shadow pages (mmu_cache_miss); no fault counts: %s\n",
		       (long long)runs, (long long)sps, m->why);
		return;
	}
	printf("nested: the L2 ran %lld times (nested_run); shadow MMU: "
	       "%s faults (paging64_page_fault), %s child tables "
	       "(kvm_mmu_get_child_sp), %s syncs (mmu_sync_children), %lld "
	       "shadow pages (mmu_cache_miss); TDP MMU: %s maps "
	       "(kvm_tdp_mmu_map)\n", (long long)runs, s[NM_SHADOW_FAULT],
	       s[NM_CHILD_SP], s[NM_SYNC], (long long)sps, s[NM_TDP_MAP]);
}

/* Why the counts say the shadow MMU did not serve the L2, or NULL. */
static const char *not_served(const s64 *c, s64 runs, s64 sps, bool kprobes)
{
	if (runs <= 0)
		return "the guest never ran its L2 (nested_run 0)";
	if (sps <= 0)
		return "KVM made no shadow page (mmu_cache_miss 0)";
	if (kprobes && c[NM_SHADOW_FAULT] <= 0)
		return "no fault of the shadow MMU (paging64_page_fault 0)";
	if (kprobes && c[NM_TDP_MAP] > c[NM_SHADOW_FAULT])
		return "the TDP MMU mapped more than the shadow MMU faulted";
	return NULL;
}

int nested_mmu_end(struct nested_mmu *m, struct vm *vm, json_t *run,
		   bool print)
{
	s64 c[NESTED_MMU_PROBES], runs, sps;
	bool kprobes = !*m->why;
	u64 v;
	struct snap s1;
	const char *no;
	json_t *o;

	for (u32 i = 0; i < NESTED_MMU_PROBES; i++) {
		c[i] = kcount_read(&m->k[i]);
		kcount_close(&m->k[i]);
	}
	if (snap_take(vm, &s1))
		die("--nested-guest: reading KVM's stats failed");
	runs = snap_stat(vm, &s1, true, "nested_run", &v) ? (s64)v : -1;
	if (!snap_stat_delta(vm, &m->s0, &s1, false, "mmu_cache_miss", &sps))
		sps = -1;
	snap_free(&m->s0);
	snap_free(&s1);
	if (print)
		print_counts(m, c, runs, sps);
	o = json_pack("{s:I, s:I, s:I}", "l2_page", (json_int_t)vm->p.l2_page,
		      "nested_runs", (json_int_t)runs, "shadow_pages",
		      (json_int_t)sps);
	for (u32 i = 0; kprobes && i < NESTED_MMU_PROBES; i++)
		jset(o, nested_mmu_defs[i].name,
		     c[i] < 0 ? json_null() : json_integer(c[i]));
	if (!kprobes)
		jset(o, "kprobes", json_string(m->why));
	jset(run, "nested", o);
	no = not_served(c, runs, sps, kprobes);
	if (!no)
		return 0;
	err_msg("--nested-guest: the shadow MMU did not serve the L2: %s", no);
	return -1;
}
