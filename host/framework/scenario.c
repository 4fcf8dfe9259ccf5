// SPDX-License-Identifier: GPL-2.0
/*
 * What every scenario does the same way: a pass, the repeat loop (a VM,
 * its boot, the scenario's run, its report), and the JSON document.
 */
#include <stdlib.h>
#include <string.h>
#include "util/util.h"
#include "util/progress.h"
#include "results/json.h"
#include "framework/scenario.h"
#include "framework/nested_mmu.h"

int run_pass(struct vm *vm, struct run *r, const char *name, u32 gen)
{
	struct phase *p = run_phase_begin(vm, r, name);

	vm_post(vm, MMUB_CMD_PASS, gen);
	if (vm_wait(vm))
		return -1;
	phase_end(vm, p, true);
	return 0;
}

struct phase *run_phase_begin(struct vm *vm, struct run *r, const char *name)
{
	struct phase *p;

	if (r->nph == MMUB_ARRAY_SIZE(r->ph))
		die("too many phases in one run (bug)");
	p = &r->ph[r->nph++];
	progress_detail("%s", name);
	phase_begin(vm, p, name);
	return p;
}

void run_phase_end(struct vm *vm, struct phase *p)
{
	phase_end(vm, p, false);
}

static void run_free(struct run *r)
{
	for (u32 k = 0; k < r->nph; k++)
		phase_free(&r->ph[k]);
	json_decref(r->json);
	memset(r, 0, sizeof(*r));
}

int run_one(struct doc *doc, const struct vm_params *vp,
	    const struct run_hooks *h, u32 index, bool print)
{
	struct run r = { .json = json_object() };
	struct nested_mmu nm;
	bool nested;
	struct vm vm;
	int ret;

	if (h->before)
		h->before(h->arg);
	vm_create(&vm, vp);
	if (!json_object_get(doc->root, "env"))
		jset(doc->root, "env", report_env(&vm));
	ret = vm_start(&vm);
	if (!ret && print)
		report_boot(&vm, index, doc->c->repeat);
	nested = !ret && vp->l2_page;
	if (nested)
		nested_mmu_begin(&nm, &vm);
	if (!ret)
		ret = h->once(&vm, &r, index, h->arg);
	/* Also after a failed run: the counts say what the L2 got to. */
	if (nested && nested_mmu_end(&nm, &vm, r.json, print))
		ret = -1;
	if (!ret) {
		if (print)
			report_stats(&vm, r.ph, r.nph);
		report_boot_json(&vm, r.json);
		jset(r.json, "phases", report_phases(&vm, r.ph, r.nph));
		json_array_append(doc->runs, r.json);
	}
	run_free(&r);
	vm_destroy(&vm);
	return ret ? 1 : 0;
}

int run_repeat(struct doc *doc, const struct vm_params *vp,
	       const struct run_hooks *h)
{
	u32 n = doc->c->repeat;
	int ret = 0;

	progress_begin(doc->name, n, n);
	for (u32 k = 0; k < n && !ret; k++) {
		progress_step(1, "run %u of %u", k + 1, n);
		ret = run_one(doc, vp, h, k, true);
	}
	progress_end();
	return ret;
}

static double sweep_work(const struct sweep *s, u32 i)
{
	return s->work ? s->work(i, s->arg) : 1;
}

/* Cell @i's runs; 0, or 1 at the first that failed. */
static int sweep_cell_runs(struct doc *doc, const struct sweep *s, u32 i,
			   struct sweep_cell *sc)
{
	double w = sweep_work(s, i);

	for (u32 k = 0; k < s->runs; k++) {
		if (s->one_run)
			progress_step(w, "%s", sc->label);
		else
			progress_step(w, "%s, run %u of %u", sc->label, k + 1,
				      s->runs);
		if (run_one(doc, &sc->vp, &sc->h, k, false))
			return 1;
		if (s->ran)
			s->ran(i, k, json_array_get(doc->runs,
					json_array_size(doc->runs) - 1), s->arg);
	}
	return 0;
}

int run_sweep(struct doc *doc, const struct common *c, const struct sweep *s)
{
	double work = 0;
	int ret = 0;

	for (u32 i = 0; i < s->ncells; i++)
		work += sweep_work(s, i) * s->runs;
	progress_begin(s->title, s->ncells * s->runs, work);
	for (u32 i = 0; i < s->ncells && !ret; i++) {
		struct sweep_cell sc = { .vp = c->vm };

		s->cell(i, &sc, s->arg);
		if (sc.na) {
			if (sc.na_run)
				json_array_append_new(doc->runs, sc.na_run);
			progress_skip(sweep_work(s, i) * s->runs);
		} else {
			ret = sweep_cell_runs(doc, s, i, &sc);
		}
		if (!ret && s->done)
			s->done(i, sc.na, s->arg);
	}
	progress_end();
	return ret;
}

