// SPDX-License-Identifier: GPL-2.0
/*
 * Scenario "scale": does every cost grow linearly with the memory?  For
 * each test-memory size, with 1 and 2 vCPUs and 4K and 2M pages, one VM:
 *
 *   host populate   the host faulting the test memory in (before boot)
 *   first pass      the guest's first touch: KVM's faults
 *   second pass     the touch loop once everything is mapped
 *   enable          dirty logging on, in get, clear and clear-init-set
 *   harvest         one KVM_GET_DIRTY_LOG after a pass with get
 *   zap             MADV_DONTNEED of the whole test memory
 *   rss             what the VM added to the process's resident memory,
 *                   measured after the zap gave the test memory back: the
 *                   guest's system memory (its page tables grow with the
 *                   test memory: 2 MiB per GiB of 4K pages), the harness's
 *                   bitmaps (32 KiB per GiB each) and per-vCPU state.
 *                   Anything else per GiB is the harness allocating per
 *                   page: a finding, flagged.
 *
 * Each figure is printed per GiB, with a line fitted through the sizes;
 * one whose per-GiB value at the largest size exceeds the smallest
 * size's by more than 10 % is flagged as growing faster than linear
 * (unless it stays under 1 ms or MiB there: timer noise, not growth).
 * A benchmark: it prints, it asserts nothing.
 */
#define _GNU_SOURCE
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include "util/util.h"
#include "util/parse.h"
#include "results/json.h"
#include "framework/page_rows.h"
#include "scenarios/scenarios.h"

#define MAX_SIZES	16
#define MAX_VCPU_COUNTS	4
#define SUPERLINEAR	1.10
#define FLAG_MIN	1.0	/* ms or MiB */
/* The harness's own memory per GiB of test memory: 2 bitmaps. */
#define BITMAPS_MIB_PER_GIB	(2 * 32.0 / 1024)

enum { O_SIZES = 512, O_VCPU_COUNTS };

static const struct opt opts[] = {
	{ "sizes", O_SIZES, required_argument, "LIST",
	  "test-memory sizes, smallest first (1g,2g,4g,8g,16g)" },
	{ "vcpu-counts", O_VCPU_COUNTS, required_argument, "LIST",
	  "vCPU counts, each dividing every size (1,2)" },
	{ NULL },
};

static struct {
	u64 sizes[MAX_SIZES];
	u32 nsizes;
	u32 vcpus[MAX_VCPU_COUNTS];
	u32 nvcpus;
} o;

static const char *const col_names[] = {
	"host_populate_ms", "first_pass_ms", "second_pass_ms", "enable_get_ms",
	"enable_clear_ms", "enable_init_set_ms", "harvest_ms", "zap_ms",
	"rss_mib",
};

#define NR_COLS	MMUB_ARRAY_SIZE(col_names)

static const enum dlog_mode modes[] = {
	DLOG_GET, DLOG_CLEAR, DLOG_CLEAR_INIT_SET,
};

struct cell {
	const char *na;		/* why this size cannot run, or NULL */
	double v[NR_COLS];
	u64 rss_kb;		/* before the VM */
};

/* "1g,2g": ascending sizes; "1,2": vCPU counts. */
static void parse_list(const char *opt, const char *arg, bool sizes)
{
	char *copy = strdup(arg), *tok, *save = NULL;
	u32 n = 0;

	if (!copy)
		die("out of memory");
	for (tok = strtok_r(copy, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save), n++) {
		if (n == (sizes ? MAX_SIZES : MAX_VCPU_COUNTS))
			die("%s %s: at most %u values", opt, arg,
			    sizes ? MAX_SIZES : MAX_VCPU_COUNTS);
		if (!sizes) {
			o.vcpus[n] = (u32)parse_u64(opt, tok, 1, MMUB_MAX_VCPUS);
			continue;
		}
		o.sizes[n] = parse_size(opt, tok, MMUB_SZ_2M);
		if (n && o.sizes[n] <= o.sizes[n - 1])
			die("%s %s: sizes must grow, smallest first", opt, arg);
	}
	free(copy);
	if (!n)
		die("%s: a comma-separated list", opt);
	if (sizes)
		o.nsizes = n;
	else
		o.nvcpus = n;
}

