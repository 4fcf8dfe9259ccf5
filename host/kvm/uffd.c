// SPDX-License-Identifier: GPL-2.0
/* userfaultfd (uffd.h). */
#include <errno.h>
#include <stdint.h>
#include <fcntl.h>
#include <poll.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <linux/userfaultfd.h>
#include "kvm/uffd.h"

static u64 features_of(enum uffd_mode mode, bool hugetlb)
{
	if (mode == UFFD_MISSING)
		return 0;
	return hugetlb ? UFFD_FEATURE_MINOR_HUGETLBFS : UFFD_FEATURE_MINOR_SHMEM;
}

int uffd_open(enum uffd_mode mode, bool hugetlb)
{
	struct uffdio_api api = {
		.api = UFFD_API,
		.features = features_of(mode, hugetlb),
	};
	/*
	 * Not UFFD_USER_MODE_ONLY: the faults that matter are KVM's, taken
	 * in the kernel on the vCPU's behalf.
	 */
	int fd = (int)syscall(__NR_userfaultfd, O_CLOEXEC | O_NONBLOCK);

	if (fd < 0)
		return -1;
	if (ioctl(fd, UFFDIO_API, &api) < 0) {
		close(fd);
		return -1;
	}
	return fd;
}

const char *uffd_unavailable(enum uffd_mode mode, bool hugetlb)
{
	int fd = uffd_open(mode, hugetlb);

	if (fd >= 0) {
		close(fd);
		return NULL;
	}
	if (errno == ENOSYS)
		return "this kernel has no userfaultfd (CONFIG_USERFAULTFD)";
	if (errno == EPERM)
		return "userfaultfd refused: run as root, or set "
		       "vm.unprivileged_userfaultfd=1";
	if (mode == UFFD_MINOR)
		return hugetlb ? "this kernel's userfaultfd has no "
				 "UFFD_FEATURE_MINOR_HUGETLBFS (Linux 5.13)" :
				 "this kernel's userfaultfd has no "
				 "UFFD_FEATURE_MINOR_SHMEM (Linux 5.14)";
	return "userfaultfd: UFFDIO_API failed";
}

int uffd_register(int fd, void *start, u64 len, enum uffd_mode mode)
{
	struct uffdio_register r = {
		.range = { .start = (u64)(uintptr_t)start, .len = len },
		.mode = mode == UFFD_MINOR ? UFFDIO_REGISTER_MODE_MINOR :
					     UFFDIO_REGISTER_MODE_MISSING,
	};
	u64 need = mode == UFFD_MINOR ? 1ULL << _UFFDIO_CONTINUE :
					1ULL << _UFFDIO_COPY;

	if (ioctl(fd, UFFDIO_REGISTER, &r) < 0)
		return -1;
	if (!(r.ioctls & need)) {
		uffd_unregister(fd, start, len);
		errno = EOPNOTSUPP;
		return -1;
	}
	return 0;
}

int uffd_unregister(int fd, void *start, u64 len)
{
	struct uffdio_range r = { .start = (u64)(uintptr_t)start, .len = len };

	return ioctl(fd, UFFDIO_UNREGISTER, &r);
}

/* An ioctl that another handler may have beaten to the page. */
static int resolved(int r)
{
	if (r == 0)
		return 0;
	return errno == EEXIST ? 1 : -1;
}

int uffd_copy(int fd, u64 dst, const void *src, u64 len)
{
	struct uffdio_copy c = {
		.dst = dst, .src = (u64)(uintptr_t)src, .len = len,
	};

	return resolved(ioctl(fd, UFFDIO_COPY, &c));
}

int uffd_continue(int fd, u64 dst, u64 len)
{
	struct uffdio_continue c = { .range = { .start = dst, .len = len } };

	return resolved(ioctl(fd, UFFDIO_CONTINUE, &c));
}

int uffd_next_fault(int fd, int stop, struct uffd_msg *m)
{
	struct pollfd pfd[2] = {
		{ .fd = fd, .events = POLLIN },
		{ .fd = stop, .events = POLLIN },
	};

	for (;;) {
		if (poll(pfd, 2, -1) < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		if (pfd[1].revents)
			return 0;
		if (!(pfd[0].revents & POLLIN))
			continue;
		/* O_NONBLOCK: another reader may have taken it. */
		if (read(fd, m, sizeof(*m)) != sizeof(*m)) {
			if (errno == EAGAIN || errno == EINTR)
				continue;
			return -1;
		}
		if (m->event == UFFD_EVENT_PAGEFAULT)
			return 1;
	}
}
