// SPDX-License-Identifier: GPL-2.0
/*
 * Scenario "demand-paging": the guest's memory is not there when the vCPUs
 * start; every page arrives through userfaultfd, one fault at a time, as
 * when a VM is restored from a snapshot or migrated post-copy.  The
 * kernel's demand_paging_test measures the same; its option names are
 * kept where they overlap (-u, -d, and --readers for its -r, --single-uffd
 * for its -a, whose letters mmubench's common options have).
 *
 *   register    the test memory with one userfaultfd per vCPU (or one for
 *               all), MISSING (anonymous, hugetlb, shmem: no page yet) or
 *               MINOR (shmem, hugetlbfs: the page is in the page cache,
 *               written beforehand through a second mapping of the file,
 *               but not mapped); --readers handler threads per userfaultfd
 *   demand      one pass: every first access faults through KVM to a
 *               handler, which supplies the page (UFFDIO_COPY) or maps it
 *               (UFFDIO_CONTINUE), after -d microseconds
 *   iterN       -i passes over the memory now mapped, for comparison
 *
 * Every page carries mmub_supplied_word() at each 4K, and the guest checks
 * each one it reads or writes (MMUB_WL_SUPPLIED): a page missing or
 * supplied at the wrong place fails the run, named.  Per vCPU the demand
 * pass gives the paging rate and the fault latency (the guest's access
 * latency, every access a fault); per handler its service time.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <linux/userfaultfd.h>
#include <mmubench/histogram.h>
#include <mmubench/workload.h>
#include "util/util.h"
#include "util/parse.h"
#include "kvm/uffd.h"
#include "results/json.h"
#include "framework/scenario.h"
#include "scenarios/scenarios.h"

#define MAX_READERS	64

enum {
	O_MODE = 'u', O_DELAY = 'd', O_READERS = 512, O_SINGLE,
	O_WRONG_PAGE,
};

static const struct opt opts[] = {
	{ "uffd-mode", O_MODE, required_argument, "MODE",
	  "missing (default: no page yet; anonymous, hugetlb, shmem) or minor "
	  "(the page cache holds it; shmem, shared_hugetlb, memfd)" },
	{ "uffd-delay", O_DELAY, required_argument, "US",
	  "the handler waits this long before resolving each fault (0)" },
	{ "readers", O_READERS, required_argument, "N",
	  "handler threads per userfaultfd, 1..64 (1)" },
	{ "single-uffd", O_SINGLE, no_argument, NULL,
	  "one userfaultfd for all the test memory, not one per vCPU" },
	{ "debug-wrong-page", O_WRONG_PAGE, required_argument, "N",
	  "debug: the handler supplies 4K page N of the test memory with "
	  "another page's contents (the guest's check must name it)" },
	{ NULL },
};

static const char *const mode_names[] = {
	[UFFD_MISSING] = "missing", [UFFD_MINOR] = "minor",
};

static struct {
	enum uffd_mode mode;
	u32 delay_us;
	u32 readers;
	bool single;
	s64 wrong_page;		/* -1: none */
} o = { .readers = 1, .wrong_page = -1 };

static void parse(int key, const char *arg)
{
	switch (key) {
	case O_MODE:
		for (o.mode = 0; o.mode < MMUB_ARRAY_SIZE(mode_names); o.mode++)
			if (!strcasecmp(arg, mode_names[o.mode]))
				return;
		die("--uffd-mode %s: unknown (accepted: missing, minor)", arg);
	case O_DELAY:
		o.delay_us = (u32)parse_u64("--uffd-delay", arg, 0, 1000000);
		break;
	case O_READERS:
		o.readers = (u32)parse_u64("--readers", arg, 1, MAX_READERS);
		break;
	case O_SINGLE:
		o.single = true;
		break;
	case O_WRONG_PAGE:
		o.wrong_page = (s64)parse_u64("--debug-wrong-page", arg, 0,
					      1ULL << 40);
		break;
	}
}

static void validate(struct common *c)
{
	struct vm_params *p = &c->vm;
	const char *why;

	if (p->wl.action != MMUB_ACT_TOUCH)
		die("--debug-action: not with demand-paging");
	if (p->prefault)
		die("--prefault: not with demand-paging: its memory arrives "
		    "through userfaultfd");
	/* The host's populate, on by default elsewhere, is what we replace. */
	p->populate = false;
	if (p->backing == BACKING_ANONYMOUS_THP)
		die("--backing anonymous_thp: not with demand-paging: "
		    "userfaultfd supplies base pages there (use anonymous, a "
		    "hugetlb backing or shmem)");
	if (o.mode == UFFD_MINOR && !backing_is_file(p->backing))
		die("--uffd-mode minor: backing %s has no file, and MINOR "
		    "faults are served from a page cache (use shmem, "
		    "shared_hugetlb or memfd)", backing_names[p->backing]);
	if (o.wrong_page >= 0 && (u64)o.wrong_page >=
	    p->vcpu_bytes * p->nr_vcpus / MMUB_SZ_4K)
		die("--debug-wrong-page %lld: the test memory has %llu 4K "
		    "pages", (long long)o.wrong_page,
		    (unsigned long long)(p->vcpu_bytes * p->nr_vcpus /
					 MMUB_SZ_4K));
	why = uffd_unavailable(o.mode, backing_is_hugetlb(p->backing));
	if (why)
		die("demand-paging: %s", why);
	p->wl.flags |= MMUB_WL_SUPPLIED | MMUB_WL_LATENCY;
}

