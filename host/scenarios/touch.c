// SPDX-License-Identifier: GPL-2.0
/*
 * Scenario "touch": boot, then the populate pass (first touch: every
 * access faults into KVM) and -i further passes over memory that is
 * already mapped.  Per pass and vCPU: time, pages/s, access latency; per
 * pass: what the kernel's counters did.
 */
#include <stdlib.h>
#include <string.h>
#include "../report.h"
#include "scenarios.h"

static int touch_once(struct vm *vm, struct phase *ph, u32 *nph)
{
	const struct run_config *cfg = vm->cfg;
	char name[32];

	for (u32 g = 0; g <= cfg->iterations; g++) {
		if (g)
			snprintf(name, sizeof(name), "iter%u", g);
		else
			snprintf(name, sizeof(name), "populate");
		phase_begin(vm, &ph[g], name);
		*nph = g + 1;
		vm_post(vm, MMUB_CMD_PASS, g);
		if (vm_wait(vm))
			return -1;
		phase_end(vm, &ph[g], true);
	}
	return 0;
}

int scenario_touch(const struct run_config *cfg)
{
	u32 nph = 0, n = cfg->iterations + 1;
	struct phase *ph = calloc(n, sizeof(*ph));
	struct json j;
	struct vm vm;
	int ret = 0;

	if (!ph)
		die("out of memory");
	for (u32 r = 0; r < cfg->repeat && !ret; r++) {
		vm_create(&vm, cfg);
		if (!r) {
			report_header(&vm, "touch");
			report_json_begin(&j, &vm);
		}
		ret = vm_start(&vm) || touch_once(&vm, ph, &nph);
		if (!ret) {
			printf("run %u/%u: boot %.1f ms (KVM_CREATE_VM to all "
			       "vCPUs in the engine)\n", r + 1, cfg->repeat,
			       vm.boot_ms);
			report_passes(&vm, ph, nph);
			report_stats(&vm, ph, nph);
			report_json_run(&j, &vm, ph, nph);
			json_obj_end(&j);
		}
		for (u32 k = 0; k < nph; k++)
			phase_free(&ph[k]);
		nph = 0;
		vm_destroy(&vm);
	}
	free(ph);
	if (ret) {
		json_free(&j);
		return 1;
	}
	report_json_finish(&j, cfg);
	return 0;
}
