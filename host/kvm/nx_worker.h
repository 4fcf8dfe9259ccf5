/* SPDX-License-Identifier: GPL-2.0 */
/*
 * KVM's NX huge page recovery worker ("kvm-nx-lpage-recovery", comm
 * truncated to "kvm-nx-lpage-re") and the CPU time it has used, as the
 * seed 002 cover letter measured it: se.sum_exec_runtime, the first field
 * of /proc/<pid>/schedstat.  Up to 6.12 the worker is a kernel thread
 * (one per VM, in /proc but not in our process); later kernels make it a
 * task of the VMM process.  One VM per process at a time is assumed.
 */
#ifndef HOST_KVM_NX_WORKER_H
#define HOST_KVM_NX_WORKER_H

#include <stddef.h>
#include <sys/types.h>
#include <mmubench/types.h>

#define NX_WORKER_KNOWN	64

struct nx_worker {
	pid_t known[NX_WORKER_KNOWN];	/* workers of other VMs */
	u32 nr_known;
	char path[64];			/* schedstat of ours, once found */
};

/* Before KVM_CREATE_VM: note the workers that are not ours. */
void nx_worker_init(struct nx_worker *w);
/* After the vCPUs ran: find ours; -1 and why if none or several. */
int nx_worker_find(struct nx_worker *w, char *why, size_t len);
/* Its sum_exec_runtime in ns; -1 and why if it cannot be read. */
int nx_worker_runtime(const struct nx_worker *w, u64 *ns, char *why,
		      size_t len);

#endif
