// SPDX-License-Identifier: GPL-2.0
/* The dirty-log oracle; the reasoning is in oracle.h. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "util/util.h"
#include "util/bitmap.h"
#include "results/json.h"
#include "framework/epoch.h"
#include "framework/oracle.h"

static u64 page_word(const struct vm *vm, u64 page)
{
	return __atomic_load_n((u64 *)(vm->test.hva + page * MMUB_SZ_4K),
			       __ATOMIC_RELAXED);
}

/* Publish a new epoch and wait until every running vCPU writes with it. */
static int next_epoch(struct oracle *o, struct vm *vm)
{
	return epoch_set(vm, ++o->epoch);
}

void oracle_shape(struct vm_params *p, bool cold)
{
	if (!p->wl.write_pct || mmub_wl_executes(&p->wl))
		return;
	p->wl.flags |= MMUB_WL_SENTINEL;
	if (cold)
		p->wl.flags |= MMUB_WL_COLD;
}

void oracle_init(struct oracle *o, struct vm *vm, struct dlog *d,
		 bool zeroes)
{
	u64 words;

	memset(o, 0, sizeof(*o));
	o->d = d;
	o->zeroes = zeroes;
	o->pages = vm->test.size / MMUB_SZ_4K;
	words = o->pages / 64 + 1;
	o->prev = calloc(o->pages, sizeof(u64));
	o->pending = calloc(words, 8);
	o->dirty = calloc(words, 8);
	o->suspect = calloc(words, 8);
	o->sent = calloc(words, 8);
	if (!o->prev || !o->pending || !o->dirty || !o->suspect || !o->sent)
		die("out of memory for the oracle");
	o->wl = &vm->p.wl;
	o->cold = vm_cold_pages(vm);
	o->cold_pages = bitmap_weight(o->cold, o->pages);
	o->init_set = d->mode == DLOG_CLEAR_INIT_SET;
	/* Every slot's words have one each only if slots are whole words. */
	if (o->cold_pages && d->slot_pages % 64)
		die("dirty-log oracle: slots of %llu pages are not whole "
		    "64-page words of the bitmap (bug)",
		    (unsigned long long)d->slot_pages);
	/* An earlier run in this VM left its epochs in the mailboxes. */
	o->epoch = epoch_newest(vm);
	for (u64 p = 0; p < o->pages; p++)
		o->prev[p] = page_word(vm, p);
	/* Nothing read now can have raced a harvest. */
	o->last_epoch = o->epoch + 1;
}

void oracle_writing(struct oracle *o, bool on)
{
	o->writing = on;
}

int oracle_live(struct oracle *o, struct vm *vm)
{
	if (next_epoch(o, vm))
		return -1;
	o->live_epoch = o->epoch;
	return 0;
}

static void missed(struct oracle *o, const struct vm *vm, u64 page,
		   const char *why)
{
	char where[64];

	if (!o->missed)
		o->first_missed = page;
	o->missed++;
	vm_test_page_where(vm, page, where, sizeof(where));
	err_msg("dirty-log oracle: %s changed but was not reported dirty "
		"(%s, round %llu)", where, why, (unsigned long long)o->rounds);
}

/* "slot N gfn 0x..., bitmap word W bit B" of a test page. */
static void cold_where(const struct oracle *o, const struct vm *vm, u64 page,
		       char *buf, size_t len)
{
	u64 in_slot = page % o->d->slot_pages;
	size_t n;

	vm_test_page_where(vm, page, buf, len);
	n = strlen(buf);
	snprintf(buf + n, len - n, ", bitmap word %llu bit %llu",
		 (unsigned long long)(in_slot / 64),
		 (unsigned long long)(in_slot % 64));
}

u64 oracle_first_harvest(struct oracle *o, const struct vm *vm,
			 const u64 *dirty)
{
	u64 before = o->cold_missed;
	char where[96];

	o->first_seen = true;
	if (!o->init_set)
		return 0;
	for (u64 p = 0; p < o->pages; p++) {
		if (!bitmap_test(o->cold, p))
			continue;
		o->cold_required++;
		if (bitmap_test(dirty, p))
			continue;
		if (!o->missed)
			o->first_missed = p;
		o->missed++;
		o->cold_missed++;
		cold_where(o, vm, p, where, sizeof(where));
		err_msg("dirty-log oracle: %s, a cold page (written before "
			"logging, never since), is not in the first harvest: "
			"KVM_DIRTY_LOG_INITIALLY_SET must report it, and a "
			"migration in this mode would never send it", where);
	}
	return o->cold_missed - before;
}

/*
 * A cold page reported dirty where nothing wrote it: after init-set's
 * first harvest, or in another mode.  The first few named.
 */
