// SPDX-License-Identifier: GPL-2.0
/*
 * Scenario "dirty-log": populate, enable dirty logging (timed, summed over
 * the slots as QEMU's memory_global_dirty_log_start does), count what the
 * first harvest reports against what the guest touched, then -i
 * iterations of "vCPUs write one pass, host harvests", then disable.
 * With --verify the vCPUs keep writing across the enable and the first
 * harvest, the oracle checks every harvest from that first one, and
 * afterwards runs --rounds harvests while the vCPUs keep writing.
 * With -e (dirty_log_perf_test's) they keep writing while logging is
 * disabled, and until each has passed over its memory once more.
 * --page-steps counts KVM's mappings by page size after each step, as
 * dirty_log_page_splitting_test does: populate, enable, the first
 * harvest, disable, and one more pass (repopulate); x86 from its
 * pages_4k/2m/1g stats, arm64 from its stage-2 dump where the kernel
 * has one (CONFIG_PTDUMP_STAGE2_DEBUGFS, 6.12 here).
 *
 * "--table enable" is in dirty_log_table.c.
 */
#include <stdlib.h>
#include <string.h>
#include "util/util.h"
#include "util/bitmap.h"
#include "util/parse.h"
#include "results/json.h"
#include "kvm/eager_split.h"
#include "scenarios/dirty_log/dirty_log_table.h"
#include "framework/dlog_opts.h"
#include "framework/oracle.h"
#include "scenarios/scenarios.h"

enum {
	O_ROUNDS = 512, O_TABLE, O_TABLE_MODES, O_EAGER, O_EAGER_CHUNK,
	O_PAGE_STEPS, O_DISABLE_WRITING = 'e',
};

static const struct opt opts[] = {
	DLOG_OPT_MODE("clear"),
	DLOG_OPT_GET,
	DLOG_OPT_CHUNK,
	DLOG_OPT_RING,
	DLOG_OPT_VERIFY,
	{ "rounds", O_ROUNDS, required_argument, "N",
	  "harvests while the vCPUs keep writing, with --verify (200)" },
	{ "table", O_TABLE, required_argument, "enable",
	  "the enable-time table: page sizes x modes, --repeat each" },
	{ "table-modes", O_TABLE_MODES, required_argument, "LIST",
	  "--table enable's columns, a subset of get,clear,clear-init-set "
	  "(all three)" },
	{ "eager-split", O_EAGER, required_argument, "on|off",
	  "x86: kvm.eager_page_split for the run (restored); with --table "
	  "enable, on,off gives each mode both columns" },
	{ "eager-split-chunk", O_EAGER_CHUNK, required_argument, "SIZE",
	  "arm64: KVM_CAP_ARM_EAGER_SPLIT_CHUNK_SIZE, 0 (off) or a block "
	  "size; with --table enable, a list such as 0,2m" },
	{ "disable-writing", O_DISABLE_WRITING, no_argument, NULL,
	  "the vCPUs keep writing while logging is disabled, until each has "
	  "passed over its memory once more (dirty_log_perf_test's -e)" },
	{ "page-steps", O_PAGE_STEPS, no_argument, NULL,
	  "KVM's mappings by page size after populate, enable, the first "
	  "harvest, disable and one more pass (x86: pages_4k/2m/1g, the VM; "
	  "arm64: the stage-2 dump in debugfs, the test memory)" },
	DLOG_OPT_NO_COLD,
	DLOG_OPT_DROP("0: the first, or the next that reports any"),
	DLOG_OPT_DROP_COLD,
	{ NULL },
};

static struct {
	struct dlog_opts dl;
	u32 rounds;
	const char *table;
	struct table_modes table_modes;
	struct eager_list eager;	/* --eager-split[-chunk] */
	bool disable_writing;	/* -e */
	bool page_steps;
} o = { .dl = DLOG_OPTS(DLOG_CLEAR), .rounds = 200 };

static void parse(int key, const char *arg)
{
	if (dlog_opts_parse(&o.dl, key, arg))
		return;
	switch (key) {
	case O_ROUNDS:
		o.rounds = (u32)parse_u64("--rounds", arg, 0, 1000000);
		break;
	case O_TABLE:
		if (strcmp(arg, "enable"))
			die("--table %s: unknown (accepted: enable)", arg);
		o.table = arg;
		break;
	case O_TABLE_MODES:
		table_modes_parse(&o.table_modes, arg);
		break;
	case O_EAGER:
		eager_parse_x86(&o.eager, arg);
		break;
	case O_EAGER_CHUNK:
		eager_parse_chunk(&o.eager, arg);
		break;
	case O_DISABLE_WRITING:
		o.disable_writing = true;
		break;
	case O_PAGE_STEPS:
		o.page_steps = true;
		break;
	}
}

