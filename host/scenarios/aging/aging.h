/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Scenario "aging" (aging.c): access tracking, by one of two methods,
 * each in its own file: the page_idle bitmap (page_idle.c), or MGLRU's
 * aging pass, idle or while the vCPUs fault (lru_gen.c).
 */
#ifndef HOST_SCENARIOS_AGING_AGING_H
#define HOST_SCENARIOS_AGING_AGING_H

#include "scenarios/scenarios.h"

enum aging_method { AGING_PAGE_IDLE, AGING_LRU_GEN };

struct aging_opts {
	enum aging_method method;
	bool under_load;
	bool drop, host_touch, move;	/* --debug-* */
};

extern struct aging_opts aging_o;

/* Each method's checks of the options, and its -i rounds on a VM. */
void aging_page_idle_validate(struct common *c);
int aging_page_idle(struct vm *vm, struct run *r, u32 rounds);
void aging_lru_gen_validate(struct common *c);
/* At the run's start, before any VM: MGLRU on, restored at exit. */
void aging_lru_gen_setup(void);
int aging_lru_gen(struct vm *vm, struct run *r, u32 rounds);

#endif
