/* SPDX-License-Identifier: GPL-2.0 */
/* The host harness's internal interfaces. */
#ifndef HOST_MMUBENCH_H
#define HOST_MMUBENCH_H

#include <pthread.h>
#include <stdio.h>
#include <mmubench/boot.h>
#include "kernel/stats.h"
#include "kernel/dirty_log.h"

#define MMUB_NAME "mmubench"

enum backing_type {
	BACKING_ANONYMOUS,
	BACKING_ANONYMOUS_THP,
	BACKING_ANONYMOUS_HUGETLB_2MB,
	BACKING_ANONYMOUS_HUGETLB_1GB,
	BACKING_SHMEM,
	BACKING_SHARED_HUGETLB,
	BACKING_MEMFD,
	BACKING_NR,
};

extern const char *const backing_names[BACKING_NR];

struct run_config {
	const char *scenario;
	u32 nr_vcpus;		/* -v */
	u64 vcpu_bytes;		/* -b */
	enum backing_type backing; /* -s */
	u32 nr_slots;		/* -x */
	u32 iterations;		/* -i */
	u32 repeat;		/* --repeat */
	u64 guest_page;		/* --guest-page */
	int pin[MMUB_MAX_VCPUS]; /* -c, -1 = not pinned */
	bool pinned;
	bool populate;		/* --no-populate clears it */
	bool reserve_hugepages;	/* --reserve-hugepages */
	u32 watchdog_s;		/* --watchdog */
	const char *guest;	/* --guest */
	const char *json;	/* --json */
	bool qemu;		/* --backend qemu */
	struct mmub_workload wl;

	/* dirty-log */
	enum dlog_mode dirty_mode; /* --mode */
	u64 clear_chunk;	/* -k: pages per KVM_CLEAR_DIRTY_LOG */
	u32 ring_bytes;		/* --ring-size */
	bool verify;		/* --verify */
	u32 rounds;		/* --rounds: concurrent oracle rounds */
	const char *table;	/* --table enable */
	s64 debug_drop_round;	/* --debug-drop-dirty: -1 = off */

	/* zap */
	bool zap_rolling;	/* --zap rolling:SIZE, else same:SIZE */
	u64 zap_size;
	u32 zap_count;		/* --zap-count */
	u32 zap_duration_s;	/* --zap-duration, 0 = count only */
	u32 zap_pause_us;	/* --zap-pause */
	const char *zap_name;	/* the pattern as given, for tables */

	/* nx-recovery */
	u32 nx_period_ms;	/* --recovery-period */
	u32 nx_ratio;		/* --recovery-ratio */
	u32 nx_wait_s;		/* --recovery-wait */
	bool nx_no_log;		/* --no-dirty-log: the control run */
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
};

/* What the backing needs from the kernel, checked before any VM exists. */
const char *backing_unavailable(enum backing_type type, u64 size, bool reserve);
void backing_preflight(enum backing_type type, u64 size, bool reserve);
int backing_create(struct backing *b, enum backing_type type, u64 size,
		   bool reserve);
void backing_populate(struct backing *b);
void backing_destroy(struct backing *b);
u64 backing_page_size(enum backing_type type);
/* Put back hugetlb pools raised with --reserve-hugepages. */
void hugetlb_restore(void);
/* Everything a run changed on the host (pools, kvm parameters). */
void host_restore(void);

/* One vCPU thread (vcpu.c). */
enum vcpu_end {
	VCPU_RUNNING = 0,
	VCPU_DONE,		/* rang MMUB_DB_DONE */
	VCPU_FAULT,		/* guest exception, see mailbox fault */
	VCPU_ERROR,		/* unexpected exit; see err */
	VCPU_KICKED,		/* stopped by the host (watchdog, error) */
};

struct vm;

struct vcpu {
	struct vm *vm;
	u32 id;
	int fd;
	struct kvm_run *run;
	pthread_t thread;
	bool started;
	int end;		/* enum vcpu_end, set once by the thread */
	char err[256];
	char regs[512];		/* register dump at the end, if any */
	struct kstats stats;
	struct mmub_mailbox *mb;
};

/* The VM (vm.c). */
struct vm {
	const struct run_config *cfg;
	int kvm_fd;
	int fd;
	int run_size;
	u8 *sys;		/* host mapping of the system memory */
	u64 sys_size;
	struct backing test;
	struct mmub_layout layout;
	struct mmub_boot_info *bi;
	u64 entry;
	struct vcpu vcpus[MMUB_MAX_VCPUS];
	struct kstats stats;
	struct dlog dl;
	struct dlog *dlog;	/* &dl when dirty logging is in use */
	volatile int stopping;
	u64 seq;		/* last command posted */
	double t_create;
	double boot_ms;		/* KVM_CREATE_VM to every vCPU idle */
	pthread_mutex_t print_lock;
};

int vm_create(struct vm *vm, const struct run_config *cfg);
int vm_start(struct vm *vm);
int vm_post(struct vm *vm, u32 cmd, u32 arg);
int vm_wait(struct vm *vm);
int vm_stop_loop(struct vm *vm);
void vm_destroy(struct vm *vm);
void *vm_gpa_to_hva(struct vm *vm, u64 gpa);
void vm_set_test_slot_flags(struct vm *vm, u32 idx, u32 flags);
/* Wait until every running vCPU has adopted @epoch (or is idle). */
int vm_wait_epoch(struct vm *vm, u64 epoch);

/* Liveness: a vCPU is stuck when its heartbeat stops for --watchdog s. */
struct vm_watch {
	u64 beat[MMUB_MAX_VCPUS];
	double seen[MMUB_MAX_VCPUS];
};
void vm_watch_init(struct vm *vm, struct vm_watch *w);
int vm_watch_vcpu(struct vm *vm, struct vm_watch *w, u32 i, const char *what);
/* -1 (after reporting why) if a vCPU has stopped for good. */
int vm_check(struct vm *vm);

/* vcpu.c */
int vcpu_create(struct vm *vm, u32 id);
int vcpu_start(struct vcpu *v);
void vcpu_kick_all(struct vm *vm);
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
bool arch_supports_page(struct vm *vm, u64 page, char *why, size_t len);
void arch_describe_fault(const struct mmub_fault *f, char *buf, size_t len);

/* util.c */
__attribute__((format(printf, 1, 2), noreturn)) void die(const char *fmt, ...);
__attribute__((format(printf, 1, 2))) void err_msg(const char *fmt, ...);
double now_ms(void);
const char *fmt_size(u64 bytes, char *buf, size_t len);
int write_file_atomic(const char *path, const char *data, size_t len);
int read_sysfs_u64(const char *path, u64 *v);
int write_sysfs_u64(const char *path, u64 v);

#endif