static void validate(struct common *c)
{
	dlog_opts_check(&o.dl, true);
	/* The first, -i, --rounds and the final one at rest. */
	if (o.dl.drop >= (s64)o.rounds + c->iterations + 2)
		die("--debug-drop-dirty %lld: past the last harvest (accepted: "
		    "0..%u, as -i %u and --rounds %u make %u harvests)",
		    (long long)o.dl.drop, o.rounds + c->iterations + 1,
		    c->iterations, o.rounds, o.rounds + c->iterations + 2);
	if (o.table && o.dl.verify)
		die("--table enable: measures enabling only; drop --verify");
	if (o.table && (o.disable_writing || o.page_steps))
		die("--table enable: measures enabling only; not with %s",
		    o.page_steps ? "--page-steps" : "-e");
	if (o.table_modes.n && !o.table)
		die("--table-modes: only with --table enable");
	if (o.eager.n > 1 && !o.table)
		die("--eager-split%s: one setting a run; a list only with "
		    "--table enable", o.eager.s[0].kind == EAGER_X86 ? "" :
		    "-chunk");
	eager_preflight(&o.eager);
	if (!o.table)
		dlog_opts_apply(&o.dl, &c->vm);
	if (o.table || !o.eager.n)
		return;
	/* One setting for the whole run: the VM's, or the module's. */
	c->vm.eager_chunk_set = o.eager.s[0].kind == EAGER_ARM64_CHUNK;
	c->vm.eager_chunk = o.eager.s[0].chunk;
	eager_apply_x86(&o.eager.s[0]);
}

struct dl_iter {
	double dirty_ms;	/* slowest vCPU's pass, guest clock */
	double get_ms, clear_ms, ring_ms, reset_ms, kick_ms, user_ms;
	u64 reported;
};

static const struct field iter_fields[] = {
	FIELD(struct dl_iter, dirty_ms, FIELD_DOUBLE, 10, 3),
	FIELD(struct dl_iter, get_ms, FIELD_DOUBLE, 9, 3),
	FIELD(struct dl_iter, clear_ms, FIELD_DOUBLE, 9, 3),
	FIELD(struct dl_iter, ring_ms, FIELD_DOUBLE, 9, 3),
	FIELD(struct dl_iter, reset_ms, FIELD_DOUBLE, 9, 3),
	FIELD(struct dl_iter, kick_ms, FIELD_DOUBLE, 9, 3),
	FIELD(struct dl_iter, user_ms, FIELD_DOUBLE, 9, 3),
	FIELD(struct dl_iter, reported, FIELD_U64, 10, 0),
	{ NULL },
};

/* --page-steps: where the mappings are counted. */
enum step { STEP_POPULATE, STEP_ENABLE, STEP_HARVEST, STEP_DISABLE,
	    STEP_REPOPULATE, NR_STEPS };

static const char *const step_names[NR_STEPS] = {
	[STEP_POPULATE] = "populate", [STEP_ENABLE] = "enable",
	[STEP_HARVEST] = "harvest", [STEP_DISABLE] = "disable",
	[STEP_REPOPULATE] = "repopulate",
};

struct dl_run {
	const char *mode;
	s64 steps[NR_STEPS][VM_PAGE_SIZES];
	bool stepped[NR_STEPS];			/* counted */
	bool from_dump;		/* arm64's stage-2 dump, the test memory */
	double dump_ms[NR_STEPS];	/* each read of it */
	char steps_na[256];	/* why nothing was counted */
	double enable_ms, disable_ms;
	u64 first_reported, touched;
	u64 ring_full_exits;
	struct dl_iter *it;
	struct dlog d;
	struct oracle o;
	bool verified;
};

