// SPDX-License-Identifier: GPL-2.0
/* guest_memfd and memory attributes (gmem.h). */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <sys/ioctl.h>
#include "util/util.h"
#include "kvm/kvm_dev.h"
#include "kvm/gmem.h"

/* What provides the VM type: said by every message below. */
#define GMEM_NEEDS	"Linux 6.8 and later, x86_64, " \
			"CONFIG_KVM_SW_PROTECTED_VM=y, the TDP MMU: EPT or NPT"

#ifndef __x86_64__
const char *gmem_unavailable(void)
{
	return "-s guest_memfd: x86_64 only (KVM_X86_SW_PROTECTED_VM); arm64 "
	       "KVM has no VM type with guest_memfd in Linux 6.12";
}
#else
const char *gmem_unavailable(void)
{
	long types, attrs;

	if (kvm_dev() < 0)
		return NULL;
	types = kvm_dev_cap(KVM_CAP_VM_TYPES);
	if (types <= 0 || !(types & (1L << KVM_X86_SW_PROTECTED_VM)))
		return "-s guest_memfd: this KVM has no KVM_X86_SW_PROTECTED_VM "
		       "in KVM_CAP_VM_TYPES (" GMEM_NEEDS ")";
	if (kvm_dev_cap(KVM_CAP_GUEST_MEMFD) <= 0)
		return "-s guest_memfd: this KVM has no KVM_CAP_GUEST_MEMFD ("
		       GMEM_NEEDS ")";
	attrs = kvm_dev_cap(KVM_CAP_MEMORY_ATTRIBUTES);
	if (attrs <= 0 || !(attrs & KVM_MEMORY_ATTRIBUTE_PRIVATE))
		return "-s guest_memfd: this KVM has no private attribute in "
		       "KVM_CAP_MEMORY_ATTRIBUTES (" GMEM_NEEDS ")";
	return NULL;
}
#endif

int gmem_create(int vm_fd, u64 size)
{
	struct kvm_create_guest_memfd g = { .size = size };

	return ioctl(vm_fd, KVM_CREATE_GUEST_MEMFD, &g);
}

int gmem_set_slot(int vm_fd, u32 slot, u64 gpa, u64 size, void *hva,
		  int gmem_fd, u64 offset)
{
	struct kvm_userspace_memory_region2 r = {
		.slot = slot,
		.flags = KVM_MEM_GUEST_MEMFD,
		.guest_phys_addr = gpa,
		.memory_size = size,
		.userspace_addr = (u64)hva,
		.guest_memfd_offset = offset,
		.guest_memfd = (u32)gmem_fd,
	};

	return ioctl(vm_fd, KVM_SET_USER_MEMORY_REGION2, &r);
}

int gmem_set_private(int vm_fd, u64 gpa, u64 size, bool private)
{
	struct kvm_memory_attributes a = {
		.address = gpa,
		.size = size,
		.attributes = private ? KVM_MEMORY_ATTRIBUTE_PRIVATE : 0,
	};

	return ioctl(vm_fd, KVM_SET_MEMORY_ATTRIBUTES, &a);
}

int gmem_discard(int gmem_fd, u64 offset, u64 size)
{
	return fallocate(gmem_fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE,
			 (off_t)offset, (off_t)size);
}
