// SPDX-License-Identifier: GPL-2.0
/*
 * The probe layer's parser, on recorded trace text: ftrace's format and
 * perf script's, entry/exit pairs per pid, interleaved across CPUs.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include "kvm/probes.h"
#include "check.h"


static const char ftrace_text[] =
"# tracer: nop\n"
"#\n"
"           <...>-812     [001] d..1.   100.000100: zap_entry: (tdp_mmu_zap_leafs+0x0/0x2c0)\n"
"     mmubench-900     [000] ...1.   100.000150: zap_entry: (tdp_mmu_zap_leafs+0x0/0x2c0)\n"
"           <...>-812     [001] d..1.   100.000400: zap_exit: (kvm_tdp_mmu_unmap_gfn_range+0x7b/0xa0 <- tdp_mmu_zap_leafs)\n"
"     mmubench-900     [000] ...1.   100.001150: zap_exit: (kvm_tdp_mmu_unmap_gfn_range+0x7b/0xa0 <- tdp_mmu_zap_leafs)\n"
"     mmubench-900     [000] ...1.   100.002000: zap_exit: (stray exit without entry)\n";

static const char perf_text[] =
"        mmubench  4242 [003]  5678.100000:       probe:tdp_mmu_zap_leafs: (ffffffff8101a2b0)\n"
"        mmubench  4242 [003]  5678.100250: probe:tdp_mmu_zap_leafs__return: (ffffffff8101c000 <- ffffffff8101a2b0)\n";

static const char perf_dash_text[] =
"  kvm-vcpu-0-4243 [002]  5678.200000: probe:tdp_mmu_zap_leafs: (ffffffff8101a2b0)\n"
"  kvm-vcpu-0-4243 [002]  5678.200010: probe:tdp_mmu_zap_leafs__return: (ffffffff8101c000 <- ffffffff8101a2b0)\n";

/* x86-tsc: cycles, not seconds (ftrace prints a raw count, no dot). */
static const char tsc_text[] =
"     mmubench-900     [000] ...1. 123456789000: zap_entry: (tdp_mmu_zap_leafs+0x0/0x2c0)\n"
"     mmubench-900     [000] ...1. 123456861000: zap_exit: (kvm_tdp_mmu_unmap_gfn_range+0x7b/0xa0 <- tdp_mmu_zap_leafs)\n";

/* Table frees land in softirq context, from any task. */
static const char pt_free_text[] =
"          <idle>-0       [001] ..s1.   100.100000: pt_free: (tdp_mmu_free_sp_rcu_callback+0x0/0x40)\n"
"     mmubench-900     [000] ...1.   100.100100: zap_entry: (tdp_mmu_zap_leafs+0x0/0x2c0)\n"
"     ksoftirqd/0-12      [000] ..s1.   100.100200: pt_free: (tdp_mmu_free_sp_rcu_callback+0x0/0x40)\n"
"# a comment: pt_free: is not an event line\n";

/* Names that hold the probed one, before and after it, in and out of a module. */
static const char kallsyms_text[] =
"ffffffff81000000 T x_tdp_mmu_zap_leafs\n"
"ffffffff81000010 t tdp_mmu_zap_leafs_done\t[kvm]\n"
"ffffffffc0356250 t tdp_mmu_zap_leafs\t[kvm]\n"
"ffffffff81000020 T kvm_tdp_mmu_unmap_gfn_range";

int main(void)
{
	struct mmub_hist *h = malloc(sizeof(*h));
	struct probe_durations d = { 0 };
	u64 odd[] = { 5, 1, 2, 100000, 3, 4, 6, 7 };
	double p50, iqm;

	mmub_hist_reset(h);
	CHECK(probes_parse(ftrace_text, "zap_entry", "zap_exit", 1e9, h, &d) == 2);
	CHECK(h->count == 2 && h->min == 300000 && h->max == 1000000);
	/* Every duration kept too, for the exact middle. */
	CHECK(d.n == 2 && d.ns[0] == 300000 && d.ns[1] == 1000000);
	probes_middle(&d, &p50, &iqm);
	CHECK(p50 == 650000 && iqm == 650000);
	free(d.ns);
	/* One call 20000 times longer moves neither. */
	d.ns = odd;
	d.n = 8;
	probes_middle(&d, &p50, &iqm);
	CHECK(p50 == 4.5 && iqm == 4.5);
	d.n = 0;
	probes_middle(&d, &p50, &iqm);
	CHECK(isnan(p50) && isnan(iqm));

	/* 72000 cycles at 2.4 GHz: 30 us, to the ns. */
	mmub_hist_reset(h);
	CHECK(probes_parse(tsc_text, "zap_entry", "zap_exit", 1 / 2.4, h,
			   NULL) == 1);
	CHECK(h->count == 1 && h->max == 30000);

	/* perf script prints "comm pid [cpu]": no dash before the pid. */
	mmub_hist_reset(h);
	CHECK(probes_parse(perf_text, "probe:tdp_mmu_zap_leafs",
			   "probe:tdp_mmu_zap_leafs__return", 1e9, h, NULL) == 1);
	CHECK(h->count == 1 && h->max == 250000);
	mmub_hist_reset(h);
	CHECK(probes_parse(perf_dash_text, "probe:tdp_mmu_zap_leafs",
			   "probe:tdp_mmu_zap_leafs__return", 1e9, h, NULL) == 1);
	CHECK(h->count == 1 && h->max == 10000);
	CHECK(probes_parse("", "a", "b", 1e9, h, NULL) == 0);
	CHECK(probes_count(pt_free_text, "pt_free") == 2);
	CHECK(probes_count(pt_free_text, "zap_entry") == 1);
	CHECK(probes_count("", "pt_free") == 0);
	free(h);
	CHECK(probes_kallsyms_has(kallsyms_text, "tdp_mmu_zap_leafs"));
	CHECK(probes_kallsyms_has(kallsyms_text, "kvm_tdp_mmu_unmap_gfn_range"));
	CHECK(!probes_kallsyms_has(kallsyms_text, "tdp_mmu_zap"));
	CHECK(!probes_kallsyms_has(kallsyms_text, "zap_leafs"));
	CHECK(!probes_kallsyms_has(kallsyms_text, "kvm"));
	CHECK(!probes_kallsyms_has("", "tdp_mmu_zap_leafs"));
	return check_report();
}