static const struct field run_fields[] = {
	FIELD(struct dl_run, mode, FIELD_STR, 0, 0),
	FIELD(struct dl_run, enable_ms, FIELD_DOUBLE, 0, 0),
	FIELD(struct dl_run, disable_ms, FIELD_DOUBLE, 0, 0),
	FIELD_AS("first_harvest_reported", struct dl_run, first_reported,
		 FIELD_U64, 0, 0),
	FIELD_AS("guest_touched", struct dl_run, touched, FIELD_U64, 0, 0),
	FIELD(struct dl_run, ring_full_exits, FIELD_U64, 0, 0),
	{ NULL },
};


static void take_times(struct dl_iter *it, const struct dlog *d)
{
	it->get_ms = d->get_ms;
	it->clear_ms = d->clear_ms;
	it->ring_ms = d->ring_ms;
	it->reset_ms = d->reset_ms;
	it->kick_ms = d->kick_ms;
	it->user_ms = d->process_ms;
}

/* One harvest: through the oracle when verifying; the pages reported. */
static u64 harvest(struct vm *vm, struct dl_run *r)
{
	u64 n;

	if (r->verified) {
		if (oracle_round(&r->o, vm))
			return ~0ULL;
		return bitmap_weight(r->o.dirty, r->o.pages);
	}
	dlog_harvest(&r->d);
	n = bitmap_weight(r->d.dirty, r->d.pages);
	memset(r->d.dirty, 0, (r->d.pages / 64 + 1) * 8);
	return n;
}

static double slowest_pass_ms(const struct vm *vm, const struct phase *p)
{
	u64 longest = 0;

	for (u32 i = 0; i < p->nr_vcpus; i++)
		longest = mmub_max(longest, p->pass[i].clk_end -
					    p->pass[i].clk_start);
	return cycles_to_ns(vm, longest) / 1e6;
}

/*
 * The -i iterations; only the last one's phase stays in the run (its
 * stats go to the table), so the run keeps populate, enable, the last
 * iteration and disable whatever -i is.
 */
static int iterate(struct vm *vm, struct run *run, struct dl_run *r, u32 n)
{
	char name[32];

	for (u32 i = 1; i <= n; i++) {
		struct dl_iter *it = &r->it[i - 1];

		snprintf(name, sizeof(name), "iter%u", i);
		if (run_pass(vm, run, name, i))
			return -1;
		it->dirty_ms = slowest_pass_ms(vm, &run->ph[run->nph - 1]);
		it->reported = harvest(vm, r);
		take_times(it, &r->d);
		if (it->reported == ~0ULL)
			return -1;
		if (i < n)
			phase_free(&run->ph[--run->nph]);
	}
	return 0;
}

/* Harvest while every vCPU keeps writing, then once more at rest. */
static int verify_concurrent(struct vm *vm, struct dl_run *r, u32 gen)
{
	u64 lost = 0;

	if (vm_post(vm, MMUB_CMD_LOOP, gen))
		return -1;
	oracle_writing(&r->o, true);
	for (u32 k = 0; k < o.rounds && !lost; k++)
		lost += oracle_round(&r->o, vm);
	if (vm_stop_loop(vm))
		return -1;
	oracle_writing(&r->o, false);
	lost += oracle_round(&r->o, vm);
	return lost ? -1 : 0;
}

/*
 * --page-steps: x86's KVM counts its mappings by size, the whole VM's;
 * arm64's has no such stats, and its stage-2 dump, where the kernel has
 * one, is counted over the test memory, each read timed.  The read holds
 * KVM's mmu_lock for a walk of the whole IPA space: no step is counted
 * inside a timed phase.  With neither, nothing is counted, and why is
 * kept (the populate step, the first, decides).
 */
static int step(struct vm *vm, struct dl_run *r, enum step s)
{
	double t;

	if (!o.page_steps || (s > STEP_POPULATE && !r->stepped[STEP_POPULATE]))
		return 0;
	if (!r->from_dump) {
		vm_pages_by_size(vm, r->steps[s]);
		r->stepped[s] = r->steps[s][0] >= 0;
		if (r->stepped[s])
			return 0;
	}
	t = now_ms();
	if (vm_test_pages_by_size(vm, r->steps[s], r->steps_na,
				  sizeof(r->steps_na))) {
		if (!r->from_dump)
			return 0;
		err_msg("--page-steps: %s", r->steps_na);
		return -1;
	}
	r->dump_ms[s] = now_ms() - t;
	r->from_dump = true;
	r->stepped[s] = true;
	return 0;
}

