/* SPDX-License-Identifier: GPL-2.0 */
/*
 * KVM's dirty-logging interfaces, in every mode userspace can use:
 *  get            KVM_GET_DIRTY_LOG, which also re-protects (legacy)
 *  clear          KVM_CAP_MANUAL_DIRTY_LOG_PROTECT2: GET, then
 *                 KVM_CLEAR_DIRTY_LOG in chunks of -k pages
 *  clear-init-set the same with KVM_DIRTY_LOG_INITIALLY_SET
 *  ring           KVM_CAP_DIRTY_LOG_RING: per-vCPU rings of dirty gfns
 *  ring-acq-rel   KVM_CAP_DIRTY_LOG_RING_ACQ_REL
 * The harvest result is one bitmap over every page of the test memory.
 */
#ifndef HOST_KERNEL_DIRTY_LOG_H
#define HOST_KERNEL_DIRTY_LOG_H

#include <pthread.h>
#include <mmubench/types.h>

enum dlog_mode {
	DLOG_NONE = 0,
	DLOG_GET,
	DLOG_CLEAR,
	DLOG_CLEAR_INIT_SET,
	DLOG_RING,
	DLOG_RING_ACQ_REL,
	DLOG_NR,
};

extern const char *const dlog_mode_names[DLOG_NR];

struct vm;
struct vcpu;
struct kvm_dirty_gfn;

struct dlog_ring {
	struct kvm_dirty_gfn *gfns;
	u32 next;		/* next entry to look at */
};

struct dlog {
	enum dlog_mode mode;
	u32 nr_slots;
	u64 slot_pages;
	u64 pages;		/* all test pages */
	u64 *slot_bmap;		/* GET buffer, one slot */
	u64 *dirty;		/* harvested, not yet consumed */
	u64 clear_chunk;	/* pages per KVM_CLEAR_DIRTY_LOG */
	u32 ring_entries;
	u32 ring_bytes;
	struct dlog_ring rings[64];
	pthread_mutex_t lock;	/* dirty[] and the rings */
	u64 ring_full_exits;
	/* ms spent in the last harvest, per kind of call */
	double get_ms, clear_ms, ring_ms, reset_ms;
	/* user-space time of the last harvest spent outside the ioctls */
	double process_ms;
};

/* Is @mode possible here? 0, or -1 with the reason in @why. */
int dlog_check(int kvm_fd, enum dlog_mode mode, u32 ring_bytes, char *why,
	       size_t len);
/* VM-wide set-up: before vCPUs exist (the ring needs that). */
void dlog_vm_init(struct vm *vm, struct dlog *d);
void dlog_vcpu_init(struct vm *vm, struct vcpu *v);
/* Turn KVM_MEM_LOG_DIRTY_PAGES on or off on every test slot; ms taken. */
double dlog_enable(struct vm *vm, bool on);
/* Collect into d->dirty (ORed); returns the pages newly reported. */
u64 dlog_harvest(struct vm *vm);
/* Move the harvested bitmap into @out (pages bits) and clear it. */
void dlog_take(struct dlog *d, u64 *out);
/* From a vCPU thread on KVM_EXIT_DIRTY_RING_FULL. */
void dlog_ring_full(struct vm *vm);
void dlog_free(struct dlog *d);

#endif
