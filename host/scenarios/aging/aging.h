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

/* A round's young pages against the touched ones. */
struct aging_count {
	u64 touched, found, missed, false_young;
	s64 first_missed, first_false;	/* test pages, -1: none */
};

/*
 * Count @young against @touched (bitmaps of @n test pages), the pages
 * in @skip left out.
 */
void aging_count(const u64 *touched, const u64 *young, const u64 *skip,
		 u64 n, struct aging_count *c);
/*
 * Round @k's check: a touched page not found young, or an untouched
 * one found young, said with the first one; true if any.
 */
bool aging_wrong(struct vm *vm, u32 k, const struct aging_count *c);
/*
 * --debug-drop-young: the first touched page found young (not in
 * @skip) taken out of @young, named; -1 if there is none.
 */
int aging_drop_one(struct vm *vm, const u64 *touched, u64 *young,
		   const u64 *skip, u64 n);

/* Each method's checks of the options, and its -i rounds on a VM. */
void aging_page_idle_validate(struct common *c);
int aging_page_idle(struct vm *vm, struct run *r, u32 rounds);
void aging_lru_gen_validate(struct common *c);
/* At the run's start, before any VM: MGLRU on, restored at exit. */
void aging_lru_gen_setup(void);
int aging_lru_gen(struct vm *vm, struct run *r, u32 rounds);

#endif
