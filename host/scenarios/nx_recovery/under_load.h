/* SPDX-License-Identifier: GPL-2.0 */
/*
 * nx-recovery --under-load (under_load.c): the recovery phase with the
 * vCPUs executing and writing through LOAD_PERIODS periods, and what it
 * adds to the run's table and document.
 */
#ifndef HOST_SCENARIOS_NX_RECOVERY_UNDER_LOAD_H
#define HOST_SCENARIOS_NX_RECOVERY_UNDER_LOAD_H

#include <jansson.h>
#include "scenarios/nx_recovery/nx_run.h"

/* --recovery-wait (@wait_given) and the workload it needs, checked. */
void nx_validate_load(struct vm_params *p, bool wait_given);
/* The phase @rec, the worker let run at @ratio for LOAD_PERIODS periods. */
int nx_load_recovery(struct vm *vm, struct nx_run *r, struct phase *rec,
		     u32 period_ms, u32 ratio);
/* What the vCPUs did in @rec; @base: splits of the system memory. */
void nx_load_collect(const struct vm *vm, const struct phase *rec,
		     struct nx_load *l, u64 base);
json_t *nx_load_json(const struct vm *vm, const struct nx_load *l);
void nx_print_load(const struct vm *vm, const struct nx_run *r);

#endif
