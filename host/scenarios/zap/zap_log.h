/* SPDX-License-Identifier: GPL-2.0 */
/*
 * zap --mode M [--verify]: dirty logging while the host
 * invalidates, as on a migrating host that reclaims memory.  Logging goes
 * on after populate, with the vCPUs at rest; then a harvest follows every
 * invalidation, each checked by the oracle with --verify.  A zapped
 * anonymous page reads as zero, which is the host's doing and needs no
 * report; any write after the zap must be reported.
 */
#ifndef HOST_SCENARIOS_ZAP_ZAP_LOG_H
#define HOST_SCENARIOS_ZAP_ZAP_LOG_H

#include "framework/oracle.h"
#include "framework/dlog_opts.h"

struct zap_log {
	const struct dlog_opts *dl;	/* its mode: DLOG_NONE, no logging */
	struct dlog d;
	struct oracle o;
	u64 *taken;		/* a harvest nobody checks goes here */
	u64 harvests;
};

/*
 * Logging on (vCPUs at rest), the oracle's reference taken; with
 * --verify the cold pages written first, and checked in the first
 * harvest: -1 after one missed.
 */
int zap_log_start(struct zap_log *l, struct vm *vm);
/* The vCPUs write from now on. */
void zap_log_writing(struct zap_log *l);
/* One harvest, checked with --verify: -1 after a missed page. */
int zap_log_round(struct zap_log *l, struct vm *vm);
/* With the vCPUs at rest again: the last harvest, logging off. */
int zap_log_stop(struct zap_log *l, struct vm *vm);
void zap_log_print(const struct zap_log *l);
json_t *zap_log_json(const struct zap_log *l);
void zap_log_free(struct zap_log *l, struct vm *vm);

#endif