static void parse(int key, const char *arg)
{
	if (key == O_SIZES)
		parse_list("--sizes", arg, true);
	else if (key == O_VCPU_COUNTS)
		parse_list("--vcpu-counts", arg, false);
}

static void validate(struct common *c)
{
	if (!o.nsizes)
		parse_list("--sizes", "1g,2g,4g,8g,16g", true);
	if (!o.nvcpus)
		parse_list("--vcpu-counts", "1,2", false);
	if (c->given & (GIVEN_BACKING | GIVEN_PAGE))
		die("scale: each row sets its own backing and page size; not "
		    "with -s or --guest-page");
	if (c->given & (GIVEN_VCPUS | GIVEN_BYTES))
		die("scale: the sizes and vCPU counts are --sizes and "
		    "--vcpu-counts; not -v or -b");
	if (c->repeat > 1)
		die("scale: one VM per size; not with --repeat %u", c->repeat);
	for (u32 s = 0; s < o.nsizes; s++)
		for (u32 v = 0; v < o.nvcpus; v++)
			if (o.sizes[s] % ((u64)o.vcpus[v] * MMUB_SZ_2M))
				die("--sizes: %llu bytes do not split into %u "
				    "vCPU shares of whole 2M pages",
				    (unsigned long long)o.sizes[s], o.vcpus[v]);
	dlog_preflight(DLOG_CLEAR_INIT_SET, 0);
}

/* kB in /proc/self/status or /proc/meminfo for @key, or 0. */
static u64 proc_kb(const char *file, const char *key)
{
	char line[256];
	u64 kb = 0;
	size_t n = strlen(key);
	FILE *f = fopen(file, "r");

	while (f && fgets(line, sizeof(line), f))
		if (!strncmp(line, key, n) && line[n] == ':')
			kb = strtoull(line + n + 1, NULL, 10);
	if (f)
		fclose(f);
	return kb;
}

static void before(void *arg)
{
	struct cell *cl = arg;

	cl->rss_kb = proc_kb("/proc/self/status", "VmRSS");
}

static int once(struct vm *vm, struct run *run, u32 index, void *arg)
{
	struct cell *cl = arg;
	struct dlog d;
	double t;

	(void)index;
	cl->v[0] = vm->boot.populate_ms;
	if (run_pass(vm, run, "first", 0) || run_pass(vm, run, "second", 1))
		return -1;
	cl->v[1] = run->ph[0].wall_ms;
	cl->v[2] = run->ph[1].wall_ms;
	for (u32 k = 0; k < MMUB_ARRAY_SIZE(modes); k++) {
		run_dlog_init(&d, vm, modes[k], 0);
		cl->v[3 + k] = dlog_enable(&d, true);
		if (modes[k] == DLOG_GET) {
			if (run_pass(vm, run, "logged", 2))
				return -1;
			t = now_ms();
			dlog_harvest(&d);
			cl->v[6] = now_ms() - t;
		}
		dlog_enable(&d, false);
		run_dlog_free(&d, vm);
	}
	t = now_ms();
	if (madvise(vm->test.hva, vm->test.size, MADV_DONTNEED))
		die("scale: madvise(MADV_DONTNEED): %m");
	cl->v[7] = now_ms() - t;
	cl->v[8] = ((double)proc_kb("/proc/self/status", "VmRSS") -
		    (double)cl->rss_kb) / 1024.0;
	for (u32 k = 0; k < NR_COLS; k++)
		jset(run->json, col_names[k], jnum(cl->v[k]));
	return 0;
}

/* Why @bytes of test memory cannot run here now, or NULL. */
static const char *too_big(u64 bytes)
{
	static char why[96];
	u64 avail = proc_kb("/proc/meminfo", "MemAvailable") * MMUB_KIB;
	char a[32], b[32];

	/* Room for the guest's system memory and the rest of the machine. */
	if (bytes + bytes / 16 + 512 * MMUB_MIB <= avail)
		return NULL;
	snprintf(why, sizeof(why), "does not fit: %s of test memory, %s "
		 "available", fmt_size(bytes, a, sizeof(a)),
		 fmt_size(avail, b, sizeof(b)));
	return why;
}

