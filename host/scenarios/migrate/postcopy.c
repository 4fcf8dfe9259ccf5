// SPDX-License-Identifier: GPL-2.0
/*
 * Post-copy (migrate --postcopy N): after N pre-copy rounds the vCPUs
 * continue at the destination before it has every page.  A page it
 * lacks arrives when a vCPU faults on it (pulled: the destination's
 * userfaultfd handler asks the source) or when the source pushes it
 * unasked, as QEMU's postcopy-ram does.
 *
 * mmubench's model keeps the VM in this process and makes its test
 * memory what a destination's is at the switch:
 *
 *   switch    source.c stopped the vCPUs; its last harvest names the
 *             pages the destination lacks (written since their last
 *             send, or never sent), and the receiver's hashes checked
 *             every other page, which it holds from pre-copy.
 *   staging   the model's own work, timed apart and not in any figure:
 *             the lacking pages are copied out to the source's store
 *             and discarded here, then every stage-2 mapping of the test
 *             memory is dropped (read-only and back), since a new VM
 *             maps nothing.  The test memory is registered with
 *             userfaultfd (MISSING).
 *   post-copy the vCPUs run their loop again.  A fault on a lacking page
 *             reaches the fault thread, which asks the source thread
 *             for it over a socket pair; the source answers requests
 *             first and pushes the rest in page order between them (at
 *             --bandwidth).  This thread installs what arrives
 *             (UFFDIO_COPY) after checking its hash against the
 *             source's at the switch.  It ends when the source says it
 *             sent everything; a page still lacking then is named and
 *             zero-filled, so that the vCPUs waiting on it go on.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <linux/userfaultfd.h>
#include "util/util.h"
#include "util/bitmap.h"
#include "kvm/uffd.h"
#include "scenarios/migrate/source.h"

/* The lacking pages, ascending, and what the source holds of them. */
struct lack {
	u64 n;
	u64 *page;		/* test page numbers */
	u64 *hash;		/* the source's, at the switch */
	u8 *mem;		/* the source's copies, n x 4K */
};

/* The source's end: answers requests, pushes the rest. */
struct store {
	const struct vm *vm;
	const struct lack *l;
	s64 skip;		/* --debug-skip-page: never sent */
	bool flip;		/* --debug-flip-postcopy */
	u64 nr_sent;
	int fd;
	u64 *sent;		/* bitmap over l's indices */
	struct wire *w;
	pthread_t thread;
	int err;
};

/* The destination's end: the fault thread and the loader (the caller). */
struct dest {
	struct vm *vm;
	struct mig *m;
	const struct lack *l;
	int fd, uffd, stop;
	u64 *asked;		/* bitmap over test pages: set by the fault thread */
	double *asked_ms;	/* when it asked */
	u64 *have;		/* bitmap over l's indices: installed */
	pthread_t thread;
	int err;
};

/* The index of test page @p among the lacking ones, or -1. */
static s64 lack_find(const struct lack *l, u64 p)
{
	u64 lo = 0, hi = l->n;

	while (lo < hi) {
		u64 mid = lo + (hi - lo) / 2;

		if (l->page[mid] == p)
			return (s64)mid;
		if (l->page[mid] < p)
			lo = mid + 1;
		else
			hi = mid;
	}
	return -1;
}

/* ---- the source's end ------------------------------------------------ */

/*
 * Page @k into the stream: pushes go in whole buffers, as pre-copy's
 * rounds do; an answer (@now) goes at once, behind at most a buffer of
 * pushes.
 */
static int store_send(struct store *s, u64 k, bool now)
{
	static u8 flipped[MMUB_SZ_4K];
	struct wire_msg msg = { .type = WIRE_PAGE, .page = s->l->page[k] };
	const u8 *page = s->l->mem + k * MMUB_SZ_4K;
	char where[64];

	bitmap_assign(s->sent, k, true);
	if ((s64)s->l->page[k] == s->skip)
		return 0;
	if (s->flip && !s->nr_sent) {
		memcpy(flipped, page, sizeof(flipped));
		flipped[0] ^= 0x5a;
		page = flipped;
		vm_test_page_where(s->vm, s->l->page[k], where, sizeof(where));
		err_msg("--debug-flip-postcopy: a byte of %s flipped in what "
			"the source sent, on purpose", where);
	}
	s->nr_sent++;
	return wire_send(s->w, &msg, sizeof(msg)) ||
	       wire_send(s->w, page, MMUB_SZ_4K) ||
	       (now && wire_flush(s->w));
}