static int enable(struct vm *vm, struct run *run, struct dl_run *r)
{
	struct phase *p = run_phase_begin(vm, run, "enable");

	r->enable_ms = dlog_enable(&r->d, true);
	run_phase_end(vm, p);
	return step(vm, r, STEP_ENABLE);
}

/* The first harvest, with the guest at rest: what is reported. */
static int enable_at_rest(struct vm *vm, struct run *run, struct dl_run *r)
{
	if (enable(vm, run, r))
		return -1;
	dlog_harvest(&r->d);
	r->first_reported = bitmap_weight(r->d.dirty, r->d.pages);
	memset(r->d.dirty, 0, (r->d.pages / 64 + 1) * 8);
	return step(vm, r, STEP_HARVEST);
}

/*
 * --verify: the vCPUs write while logging goes live and during the first
 * harvest, where pages are lost if the enable path is wrong; the oracle
 * checks every write done after logging went live.
 */
static int enable_writing(struct vm *vm, struct run *run, struct dl_run *r,
			  u32 gen)
{
	u64 lost;

	if (vm_write_cold(vm))
		return -1;
	oracle_init(&r->o, vm, &r->d, false);
	r->verified = true;
	if (vm_post(vm, MMUB_CMD_LOOP, gen))
		return -1;
	oracle_writing(&r->o, true);
	if (enable(vm, run, r) || oracle_live(&r->o, vm))
		return -1;
	lost = oracle_round(&r->o, vm);
	if (step(vm, r, STEP_HARVEST))
		return -1;
	r->first_reported = bitmap_weight(r->o.dirty, r->o.pages);
	if (vm_stop_loop(vm))
		return -1;
	oracle_writing(&r->o, false);
	return lost ? -1 : 0;
}

/*
 * Logging off; with -e while the vCPUs write (generation @gen), and
 * until each has passed over its memory once more, in the phase: their
 * latency across it.  The step is counted at the ioctl's return: without
 * -e once the phase has ended (a read of arm64's dump takes mmu_lock
 * and milliseconds, no part of the disable), with -e while they refault,
 * but not from arm64's dump, whose read would stall their faults inside
 * the phase.
 */
static int disable(struct vm *vm, struct run *run, struct dl_run *r, u32 gen)
{
	struct phase *p;

	if (o.disable_writing && vm_post(vm, MMUB_CMD_LOOP, gen))
		return -1;
	p = run_phase_begin(vm, run, "disable");
	r->disable_ms = dlog_enable(&r->d, false);
	if (!o.disable_writing) {
		run_phase_end(vm, p);
		return step(vm, r, STEP_DISABLE) ? -1 : 0;
	}
	if (!r->from_dump && step(vm, r, STEP_DISABLE))
		return -1;
	if (vm_wait_passes(vm, 2, "a pass after logging was disabled") ||
	    vm_stop_loop(vm))
		return -1;
	phase_end(vm, p, true);
	return 0;
}

static int dirty_log_once(struct vm *vm, struct run *run, struct dl_run *r,
			  u32 iterations)
{
	if (run_pass(vm, run, "populate", 0))
		return -1;
	if (step(vm, r, STEP_POPULATE))
		return -1;
	for (u32 i = 0; i < vm->p.nr_vcpus; i++)
		r->touched += run->ph[0].pass[i].accesses;

	if (!o.dl.verify) {
		if (enable_at_rest(vm, run, r))
			return -1;
	} else if (enable_writing(vm, run, r, iterations + 1))
		return -1;
	if (iterate(vm, run, r, iterations))
		return -1;
	if (o.dl.verify && verify_concurrent(vm, r, iterations + 1))
		return -1;

	if (disable(vm, run, r, iterations + 2))
		return -1;
	r->ring_full_exits = r->d.ring_full_exits;
	if (!o.page_steps)
		return 0;
	if (run_pass(vm, run, "repopulate", iterations + 3))
		return -1;
	return step(vm, r, STEP_REPOPULATE);
}

