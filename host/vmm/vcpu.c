// SPDX-License-Identifier: GPL-2.0
/*
 * vCPU threads.  Each runs KVM_RUN until its guest rings "done", takes an
 * exception, exits unexpectedly, or is kicked by the host (a signal plus
 * immediate_exit, so a kick can never be lost between two KVM_RUNs).
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <string.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <linux/kvm.h>
#include "kvm/gmem.h"
#include "util/cleanup.h"
#include "util/util.h"
#include "vmm/vmm.h"

#define KICK_SIGNAL	SIGUSR1

/*
 * Where a vCPU's dirty ring starts in its mmap space, in pages: 64 on
 * x86 and on arm64 (since 6.2).  Not KVM_DIRTY_LOG_PAGE_OFFSET: the arm64
 * C library here carries 6.1's headers, where arm64 has no ring and the
 * generic fallback is 0, the kvm_run page, whose flags never read dirty
 * (the oracle caught it: 1024 of 1024 pages missed on 6.12).
 */
#define DIRTY_RING_PAGE_OFFSET	64

static void kick_handler(int sig)
{
	(void)sig;
}

/* Its dirty ring: the VM enabled rings before making any vCPU. */
static void map_dirty_ring(struct vcpu *v)
{
	long page = sysconf(_SC_PAGESIZE);
	void *p = mmap(NULL, v->vm->p.dirty_ring_bytes, PROT_READ | PROT_WRITE,
		       MAP_SHARED, v->fd, DIRTY_RING_PAGE_OFFSET * page);

	if (p == MAP_FAILED)
		die("cannot map vCPU %u's dirty ring: %s", v->id,
		    strerror(errno));
	v->ring = p;
}

int vcpu_create(struct vm *vm, u32 id)
{
	struct vcpu *v = &vm->vcpus[id];

	v->vm = vm;
	v->id = id;
	v->mb = (struct mmub_mailbox *)vm_gpa_to_hva(vm, vm->layout.mailbox) +
		id;
	v->fd = ioctl(vm->fd, KVM_CREATE_VCPU, (unsigned long)id);
	if (v->fd < 0)
		die("-v %u: KVM_CREATE_VCPU %u failed: %s", vm->p.nr_vcpus,
		    id, strerror(errno));
	v->run = mmap(NULL, (size_t)vm->run_size, PROT_READ | PROT_WRITE,
		      MAP_SHARED, v->fd, 0);
	if (v->run == MAP_FAILED)
		die("mmap of kvm_run failed: %s", strerror(errno));
	if (vm->p.dirty_ring_bytes)
		map_dirty_ring(v);
	if (kstats_open(&v->stats, v->fd))
		die("KVM_GET_STATS_FD on a vCPU failed: %s (KVM_CAP_BINARY_STATS_FD,"
		    " Linux 5.14+, is needed)", strerror(errno));
	return arch_vcpu_init(v);
}

static void vcpu_end(struct vcpu *v, int end)
{
	arch_vcpu_dump(v, v->regs, sizeof(v->regs));
	__atomic_store_n(&v->end, end, __ATOMIC_RELEASE);
}

static void vcpu_print(struct vcpu *v)
{
	struct mmub_mailbox *mb0 = v->mb - v->id;
	u32 len = mmub_min(mmub_load_acquire(&mb0->print_len),
			   (u32)MMUB_PRINT_BUF);

	pthread_mutex_lock(&v->vm->print_lock);
	fwrite(mb0->print_buf, 1, len, stdout);
	fflush(stdout);
	pthread_mutex_unlock(&v->vm->print_lock);
}

/*
 * The guest parks each vCPU once, idle before its first command, so that
 * idle vCPUs do not spin on a host with fewer CPUs than vCPUs while
 * others still boot.  Parked is out of guest mode: vcpu_sync_all() takes
 * it as an answer.
 */
static void vcpu_park(struct vcpu *v)
{
	struct vm *vm = v->vm;

	pthread_mutex_lock(&vm->park_lock);
	__atomic_store_n(&v->parked, 1, __ATOMIC_RELEASE);
	while (!vm->posted && !vm->stopping)
		pthread_cond_wait(&vm->park_cond, &vm->park_lock);
	__atomic_store_n(&v->parked, 0, __ATOMIC_RELEASE);
	pthread_mutex_unlock(&vm->park_lock);
}

void vcpu_unpark_all(struct vm *vm)
{
	pthread_mutex_lock(&vm->park_lock);
	vm->posted = true;
	pthread_cond_broadcast(&vm->park_cond);
	pthread_mutex_unlock(&vm->park_lock);
}