/* ---- the handlers ------------------------------------------------------ */

struct reader {
	pthread_t thread;
	struct dp_ctx *x;
	int uffd;
	u32 index;		/* its userfaultfd */
	u8 *page;		/* MISSING: the page it supplies, one at a time */
	u64 supplied;		/* faults it resolved */
	u64 raced;		/* resolved by another reader first */
	struct mmub_hist service_ns;
	int err;		/* errno of a failed ioctl, 0 */
};

struct dp_ctx {
	struct vm *vm;
	u8 *hva;		/* the test memory */
	u64 size;
	u64 page;		/* the backing's page: a fault's unit */
	int stop;		/* eventfd: the readers return */
	u32 nuffd;
	int uffd[MMUB_MAX_VCPUS];
	struct reader *readers;
	u32 nreaders;
};

/*
 * The contents of the page at @off: each 4K's first word says where it
 * belongs; --debug-wrong-page's says it belongs one page further on.
 */
static void fill_page(u8 *dst, u64 off, u64 len)
{
	for (u64 k = 0; k < len; k += MMUB_SZ_4K) {
		u64 at = off + k;

		if ((s64)(at / MMUB_SZ_4K) == o.wrong_page)
			at += MMUB_SZ_4K;
		*(u64 *)(dst + k) = mmub_supplied_word(at);
	}
}

/* One fault: wait -d, then resolve it; its service time from the read. */
static int serve(struct reader *r, const struct uffd_msg *m, double t0)
{
	struct dp_ctx *x = r->x;
	u64 addr = mmub_align_down(m->arg.pagefault.address, x->page);
	int ret;

	if (o.delay_us)
		usleep(o.delay_us);
	if (o.mode == UFFD_MINOR) {
		ret = uffd_continue(r->uffd, addr, x->page);
	} else {
		fill_page(r->page, addr - (u64)(uintptr_t)x->hva, x->page);
		ret = uffd_copy(r->uffd, addr, r->page, x->page);
	}
	if (ret < 0)
		return -1;
	if (ret)
		r->raced++;
	else
		r->supplied++;
	mmub_hist_add(&r->service_ns, (u64)((now_ms() - t0) * 1e6));
	return 0;
}

static void *reader_main(void *arg)
{
	struct reader *r = arg;
	struct uffd_msg m;
	int got;

	while ((got = uffd_next_fault(r->uffd, r->x->stop, &m)) > 0)
		if (serve(r, &m, now_ms()))
			break;
	if (got)
		r->err = errno;
	return NULL;
}

/*
 * MINOR: the page cache filled through a second mapping of the file, so
 * that the guest's mapping has no page table entry yet and each first
 * access is a minor fault.
 */
static void fill_page_cache(struct dp_ctx *x)
{
	struct backing *b = &x->vm->test;
	u8 *alias = mmap(NULL, b->size, PROT_READ | PROT_WRITE, MAP_SHARED,
			 b->fd, 0);

	if (alias == MAP_FAILED)
		die("demand-paging: the alias mapping of the test memory: %s",
		    strerror(errno));
	for (u64 off = 0; off < b->size; off += x->page)
		fill_page(alias + off, off, x->page);
	munmap(alias, b->size);
}

