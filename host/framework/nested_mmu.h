/* SPDX-License-Identifier: GPL-2.0 */
/*
 * --nested-guest: which of KVM's MMUs served the run.  The L2's accesses
 * must be the shadow MMU's faults, on its shadow of the guest's nested
 * page table; a run whose faults came from the TDP MMU measured the
 * guest itself, not its L2, and fails.
 */
#ifndef HOST_FRAMEWORK_NESTED_MMU_H
#define HOST_FRAMEWORK_NESTED_MMU_H

#include <jansson.h>
#include "vmm/vmm.h"
#include "kvm/kcount.h"
#include "framework/report.h"

#define NESTED_MMU_PROBES	4

struct nested_mmu {
	struct kcount k[NESTED_MMU_PROBES];
	char why[200];		/* no kprobes: why, and the stats alone */
	struct snap s0;
};

/* From the booted VM on (run_one), before the scenario's work. */
void nested_mmu_begin(struct nested_mmu *m, struct vm *vm);
/*
 * After it: the counts into @run's JSON ("nested"), a line if @print;
 * 0, or -1 after saying why the shadow MMU did not serve the L2.
 */
int nested_mmu_end(struct nested_mmu *m, struct vm *vm, json_t *run,
		   bool print);

#endif
