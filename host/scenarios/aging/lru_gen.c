// SPDX-License-Identifier: GPL-2.0
/*
 * aging --method lru_gen: memory aged as today's kernels age it, by
 * MGLRU's aging pass (kvm/lru_gen.h), asked for in debugfs.  The pass
 * walks this process's mm and clears the accessed bit of every young
 * PTE; after 6.1 (in 6.12, not 6.1) it asks KVM too, through the MMU
 * notifier's clear_young, one 4K page a call: kvm_age_gfn() then says
 * whether the guest touched the page since the last pass.
 *
 * A first pass ("settle") clears what the fill and the control left
 * young.  Each of -i rounds then lets the vCPUs pass over the selected
 * part and runs one pass, with kprobes on kvm_age_gfn (the range asked
 * and its answer) and on kvm_mmu_notifier_clear_young, of the writer's
 * task only (the walk runs in it; kswapd's or another's calls are not
 * counted), and on both mmu_lock slow paths, anyone's.
 *
 * The check: the pages kvm_age_gfn found young in a pass must be the
 * pages touched, each one, none else; the first that is not is named.
 * It tells which pages KVM said were young, as the walk asked it; not
 * which generation the walk put them in (the debugfs counts are the
 * memcg's, every page of the process in them: printed, not checked).
 * Where the walk does not call KVM (6.1), nothing is found and nothing
 * can be checked by page: the run says so and reports the count, 0.
 *
 * --under-load: the vCPUs keep writing their selected pages through the
 * rounds, while a thread invalidates every fourth 2 MiB chunk of them
 * (MADV_DONTNEED, LOAD_PAUSE_US apart), so that they fault it back
 * (mmu_lock for read) while the pass holds it for write.  Those chunks
 * are left out of the check.  Before each pass, a window as long as the
 * pass before it, without one: the same figures, outside the pass.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include "util/util.h"
#include "util/bitmap.h"
#include "util/cleanup.h"
#include "kvm/lru_gen.h"
#include "kvm/probes.h"
#include "results/json.h"
#include "scenarios/aging/aging.h"

/* kvm_age_gfn(kvm, range): the range's start and end gfns. */
#if defined(__x86_64__)
#define RANGE	"%si"
#else
#define RANGE	"%x1"
#endif

static const struct probe_def lg_probes[] = {
	{ "age_entry", "p:mmub/age_entry kvm_age_gfn start=+8(" RANGE "):u64 "
		       "end=+16(" RANGE "):u64" },
	{ "age_exit", "r:mmub/age_exit kvm_age_gfn ret=$retval:u8" },
	{ "cy_entry", "p:mmub/cy_entry kvm_mmu_notifier_clear_young" },
	{ "cy_exit", "r:mmub/cy_exit kvm_mmu_notifier_clear_young" },
	{ "lock_entry", "p:mmub/lock_entry queued_read_lock_slowpath" },
	{ "lock_exit", "r:mmub/lock_exit queued_read_lock_slowpath" },
	{ "wlock_entry", "p:mmub/wlock_entry queued_write_lock_slowpath" },
	{ "wlock_exit", "r:mmub/wlock_exit queued_write_lock_slowpath" },
};
#define LG_REQUIRED	4	/* the age and clear_young pairs */
#define LG_RLOCK	4
#define LG_WLOCK	6

#define CHUNK_PAGES	512	/* 2 MiB */
#define LOAD_PAUSE_US	1000
#define MIN_OUTSIDE_MS	50.0

/* A pass, or the window outside one: what it took and what it saw. */
struct window {
	double ms;
	u64 clear_young, age_calls, age_young, age_bad;
	double age_ms;
	bool rlock, wlock;
	struct mmub_hist rwait, wwait;	/* ns */
	struct mmub_hist lat;		/* guest cycles */
	u64 accesses;
};

struct lg_round {
	struct window pass, outside;
	struct aging_count c;
	u64 churned;
	u64 youngest;			/* the memcg's, after the pass */
};

struct churn {
	pthread_t th;
	bool running;
	u8 *hva;
	u64 nr_pages;
	const u64 *chunks;		/* a bit per 2 MiB chunk churned */
	u64 nr_chunks;
	volatile bool stop;
	u64 invalidations;
	int err;
};