/* The userfaultfds, their ranges, their readers. */
static void handlers_start(struct dp_ctx *x)
{
	bool hugetlb = backing_is_hugetlb(x->vm->p.backing);
	u64 each;

	x->hva = x->vm->test.hva;
	x->size = x->vm->test.size;
	x->page = x->vm->test.page;
	x->nuffd = o.single ? 1 : x->vm->p.nr_vcpus;
	each = x->size / x->nuffd;
	if (o.mode == UFFD_MINOR)
		fill_page_cache(x);
	x->stop = eventfd(0, EFD_CLOEXEC);
	if (x->stop < 0)
		die("eventfd: %s", strerror(errno));
	for (u32 u = 0; u < x->nuffd; u++) {
		x->uffd[u] = uffd_open(o.mode, hugetlb);
		if (x->uffd[u] < 0 ||
		    uffd_register(x->uffd[u], x->hva + u * each, each, o.mode))
			die("demand-paging: userfaultfd %u (%s): %s", u,
			    mode_names[o.mode],
			    strerror(errno));
	}
	x->nreaders = x->nuffd * o.readers;
	x->readers = calloc(x->nreaders, sizeof(*x->readers));
	if (!x->readers)
		die("demand-paging: out of memory");
	for (u32 i = 0; i < x->nreaders; i++) {
		struct reader *r = &x->readers[i];

		*r = (struct reader){ .x = x, .index = i / o.readers,
				      .uffd = x->uffd[i / o.readers] };
		mmub_hist_reset(&r->service_ns);
		if (o.mode == UFFD_MISSING &&
		    !(r->page = calloc(1, x->page)))
			die("demand-paging: out of memory");
		if (pthread_create(&r->thread, NULL, reader_main, r))
			die("demand-paging: a handler thread: %s",
			    strerror(errno));
	}
}

/* 0, or -1 after naming a handler's failed ioctl. */
static int handlers_stop(struct dp_ctx *x)
{
	u64 one = 1;
	int ret = 0;

	if (write(x->stop, &one, sizeof(one)) != sizeof(one))
		die("eventfd: %s", strerror(errno));
	for (u32 i = 0; i < x->nreaders; i++) {
		struct reader *r = &x->readers[i];

		pthread_join(r->thread, NULL);
		free(r->page);
		r->page = NULL;
		if (r->err && !ret) {
			err_msg("demand-paging: handler %u (userfaultfd %u): "
				"%s", i, r->index, strerror(r->err));
			ret = -1;
		}
	}
	for (u32 u = 0; u < x->nuffd; u++) {
		uffd_unregister(x->uffd[u], x->hva + u * (x->size / x->nuffd),
				x->size / x->nuffd);
		close(x->uffd[u]);
	}
	close(x->stop);
	return ret;
}

/* ---- the run ------------------------------------------------------------ */

/* The guest's check over a pass: the first wrong page, named. */
static int check_pass(const struct vm *vm, const struct phase *p)
{
	u64 violations = 0, bad = 0, val = 0;

	for (u32 i = 0; i < p->nr_vcpus; i++) {
		if (p->pass[i].violations && !violations) {
			bad = p->pass[i].bad_addr;
			val = p->pass[i].bad_value;
		}
		violations += p->pass[i].violations;
	}
	if (!violations)
		return 0;
	bad -= vm->layout.test_gpa;
	err_msg("demand-paging: %s: %llu pages wrong; the first, 4K page "
		"%llu (test offset 0x%llx), held 0x%016llx, expected "
		"0x%016llx", p->name,
		(unsigned long long)violations,
		(unsigned long long)(bad / MMUB_SZ_4K),
		(unsigned long long)bad, (unsigned long long)val,
		(unsigned long long)mmub_supplied_word(bad));
	return -1;
}

static json_t *service_json(const struct mmub_hist *h)
{
	json_t *j = json_pack("{s:I}", "faults", (json_int_t)h->count);
	json_t *q = hist_us_json(h);

	if (!j || !q || json_object_update(j, q))
		die("out of memory building the JSON document");
	json_decref(q);
	return j;
}

/* Per handler and in all: what it resolved, and how long each took. */
static void report_handlers(const struct dp_ctx *x, json_t *j)
{
	struct mmub_hist all;
	json_t *each = json_array();
	u64 supplied = 0, raced = 0;

	mmub_hist_reset(&all);
	printf("  handlers: %u userfaultfd(s) x %u reader(s), %s, delay %u "
	       "us\n", x->nuffd, o.readers,
	       o.mode == UFFD_MINOR ? "minor (UFFDIO_CONTINUE)" :
				      "missing (UFFDIO_COPY)", o.delay_us);
	for (u32 i = 0; i < x->nreaders; i++) {
		const struct reader *r = &x->readers[i];
		json_t *e = service_json(&r->service_ns);

		mmub_hist_merge(&all, &r->service_ns);
		supplied += r->supplied;
		raced += r->raced;
		jset(e, "uffd", json_integer(r->index));
		jset(e, "supplied", json_integer((json_int_t)r->supplied));
		jset(e, "raced", json_integer((json_int_t)r->raced));
		json_array_append_new(each, e);
		printf("    handler %-3u uffd %-3u %8llu pages  service p50 %7.1f "
		       "us  p99 %7.1f us  max %7.1f us\n", i, r->index,
		       (unsigned long long)r->supplied,
		       hist_us(&r->service_ns, 500000),
		       hist_us(&r->service_ns, 990000),
		       hist_us(&r->service_ns, 1000000));
	}
	printf("  supplied %llu pages of %llu KiB (%llu resolved by another "
	       "reader first); service p50 %.1f us, p99 %.1f us, p99.9 %.1f "
	       "us\n", (unsigned long long)supplied,
	       (unsigned long long)(x->page >> 10), (unsigned long long)raced,
	       hist_us(&all, 500000), hist_us(&all, 990000),
	       hist_us(&all, 999000));
	jset(j, "pages_supplied", json_integer((json_int_t)supplied));
	jset(j, "pages_raced", json_integer((json_int_t)raced));
	jset(j, "page_bytes", json_integer((json_int_t)x->page));
	jset(j, "service", service_json(&all));
	jset(j, "handlers", each);
}