static void cold_false(struct oracle *o, const struct vm *vm, u64 p)
{
	char where[96];

	if (o->cold_false++ >= 4)
		return;
	cold_where(o, vm, p, where, sizeof(where));
	printf("  verify: %s, a cold page, reported dirty in harvest %llu "
	       "with nothing written since logging began (a false report: "
	       "a migration resends it)\n", where,
	       (unsigned long long)o->rounds);
}

/*
 * A sentinel of this round: if it holds this epoch's stamp, its vCPU
 * wrote it once, before the harvest, and the harvest must report it.
 * (A vCPU that was idle did not write it: an older stamp.)  Returns
 * whether it was missed.
 */
static bool check_sentinel(struct oracle *o, const struct vm *vm, u64 p,
			   u64 cur, bool dirty)
{
	char why[96];

	if (!cur || MMUB_STAMP_EPOCH(cur) != (o->epoch & 0xffffffffU))
		return false;
	o->sentinels++;
	if (dirty)
		return false;
	snprintf(why, sizeof(why), "written once in window %llu, a "
		 "sentinel, which no later write refreshes",
		 (unsigned long long)o->epoch);
	missed(o, vm, p, why);
	return true;
}

/* A page whose content changed since the last look. */
static void check_changed(struct oracle *o, const struct vm *vm, u64 p,
			  u64 cur, bool dirty)
{
	u64 ep = MMUB_STAMP_EPOCH(cur);

	o->changed++;
	if (cur == 0 && o->zeroes)
		o->zeroed++;		/* the host's doing, not a write */
	else if (ep < o->live_epoch)
		o->before_live++;
	else if (ep < o->epoch && !dirty)
		missed(o, vm, p, "written before the harvest");
	else if (!dirty)
		bitmap_assign(o->pending, p, true);
}

/* Reported, but unchanged since the last look: raced, later, or false. */
static u64 check_unchanged(struct oracle *o, u64 p, u64 cur)
{
	if (!cur && o->zeroes) {
		o->zapped++;	/* written and zapped again since */
		return 0;
	}
	if (cur && MMUB_STAMP_EPOCH(cur) >= o->last_epoch) {
		o->raced++;
		return 0;
	}
	if (o->writing) {
		bitmap_assign(o->suspect, p, true);
		return 0;
	}
	return 1;
}

/*
 * Reported unchanged last round while the vCPUs wrote: in flight if a
 * write has landed since (later passes may have overwritten it, and an
 * invalidation may have zeroed it).  Counted, in this round, if none has.
 */
static u64 check_suspect(struct oracle *o, u64 p, u64 cur)
{
	bitmap_assign(o->suspect, p, false);
	if (cur != o->prev[p] && (cur || o->zeroes)) {
		o->in_flight++;
		return 0;
	}
	return 1;
}

static u64 check(struct oracle *o, const struct vm *vm)
{
	/* This harvest's false positives, and the previous one's found now */
	u64 before = o->missed, false_pos = 0, late = 0;

	for (u64 p = 0; p < o->pages; p++) {
		u64 cur = page_word(vm, p);
		bool dirty = bitmap_test(o->dirty, p);
		bool was_pending = bitmap_test(o->pending, p);

		o->reported += dirty;
		if (bitmap_test(o->suspect, p))
			late += check_suspect(o, p, cur);
		if (was_pending) {
			bitmap_assign(o->pending, p, false);
			if (!dirty)
				missed(o, vm, p, "written late in the previous "
				       "round, not in this harvest either");
		}
		if (dirty && cur == o->prev[p] && bitmap_test(o->cold, p) &&
		    (o->first_seen || !o->init_set)) {
			cold_false(o, vm, p);
			continue;
		}
		if (bitmap_test(o->sent, p) &&
		    check_sentinel(o, vm, p, cur, dirty))
			;	/* missed, named: nothing more to judge */
		else if (cur != o->prev[p])
			check_changed(o, vm, p, cur, dirty);
		else if (dirty && !was_pending)
			false_pos += check_unchanged(o, p, cur);
		o->prev[p] = cur;
	}
	if (!o->first_seen)
		oracle_first_harvest(o, vm, o->dirty);
	if (o->rounds == 1)
		o->first_false_pos += late;
	else
		false_pos += late;
	if (o->rounds == 0) {
		o->first_false_pos = false_pos;
	} else {
		o->false_pos += false_pos;
		o->false_pos_max = mmub_max(o->false_pos_max, false_pos);
	}
	return o->missed - before;
}

u64 oracle_round(struct oracle *o, struct vm *vm)
{
	u64 lost;

	if (next_epoch(o, vm))
		die("dirty-log oracle: the guest stopped");
	/* What each vCPU wrote once on adopting it; --debug-drop-dirty's. */
	epoch_sentinels(vm, o->epoch, o->sent);
	if (o->wl->flags & MMUB_WL_SENTINEL)
		o->d->drop_want = o->sent;
	dlog_harvest(o->d);
	o->d->drop_want = NULL;
	dlog_take(o->d, o->dirty);
	lost = check(o, vm);
	o->last_epoch = o->epoch;
	o->rounds++;
	return lost;
}