struct lg {
	struct lru_gen_memcg m;
	u64 *touched, *young, *churned;
	u64 nr_pages, gfn0;
	long tid;			/* the writer's: the walk runs in it */
	struct window settle;
	struct lg_round rounds[2];
	u32 nr_rounds;
	struct churn ch;
	bool looping;			/* the vCPUs in MMUB_CMD_LOOP */
	bool failed;
};

void aging_lru_gen_validate(struct common *c)
{
	const struct vm_params *p = &c->vm;
	char why[200];

	if (p->backing != BACKING_ANONYMOUS && p->backing != BACKING_SHMEM &&
	    p->backing != BACKING_MEMFD)
		die("-s %s: aging --method lru_gen ages 4K pages on the LRU "
		    "lists (accepted: anonymous, shmem, memfd)",
		    backing_names[p->backing]);
	if (aging_o.host_touch || aging_o.move)
		die("--debug-host-touch, --debug-move-page: --method "
		    "page_idle's; lru_gen's fault is --debug-drop-young");
	if (aging_o.under_load && p->backing != BACKING_ANONYMOUS)
		die("--under-load: needs -s anonymous, whose pages "
		    "MADV_DONTNEED frees for the vCPUs to fault back");
	if (aging_o.under_load && !(p->wl.flags & MMUB_WL_LATENCY))
		die("--under-load: not with --no-latency: the vCPUs' access "
		    "latency is one of its figures");
	if (aging_o.under_load &&
	    (u64)p->nr_vcpus * p->vcpu_bytes < 4 * CHUNK_PAGES * MMUB_SZ_4K)
		die("--under-load: needs 8 MiB of test memory or more (-v x -b): "
		    "it invalidates every fourth 2 MiB chunk");
	if (lru_gen_status(why, sizeof(why)))
		die("aging --method lru_gen: %s", why);
	if (probes_tracefs_status(why, sizeof(why)))
		die("aging --method lru_gen: %s (its check reads the young "
		    "pages from kprobes on kvm_age_gfn)", why);
	if (!probes_have_symbol("kvm_age_gfn") ||
	    !probes_have_symbol("kvm_mmu_notifier_clear_young"))
		die("aging --method lru_gen: kvm_age_gfn or "
		    "kvm_mmu_notifier_clear_young is not in /proc/kallsyms "
		    "(inlined, or KVM not loaded): its check probes both");
}

void aging_lru_gen_setup(void)
{
	char why[200];

	if (lru_gen_on(why, sizeof(why)))
		die("aging --method lru_gen: %s", why);
}

/* ---- the vCPUs' latency over a window ------------------------------ */

static void lat_now(const struct vm *vm, struct mmub_hist *h)
{
	mmub_hist_reset(h);
	for (u32 i = 0; i < vm->p.nr_vcpus; i++)
		mmub_hist_merge(h, &vm->vcpus[i].mb->lat);
}

/* @d = @a - @b: the accesses between two readings of the same loop. */
static void lat_since(struct mmub_hist *d, const struct mmub_hist *a,
		      const struct mmub_hist *b)
{
	u32 lo = MMUB_HIST_BUCKETS, hi = 0;

	mmub_hist_reset(d);
	for (u32 i = 0; i < MMUB_HIST_BUCKETS; i++) {
		d->bucket[i] = a->bucket[i] - mmub_min(a->bucket[i],
						       b->bucket[i]);
		if (d->bucket[i] && lo == MMUB_HIST_BUCKETS)
			lo = i;
		if (d->bucket[i])
			hi = i;
	}
	d->count = a->count - mmub_min(a->count, b->count);
	d->sum = a->sum - mmub_min(a->sum, b->sum);
	/* Bounds of the buckets: the exact extremes are not kept. */
	if (lo < MMUB_HIST_BUCKETS) {
		d->min = mmub_hist_bucket_low(lo);
		d->max = mmub_hist_bucket_low(hi);
	}
}

/* ---- the trace ------------------------------------------------------ */