/*
 * Answer the requests waiting, the first after up to @timeout ms: 0,
 * 1 when the destination has closed its end, -1 on a bad request.
 */
static int store_answer(struct store *s, int timeout)
{
	struct pollfd pfd = { .fd = s->fd, .events = POLLIN };
	struct wire_msg msg;
	s64 k;

	while (poll(&pfd, 1, timeout) > 0) {
		if (wire_read(s->fd, &msg, sizeof(msg)))
			return errno ? -1 : 1;
		k = lack_find(s->l, msg.page);
		/* A fault read after the page arrived asks for it late. */
		if (msg.type != WIRE_GET || k < 0) {
			errno = EPROTO;
			return -1;
		}
		if (!bitmap_test(s->sent, (u64)k) &&
		    store_send(s, (u64)k, true))
			return -1;
		timeout = 0;
	}
	return 0;
}

static void *store_main(void *arg)
{
	struct store *s = arg;
	struct wire_msg done = { .type = WIRE_DONE };
	bool told = false;
	u64 next = 0;
	int r;

	for (;;) {
		r = store_answer(s, next < s->l->n || !told ? 0 : -1);
		if (r)
			break;
		while (next < s->l->n && bitmap_test(s->sent, next))
			next++;
		if (next < s->l->n) {
			r = store_send(s, next, false);
		} else if (!told) {
			told = true;
			r = wire_send(s->w, &done, sizeof(done)) ||
			    wire_flush(s->w);
		}
		if (r)
			break;
	}
	if (r < 0)
		s->err = errno ? errno : EPIPE;
	return NULL;
}

/* ---- the destination's end ------------------------------------------- */

static void *fault_main(void *arg)
{
	struct dest *d = arg;
	u64 base = (u64)(uintptr_t)d->vm->test.hva;
	struct wire_msg msg = { .type = WIRE_GET };
	struct uffd_msg um;
	int got;

	while ((got = uffd_next_fault(d->uffd, d->stop, &um)) > 0) {
		d->m->pc.faults++;
		msg.page = (um.arg.pagefault.address - base) / MMUB_SZ_4K;
		/* Other vCPUs' faults on it: asked for once. */
		if (msg.page >= d->m->pages || bitmap_test(d->asked, msg.page))
			continue;
		d->asked_ms[msg.page] = now_ms();
		__atomic_or_fetch(&d->asked[msg.page / 64],
				  1ULL << (msg.page % 64), __ATOMIC_RELEASE);
		if (wire_write(d->fd, &msg, sizeof(msg))) {
			got = -1;
			break;
		}
	}
	if (got)
		d->err = errno ? errno : EPIPE;
	return NULL;
}

static bool was_asked(const struct dest *d, u64 p)
{
	return __atomic_load_n(&d->asked[p / 64], __ATOMIC_ACQUIRE) &
	       (1ULL << (p % 64));
}

static void name_page(const struct dest *d, u64 p, const char *what)
{
	char where[64];

	vm_test_page_where(d->vm, p, where, sizeof(where));
	err_msg("migrate --postcopy: %s %s", where, what);
}

/* One page from the source: checked, installed, counted. */
static int install(struct dest *d, u64 k, const u8 *buf)
{
	struct mig_postcopy *pc = &d->m->pc;
	u64 p = d->l->page[k];

	if (wire_page_hash(buf) != d->l->hash[k] && pc->bad++ < 4)
		name_page(d, p, "arrived different from the source's page at "
			  "the switch");
	if (uffd_copy(d->uffd, (u64)(uintptr_t)d->vm->test.hva +
		      p * MMUB_SZ_4K, buf, MMUB_SZ_4K)) {
		err_msg("migrate --postcopy: UFFDIO_COPY of page %llu: %s",
			(unsigned long long)p,
			errno ? strerror(errno) : "already there");
		return -1;
	}
	bitmap_assign(d->have, k, true);
	if (!was_asked(d, p)) {
		pc->pushed++;
		return 0;
	}
	pc->pulled++;
	mmub_hist_add(&pc->pull_ns,
		      (u64)((now_ms() - d->asked_ms[p]) * 1e6));
	return 0;
}

