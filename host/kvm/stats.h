/* SPDX-License-Identifier: GPL-2.0 */
/*
 * KVM's binary statistics (KVM_GET_STATS_FD), for the VM and each vCPU.
 * These are the kernel's own counters (pages_4k, pages_2m, pf_fixed,
 * remote_tlb_flush, ...), read without debugfs.
 */
#ifndef HOST_KVM_STATS_H
#define HOST_KVM_STATS_H

#include <mmubench/types.h>

#define KSTATS_NAME_MAX	64

struct kstats {
	int fd;
	u32 n;			/* number of single-value statistics kept */
	u64 data_offset;
	u64 data_size;
	char (*names)[KSTATS_NAME_MAX];
	u32 *offsets;		/* byte offset of each value in the data block */
	u8 *cumulative;		/* 1: a counter, 0: an instant value or peak */
	u8 *buf;		/* one data block */
};

/* Open the stats of a VM or vCPU fd; -1 with errno set if unsupported. */
int kstats_open(struct kstats *s, int kvm_obj_fd);
void kstats_close(struct kstats *s);
/* Read every kept value into @vals (s->n entries). */
int kstats_read(struct kstats *s, u64 *vals);
int kstats_index(const struct kstats *s, const char *name);

#endif