const struct field oracle_fields[] = {
	FIELD_AS("harvests", struct oracle, rounds, FIELD_U64, 0, 0),
	FIELD(struct oracle, changed, FIELD_U64, 0, 0),
	FIELD(struct oracle, missed, FIELD_U64, 0, 0),
	FIELD(struct oracle, sentinels, FIELD_U64, 0, 0),
	FIELD(struct oracle, before_live, FIELD_U64, 0, 0),
	FIELD(struct oracle, raced, FIELD_U64, 0, 0),
	FIELD(struct oracle, in_flight, FIELD_U64, 0, 0),
	FIELD(struct oracle, zeroed, FIELD_U64, 0, 0),
	FIELD(struct oracle, zapped, FIELD_U64, 0, 0),
	FIELD_AS("false_positives", struct oracle, false_pos, FIELD_U64, 0, 0),
	FIELD_AS("false_positives_max", struct oracle, false_pos_max,
		 FIELD_U64, 0, 0),
	FIELD_AS("first_harvest_false_positives", struct oracle,
		 first_false_pos, FIELD_U64, 0, 0),
	FIELD(struct oracle, cold_pages, FIELD_U64, 0, 0),
	FIELD(struct oracle, cold_required, FIELD_U64, 0, 0),
	FIELD(struct oracle, cold_missed, FIELD_U64, 0, 0),
	FIELD_AS("cold_false_reports", struct oracle, cold_false,
		 FIELD_U64, 0, 0),
	{ NULL },
};

static void print_cold(const struct oracle *v)
{
	if (!v->init_set) {
		printf("  verify: %llu cold pages (one in every 64-page word, "
		       "written before logging, never since): none required "
		       "(only an initially-set first harvest reports them); "
		       "%llu false reports\n",
		       (unsigned long long)v->cold_pages,
		       (unsigned long long)v->cold_false);
		return;
	}
	printf("  verify: %llu cold pages (one in every 64-page word, written "
	       "before logging, never since): %llu required in the first "
	       "harvest, %llu missed; %llu false reports after it\n",
	       (unsigned long long)v->cold_pages,
	       (unsigned long long)v->cold_required,
	       (unsigned long long)v->cold_missed,
	       (unsigned long long)v->cold_false);
	/*
	 * What "required" rests on: upstream sets every bit of the slot;
	 * seed 000's series only those of valid stage-2 entries, which a
	 * cold page has here (written just before logging, nothing
	 * unmapping it).  migrate --invalidate is where they part.
	 */
	printf("  verify: the promise checked: the first harvest holds every "
	       "cold page (upstream sets every page of the slot; seed 000's "
	       "series every page with a valid stage-2 entry, as these are, "
	       "written just before logging)\n");
}

void oracle_print(const struct oracle *v)
{
	printf("  verify: %llu harvests checked, %llu pages changed, "
	       "%llu missed, %llu false positives\n",
	       (unsigned long long)v->rounds, (unsigned long long)v->changed,
	       (unsigned long long)v->missed,
	       (unsigned long long)v->false_pos);
	printf("  verify: first harvest %llu false positives; after it at "
	       "most %llu in one harvest; explained: %llu raced the previous "
	       "harvest, %llu in flight, %llu written before logging went "
	       "live\n", (unsigned long long)v->first_false_pos,
	       (unsigned long long)v->false_pos_max,
	       (unsigned long long)v->raced, (unsigned long long)v->in_flight,
	       (unsigned long long)v->before_live);
	if (v->wl->flags & MMUB_WL_SENTINEL)
		printf("  verify: %llu sentinels checked (pages written once "
		       "in their window, each required in its harvest)\n",
		       (unsigned long long)v->sentinels);
	if (v->cold_pages)
		print_cold(v);
	if (v->zeroes)
		printf("  verify: %llu pages read as zero after an "
		       "invalidation (no write, no report needed); %llu reported "
		       "and read as zero (written, then zapped)\n",
		       (unsigned long long)v->zeroed,
		       (unsigned long long)v->zapped);
}

void oracle_free(struct oracle *o)
{
	free(o->prev);
	free(o->pending);
	free(o->dirty);
	free(o->suspect);
	free(o->sent);
	free(o->cold);
}

bool oracle_drop_unseen(const struct oracle *o, const struct dlog *d,
			s64 drop)
{
	if (dlog_drop_none(d, drop, o->wl->flags & MMUB_WL_SENTINEL))
		return true;
	if (!o->missed) {
		err_msg("--debug-drop-%s: the oracle did not catch the page "
			"dropped from harvest %u%s", d->drop_cold ? "cold" :
			"dirty", d->dropped_harvest, d->drop_cold ? "" :
			" (rewritten before its check?)");
		return true;
	}
	return false;
}