static double gib(u64 bytes)
{
	return (double)bytes / (double)(1ULL << 30);
}

/* The least-squares slope of column @k over the sizes that ran, per GiB. */
static double slope(const struct cell *cl, u32 k)
{
	double sx = 0, sy = 0, sxx = 0, sxy = 0, x, n = 0;

	for (u32 s = 0; s < o.nsizes; s++) {
		if (cl[s].na)
			continue;
		x = gib(o.sizes[s]);
		sx += x;
		sy += cl[s].v[k];
		sxx += x * x;
		sxy += x * cl[s].v[k];
		n++;
	}
	return n > 1 && n * sxx != sx * sx ?
	       (n * sxy - sx * sy) / (n * sxx - sx * sx) : NAN;
}

/* The guest's page tables per GiB of test memory with @page leaves. */
static double tables_mib_per_gib(u64 page)
{
	return page == MMUB_SZ_4K ? 2.0 : 1.0 / 256;
}

/* rss per GiB beyond the page tables and bitmaps: per-page allocation. */
static void check_rss(double slope, u64 page)
{
	double known = tables_mib_per_gib(page) + BITMAPS_MIB_PER_GIB;

	printf("  rss_mib: %.3f MiB per GiB; the guest's page tables %.3f and "
	       "the bitmaps %.3f explain %.3f\n", slope,
	       tables_mib_per_gib(page), BITMAPS_MIB_PER_GIB, known);
	if (slope > known + 0.25)
		printf("  FLAG rss_mib: %.3f MiB per GiB unexplained: the "
		       "harness allocates per page\n", slope - known);
}

/* One row per size: its figures, or n/a and why. */
static void print_rows(const struct cell *cl)
{
	char sz[32];

	printf("  %-8s", "size");
	for (u32 k = 0; k < NR_COLS; k++)
		printf(" %*s", (int)strlen(col_names[k]), col_names[k]);
	printf("\n");
	for (u32 s = 0; s < o.nsizes; s++) {
		printf("  %-8s", fmt_size(o.sizes[s], sz, sizeof(sz)));
		if (cl[s].na) {
			printf(" n/a: %s\n", cl[s].na);
			continue;
		}
		for (u32 k = 0; k < NR_COLS; k++)
			printf(" %*.2f", (int)strlen(col_names[k]), cl[s].v[k]);
		printf("\n");
	}
}

/* Column @k's per-GiB value at size @hi against size @lo. */
static void flag_superlinear(const struct cell *cl, u32 k, u32 lo, u32 hi)
{
	double first = cl[lo].v[k] / gib(o.sizes[lo]);
	double last = cl[hi].v[k] / gib(o.sizes[hi]);
	char sz[32];

	if (first > 0 && last > first * SUPERLINEAR && cl[hi].v[k] >= FLAG_MIN)
		printf("  FLAG %s grows faster than linear: %.3f per GiB at "
		       "%s, %.3f at the smallest\n", col_names[k], last,
		       fmt_size(o.sizes[hi], sz, sizeof(sz)), first);
}

static void print_block(const struct cell *cl, const char *title, u64 page)
{
	double b[NR_COLS];
	u32 k, s, lo = o.nsizes, hi = 0;

	printf("\n%s\n", title);
	print_rows(cl);
	for (s = 0; s < o.nsizes; s++)
		if (!cl[s].na) {
			lo = mmub_min(lo, s);
			hi = s;
		}
	if (lo >= hi)
		return;
	printf("  %-8s", "per GiB");
	for (k = 0; k < NR_COLS; k++) {
		b[k] = slope(cl, k);
		printf(" %*.3f", (int)strlen(col_names[k]), b[k]);
	}
	printf("   (slope of the fitted line)\n");
	check_rss(b[NR_COLS - 1], page);
	for (k = 0; k < NR_COLS; k++)
		flag_superlinear(cl, k, lo, hi);
}