static void on_age(const char *in, const char *out, u64 ns, void *arg)
{
	struct lg *g = ((void **)arg)[0];
	struct window *w = ((void **)arg)[1];
	const char *s = strstr(in, "start="), *e = strstr(in, "end=");
	const char *r = strstr(out, "ret=");
	u64 start, end;

	w->age_calls++;
	w->age_ms += (double)ns / 1e6;
	if (!s || !e || !r) {
		w->age_bad++;
		return;
	}
	if (!strtoul(r + 4, NULL, 0))
		return;
	w->age_young++;
	start = strtoull(s + 6, NULL, 0);
	end = strtoull(e + 4, NULL, 0);
	for (u64 gfn = mmub_max(start, g->gfn0); gfn < end; gfn++)
		if (gfn - g->gfn0 < g->nr_pages)
			bitmap_assign(g->young, gfn - g->gfn0, true);
}

static void count_call(const char *in, const char *out, u64 ns, void *arg)
{
	(void)in;
	(void)out;
	(void)ns;
	(*(u64 *)arg)++;
}

static void wait_pair(const char *in, const char *out, u64 ns, void *arg)
{
	(void)in;
	(void)out;
	mmub_hist_add(arg, ns);
}

static void read_trace(struct lg *g, struct window *w, const char *text,
		       double ns_per_unit)
{
	void *arg[2] = { g, w };

	probes_pairs(text, "age_entry", "age_exit", g->tid, ns_per_unit,
		     on_age, arg);
	probes_pairs(text, "cy_entry", "cy_exit", g->tid, ns_per_unit,
		     count_call, &w->clear_young);
	if (w->rlock)
		probes_pairs(text, "lock_entry", "lock_exit", -1, ns_per_unit,
			     wait_pair, &w->rwait);
	if (w->wlock)
		probes_pairs(text, "wlock_entry", "wlock_exit", -1,
			     ns_per_unit, wait_pair, &w->wwait);
}

/*
 * One aging pass of the memcg (@pass), or @len ms without one, traced;
 * the vCPUs' accesses meanwhile.  0, or -1 after saying why.
 */
static int window(struct vm *vm, struct lg *g, struct window *w, bool pass,
		  double len)
{
	struct mmub_hist *a = malloc(sizeof(*a)), *b = malloc(sizeof(*b));
	char why[240];
	double ns_per_unit = 1, t;
	char *text;
	int ret = -1;

	memset(w, 0, sizeof(*w));
	mmub_hist_reset(&w->rwait);
	mmub_hist_reset(&w->wwait);
	if (!a || !b)
		die("out of memory");
	if (pass && lru_gen_read(&g->m, why, sizeof(why)))
		goto out;
	if (probes_trace_start(lg_probes, MMUB_ARRAY_SIZE(lg_probes),
			       LG_REQUIRED, why, sizeof(why)))
		goto out;
	w->rlock = probes_trace_placed(LG_RLOCK) &&
		   probes_trace_placed(LG_RLOCK + 1);
	w->wlock = probes_trace_placed(LG_WLOCK) &&
		   probes_trace_placed(LG_WLOCK + 1);
	memset(g->young, 0, (g->nr_pages / 64 + 1) * 8);
	lat_now(vm, b);
	t = now_ms();
	if (pass)
		ret = lru_gen_age(&g->m, why, sizeof(why));
	else
		ret = usleep((useconds_t)(len * 1000));
	w->ms = now_ms() - t;
	lat_now(vm, a);
	text = probes_trace_stop(&ns_per_unit);
	if (!ret && !text) {
		snprintf(why, sizeof(why), "reading the trace failed");
		ret = -1;
	}
	if (text)
		read_trace(g, w, text, ns_per_unit);
	free(text);
	lat_since(&w->lat, a, b);
	w->accesses = w->lat.count;
	if (!ret && w->age_bad) {
		snprintf(why, sizeof(why), "%llu kvm_age_gfn calls without "
			 "their range or answer in the trace",
			 (unsigned long long)w->age_bad);
		ret = -1;
	}
out:
	if (ret)
		err_msg("aging: %s: %s", pass ? "the aging pass" :
			"the window outside it", why);
	free(a);
	free(b);
	return ret;
}

/* ---- the invalidations under load ---------------------------------- */

static void *churn_fn(void *arg)
{
	struct churn *c = arg;

	cleanup_thread_init();
	while (!c->stop && !c->err) {
		for (u64 k = 0; k < c->nr_chunks && !c->stop; k++) {
			u64 off = k * CHUNK_PAGES * MMUB_SZ_4K;
			u64 len = mmub_min((u64)CHUNK_PAGES * MMUB_SZ_4K,
					   c->nr_pages * MMUB_SZ_4K - off);

			if (!bitmap_test(c->chunks, k))
				continue;
			if (madvise(c->hva + off, len, MADV_DONTNEED)) {
				c->err = errno;
				break;
			}
			__atomic_add_fetch(&c->invalidations, 1,
					   __ATOMIC_RELAXED);
			usleep(LOAD_PAUSE_US);
		}
	}
	return NULL;
}

