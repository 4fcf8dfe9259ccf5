// SPDX-License-Identifier: GPL-2.0
/*
 * The source of a pre-copy migration, as QEMU's RAM migration does it:
 *
 *  round 1   with --mode clear-init-set, what the first harvest reports
 *            (the seed's point: the arm64 series reports only mapped
 *            pages); in the other modes every page, as QEMU's own
 *            bitmap starts full.  Every page sent is zero-checked first,
 *            and a zero page goes as a marker.
 *  round 2+  what each harvest reports, at --bandwidth.
 *  stop      when the pending pages would take less than --downtime-ms
 *            at the rate, or after --max-rounds: the vCPUs pause, the
 *            last harvest is sent, and the time until the destination
 *            has it all is the downtime.
 *  check     the destination's hash of every page against the source's;
 *            a mismatch names slot, gfn and the round that last sent it.
 *
 * With --postcopy N: N rounds (0 allowed) whatever the rate, then the
 * vCPUs stop, the last harvest names what the destination lacks, the
 * destination's hashes check the rest, and postcopy.c runs the vCPUs
 * on while the lacking pages arrive.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "util/util.h"
#include "util/bitmap.h"
#include "util/progress.h"
#include "framework/epoch.h"
#include "scenarios/migrate/source.h"

static int send_msg(struct mig *m, u32 type, u32 arg, u64 page)
{
	struct wire_msg msg = { .type = type, .arg = arg, .page = page };

	return wire_send(&m->w, &msg, sizeof(msg));
}

/* Zero-checked first, as QEMU does: a zero page goes as a marker. */
static int send_page(struct mig *m, u64 p, u32 round)
{
	const u8 *src = m->mem + p * MMUB_SZ_4K;
	double t = now_ms();
	bool zero = wire_page_zero(src);

	if (round == 1)
		m->zero_check_ms += now_ms() - t;
	m->sent_in[p] = round;
	m->pages_sent++;
	m->zero_pages += zero;
	if (send_msg(m, zero ? WIRE_ZERO : WIRE_PAGE, round, p))
		return -1;
	return zero ? 0 : wire_send(&m->w, src, MMUB_SZ_4K);
}

static int send_round(struct mig *m, u32 round)
{
	for (u64 p = 0; p < m->pages; p++) {
		if (!bitmap_test(m->pending, p))
			continue;
		bitmap_assign(m->pending, p, false);
		if ((s64)p != m->p->skip && send_page(m, p, round))
			return -1;
	}
	return send_msg(m, WIRE_ROUND, round, 0) || wire_flush(&m->w);
}

/*
 * A new write window for the running vCPUs: each writes its sentinels
 * (mmubench/sentinel.h) once on adopting it, so that every window has
 * pages written once, whose lost report no later write hides.  Before
 * every harvest but the first, and before the vCPUs stop: the last
 * window's sentinels are written after their last send and never again.
 */
static int next_window(struct vm *vm, struct mig *m)
{
	if (m->p->idle)
		return 0;
	return epoch_set(vm, ++m->epoch);
}

/* OR a harvest into the pages to send; how many are pending now. */
static u64 harvest(struct vm *vm, struct mig *m)
{
	/*
	 * --debug-drop-dirty loses one of the window's write-once pages whose
	 * earlier writes were all sent: nothing else would send it again.
	 */
	epoch_sentinels(vm, m->epoch, m->once);
	for (u64 w = 0; w * 64 < m->pages; w++)
		m->once[w] &= ~m->pending[w];
	if (!m->p->idle)
		m->d->drop_want = m->once;
	dlog_harvest(m->d);
	m->d->drop_want = NULL;
	dlog_take(m->d, m->scratch);
	for (u64 w = 0; w * 64 < m->pages; w++)
		m->pending[w] |= m->scratch[w];
	return bitmap_weight(m->pending, m->pages);
}

/* Would @n pages go within the downtime, at the cap or the last rate? */
static bool converged(const struct mig_params *p, u64 n, double last_rate)
{
	double rate = p->bandwidth ? (double)p->bandwidth : last_rate;

	return rate > 0 && n * MMUB_SZ_4K * 1e3 / rate <= p->downtime_ms;
}

/* On a terminal (util/progress.h): where the migration is. */
static void progress(const struct mig *m, u32 round, u64 pending, double rate)
{
	progress_detail("round %u, %llu dirty pages pending, %.1f MiB/s, "
			"%.1f MiB sent", round, (unsigned long long)pending,
			rate / MMUB_MIB, (double)m->w.bytes / MMUB_MIB);
}

