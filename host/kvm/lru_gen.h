/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The multi-gen LRU (Documentation/admin-guide/mm/multigen_lru.rst), as
 * its debugfs interface drives it: /sys/kernel/debug/lru_gen lists each
 * memcg's generations by node, and the command "+ memcg_id node_id
 * max_gen_nr [swappiness [force_scan]]" runs one aging pass, in the
 * writer's own task: a walk of every mm of the memcg that clears the
 * accessed bit of each young PTE and moves its folio to a new youngest
 * generation.  After 6.1 (in 6.12, read there) the walk clears them with
 * ptep_clear_young_notify(), which asks KVM's clear_young as well.
 */
#ifndef HOST_KVM_LRU_GEN_H
#define HOST_KVM_LRU_GEN_H

#include <stddef.h>
#include <mmubench/types.h>

#define LRU_GEN_SYSFS	"/sys/kernel/mm/lru_gen/enabled"
#define LRU_GEN_DEBUGFS	"/sys/kernel/debug/lru_gen"
#define LRU_GEN_NODES	8

/* 0 if both files are there to drive it; else -1 and what is missing. */
int lru_gen_status(char *why, size_t len);
/*
 * Every capability on (its mm walk among them), put back as found on
 * every way out; 0, or -1 and why.
 */
int lru_gen_on(char *why, size_t len);

/* The memcg that holds this process's memory, and its nodes. */
struct lru_gen_memcg {
	int id;
	char path[128];
	u32 nr_nodes;
	int node[LRU_GEN_NODES];
	u64 max_seq[LRU_GEN_NODES];	/* as last read */
	u64 youngest[LRU_GEN_NODES];	/* anon pages of max_seq */
};

/* Find ours in the debugfs listing, with each node's max_seq. */
int lru_gen_find(struct lru_gen_memcg *m, char *why, size_t len);
/* Read each node's max_seq and youngest generation again. */
int lru_gen_read(struct lru_gen_memcg *m, char *why, size_t len);
/*
 * One aging pass of every node, forced (a walk even where the kernel
 * would not walk), anon pages included though there is no swap.
 */
int lru_gen_age(const struct lru_gen_memcg *m, char *why, size_t len);

#endif