/*
 * Every fourth 2 MiB chunk that holds a touched page: its pages go into
 * @g->churned, left out of the check.
 */
static int churn_start(struct vm *vm, struct lg *g)
{
	struct churn *c = &g->ch;
	u64 *chunks, seen = 0;

	c->hva = vm->test.hva;
	c->nr_pages = g->nr_pages;
	c->nr_chunks = (g->nr_pages + CHUNK_PAGES - 1) / CHUNK_PAGES;
	chunks = calloc(c->nr_chunks / 64 + 1, 8);
	if (!chunks)
		die("out of memory");
	for (u64 k = 0; k < c->nr_chunks; k++) {
		bool touched = false;

		for (u64 i = k * CHUNK_PAGES;
		     i < mmub_min((k + 1) * CHUNK_PAGES, g->nr_pages); i++)
			touched |= bitmap_test(g->touched, i);
		if (!touched || seen++ % 4 != 3)
			continue;
		bitmap_assign(chunks, k, true);
		for (u64 i = k * CHUNK_PAGES;
		     i < mmub_min((k + 1) * CHUNK_PAGES, g->nr_pages); i++)
			bitmap_assign(g->churned, i, true);
	}
	c->chunks = chunks;
	if (!bitmap_weight(g->churned, g->nr_pages)) {
		err_msg("aging --under-load: fewer than 4 chunks of 2 MiB hold "
			"a touched page: nothing to invalidate (a larger -b or "
			"--fraction)");
		return -1;
	}
	if (pthread_create(&c->th, NULL, churn_fn, c)) {
		err_msg("aging --under-load: pthread_create failed");
		return -1;
	}
	c->running = true;
	return 0;
}

static int churn_stop(struct lg *g)
{
	struct churn *c = &g->ch;

	if (c->running) {
		c->stop = true;
		pthread_join(c->th, NULL);
		c->running = false;
	}
	free((void *)c->chunks);
	c->chunks = NULL;
	if (c->err) {
		err_msg("aging --under-load: madvise(MADV_DONTNEED): %s",
			strerror(c->err));
		return -1;
	}
	return 0;
}

/* ---- the check ------------------------------------------------------ */

static void check(struct vm *vm, struct lg *g, u32 k)
{
	struct lg_round *rd = &g->rounds[k];
	u64 n = g->nr_pages;

	rd->churned = bitmap_weight(g->churned, n);
	aging_count(g->touched, g->young, g->churned, n, &rd->c);
	/* Without a call from the walk, no page can be found: 6.1's way. */
	if (!rd->pass.clear_young) {
		rd->c.missed = 0;
		rd->c.first_missed = -1;
		return;
	}
	if (aging_wrong(vm, k, &rd->c))
		g->failed = true;
	if (!rd->c.touched) {
		err_msg("aging: round %u: no page was touched: nothing to "
			"check", k + 1);
		g->failed = true;
	}
}

/* ---- the rounds ----------------------------------------------------- */

static double outside_ms(const struct lg *g, u32 k)
{
	double prev = k ? g->rounds[k - 1].pass.ms : g->settle.ms;

	return mmub_max(prev, MIN_OUTSIDE_MS);
}

static int round_once(struct vm *vm, struct run *r, struct lg *g, u32 k)
{
	struct lg_round *rd = &g->rounds[k];
	struct phase *p;
	char name[32], why[200];

	if (aging_o.under_load) {
		/* A whole pass since the last clear: every page touched. */
		if (vm_wait_passes(vm, 2, "writing before an aging pass") ||
		    window(vm, g, &rd->outside, false, outside_ms(g, k)))
			return -1;
	} else {
		snprintf(name, sizeof(name), "aged%u", k + 1);
		if (run_pass(vm, r, name, k + 2))
			return -1;
	}
	snprintf(name, sizeof(name), "age%u", k + 1);
	p = run_phase_begin(vm, r, name);
	if (window(vm, g, &rd->pass, true, 0))
		return -1;
	run_phase_end(vm, p);
	if (aging_o.under_load && vm_check(vm))
		return -1;
	if (!lru_gen_read(&g->m, why, sizeof(why)))
		rd->youngest = g->m.youngest[0];
	return 0;
}