json_t *common_config(const struct common *c)
{
	const struct vm_params *p = &c->vm;
	json_t *o = json_object(), *ranges = json_array();

	jset(o, "vcpus", json_integer(p->nr_vcpus));
	jset(o, "vcpu_bytes", json_integer((json_int_t)p->vcpu_bytes));
	jset(o, "backing", json_string(backing_names[p->backing]));
	jset(o, "slots", json_integer(p->nr_slots));
	jset(o, "iterations", json_integer(c->iterations));
	jset(o, "repeat", json_integer(c->repeat));
	jset(o, "guest_page", json_integer((json_int_t)p->guest_page));
	jset(o, "stride", json_integer((json_int_t)p->wl.stride));
	jset(o, "action", json_string(mmub_action_names[p->wl.action]));
	jset(o, "write_pct", json_integer(p->wl.write_pct));
	jset(o, "random", json_boolean(p->wl.flags & MMUB_WL_RANDOM));
	jset(o, "seed", json_integer((json_int_t)p->wl.seed));
	jset(o, "fraction", jnum(p->wl.fraction_ppm / 1e6));
	for (u32 i = 0; i < p->wl.nr_ranges; i++) {
		json_t *r = json_object();

		jset(r, "offset", json_integer((json_int_t)p->wl.ranges[i].offset));
		jset(r, "length", json_integer((json_int_t)p->wl.ranges[i].length));
		json_array_append_new(ranges, r);
	}
	jset(o, "ranges", ranges);
	jset(o, "populate", json_boolean(p->populate));
	jset(o, "prefault", json_boolean(p->prefault));
	jset(o, "latency", json_boolean(p->wl.flags & MMUB_WL_LATENCY));
	jset(o, "guest", json_string(p->guest));
	return o;
}

void doc_begin(struct doc *doc, const struct common *c, const char *scenario,
	       json_t *config)
{
	json_t *conf = common_config(c), *results = json_object();

	if (config && json_object_update(conf, config))
		die("out of memory building the JSON document");
	json_decref(config);
	doc->c = c;
	doc->name = scenario;
	doc->root = json_object();
	doc->runs = json_array();
	jset(doc->root, "scenario", json_string(scenario));
	jset(doc->root, "config", conf);
	jset(results, "runs", json_incref(doc->runs));
	jset(doc->root, "results", results);
}

void doc_free(struct doc *doc)
{
	json_decref(doc->runs);
	json_decref(doc->root);
	doc->runs = doc->root = NULL;
}

void doc_finish(struct doc *doc)
{
	if (doc->c->json && json_write_atomic(doc->c->json, doc->root))
		die("--json %s: cannot write it: %m", doc->c->json);
	doc_free(doc);
}

int run_all(const struct common *c, const char *scenario, json_t *config,
	    const struct run_hooks *h)
{
	struct doc doc;

	doc_begin(&doc, c, scenario, config);
	if (run_repeat(&doc, &c->vm, h)) {
		doc_free(&doc);
		return 1;
	}
	doc_finish(&doc);
	return 0;
}

static void sync_vcpus(void *vm)
{
	vcpu_sync_all(vm);
}

void run_dlog_init(struct dlog *d, struct vm *vm, enum dlog_mode mode,
		   u64 clear_chunk)
{
	struct dlog_vm v = {
		.fd = vm->fd,
		.kick = sync_vcpus,
		.kick_arg = vm,
		.nr_slots = vm->p.nr_slots,
		.nr_vcpus = vm->p.nr_vcpus,
		.ring_bytes = vm->p.dirty_ring_bytes,
	};

	for (u32 i = 0; i < v.nr_slots; i++) {
		const struct vm_slot *s = &vm->slots[i];

		v.slots[i] = (struct kvm_userspace_memory_region){
			.slot = s->id,
			.guest_phys_addr = s->gpa,
			.memory_size = s->size,
			.userspace_addr = (u64)(uintptr_t)s->hva,
		};
	}
	for (u32 i = 0; i < v.nr_vcpus; i++)
		v.rings[i] = vm->vcpus[i].ring;
	dlog_init(d, &v, mode, clear_chunk);
	if (dlog_is_ring(mode)) {
		vm->ring_full_arg = d;
		/* A vCPU that sees the hook sees its argument. */
		__atomic_store_n(&vm->ring_full, dlog_ring_full,
				 __ATOMIC_RELEASE);
	}
}

void run_dlog_free(struct dlog *d, struct vm *vm)
{
	if (vm->ring_full_arg == d)
		__atomic_store_n(&vm->ring_full, NULL, __ATOMIC_RELEASE);
	dlog_free(d);
}
