// SPDX-License-Identifier: GPL-2.0
/*
 * "mmubench zap --table [same16,c4,...]": seed 001's six patterns, each
 * --repeat times, printed as the seed's two tables (zap_total_ms and the
 * fault side's p99.9, medians) plus the other metrics; JSON keeps every
 * repetition.  Kernel-side probes (the seed timed tdp_mmu_zap_leafs() and
 * queued_read_lock_slowpath() with perf probes) are reported by
 * kernel/probes.c where the kernel allows them.
 */
#include <stdlib.h>
#include <string.h>
#include "scenarios.h"
#include "zap.h"
#include "../kernel/probes.h"
#include "../stats.h"

static const char *const seed_patterns[] = {
	"same16", "same4", "c16", "c4", "c2", "c1",
};

struct zap_row {
	char name[32];
	double *v[ZAP_METRIC_NR];	/* one per repetition */
	u32 n;
};

static void print_metric(struct zap_row *rows, u32 nr, enum zap_metric m,
			 u32 repeat)
{
	printf("\n%s_med (median of %u)\n\n", zap_metric_names[m], repeat);
	printf("  %-10s %12s %12s %12s\n", "scenario", "median", "min", "max");
	printf("  %-10s %12s %12s %12s\n", "--------", "------", "---", "---");
	for (u32 r = 0; r < nr; r++) {
		struct stats_summary st;

		if (stats_summarize(rows[r].v[m], rows[r].n, &st))
			die("out of memory");
		printf("  %-10s %12.1f %12.1f %12.1f\n", rows[r].name,
		       st.median, st.min, st.max);
	}
}

/* The list to run: all six, or the comma-separated subset given. */
static u32 pick(const char *list, const char **out)
{
	static char buf[256];
	char *save = NULL, *tok;
	u32 n = 0;

	if (!list || !*list || !strcmp(list, "all")) {
		for (; n < MMUB_ARRAY_SIZE(seed_patterns); n++)
			out[n] = seed_patterns[n];
		return n;
	}
	snprintf(buf, sizeof(buf), "%s", list);
	for (tok = strtok_r(buf, ",", &save); tok && n < 16;
	     tok = strtok_r(NULL, ",", &save))
		out[n++] = tok;
	return n;
}

int zap_table(const struct run_config *cfg)
{
	const char *names[16];
	u32 nr = pick(cfg->table, names);
	struct zap_row *rows = calloc(nr, sizeof(*rows));
	struct zap_result *z = malloc(sizeof(*z));
	bool json_open = false;
	char why[256];
	struct json j;

	if (!rows || !z)
		die("out of memory");
	/* Check every name before the first VM. */
	for (u32 r = 0; r < nr; r++) {
		struct run_config c = *cfg;

		const char *unfit;

		if (zap_parse_pattern(&c, names[r]))
			die("--table %s: unknown scenario (accepted: same16, "
			    "same4, c16, c4, c2, c1, same:SIZE, rolling:SIZE)",
			    names[r]);
		unfit = zap_unfit(&c, c.vcpu_bytes * c.nr_vcpus);
		if (unfit)
			die("--table %s: %s", names[r], unfit);
	}
	printf("mmubench zap --table: %u vCPU%s x %llu MiB, backing %s, "
	       "%u invalidations per run, MMU %s\n", cfg->nr_vcpus,
	       cfg->nr_vcpus > 1 ? "s" : "",
	       (unsigned long long)(cfg->vcpu_bytes / MMUB_MIB),
	       backing_names[cfg->backing], cfg->zap_count, kvm_mmu_kind());
	if (probes_status(why, sizeof(why)))
		printf("kernel probes: unavailable (%s); zap and fault-side "
		       "figures are user-space proxies\n", why);
	for (u32 r = 0; r < nr; r++) {
		struct run_config c = *cfg;

		zap_parse_pattern(&c, names[r]);
		c.table = NULL;
		snprintf(rows[r].name, sizeof(rows[r].name), "%s", names[r]);
		for (u32 m = 0; m < ZAP_METRIC_NR; m++)
			rows[r].v[m] = calloc(cfg->repeat, sizeof(double));
		for (u32 k = 0; k < cfg->repeat; k++) {
			if (zap_run_once(&c, z, &j, &json_open, false))
				return 1;
			if (z->violations) {
				zap_print(&c, z);
				return 1;
			}
			for (u32 m = 0; m < ZAP_METRIC_NR; m++)
				rows[r].v[m][k] = zap_metric(z, m);
			rows[r].n++;
		}
	}
	/* The seed's two tables first: kernel-side where probes worked. */
	if (z->kprobes) {
		print_metric(rows, nr, ZAP_KERNEL_TOTAL_MS, cfg->repeat);
		print_metric(rows, nr, ZAP_KERNEL_FWAIT_P999_US, cfg->repeat);
	}
	print_metric(rows, nr, ZAP_TOTAL_MS, cfg->repeat);
	print_metric(rows, nr, ZAP_FAULT_P999_US, cfg->repeat);
	for (u32 m = 0; m < ZAP_KERNEL_TOTAL_MS; m++)
		if (m != ZAP_TOTAL_MS && m != ZAP_FAULT_P999_US)
			print_metric(rows, nr, m, cfg->repeat);
	if (json_open)
		report_json_finish(&j, cfg);
	for (u32 r = 0; r < nr; r++)
		for (u32 m = 0; m < ZAP_METRIC_NR; m++)
			free(rows[r].v[m]);
	free(rows);
	free(z);
	return 0;
}
