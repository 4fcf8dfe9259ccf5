// SPDX-License-Identifier: GPL-2.0
/* The dirty-log options of every scenario that logs; see dlog_opts.h. */
#include <stdio.h>
#include "util/util.h"
#include "util/parse.h"
#include "framework/oracle.h"
#include "framework/dlog_opts.h"

static u32 parse_ring(const char *arg)
{
	u64 v;

	if (mmub_parse_size(arg, &v) || v < 4096 || v > (1U << 30) ||
	    (v & (v - 1)))
		die("--ring-size %s: must be a power of two from 4K (bytes, "
		    "k/m suffix)", arg);
	return (u32)v;
}

bool dlog_opts_parse(struct dlog_opts *o, int key, const char *arg)
{
	switch (key) {
	case DLOG_O_OLD_MODE:
		o->mode = dlog_parse_mode("--dirty-log", arg);
		err_msg("--dirty-log: the old name of --mode, taken as it");
		return true;
	case DLOG_O_MODE:
		o->mode = dlog_parse_mode("--mode", arg);
		return true;
	case DLOG_O_GET:
		o->mode = DLOG_GET;
		return true;
	case DLOG_O_CHUNK:
		o->chunk = parse_u64("-k", arg, 64, 1ULL << 32);
		if (o->chunk % 64)
			die("-k %s: must be a multiple of 64 pages", arg);
		return true;
	case DLOG_O_RING:
		o->ring_bytes = parse_ring(arg);
		o->ring_given = true;
		return true;
	case DLOG_O_VERIFY:
		o->verify = true;
		return true;
	case DLOG_O_DROP:
		o->drop = (s64)parse_u64("--debug-drop-dirty", arg, 0,
					 100000001);
		return true;
	case DLOG_O_NO_COLD:
		o->no_cold = true;
		return true;
	case DLOG_O_DROP_COLD:
		o->drop_cold = true;
		return true;
	}
	return false;
}

void dlog_opts_check(const struct dlog_opts *o, bool verify_taken)
{
	bool ring = dlog_is_ring(o->mode);

	if (o->chunk && o->mode != DLOG_CLEAR && o->mode != DLOG_CLEAR_INIT_SET)
		die("-k %llu: only with --mode clear or clear-init-set, not %s",
		    (unsigned long long)o->chunk, dlog_mode_names[o->mode]);
	if (o->ring_given && !ring)
		die("--ring-size: only with --mode ring or ring-acq-rel, not %s",
		    dlog_mode_names[o->mode]);
	if (o->verify && o->mode == DLOG_NONE)
		die("--verify: needs --mode M, whose harvests it checks");
	if (o->drop >= 0 && verify_taken && !o->verify)
		die("--debug-drop-dirty: needs --verify, whose oracle must "
		    "catch the dropped page");
	if (!o->drop_cold)
		return;
	if (verify_taken && !o->verify)
		die("--debug-drop-cold: needs --verify, whose oracle must "
		    "catch the dropped page");
	if (o->no_cold)
		die("--debug-drop-cold: drops a cold page; not with --no-cold");
	if (o->drop >= 0)
		die("--debug-drop-cold: one fault a run; not with "
		    "--debug-drop-dirty");
	/*
	 * Only init-set's first harvest reports cold pages; in the other
	 * modes a migration's first round is every page, not a harvest.
	 */
	if (o->mode != DLOG_CLEAR_INIT_SET)
		die("--debug-drop-cold: only with --mode clear-init-set, whose "
		    "first harvest must report every cold page; that of %s "
		    "reports none, so there is none to drop",
		    dlog_mode_names[o->mode]);
}

void dlog_opts_apply(const struct dlog_opts *o, struct vm_params *p)
{
	if (o->verify)
		oracle_shape(p, !o->no_cold);
	if (o->mode == DLOG_NONE)
		return;
	if (dlog_is_ring(o->mode)) {
		p->dirty_ring_bytes = o->ring_bytes;
		p->dirty_ring_acq_rel = o->mode == DLOG_RING_ACQ_REL;
	}
	dlog_preflight(o->mode, p->dirty_ring_bytes);
}

void dlog_opts_init(struct dlog *d, struct vm *vm, const struct dlog_opts *o)
{
	run_dlog_init(d, vm, o->mode, o->chunk);
	if (o->drop_cold)
		dlog_debug_drop_cold(d, vm_cold_pages(vm));
}
