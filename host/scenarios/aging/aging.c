// SPDX-License-Identifier: GPL-2.0
/*
 * Scenario "aging": access tracking.  The vCPUs write every page of
 * their memory once, so that KVM maps all of it, and pass over the part
 * the workload selects (--fraction, --ranges) as a control.  Then -i
 * rounds of the method's (--method):
 *
 *   page_idle  the page_idle bitmap marked idle, the vCPUs' pass, the
 *              bitmap read back, as access_tracking_perf_test does it
 *              (page_idle.c);
 *   lru_gen    the vCPUs' pass, then one MGLRU aging pass through its
 *              debugfs interface, as the kernel ages memory today; KVM's
 *              clear_young calls from its walk and the pages they found
 *              young, by kprobes, with --under-load while the vCPUs
 *              keep writing and faulting (lru_gen.c).
 *
 * Either way the pages found young must be exactly the pages touched:
 * the first one that is not, or an untouched one found young, fails the
 * run, named.
 */
#include <string.h>
#include "util/util.h"
#include "util/bitmap.h"
#include "scenarios/aging/aging.h"

enum { O_DROP = 512, O_HOST_TOUCH, O_MOVE, O_METHOD, O_UNDER_LOAD };

struct aging_opts aging_o;

static const char *const method_names[] = {
	[AGING_PAGE_IDLE] = "page_idle", [AGING_LRU_GEN] = "lru_gen",
};

static const struct opt opts[] = {
	{ "method", O_METHOD, required_argument, "M",
	  "page_idle (default): the page_idle bitmap; lru_gen: MGLRU's aging "
	  "pass (debugfs lru_gen), KVM's calls from it counted by kprobes" },
	{ "under-load", O_UNDER_LOAD, no_argument, NULL,
	  "lru_gen: each aging pass while the vCPUs keep writing, a quarter "
	  "of their memory invalidated meanwhile so that they fault: mmu_lock "
	  "waits and access latency during the pass, against outside it" },
	{ "debug-drop-young", O_DROP, no_argument, NULL,
	  "leave the first touched page found young in the last round out "
	  "of the count: the check must fail, naming it" },
	{ "debug-host-touch", O_HOST_TOUCH, no_argument, NULL,
	  "page_idle: in the last round, the host reads one page the vCPUs "
	  "do not touch, after the marking: the check must find it young and "
	  "fail, naming it" },
	{ "debug-move-page", O_MOVE, no_argument, NULL,
	  "page_idle: in the last round, the host gives one touched page a "
	  "new frame, its content kept, as compaction would: the run must "
	  "fail, naming it" },
	{ NULL },
};

static void parse(int key, const char *arg)
{
	if (key == O_DROP)
		aging_o.drop = true;
	else if (key == O_HOST_TOUCH)
		aging_o.host_touch = true;
	else if (key == O_MOVE)
		aging_o.move = true;
	else if (key == O_UNDER_LOAD)
		aging_o.under_load = true;
	else if (key == O_METHOD && !strcmp(arg, "page_idle"))
		aging_o.method = AGING_PAGE_IDLE;
	else if (key == O_METHOD && !strcmp(arg, "lru_gen"))
		aging_o.method = AGING_LRU_GEN;
	else if (key == O_METHOD)
		die("--method %s: accepted: page_idle, lru_gen", arg);
}

static void validate(struct common *c)
{
	const struct vm_params *p = &c->vm;

	if (p->wl.stride != MMUB_SZ_4K)
		die("--touch: aging counts 4K pages; it needs --touch 4k");
	if (p->wl.action != MMUB_ACT_TOUCH)
		die("--exec, --debug-action: aging needs the vCPUs to touch "
		    "memory");
	if (c->iterations < 1 || c->iterations > 2)
		die("-i %u: aging rounds, 1 or 2", c->iterations);
	if (aging_o.under_load && aging_o.method != AGING_LRU_GEN)
		die("--under-load: needs --method lru_gen");
	if (aging_o.method == AGING_LRU_GEN)
		aging_lru_gen_validate(c);
	else
		aging_page_idle_validate(c);
}

/*
 * The pages set in @a, not in @b (NULL: no such condition) and not in
 * @skip: their number in @count, the first returned (-1: none).
 */
static s64 first_diff(const u64 *a, const u64 *b, const u64 *skip, u64 n,
		      u64 *count)
{
	s64 first = -1;

	*count = 0;
	for (u64 i = 0; i < n; i++) {
		if (!bitmap_test(a, i) || (b && bitmap_test(b, i)) ||
		    bitmap_test(skip, i))
			continue;
		if (first < 0)
			first = (s64)i;
		(*count)++;
	}
	return first;
}

void aging_count(const u64 *touched, const u64 *young, const u64 *skip,
		 u64 n, struct aging_count *c)
{
	first_diff(touched, NULL, skip, n, &c->touched);
	c->first_missed = first_diff(touched, young, skip, n, &c->missed);
	c->found = c->touched - c->missed;
	c->first_false = first_diff(young, touched, skip, n, &c->false_young);
}

