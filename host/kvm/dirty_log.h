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
#ifndef HOST_KVM_DIRTY_LOG_H
#define HOST_KVM_DIRTY_LOG_H

#include <pthread.h>
#include <linux/kvm.h>
#include <mmubench/boot.h>

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

/* The dirty ring's bytes per vCPU unless --ring-size says otherwise. */
#define DLOG_RING_DEFAULT	(64 * 1024)

/*
 * A VM as dirty logging sees it, in KVM's own terms: its fd, the test
 * memory's memslots as KVM_SET_USER_MEMORY_REGION was given them (equal
 * sizes, consecutive ids), and each vCPU's mapped dirty ring, if any.
 */
struct dlog_vm {
	int fd;
	u32 nr_slots;
	struct kvm_userspace_memory_region slots[256];
	u32 nr_vcpus;
	struct kvm_dirty_gfn *rings[MMUB_MAX_VCPUS];
	u32 ring_bytes;
	/*
	 * Makes every vCPU in guest mode exit once and waits for it, so that
	 * writes buffered per vCPU (Intel PML) reach the rings: KVM flushes
	 * the buffer on every exit, and for the bitmaps only.  NULL: none.
	 */
	void (*kick)(void *arg);
	void *kick_arg;
};

struct dlog {
	struct dlog_vm v;
	enum dlog_mode mode;
	u64 slot_pages;
	u64 pages;		/* all test pages */
	u64 *slot_bmap;		/* GET buffer, one slot */
	u64 *dirty;		/* harvested, not yet consumed */
	u64 clear_chunk;	/* pages per KVM_CLEAR_DIRTY_LOG */
	u32 ring_entries;
	u32 ring_next[MMUB_MAX_VCPUS];	/* next entry of each ring */
	pthread_mutex_t lock;	/* dirty[] and the rings */
	u64 ring_full_exits;
	u64 ring_unreset;	/* entries harvested, not yet reset by KVM */
	/* --debug-drop-dirty: drop one page KVM reported in this harvest */
	s64 drop_at;		/* harvest index, or -1 */
	u64 harvests;		/* dlog_harvest() calls so far */
	s64 dropped;		/* test page dropped, or -1 */
	u32 dropped_harvest;
	/*
	 * If set, only a page of this bitmap (test pages) is dropped: the
	 * oracle's sentinels, written once, whose loss no later write hides.
	 */
	const u64 *drop_want;
	/*
	 * --debug-drop-cold (dlog_debug_drop_cold): the page dropped from
	 * harvest 0 only, one of these, and gone from KVM's bitmap too.
	 * Owned: freed by dlog_free().
	 */
	u64 *drop_cold;
	/* ms spent in the last harvest, per kind of call */
	double get_ms, clear_ms, ring_ms, reset_ms, kick_ms;
	/* user-space time of the last harvest spent outside the ioctls */
	double process_ms;
};

/* Is @mode possible here? 0, or -1 with the reason in @why. */
int dlog_check(int kvm_fd, enum dlog_mode mode, u32 ring_bytes, char *why,
	       size_t len);
/* The same, before any VM exists: dies naming what is missing. */
void dlog_preflight(enum dlog_mode mode, u32 ring_bytes);
/* @opt NAME, or die listing the modes. */
enum dlog_mode dlog_parse_mode(const char *opt, const char *val);
bool dlog_is_ring(enum dlog_mode mode);
/*
 * The mode's capabilities on the VM @v (copied).  The ring modes need
 * the rings, which KVM makes with the vCPUs.
 */
void dlog_init(struct dlog *d, const struct dlog_vm *v, enum dlog_mode mode,
	       u64 clear_chunk);
/*
 * For a vCPU thread that exited with KVM_EXIT_DIRTY_RING_FULL: empty
 * every ring (@arg is the dlog); the vCPU waits meanwhile.
 */
void dlog_ring_full(void *arg);
/* Turn KVM_MEM_LOG_DIRTY_PAGES on or off on every test slot; ms taken. */
double dlog_enable(struct dlog *d, bool on);
/*
 * Debug: lose one page that KVM reports in harvest @harvest (0 is the
 * first after enabling), or in the first later one that reports any, as
 * a harvest-layer bug would: a bit of KVM_GET_DIRTY_LOG's bitmap, or a
 * ring entry reset unread.  With d->drop_want, only a page of it (the
 * first reported).  d->dropped says which page, once done.
 */
void dlog_debug_drop(struct dlog *d, u64 harvest);
/*
 * Debug: lose one cold page (of @cold, test pages) from the first
 * harvest, as a kernel whose initially-set bitmap lacks its bit would:
 * not reported, and cleared with the others (KVM_CLEAR_DIRTY_LOG), so
 * that no later harvest reports it.  Manual-protect modes only.  @cold
 * is the caller's malloc()ed bitmap, freed with @d.
 */
void dlog_debug_drop_cold(struct dlog *d, u64 *cold);
/*
 * True, having said so, if --debug-drop-dirty @drop dropped nothing: no
 * harvest from it on reported a page it could drop (@once: only pages
 * its window's vCPUs wrote once, d->drop_want, qualified).
 */
bool dlog_drop_none(const struct dlog *d, s64 drop, bool once);
/* Collect into d->dirty (ORed); returns the pages newly reported. */
u64 dlog_harvest(struct dlog *d);
/* Move the harvested bitmap into @out (pages bits) and clear it. */
void dlog_take(struct dlog *d, u64 *out);
void dlog_free(struct dlog *d);

#endif
