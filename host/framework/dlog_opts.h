/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The dirty-log options, defined once for every scenario that logs
 * (dirty-log, zap, migrate, nx-recovery): --mode (-g for get), -k,
 * --ring-size, --verify, --no-cold, --debug-drop-dirty and
 * --debug-drop-cold, one spelling and one
 * help text each.  A scenario puts the entries it takes in its own
 * option table (DLOG_OPT_...), hands every option to dlog_opts_parse()
 * first, calls dlog_opts_check() and dlog_opts_apply() from its
 * validate(), and makes its harvest layer with dlog_opts_init(): the
 * mode, the chunk and the ring reach the VM and the harvests from this
 * one struct.
 */
#ifndef HOST_FRAMEWORK_DLOG_OPTS_H
#define HOST_FRAMEWORK_DLOG_OPTS_H

#include "kvm/dirty_log.h"
#include "framework/scenario.h"

enum {
	DLOG_O_MODE = 300, DLOG_O_RING, DLOG_O_VERIFY, DLOG_O_DROP,
	DLOG_O_OLD_MODE, DLOG_O_NO_COLD, DLOG_O_DROP_COLD,
	DLOG_O_GET = 'g', DLOG_O_CHUNK = 'k',
};

struct dlog_opts {
	enum dlog_mode mode;	/* DLOG_NONE: no logging (zap's default) */
	u64 chunk;		/* -k: pages a KVM_CLEAR_DIRTY_LOG, 0: a slot */
	u32 ring_bytes;		/* --ring-size */
	bool ring_given;
	bool verify;		/* --verify */
	s64 drop;		/* --debug-drop-dirty's harvest, -1: none */
	bool no_cold;		/* --no-cold: no cold pages (mmubench/cold.h) */
	bool drop_cold;		/* --debug-drop-cold */
};

/* A scenario's options, logging in mode @m unless --mode says otherwise. */
#define DLOG_OPTS(m)	{ .mode = (m), .ring_bytes = DLOG_RING_DEFAULT, \
			  .drop = -1 }

/* The entries; @dflt is the scenario's default mode, as its help says it. */
#define DLOG_OPT_MODE(dflt)						\
	{ "mode", DLOG_O_MODE, required_argument, "M",			\
	  "dirty-log mode: get, clear, clear-init-set, ring, "		\
	  "ring-acq-rel (" dflt ")" }
#define DLOG_OPT_GET							\
	{ "get", DLOG_O_GET, no_argument, NULL,				\
	  "the same as --mode get, as in the selftests" }
#define DLOG_OPT_CHUNK							\
	{ "chunk", DLOG_O_CHUNK, required_argument, "PAGES",		\
	  "pages per KVM_CLEAR_DIRTY_LOG, a multiple of 64 (whole slot)" }
#define DLOG_OPT_RING							\
	{ "ring-size", DLOG_O_RING, required_argument, "BYTES",		\
	  "dirty ring per vCPU, a power of two from 4K (64K)" }
#define DLOG_OPT_VERIFY							\
	{ "verify", DLOG_O_VERIFY, no_argument, NULL,			\
	  "check every harvest: no page that changed goes unreported" }
/* @first: how the scenario numbers its harvests. */
#define DLOG_OPT_DROP(first)						\
	{ "debug-drop-dirty", DLOG_O_DROP, required_argument, "H",	\
	  "lose one page KVM reports in harvest H (" first "), one a "	\
	  "vCPU wrote once in its window: the run's check must fail, "	\
	  "naming it" }
#define DLOG_OPT_NO_COLD						\
	{ "no-cold", DLOG_O_NO_COLD, no_argument, NULL,			\
	  "no cold pages: by default one page in every 64 of the dirty "	\
	  "bitmap is written before logging and never again, and checked" }
#define DLOG_OPT_DROP_COLD						\
	{ "debug-drop-cold", DLOG_O_DROP_COLD, no_argument, NULL,	\
	  "lose one cold page from the first harvest of clear-init-set, "	\
	  "as a kernel would: the run's check must fail, naming it" }
/* zap's name of --mode before it took these options. */
#define DLOG_OPT_OLD_MODE						\
	{ "dirty-log", DLOG_O_OLD_MODE, required_argument, "M",	\
	  "the old name of --mode, taken as it (and said so)" }

/* True if @key is one of these options (parsed into @o). */
bool dlog_opts_parse(struct dlog_opts *o, int key, const char *arg);
/*
 * What the options must agree on, before any VM: -k and --ring-size only
 * with their modes, --verify with a mode, --debug-drop-dirty with
 * --verify where the scenario takes it (@verify_taken).
 */
void dlog_opts_check(const struct dlog_opts *o, bool verify_taken);
/*
 * Then what they make of the VM: its ring, the oracle's shape of the
 * workload; and whether this kernel has the mode.
 */
void dlog_opts_apply(const struct dlog_opts *o, struct vm_params *p);
/* A --debug-drop-dirty or --debug-drop-cold run, which must fail. */
static inline bool dlog_opts_drops(const struct dlog_opts *o)
{
	return o->drop >= 0 || o->drop_cold;
}
/* The harvest layer of @vm in @o's mode and chunk. */
void dlog_opts_init(struct dlog *d, struct vm *vm, const struct dlog_opts *o);

#endif