/* Until the source's DONE: 0, or -1 if the stream broke. */
static int load(struct dest *d)
{
	struct wire_in *in = malloc(sizeof(*in));
	u8 *buf = malloc(MMUB_SZ_4K);
	struct wire_msg msg;
	bool said = false;
	int ret = -1;
	s64 k;

	if (!in || !buf)
		die("out of memory");
	wire_in_init(in, d->fd);
	while (!wire_in_read(in, &msg, sizeof(msg))) {
		if (msg.type == WIRE_DONE) {
			ret = 0;
			break;
		}
		k = lack_find(d->l, msg.page);
		if (msg.type != WIRE_PAGE || k < 0 ||
		    bitmap_test(d->have, (u64)k)) {
			err_msg("migrate --postcopy: the source sent message "
				"%u for page %llu, which the destination does "
				"not lack", msg.type,
				(unsigned long long)msg.page);
			said = true;
			break;
		}
		if (wire_in_read(in, buf, MMUB_SZ_4K))
			break;
		if (install(d, (u64)k, buf)) {
			said = true;
			break;
		}
		/* As on a corrupt message: the source goes on sending. */
		if (d->m->p->cut) {
			err_msg("--debug-break-postcopy: the destination stops "
				"reading the stream after its first page, on "
				"purpose");
			said = true;
			break;
		}
	}
	/* An end of file before DONE is a broken stream too: said. */
	if (ret && !said && errno)
		err_msg("migrate --postcopy: the stream from the source: %s",
			strerror(errno));
	else if (ret && !said)
		err_msg("migrate --postcopy: the stream from the source ended "
			"before it said it had sent every page");
	free(buf);
	free(in);
	return ret;
}

/*
 * Whatever never arrived, zero-filled so that no vCPU waits on it for
 * ever; named when the source said it had sent everything (@named).
 */
static int release(struct dest *d, bool named)
{
	static const u8 zero[MMUB_SZ_4K];
	u64 base = (u64)(uintptr_t)d->vm->test.hva;

	for (u64 k = 0; k < d->l->n; k++) {
		u64 p = d->l->page[k];

		if (bitmap_test(d->have, k))
			continue;
		if (named && d->m->pc.missing++ < 4)
			name_page(d, p, "never arrived from the source");
		if (uffd_copy(d->uffd, base + p * MMUB_SZ_4K, zero,
			      MMUB_SZ_4K) < 0)
			return -1;
		bitmap_assign(d->have, k, true);
	}
	return 0;
}

/* ---- staging: the model's, not the migration's ------------------------ */

/* What the destination lacks, copied out of the test memory. */
static void lack_collect(struct lack *l, const struct mig *m)
{
	u64 k = 0;

	l->n = bitmap_weight(m->pending, m->pages);
	l->page = calloc(l->n + 1, sizeof(u64));
	l->hash = calloc(l->n + 1, sizeof(u64));
	l->mem = malloc((l->n + 1) * MMUB_SZ_4K);
	if (!l->page || !l->hash || !l->mem)
		die("out of memory for %llu post-copy pages",
		    (unsigned long long)l->n);
	for (u64 p = 0; p < m->pages; p++) {
		if (!bitmap_test(m->pending, p))
			continue;
		memcpy(l->mem + k * MMUB_SZ_4K, m->mem + p * MMUB_SZ_4K,
		       MMUB_SZ_4K);
		l->hash[k] = wire_page_hash(l->mem + k * MMUB_SZ_4K);
		l->page[k++] = p;
	}
}

/* Pages [@p, @p + @n) gone from the test memory: they fault again. */
static int discard(struct vm *vm, u64 p, u64 n)
{
	u64 off = p * MMUB_SZ_4K, len = n * MMUB_SZ_4K;

	if (backing_is_file(vm->p.backing))
		return fallocate(vm->test.fd, FALLOC_FL_PUNCH_HOLE |
				 FALLOC_FL_KEEP_SIZE, (off_t)off, (off_t)len);
	return madvise(vm->test.hva + off, len, MADV_DONTNEED);
}

/*
 * The destination at the switch: the lacking pages gone, no stage-2
 * mapping of the test memory (as in a VM that never ran), and every
 * fault on a lacking page sent to @d->uffd.
 */
static int stage(struct vm *vm, const struct lack *l, struct dest *d)
{
	u8 *hva = vm->test.hva;
	u64 size = vm->test.size;

	for (u64 k = 0, run; k < l->n; k += run) {
		for (run = 1; k + run < l->n &&
		     l->page[k + run] == l->page[k] + run; run++)
			;
		if (discard(vm, l->page[k], run)) {
			err_msg("migrate --postcopy: discarding the pages the "
				"destination lacks: %s", strerror(errno));
			return -1;
		}
	}
	if (backing_drop_mappings(&vm->test)) {
		err_msg("migrate --postcopy: mprotect: %s", strerror(errno));
		return -1;
	}
	d->uffd = uffd_open(UFFD_MISSING, false);
	if (d->uffd < 0 || uffd_register(d->uffd, hva, size, UFFD_MISSING)) {
		err_msg("migrate --postcopy: userfaultfd on the test memory: "
			"%s", strerror(errno));
		return -1;
	}
	return 0;
}

