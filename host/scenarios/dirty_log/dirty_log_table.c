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
#include "kvm/dirty_log.h"
#include "kvm/eager_split.h"
#include "kvm/stats.h"
#include "results/json.h"
#include "results/statistics.h"
#include "scenarios/dirty_log/dirty_log_table.h"
#include "framework/page_rows.h"

static const enum dlog_mode all_cols[] = {
	DLOG_GET, DLOG_CLEAR, DLOG_CLEAR_INIT_SET,
};

#define NR_ROWS	NR_PAGE_ROWS
#define NR_MODES	MMUB_ARRAY_SIZE(all_cols)
#define NR_COLS	(NR_MODES * EAGER_SPLIT_MAX)

/*
 * The columns this run measures: the modes (--table-modes), in their
 * order, each under every eager-split setting given (none: the kernel's
 * own).  At a seed's sizes every cell is a populate of the whole memory,
 * and a seed needs one or two of the three modes.
 */
struct col {
	enum dlog_mode mode;
	const struct eager_split *es;	/* NULL: untouched */
};

static struct col cols[NR_COLS];
static u32 nr_cols;

/* A column's heading: "clear", or "clear/on" with eager splitting. */
static const char *col_name(const struct col *k, char *buf, size_t len)
{
	char es[32];

	if (!k->es)
		snprintf(buf, len, "%s", dlog_mode_names[k->mode]);
	else
		snprintf(buf, len, "%s/%s", dlog_mode_names[k->mode],
			 eager_name(k->es, es, sizeof(es)));
	return buf;
}

