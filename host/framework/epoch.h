/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The host's half of the guest's write stamps (mmubench/sentinel.h), for
 * the dirty-log oracle (oracle.c) and the migration's source: the epoch
 * in every vCPU's mailbox, which the guest stamps into each write and
 * acknowledges with epoch_seen, and the sentinel pages it writes once
 * when it adopts an epoch.  The VMM carries the mailboxes; the protocol
 * is the checkers'.
 */
#ifndef HOST_FRAMEWORK_EPOCH_H
#define HOST_FRAMEWORK_EPOCH_H

#include "vmm/vmm.h"

/* Wait until every running vCPU has adopted @epoch (or is idle). */
int epoch_wait(struct vm *vm, u64 epoch);
/* Publish @epoch to every vCPU and wait until the running ones adopted it. */
int epoch_set(struct vm *vm, u64 epoch);
/* The newest epoch in the mailboxes (an earlier run may have left one). */
u64 epoch_newest(const struct vm *vm);
/*
 * @map (a bit per 4K test page, cleared here): the pages each vCPU writes
 * once when it adopts @epoch, with MMUB_WL_SENTINEL (mmubench/sentinel.h).
 */
void epoch_sentinels(const struct vm *vm, u64 epoch, u64 *map);

#endif
