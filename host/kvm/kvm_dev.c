// SPDX-License-Identifier: GPL-2.0
/* /dev/kvm before any VM (kvm_dev.h). */
#include <fcntl.h>
#include <sys/ioctl.h>
#include <linux/kvm.h>
#include "kvm/kvm_dev.h"

int kvm_dev(void)
{
	static int fd = -2;

	/* Kept open: the checks of one run ask several questions. */
	if (fd == -2)
		fd = open("/dev/kvm", O_RDWR | O_CLOEXEC);
	return fd;
}

long kvm_dev_cap(long cap)
{
	int fd = kvm_dev();

	return fd < 0 ? -1 : ioctl(fd, KVM_CHECK_EXTENSION, cap);
}
