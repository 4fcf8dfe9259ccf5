// SPDX-License-Identifier: GPL-2.0
/*
 * "mmubench dirty-log --table enable": the time to start dirty logging,
 * rows by page size, columns by mode, as the cover letters of seeds 000
 * and 003 tabulate it (memory_global_dirty_log_start in QEMU).  A row
 * this machine cannot provide says n/a and why; none is dropped.
 */
#include <stdlib.h>
#include <string.h>
#include "util/util.h"
#include "util/progress.h"
#include "kernel/dirty_log.h"
#include "results/json.h"
#include "results/statistics.h"
#include "scenarios/dirty_log_table.h"
#include "scenarios/page_rows.h"

static const enum dlog_mode all_cols[] = {
	DLOG_GET, DLOG_CLEAR, DLOG_CLEAR_INIT_SET,
};

#define NR_ROWS	NR_PAGE_ROWS
#define NR_COLS	MMUB_ARRAY_SIZE(all_cols)

/*
 * The columns this run measures (--table-modes), in their order: at a
 * seed's sizes every cell is a populate of the whole memory, and a seed
 * needs one or two of the three.
 */
static enum dlog_mode cols[NR_COLS];
static u32 nr_cols;

void table_modes_parse(struct table_modes *t, const char *arg)
{
	char buf[128], *save = NULL, *tok;
	u32 k;

	snprintf(buf, sizeof(buf), "%s", arg);
	t->n = 0;
	for (tok = strtok_r(buf, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save)) {
		for (k = 0; k < NR_COLS; k++)
			if (!strcmp(tok, dlog_mode_names[all_cols[k]]))
				break;
		if (k == NR_COLS)
			die("--table-modes %s: unknown mode '%s' (accepted: get, "
			    "clear, clear-init-set)", arg, tok);
		for (u32 i = 0; i < t->n; i++)
			if (t->mode[i] == all_cols[k])
				die("--table-modes %s: %s twice", arg, tok);
		t->mode[t->n++] = all_cols[k];
	}
	if (!t->n)
		die("--table-modes %s: a comma-separated list of get, clear, "
		    "clear-init-set", arg);
}

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

struct cell_run {
	const struct page_row *row;
	enum dlog_mode mode;
	double ms;
};

/* One cell, one repetition: populate, time the enable. */
static int once(struct vm *vm, struct run *run, u32 index, void *arg)
{
	struct cell_run *cr = arg;
	struct phase *p;
	struct dlog d;

	(void)index;
	vm_post(vm, MMUB_CMD_PASS, 0);
	if (vm_wait(vm))
		return -1;
	run_dlog_init(&d, vm, cr->mode, 0);
	p = run_phase_begin(vm, run, "enable");
	cr->ms = dlog_enable(&d, true);
	run_phase_end(vm, p);
	run_dlog_free(&d, vm);
	jset(run->json, "page", json_string(cr->row->name));
	jset(run->json, "backing", json_string(backing_names[cr->row->backing]));
	jset(run->json, "mode", json_string(dlog_mode_names[cr->mode]));
	jset(run->json, "enable_ms", jnum(cr->ms));
	return 0;
}

static void print_table(const struct common *c, struct cell cl[][NR_COLS])
{
	printf("enable_ms, median of %u (KVM_MEM_LOG_DIRTY_PAGES on every test "
	       "slot, summed)\n\n", c->repeat);
	printf("  %-10s", "page size");
	for (u32 k = 0; k < nr_cols; k++)
		printf(" %15s", dlog_mode_names[cols[k]]);
	printf("\n  %-10s", "---------");
	for (u32 k = 0; k < nr_cols; k++)
		printf(" %15s", "--------------");
	printf("\n");
	for (u32 r = 0; r < NR_ROWS; r++) {
		printf("  %-10s", page_rows[r].name);
		if (cl[r][0].na) {
			printf(" n/a: %s\n", cl[r][0].na);
			continue;
		}
		for (u32 k = 0; k < nr_cols; k++) {
			if (cl[r][k].na)
				printf(" %15s", "n/a");
			else
				printf(" %15.3f", median(cl[r][k].ms, cl[r][k].n));
		}
		printf("\n");
	}
}

