// SPDX-License-Identifier: GPL-2.0
/*
 * The VM: memory, memslots, the guest image and its page tables, the
 * vCPUs, and the command/ack protocol with the guest's mailboxes,
 * watched by a watchdog.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <linux/kvm.h>
#include <mmubench/engine.h>
#include <mmubench/pgtable.h>
#include "kvm/eager_split.h"
#include "kvm/gmem.h"
#include "kvm/prefault.h"
#include "kvm/stage2_dump.h"
#include "util/util.h"
#include "util/bitmap.h"
#include "vmm/vmm.h"

void *vm_gpa_to_hva(struct vm *vm, u64 gpa)
{
	if (gpa >= vm->layout.sys_base &&
	    gpa - vm->layout.sys_base < vm->sys_size)
		return vm->sys + (gpa - vm->layout.sys_base);
	if (gpa >= vm->layout.test_gpa &&
	    gpa - vm->layout.test_gpa < vm->test.size)
		return vm->test.hva + (gpa - vm->layout.test_gpa);
	return NULL;
}

static void *pt_gpa_to_ptr(void *ctx, u64 gpa)
{
	return vm_gpa_to_hva(ctx, gpa);
}

static void open_kvm(struct vm *vm)
{
	int v;

	vm->kvm_fd = open("/dev/kvm", O_RDWR | O_CLOEXEC);
	if (vm->kvm_fd < 0)
		die("/dev/kvm: %s (KVM is needed: load kvm_intel/kvm_amd, run "
		    "as root or in group kvm; without it, tools/kvm-exec.sh runs mmubench in a nested kernel under QEMU)",
		    strerror(errno));
	v = ioctl(vm->kvm_fd, KVM_GET_API_VERSION, NULL);
	if (v != KVM_API_VERSION)
		die("/dev/kvm: API version %d, expected %d", v, KVM_API_VERSION);
	if (ioctl(vm->kvm_fd, KVM_CHECK_EXTENSION, KVM_CAP_BINARY_STATS_FD) <= 0)
		die("/dev/kvm: KVM_CAP_BINARY_STATS_FD missing (Linux 5.14+ "
		    "is needed for the kernel's own counters)");
	vm->run_size = ioctl(vm->kvm_fd, KVM_GET_VCPU_MMAP_SIZE, NULL);
	if (vm->run_size <= 0)
		die("/dev/kvm: KVM_GET_VCPU_MMAP_SIZE failed");
}

int vm_set_region(struct vm *vm, u32 slot, u64 gpa, u64 size, void *hva,
		  u32 flags)
{
	struct kvm_userspace_memory_region r = {
		.slot = slot,
		.flags = flags,
		.guest_phys_addr = gpa,
		.memory_size = size,
		.userspace_addr = (u64)hva,
	};

	return ioctl(vm->fd, KVM_SET_USER_MEMORY_REGION, &r) ? -1 : 0;
}

static void set_slot(struct vm *vm, u32 slot, u64 gpa, u64 size, void *hva,
		     u32 flags)
{
	if (vm_set_region(vm, slot, gpa, size, hva, flags))
		die("-x %u: KVM_SET_USER_MEMORY_REGION slot %u (gpa 0x%llx, "
		    "%llu bytes) failed: %s", vm->p.nr_slots, slot,
		    (unsigned long long)gpa, (unsigned long long)size,
		    strerror(errno));
}

/*
 * The test memory's private side: one guest_memfd, each slot a range of
 * it, and every page private before the guest first runs.
 */
static void setup_gmem_slots(struct vm *vm)
{
	struct backing *b = &vm->test;

	b->gmem_fd = gmem_create(vm->fd, b->size);
	if (b->gmem_fd < 0)
		die("-s guest_memfd: KVM_CREATE_GUEST_MEMFD of %llu bytes "
		    "failed: %s", (unsigned long long)b->size, strerror(errno));
	for (u32 i = 0; i < vm->p.nr_slots; i++) {
		const struct vm_slot *s = &vm->slots[i];

		if (gmem_set_slot(vm->fd, s->id, s->gpa, s->size, s->hva,
				  b->gmem_fd, s->gpa - vm->layout.test_gpa))
			die("-s guest_memfd: KVM_SET_USER_MEMORY_REGION2 slot "
			    "%u (gpa 0x%llx, %llu bytes) failed: %s", s->id,
			    (unsigned long long)s->gpa,
			    (unsigned long long)s->size, strerror(errno));
	}
	if (gmem_set_private(vm->fd, vm->layout.test_gpa, b->size, true))
		die("-s guest_memfd: KVM_SET_MEMORY_ATTRIBUTES (private) of "
		    "the test memory failed: %s", strerror(errno));
}