/*
 * Empty the rings with the kick held back.  A signal pending during
 * KVM_RESET_DIRTY_RINGS makes KVM stop early (49005a2a3d2a, 2025; this
 * machine's 6.18 does), dropping the batch of up to 64 adjacent gfns it
 * had taken from the rings but not yet write-protected again: their
 * later writes go unreported (1 run in 5 of dirty_log.bats's small ring
 * lost 2 to 31 of them: the main thread's kick landed in the reset).
 * The kick is not lost: immediate_exit makes the next KVM_RUN return at
 * once, and the signal is delivered when unblocked.
 */
static void vcpu_ring_full(struct vcpu *v, void (*ring_full)(void *))
{
	sigset_t set, old;

	sigemptyset(&set);
	sigaddset(&set, KICK_SIGNAL);
	pthread_sigmask(SIG_BLOCK, &set, &old);
	ring_full(v->vm->ring_full_arg);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
}

/* Handle one exit: true while the vCPU should keep running. */
static bool vcpu_handle_exit(struct vcpu *v)
{
	void (*ring_full)(void *) = __atomic_load_n(&v->vm->ring_full,
						    __ATOMIC_ACQUIRE);
	int db;

	/* The vCPU waits here while the rings are harvested and reset. */
	if (v->run->exit_reason == KVM_EXIT_DIRTY_RING_FULL && ring_full) {
		vcpu_ring_full(v, ring_full);
		return true;
	}
	db = arch_vcpu_exit(v);

	switch (db) {
	case 0:
		return true;
	case MMUB_DB_PRINT:
		vcpu_print(v);
		return true;
	case MMUB_DB_PARK:
		vcpu_park(v);
		return true;
	case MMUB_DB_DONE:
		vcpu_end(v, VCPU_DONE);
		return false;
	case MMUB_DB_FAULT:
		vcpu_end(v, VCPU_FAULT);
		return false;
	default:
		vcpu_end(v, VCPU_ERROR);
		return false;
	}
}

/*
 * Out of KVM_RUN, so out of guest mode: every write before this exit has
 * been flushed, which answers any sync asked so far.  Reading the request
 * here is enough even if it came after the exit: the vCPU has not been in
 * guest mode since.
 */
static void vcpu_answer_sync(struct vcpu *v)
{
	u64 req = __atomic_load_n(&v->sync_req, __ATOMIC_ACQUIRE);

	if (req != v->sync_ack)
		__atomic_store_n(&v->sync_ack, req, __ATOMIC_RELEASE);
}

/* Re-entries at one gpa before a memory fault is taken as stuck. */
#define MEMORY_FAULT_RETRIES	1000

/*
 * KVM_RUN failed with EFAULT and KVM_EXIT_MEMORY_FAULT: the access and
 * the gfn's attribute disagree.  In a KVM_X86_SW_PROTECTED_VM KVM takes
 * an access's private-ness from the attributes when the fault starts and
 * checks it again once it holds the MMU sequence (6.12's
 * kvm_mmu_faultin_pfn()): the two differ only when a conversion by the
 * host came in between.  The guest never asks for one, so there is
 * nothing to convert: entering again retakes the fault with the new
 * attribute.  True if handled; a fault that repeats at one gpa is not a
 * race, and ends the vCPU saying so.
 */
static bool vcpu_memory_fault(struct vcpu *v)
{
	const struct gmem_memory_fault *f = (const void *)&v->run->hw;

	if (errno != EFAULT || v->run->exit_reason != KVM_EXIT_MEMORY_FAULT ||
	    v->vm->p.backing != BACKING_GUEST_MEMFD)
		return false;
	__atomic_add_fetch(&v->memory_faults, 1, __ATOMIC_RELAXED);
	if (f->gpa != v->memory_fault_gpa) {
		v->memory_fault_gpa = f->gpa;
		v->memory_fault_run = 0;
	}
	if (++v->memory_fault_run < MEMORY_FAULT_RETRIES)
		return true;
	snprintf(v->err, sizeof(v->err), "KVM_EXIT_MEMORY_FAULT at gpa "
		 "0x%llx (%llu bytes, %s access) %u times in a row: the "
		 "memory attributes do not settle",
		 (unsigned long long)f->gpa, (unsigned long long)f->size,
		 f->flags & KVM_MEMORY_EXIT_FLAG_PRIVATE ? "private" : "shared",
		 MEMORY_FAULT_RETRIES);
	vcpu_end(v, VCPU_ERROR);
	return true;
}

