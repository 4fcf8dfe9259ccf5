// SPDX-License-Identifier: GPL-2.0
/* KVM dirty logging in every mode; see kernel/dirty_log.h. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <linux/kvm.h>
#include "../mmubench.h"
#include "dirty_log.h"

const char *const dlog_mode_names[DLOG_NR] = {
	[DLOG_NONE] = "none",
	[DLOG_GET] = "get",
	[DLOG_CLEAR] = "clear",
	[DLOG_CLEAR_INIT_SET] = "clear-init-set",
	[DLOG_RING] = "ring",
	[DLOG_RING_ACQ_REL] = "ring-acq-rel",
};

#define TEST_SLOT0	1	/* memslot id of the first test slot */

static bool is_ring(enum dlog_mode m)
{
	return m == DLOG_RING || m == DLOG_RING_ACQ_REL;
}

static bool is_manual(enum dlog_mode m)
{
	return m == DLOG_CLEAR || m == DLOG_CLEAR_INIT_SET;
}

int dlog_check(int kvm_fd, enum dlog_mode mode, u32 ring_bytes, char *why,
	       size_t len)
{
	int r;

	if (is_manual(mode)) {
		r = ioctl(kvm_fd, KVM_CHECK_EXTENSION,
			  KVM_CAP_MANUAL_DIRTY_LOG_PROTECT2);
		if (r <= 0 || (mode == DLOG_CLEAR_INIT_SET &&
			       !(r & KVM_DIRTY_LOG_INITIALLY_SET))) {
			snprintf(why, len, "--mode %s: this kernel lacks "
				 "KVM_CAP_MANUAL_DIRTY_LOG_PROTECT2%s",
				 dlog_mode_names[mode],
				 mode == DLOG_CLEAR_INIT_SET ?
				 " with KVM_DIRTY_LOG_INITIALLY_SET" : "");
			return -1;
		}
	}
	if (is_ring(mode)) {
		long cap = mode == DLOG_RING ? KVM_CAP_DIRTY_LOG_RING :
					       KVM_CAP_DIRTY_LOG_RING_ACQ_REL;

		r = ioctl(kvm_fd, KVM_CHECK_EXTENSION, cap);
		if (r <= 0) {
			snprintf(why, len, "--mode %s: this kernel lacks %s",
				 dlog_mode_names[mode], mode == DLOG_RING ?
				 "KVM_CAP_DIRTY_LOG_RING" :
				 "KVM_CAP_DIRTY_LOG_RING_ACQ_REL");
			return -1;
		}
		if (ring_bytes > (u32)r) {
			snprintf(why, len, "--ring-size %u: larger than the "
				 "%d bytes this kernel offers", ring_bytes, r);
			return -1;
		}
	}
	return 0;
}

static void enable_cap(struct vm *vm, u32 cap, u64 arg, const char *name)
{
	struct kvm_enable_cap c = { .cap = cap, .args = { arg } };

	if (ioctl(vm->fd, KVM_ENABLE_CAP, &c))
		die("--mode %s: enabling %s failed: %s",
		    dlog_mode_names[vm->cfg->dirty_mode], name, strerror(errno));
}

