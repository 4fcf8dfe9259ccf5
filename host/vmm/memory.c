// SPDX-License-Identifier: GPL-2.0
/*
 * Backing sources for the test memory, named as KVM's selftests name
 * them, and the hugetlb pools they need.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <linux/memfd.h>
#include "kvm/gmem.h"
#include "util/cleanup.h"
#include "util/util.h"
#include "vmm/vmm.h"

#ifndef MAP_HUGE_2MB
#define MAP_HUGE_2MB	(21 << MAP_HUGE_SHIFT)
#define MAP_HUGE_1GB	(30 << MAP_HUGE_SHIFT)
#endif

const char *const backing_names[BACKING_NR] = {
	[BACKING_ANONYMOUS] = "anonymous",
	[BACKING_ANONYMOUS_THP] = "anonymous_thp",
	[BACKING_ANONYMOUS_HUGETLB_2MB] = "anonymous_hugetlb_2mb",
	[BACKING_ANONYMOUS_HUGETLB_1GB] = "anonymous_hugetlb_1gb",
	[BACKING_SHMEM] = "shmem",
	[BACKING_SHARED_HUGETLB] = "shared_hugetlb",
	[BACKING_MEMFD] = "memfd",
	[BACKING_GUEST_MEMFD] = "guest_memfd",
};

/* The pools this run raised: each is put back once, at exit (cleanup.h). */
static bool pool_raised[2];

u64 backing_page_size(enum backing_type t)
{
	switch (t) {
	case BACKING_ANONYMOUS_THP:
	case BACKING_ANONYMOUS_HUGETLB_2MB:
	case BACKING_SHARED_HUGETLB:
		return MMUB_SZ_2M;
	case BACKING_ANONYMOUS_HUGETLB_1GB:
		return MMUB_SZ_1G;
	default:
		return MMUB_SZ_4K;
	}
}

static const char *pool_dir(u64 page)
{
	return page == MMUB_SZ_1G ?
	       "/sys/kernel/mm/hugepages/hugepages-1048576kB" :
	       "/sys/kernel/mm/hugepages/hugepages-2048kB";
}

/*
 * Make sure @size bytes of hugetlb pages are free (raising the pool if
 * @reserve); NULL, or why not, naming the sysctl and the number.
 */
static const char *hugetlb_check(enum backing_type t, u64 size, bool reserve)
{
	u64 page = backing_page_size(t), need = size / page, nr, free_pages;
	u64 surplus;
	bool *raised = &pool_raised[page == MMUB_SZ_1G];
	static char why[320];
	char path[160], nr_path[160], old[32];

	/* Before the pool is read: another run may be raising it. */
	if (reserve)
		cleanup_hold_host("--reserve-hugepages");
	snprintf(path, sizeof(path), "%s/free_hugepages", pool_dir(page));
	if (read_sysfs_u64(path, &free_pages)) {
		snprintf(why, sizeof(why), "-s %s: this kernel has no %s "
			 "hugetlb pool (%s)", backing_names[t],
			 page == MMUB_SZ_1G ? "1G" : "2M", pool_dir(page));
		return why;
	}
	if (free_pages >= need)
		return NULL;
	snprintf(nr_path, sizeof(nr_path), "%s/nr_hugepages", pool_dir(page));
	if (!reserve) {
		snprintf(why, sizeof(why), "-s %s: hugetlb pool too small: "
			 "%llu free, %llu needed; raise %s by %llu or pass "
			 "--reserve-hugepages", backing_names[t],
			 (unsigned long long)free_pages,
			 (unsigned long long)need, nr_path,
			 (unsigned long long)(need - free_pages));
		return why;
	}
	if (read_sysfs_u64(nr_path, &nr)) {
		snprintf(why, sizeof(why), "--reserve-hugepages: cannot read %s",
			 nr_path);
		return why;
	}
	/*
	 * nr_hugepages counts surplus pages too, which go back to the kernel
	 * once freed, and a write of it sets the persistent pool, turning
	 * surplus pages into persistent ones first: raise it from all of
	 * them, put back the persistent ones.  Put back as read, another
	 * process's pages in use became the pool's: a run that died with its
	 * vCPUs running let go of the host's lock before its 8 pages
	 * (surplus once it had put its pool back), and the next run read 8
	 * and left 8 in a pool of 0 (2 of 3 tries, 2026-12-07).
	 */
	snprintf(path, sizeof(path), "%s/surplus_hugepages", pool_dir(page));
	if (read_sysfs_u64(path, &surplus) || surplus > nr)
		surplus = 0;
	snprintf(path, sizeof(path), "%s/free_hugepages", pool_dir(page));
	if (!*raised) {
		snprintf(old, sizeof(old), "%llu\n",
			 (unsigned long long)(nr - surplus));
		cleanup_push(CLEANUP_WRITE, nr_path, old);
		*raised = true;
	}
	/*
	 * Two spare pages: a refault after MADV_DONTNEED can need a new page
	 * while the old one is still on its way back to the pool (measured:
	 * KVM_RUN fails with EFAULT in zap runs with an exact pool).
	 */
	if (write_sysfs_u64(nr_path, nr + need - free_pages + 2) ||
	    read_sysfs_u64(path, &free_pages) || free_pages < need) {
		snprintf(why, sizeof(why), "--reserve-hugepages: could only "
			 "get %llu of %llu free pages in %s (root needed; "
			 "memory may be fragmented)",
			 (unsigned long long)free_pages,
			 (unsigned long long)need, nr_path);
		return why;
	}
	return NULL;
}

