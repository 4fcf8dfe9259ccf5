// SPDX-License-Identifier: GPL-2.0
/* The page_idle bitmap of a range of pages; see kvm/page_idle.h. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "util/util.h"
#include "util/bitmap.h"
#include "kvm/page_idle.h"

#define PAGEMAP_PRESENT		(1ULL << 63)
#define PAGEMAP_PFN_MASK	((1ULL << 55) - 1)

int page_idle_status(char *why, size_t len)
{
	int fd = open(PAGE_IDLE_BITMAP, O_RDWR | O_CLOEXEC);

	if (fd < 0) {
		snprintf(why, len, "%s: %s (%s)", PAGE_IDLE_BITMAP,
			 strerror(errno), errno == ENOENT ?
			 "the kernel has no CONFIG_IDLE_PAGE_TRACKING" :
			 "it needs root");
		return -1;
	}
	close(fd);
	/* pagemap hides frame numbers from all but CAP_SYS_ADMIN. */
	if (geteuid()) {
		snprintf(why, len, "/proc/self/pagemap gives frame numbers to "
			 "root only");
		return -1;
	}
	return 0;
}

/*
 * The distinct bitmap words of the frames, so that each is done once;
 * each page's word, and each word's bits that are ours: a write sets
 * only the bits given (the kernel skips zeros), so frames of other
 * processes in the same word are left alone.  Made once, here, not in
 * the timed marks and reads.
 */
static int collect_words(struct page_idle *pi)
{
	u64 n = 0, size = pi->nr_pages ? pi->nr_pages : 1;

	pi->words = calloc(size, sizeof(u64));
	pi->word_of = calloc(size, sizeof(u64));
	pi->bits = calloc(size, sizeof(u64));
	if (!pi->words || !pi->word_of || !pi->bits)
		return -1;
	for (u64 i = 0; i < pi->nr_pages; i++)
		if (pi->pfn[i])
			pi->words[n++] = pi->pfn[i] / 64;
	qsort(pi->words, n, sizeof(u64), cmp_u64);
	pi->nr_words = 0;
	for (u64 i = 0; i < n; i++)
		if (!pi->nr_words || pi->words[pi->nr_words - 1] != pi->words[i])
			pi->words[pi->nr_words++] = pi->words[i];
	for (u64 i = 0; i < pi->nr_pages; i++) {
		u64 w = pi->pfn[i] / 64;
		const u64 *at;

		if (!pi->pfn[i])
			continue;
		at = bsearch(&w, pi->words, pi->nr_words, sizeof(u64), cmp_u64);
		pi->word_of[i] = (u64)(at - pi->words);
		pi->bits[pi->word_of[i]] |= 1ULL << (pi->pfn[i] % 64);
	}
	return 0;
}

/*
 * The frames of @nr_pages 4K pages at @addr (0: none) into @pfn; 0, or
 * -1 (errno; EIO for a short read, which sets none).
 */
static int read_frames(const void *addr, u64 nr_pages, u64 *pfn)
{
	int fd = open("/proc/self/pagemap", O_RDONLY | O_CLOEXEC), err;
	off_t off = (off_t)((uintptr_t)addr / MMUB_SZ_4K * 8);
	ssize_t n = fd < 0 ? -1 : pread(fd, pfn, nr_pages * 8, off);

	err = n < 0 ? errno : EIO;
	if (fd >= 0)
		close(fd);
	if (n != (ssize_t)(nr_pages * 8)) {
		errno = err;
		return -1;
	}
	for (u64 i = 0; i < nr_pages; i++)
		pfn[i] = pfn[i] & PAGEMAP_PRESENT ? pfn[i] & PAGEMAP_PFN_MASK : 0;
	return 0;
}

int page_idle_open(struct page_idle *pi, const void *addr, u64 nr_pages)
{
	*pi = (struct page_idle){ .bitmap_fd = -1, .addr = addr,
				  .nr_pages = nr_pages };
	pi->pfn = calloc(nr_pages ? nr_pages : 1, sizeof(u64));
	if (!pi->pfn || read_frames(addr, nr_pages, pi->pfn)) {
		err_msg("/proc/self/pagemap: %s", strerror(errno));
		goto fail;
	}
	for (u64 i = 0; i < nr_pages; i++)
		pi->no_pfn += !pi->pfn[i];
	pi->bitmap_fd = open(PAGE_IDLE_BITMAP, O_RDWR | O_CLOEXEC);
	if (pi->bitmap_fd < 0) {
		err_msg("%s: %s", PAGE_IDLE_BITMAP, strerror(errno));
		goto fail;
	}
	if (collect_words(pi)) {
		err_msg("page_idle: %s", strerror(ENOMEM));
		goto fail;
	}
	return 0;
fail:
	page_idle_close(pi);
	return -1;
}

s64 page_idle_moved(const struct page_idle *pi, u64 *first, u64 *now)
{
	u64 *pfn = calloc(pi->nr_pages ? pi->nr_pages : 1, sizeof(u64));
	s64 moved = 0;

	if (!pfn || read_frames(pi->addr, pi->nr_pages, pfn)) {
		err_msg("/proc/self/pagemap: %s", pfn ? strerror(errno) :
			strerror(ENOMEM));
		free(pfn);
		return -1;
	}
	for (u64 i = 0; i < pi->nr_pages; i++) {
		if (pfn[i] == pi->pfn[i])
			continue;
		if (!moved++) {
			*first = i;
			*now = pfn[i];
		}
	}
	free(pfn);
	return moved;
}

int page_idle_mark(struct page_idle *pi)
{
	int ret = 0;

	for (u64 i = 0; !ret && i < pi->nr_words; i++) {
		ssize_t n = pwrite(pi->bitmap_fd, &pi->bits[i], 8,
				   (off_t)(pi->words[i] * 8));

		/*
		 * 0: the last word, cut by max_pfn (not a multiple of 64):
		 * the kernel marked its frames but counts no whole word.
		 */
		if (n != 8 && n != 0)
			ret = -1;
	}
	return ret;
}

int page_idle_read(struct page_idle *pi, u64 *young, u64 *cut_pages)
{
	u64 *idle = calloc(pi->nr_words ? pi->nr_words : 1, sizeof(u64));
	bool *cut = calloc(pi->nr_words ? pi->nr_words : 1, sizeof(bool));
	int ret = idle && cut ? 0 : -1;

	memset(young, 0, (pi->nr_pages / 64 + 1) * 8);
	memset(cut_pages, 0, (pi->nr_pages / 64 + 1) * 8);
	for (u64 i = 0; !ret && i < pi->nr_words; i++) {
		ssize_t n = pread(pi->bitmap_fd, &idle[i], 8,
				  (off_t)(pi->words[i] * 8));

		/* The last word, cut by max_pfn, reads as nothing. */
		cut[i] = n == 0;
		if (n != 8 && n != 0)
			ret = -1;
	}
	for (u64 i = 0; !ret && i < pi->nr_pages; i++) {
		u64 w = pi->word_of[i];

		if (!pi->pfn[i])
			continue;
		if (cut[w])
			bitmap_assign(cut_pages, i, true);
		else if (!(idle[w] & (1ULL << (pi->pfn[i] % 64))))
			bitmap_assign(young, i, true);
	}
	free(idle);
	free(cut);
	return ret;
}

void page_idle_close(struct page_idle *pi)
{
	if (pi->bitmap_fd >= 0)
		close(pi->bitmap_fd);
	free(pi->pfn);
	free(pi->words);
	free(pi->word_of);
	free(pi->bits);
	*pi = (struct page_idle){ .bitmap_fd = -1 };
}