void dlog_vm_init(struct vm *vm, struct dlog *d)
{
	const struct run_config *cfg = vm->cfg;
	char why[160];

	memset(d, 0, sizeof(*d));
	d->mode = cfg->dirty_mode;
	d->nr_slots = cfg->nr_slots;
	d->pages = cfg->vcpu_bytes * cfg->nr_vcpus / MMUB_SZ_4K;
	d->slot_pages = d->pages / d->nr_slots;
	d->clear_chunk = cfg->clear_chunk ? cfg->clear_chunk : d->slot_pages;
	d->slot_bmap = calloc(d->slot_pages / 64 + 1, 8);
	d->dirty = calloc(d->pages / 64 + 1, 8);
	if (!d->slot_bmap || !d->dirty)
		die("out of memory for dirty bitmaps");
	pthread_mutex_init(&d->lock, NULL);
	vm->dlog = d;
	if (dlog_check(vm->kvm_fd, d->mode, cfg->ring_bytes, why, sizeof(why)))
		die("%s", why);
	if (d->mode == DLOG_CLEAR)
		enable_cap(vm, KVM_CAP_MANUAL_DIRTY_LOG_PROTECT2,
			   KVM_DIRTY_LOG_MANUAL_PROTECT_ENABLE,
			   "KVM_CAP_MANUAL_DIRTY_LOG_PROTECT2");
	if (d->mode == DLOG_CLEAR_INIT_SET)
		enable_cap(vm, KVM_CAP_MANUAL_DIRTY_LOG_PROTECT2,
			   KVM_DIRTY_LOG_MANUAL_PROTECT_ENABLE |
			   KVM_DIRTY_LOG_INITIALLY_SET,
			   "KVM_CAP_MANUAL_DIRTY_LOG_PROTECT2");
	if (is_ring(d->mode)) {
		d->ring_bytes = cfg->ring_bytes;
		d->ring_entries = cfg->ring_bytes / sizeof(struct kvm_dirty_gfn);
		enable_cap(vm, d->mode == DLOG_RING ? KVM_CAP_DIRTY_LOG_RING :
			   KVM_CAP_DIRTY_LOG_RING_ACQ_REL, cfg->ring_bytes,
			   "the dirty ring");
	}
}

void dlog_vcpu_init(struct vm *vm, struct vcpu *v)
{
	struct dlog *d = vm->dlog;
	long page = sysconf(_SC_PAGESIZE);
	void *p;

	if (!d || !is_ring(d->mode))
		return;
	p = mmap(NULL, vm->cfg->ring_bytes, PROT_READ | PROT_WRITE,
		 MAP_SHARED, v->fd, KVM_DIRTY_LOG_PAGE_OFFSET * page);
	if (p == MAP_FAILED)
		die("--mode %s: cannot map vCPU %u's dirty ring: %s",
		    dlog_mode_names[d->mode], v->id, strerror(errno));
	d->rings[v->id].gfns = p;
}

double dlog_enable(struct vm *vm, bool on)
{
	double t, total = 0;

	for (u32 i = 0; i < vm->cfg->nr_slots; i++) {
		t = now_ms();
		vm_set_test_slot_flags(vm, i, on ? KVM_MEM_LOG_DIRTY_PAGES : 0);
		total += now_ms() - t;
	}
	return total;
}

static u64 mark(struct dlog *d, u64 page)
{
	u64 bit = 1ULL << (page % 64), *w = &d->dirty[page / 64];
	u64 fresh = !(*w & bit);

	*w |= bit;
	return fresh;
}

/* OR one slot's bitmap into d->dirty; only set words cost anything. */
static u64 merge_slot(struct dlog *d, u32 slot)
{
	u64 base = (u64)slot * d->slot_pages, n = 0;

	for (u64 w = 0; w * 64 < d->slot_pages; w++) {
		u64 bits = d->slot_bmap[w];

		while (bits) {
			u64 page = w * 64 + (u64)__builtin_ctzll(bits);

			bits &= bits - 1;
			if (page < d->slot_pages)
				n += mark(d, base + page);
		}
	}
	return n;
}

/* Re-protect the reported pages, a chunk of -k pages per call. */
static void clear_slot(struct vm *vm, struct dlog *d, u32 slot)
{
	u64 chunk = d->clear_chunk;

	for (u64 first = 0; first < d->slot_pages; first += chunk) {
		u64 num = mmub_min(chunk, d->slot_pages - first), any = 0;
		struct kvm_clear_dirty_log c = {
			.slot = TEST_SLOT0 + slot,
			.first_page = first,
			.num_pages = (u32)num,
			.dirty_bitmap = &d->slot_bmap[first / 64],
		};
		double t;

		for (u64 w = first / 64; w * 64 < first + num; w++)
			any |= d->slot_bmap[w];
		if (!any)
			continue;
		t = now_ms();
		if (ioctl(vm->fd, KVM_CLEAR_DIRTY_LOG, &c))
			die("KVM_CLEAR_DIRTY_LOG slot %u pages %llu+%llu: %s",
			    c.slot, (unsigned long long)first,
			    (unsigned long long)num, strerror(errno));
		d->clear_ms += now_ms() - t;
	}
}

