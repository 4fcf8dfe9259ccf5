/* SPDX-License-Identifier: GPL-2.0 */
/*
 * KVM_PRE_FAULT_MEMORY: the second stage built through a vCPU before any
 * vCPU runs, as a VM launched with its memory ready is (Linux 6.10; x86,
 * and only where KVM runs on TDP: the capability is 0 with the shadow
 * MMU).
 */
#ifndef HOST_KVM_PREFAULT_H
#define HOST_KVM_PREFAULT_H

#include <linux/kvm.h>
#include <mmubench/types.h>

/* Linux 6.10; the C libraries here carry 6.1's headers. */
#ifndef KVM_CAP_PRE_FAULT_MEMORY
#define KVM_CAP_PRE_FAULT_MEMORY	236
struct kvm_pre_fault_memory {
	__u64 gpa;
	__u64 size;
	__u64 flags;
	__u64 padding[5];
};
#define KVM_PRE_FAULT_MEMORY	_IOWR(KVMIO, 0xd5, struct kvm_pre_fault_memory)
#endif

/* Before any VM: dies with one line if this KVM cannot pre-fault. */
void prefault_preflight(void);

/* [@gpa, @gpa + @size) mapped through vCPU @vcpu_fd; 0, or -1 and errno. */
int prefault_range(int vcpu_fd, u64 gpa, u64 size);

#endif