static void setup_memory(struct vm *vm)
{
	const struct vm_params *cfg = &vm->p;
	u64 test_size = cfg->vcpu_bytes * cfg->nr_vcpus, start, end, slot;
	struct mmub_layout *l = &vm->layout;

	elf_probe(cfg->guest, &start, &end);
	if (mmub_layout_compute(l, arch_sys_base(), start, end, cfg->nr_vcpus,
				arch_test_gpa(), test_size, cfg->guest_page))
		die("-b: %llu bytes per vCPU do not fit the layout (must be a "
		    "multiple of --guest-page)", (unsigned long long)cfg->vcpu_bytes);
	if (cfg->l2_page && mmub_layout_nested(l, cfg->l2_page))
		die("-b/--l2-page: the nested page table for %llu bytes per "
		    "vCPU does not fit below the test memory",
		    (unsigned long long)cfg->vcpu_bytes);
	if (l->sys_end > arch_doorbell_gpa())
		die("-v/-b: the system memory (%llu MiB) reaches the doorbell "
		    "at 0x%llx; use fewer vCPUs or less memory",
		    (unsigned long long)((l->sys_end - l->sys_base) >> 20),
		    (unsigned long long)arch_doorbell_gpa());
	vm->sys_size = l->sys_end - l->sys_base;
	vm->sys = mmap(NULL, vm->sys_size, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (vm->sys == MAP_FAILED)
		die("cannot map %llu bytes of system memory: %s",
		    (unsigned long long)vm->sys_size, strerror(errno));
	/*
	 * The guest runs its code from the system memory.  Mapped huge,
	 * that would be an NX split of its own, which the recovery worker
	 * zaps and the vCPUs refault: noise in exactly what the execute
	 * workload measures.  4K pages there are never split.
	 */
	if (mmub_wl_executes(&cfg->wl) &&
	    madvise(vm->sys, vm->sys_size, MADV_NOHUGEPAGE))
		die("madvise(MADV_NOHUGEPAGE) on the system memory: %s",
		    strerror(errno));
	if (backing_create(&vm->test, cfg->backing, test_size))
		die("-s %s: cannot map %llu bytes: %s",
		    backing_names[cfg->backing], (unsigned long long)test_size,
		    strerror(errno));
	set_slot(vm, VM_SYS_SLOT, l->sys_base, vm->sys_size, vm->sys, 0);
	slot = test_size / cfg->nr_slots;
	for (u32 i = 0; i < cfg->nr_slots; i++) {
		struct vm_slot *s = &vm->slots[i];

		*s = (struct vm_slot){ .id = VM_TEST_SLOT0 + i,
				       .gpa = l->test_gpa + i * slot,
				       .size = slot,
				       .hva = vm->test.hva + i * slot };
		if (cfg->backing != BACKING_GUEST_MEMFD)
			set_slot(vm, s->id, s->gpa, s->size, s->hva, 0);
	}
	if (cfg->backing == BACKING_GUEST_MEMFD)
		setup_gmem_slots(vm);
}

/* Linux 5.14; older C libraries do not name it. */
#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE	23
#endif

/*
 * Fault the page-table pool in with one call.  One fault per table
 * costs more than the table (about 10 us on hosts that gave memory back
 * to an outer hypervisor), and a table first read, then written, takes
 * two: the zero page, then its copy.  Where the call is missing, the
 * writes fault the pages in one by one, as before.
 */
static void prefault_pool(struct vm *vm, u64 gpa, u64 size)
{
	u8 *pool = vm_gpa_to_hva(vm, gpa);

	if (madvise(pool, size, MADV_POPULATE_WRITE) &&
	    errno != EINVAL)
		die("madvise(MADV_POPULATE_WRITE) on the page-table pool: %s",
		    strerror(errno));
}

/*
 * One identity map of the guest's memory, its tables from the pool
 * [@pool, @pool + @size) (@what names it): the system memory at 4K with
 * @sys_prot, the test memory in @test_page pages with @test_prot, and
 * the doorbell.  Returns its root.
 */
static u64 map_guest_memory(struct vm *vm, u64 pool, u64 size, u32 sys_prot,
			    u64 test_page, u32 test_prot, const char *what)
{
	const struct mmub_layout *l = &vm->layout;
	struct mmub_pt pt;

	if (mmub_pt_init(&pt, arch_pt_fmt(), pt_gpa_to_ptr, vm, pool, size))
		die("%s pool misplaced (bug)", what);
	prefault_pool(vm, pool, size);
	/* Fresh anonymous memory, faulted in for writing: zeros. */
	pt.pool_zeroed = true;
	/* Page 0 of the system memory stays unmapped to catch NULL. */
	if (mmub_pt_map(&pt, l->sys_base + MMUB_SZ_4K, l->sys_base + MMUB_SZ_4K,
			vm->sys_size - MMUB_SZ_4K, MMUB_SZ_4K, sys_prot) ||
	    mmub_pt_map(&pt, l->test_gpa, l->test_gpa, l->test_size,
			test_page, test_prot) ||
	    arch_map_doorbell(&pt))
		die("%s pool too small (bug): %llu tables used", what,
		    (unsigned long long)pt.tables);
	return pt.root;
}

/*
 * The guest's own tables and, for --nested-guest, its L2's nested page
 * table: the same memory 1:1 (the test memory with --l2-page pages),
 * writable and executable everywhere, as a hypervisor maps its guest.
 */
static void build_page_tables(struct vm *vm)
{
	const struct mmub_layout *l = &vm->layout;
	u32 sys = MMUB_PROT_WRITE | MMUB_PROT_EXEC | MMUB_PROT_USER;
	u32 test = MMUB_PROT_WRITE | MMUB_PROT_USER;

	if (mmub_wl_executes(&vm->p.wl)) {
		test |= MMUB_PROT_EXEC;
		vm->bi->flags |= MMUB_BOOT_TEST_EXEC;
	}
	vm->bi->pgtable_root = map_guest_memory(vm, l->pgtable,
						l->pgtable_size, sys,
						l->guest_page, test,
						"page-table");
	if (!vm->p.l2_page)
		return;
	vm->bi->npt_root = map_guest_memory(vm, l->npt, l->npt_size, sys,
					    vm->p.l2_page, sys,
					    "nested page-table");
	vm->bi->flags |= MMUB_BOOT_NESTED;
}

/* KVM_CAP_DIRTY_LOG_RING[_ACQ_REL]: before any vCPU exists. */
static void enable_dirty_rings(struct vm *vm)
{
	struct kvm_enable_cap c = {
		.cap = vm->p.dirty_ring_acq_rel ? KVM_CAP_DIRTY_LOG_RING_ACQ_REL :
						  KVM_CAP_DIRTY_LOG_RING,
		.args = { vm->p.dirty_ring_bytes },
	};

	if (ioctl(vm->fd, KVM_ENABLE_CAP, &c))
		die("--ring-size %u: enabling the dirty ring failed: %s",
		    vm->p.dirty_ring_bytes, strerror(errno));
}

/*
 * arm64 eager splitting, before any memslot exists (the kernel refuses
 * it after): the bytes split under one mmu_lock hold, 0 for off.
 */
static void enable_eager_chunk(struct vm *vm)
{
	struct kvm_enable_cap c = {
		.cap = KVM_CAP_ARM_EAGER_SPLIT_CHUNK_SIZE,
		.args = { vm->p.eager_chunk },
	};

	if (ioctl(vm->fd, KVM_ENABLE_CAP, &c))
		die("--eager-split-chunk %llu: KVM_ENABLE_CAP failed: %s",
		    (unsigned long long)vm->p.eager_chunk, strerror(errno));
}

const char *const vm_page_size_stats[VM_PAGE_SIZES] = {
	"pages_4k", "pages_2m", "pages_1g",
};

void vm_pages_by_size(struct vm *vm, s64 pages[VM_PAGE_SIZES])
{
	u64 *vals = calloc(vm->stats.n ? vm->stats.n : 1, sizeof(*vals));

	if (!vals || kstats_read(&vm->stats, vals))
		die("reading the VM's stats failed");
	for (u32 s = 0; s < VM_PAGE_SIZES; s++) {
		int i = kstats_index(&vm->stats, vm_page_size_stats[s]);

		pages[s] = i < 0 ? -1 : (s64)vals[i];
	}
	free(vals);
}

_Static_assert(VM_PAGE_SIZES == STAGE2_DUMP_SIZES, "4K, 2M, 1G both");

int vm_test_pages_by_size(struct vm *vm, s64 pages[VM_PAGE_SIZES],
			  char *why, size_t len)
{
	struct stage2_range r[MMUB_ARRAY_SIZE(vm->slots)];
	char path[128];
	FILE *f;
	int ret;

	if (stage2_dump_find(vm->fd_tid, vm->fd, path, sizeof(path), why, len))
		return -1;
	for (u32 i = 0; i < vm->p.nr_slots; i++) {
		r[i].start = vm->slots[i].gpa;
		r[i].end = vm->slots[i].gpa + vm->slots[i].size;
	}
	f = fopen(path, "r");
	if (!f) {
		snprintf(why, len, "%s: %s", path, strerror(errno));
		return -1;
	}
	ret = stage2_dump_count(f, r, vm->p.nr_slots, pages, why, len);
	fclose(f);
	return ret;
}

/* The test memory mapped in KVM through vCPU 0 before any vCPU runs. */
static void prefault_test(struct vm *vm)
{
	for (u32 i = 0; i < vm->p.nr_slots; i++) {
		const struct vm_slot *s = &vm->slots[i];

		if (prefault_range(vm->vcpus[0].fd, s->gpa, s->size))
			die("--prefault: KVM_PRE_FAULT_MEMORY of slot %u "
			    "(0x%llx+0x%llx): %s", s->id,
			    (unsigned long long)s->gpa,
			    (unsigned long long)s->size, strerror(errno));
	}
}

void vm_create(struct vm *vm, const struct vm_params *p)
{
	const struct vm_params *cfg = &vm->p;
	struct vm_boot *b = &vm->boot;
	char why[160];
	double t;

	memset(vm, 0, sizeof(*vm));
	vm->p = *p;
	pthread_mutex_init(&vm->print_lock, NULL);
	pthread_mutex_init(&vm->park_lock, NULL);
	pthread_cond_init(&vm->park_cond, NULL);
	open_kvm(vm);
	/*
	 * A question to /dev/kvm, not to a VM: asked before one exists, and
	 * not timed as boot (x86's KVM_GET_SUPPORTED_CPUID, once a process,
	 * takes 0.8 ms here).
	 */
	if (!arch_supports_page(vm->kvm_fd, cfg->guest_page, why, sizeof(why)))
		die("--guest-page: %s", why);
	t = now_ms();
	/* Private memory needs its VM type; backing_preflight() asked. */
	vm->fd = ioctl(vm->kvm_fd, KVM_CREATE_VM,
		       cfg->backing == BACKING_GUEST_MEMFD ?
		       KVM_X86_SW_PROTECTED_VM : 0);
	if (vm->fd < 0)
		die("KVM_CREATE_VM failed: %s", strerror(errno));
	vm->fd_tid = gettid();
	if (kstats_open(&vm->stats, vm->fd))
		die("KVM_GET_STATS_FD on the VM failed: %s", strerror(errno));
	if (cfg->dirty_ring_bytes)
		enable_dirty_rings(vm);
	if (cfg->eager_chunk_set)
		enable_eager_chunk(vm);
	b->vm_ms = lap_ms(&t);
	setup_memory(vm);
	b->memory_ms = lap_ms(&t);
	arch_vm_init(vm);
	b->vm_ms += lap_ms(&t);
	elf_load(vm, cfg->guest, &vm->layout.image_start,
		 &vm->layout.image_end, &vm->entry);
	vm->bi = vm_gpa_to_hva(vm, vm->layout.boot_info);
	mmub_boot_info_init(vm->bi, &vm->layout);
	vm->bi->wl = cfg->wl;
	b->image_ms = lap_ms(&t);
	build_page_tables(vm);
	b->tables_ms = lap_ms(&t);
	if (cfg->populate)
		backing_populate(&vm->test);
	b->populate_ms = lap_ms(&t);
	for (u32 i = 0; i < cfg->nr_vcpus; i++)
		vcpu_create(vm, i);
	b->vcpus_ms = lap_ms(&t);
	if (cfg->prefault) {
		prefault_test(vm);
		b->prefault_ms = lap_ms(&t);
		vm_pages_by_size(vm, b->prefault_pages);
	}
}

static const char *state_name(u32 s)
{
	static const char *const names[] = {
		"booting", "idle", "busy", "done", "fault",
	};

	return s < MMUB_ARRAY_SIZE(names) ? names[s] : "?";
}

/* Report why a vCPU stopped, once, and return -1. */
static int vcpu_failed(struct vm *vm, struct vcpu *v)
{
	char buf[256];

	switch (v->end) {
	case VCPU_FAULT:
		arch_describe_fault(&v->mb->fault, buf, sizeof(buf));
		err_msg("guest exception on vCPU %u: %s", v->id, buf);
		break;
	case VCPU_ERROR:
		err_msg("vCPU %u: %s", v->id, v->err);
		break;
	case VCPU_DONE:
		err_msg("vCPU %u left the engine early", v->id);
		break;
	default:
		return -1;
	}
	if (v->regs[0])
		err_msg("vCPU %u registers: %s", v->id, v->regs);
	vcpu_kick_all(vm);
	return -1;
}

static void watchdog_report(struct vm *vm, u32 stuck, double secs,
			    const char *what)
{
	struct vcpu *v = &vm->vcpus[stuck];
	u32 i;

	vcpu_kick_all(vm);
	for (i = 0; i < vm->p.nr_vcpus; i++)
		vcpu_join(&vm->vcpus[i]);
	err_msg("watchdog: vCPU %u made no progress for %.0f s (state %s, "
		"--watchdog %u) while %s: %s", stuck, secs,
		state_name(mmub_load_acquire(&v->mb->state)),
		vm->p.watchdog_s, what, v->regs[0] ? v->regs : "no registers");
}

/*
 * Liveness.  A vCPU is stuck when its heartbeat, which the engine bumps
 * every MMUB_BATCH accesses, has not moved for --watchdog seconds.  A
 * slow vCPU (under nested TCG a pass takes many times longer than on
 * bare metal) still beats, and is waited for however long its work
 * takes: only "no progress at all" is a failure.
 */
void vm_watch_init(struct vm *vm, struct vm_watch *w)
{
	double now = now_ms();

	for (u32 i = 0; i < vm->p.nr_vcpus; i++) {
		w->beat[i] = mmub_load_relaxed(&vm->vcpus[i].mb->heartbeat);
		w->seen[i] = now;
	}
}

/* -1, after reporting it, if vCPU @i is stuck (while doing @what). */
int vm_watch_vcpu(struct vm *vm, struct vm_watch *w, u32 i, const char *what)
{
	u64 hb = mmub_load_relaxed(&vm->vcpus[i].mb->heartbeat);
	double now = now_ms();

	if (hb != w->beat[i]) {
		w->beat[i] = hb;
		w->seen[i] = now;
		return 0;
	}
	if (now - w->seen[i] <= vm->p.watchdog_s * 1e3)
		return 0;
	watchdog_report(vm, i, (now - w->seen[i]) / 1e3, what);
	return -1;
}

/*
 * Wait until every vCPU acked @vm->seq (or is idle, for seq 0).  Polls
 * with a short sleep: a spinning host thread would steal a core from
 * the vCPUs on small machines.  The sleep starts at @nap_us and grows
 * to 2 ms, so a long command costs few wakeups.
 */
static int wait_acks(struct vm *vm, long nap_us)
{
	u32 n = vm->p.nr_vcpus, i, pending;
	struct timespec nap = { 0, nap_us * 1000 };
	struct vm_watch w;

	vm_watch_init(vm, &w);
	for (;;) {
		pending = 0;
		for (i = 0; i < n; i++) {
			struct vcpu *v = &vm->vcpus[i];
			struct mmub_mailbox *mb = v->mb;

			if (__atomic_load_n(&v->end, __ATOMIC_ACQUIRE))
				return vcpu_failed(vm, v);
			if (vm->seq ? mmub_load_acquire(&mb->ack_seq) == vm->seq :
			    mmub_load_acquire(&mb->state) == MMUB_STATE_IDLE)
				continue;
			pending++;
			if (vm_watch_vcpu(vm, &w, i, vm->seq ?
					  "running a command" : "booting"))
				return -1;
		}
		if (!pending)
			return 0;
		nanosleep(&nap, NULL);
		if (nap.tv_nsec < 2 * 1000 * 1000)
			nap.tv_nsec += 100 * 1000;
	}
}

int vm_wait(struct vm *vm)
{
	return wait_acks(vm, 200);
}

#define STEP(member, label, what) \
	{ #member, label, what, offsetof(struct vm_boot, member) }

const struct vm_boot_step vm_boot_steps[VM_BOOT_STEPS] = {
	STEP(vm_ms, "VM", "KVM_CREATE_VM, its stats fd, arch setup"),
	STEP(memory_ms, "memory", "mappings and memslots"),
	STEP(image_ms, "image", "the guest image, its boot info"),
	STEP(tables_ms, "page tables", "the guest's page tables"),
	STEP(vcpus_ms, "vCPUs", "KVM_CREATE_VCPU, registers"),
	STEP(entry_ms, "first entry", "first entry until every vCPU waits"),
};

double vm_boot_step_ms(const struct vm_boot *b, const struct vm_boot_step *s)
{
	return *(const double *)((const char *)b + s->off);
}

int vm_start(struct vm *vm)
{
	struct vm_boot *b = &vm->boot;
	double t0 = now_ms();
	int r;

	/*
	 * From here, not from the end of vm_create(): what a caller does in
	 * between (the first run's environment report, 0.25 ms) is not boot.
	 */
	for (u32 i = 0; i < vm->p.nr_vcpus; i++)
		vcpu_start(&vm->vcpus[i]);
	/*
	 * Boot takes milliseconds: poll finely, or the sleep's growth
	 * (up to 2 ms a step) would be most of what boot_ms reports.
	 */
	r = wait_acks(vm, 20);
	b->entry_ms = now_ms() - t0;
	vm->boot_ms = 0;
	for (u32 i = 0; i < VM_BOOT_STEPS; i++)
		vm->boot_ms += vm_boot_step_ms(b, &vm_boot_steps[i]);
	return r;
}

int vm_post(struct vm *vm, u32 cmd, u32 arg)
{
	vm->seq++;
	for (u32 i = 0; i < vm->p.nr_vcpus; i++) {
		struct mmub_mailbox *mb = vm->vcpus[i].mb;

		mmub_store_relaxed(&mb->stop, 0);
		mb->cmd = cmd;
		mb->cmd_arg = arg;
		mmub_store_release(&mb->cmd_seq, vm->seq);
	}
	if (!vm->posted)
		vcpu_unpark_all(vm);
	return 0;
}

/* Each vCPU's slice of the test memory. */
static u64 vcpu_slice(const struct vm *vm)
{
	return mmub_slice_size(vm->test.size, vm->p.nr_vcpus,
			       vm->p.wl.stride);
}

u64 vm_strides_selected(const struct vm *vm)
{
	const struct mmub_workload *wl = &vm->p.wl;

	return mmub_nr_selected(vcpu_slice(vm), wl->stride, wl->fraction_ppm);
}

void vm_map_strides(const struct vm *vm, u64 first, u64 n, u64 *map)
{
	const struct mmub_workload *wl = &vm->p.wl;
	u64 slice = vcpu_slice(vm), off;

	memset(map, 0, (vm->test.size / MMUB_SZ_4K / 64 + 1) * 8);
	for (u32 v = 0; v < vm->p.nr_vcpus; v++) {
		for (u64 i = first; i < first + n; i++) {
			off = v * slice + i * wl->stride;
			if ((!wl->nr_ranges || mmub_wl_in_ranges(wl, off)) &&
			    !mmub_wl_cold_skip(wl, off))
				bitmap_assign(map, off / MMUB_SZ_4K, true);
		}
	}
}

/* The first 4K page of every stride a pass selects, in @map (cleared). */
void vm_selected_pages(const struct vm *vm, u64 *map)
{
	vm_map_strides(vm, 0, vm_strides_selected(vm), map);
}

u64 *vm_cold_pages(const struct vm *vm)
{
	u64 slice = vcpu_slice(vm), p, end;
	u64 *map = calloc(vm->test.size / MMUB_SZ_4K / 64 + 1, 8);

	if (!map)
		die("out of memory for the cold pages' bitmap");
	if (!(vm->p.wl.flags & MMUB_WL_COLD))
		return map;
	for (u32 v = 0; v < vm->p.nr_vcpus; v++) {
		end = ((u64)v * slice + slice) / MMUB_SZ_4K;
		for (p = (u64)v * slice / MMUB_SZ_4K; p < end; p++)
			if (mmub_cold_page(p))
				bitmap_assign(map, p, true);
	}
	return map;
}

int vm_write_cold(struct vm *vm)
{
	if (!(vm->p.wl.flags & MMUB_WL_COLD))
		return 0;
	if (vm_post(vm, MMUB_CMD_COLD, 0))
		return -1;
	return vm_wait(vm);
}

int vm_check(struct vm *vm)
{
	for (u32 i = 0; i < vm->p.nr_vcpus; i++)
		if (__atomic_load_n(&vm->vcpus[i].end, __ATOMIC_ACQUIRE))
			return vcpu_failed(vm, &vm->vcpus[i]);
	return 0;
}

int vm_wait_passes(struct vm *vm, u64 n, const char *what)
{
	u64 start[MMUB_MAX_VCPUS];
	u32 nr = vm->p.nr_vcpus, behind;
	struct vm_watch w;

	vm_watch_init(vm, &w);
	for (u32 i = 0; i < nr; i++)
		start[i] = mmub_load_acquire(&vm->vcpus[i].mb->passes_done);
	do {
		if (vm_check(vm))
			return -1;
		usleep(1000);
		behind = 0;
		for (u32 i = 0; i < nr; i++) {
			if (mmub_load_acquire(&vm->vcpus[i].mb->passes_done) >=
			    start[i] + n)
				continue;
			behind++;
			if (vm_watch_vcpu(vm, &w, i, what))
				return -1;
		}
	} while (behind);
	return 0;
}

/* End a MMUB_CMD_LOOP and wait for every vCPU to finish its pass. */
int vm_stop_loop(struct vm *vm)
{
	for (u32 i = 0; i < vm->p.nr_vcpus; i++)
		mmub_store_release(&vm->vcpus[i].mb->stop, 1);
	return vm_wait(vm);
}

void vm_test_page_where(const struct vm *vm, u64 page, char *buf, size_t len)
{
	u64 slot_pages = vm->test.size / MMUB_SZ_4K / vm->p.nr_slots;

	snprintf(buf, len, "slot %llu gfn 0x%llx",
		 (unsigned long long)(VM_TEST_SLOT0 + page / slot_pages),
		 (unsigned long long)(vm->layout.test_gpa / MMUB_SZ_4K + page));
}

/*
 * A vCPU that failed on its way out rang "done" and got an exception or
 * an error instead: the doorbell itself is broken, say so.
 */
static void exit_failures(struct vm *vm)
{
	for (u32 i = 0; i < vm->p.nr_vcpus; i++) {
		struct vcpu *v = &vm->vcpus[i];
		int end = __atomic_load_n(&v->end, __ATOMIC_ACQUIRE);

		if (end == VCPU_FAULT || end == VCPU_ERROR)
			vcpu_failed(vm, v);
	}
}

void vm_destroy(struct vm *vm)
{
	u32 i;

	if (!vm->stopping) {
		vm_post(vm, MMUB_CMD_EXIT, 0);
		/* Give the guests a moment to ring "done", then stop them. */
		for (i = 0; i < 200; i++) {
			u32 j, running = 0;

			for (j = 0; j < vm->p.nr_vcpus; j++)
				running += vm->vcpus[j].started &&
					   !__atomic_load_n(&vm->vcpus[j].end,
							    __ATOMIC_ACQUIRE);
			if (!running)
				break;
			usleep(5000);
		}
		exit_failures(vm);
	}
	vcpu_kick_all(vm);
	for (i = 0; i < vm->p.nr_vcpus; i++) {
		struct vcpu *v = &vm->vcpus[i];

		vcpu_join(v);
		kstats_close(&v->stats);
		if (v->run && v->run != MAP_FAILED)
			munmap(v->run, (size_t)vm->run_size);
		if (v->ring)
			munmap(v->ring, vm->p.dirty_ring_bytes);
		if (v->fd > 0)
			close(v->fd);
	}
	kstats_close(&vm->stats);
	backing_destroy(&vm->test);
	if (vm->sys && vm->sys != MAP_FAILED)
		munmap(vm->sys, vm->sys_size);
	close(vm->fd);
	close(vm->kvm_fd);
}