/*
 * The demand pass's rate as demand_paging_test gives its "overall demand
 * paging rate": the 4K pages the vCPUs touched over the pass's wall time,
 * from the command to the last vCPU's end.
 */
static void report_rate(const struct phase *p, json_t *j)
{
	u64 pages = 0;
	double rate;

	for (u32 i = 0; i < p->nr_vcpus; i++)
		pages += p->pass[i].accesses;
	rate = p->wall_ms > 0 ? pages / (p->wall_ms / 1e3) : 0;
	printf("  demand pass: %llu pages in %.2f ms, %.0f pages/s overall\n",
	       (unsigned long long)pages, p->wall_ms, rate);
	jset(j, "demand_ms", jnum(p->wall_ms));
	jset(j, "pages_per_s", jnum(rate));
}

static int once(struct vm *vm, struct run *r, u32 index, void *arg)
{
	const struct common *c = arg;
	struct dp_ctx x = { .vm = vm };
	char name[32];
	json_t *j;
	int ret;

	(void)index;
	handlers_start(&x);
	ret = run_pass(vm, r, "demand", 0);
	ret = handlers_stop(&x) || ret || check_pass(vm, &r->ph[0]);
	for (u32 g = 1; !ret && g <= c->iterations; g++) {
		snprintf(name, sizeof(name), "iter%u", g);
		ret = run_pass(vm, r, name, g) || check_pass(vm, &r->ph[g]);
	}
	if (ret) {
		free(x.readers);
		return -1;
	}
	report_passes(vm, r->ph, r->nph);
	j = json_pack("{s:s, s:i, s:i, s:i}", "uffd_mode", mode_names[o.mode],
		      "uffds",
		      (int)x.nuffd, "readers", (int)o.readers, "delay_us",
		      (int)o.delay_us);
	report_rate(&r->ph[0], j);
	report_handlers(&x, j);
	jset(r->json, "demand_paging", j);
	free(x.readers);
	return 0;
}

static int run(struct common *c)
{
	struct run_hooks h = { .once = once, .arg = c };

	report_header(&c->vm, "demand-paging");
	return run_all(c, "demand-paging", json_pack("{s:s, s:i, s:i, s:b}",
		"uffd_mode", mode_names[o.mode],
		"uffd_delay_us", (int)o.delay_us, "readers", (int)o.readers,
		"single_uffd", o.single), &h);
}

/*
 * The paging rate and the fault latency of the demand pass, and the
 * handlers' service time.  The thresholds are a first guess, to check
 * against the A/A noise floor.
 */
static const struct metric_def metrics[] = {
	{ "pages_per_s", "results.runs[].demand_paging.pages_per_s",
	  "pages/s", BETTER_HIGHER, 25 },
	{ "demand_ms", "results.runs[].demand_paging.demand_ms", "ms",
	  BETTER_LOWER, 25 },
	{ "demand_pages_per_s_sum",
	  "results.runs[].phases[name=demand].vcpus[].pages_per_s",
	  "pages/s", BETTER_HIGHER, 25 },
	{ "demand_latency_p99_ns_max",
	  "max:results.runs[].phases[name=demand].vcpus[].latency_ns.p99",
	  "ns", BETTER_LOWER, 50 },
	{ "service_p50_us", "results.runs[].demand_paging.service.p50_us",
	  "us", BETTER_LOWER, 50 },
	{ "service_p99_us", "results.runs[].demand_paging.service.p99_us",
	  "us", BETTER_LOWER },
	{ "pages_supplied", "results.runs[].demand_paging.pages_supplied",
	  "pages" },
	{ NULL }
};

const struct scenario scenario_demand_paging = {
	.name = "demand-paging",
	.brief = "memory through userfaultfd: paging rate, latency, page checks",
	.help = "the test memory arrives through userfaultfd (MISSING or "
		"MINOR faults, N handlers): paging rate, fault latency, "
		"handler service time; every page checked",
	.opts = opts,
	.parse = parse,
	.validate = validate,
	.run = run,
	.metrics = metrics,
};
