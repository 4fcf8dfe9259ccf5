// SPDX-License-Identifier: GPL-2.0
/*
 * Scenario "dirty-log": populate, enable dirty logging (timed, summed over
 * the slots as QEMU's memory_global_dirty_log_start does), count what the
 * first harvest reports against what the guest touched, then -i
 * iterations of "vCPUs write one pass, host harvests", then disable.
 * With --verify the oracle checks every harvest, and afterwards runs
 * --rounds harvests while the vCPUs keep writing.
 *
 * "--table enable" is in dirty_log_table.c.
 */
#include <stdlib.h>
#include <string.h>
#include "../oracle.h"
#include "../report.h"
#include "scenarios.h"

struct dl_iter {
	double dirty_ms;	/* slowest vCPU's pass, guest clock */
	double get_ms, clear_ms, ring_ms, reset_ms, process_ms;
	u64 reported;
};

struct dl_run {
	double enable_ms, disable_ms;
	u64 first_reported, touched;
	struct dl_iter *it;
	struct oracle o;
	bool verified;
};

static u64 popcount_map(const u64 *map, u64 bits)
{
	u64 n = 0;

	for (u64 w = 0; w * 64 < bits; w++)
		n += (u64)__builtin_popcountll(map[w]);
	return n;
}

static void take_times(struct dl_iter *it, const struct dlog *d)
{
	it->get_ms = d->get_ms;
	it->clear_ms = d->clear_ms;
	it->ring_ms = d->ring_ms;
	it->reset_ms = d->reset_ms;
	it->process_ms = d->process_ms;
}