/*
 * The sweep's cells: page rows, then vCPU counts, then sizes, one run
 * each; a block of sizes is printed once its last size ran.
 */
struct scale_sweep {
	struct cell cl[MAX_SIZES];	/* the block's */
};

static void scale_at(u32 i, const struct page_row **row, u32 *vcpus, u32 *s)
{
	*row = &page_rows[i / (o.nvcpus * o.nsizes)];
	*vcpus = o.vcpus[i / o.nsizes % o.nvcpus];
	*s = i % o.nsizes;
}

static void scale_cell(u32 i, struct sweep_cell *sc, void *arg)
{
	struct scale_sweep *ss = arg;
	const struct page_row *row;
	u32 vcpus, s;
	char sz[32];

	scale_at(i, &row, &vcpus, &s);
	if (!s)
		memset(ss->cl, 0, sizeof(ss->cl));
	sc->vp.nr_vcpus = vcpus;
	sc->vp.vcpu_bytes = o.sizes[s] / vcpus;
	page_row_params(&sc->vp, row);
	sc->na = page_row_unavailable(&sc->vp, row) ?: too_big(o.sizes[s]);
	ss->cl[s].na = sc->na;
	if (sc->na) {
		sc->na_run = json_pack("{s:s, s:i, s:I, s:s}", "page", row->name,
				       "vcpus", vcpus, "size",
				       (json_int_t)o.sizes[s], "na", sc->na);
		return;
	}
	sc->h = (struct run_hooks){ .before = before, .once = once,
				    .arg = &ss->cl[s] };
	snprintf(sc->label, sizeof(sc->label), "%s pages, %u vCPU%s, %s",
		 row->name, vcpus, vcpus > 1 ? "s" : "",
		 fmt_size(o.sizes[s], sz, sizeof(sz)));
}

static double scale_work(u32 i, void *arg)
{
	(void)arg;
	return gib(o.sizes[i % o.nsizes]);
}

static void scale_ran(u32 i, u32 k, json_t *run, void *arg)
{
	const struct page_row *row;
	u32 vcpus, s;

	(void)k;
	(void)arg;
	scale_at(i, &row, &vcpus, &s);
	jset(run, "page", json_string(row->name));
}

static void scale_done(u32 i, const char *na, void *arg)
{
	struct scale_sweep *ss = arg;
	const struct page_row *row;
	u32 vcpus, s;
	char title[96];

	(void)na;
	scale_at(i, &row, &vcpus, &s);
	if (s + 1 < o.nsizes)
		return;
	snprintf(title, sizeof(title), "%s pages (-s %s), %u vCPU%s",
		 row->name, backing_names[row->backing], vcpus,
		 vcpus > 1 ? "s" : "");
	print_block(ss->cl, title, row->page);
}

static int run(struct common *c)
{
	struct scale_sweep ss = {};
	struct sweep s = {
		.title = "scale", .ncells = 2 * o.nvcpus * o.nsizes, .runs = 1,
		.one_run = true, .cell = scale_cell, .work = scale_work,
		.ran = scale_ran, .done = scale_done, .arg = &ss,
	};
	struct doc doc;
	int ret;

	printf("mmubench scale: each size, %u vCPU count%s, 4K and 2M pages; "
	       "one VM each, MMU %s\n", o.nvcpus, o.nvcpus > 1 ? "s" : "",
	       vm_mmu_kind(&c->vm));
	doc_begin(&doc, c, "scale", json_object());
	ret = run_sweep(&doc, c, &s);
	if (ret) {
		doc_free(&doc);
		return 1;
	}
	doc_finish(&doc);
	return 0;
}

const struct scenario scenario_scale = {
	.name = "scale",
	.brief = "every cost per GiB over --sizes, superlinear growth flagged",
	.help = "populate, passes, enable, harvest, zap and the harness's "
		"memory per GiB from --sizes, fitted, superlinear growth "
		"flagged (a benchmark)",
	.opts = opts,
	.parse = parse,
	.validate = validate,
	.run = run,
};