static void *vcpu_thread(void *arg)
{
	struct vcpu *v = arg;
	sigset_t set;

	cleanup_thread_init();
	sigemptyset(&set);
	sigaddset(&set, KICK_SIGNAL);
	pthread_sigmask(SIG_UNBLOCK, &set, NULL);
	for (;;) {
		if (v->vm->stopping)
			v->run->immediate_exit = 1;
		if (ioctl(v->fd, KVM_RUN, NULL) < 0) {
			if (errno == EINTR || errno == EAGAIN) {
				if (v->vm->stopping) {
					vcpu_end(v, VCPU_KICKED);
					break;
				}
				/* A sync's kick, not a stop: run on. */
				v->run->immediate_exit = 0;
				vcpu_answer_sync(v);
				continue;
			}
			if (vcpu_memory_fault(v)) {
				if (__atomic_load_n(&v->end, __ATOMIC_ACQUIRE))
					break;
				continue;
			}
			snprintf(v->err, sizeof(v->err), "KVM_RUN failed: %s%s",
				 strerror(errno), errno == EFAULT ?
				 " (the host could not fault in guest memory; "
				 "with hugetlb, is the pool large enough?)" : "");
			vcpu_end(v, VCPU_ERROR);
			break;
		}
		v->memory_fault_run = 0;
		vcpu_answer_sync(v);
		if (!vcpu_handle_exit(v))
			break;
	}
	return NULL;
}

int vcpu_start(struct vcpu *v)
{
	const struct vm_params *cfg = &v->vm->p;
	struct sigaction sa = { .sa_handler = kick_handler };
	pthread_attr_t attr;
	cpu_set_t cpus;
	sigset_t set;
	int r;

	/* No SA_RESTART: the kick must make KVM_RUN return EINTR. */
	sigaction(KICK_SIGNAL, &sa, NULL);
	sigemptyset(&set);
	sigaddset(&set, KICK_SIGNAL);
	pthread_sigmask(SIG_BLOCK, &set, NULL);

	pthread_attr_init(&attr);
	if (cfg->pin[v->id] >= 0) {
		CPU_ZERO(&cpus);
		CPU_SET(cfg->pin[v->id], &cpus);
		pthread_attr_setaffinity_np(&attr, sizeof(cpus), &cpus);
	}
	r = pthread_create(&v->thread, &attr, vcpu_thread, v);
	pthread_attr_destroy(&attr);
	if (r)
		die("-c: cannot start vCPU thread %u: %s", v->id, strerror(r));
	v->started = true;
	return 0;
}

void vcpu_kick_all(struct vm *vm)
{
	u32 i;

	vm->stopping = 1;
	/* Under the lock: a vCPU about to park sees stopping or the wakeup. */
	pthread_mutex_lock(&vm->park_lock);
	pthread_cond_broadcast(&vm->park_cond);
	pthread_mutex_unlock(&vm->park_lock);
	for (i = 0; i < vm->p.nr_vcpus; i++) {
		struct vcpu *v = &vm->vcpus[i];

		if (!v->started || __atomic_load_n(&v->end, __ATOMIC_ACQUIRE))
			continue;
		v->run->immediate_exit = 1;
		pthread_kill(v->thread, KICK_SIGNAL);
	}
}

/* A kicked vCPU that has not answered in this long is stuck in KVM. */
#define SYNC_TIMEOUT_MS	60000

void vcpu_sync_all(struct vm *vm)
{
	double t = now_ms();
	u32 i;

	for (i = 0; i < vm->p.nr_vcpus; i++) {
		struct vcpu *v = &vm->vcpus[i];

		if (!v->started || __atomic_load_n(&v->end, __ATOMIC_ACQUIRE))
			continue;
		__atomic_store_n(&v->sync_req, v->sync_req + 1,
				 __ATOMIC_RELEASE);
		/* Either stops it: the signal in guest mode, the flag before. */
		v->run->immediate_exit = 1;
		pthread_kill(v->thread, KICK_SIGNAL);
	}
	for (i = 0; i < vm->p.nr_vcpus; i++) {
		struct vcpu *v = &vm->vcpus[i];

		while (v->started &&
		       !__atomic_load_n(&v->end, __ATOMIC_ACQUIRE) &&
		       __atomic_load_n(&v->sync_ack, __ATOMIC_ACQUIRE) !=
		       v->sync_req &&
		       !__atomic_load_n(&v->parked, __ATOMIC_ACQUIRE)) {
			if (now_ms() - t > SYNC_TIMEOUT_MS)
				die("vCPU %u did not leave guest mode within "
				    "%d s of a kick", i, SYNC_TIMEOUT_MS / 1000);
			sched_yield();
		}
	}
}

void vcpu_join(struct vcpu *v)
{
	if (!v->started)
		return;
	pthread_join(v->thread, NULL);
	v->started = false;
}
