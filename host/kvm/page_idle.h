/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Idle page tracking (Documentation/admin-guide/mm/idle_page_tracking):
 * /sys/kernel/mm/page_idle/bitmap has a bit per physical frame.  Setting
 * it clears the accessed bits of every mapping of the frame, a KVM
 * stage-2 one through the MMU notifier's clear_young; reading it asks
 * them again, so a frame touched since reads as not idle (young).
 * The bitmap is by frame: the virtual pages are translated through
 * /proc/self/pagemap, which gives frame numbers to root only.
 */
#ifndef HOST_KVM_PAGE_IDLE_H
#define HOST_KVM_PAGE_IDLE_H

#include <stddef.h>
#include <mmubench/types.h>

#define PAGE_IDLE_BITMAP	"/sys/kernel/mm/page_idle/bitmap"

/* 0 if the bitmap can be written and frames read; else -1 and why. */
int page_idle_status(char *why, size_t len);

/* The frames of a range of 4K pages, grouped by the bitmap's words. */
struct page_idle {
	int bitmap_fd;
	const void *addr;	/* the first page */
	u64 nr_pages;
	u64 *pfn;		/* per page; 0: not present */
	u64 no_pfn;		/* pages without a frame */
	u64 *words;		/* the bitmap words the frames fall in, sorted */
	u64 nr_words;
	u64 *word_of;		/* per page: its index in words (if a frame) */
	u64 *bits;		/* per word: the bits of our frames */
};

/* Translate @nr_pages 4K pages at @addr; 0, or -1 after saying why. */
int page_idle_open(struct page_idle *pi, const void *addr, u64 nr_pages);
/* Mark every page idle: one write per bitmap word.  0, or -1 (errno). */
int page_idle_mark(struct page_idle *pi);
/*
 * Read the bits back: in @young (a bit per page, cleared here) the pages
 * found young, i.e. accessed since they were marked; in @cut those in
 * the bitmap's last word, which max_pfn cuts short: the kernel walks
 * their frames (clearing their accessed bits) but reads and writes
 * whole words only, and returns a cut one as 0 bytes.  0, or -1 (errno).
 */
int page_idle_read(struct page_idle *pi, u64 *young, u64 *cut);
/*
 * The pages whose frame is no longer the one page_idle_open() found
 * (compaction, khugepaged, NUMA balancing, swap): their bits were
 * another frame's.  Their count, the first in @first and its frame now
 * in @now (0: none); or -1 after saying why.
 */
s64 page_idle_moved(const struct page_idle *pi, u64 *first, u64 *now);
void page_idle_close(struct page_idle *pi);

#endif
