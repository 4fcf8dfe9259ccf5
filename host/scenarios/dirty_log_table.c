// SPDX-License-Identifier: GPL-2.0
/*
 * "mmubench dirty-log --table enable": the time to start dirty logging,
 * rows by page size, columns by mode, as the cover letters of seeds 000
 * and 003 tabulate it (memory_global_dirty_log_start in QEMU).  A row
 * this machine cannot provide says n/a and why; none is dropped.
 */
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "../report.h"
#include "scenarios.h"
#include "../stats.h"

static const struct table_row {
	const char *name;
	enum backing_type backing;
	u64 page;
} rows[] = {
	{ "4K", BACKING_ANONYMOUS, MMUB_SZ_4K },
	{ "2M", BACKING_ANONYMOUS_THP, MMUB_SZ_2M },
	{ "1G", BACKING_ANONYMOUS_HUGETLB_1GB, MMUB_SZ_1G },
};

static const enum dlog_mode cols[] = {
	DLOG_GET, DLOG_CLEAR, DLOG_CLEAR_INIT_SET,
};

#define NR_ROWS	MMUB_ARRAY_SIZE(rows)
#define NR_COLS	MMUB_ARRAY_SIZE(cols)

struct cell {
	const char *na;		/* why not, or NULL */
	double *ms;		/* one per repetition */
	u32 n;
};

static double median(const double *v, u32 n)
{
	struct stats_summary st;

	if (stats_summarize(v, n, &st))
		die("out of memory");
	return st.median;
}

static const char *row_unavailable(const struct run_config *cfg,
				   const struct table_row *row, u64 size)
{
	static char why[200];
	struct vm probe;

	if (row->page == MMUB_SZ_1G) {
		memset(&probe, 0, sizeof(probe));
		probe.kvm_fd = open("/dev/kvm", O_RDWR | O_CLOEXEC);
		if (probe.kvm_fd < 0)
			return "/dev/kvm";
		if (!arch_supports_page(&probe, row->page, why, sizeof(why))) {
			close(probe.kvm_fd);
			return why;
		}
		close(probe.kvm_fd);
	}
	return backing_unavailable(row->backing, size, cfg->reserve_hugepages);
}

/* One cell, one repetition: boot, populate, time the enable. */
static int measure(struct run_config *c, struct json *j, bool *json_open,
		   double *ms)
{
	struct phase p;
	struct vm vm;
	int ret;

	vm_create(&vm, c);
	ret = vm_start(&vm);
	if (!ret) {
		vm_post(&vm, MMUB_CMD_PASS, 0);
		ret = vm_wait(&vm);
	}
	if (!ret) {
		phase_begin(&vm, &p, "enable");
		*ms = dlog_enable(&vm, true);
		phase_end(&vm, &p, false);
		if (!*json_open) {
			report_json_begin(j, &vm);
			*json_open = true;
		}
		report_json_run(j, &vm, &p, 1);
		json_str(j, "page", c->guest_page == MMUB_SZ_4K ? "4K" :
			 c->guest_page == MMUB_SZ_2M ? "2M" : "1G");
		json_str(j, "backing", backing_names[c->backing]);
		json_str(j, "mode", dlog_mode_names[c->dirty_mode]);
		json_num(j, "enable_ms", *ms);
		json_obj_end(j);
		phase_free(&p);
	}
	vm_destroy(&vm);
	return ret;
}

static void print_table(const struct run_config *cfg, struct cell c[][NR_COLS])
{
	printf("enable_ms, median of %u (KVM_MEM_LOG_DIRTY_PAGES on every test "
	       "slot, summed)\n\n", cfg->repeat);
	printf("  %-10s", "page size");
	for (u32 k = 0; k < NR_COLS; k++)
		printf(" %15s", dlog_mode_names[cols[k]]);
	printf("\n  %-10s", "---------");
	for (u32 k = 0; k < NR_COLS; k++)
		printf(" %15s", "--------------");
	printf("\n");
	for (u32 r = 0; r < NR_ROWS; r++) {
		printf("  %-10s", rows[r].name);
		if (c[r][0].na) {
			printf(" n/a: %s\n", c[r][0].na);
			continue;
		}
		for (u32 k = 0; k < NR_COLS; k++) {
			if (c[r][k].na)
				printf(" %15s", "n/a");
			else
				printf(" %15.3f", median(c[r][k].ms, c[r][k].n));
		}
		printf("\n");
	}
}

/* Rows this machine cannot provide stay in the JSON, with the reason. */
static void json_na_rows(struct json *j, struct cell c[][NR_COLS])
{
	for (u32 r = 0; r < NR_ROWS; r++)
		for (u32 k = 0; k < NR_COLS; k++) {
			if (!c[r][k].na)
				continue;
			json_obj_begin(j, NULL);
			json_str(j, "page", rows[r].name);
			json_str(j, "backing", backing_names[rows[r].backing]);
			json_str(j, "mode", dlog_mode_names[cols[k]]);
			json_str(j, "na", c[r][k].na);
			json_obj_end(j);
		}
}

int dirty_log_table(const struct run_config *cfg)
{
	struct cell cells[NR_ROWS][NR_COLS] = {};
	bool json_open = false;
	struct run_config c;
	struct json j;
	char why[200];
	int fd;

	if (strcmp(cfg->table, "enable"))
		die("--table %s: unknown (accepted: enable)", cfg->table);
	fd = open("/dev/kvm", O_RDWR | O_CLOEXEC);
	for (u32 k = 0; k < NR_COLS && fd >= 0; k++)
		if (dlog_check(fd, cols[k], 0, why, sizeof(why)))
			die("%s", why);
	if (fd >= 0)
		close(fd);
	printf("mmubench dirty-log --table enable: %u vCPU%s x %s per row "
	       "(rounded up to the row's page size), %u slot%s, MMU %s\n",
	       cfg->nr_vcpus, cfg->nr_vcpus > 1 ? "s" : "",
	       fmt_size(cfg->vcpu_bytes, why, sizeof(why)), cfg->nr_slots,
	       cfg->nr_slots > 1 ? "s" : "", kvm_mmu_kind());
	for (u32 r = 0; r < NR_ROWS; r++) {
		const char *na;

		c = *cfg;
		c.guest_page = rows[r].page;
		c.backing = rows[r].backing;
		c.vcpu_bytes = mmub_align_up(cfg->vcpu_bytes, rows[r].page);
		c.iterations = 0;
		c.verify = false;
		c.table = NULL;
		na = row_unavailable(&c, &rows[r], c.vcpu_bytes * c.nr_vcpus);
		for (u32 k = 0; k < NR_COLS; k++) {
			struct cell *cl = &cells[r][k];

			cl->na = na ? strdup(na) : NULL;
			if (cl->na)
				continue;
			c.dirty_mode = cols[k];
			cl->ms = calloc(cfg->repeat, sizeof(double));
			for (u32 i = 0; i < cfg->repeat; i++)
				if (measure(&c, &j, &json_open,
					    &cl->ms[cl->n++]))
					return 1;
		}
	}
	print_table(cfg, cells);
	if (json_open) {
		json_na_rows(&j, cells);
		report_json_finish(&j, cfg);
	}
	for (u32 r = 0; r < NR_ROWS; r++)
		for (u32 k = 0; k < NR_COLS; k++) {
			free(cells[r][k].ms);
			free((char *)cells[r][k].na);
		}
	return 0;
}
