// SPDX-License-Identifier: GPL-2.0
/* KVM_PRE_FAULT_MEMORY (prefault.h). */
#include <errno.h>
#include <sys/ioctl.h>
#include "util/util.h"
#include "kvm/kvm_dev.h"
#include "kvm/prefault.h"

void prefault_preflight(void)
{
	if (kvm_dev() >= 0 && kvm_dev_cap(KVM_CAP_PRE_FAULT_MEMORY) <= 0)
		die("--prefault: this KVM has no KVM_CAP_PRE_FAULT_MEMORY "
		    "(Linux 6.10 and later, x86 with TDP: NPT or EPT; not the "
		    "shadow MMU)");
}

/*
 * The kernel maps what it can and returns with the range advanced: on a
 * signal, or once it mapped part of it.  Go on until it is all mapped.
 */
int prefault_range(int vcpu_fd, u64 gpa, u64 size)
{
	struct kvm_pre_fault_memory r = { .gpa = gpa, .size = size };

	while (r.size) {
		if (ioctl(vcpu_fd, KVM_PRE_FAULT_MEMORY, &r) < 0 &&
		    errno != EINTR && errno != EAGAIN)
			return -1;
	}
	return 0;
}