/* --page-steps: the mappings by size at each step counted. */
static void print_steps(const struct dl_run *r)
{
	if (!r->stepped[STEP_POPULATE]) {
		printf("  page steps: n/a: this KVM counts no mappings by page "
		       "size (pages_4k/2m/1g are x86's stats), and %s\n",
		       r->steps_na);
		return;
	}
	if (r->from_dump)
		printf("  stage-2 mappings by page size after each step (KVM's "
		       "stage2_page_tables in debugfs; the test memory; each "
		       "read's time, outside the phases)\n");
	else
		printf("  mappings by page size after each step (KVM's "
		       "pages_4k, pages_2m, pages_1g; the whole VM)\n");
	printf("  %-12s %9s %9s %9s%s\n", "step", "4K", "2M", "1G",
	       r->from_dump ? "   read_ms" : "");
	for (u32 s = 0; s < NR_STEPS; s++) {
		if (!r->stepped[s])
			continue;
		printf("  %-12s %9lld %9lld %9lld", step_names[s],
		       (long long)r->steps[s][0], (long long)r->steps[s][1],
		       (long long)r->steps[s][2]);
		if (r->from_dump)
			printf(" %9.3f", r->dump_ms[s]);
		printf("\n");
	}
	if (r->from_dump && o.disable_writing)
		printf("  disable: not counted with -e (the dump's read holds "
		       "KVM's mmu_lock while the vCPUs write in the phase)\n");
}

static json_t *steps_json(const struct dl_run *r)
{
	json_t *a;

	if (!r->stepped[STEP_POPULATE])
		return json_null();
	a = json_array();
	for (u32 s = 0; s < NR_STEPS; s++) {
		json_t *j;

		if (!r->stepped[s])
			continue;
		j = json_pack("{s:s, s:I, s:I, s:I}", "step", step_names[s],
			      "4k", (json_int_t)r->steps[s][0],
			      "2m", (json_int_t)r->steps[s][1],
			      "1g", (json_int_t)r->steps[s][2]);
		if (r->from_dump)
			jset(j, "read_ms", json_real(r->dump_ms[s]));
		json_array_append_new(a, j);
	}
	return a;
}

/* Where the steps were counted, or why they were not. */
static void steps_source_json(json_t *j, const struct dl_run *r)
{
	if (!r->stepped[STEP_POPULATE]) {
		jset(j, "page_steps_na", json_string(r->steps_na));
		return;
	}
	jset(j, "page_steps_counted", json_string(r->from_dump ?
	     "stage2_dump: test memory" : "vm_stats: whole VM"));
}

static void print_run(const struct vm *vm, const struct dl_run *r, u32 n)
{
	double user = 0, ioctl_ms = 0;

	printf("  enable_ms %.3f (%u slot%s), disable_ms %.3f\n", r->enable_ms,
	       vm->p.nr_slots, vm->p.nr_slots > 1 ? "s" : "", r->disable_ms);
	printf("  first harvest: %llu pages reported dirty; the guest had "
	       "touched %llu\n", (unsigned long long)r->first_reported,
	       (unsigned long long)r->touched);
	printf("  %-6s", "iter");
	fields_head(iter_fields);
	for (u32 i = 0; i < n; i++) {
		printf("  %-6u", i + 1);
		fields_row(iter_fields, &r->it[i]);
		user += r->it[i].user_ms + r->it[i].ring_ms;
		ioctl_ms += r->it[i].get_ms + r->it[i].clear_ms +
			    r->it[i].reset_ms;
	}
	if (r->d.ring_entries)
		printf("  dirty ring: %u entries per vCPU, %llu ring-full exits\n",
		       r->d.ring_entries,
		       (unsigned long long)r->d.ring_full_exits);
	if (ioctl_ms > 0)
		printf("  harvest user-space processing: %.1f %% of the ioctl "
		       "time (target <= 5 %%)\n", 100 * user / ioctl_ms);
	if (r->verified)
		oracle_print(&r->o);
	if (o.page_steps)
		print_steps(r);
}

static json_t *run_json(const struct dl_run *r, u32 n)
{
	json_t *j = json_object(), *its = json_array();

	fields_json(j, run_fields, r);
	for (u32 i = 0; i < n; i++) {
		json_t *it = json_object();

		fields_json(it, iter_fields, &r->it[i]);
		json_array_append_new(its, it);
	}
	jset(j, "iterations", its);
	if (o.page_steps) {
		jset(j, "page_steps", steps_json(r));
		steps_source_json(j, r);
	}
	if (r->verified) {
		json_t *v = json_object();

		fields_json(v, oracle_fields, &r->o);
		jset(j, "verify", v);
	}
	return j;
}


