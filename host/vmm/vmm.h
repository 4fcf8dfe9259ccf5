/* SPDX-License-Identifier: GPL-2.0 */
/*
 * mmubench's VMM: a VM on /dev/kvm with the guest image, its memory
 * (system memory and the test memory, split over memslots), its page
 * tables and vCPU threads, driven through the guest's mailboxes.  It
 * takes a struct vm_params and knows no scenario.
 */
#ifndef HOST_VMM_VMM_H
#define HOST_VMM_VMM_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>
#include <mmubench/boot.h>
#include "kvm/stats.h"

/* Memslot ids: the system memory, then the test memory's slots. */
#define VM_SYS_SLOT		0
#define VM_TEST_SLOT0		1

enum backing_type {
	BACKING_ANONYMOUS,
	BACKING_ANONYMOUS_THP,
	BACKING_ANONYMOUS_HUGETLB_2MB,
	BACKING_ANONYMOUS_HUGETLB_1GB,
	BACKING_SHMEM,
	BACKING_SHARED_HUGETLB,
	BACKING_MEMFD,
	/*
	 * Private memory in a guest_memfd, in a KVM_X86_SW_PROTECTED_VM
	 * (kvm/gmem.h): the test memory starts private; its shared side,
	 * mapped when a range is converted, is anonymous 4K memory.
	 */
	BACKING_GUEST_MEMFD,
	BACKING_NR,
};

extern const char *const backing_names[BACKING_NR];

/* What a VM is made of: everything the VMM needs, nothing else. */
struct vm_params {
	u32 nr_vcpus;
	u64 vcpu_bytes;		/* test memory per vCPU */
	enum backing_type backing;
	u32 nr_slots;		/* the test memory split over this many */
	u64 guest_page;		/* page size of the guest's own mapping */
	int pin[MMUB_MAX_VCPUS]; /* host CPU per vCPU thread, -1: any */
	bool populate;		/* fault the test memory in before boot */
	/* KVM_PRE_FAULT_MEMORY on the test memory once the vCPUs exist */
	bool prefault;
	bool reserve_hugepages;	/* raise hugetlb pools, restored at exit */
	u32 watchdog_s;		/* a vCPU without progress this long is stuck */
	const char *guest;	/* the guest image */
	struct mmub_workload wl;
	/* A dirty ring per vCPU (KVM_CAP_DIRTY_LOG_RING[_ACQ_REL]), 0: none */
	u32 dirty_ring_bytes;
	bool dirty_ring_acq_rel;
	/* arm64 eager splitting (KVM_CAP_ARM_EAGER_SPLIT_CHUNK_SIZE), if set */
	bool eager_chunk_set;
	u64 eager_chunk;
	/*
	 * --nested-guest: the guest runs the workload in its own L2 under
	 * SVM, whose nested page table maps the test memory with pages of
	 * this size; 0: the workload runs in the guest itself.
	 */
	u64 l2_page;
};

/* Guest memory backing (memory.c). */
struct backing {
	enum backing_type type;
	u8 *hva;
	u64 size;
	u64 page;		/* host page size backing it */
	int fd;
	void *map;
	u64 map_len;
	int gmem_fd;		/* the private side (guest_memfd), or -1 */
};

u64 backing_page_size(enum backing_type type);
bool backing_is_hugetlb(enum backing_type type);
/*
 * A file behind the memory (a descriptor in struct backing): its data
 * outlives MADV_DONTNEED, and a second mapping of it sees the same pages.
 */
bool backing_is_file(enum backing_type type);
/* What the backing needs from the kernel, checked before any VM exists. */
const char *backing_unavailable(enum backing_type type, u64 size, bool reserve);
void backing_preflight(enum backing_type type, u64 size, bool reserve);
int backing_create(struct backing *b, enum backing_type type, u64 size);
void backing_populate(struct backing *b);
/*
 * Every mapping KVM holds of @b dropped through the MMU notifiers, its
 * content kept (read-only, then back): 0, or -1 and errno.
 */
int backing_drop_mappings(struct backing *b);
void backing_destroy(struct backing *b);

/* One vCPU thread (vcpu.c). */
enum vcpu_end {
	VCPU_RUNNING = 0,
	VCPU_DONE,		/* rang MMUB_DB_DONE */
	VCPU_FAULT,		/* guest exception, see mailbox fault */
	VCPU_ERROR,		/* unexpected exit; see err */
	VCPU_KICKED,		/* stopped by the host (watchdog, error) */
};

struct vm;
struct kvm_dirty_gfn;
struct mmub_pt;