/* Rounds while the vCPUs write; then pause them and copy the rest. */
static int precopy(struct vm *vm, struct mig *m)
{
	double t, rate = 0;
	u32 r = 1;
	u64 n, bytes;

	dlog_enable(m->d, true);
	m->epoch = epoch_newest(vm);
	harvest(vm, m);
	m->first_harvest = bitmap_weight(m->pending, m->pages);
	for (u64 w = 0; w * 64 < m->pages; w++)
		m->cold_in_first_harvest +=
			(u64)__builtin_popcountll(m->pending[w] & m->cold[w]);
	if (m->p->dl.mode != DLOG_CLEAR_INIT_SET)
		memset(m->pending, 0xff, (m->pages + 63) / 64 * 8);
	for (;;) {
		if (m->p->postcopy && r > m->p->postcopy_rounds)
			break;
		t = now_ms();
		bytes = m->w.bytes;
		if (send_round(m, r))
			return -1;
		rate = (double)(m->w.bytes - bytes) * 1e3 /
		       mmub_max(now_ms() - t, 1e-3);
		if (next_window(vm, m))
			return -1;
		n = harvest(vm, m);
		progress(m, r, n, rate);
		if ((++r > m->p->max_rounds || converged(m->p, n, rate)) &&
		    !m->p->postcopy)
			break;
	}
	progress_detail("%s, round %u", m->p->postcopy ? "switch" :
			"stop and copy", r);
	m->stop_ms = now_ms();
	if (next_window(vm, m) || (!m->p->idle && vm_stop_loop(vm)))
		return -1;
	harvest(vm, m);
	if (m->p->postcopy) {
		/* --debug-skip-page: post-copy's source never sends it. */
		if (m->p->skip >= 0)
			bitmap_assign(m->pending, (u64)m->p->skip, true);
		/* The switch: what a destination has to run, no pages. */
		m->downtime_ms = now_ms() - m->stop_ms;
		m->rounds = r - 1;
		return send_msg(m, WIRE_DONE, r, 0) || wire_flush(&m->w);
	}
	if (send_round(m, r) || send_msg(m, WIRE_DONE, r, 0) ||
	    wire_flush(&m->w))
		return -1;
	m->rounds = r;
	return 0;
}

static void describe(const struct vm *vm, const struct mig *m, u64 p,
		     const u8 *theirs)
{
	const u64 *a = (const u64 *)(m->mem + p * MMUB_SZ_4K);
	const u64 *b = (const u64 *)theirs;
	char where[64], last[32] = "never sent";
	u32 i = 0;

	while (i < MMUB_SZ_4K / 8 - 1 && a[i] == b[i])
		i++;
	if (m->sent_in[p])
		snprintf(last, sizeof(last), "last sent in round %u",
			 m->sent_in[p]);
	vm_test_page_where(vm, p, where, sizeof(where));
	err_msg("migrate: %s differs at the destination from byte %u on "
		"(0x%llx here, 0x%llx there; %s)", where, i * 8,
		(unsigned long long)a[i], (unsigned long long)b[i], last);
}

/* A cold page checked at the destination: the round that sent it. */
static void cold_checked(struct mig *m, u64 p, bool differs)
{
	m->cold_pages++;
	m->cold_differ += differs;
	if (m->sent_in[p] == 1)
		m->cold_first++;
	else if (m->sent_in[p])
		m->cold_later++;
	else
		m->cold_never++;
}

/* The destination's hash of every page against ours; bytes of the first. */
static int check(const struct vm *vm, struct mig *m)
{
	struct wire_msg msg;
	u64 *h = calloc(m->pages, sizeof(u64));
	u8 page[MMUB_SZ_4K];
	int ret = -1;
	bool same;

	if (!h || wire_read(m->w.fd, &msg, sizeof(msg)) ||
	    msg.type != WIRE_HASHES || msg.page != m->pages ||
	    wire_read(m->w.fd, h, m->pages * sizeof(u64)))
		goto out;
	for (u64 p = 0; p < m->pages; p++) {
		/* Post-copy sends these after the check, checked there. */
		if (m->p->postcopy && bitmap_test(m->pending, p))
			continue;
		same = h[p] == wire_page_hash(m->mem + p * MMUB_SZ_4K);
		if (bitmap_test(m->cold, p))
			cold_checked(m, p, !same);
		if (same)
			continue;
		if (m->mismatches++ >= 4)
			continue;
		msg = (struct wire_msg){ .type = WIRE_GET, .page = p };
		if (wire_write(m->w.fd, &msg, sizeof(msg)) ||
		    wire_read(m->w.fd, &msg, sizeof(msg)) ||
		    wire_read(m->w.fd, page, sizeof(page)))
			goto out;
		describe(vm, m, p, page);
	}
	m->verified = m->pages;
	if (m->p->postcopy)
		m->verified -= bitmap_weight(m->pending, m->pages);
	ret = 0;
out:
	free(h);
	return ret;
}

/*
 * After DONE: the destination's ack ends the downtime (post-copy's ended
 * at the switch), and its hashes check what it holds.
 */
static int finish(struct vm *vm, struct mig *m)
{
	struct wire_msg msg;

	if (wire_read(m->w.fd, &msg, sizeof(msg)) || msg.type != WIRE_ACK)
		return -1;
	if (m->p->postcopy)
		return check(vm, m) || mig_postcopy_run(vm, m) ? -1 : 0;
	m->downtime_ms = now_ms() - m->stop_ms;
	m->total_ms = now_ms() - m->start_ms;
	m->wire_mib = (double)m->w.bytes / MMUB_MIB;
	return check(vm, m);
}

int mig_source_run(struct vm *vm, struct mig *m)
{
	size_t words = m->pages / 64 + 1;
	int ret;

	m->pending = calloc(words, 8);
	m->scratch = calloc(words, 8);
	m->sent_in = calloc(m->pages, sizeof(u32));
	m->once = calloc(words, 8);
	m->cold = vm_cold_pages(vm);
	if (!m->scratch || !m->pending || !m->sent_in || !m->once)
		die("out of memory for the migration's bitmaps");
	m->start_ms = now_ms();
	ret = precopy(vm, m) || finish(vm, m) ? -1 : 0;
	dlog_enable(m->d, false);
	free(m->scratch);
	free(m->pending);
	free(m->sent_in);
	free(m->once);
	free(m->cold);
	return ret;
}
