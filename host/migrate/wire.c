// SPDX-License-Identifier: GPL-2.0
/* The migration stream's transport and checks; see wire.h. */
#include <errno.h>
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

int wire_send(struct wire *w, const void *buf, size_t len)
{
	if (w->rate > 0)
		pace(w, len);
	w->bytes += len;
	return wire_write(w->fd, buf, len);
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
