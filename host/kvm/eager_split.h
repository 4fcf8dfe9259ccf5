/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Eager page splitting: KVM splitting huge mappings when dirty logging
 * starts (or at each clear) rather than at the vCPUs' first writes.
 * x86 turns it on and off for the whole module (kvm.eager_page_split,
 * since 5.19); arm64 per VM, with the number of bytes split under one
 * mmu_lock hold (KVM_CAP_ARM_EAGER_SPLIT_CHUNK_SIZE, since 6.5; 0: off).
 */
#ifndef HOST_KVM_EAGER_SPLIT_H
#define HOST_KVM_EAGER_SPLIT_H

#include <stdbool.h>
#include <stddef.h>
#include <mmubench/types.h>

/* Linux 6.5; the C libraries here carry 6.1's headers. */
#ifndef KVM_CAP_ARM_EAGER_SPLIT_CHUNK_SIZE
#define KVM_CAP_ARM_EAGER_SPLIT_CHUNK_SIZE	228
#endif
#ifndef KVM_CAP_ARM_SUPPORTED_BLOCK_SIZES
#define KVM_CAP_ARM_SUPPORTED_BLOCK_SIZES	229
#endif

#define EAGER_SPLIT_MAX	4

enum eager_kind {
	EAGER_NONE,		/* the kernel's default, untouched */
	EAGER_X86,		/* kvm.eager_page_split */
	EAGER_ARM64_CHUNK,	/* KVM_CAP_ARM_EAGER_SPLIT_CHUNK_SIZE */
};

/* One setting: on or off (x86), or a chunk in bytes (arm64, 0: off). */
struct eager_split {
	enum eager_kind kind;
	bool on;
	u64 chunk;
};

/* The settings an option lists, in the order given. */
struct eager_list {
	struct eager_split s[EAGER_SPLIT_MAX];
	u32 n;
};

/* --eager-split on,off: exits 2 on bad input. */
void eager_parse_x86(struct eager_list *l, const char *arg);
/* --eager-split-chunk SIZE[,SIZE]: exits 2 on bad input. */
void eager_parse_chunk(struct eager_list *l, const char *arg);

/*
 * What this kernel needs for every setting of @l, checked before any VM
 * exists: the parameter writable, the capability and the block size.
 * Exits 2 naming the option, the missing piece and the fix.
 */
void eager_preflight(const struct eager_list *l);

/* "on", "off", "2M", "0" (off): a column's name. */
const char *eager_name(const struct eager_split *s, char *buf, size_t len);

/* x86: set kvm.eager_page_split for what follows (restored at exit). */
void eager_apply_x86(const struct eager_split *s);

#endif
