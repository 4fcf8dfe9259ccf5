// SPDX-License-Identifier: GPL-2.0
/*
 * aging --method page_idle: access tracking, as access_tracking_perf_test
 * drives it.  The vCPUs wrote every page of their memory once, so that
 * KVM maps all of it, and passed over the part the workload selects
 * (--fraction, --ranges) as a control.  Each of -i rounds then:
 *
 *   - marks the whole test memory idle in the page_idle bitmap: the
 *     kernel clears the accessed bits of every mapping of each frame,
 *     KVM's through the MMU notifier's clear_young;
 *   - reads the bitmap back at once, with the vCPUs idle: a page found
 *     young here cannot be tracked (not on an LRU list yet, or touched
 *     by someone else), and is left out of the round's counts;
 *   - lets the vCPUs pass over the selected part again (their access
 *     latency on idle memory);
 *   - reads the bitmap back: the pages found young must be exactly the
 *     pages touched.  A touched page not found young, or an untouched
 *     one found young, fails the run, naming it.
 *
 * Timed: marking, reading back, and with kprobes the kernel's time in
 * the notifier's aging hooks during each.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include "util/util.h"
#include "util/bitmap.h"
#include "kvm/page_idle.h"
#include "kvm/probes.h"
#include "results/json.h"
#include "scenarios/aging/aging.h"

void aging_page_idle_validate(struct common *c)
{
	const struct vm_params *p = &c->vm;
	char why[200];

	if (p->backing != BACKING_ANONYMOUS && p->backing != BACKING_SHMEM &&
	    p->backing != BACKING_MEMFD)
		die("-s %s: aging reads the page_idle bits of 4K pages on the "
		    "LRU lists (accepted: anonymous, shmem, memfd)",
		    backing_names[p->backing]);
	if (aging_o.move && p->backing != BACKING_ANONYMOUS)
		die("--debug-move-page: needs -s anonymous, whose freed frame "
		    "MADV_DONTNEED gives back (a file keeps its page)");
	if (page_idle_status(why, sizeof(why)))
		die("aging: %s", why);
}

/* The notifier's aging hooks, each timed by a kprobe pair. */
#define NR_HOOKS	3

static const char *const hook_names[NR_HOOKS] = {
	"clear_young", "clear_flush_young", "test_young",
};

static const struct probe_def hook_probes[2 * NR_HOOKS] = {
	{ "cy_entry", "p:mmub/cy_entry kvm_mmu_notifier_clear_young" },
	{ "cy_exit", "r:mmub/cy_exit kvm_mmu_notifier_clear_young" },
	{ "cfy_entry", "p:mmub/cfy_entry kvm_mmu_notifier_clear_flush_young" },
	{ "cfy_exit", "r:mmub/cfy_exit kvm_mmu_notifier_clear_flush_young" },
	{ "ty_entry", "p:mmub/ty_entry kvm_mmu_notifier_test_young" },
	{ "ty_exit", "r:mmub/ty_exit kvm_mmu_notifier_test_young" },
};

struct hook_time {
	bool placed;
	u64 calls;
	double ms;
};

/* A step of a round: marking or reading back. */
struct step {
	double ms;
	bool kprobes;
	struct hook_time k[NR_HOOKS];
};

struct round {
	struct step mark, read;
	u64 untracked;		/* young right after marking, or cut */
	u64 cut;		/* in the bitmap's last word: unreadable */
	struct aging_count c;
};

struct aging {
	struct page_idle pi;
	u64 *touched, *young, *untracked, *cut;
	u64 nr_pages;
	struct round rounds[2];
	u32 nr_rounds;		/* done */
	u32 want_rounds;	/* -i */
	char probes_why[200];
	bool failed;
};

static void step_probes(struct step *s, const char *text, double ns_per_unit)
{
	for (u32 h = 0; h < NR_HOOKS; h++) {
		struct mmub_hist *hist = calloc(1, sizeof(*hist));

		if (!hist || !s->k[h].placed) {
			free(hist);
			continue;
		}
		s->k[h].calls = probes_parse(text, hook_probes[2 * h].name,
					     hook_probes[2 * h + 1].name,
					     ns_per_unit, hist, NULL);
		s->k[h].ms = (double)hist->sum / 1e6;
		free(hist);
	}
}