static int rounds(struct vm *vm, struct run *r, struct lg *g, u32 n)
{
	struct phase *p = run_phase_begin(vm, r, "settle");

	/* What the fill and the control left young, cleared. */
	if (window(vm, g, &g->settle, true, 0))
		return -1;
	run_phase_end(vm, p);
	if (aging_o.under_load && churn_start(vm, g))
		return -1;
	if (aging_o.under_load) {
		if (vm_post(vm, MMUB_CMD_LOOP, 2))
			return -1;
		g->looping = true;
	}
	for (u32 k = 0; k < n; k++) {
		if (round_once(vm, r, g, k))
			return -1;
		if (aging_o.drop && k + 1 == n)
			g->failed |= aging_drop_one(vm, g->touched, g->young,
						    g->churned,
						    g->nr_pages) != 0;
		check(vm, g, k);
		g->nr_rounds = k + 1;
	}
	return 0;
}

/* ---- the report ----------------------------------------------------- */

static void print_window(const struct vm *vm, const char *what,
			 const struct window *w)
{
	printf("  %-8s %9.2f ms; clear_young %llu calls, kvm_age_gfn %llu "
	       "calls (%.2f ms), %llu young\n", what, w->ms,
	       (unsigned long long)w->clear_young,
	       (unsigned long long)w->age_calls, w->age_ms,
	       (unsigned long long)w->age_young);
	if (w->rlock)
		printf("           mmu_lock read waits %llu, %.3f ms in all, p99 "
		       "%.1f us\n", (unsigned long long)w->rwait.count,
		       w->rwait.sum / 1e6, hist_us(&w->rwait, 990000));
	if (w->wlock)
		printf("           mmu_lock write waits %llu, %.3f ms in all, "
		       "p99 %.1f us\n", (unsigned long long)w->wwait.count,
		       w->wwait.sum / 1e6, hist_us(&w->wwait, 990000));
	if (w->accesses)
		printf("           vCPU accesses %llu, p50 %.2f us, p99 %.2f "
		       "us, p99.9 %.2f us\n", (unsigned long long)w->accesses,
		       access_ns(vm, &w->lat, 500000) / 1e3,
		       access_ns(vm, &w->lat, 990000) / 1e3,
		       access_ns(vm, &w->lat, 999000) / 1e3);
}

static void print_round(const struct vm *vm, const struct lg *g, u32 k)
{
	const struct lg_round *rd = &g->rounds[k];

	if (rd->pass.clear_young)
		printf("round %u: found young %llu of %llu touched; young "
		       "though untouched %llu", k + 1,
		       (unsigned long long)rd->c.found,
		       (unsigned long long)rd->c.touched,
		       (unsigned long long)rd->c.false_young);
	else
		printf("round %u: KVM was not called from the walk (0 "
		       "clear_young calls): the %llu touched pages cannot be "
		       "found young by it", k + 1,
		       (unsigned long long)rd->c.touched);
	if (rd->churned)
		printf("; %llu pages invalidated under load, left out",
		       (unsigned long long)rd->churned);
	printf("; the memcg's youngest generation: %llu anon pages\n",
	       (unsigned long long)rd->youngest);
	if (aging_o.under_load)
		print_window(vm, "outside", &rd->outside);
	print_window(vm, "pass", &rd->pass);
}

static json_t *window_json(const struct vm *vm, const struct window *w)
{
	json_t *j = json_pack("{s:f, s:I, s:I, s:I, s:f, s:I}", "ms", w->ms,
			      "clear_young_calls", (json_int_t)w->clear_young,
			      "age_gfn_calls", (json_int_t)w->age_calls,
			      "age_gfn_young", (json_int_t)w->age_young,
			      "age_gfn_ms", w->age_ms,
			      "accesses", (json_int_t)w->accesses);

	jset(j, "read_wait",
	     w->rlock ? hist_calls_json(&w->rwait) : json_null());
	jset(j, "write_wait",
	     w->wlock ? hist_calls_json(&w->wwait) : json_null());
	jset(j, "latency", access_us_json(vm, &w->lat));
	return j;
}