static const char *thp_check(void)
{
	char buf[128] = "";
	int fd = open("/sys/kernel/mm/transparent_hugepage/enabled", O_RDONLY);

	if (fd < 0)
		return "-s anonymous_thp: this kernel has no THP "
		       "(CONFIG_TRANSPARENT_HUGEPAGE)";
	if (read(fd, buf, sizeof(buf) - 1) < 0)
		buf[0] = 0;
	close(fd);
	if (strstr(buf, "[never]"))
		return "-s anonymous_thp: THP is disabled; echo madvise > "
		       "/sys/kernel/mm/transparent_hugepage/enabled";
	return NULL;
}

static int map_anon(struct backing *b, int flags, u64 align)
{
	b->map_len = b->size + (align > MMUB_SZ_4K ? align : 0);
	b->map = mmap(NULL, b->map_len, PROT_READ | PROT_WRITE,
		      MAP_ANONYMOUS | MAP_NORESERVE | flags, -1, 0);
	if (b->map == MAP_FAILED)
		return -1;
	b->hva = (u8 *)mmub_align_up((u64)b->map, mmub_max(align, MMUB_SZ_4K));
	return 0;
}

static int map_fd(struct backing *b, unsigned int memfd_flags)
{
	b->fd = memfd_create("mmubench", MFD_CLOEXEC | memfd_flags);
	if (b->fd < 0 || ftruncate(b->fd, (off_t)b->size))
		return -1;
	b->map_len = b->size;
	b->map = mmap(NULL, b->size, PROT_READ | PROT_WRITE, MAP_SHARED,
		      b->fd, 0);
	if (b->map == MAP_FAILED)
		return -1;
	b->hva = b->map;
	return 0;
}

bool backing_is_hugetlb(enum backing_type t)
{
	return t == BACKING_ANONYMOUS_HUGETLB_2MB ||
	       t == BACKING_ANONYMOUS_HUGETLB_1GB || t == BACKING_SHARED_HUGETLB;
}

bool backing_is_file(enum backing_type t)
{
	return t == BACKING_SHMEM || t == BACKING_SHARED_HUGETLB ||
	       t == BACKING_MEMFD;
}

/*
 * What the backing needs from the kernel, checked before any VM exists:
 * THP enabled, or enough free hugetlb pages (raised if @reserve).
 */
