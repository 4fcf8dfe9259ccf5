/* SPDX-License-Identifier: GPL-2.0 */
/*
 * userfaultfd: memory that arrives after the guest asked for it.  A range
 * registered here faults to its handler instead of being filled by the
 * kernel: MISSING where no page exists yet (anonymous and hugetlb, the
 * restore of a snapshot or post-copy migration), MINOR where the page is
 * in the page cache but not yet mapped (shmem and hugetlbfs, memory
 * another process or an alias mapping filled).  KVM's own faults on guest
 * memory go through it as a vCPU's would.
 */
#ifndef HOST_KVM_UFFD_H
#define HOST_KVM_UFFD_H

#include <stdbool.h>
#include <mmubench/types.h>

enum uffd_mode {
	UFFD_MISSING,
	UFFD_MINOR,
};

/*
 * Why this kernel cannot serve @mode on a hugetlb (@hugetlb) or shmem
 * backing, as one line naming the feature; NULL if it can.  Asked before
 * any VM exists.
 */
const char *uffd_unavailable(enum uffd_mode mode, bool hugetlb);

/* A new userfaultfd ready for @mode's ioctls; -1 and errno. */
int uffd_open(enum uffd_mode mode, bool hugetlb);

/* [@start, @start + @len) faults to @fd in @mode; 0, or -1 and errno. */
int uffd_register(int fd, void *start, u64 len, enum uffd_mode mode);
int uffd_unregister(int fd, void *start, u64 len);

/*
 * Resolve a fault: MISSING copies @len bytes of @src to @dst, MINOR maps
 * what the page cache holds at @dst.  0; 1 if another handler resolved
 * it first (EEXIST); -1 and errno.
 */
int uffd_copy(int fd, u64 dst, const void *src, u64 len);
int uffd_continue(int fd, u64 dst, u64 len);

struct uffd_msg;

/*
 * The next page fault on @fd into @m, waiting until one comes or @stop
 * (an eventfd) is readable: 1 for a fault, 0 for stop, -1 and errno.
 * Several threads may wait on one @fd: a fault another one read first
 * is waited past, as is any event that is not a page fault.
 */
int uffd_next_fault(int fd, int stop, struct uffd_msg *m);

#endif