/* Rows this machine cannot provide stay in the JSON, with the reason. */
static void na_rows(struct doc *doc, struct cell cl[][NR_COLS])
{
	for (u32 r = 0; r < NR_ROWS; r++)
		for (u32 k = 0; k < nr_cols; k++) {
			json_t *o;

			if (!cl[r][k].na)
				continue;
			o = json_object();
			jset(o, "page", json_string(page_rows[r].name));
			jset(o, "backing",
			     json_string(backing_names[page_rows[r].backing]));
			jset(o, "mode", json_string(dlog_mode_names[cols[k]]));
			jset(o, "na", json_string(cl[r][k].na));
			json_array_append_new(doc->runs, o);
		}
}

/* Every repetition of one row's cells. */
static int measure_row(struct doc *doc, const struct common *c, u32 r,
		       struct cell *cells)
{
	struct vm_params p = c->vm;
	const char *na;

	page_row_params(&p, &page_rows[r]);
	na = page_row_unavailable(&p, &page_rows[r]);
	for (u32 k = 0; k < nr_cols; k++) {
		struct cell *cl = &cells[k];
		struct cell_run cr = { .row = &page_rows[r], .mode = cols[k] };
		struct run_hooks h = { .once = once, .arg = &cr };

		cl->na = na ? strdup(na) : NULL;
		if (cl->na) {
			progress_skip(c->repeat);
			continue;
		}
		cl->ms = calloc(c->repeat, sizeof(double));
		if (!cl->ms)
			die("out of memory");
		for (u32 i = 0; i < c->repeat; i++) {
			progress_step(1, "%s %s, run %u of %u", page_rows[r].name,
				      dlog_mode_names[cols[k]], i + 1, c->repeat);
			if (run_one(doc, &p, &h, i, false))
				return -1;
			cl->ms[cl->n++] = cr.ms;
		}
	}
	return 0;
}

int dirty_log_table(const struct common *c, const struct table_modes *t)
{
	json_t *config, *modes;
	struct cell cells[NR_ROWS][NR_COLS] = {};
	struct doc doc;
	char why[200];
	int ret = 0;

	nr_cols = t->n ? t->n : NR_COLS;
	for (u32 k = 0; k < nr_cols; k++)
		cols[k] = t->n ? t->mode[k] : all_cols[k];
	for (u32 k = 0; k < nr_cols; k++)
		dlog_preflight(cols[k], 0);
	printf("mmubench dirty-log --table enable: %u vCPU%s x %s per row "
	       "(rounded up to the row's page size), %u slot%s, MMU %s\n",
	       c->vm.nr_vcpus, c->vm.nr_vcpus > 1 ? "s" : "",
	       fmt_size(c->vm.vcpu_bytes, why, sizeof(why)), c->vm.nr_slots,
	       c->vm.nr_slots > 1 ? "s" : "", kvm_mmu_kind());
	config = json_pack("{s:s}", "table", "enable");
	modes = json_array();
	for (u32 k = 0; k < nr_cols; k++)
		json_array_append_new(modes,
				      json_string(dlog_mode_names[cols[k]]));
	jset(config, "table_modes", modes);
	doc_begin(&doc, c, "dirty-log", config);
	progress_begin("dirty-log --table", NR_ROWS * nr_cols * c->repeat,
		       NR_ROWS * nr_cols * c->repeat);
	for (u32 r = 0; r < NR_ROWS && !ret; r++)
		ret = measure_row(&doc, c, r, cells[r]);
	progress_end();
	if (!ret) {
		print_table(c, cells);
		na_rows(&doc, cells);
		doc_finish(&doc);
	} else {
		doc_free(&doc);
	}
	for (u32 r = 0; r < NR_ROWS; r++)
		for (u32 k = 0; k < nr_cols; k++) {
			free(cells[r][k].ms);
			free((char *)cells[r][k].na);
		}
	return ret ? 1 : 0;
}