const char *backing_unavailable(enum backing_type t, u64 size, bool reserve)
{
	if (t == BACKING_ANONYMOUS_THP)
		return thp_check();
	if (t == BACKING_GUEST_MEMFD)
		return gmem_unavailable();
	if (backing_is_hugetlb(t))
		return hugetlb_check(t, size, reserve);
	return NULL;
}

void backing_preflight(enum backing_type t, u64 size, bool reserve)
{
	const char *why = backing_unavailable(t, size, reserve);

	if (why)
		die("%s", why);
}

int backing_create(struct backing *b, enum backing_type t, u64 size)
{
	int r;

	memset(b, 0, sizeof(*b));
	b->type = t;
	b->size = size;
	b->page = backing_page_size(t);
	b->fd = -1;
	b->gmem_fd = -1;
	b->map = MAP_FAILED;
	switch (t) {
	case BACKING_ANONYMOUS:
	/*
	 * guest_memfd's shared side: the guest_memfd itself needs the VM
	 * (vm.c makes it with the memslots).
	 */
	case BACKING_GUEST_MEMFD:
		r = map_anon(b, MAP_PRIVATE, MMUB_SZ_4K);
		/* 4K means 4K, also where THP is "always" (as the selftests). */
		if (!r && madvise(b->hva, size, MADV_NOHUGEPAGE) && errno != EINVAL)
			r = -1;
		break;
	case BACKING_ANONYMOUS_THP:
		r = map_anon(b, MAP_PRIVATE, MMUB_SZ_2M);
		if (!r && madvise(b->hva, size, MADV_HUGEPAGE))
			r = -1;
		break;
	case BACKING_ANONYMOUS_HUGETLB_2MB:
		r = map_anon(b, MAP_PRIVATE | MAP_HUGETLB | MAP_HUGE_2MB, 0);
		break;
	case BACKING_ANONYMOUS_HUGETLB_1GB:
		r = map_anon(b, MAP_PRIVATE | MAP_HUGETLB | MAP_HUGE_1GB, 0);
		break;
	case BACKING_SHMEM:
		/*
		 * Shared anonymous memory is a shmem file too; made through
		 * memfd it has a descriptor, which a second mapping (the
		 * page cache that userfaultfd's MINOR faults map) needs.
		 */
		r = map_fd(b, 0);
		break;
	case BACKING_SHARED_HUGETLB:
		r = map_fd(b, MFD_HUGETLB | MFD_HUGE_2MB);
		break;
	case BACKING_MEMFD:
		r = map_fd(b, 0);
		break;
	default:
		errno = EINVAL;
		r = -1;
	}
	return r;
}

/*
 * Fault every host page in before timing, so that first-touch figures
 * measure KVM and not the host's own page allocation (which is slow on
 * hosts whose memory was given back to an outer hypervisor).
 */
void backing_populate(struct backing *b)
{
	u64 off;

	/*
	 * Private memory is the guest_memfd's: allocate its pages there (the
	 * host cannot touch them; guest_memfd takes FALLOC_FL_KEEP_SIZE
	 * only); the shared side fills when converted.
	 */
	if (b->gmem_fd >= 0) {
		if (fallocate(b->gmem_fd, FALLOC_FL_KEEP_SIZE, 0,
			      (off_t)b->size))
			die("-s guest_memfd: fallocate of %llu bytes: %s",
			    (unsigned long long)b->size, strerror(errno));
		return;
	}
	for (off = 0; off < b->size; off += MMUB_SZ_4K)
		((volatile u8 *)b->hva)[off] = 0;
}

int backing_drop_mappings(struct backing *b)
{
	if (mprotect(b->hva, b->size, PROT_READ) ||
	    mprotect(b->hva, b->size, PROT_READ | PROT_WRITE))
		return -1;
	return 0;
}

void backing_destroy(struct backing *b)
{
	if (b->map && b->map != MAP_FAILED)
		munmap(b->map, b->map_len);
	if (b->fd >= 0)
		close(b->fd);
	if (b->gmem_fd >= 0)
		close(b->gmem_fd);
	b->map = MAP_FAILED;
	b->fd = -1;
	b->gmem_fd = -1;
}