/*
 * Mark every test page idle (@young NULL) or read the bits back into
 * @young, as phase @name, timed, with the hooks probed where possible.
 */
static int step(struct vm *vm, struct run *r, struct aging *a,
		const char *name, u64 *young, struct step *s)
{
	struct phase *p = run_phase_begin(vm, r, name);
	double ns_per_unit = 1, t;
	char *text = NULL;
	int ret, err;

	s->kprobes = !probes_trace_start(hook_probes, 2 * NR_HOOKS, 2,
					 a->probes_why, sizeof(a->probes_why));
	for (u32 h = 0; h < NR_HOOKS; h++)
		s->k[h].placed = s->kprobes && probes_trace_placed(2 * h) &&
				 probes_trace_placed(2 * h + 1);
	t = now_ms();
	ret = young ? page_idle_read(&a->pi, young, a->cut) :
		      page_idle_mark(&a->pi);
	err = errno;
	s->ms = now_ms() - t;
	if (s->kprobes)
		text = probes_trace_stop(&ns_per_unit);
	if (text)
		step_probes(s, text, ns_per_unit);
	s->kprobes = text != NULL;
	free(text);
	run_phase_end(vm, p);
	if (ret)
		err_msg("aging: %s %s: %s", young ? "reading" : "writing",
			PAGE_IDLE_BITMAP, strerror(err));
	return ret;
}

static void count(struct aging *a, struct round *rd)
{
	u64 n = a->nr_pages;

	rd->untracked = bitmap_weight(a->untracked, n);
	rd->cut = bitmap_weight(a->cut, n);
	aging_count(a->touched, a->young, a->untracked, n, &rd->c);
}

/* The first test page that is (@touched) or is not touched, and tracked. */
static s64 pick(const struct aging *a, bool touched)
{
	for (u64 i = 0; i < a->nr_pages; i++)
		if (bitmap_test(a->touched, i) == touched &&
		    !bitmap_test(a->untracked, i))
			return (s64)i;
	return -1;
}

/*
 * --debug-host-touch: after the marking, the host reads a page no vCPU
 * touches.  Its own mapping's accessed bit makes the frame young, as
 * another process's access would: the check must name it.
 */
static void host_touch_one(struct vm *vm, struct aging *a)
{
	s64 i = pick(a, false);
	char where[64];

	if (i < 0) {
		err_msg("--debug-host-touch: no untouched page to read (use "
			"--fraction or --ranges)");
		a->failed = true;
		return;
	}
	(void)*(volatile u64 *)(vm->test.hva + (u64)i * MMUB_SZ_4K);
	vm_test_page_where(vm, (u64)i, where, sizeof(where));
	err_msg("--debug-host-touch: test page %lld (%s), which no vCPU "
		"touches, read by the host after the marking, on purpose",
		(long long)i, where);
}

/*
 * --debug-move-page: a touched page gets a new frame, its content kept,
 * as compaction would move it.  Its old frame, freed by MADV_DONTNEED,
 * is taken at once by a page of ours, so that the refault cannot get it
 * back from this CPU's free list.
 */