static int once(struct vm *vm, struct run *run, u32 index, void *arg)
{
	const struct common *c = arg;
	struct dl_run r = { .mode = dlog_mode_names[o.dl.mode] };
	int ret;

	(void)index;
	r.it = calloc(c->iterations + 1, sizeof(*r.it));
	if (!r.it)
		die("out of memory");
	dlog_opts_init(&r.d, vm, &o.dl);
	if (o.dl.drop >= 0)
		dlog_debug_drop(&r.d, (u64)o.dl.drop);
	ret = dirty_log_once(vm, run, &r, c->iterations);
	if (dlog_opts_drops(&o.dl) && oracle_drop_unseen(&r.o, &r.d, o.dl.drop))
		ret = -1;
	if (!ret) {
		print_run(vm, &r, c->iterations);
		jset(run->json, "dirty_log", run_json(&r, c->iterations));
	} else if (r.verified && r.o.missed) {
		char where[64];

		vm_test_page_where(vm, r.o.first_missed, where, sizeof(where));
		err_msg("--verify: %llu page%s missed, first %s",
			(unsigned long long)r.o.missed,
			r.o.missed > 1 ? "s" : "", where);
	}
	if (r.verified)
		oracle_free(&r.o);
	run_dlog_free(&r.d, vm);
	free(r.it);
	return ret;
}

static int run(struct common *c)
{
	struct run_hooks h = { .once = once, .arg = c };
	json_t *config;
	char es[32];

	if (o.table)
		return dirty_log_table(c, &o.table_modes, &o.eager);
	report_header(&c->vm, "dirty-log");
	printf("dirty logging: --mode %s%s%s%s%s\n", dlog_mode_names[o.dl.mode],
	       o.dl.verify ? ", every harvest verified" : "",
	       o.disable_writing ? ", disabled while the vCPUs write" : "",
	       o.eager.n ? ", eager splitting " : "",
	       o.eager.n ? eager_name(&o.eager.s[0], es, sizeof(es)) : "");
	config = json_object();
	jset(config, "dirty_mode", json_string(dlog_mode_names[o.dl.mode]));
	jset(config, "clear_chunk", json_integer((json_int_t)o.dl.chunk));
	jset(config, "verify", json_boolean(o.dl.verify));
	jset(config, "eager_split", o.eager.n ?
	     json_string(eager_name(&o.eager.s[0], es, sizeof(es))) :
	     json_null());
	jset(config, "rounds", json_integer(o.rounds));
	jset(config, "disable_writing", json_boolean(o.disable_writing));
	jset(config, "page_steps", json_boolean(o.page_steps));
	return run_all(c, "dirty-log", config, &h);
}

/*
 * What a patch moves: enabling, the first harvest (seed 000), each
 * harvest's ioctls; the enable table's cells (--table enable, seed 003).
 * Each only in one shape of document.  The thresholds are a first guess,
 * to check against the A/A noise floor (seed 003's experiment).
 */
static const struct metric_def metrics[] = {
	{ "enable_ms", "results.runs[].dirty_log.enable_ms", "ms",
	  BETTER_LOWER, 25, true },
	{ "disable_ms", "results.runs[].dirty_log.disable_ms", "ms",
	  BETTER_LOWER, 25, true },
	{ "first_harvest_reported",
	  "results.runs[].dirty_log.first_harvest_reported", "pages",
	  BETTER_LOWER, 10, true },
	{ "get_ms", "results.runs[].dirty_log.iterations[*].get_ms", "ms",
	  BETTER_LOWER, 25, true },
	{ "clear_ms", "results.runs[].dirty_log.iterations[*].clear_ms", "ms",
	  BETTER_LOWER, 25, true },
	{ "enable_ms (--table)", "results.runs[].enable_ms", "ms",
	  BETTER_LOWER, 25, true },
	{ NULL }
};

/* A --table document's runs are cells: mode, page size, backing. */
static const char *const row_keys[] = {
	"dirty_log.mode", "page", "backing", "mode", NULL
};

const struct scenario scenario_dirty_log = {
	.name = "dirty-log",
	.brief = "enable, harvest, disable logging; --verify: no dirty page lost",
	.help = "enable logging (timed), first-harvest accounting, -i "
		"write+harvest iterations, disable; --verify checks that no "
		"dirty page is lost; --table enable: the seeds' enable table",
	.opts = opts,
	.parse = parse,
	.validate = validate,
	.run = run,
	.metrics = metrics,
	.row_keys = row_keys,
};