struct vcpu {
	struct vm *vm;
	u32 id;
	int fd;
	struct kvm_run *run;
	struct kvm_dirty_gfn *ring;	/* its dirty ring, if the VM has them */
	pthread_t thread;
	bool started;
	int end;		/* enum vcpu_end, set once by the thread */
	char err[256];
	char regs[512];		/* register dump at the end, if any */
	struct kstats stats;
	struct mmub_mailbox *mb;
	u64 sync_req;		/* vcpu_sync_all(): asked by the host */
	u64 sync_ack;		/* answered after an exit from KVM_RUN */
	int parked;		/* in MMUB_DB_PARK's wait, out of guest mode */
	/*
	 * KVM_EXIT_MEMORY_FAULTs re-entered (-s guest_memfd): a fault that
	 * raced a conversion (vcpu.c).
	 */
	u64 memory_faults;
	u64 memory_fault_run;	/* of them in a row at memory_fault_gpa */
	u64 memory_fault_gpa;
};

/* A memslot of the test memory. */
struct vm_slot {
	u32 id;
	u64 gpa;
	u64 size;
	u8 *hva;
};

/* KVM's second-stage mappings by size: x86's VM stats pages_4k/2m/1g. */
#define VM_PAGE_SIZES	3
extern const char *const vm_page_size_stats[VM_PAGE_SIZES];

/* The VM (vm.c). */
/*
 * Where boot time goes, in ms.  boot_ms is their sum; the host's
 * populate of the test memory (-p) is apart: it scales with the memory
 * and measures the host, not the boot.
 */
struct vm_boot {
	double vm_ms;		/* KVM_CREATE_VM, its stats fd, arch setup */
	double memory_ms;	/* mappings and memslots */
	double image_ms;	/* the guest image and its boot info */
	double tables_ms;	/* the guest's page tables */
	double vcpus_ms;	/* KVM_CREATE_VCPU, registers */
	double entry_ms;	/* threads started until every vCPU is idle */
	double populate_ms;	/* not in boot_ms */
	double prefault_ms;	/* KVM_PRE_FAULT_MEMORY, not in boot_ms */
	/* Mappings by size once pre-faulted (vm_pages_by_size()). */
	s64 prefault_pages[VM_PAGE_SIZES];
};

/* A step of struct vm_boot that boot_ms adds up, with its names. */
struct vm_boot_step {
	const char *key;	/* the member's, and JSON's: "vm_ms" */
	const char *label;	/* in a run's first line: "VM" */
	const char *what;	/* in bench's table */
	size_t off;		/* in struct vm_boot */
};

#define VM_BOOT_STEPS	6
/* Every step of boot_ms, in the order a boot takes them. */
extern const struct vm_boot_step vm_boot_steps[VM_BOOT_STEPS];
double vm_boot_step_ms(const struct vm_boot *b, const struct vm_boot_step *s);

struct vm {
	struct vm_params p;
	int kvm_fd;
	int fd;
	pid_t fd_tid;		/* who made fd: <tid> of its debugfs name */
	int run_size;
	u8 *sys;		/* host mapping of the system memory */
	u64 sys_size;
	struct backing test;
	struct vm_slot slots[256];
	struct mmub_layout layout;
	struct mmub_boot_info *bi;
	u64 entry;
	struct vcpu vcpus[MMUB_MAX_VCPUS];
	struct kstats stats;
	/*
	 * Called from a vCPU thread on KVM_EXIT_DIRTY_RING_FULL: whoever
	 * harvests the rings empties them (the vCPU waits meanwhile).
	 */
	void (*ring_full)(void *arg);
	void *ring_full_arg;
	volatile int stopping;
	u64 seq;		/* last command posted */
	double boot_ms;		/* KVM_CREATE_VM to every vCPU idle, */
	struct vm_boot boot;	/* ...in steps; populate apart */
	pthread_mutex_t print_lock;
	/* vCPUs parked before the first command wait for it here. */
	pthread_mutex_t park_lock;
	pthread_cond_t park_cond;
	bool posted;		/* a command was posted: nobody parks */
};

/* A VM from @p, its vCPUs made but not started; dies saying why not. */
void vm_create(struct vm *vm, const struct vm_params *p);
int vm_start(struct vm *vm);
int vm_post(struct vm *vm, u32 cmd, u32 arg);
int vm_wait(struct vm *vm);
int vm_stop_loop(struct vm *vm);
void vm_destroy(struct vm *vm);
/*
 * KVM_SET_USER_MEMORY_REGION: memslot @slot at @gpa, backed by @hva; a
 * new @gpa moves it, @size 0 deletes it.  0, or -1 and errno.
 */
int vm_set_region(struct vm *vm, u32 slot, u64 gpa, u64 size, void *hva,
		  u32 flags);
