/* SPDX-License-Identifier: GPL-2.0 */
/*
 * guest_memfd: guest memory that the host does not map (Linux 6.8).  A
 * KVM_X86_SW_PROTECTED_VM has such private memory without SEV or TDX:
 * each memslot has a shared side (its userspace_addr, ordinary memory)
 * and a private side (a range of a guest_memfd file), and the memory
 * attributes (KVM_SET_MEMORY_ATTRIBUTES) say which one each gfn maps.
 * In 6.12 the private side cannot be mmap'ed: the host never reads it.
 * x86_64 only, and only with the TDP MMU: KVM offers the VM type only
 * where tdp_mmu_enabled.
 */
#ifndef HOST_KVM_GMEM_H
#define HOST_KVM_GMEM_H

#include <linux/kvm.h>
#include <mmubench/types.h>

/* Linux 6.8; the C libraries here carry 6.1's headers. */
#ifndef KVM_CAP_GUEST_MEMFD
#define KVM_CAP_MEMORY_ATTRIBUTES	233
#define KVM_CAP_GUEST_MEMFD		234
#define KVM_CAP_VM_TYPES		235
#define KVM_MEM_GUEST_MEMFD		(1UL << 2)
#define KVM_EXIT_MEMORY_FAULT		39
#define KVM_MEMORY_EXIT_FLAG_PRIVATE	(1ULL << 3)
#define KVM_MEMORY_ATTRIBUTE_PRIVATE	(1ULL << 3)

struct kvm_userspace_memory_region2 {
	__u32 slot;
	__u32 flags;
	__u64 guest_phys_addr;
	__u64 memory_size;
	__u64 userspace_addr;
	__u64 guest_memfd_offset;
	__u32 guest_memfd;
	__u32 pad1;
	__u64 pad2[14];
};

struct kvm_memory_attributes {
	__u64 address;
	__u64 size;
	__u64 attributes;
	__u64 flags;
};

struct kvm_create_guest_memfd {
	__u64 size;
	__u64 flags;
	__u64 reserved[6];
};

#define KVM_SET_USER_MEMORY_REGION2	_IOW(KVMIO, 0x49, \
					     struct kvm_userspace_memory_region2)
#define KVM_SET_MEMORY_ATTRIBUTES	_IOW(KVMIO, 0xd2, \
					     struct kvm_memory_attributes)
#define KVM_CREATE_GUEST_MEMFD		_IOWR(KVMIO, 0xd4, \
					      struct kvm_create_guest_memfd)
#endif

#ifndef KVM_X86_SW_PROTECTED_VM
#define KVM_X86_SW_PROTECTED_VM		1
#endif

/*
 * The kvm_run member of KVM_EXIT_MEMORY_FAULT, which 6.1's struct
 * kvm_run does not name: at the start of its union, after the exit's
 * common header (the same offset as every other exit's data).
 */
struct gmem_memory_fault {
	__u64 flags;
	__u64 gpa;
	__u64 size;
};

/*
 * Why this KVM cannot run -s guest_memfd, in one line, or NULL: asked of
 * /dev/kvm before any VM (without /dev/kvm it passes: kvm_dev.h).
 */
const char *gmem_unavailable(void);

/* A guest_memfd of @size bytes for VM @vm_fd; the fd, or -1 and errno. */
int gmem_create(int vm_fd, u64 size);

/*
 * Memslot @slot at @gpa: its shared side at @hva, its private side at
 * @offset of guest_memfd @gmem_fd.  0, or -1 and errno.
 */
int gmem_set_slot(int vm_fd, u32 slot, u64 gpa, u64 size, void *hva,
		  int gmem_fd, u64 offset);

/* [@gpa, @gpa + @size) made private or shared; 0, or -1 and errno. */
int gmem_set_private(int vm_fd, u64 gpa, u64 size, bool private);

/*
 * Give the pages of [@offset, @offset + @size) of the guest_memfd back
 * (FALLOC_FL_PUNCH_HOLE): what a VMM does to the side it leaves.
 */
int gmem_discard(int gmem_fd, u64 offset, u64 size);

#endif
