// SPDX-License-Identifier: GPL-2.0
/*
 * "mmubench zap --table [same16,c4,...]": seed 001's six patterns, each
 * --repeat times, printed as the seed's two tables (zap_total_ms and the
 * fault side's p99.9, medians) plus the other metrics; JSON keeps every
 * repetition.  Kernel-side probes (the seed timed tdp_mmu_zap_leafs() and
 * queued_read_lock_slowpath() with perf probes) are reported by
 * kvm/probes.c where the kernel allows them.
 */
#include <stdlib.h>
#include <string.h>
#include "util/util.h"
#include "results/statistics.h"
#include "scenarios/zap/zap_table.h"

#define MAX_ROWS	16

struct zap_row {
	struct zap_opts zo;
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
		printf("  %-10s %12.1f %12.1f %12.1f\n", rows[r].zo.name,
		       st.median, st.min, st.max);
	}
}

/* The rows: all six, or the comma-separated subset; checked now. */
static u32 pick(const struct common *c, const struct zap_opts *base,
		const char *list, struct zap_row *rows)
{
	static char buf[256];
	char *save = NULL, *tok;
	u32 n = 0;

	if (!*list || !strcmp(list, "all"))
		list = "same16,same4,c16,c4,c2,c1";
	snprintf(buf, sizeof(buf), "%s", list);
	for (tok = strtok_r(buf, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save)) {
		struct zap_opts *zo = &rows[n].zo;
		const char *unfit;

		if (n == MAX_ROWS)
			die("--table %s: more than %d patterns", list, MAX_ROWS);
		*zo = *base;
		if (zap_parse_pattern(zo, tok))
			die("--table %s: unknown scenario (accepted: same16, "
			    "same4, c16, c4, c2, c1, same:SIZE, rolling:SIZE)",
			    tok);
		unfit = zap_unfit(zo, c->vm.backing,
				  c->vm.vcpu_bytes * c->vm.nr_vcpus);
		if (unfit)
			die("--table %s: %s", tok, unfit);
		n++;
	}
	return n;
}

struct zap_sweep {
	const struct common *c;
	struct zap_row *rows;
	struct zap_ctx x;
	bool kprobes;
};

static void zap_cell(u32 r, struct sweep_cell *sc, void *arg)
{
	struct zap_sweep *zs = arg;
	struct zap_row *row = &zs->rows[r];

	for (u32 m = 0; m < ZAP_METRIC_NR; m++) {
		row->v[m] = calloc(zs->c->repeat, sizeof(double));
		if (!row->v[m])
			die("out of memory");
	}
	zs->x = (struct zap_ctx){ .zo = &row->zo };
	sc->h = (struct run_hooks){ .once = zap_once, .arg = &zs->x };
	snprintf(sc->label, sizeof(sc->label), "%s", row->zo.name);
}

static void zap_ran(u32 r, u32 k, json_t *run, void *arg)
{
	struct zap_sweep *zs = arg;
	struct zap_row *row = &zs->rows[r];

	(void)run;
	for (u32 m = 0; m < ZAP_METRIC_NR; m++)
		row->v[m][k] = zap_metric(&zs->x.z, m);
	row->n++;
	zs->kprobes = zs->x.z.kprobes;
}

static int run_rows(struct doc *doc, const struct common *c,
		    struct zap_row *rows, u32 nr, bool *kprobes)
{
	struct zap_sweep zs = { .c = c, .rows = rows };
	struct sweep s = {
		.title = "zap --table", .ncells = nr, .runs = c->repeat,
		.cell = zap_cell, .ran = zap_ran, .arg = &zs,
	};
	int ret = run_sweep(doc, c, &s);

	*kprobes = zs.kprobes;
	return ret ? -1 : 0;
}

int zap_table(const struct common *c, const struct zap_opts *zo,
	      const char *list)
{
	struct zap_row rows[MAX_ROWS] = {};
	u32 nr = pick(c, zo, list, rows);
	bool kprobes = false;
	struct doc doc;
	int ret;

	printf("mmubench zap --table: %u vCPU%s x %llu MiB, backing %s, "
	       "%u invalidations per run, MMU %s\n", c->vm.nr_vcpus,
	       c->vm.nr_vcpus > 1 ? "s" : "",
	       (unsigned long long)(c->vm.vcpu_bytes / MMUB_MIB),
	       backing_names[c->vm.backing], zo->count, vm_mmu_kind(&c->vm));
	zap_say_probes(zo);
	doc_begin(&doc, c, "zap", json_pack("{s:s, s:i, s:b}", "table",
					    *list ? list : "all",
					    "zap_count", zo->count,
					    "kprobes", !zo->no_kprobes));
	ret = run_rows(&doc, c, rows, nr, &kprobes);
	if (!ret) {
		/* The seed's two tables first: kernel-side where probes worked. */
		if (kprobes) {
			print_metric(rows, nr, ZAP_KERNEL_TOTAL_MS, c->repeat);
			print_metric(rows, nr, ZAP_FWAIT_P999_US, c->repeat);
			print_metric(rows, nr, ZAP_KERNEL_P50_US, c->repeat);
			print_metric(rows, nr, ZAP_KERNEL_IQM_US, c->repeat);
		}
		print_metric(rows, nr, ZAP_TOTAL_MS, c->repeat);
		print_metric(rows, nr, ZAP_FAULT_P999_US, c->repeat);
		for (u32 m = 0; m < ZAP_KERNEL_TOTAL_MS; m++)
			if (m != ZAP_TOTAL_MS && m != ZAP_FAULT_P999_US)
				print_metric(rows, nr, m, c->repeat);
		doc_finish(&doc);
	} else {
		doc_free(&doc);
	}
	for (u32 r = 0; r < nr; r++)
		for (u32 m = 0; m < ZAP_METRIC_NR; m++)
			free(rows[r].v[m]);
	return ret ? 1 : 0;
}
