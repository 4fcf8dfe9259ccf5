// SPDX-License-Identifier: GPL-2.0
/*
 * Scenario "touch": boot, then the populate pass (first touch: every
 * access faults into KVM) and -i further passes over memory that is
 * already mapped.  Per pass and vCPU: time, pages/s, access latency; per
 * pass: what the kernel's counters did.
 *
 * --exec executes instead: each visited stride holds a RET, planted on
 * the first visit (or after an invalidation), which every vCPU calls.
 * --backend qemu runs the guest alone under QEMU TCG (backend/qemu.c).
 */
#include "util/util.h"
#include "backend/qemu.h"
#include "results/json.h"
#include "framework/scenario.h"
#include "scenarios/scenarios.h"

enum { O_EXEC = 512, O_BACKEND };

static const struct opt opts[] = {
	{ "exec", O_EXEC, no_argument, NULL,
	  "execute: each stride holds a RET the vCPUs call" },
	{ "backend", O_BACKEND, required_argument, "B",
	  "kvm (mmubench's VMM) or qemu: the guest alone under QEMU TCG, its "
	  "results as the same table (no KVM stats)" },
	{ NULL },
};

static struct {
	bool exec;
	bool qemu;
} o;

static void parse(int key, const char *arg)
{
	switch (key) {
	case O_EXEC:
		o.exec = true;
		break;
	case O_BACKEND:
		o.qemu = qemu_parse_backend(arg);
		break;
	}
}

static void validate(struct common *c)
{
	struct vm_params *p = &c->vm;

	if (o.exec) {
		if (p->wl.action != MMUB_ACT_TOUCH)
			die("--exec: not with --debug-action");
		p->wl.action = MMUB_ACT_EXEC;
	}
	if (o.qemu)
		qemu_check_params(p);
	c->no_kvm = o.qemu;
}

static int once(struct vm *vm, struct run *r, u32 index, void *arg)
{
	const struct common *c = arg;
	char name[32];

	(void)index;
	for (u32 g = 0; g <= c->iterations; g++) {
		if (g)
			snprintf(name, sizeof(name), "iter%u", g);
		else
			snprintf(name, sizeof(name), "populate");
		if (run_pass(vm, r, name, g))
			return -1;
	}
	report_passes(vm, r->ph, r->nph);
	return 0;
}

/*
 * The same table from the guest alone under QEMU; if it finished, the
 * same document as a KVM run's: one run, its phases, the backend in env.
 */
static int run_qemu(const struct common *c)
{
	struct qemu_result res;
	struct doc doc;

	if (qemu_run(&c->vm, c->iterations + 1, &res)) {
		json_decref(res.passes);
		return 1;
	}
	doc_begin(&doc, c, "touch", json_pack("{s:s}", "backend", "qemu"));
	jset(doc.root, "env", json_pack("{s:s, s:s, s:s}", "backend", "qemu",
					"arch", res.arch, "machine", res.machine));
	json_array_append_new(doc.runs, json_pack("{s:f, s:o}", "boot_ms",
		res.boot_ms, "phases", qemu_phases(res.passes)));
	doc_finish(&doc);
	return 0;
}

static int run(struct common *c)
{
	struct run_hooks h = { .once = once, .arg = c };

	if (o.qemu)
		return run_qemu(c);
	report_header(&c->vm, "touch");
	return run_all(c, "touch", NULL, &h);
}

/*
 * What a patch to the MMU moves in a touch run.  The thresholds are a
 * first guess, to check against the A/A noise floor that the nightly's
 * report prints beside them.
 */
static const struct metric_def metrics[] = {
	{ "ns_sum", "results.runs[].phases[*].vcpus[].ns", "ns",
	  BETTER_LOWER, 25 },
	{ "pages_per_s_sum", "results.runs[].phases[*].vcpus[].pages_per_s",
	  "pages/s", BETTER_HIGHER, 25 },
	{ "latency_p99_ns_max",
	  "max:results.runs[].phases[*].vcpus[].latency_ns.p99", "ns",
	  BETTER_LOWER, 50 },
	{ NULL }
};

const struct scenario scenario_touch = {
	.name = "touch",
	.brief = "populate, then -i passes: time, pages/s, latency, KVM stats",
	.help = "populate, then -i passes; time, pages/s, latency, KVM stats",
	.opts = opts,
	.parse = parse,
	.validate = validate,
	.run = run,
	.guest_memfd = true,
	.metrics = metrics,
};
