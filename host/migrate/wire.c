// SPDX-License-Identifier: GPL-2.0
/* The migration stream's transport and checks; see wire.h. */
#include <errno.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/socket.h>
#include "util/util.h"
#include "migrate/wire.h"

void wire_init(struct wire *w, int fd, double rate)
{
	*w = (struct wire){ .fd = fd, .rate = rate, .refilled_ms = now_ms() };
}

int wire_write(int fd, const void *buf, size_t len)
{
	const u8 *p = buf;

	while (len) {
		/* A receiver that went away is an error here, not SIGPIPE. */
		ssize_t n = send(fd, p, len, MSG_NOSIGNAL);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -1;
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

int wire_read(int fd, void *buf, size_t len)
{
	u8 *p = buf;

	while (len) {
		ssize_t n = read(fd, p, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n == 0)
			errno = 0;
		if (n <= 0)
			return -1;
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

/*
 * A token bucket holding at most 10 ms of the rate, so a cap holds over
 * any window longer than that: sleep until enough tokens accrued.
 */
static void pace(struct wire *w, size_t len)
{
	double burst = w->rate / 100, now, wait_ms;
	struct timespec ts;

	for (;;) {
		now = now_ms();
		w->tokens += (now - w->refilled_ms) * w->rate / 1e3;
		w->refilled_ms = now;
		if (w->tokens > burst && burst >= len)
			w->tokens = burst;
		if (w->tokens >= (double)len)
			break;
		wait_ms = ((double)len - w->tokens) * 1e3 / w->rate;
		ts.tv_sec = (time_t)(wait_ms / 1e3);
		ts.tv_nsec = (long)((wait_ms - ts.tv_sec * 1e3) * 1e6);
		nanosleep(&ts, NULL);
	}
	w->tokens -= (double)len;
}

int wire_flush(struct wire *w)
{
	size_t len = w->len;

	if (!len)
		return 0;
	if (w->rate > 0)
		pace(w, len);
	w->len = 0;
	return wire_write(w->fd, w->buf, len);
}

int wire_send(struct wire *w, const void *buf, size_t len)
{
	if (w->len + len > sizeof(w->buf) && wire_flush(w))
		return -1;
	memcpy(w->buf + w->len, buf, len);
	w->len += len;
	w->bytes += len;
	return 0;
}

void wire_in_init(struct wire_in *in, int fd)
{
	in->fd = fd;
	in->pos = in->len = 0;
}

int wire_in_read(struct wire_in *in, void *buf, size_t len)
{
	u8 *p = buf;
	size_t n;
	ssize_t got;

	while (len) {
		if (in->pos == in->len) {
			got = read(in->fd, in->buf, sizeof(in->buf));
			if (got < 0 && errno == EINTR)
				continue;
			if (got == 0)
				errno = 0;
			if (got <= 0)
				return -1;
			in->pos = 0;
			in->len = (size_t)got;
		}
		n = mmub_min(len, in->len - in->pos);
		memcpy(p, in->buf + in->pos, n);
		in->pos += n;
		p += n;
		len -= n;
	}
	return 0;
}

u64 wire_page_hash(const void *page)
{
	const u64 *q = page;
	u64 h = 0xcbf29ce484222325ULL;

	for (u32 i = 0; i < MMUB_SZ_4K / 8; i++) {
		h ^= q[i];
		h *= 0x100000001b3ULL;
	}
	return h;
}

bool wire_page_zero(const void *page)
{
	const u64 *q = page;
	u64 any = 0;

	for (u32 i = 0; i < MMUB_SZ_4K / 8; i++)
		any |= q[i];
	return !any;
}