/* Each size's mappings now, -1 where this KVM has no such stat. */
void vm_pages_by_size(struct vm *vm, s64 pages[VM_PAGE_SIZES]);
/*
 * The test memory's second-stage mappings by size from arm64 KVM's
 * stage-2 dump (kvm/stage2_dump.h): 0, or -1 and why there are none.
 * The read holds KVM's mmu_lock over a walk of the whole IPA space:
 * never call it inside a timed phase.
 */
int vm_test_pages_by_size(struct vm *vm, s64 pages[VM_PAGE_SIZES],
			  char *why, size_t len);
void *vm_gpa_to_hva(struct vm *vm, u64 gpa);
/* The strides of each vCPU's slice a pass selects (--fraction). */
u64 vm_strides_selected(const struct vm *vm);
/*
 * @map (a bit per 4K test page, cleared here): the first page of strides
 * [@first, @first + @n) of every vCPU's slice that --ranges keep.
 */
void vm_map_strides(const struct vm *vm, u64 first, u64 n, u64 *map);
/*
 * @map (a bit per 4K test page, cleared here): the pages a pass touches,
 * the first of each stride the workload selects (--fraction, --ranges).
 */
void vm_selected_pages(const struct vm *vm, u64 *map);
/*
 * A new bitmap (a bit per 4K test page; free() it) of the cold pages the
 * guest writes on MMUB_CMD_COLD (mmubench/cold.h): none without
 * MMUB_WL_COLD.
 */
u64 *vm_cold_pages(const struct vm *vm);
/* MMUB_CMD_COLD with the vCPUs idle, if the workload has cold pages. */
int vm_write_cold(struct vm *vm);
/*
 * In a MMUB_CMD_LOOP: wait until every vCPU completed @n more passes
 * (2: one whole pass begun after the call); -1 after reporting why not,
 * a vCPU stuck while doing @what too.
 */
int vm_wait_passes(struct vm *vm, u64 n, const char *what);
/* -1 (after reporting why) if a vCPU has stopped for good. */
int vm_check(struct vm *vm);
/* "slot N gfn 0x..." of 4K test page @page: where KVM knows it. */
void vm_test_page_where(const struct vm *vm, u64 page, char *buf, size_t len);

/* Liveness: a vCPU is stuck when its heartbeat stops for --watchdog s. */
struct vm_watch {
	u64 beat[MMUB_MAX_VCPUS];
	double seen[MMUB_MAX_VCPUS];
};
void vm_watch_init(struct vm *vm, struct vm_watch *w);
int vm_watch_vcpu(struct vm *vm, struct vm_watch *w, u32 i, const char *what);

/* vcpu.c */
int vcpu_create(struct vm *vm, u32 id);
int vcpu_start(struct vcpu *v);
void vcpu_kick_all(struct vm *vm);
/* Let the vCPUs parked before the first command run (vm_post()). */
void vcpu_unpark_all(struct vm *vm);
/*
 * Make every running vCPU leave guest mode once and wait until each has,
 * without stopping them: afterwards KVM has flushed what it buffers per
 * vCPU (PML) for every write done before the call.
 */
void vcpu_sync_all(struct vm *vm);
void vcpu_join(struct vcpu *v);

/* elf.c */
int elf_load(struct vm *vm, const char *path, u64 *image_start,
	     u64 *image_end, u64 *entry);
int elf_probe(const char *path, u64 *image_start, u64 *image_end);

/* arch/<arch>/ */
extern const char *const arch_name;
extern const u16 arch_elf_machine;
u64 arch_sys_base(void);
u64 arch_test_gpa(void);
int arch_vm_init(struct vm *vm);
int arch_vcpu_init(struct vcpu *v);
/* Decode an exit: a doorbell number, 0 if ignored, -1 if unexpected. */
int arch_vcpu_exit(struct vcpu *v);
void arch_vcpu_dump(struct vcpu *v, char *buf, size_t len);
const struct mmub_pt_fmt *arch_pt_fmt(void);
/* Where the guest rings (enum mmub_doorbell): no memslot, KVM_EXIT_MMIO. */
u64 arch_doorbell_gpa(void);
/* Map the doorbell, writable at CPL3/EL0, into the guest's tables. */
int arch_map_doorbell(struct mmub_pt *pt);
/* Can the guest map its memory with @page pages on this CPU? (kvm_fd) */
bool arch_supports_page(int kvm_fd, u64 page, char *why, size_t len);
/*
 * --nested-guest (arch/<arch>/nested.c): can the guest run its workload
 * in an L2 of its own, mapped with @l2_page pages in its nested table?
 * If not, @why says what is missing and how to get it.
 */
bool arch_supports_nested(int kvm_fd, u64 l2_page, char *why, size_t len);
/* x86: does KVM offer SVM with nested paging (KVM_GET_SUPPORTED_CPUID)? */
bool arch_cpuid_has_npt(int kvm_fd);
void arch_describe_fault(const struct mmub_fault *f, char *buf, size_t len);

#endif
