// SPDX-License-Identifier: GPL-2.0
/* The dirty-log oracle; the reasoning is in oracle.h. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "util/util.h"
#include "scenarios/oracle.h"

static bool test_bit(const u64 *map, u64 i)
{
	return map[i / 64] & (1ULL << (i % 64));
}

static void assign_bit(u64 *map, u64 i, bool v)
{
	if (v)
		map[i / 64] |= 1ULL << (i % 64);
	else
		map[i / 64] &= ~(1ULL << (i % 64));
}

static u64 page_word(const struct vm *vm, u64 page)
{
	return __atomic_load_n((u64 *)(vm->test.hva + page * MMUB_SZ_4K),
			       __ATOMIC_RELAXED);
}

void oracle_init(struct oracle *o, struct vm *vm, struct dlog *d,
		 s64 drop_round)
{
	u64 words;

	memset(o, 0, sizeof(*o));
	o->d = d;
	o->pages = vm->test.size / MMUB_SZ_4K;
	words = o->pages / 64 + 1;
	o->prev = calloc(o->pages, sizeof(u64));
	o->pending = calloc(words, 8);
	o->dirty = calloc(words, 8);
	if (!o->prev || !o->pending || !o->dirty)
		die("out of memory for the oracle");
	for (u64 p = 0; p < o->pages; p++)
		o->prev[p] = page_word(vm, p);
	o->drop_round = drop_round;
	o->dropped = -1;
}

void oracle_describe(const struct vm *vm, u64 page, char *buf, size_t len)
{
	u64 slot_pages = vm->test.size / MMUB_SZ_4K / vm->p.nr_slots;

	snprintf(buf, len, "slot %llu gfn 0x%llx",
		 (unsigned long long)(VM_TEST_SLOT0 + page / slot_pages),
		 (unsigned long long)(vm->layout.test_gpa / MMUB_SZ_4K + page));
}

static void missed(struct oracle *o, const struct vm *vm, u64 page,
		   const char *why)
{
	char where[64];

	if (!o->missed)
		o->first_missed = page;
	o->missed++;
	oracle_describe(vm, page, where, sizeof(where));
	err_msg("dirty-log oracle: %s changed but was not reported dirty "
		"(%s, round %llu)", where, why, (unsigned long long)o->rounds);
}

/*
 * Debug: forget one reported page whose write is known to predate the
 * harvest, so the check must catch it.  Decided on the same read of the
 * page as the check itself: a vCPU rewriting the page in between must not
 * hide the drop.
 */
static bool drop_here(struct oracle *o, const struct vm *vm, u64 p, u64 cur,
		      bool dirty, bool was_pending)
{
	char where[64];

	if (o->dropped >= 0 || o->drop_round < 0 ||
	    (s64)o->rounds < o->drop_round || !dirty || was_pending ||
	    cur == o->prev[p] || MMUB_STAMP_EPOCH(cur) >= o->epoch)
		return false;
	o->dropped = (s64)p;
	oracle_describe(vm, p, where, sizeof(where));
	err_msg("--debug-drop-dirty: dropped %s from round %llu on purpose",
		where, (unsigned long long)o->rounds);
	return true;
}

static u64 check(struct oracle *o, const struct vm *vm)
{
	u64 before = o->missed;

	for (u64 p = 0; p < o->pages; p++) {
		u64 cur = page_word(vm, p);
		bool dirty = test_bit(o->dirty, p);
		bool was_pending = test_bit(o->pending, p);

		if (drop_here(o, vm, p, cur, dirty, was_pending))
			dirty = false;

		o->reported += dirty;
		if (was_pending) {
			assign_bit(o->pending, p, false);
			if (!dirty)
				missed(o, vm, p, "written late in the previous "
				       "round, not in this harvest either");
		}
		if (cur != o->prev[p]) {
			o->changed++;
			if (MMUB_STAMP_EPOCH(cur) < o->epoch) {
				if (!dirty)
					missed(o, vm, p, "written before the "
					       "harvest");
			} else if (!dirty) {
				assign_bit(o->pending, p, true);
			}
		} else if (dirty && !was_pending) {
			o->false_pos++;
		}
		o->prev[p] = cur;
	}
	return o->missed - before;
}

u64 oracle_round(struct oracle *o, struct vm *vm)
{
	u64 lost;

	o->epoch++;
	for (u32 i = 0; i < vm->p.nr_vcpus; i++)
		mmub_store_release(&vm->vcpus[i].mb->epoch, o->epoch);
	if (vm_wait_epoch(vm, o->epoch))
		die("dirty-log oracle: the guest stopped");
	dlog_harvest(o->d);
	dlog_take(o->d, o->dirty);
	lost = check(o, vm);
	o->rounds++;
	return lost;
}

void oracle_free(struct oracle *o)
{
	free(o->prev);
	free(o->pending);
	free(o->dirty);
}
