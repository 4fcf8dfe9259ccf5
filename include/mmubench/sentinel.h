/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Sentinels: strides written exactly once per epoch window, so that the
 * dirty-log oracle can see a lost report that the working set hides.
 *
 * The vCPUs rewrite their working set continuously: when a kernel loses
 * the report of one write but logs the page's next write, the page reads
 * fresh at the check and the next harvest reports it, and nothing looks
 * wrong, although a page written only once in that window would have
 * lost its write.  So with MMUB_WL_SENTINEL each vCPU sets aside one
 * chunk of its selected strides per epoch E: it writes them once when it
 * adopts E, before it publishes epoch_seen = E, and skips them while E
 * lasts, as it skips the chunks of the next windows already.  The
 * harvest the host starts once every vCPU has seen E must report each of
 * them.  The chunk moves with E, so over MMUB_SENTINEL_CHUNKS windows
 * every selected stride is a sentinel once.
 *
 * Shared by the guest's engine, which writes them, and the host's
 * oracle, which checks them: both compute the same chunk.
 */
#ifndef MMUBENCH_SENTINEL_H
#define MMUBENCH_SENTINEL_H

#include <mmubench/types.h>

#define MMUB_SENTINEL_CHUNKS	8
/*
 * The loop also leaves alone the chunks of the next windows: a page is
 * then not written from the window before last until its own, so that a
 * pre-copy migration has sent its last content before it is written once
 * (host/scenarios/migrate/source.c); a lost report of that write leaves
 * the destination stale.
 */
#define MMUB_SENTINEL_AHEAD	2

struct mmub_sentinels {
	u64 first;	/* index of the first selected stride */
	u64 n;		/* how many, from there */
};

/* Epoch @epoch's sentinels among a vCPU's @nr_selected strides. */
static inline struct mmub_sentinels mmub_sentinels_of(u64 nr_selected,
						      u64 epoch)
{
	u64 k = nr_selected / MMUB_SENTINEL_CHUNKS, chunks, c;
	struct mmub_sentinels s;

	if (!k)
		k = 1;
	chunks = nr_selected / k;
	if (!chunks)
		return (struct mmub_sentinels){ 0, 0 };
	c = epoch % chunks;
	s.first = c * k;
	/* The last chunk takes the remainder: every stride gets a turn. */
	s.n = c == chunks - 1 ? nr_selected - s.first : k;
	return s;
}

#endif
