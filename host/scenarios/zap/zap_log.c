// SPDX-License-Identifier: GPL-2.0
/* Dirty logging during the zaps; see zap_log.h. */
#include <stdio.h>
#include <stdlib.h>
#include "util/util.h"
#include "framework/scenario.h"
#include "scenarios/zap/zap_log.h"

int zap_log_start(struct zap_log *l, struct vm *vm)
{
	dlog_opts_init(&l->d, vm, l->dl);
	if (l->dl->drop >= 0)
		dlog_debug_drop(&l->d, (u64)l->dl->drop);
	l->taken = calloc(l->d.pages / 64 + 1, 8);
	if (!l->taken)
		die("out of memory for the dirty bitmap");
	if (l->dl->verify && vm_write_cold(vm))
		return -1;
	dlog_enable(&l->d, true);
	/* init-set reports every page here; populate wrote them all. */
	dlog_harvest(&l->d);
	dlog_take(&l->d, l->taken);
	if (!l->dl->verify)
		return 0;
	oracle_init(&l->o, vm, &l->d, true);
	return oracle_first_harvest(&l->o, vm, l->taken) ? -1 : 0;
}

void zap_log_writing(struct zap_log *l)
{
	if (l->dl->verify)
		oracle_writing(&l->o, true);
}

int zap_log_round(struct zap_log *l, struct vm *vm)
{
	l->harvests++;
	if (l->dl->verify)
		return oracle_round(&l->o, vm) ? -1 : 0;
	dlog_harvest(&l->d);
	dlog_take(&l->d, l->taken);
	return 0;
}

int zap_log_stop(struct zap_log *l, struct vm *vm)
{
	int ret;

	if (l->dl->verify)
		oracle_writing(&l->o, false);
	ret = zap_log_round(l, vm);
	dlog_enable(&l->d, false);
	return ret;
}

void zap_log_print(const struct zap_log *l)
{
	printf("  dirty logging (--dirty-log %s): %llu harvests, one after "
	       "each invalidation and one at rest\n", dlog_mode_names[l->dl->mode],
	       (unsigned long long)l->harvests);
	if (l->dl->verify)
		oracle_print(&l->o);
}

json_t *zap_log_json(const struct zap_log *l)
{
	json_t *j = json_object();

	jset(j, "mode", json_string(dlog_mode_names[l->dl->mode]));
	jset(j, "harvests", json_integer((json_int_t)l->harvests));
	if (l->dl->verify) {
		json_t *v = json_object();

		fields_json(v, oracle_fields, &l->o);
		jset(j, "verify", v);
	}
	return j;
}

void zap_log_free(struct zap_log *l, struct vm *vm)
{
	if (l->dl->verify)
		oracle_free(&l->o);
	free(l->taken);
	run_dlog_free(&l->d, vm);
}
