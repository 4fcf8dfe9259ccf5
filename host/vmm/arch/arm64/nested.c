// SPDX-License-Identifier: GPL-2.0
/* --nested-guest on arm64: not built (the L2 runner is x86's SVM). */
#include <stdio.h>
#include "vmm/vmm.h"

bool arch_supports_nested(int kvm_fd, u64 l2_page, char *why, size_t len)
{
	(void)kvm_fd;
	(void)l2_page;
	snprintf(why, len, "x86_64 only: the guest's L2 runner uses AMD SVM "
		 "(KVM/arm64 of 6.1 and 6.12 gives its guests no EL2)");
	return false;
}