void table_modes_parse(struct table_modes *t, const char *arg)
{
	char buf[128], *save = NULL, *tok;
	u32 k;

	snprintf(buf, sizeof(buf), "%s", arg);
	t->n = 0;
	for (tok = strtok_r(buf, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save)) {
		for (k = 0; k < NR_MODES; k++)
			if (!strcmp(tok, dlog_mode_names[all_cols[k]]))
				break;
		if (k == NR_MODES)
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
	s64 pages[VM_PAGE_SIZES];	/* mapped after enabling, last run; -1: n/a */
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
	const struct col *col;
	double ms;
	s64 pages[VM_PAGE_SIZES];
};

/*
 * What the MMU maps once logging is on, by page size: eager splitting
 * shows here (2M mappings gone to 4K at the enable, not at the writes).
 */
static void pages_after(struct vm *vm, struct cell_run *cr, json_t *run)
{
	json_t *o = json_object();

	vm_pages_by_size(vm, cr->pages);
	for (u32 s = 0; s < VM_PAGE_SIZES; s++)
		jset(o, vm_page_size_stats[s], cr->pages[s] < 0 ? json_null() :
		     json_integer((json_int_t)cr->pages[s]));
	jset(run, "pages_after_enable", o);
}

/* One cell, one repetition: populate, time the enable. */
static int once(struct vm *vm, struct run *run, u32 index, void *arg)
{
	struct cell_run *cr = arg;
	struct phase *p;
	struct dlog d;
	char es[32];

	(void)index;
	vm_post(vm, MMUB_CMD_PASS, 0);
	if (vm_wait(vm))
		return -1;
	run_dlog_init(&d, vm, cr->col->mode, 0);
	p = run_phase_begin(vm, run, "enable");
	cr->ms = dlog_enable(&d, true);
	run_phase_end(vm, p);
	pages_after(vm, cr, run->json);
	run_dlog_free(&d, vm);
	jset(run->json, "page", json_string(cr->row->name));
	jset(run->json, "backing", json_string(backing_names[cr->row->backing]));
	jset(run->json, "mode", json_string(dlog_mode_names[cr->col->mode]));
	jset(run->json, "eager_split", cr->col->es ?
	     json_string(eager_name(cr->col->es, es, sizeof(es))) :
	     json_null());
	jset(run->json, "enable_ms", jnum(cr->ms));
	return 0;
}

static void print_heading(void)
{
	char name[48];

	printf("  %-10s", "page size");
	for (u32 k = 0; k < nr_cols; k++)
		printf(" %15s", col_name(&cols[k], name, sizeof(name)));
	printf("\n  %-10s", "---------");
	for (u32 k = 0; k < nr_cols; k++)
		printf(" %15s", "--------------");
	printf("\n");
}

static void print_times(const struct common *c, struct cell cl[][NR_COLS])
{
	printf("enable_ms, median of %u (KVM_MEM_LOG_DIRTY_PAGES on every test "
	       "slot, summed)\n\n", c->repeat);
	print_heading();
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

/* "4K/2M/1G" counts of one cell, "n/a" where KVM has no such stat. */
static const char *fmt_pages(const struct cell *cl, char *buf, size_t len)
{
	size_t at = 0;

	for (u32 s = 0; s < VM_PAGE_SIZES && at < len; s++) {
		if (cl->pages[s] < 0) {
			snprintf(buf, len, "n/a");
			break;
		}
		at += (size_t)snprintf(buf + at, len - at, "%s%lld",
				       s ? "/" : "", (long long)cl->pages[s]);
	}
	return buf;
}

/*
 * The mappings once logging is on, by size: whether the enable split
 * them (eager) or left them for the vCPUs' writes.  x86 only: arm64's
 * KVM counts no page sizes.
 */
static void print_pages(struct cell cl[][NR_COLS])
{
	char buf[64];
	bool any = false;

	for (u32 r = 0; r < NR_ROWS; r++)
		any |= !cl[r][0].na && cl[r][0].pages[0] >= 0;
	printf("\npages mapped after enabling, 4K/2M/1G (KVM's pages_4k, "
	       "pages_2m, pages_1g; last run)\n\n");
	if (!any) {
		printf("  n/a: this KVM counts no mappings by page size "
		       "(pages_4k/2m/1g are x86's stats)\n");
		return;
	}
	print_heading();
	for (u32 r = 0; r < NR_ROWS; r++) {
		printf("  %-10s", page_rows[r].name);
		if (cl[r][0].na) {
			printf(" n/a\n");
			continue;
		}
		for (u32 k = 0; k < nr_cols; k++)
			printf(" %15s", cl[r][k].na ? "n/a" :
			       fmt_pages(&cl[r][k], buf, sizeof(buf)));
		printf("\n");
	}
}

/* Rows this machine cannot provide stay in the JSON, with the reason. */
static void na_rows(struct doc *doc, struct cell cl[][NR_COLS])
{
	char es[32];

	for (u32 r = 0; r < NR_ROWS; r++)
		for (u32 k = 0; k < nr_cols; k++) {
			json_t *o;

			if (!cl[r][k].na)
				continue;
			o = json_object();
			jset(o, "page", json_string(page_rows[r].name));
			jset(o, "backing",
			     json_string(backing_names[page_rows[r].backing]));
			jset(o, "mode",
			     json_string(dlog_mode_names[cols[k].mode]));
			jset(o, "eager_split", cols[k].es ?
			     json_string(eager_name(cols[k].es, es,
						    sizeof(es))) :
			     json_null());
			jset(o, "na", json_string(cl[r][k].na));
			json_array_append_new(doc->runs, o);
		}
}

/* The sweep's cells: row by row, each column of the row. */
struct dl_sweep {
	const struct common *c;
	struct cell (*cells)[NR_COLS];
	struct cell_run cr;
};

static void dl_cell(u32 i, struct sweep_cell *sc, void *arg)
{
	struct dl_sweep *ds = arg;
	u32 r = i / nr_cols, k = i % nr_cols;
	struct cell *cl = &ds->cells[r][k];
	const struct eager_split *es = cols[k].es;
	const char *na;
	char name[48];

	page_row_params(&sc->vp, &page_rows[r]);
	na = page_row_unavailable(&sc->vp, &page_rows[r]);
	cl->na = na ? strdup(na) : NULL;
	sc->na = cl->na;
	if (na)
		return;
	cl->ms = calloc(ds->c->repeat, sizeof(double));
	if (!cl->ms)
		die("out of memory");
	/* The VM's setting (arm64), or the module's (x86). */
	sc->vp.eager_chunk_set = es && es->kind == EAGER_ARM64_CHUNK;
	sc->vp.eager_chunk = es ? es->chunk : 0;
	if (es)
		eager_apply_x86(es);
	ds->cr = (struct cell_run){ .row = &page_rows[r], .col = &cols[k] };
	sc->h = (struct run_hooks){ .once = once, .arg = &ds->cr };
	snprintf(sc->label, sizeof(sc->label), "%s %s", page_rows[r].name,
		 col_name(&cols[k], name, sizeof(name)));
}

static void dl_ran(u32 i, u32 k, json_t *run, void *arg)
{
	struct dl_sweep *ds = arg;
	struct cell *cl = &ds->cells[i / nr_cols][i % nr_cols];

	(void)k;
	(void)run;
	cl->ms[cl->n++] = ds->cr.ms;
	memcpy(cl->pages, ds->cr.pages, sizeof(cl->pages));
}

/* The columns: each mode, under each eager-split setting given. */
static void set_cols(const struct table_modes *t, const struct eager_list *e)
{
	u32 nm = t->n ? t->n : NR_MODES;

	nr_cols = 0;
	for (u32 m = 0; m < nm; m++)
		for (u32 s = 0; s < (e->n ? e->n : 1); s++)
			cols[nr_cols++] = (struct col) {
				.mode = t->n ? t->mode[m] : all_cols[m],
				.es = e->n ? &e->s[s] : NULL,
			};
}

static json_t *table_config(const struct eager_list *e)
{
	json_t *config = json_pack("{s:s}", "table", "enable");
	json_t *modes = json_array(), *eager = json_array();
	char es[32];

	for (u32 k = 0; k < nr_cols; k++) {
		if (k && cols[k].mode == cols[k - 1].mode)
			continue;
		json_array_append_new(modes,
				      json_string(dlog_mode_names[cols[k].mode]));
	}
	for (u32 s = 0; s < e->n; s++)
		json_array_append_new(eager, json_string(
			eager_name(&e->s[s], es, sizeof(es))));
	jset(config, "table_modes", modes);
	if (!e->n) {
		json_decref(eager);
		eager = json_null();
	}
	jset(config, "eager_split", eager);
	return config;
}

int dirty_log_table(const struct common *c, const struct table_modes *t,
		    const struct eager_list *e)
{
	struct cell cells[NR_ROWS][NR_COLS] = {};
	struct dl_sweep ds = { .c = c, .cells = cells };
	struct sweep s = {
		.title = "dirty-log --table", .runs = c->repeat,
		.cell = dl_cell, .ran = dl_ran, .arg = &ds,
	};
	struct doc doc;
	char why[200];
	int ret;

	set_cols(t, e);
	for (u32 k = 0; k < nr_cols; k++)
		dlog_preflight(cols[k].mode, 0);
	printf("mmubench dirty-log --table enable: %u vCPU%s x %s per row "
	       "(rounded up to the row's page size), %u slot%s, MMU %s\n",
	       c->vm.nr_vcpus, c->vm.nr_vcpus > 1 ? "s" : "",
	       fmt_size(c->vm.vcpu_bytes, why, sizeof(why)), c->vm.nr_slots,
	       c->vm.nr_slots > 1 ? "s" : "", vm_mmu_kind(&c->vm));
	doc_begin(&doc, c, "dirty-log", table_config(e));
	s.ncells = NR_ROWS * nr_cols;
	ret = run_sweep(&doc, c, &s);
	if (!ret) {
		print_times(c, cells);
		print_pages(cells);
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