static void move_one(struct vm *vm, struct aging *a)
{
	static u8 save[MMUB_SZ_4K];
	s64 i = pick(a, true);
	u8 *p, *hold;
	char where[64];

	if (i < 0) {
		err_msg("--debug-move-page: no touched page to move");
		a->failed = true;
		return;
	}
	p = vm->test.hva + (u64)i * MMUB_SZ_4K;
	hold = mmap(NULL, MMUB_SZ_4K, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	memcpy(save, p, sizeof(save));
	if (hold == MAP_FAILED || madvise(p, MMUB_SZ_4K, MADV_DONTNEED)) {
		err_msg("--debug-move-page: %s", strerror(errno));
		a->failed = true;
		return;
	}
	hold[0] = 1;
	memcpy(p, save, sizeof(save));
	munmap(hold, MMUB_SZ_4K);
	vm_test_page_where(vm, (u64)i, where, sizeof(where));
	err_msg("--debug-move-page: test page %lld (%s) given a new frame after "
		"the marking, its content kept, on purpose", (long long)i,
		where);
}

static void check(struct vm *vm, struct aging *a, u32 k)
{
	const struct round *rd = &a->rounds[k];

	if (aging_wrong(vm, k, &rd->c))
		a->failed = true;
	if (!rd->c.touched) {
		err_msg("aging: round %u: no trackable page was touched: "
			"nothing to check", k + 1);
		a->failed = true;
	}
}

/*
 * Outside the timed steps: a page whose frame changed during the round
 * (compaction, khugepaged, NUMA balancing) had another frame's bits
 * marked and read, and no count of the round can be trusted.
 */
static int moved(struct vm *vm, struct aging *a, u32 k)
{
	u64 first = 0, now = 0;
	s64 n = page_idle_moved(&a->pi, &first, &now);
	char where[64];

	if (n <= 0)
		return (int)n;
	vm_test_page_where(vm, first, where, sizeof(where));
	err_msg("aging: round %u: %lld test pages changed frame, the first "
		"test page %llu (%s), from pfn 0x%llx to 0x%llx: moved by the "
		"kernel (compaction, khugepaged, NUMA balancing); the bitmap "
		"was read for frames not ours", k + 1, (long long)n,
		(unsigned long long)first, where,
		(unsigned long long)a->pi.pfn[first], (unsigned long long)now);
	a->failed = true;
	return -1;
}

static int round_once(struct vm *vm, struct run *r, struct aging *a, u32 k)
{
	struct round *rd = &a->rounds[k];
	char name[32];

	snprintf(name, sizeof(name), "mark%u", k + 1);
	if (step(vm, r, a, name, NULL, &rd->mark))
		return -1;
	if (page_idle_read(&a->pi, a->untracked, a->cut)) {
		err_msg("aging: reading %s after marking: %s",
			PAGE_IDLE_BITMAP, strerror(errno));
		return -1;
	}
	for (u64 w = 0; w <= a->nr_pages / 64; w++)
		a->untracked[w] |= a->cut[w];
	if (aging_o.host_touch && k + 1 == a->want_rounds)
		host_touch_one(vm, a);
	if (aging_o.move && k + 1 == a->want_rounds)
		move_one(vm, a);
	snprintf(name, sizeof(name), "aged%u", k + 1);
	if (run_pass(vm, r, name, k + 2))
		return -1;
	snprintf(name, sizeof(name), "read%u", k + 1);
	if (step(vm, r, a, name, a->young, &rd->read))
		return -1;
	if (aging_o.drop && k + 1 == a->want_rounds)
		a->failed |= aging_drop_one(vm, a->touched, a->young,
					    a->untracked, a->nr_pages) != 0;
	count(a, rd);
	check(vm, a, k);
	if (moved(vm, a, k))
		return -1;
	a->nr_rounds = mmub_max(a->nr_rounds, k + 1);
	return 0;
}

static void print_step(const char *what, const struct step *s)
{
	printf("  %-12s %9.2f ms", what, s->ms);
	for (u32 h = 0; s->kprobes && h < NR_HOOKS; h++)
		if (s->k[h].placed)
			printf("; %s %llu calls %.2f ms", hook_names[h],
			       (unsigned long long)s->k[h].calls, s->k[h].ms);
	printf("\n");
}

static void print_round(const struct aging *a, u32 k)
{
	const struct round *rd = &a->rounds[k];

	printf("round %u: found young %llu of %llu touched; young though "
	       "untouched %llu; untracked %llu of %llu pages (%llu in the "
	       "bitmap's last word, which max_pfn cuts: unreadable)\n", k + 1,
	       (unsigned long long)rd->c.found,
	       (unsigned long long)rd->c.touched,
	       (unsigned long long)rd->c.false_young,
	       (unsigned long long)rd->untracked,
	       (unsigned long long)a->nr_pages, (unsigned long long)rd->cut);
	print_step("mark idle", &rd->mark);
	print_step("read back", &rd->read);
}

static json_t *step_json(const struct step *s)
{
	json_t *j = json_pack("{s:f}", "ms", s->ms), *k = json_object();

	for (u32 h = 0; s->kprobes && h < NR_HOOKS; h++)
		if (s->k[h].placed)
			jset(k, hook_names[h], json_pack("{s:I, s:f}", "calls",
				(json_int_t)s->k[h].calls, "ms", s->k[h].ms));
	jset(j, "kernel", s->kprobes ? k : json_null());
	if (!s->kprobes)
		json_decref(k);
	return j;
}

static json_t *aging_json(const struct aging *a)
{
	json_t *rounds = json_array();
	double mark = 0, read = 0;
	const struct round *last = &a->rounds[a->nr_rounds - 1];

	for (u32 k = 0; k < a->nr_rounds; k++) {
		const struct round *rd = &a->rounds[k];

		mark += rd->mark.ms;
		read += rd->read.ms;
		json_array_append_new(rounds, json_pack(
			"{s:i, s:I, s:I, s:I, s:I, s:I, s:I, s:o, s:o}",
			"round", (int)k + 1,
			"touched", (json_int_t)rd->c.touched,
			"found_young", (json_int_t)rd->c.found,
			"missed", (json_int_t)rd->c.missed,
			"false_young", (json_int_t)rd->c.false_young,
			"untracked", (json_int_t)rd->untracked,
			"cut", (json_int_t)rd->cut,
			"mark", step_json(&rd->mark),
			"read", step_json(&rd->read)));
	}
	return json_pack("{s:I, s:I, s:I, s:I, s:I, s:f, s:f, s:o}",
			 "pages", (json_int_t)a->nr_pages,
			 "touched", (json_int_t)last->c.touched,
			 "found_young", (json_int_t)last->c.found,
			 "false_young", (json_int_t)last->c.false_young,
			 "no_pfn", (json_int_t)a->pi.no_pfn,
			 "mark_idle_ms", mark, "read_ms", read,
			 "rounds", rounds);
}

int aging_page_idle(struct vm *vm, struct run *r, u32 n)
{
	struct aging a = { .pi = { .bitmap_fd = -1 },
			   .nr_pages = vm->test.size / MMUB_SZ_4K,
			   .want_rounds = n };
	size_t words = (a.nr_pages / 64 + 1) * 8;
	int ret = -1;

	a.touched = calloc(1, words);
	a.young = calloc(1, words);
	a.untracked = calloc(1, words);
	a.cut = calloc(1, words);
	if (!a.touched || !a.young || !a.untracked || !a.cut ||
	    page_idle_open(&a.pi, vm->test.hva, a.nr_pages))
		goto out;
	/* A touched page without a frame would count as missed. */
	if (a.pi.no_pfn) {
		err_msg("aging: %llu of %llu test pages have no frame (not "
			"populated, or swapped out): nothing to mark",
			(unsigned long long)a.pi.no_pfn,
			(unsigned long long)a.nr_pages);
		goto out;
	}
	vm_selected_pages(vm, a.touched);
	for (u32 k = 0; k < n; k++)
		if (round_once(vm, r, &a, k))
			goto out;
	report_passes(vm, r->ph, r->nph);
	for (u32 k = 0; k < a.nr_rounds; k++)
		print_round(&a, k);
	if (!a.rounds[0].mark.kprobes)
		printf("kernel probes: unavailable (%s)\n", a.probes_why);
	jset(r->json, "aging", aging_json(&a));
	ret = a.failed ? -1 : 0;
out:
	page_idle_close(&a.pi);
	free(a.touched);
	free(a.young);
	free(a.untracked);
	free(a.cut);
	return ret;
}