/* One harvest: through the oracle when verifying. */
static u64 harvest(struct vm *vm, struct dl_run *r)
{
	u64 n;

	if (r->verified) {
		if (oracle_round(&r->o, vm))
			return ~0ULL;
		return popcount_map(r->o.dirty, r->o.pages);
	}
	dlog_harvest(vm);
	n = popcount_map(vm->dlog->dirty, vm->dlog->pages);
	memset(vm->dlog->dirty, 0, (vm->dlog->pages / 64 + 1) * 8);
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

static int iterate(struct vm *vm, struct dl_run *r, struct phase *ph)
{
	const struct run_config *cfg = vm->cfg;

	for (u32 i = 1; i <= cfg->iterations; i++) {
		struct phase p;
		char name[32];

		snprintf(name, sizeof(name), "iter%u", i);
		phase_begin(vm, &p, name);
		vm_post(vm, MMUB_CMD_PASS, i);
		if (vm_wait(vm))
			return -1;
		phase_end(vm, &p, true);
		r->it[i - 1].dirty_ms = slowest_pass_ms(vm, &p);
		r->it[i - 1].reported = harvest(vm, r);
		take_times(&r->it[i - 1], vm->dlog);
		if (r->it[i - 1].reported == ~0ULL)
			return -1;
		/* Keep the stats of the last iteration only, for the table. */
		if (i == cfg->iterations)
			*ph = p;
		else
			phase_free(&p);
	}
	return 0;
}

/* Harvest while every vCPU keeps writing, then once more at rest. */
static int verify_concurrent(struct vm *vm, struct dl_run *r)
{
	u64 lost = 0;

	vm_post(vm, MMUB_CMD_LOOP, vm->cfg->iterations + 1);
	for (u32 k = 0; k < vm->cfg->rounds && !lost; k++)
		lost += oracle_round(&r->o, vm);
	if (vm_stop_loop(vm))
		return -1;
	lost += oracle_round(&r->o, vm);
	return lost ? -1 : 0;
}

/* populate, enable, the last iteration (if any), disable */
static u32 nph(const struct run_config *cfg)
{
	return cfg->iterations ? 4 : 3;
}

static int dirty_log_once(struct vm *vm, struct dl_run *r, struct phase *ph)
{
	const struct run_config *cfg = vm->cfg;
	struct phase *disable = &ph[nph(cfg) - 1];

	phase_begin(vm, &ph[0], "populate");
	vm_post(vm, MMUB_CMD_PASS, 0);
	if (vm_wait(vm))
		return -1;
	phase_end(vm, &ph[0], true);
	for (u32 i = 0; i < cfg->nr_vcpus; i++)
		r->touched += ph[0].pass[i].accesses;

	phase_begin(vm, &ph[1], "enable");
	r->enable_ms = dlog_enable(vm, true);
	phase_end(vm, &ph[1], false);

	/* The first harvest, with the guest at rest: what is reported. */
	dlog_harvest(vm);
	r->first_reported = popcount_map(vm->dlog->dirty, vm->dlog->pages);
	memset(vm->dlog->dirty, 0, (vm->dlog->pages / 64 + 1) * 8);

	if (cfg->verify) {
		oracle_init(&r->o, vm);
		r->verified = true;
	}
	if (iterate(vm, r, &ph[2]))
		return -1;
	if (cfg->verify && verify_concurrent(vm, r))
		return -1;

	phase_begin(vm, disable, "disable");
	r->disable_ms = dlog_enable(vm, false);
	phase_end(vm, disable, false);
	return 0;
}

static void print_run(const struct vm *vm, const struct dl_run *r)
{
	const struct run_config *cfg = vm->cfg;
	double user = 0, ioctl_ms = 0;

	printf("  enable_ms %.3f (%u slot%s), disable_ms %.3f\n", r->enable_ms,
	       cfg->nr_slots, cfg->nr_slots > 1 ? "s" : "", r->disable_ms);
	printf("  first harvest: %llu pages reported dirty; the guest had "
	       "touched %llu\n", (unsigned long long)r->first_reported,
	       (unsigned long long)r->touched);
	printf("  %-6s %10s %9s %9s %9s %9s %9s %10s\n", "iter", "dirty_ms",
	       "get_ms", "clear_ms", "ring_ms", "reset_ms", "user_ms",
	       "reported");
	for (u32 i = 0; i < cfg->iterations; i++) {
		const struct dl_iter *it = &r->it[i];

		printf("  %-6u %10.3f %9.3f %9.3f %9.3f %9.3f %9.3f %10llu\n",
		       i + 1, it->dirty_ms, it->get_ms, it->clear_ms,
		       it->ring_ms, it->reset_ms, it->process_ms,
		       (unsigned long long)it->reported);
		user += it->process_ms + it->ring_ms;
		ioctl_ms += it->get_ms + it->clear_ms + it->reset_ms;
	}
	if (vm->dlog->ring_entries)
		printf("  dirty ring: %u entries per vCPU, %llu ring-full exits\n",
		       vm->dlog->ring_entries,
		       (unsigned long long)vm->dlog->ring_full_exits);
	if (ioctl_ms > 0)
		printf("  harvest user-space processing: %.1f %% of the ioctl "
		       "time (target <= 5 %%)\n", 100 * user / ioctl_ms);
	if (r->verified)
		printf("  verify: %llu harvests checked, %llu pages changed, "
		       "%llu missed, %llu false positives\n",
		       (unsigned long long)r->o.rounds,
		       (unsigned long long)r->o.changed,
		       (unsigned long long)r->o.missed,
		       (unsigned long long)r->o.false_pos);
}

static void json_run(struct json *j, const struct vm *vm,
		     const struct dl_run *r)
{
	json_obj_begin(j, "dirty_log");
	json_str(j, "mode", dlog_mode_names[vm->cfg->dirty_mode]);
	json_num(j, "enable_ms", r->enable_ms);
	json_num(j, "disable_ms", r->disable_ms);
	json_u64(j, "first_harvest_reported", r->first_reported);
	json_u64(j, "guest_touched", r->touched);
	json_u64(j, "ring_full_exits", vm->dlog->ring_full_exits);
	json_arr_begin(j, "iterations");
	for (u32 i = 0; i < vm->cfg->iterations; i++) {
		const struct dl_iter *it = &r->it[i];

		json_obj_begin(j, NULL);
		json_num(j, "dirty_ms", it->dirty_ms);
		json_num(j, "get_ms", it->get_ms);
		json_num(j, "clear_ms", it->clear_ms);
		json_num(j, "ring_ms", it->ring_ms);
		json_num(j, "reset_ms", it->reset_ms);
		json_num(j, "user_ms", it->process_ms);
		json_u64(j, "reported", it->reported);
		json_obj_end(j);
	}
	json_arr_end(j);
	if (r->verified) {
		json_obj_begin(j, "verify");
		json_u64(j, "harvests", r->o.rounds);
		json_u64(j, "changed", r->o.changed);
		json_u64(j, "missed", r->o.missed);
		json_u64(j, "false_positives", r->o.false_pos);
		json_obj_end(j);
	}
	json_obj_end(j);
}

int scenario_dirty_log(const struct run_config *cfg)
{
	struct phase ph[4];
	struct json j;
	struct dl_run r;
	struct vm vm;
	int ret = 0;

	if (cfg->table)
		return dirty_log_table(cfg);
	for (u32 k = 0; k < cfg->repeat && !ret; k++) {
		memset(&r, 0, sizeof(r));
		memset(ph, 0, sizeof(ph));
		r.it = calloc(cfg->iterations + 1, sizeof(*r.it));
		if (!r.it)
			die("out of memory");
		vm_create(&vm, cfg);
		if (!k) {
			report_header(&vm, "dirty-log");
			report_json_begin(&j, &vm);
		}
		ret = vm_start(&vm) || dirty_log_once(&vm, &r, ph);
		if (!ret) {
			printf("run %u/%u, mode %s:\n", k + 1, cfg->repeat,
			       dlog_mode_names[cfg->dirty_mode]);
			print_run(&vm, &r);
			report_stats(&vm, ph, nph(cfg));
			report_json_run(&j, &vm, ph, nph(cfg));
			json_run(&j, &vm, &r);
			json_obj_end(&j);
		} else if (r.verified && r.o.missed) {
			char where[64];

			oracle_describe(&vm, r.o.first_missed, where,
					sizeof(where));
			err_msg("--verify: %llu page%s missed, first %s",
				(unsigned long long)r.o.missed,
				r.o.missed > 1 ? "s" : "", where);
		}
		for (u32 i = 0; i < 4; i++)
			phase_free(&ph[i]);
		if (r.verified)
			oracle_free(&r.o);
		free(r.it);
		vm_destroy(&vm);
	}
	if (ret) {
		json_free(&j);
		return 1;
	}
	report_json_finish(&j, cfg);
	return 0;
}