static u64 harvest_bitmaps(struct vm *vm, struct dlog *d)
{
	u64 n = 0;
	double t;

	for (u32 s = 0; s < d->nr_slots; s++) {
		struct kvm_dirty_log l = {
			.slot = TEST_SLOT0 + s,
			.dirty_bitmap = d->slot_bmap,
		};

		t = now_ms();
		if (ioctl(vm->fd, KVM_GET_DIRTY_LOG, &l))
			die("KVM_GET_DIRTY_LOG slot %u: %s", l.slot,
			    strerror(errno));
		d->get_ms += now_ms() - t;
		t = now_ms();
		n += merge_slot(d, s);
		d->process_ms += now_ms() - t;
		if (is_manual(d->mode))
			clear_slot(vm, d, s);
	}
	return n;
}

/* Caller holds d->lock. */
static u64 harvest_rings(struct vm *vm, struct dlog *d)
{
	u32 mask = d->ring_entries - 1;
	double t = now_ms();
	u64 n = 0;

	for (u32 i = 0; i < vm->cfg->nr_vcpus; i++) {
		struct dlog_ring *r = &d->rings[i];

		for (;;) {
			struct kvm_dirty_gfn *e = &r->gfns[r->next & mask];
			u32 slot;

			if (!(mmub_load_acquire(&e->flags) & KVM_DIRTY_GFN_F_DIRTY))
				break;
			slot = (e->slot & 0xffff) - TEST_SLOT0;
			if (slot < d->nr_slots && e->offset < d->slot_pages)
				n += mark(d, (u64)slot * d->slot_pages +
					     e->offset);
			mmub_store_release(&e->flags, KVM_DIRTY_GFN_F_RESET);
			r->next++;
		}
	}
	d->ring_ms += now_ms() - t;
	t = now_ms();
	if (ioctl(vm->fd, KVM_RESET_DIRTY_RINGS, NULL) < 0)
		die("KVM_RESET_DIRTY_RINGS: %s", strerror(errno));
	d->reset_ms += now_ms() - t;
	return n;
}

u64 dlog_harvest(struct vm *vm)
{
	struct dlog *d = vm->dlog;
	u64 n;

	pthread_mutex_lock(&d->lock);
	d->get_ms = d->clear_ms = d->ring_ms = d->reset_ms = 0;
	d->process_ms = 0;
	n = is_ring(d->mode) ? harvest_rings(vm, d) : harvest_bitmaps(vm, d);
	pthread_mutex_unlock(&d->lock);
	return n;
}

void dlog_ring_full(struct vm *vm)
{
	struct dlog *d = vm->dlog;

	pthread_mutex_lock(&d->lock);
	d->ring_full_exits++;
	harvest_rings(vm, d);
	pthread_mutex_unlock(&d->lock);
}

void dlog_take(struct dlog *d, u64 *out)
{
	size_t bytes = (d->pages / 64 + 1) * 8;

	pthread_mutex_lock(&d->lock);
	memcpy(out, d->dirty, bytes);
	memset(d->dirty, 0, bytes);
	pthread_mutex_unlock(&d->lock);
}

void dlog_free(struct dlog *d)
{
	for (u32 i = 0; i < MMUB_ARRAY_SIZE(d->rings); i++)
		if (d->rings[i].gfns)
			munmap(d->rings[i].gfns, d->ring_bytes);
	free(d->slot_bmap);
	free(d->dirty);
	d->slot_bmap = d->dirty = NULL;
}