/* ---- the phase -------------------------------------------------------- */

static void start_thread(pthread_t *t, void *(*fn)(void *), void *arg)
{
	if (pthread_create(t, NULL, fn, arg))
		die("migrate --postcopy: a thread: %s", strerror(errno));
}

/*
 * The vCPUs run while the pages arrive; then, with or without all of
 * them, the threads end and the vCPUs stop.
 */
static int phase(struct vm *vm, struct mig *m, struct dest *d,
		 struct store *s)
{
	struct mig_postcopy *pc = &m->pc;
	struct phase *ph;
	u64 one = 1;
	double t;
	int ret;

	ph = run_phase_begin(vm, m->run, "postcopy");
	t = now_ms();
	start_thread(&s->thread, store_main, s);
	start_thread(&d->thread, fault_main, d);
	ret = vm_post(vm, MMUB_CMD_LOOP, 1) || load(d) ? -1 : 0;
	pc->postcopy_ms = now_ms() - t;
	if (release(d, !ret))
		ret = -1;
	/* A broken stream: sends blocked in either thread fail. */
	if (ret)
		shutdown(d->fd, SHUT_RDWR);
	if (write(d->stop, &one, sizeof(one)) != sizeof(one))
		die("eventfd: %s", strerror(errno));
	pthread_join(d->thread, NULL);
	/* The last request is sent: the source's end sees EOF. */
	shutdown(d->fd, SHUT_WR);
	pthread_join(s->thread, NULL);
	if (!ret && (s->err || d->err)) {
		err_msg("migrate --postcopy: the %s thread: %s",
			s->err ? "source's" : "fault",
			strerror(s->err ? s->err : d->err));
		ret = -1;
	}
	if (vm_stop_loop(vm))
		ret = -1;
	phase_end(vm, ph, !ret);
	pc->bytes = s->w->bytes;
	return ret;
}

static void dest_free(struct dest *d)
{
	if (d->uffd >= 0) {
		uffd_unregister(d->uffd, d->vm->test.hva, d->vm->test.size);
		close(d->uffd);
	}
	if (d->stop >= 0)
		close(d->stop);
	free(d->asked);
	free(d->asked_ms);
	free(d->have);
}

int mig_postcopy_run(struct vm *vm, struct mig *m)
{
	struct mig_postcopy *pc = &m->pc;
	struct lack l;
	struct dest d = { .vm = vm, .m = m, .l = &l, .uffd = -1, .stop = -1 };
	struct store s = { .vm = vm, .l = &l, .skip = m->p->skip,
			   .flip = m->p->flip };
	double t = now_ms();
	int sv[2], ret;

	mmub_hist_reset(&pc->pull_ns);
	lack_collect(&l, m);
	pc->pages = l.n;
	d.asked = calloc(m->pages / 64 + 1, 8);
	d.asked_ms = calloc(m->pages, sizeof(double));
	d.have = calloc(l.n / 64 + 1, 8);
	s.sent = calloc(l.n / 64 + 1, 8);
	s.w = malloc(sizeof(*s.w));
	d.stop = eventfd(0, EFD_CLOEXEC);
	if (!d.asked || !d.asked_ms || !d.have || !s.sent || !s.w ||
	    d.stop < 0 || socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv))
		die("migrate --postcopy: %s", strerror(errno ? errno : ENOMEM));
	d.fd = sv[0];
	s.fd = sv[1];
	wire_init(s.w, s.fd, (double)m->p->bandwidth);
	dlog_enable(m->d, false);
	ret = stage(vm, &l, &d);
	pc->staging_ms = now_ms() - t;
	if (!ret)
		ret = phase(vm, m, &d, &s);
	m->verified += l.n;
	m->mismatches += pc->bad + pc->missing;
	m->pages_sent += pc->pulled + pc->pushed;
	/* Pre-copy and the switch, then post-copy: not the model's work. */
	m->total_ms = m->stop_ms + m->downtime_ms - m->start_ms +
		      pc->postcopy_ms;
	m->wire_mib = (double)(m->w.bytes + pc->bytes) / MMUB_MIB;
	close(sv[0]);
	close(sv[1]);
	dest_free(&d);
	free(s.sent);
	free(s.w);
	free(l.page);
	free(l.hash);
	free(l.mem);
	return ret;
}