/* @n pages of round @k are @what, the first test page @first. */
static bool said_wrong(struct vm *vm, u32 k, u64 n, s64 first,
		       const char *what)
{
	char where[64];

	if (!n)
		return false;
	vm_test_page_where(vm, (u64)first, where, sizeof(where));
	err_msg("aging: round %u: %llu %s, the first test page %lld (%s)",
		k + 1, (unsigned long long)n, what, (long long)first, where);
	return true;
}

bool aging_wrong(struct vm *vm, u32 k, const struct aging_count *c)
{
	bool missed = said_wrong(vm, k, c->missed, c->first_missed,
				 "touched pages not found young");

	return said_wrong(vm, k, c->false_young, c->first_false,
			  "untouched pages found young") || missed;
}

int aging_drop_one(struct vm *vm, const u64 *touched, u64 *young,
		   const u64 *skip, u64 n)
{
	char where[64];

	for (u64 i = 0; i < n; i++) {
		if (!bitmap_test(touched, i) || !bitmap_test(young, i) ||
		    bitmap_test(skip, i))
			continue;
		bitmap_assign(young, i, false);
		vm_test_page_where(vm, i, where, sizeof(where));
		err_msg("--debug-drop-young: test page %llu (%s), found young, "
			"left out of the count on purpose",
			(unsigned long long)i, where);
		return 0;
	}
	err_msg("--debug-drop-young: no touched page was found young to drop");
	return -1;
}

static int once(struct vm *vm, struct run *r, u32 index, void *arg)
{
	const struct common *c = arg;
	struct phase *p = run_phase_begin(vm, r, "fill");

	(void)index;
	/* Every page written once: KVM maps the whole test memory. */
	if (vm_post(vm, MMUB_CMD_FILL, 0) || vm_wait(vm))
		return -1;
	run_phase_end(vm, p);
	if (run_pass(vm, r, "control", 1))
		return -1;
	if (aging_o.method == AGING_LRU_GEN)
		return aging_lru_gen(vm, r, c->iterations);
	return aging_page_idle(vm, r, c->iterations);
}

static int run(struct common *c)
{
	struct run_hooks h = { .once = once, .arg = c };

	report_header(&c->vm, "aging");
	printf("method: %s%s\n", method_names[aging_o.method],
	       aging_o.under_load ? ", under load" : "");
	if (aging_o.method == AGING_LRU_GEN)
		aging_lru_gen_setup();
	return run_all(c, "aging", json_pack("{s:s, s:b, s:b, s:b, s:b}",
					     "method",
					     method_names[aging_o.method],
					     "under_load", aging_o.under_load,
					     "debug_drop_young", aging_o.drop,
					     "debug_host_touch",
					     aging_o.host_touch,
					     "debug_move_page", aging_o.move),
		       &h);
}

/* Each in one method's documents only (shape): no note where absent. */
static const struct metric_def metrics[] = {
	{ "mark_idle_ms", "results.runs[].aging.mark_idle_ms", "ms",
	  BETTER_LOWER, 50, true },
	{ "read_ms", "results.runs[].aging.read_ms", "ms", BETTER_LOWER, 50,
	  true },
	{ "aged_p99_ns_max",
	  "max:results.runs[].phases[name=aged1].vcpus[].latency_ns.p99", "ns",
	  BETTER_LOWER, 50, true },
	/* lru_gen's, its rounds' passes; the vCPUs' side shown, not judged. */
	{ "pass_ms", "results.runs[].aging.pass_ms", "ms", BETTER_LOWER, 50,
	  true },
	{ "kvm_clear_young_calls", "results.runs[].aging.clear_young_calls",
	  "calls", BETTER_LOWER, 0, true },
	{ "pass_read_wait_ms", "results.runs[].aging.pass_read_wait_ms", "ms",
	  BETTER_LOWER, 0, true },
	{ "outside_read_wait_ms", "results.runs[].aging.outside_read_wait_ms",
	  "ms", BETTER_LOWER, 0, true },
	{ "pass_p99_us",
	  "max:results.runs[].aging.rounds[].pass.latency.p99_us", "us",
	  BETTER_LOWER, 0, true },
	{ "outside_p99_us",
	  "max:results.runs[].aging.rounds[].outside.latency.p99_us", "us",
	  BETTER_LOWER, 0, true },
	{ NULL }
};

const struct scenario scenario_aging = {
	.name = "aging",
	.brief = "access tracking (page_idle, MGLRU): found young, checked",
	.help = "access tracking: the vCPUs touch a part of their memory, "
		"then the page_idle bitmap or MGLRU's aging pass finds which "
		"pages are young; times, KVM's calls and the count checked "
		"against what was touched",
	.opts = opts,
	.parse = parse,
	.validate = validate,
	.run = run,
	.metrics = metrics,
};