static json_t *lg_json(const struct vm *vm, const struct lg *g)
{
	const struct lg_round *last = &g->rounds[g->nr_rounds - 1];
	json_t *rounds = json_array(), *j;
	double pass = 0, rwait = 0, out_rwait = 0;
	u64 calls = 0;

	for (u32 k = 0; k < g->nr_rounds; k++) {
		const struct lg_round *rd = &g->rounds[k];
		json_t *o = json_pack(
			"{s:i, s:b, s:I, s:I, s:I, s:I, s:I, s:I}",
			"round", (int)k + 1,
			"kvm_called", rd->pass.clear_young > 0,
			"touched", (json_int_t)rd->c.touched,
			"found_young", (json_int_t)rd->c.found,
			"missed", (json_int_t)rd->c.missed,
			"false_young", (json_int_t)rd->c.false_young,
			"churned", (json_int_t)rd->churned,
			"youngest_gen_anon", (json_int_t)rd->youngest);

		jset(o, "pass", window_json(vm, &rd->pass));
		if (aging_o.under_load)
			jset(o, "outside", window_json(vm, &rd->outside));
		json_array_append_new(rounds, o);
		pass += rd->pass.ms;
		calls += rd->pass.clear_young;
		rwait += rd->pass.rwait.sum / 1e6;
		out_rwait += rd->outside.rwait.sum / 1e6;
	}
	j = json_pack("{s:s, s:i, s:s, s:I, s:I, s:I, s:I, s:f, s:I, s:f}",
		      "method", "lru_gen", "memcg_id", g->m.id, "memcg",
		      g->m.path, "pages", (json_int_t)g->nr_pages,
		      "touched", (json_int_t)last->c.touched,
		      "found_young", (json_int_t)last->c.found,
		      "false_young", (json_int_t)last->c.false_young,
		      "pass_ms", pass,
		      "clear_young_calls", (json_int_t)calls,
		      "pass_read_wait_ms", rwait);
	jset(j, "outside_read_wait_ms", aging_o.under_load ?
	     jnum(out_rwait) : json_null());
	jset(j, "settle", window_json(vm, &g->settle));
	jset(j, "invalidations", aging_o.under_load ?
	     json_integer((json_int_t)g->ch.invalidations) : json_null());
	jset(j, "rounds", rounds);
	return j;
}

int aging_lru_gen(struct vm *vm, struct run *r, u32 n)
{
	struct lg *g = calloc(1, sizeof(*g));
	size_t words;
	char why[200];
	int ret = -1;

	if (!g)
		die("out of memory");
	g->nr_pages = vm->test.size / MMUB_SZ_4K;
	g->gfn0 = vm->layout.test_gpa / MMUB_SZ_4K;
	g->tid = gettid();
	words = (g->nr_pages / 64 + 1) * 8;
	g->touched = calloc(1, words);
	g->young = calloc(1, words);
	g->churned = calloc(1, words);
	if (!g->touched || !g->young || !g->churned)
		die("out of memory");
	if (lru_gen_find(&g->m, why, sizeof(why))) {
		err_msg("aging: %s", why);
		goto out;
	}
	vm_selected_pages(vm, g->touched);
	ret = rounds(vm, r, g, n);
	if (g->looping)
		ret = vm_stop_loop(vm) || ret;
	if (aging_o.under_load)
		ret = churn_stop(g) || ret;
	if (ret)
		goto out;
	report_passes(vm, r->ph, r->nph);
	printf("memcg %d (%s), %u node(s); settle pass %.2f ms, %llu "
	       "clear_young calls\n", g->m.id, g->m.path, g->m.nr_nodes,
	       g->settle.ms, (unsigned long long)g->settle.clear_young);
	if (aging_o.under_load)
		printf("under load: %llu invalidations of 2 MiB while the "
		       "vCPUs wrote\n",
		       (unsigned long long)g->ch.invalidations);
	for (u32 k = 0; k < g->nr_rounds; k++)
		print_round(vm, g, k);
	jset(r->json, "aging", lg_json(vm, g));
	ret = g->failed ? -1 : 0;
out:
	if (g->ch.running)
		churn_stop(g);
	free(g->touched);
	free(g->young);
	free(g->churned);
	free(g);
	return ret;
}
