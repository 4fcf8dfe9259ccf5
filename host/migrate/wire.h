/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The migration stream between "migrate" (the source) and
 * "migrate-receive" (the destination), over a Unix socket or TCP: a
 * header, then messages; a page's 4096 bytes follow WIRE_PAGE and
 * WIRE_BYTES.  After WIRE_DONE the destination answers WIRE_ACK, then
 * WIRE_HASHES with one hash per page, then serves WIRE_GET until the
 * source closes the connection.  Both ends run on the same architecture,
 * so integers travel in host order.
 */
#ifndef HOST_MIGRATE_WIRE_H
#define HOST_MIGRATE_WIRE_H

#include <stddef.h>
#include <mmubench/types.h>

#define WIRE_MAGIC	0x72676d62756d6d01ULL
/* The largest test memory a destination accepts: 1 TiB of 4K pages. */
#define WIRE_MAX_PAGES	(1ULL << 28)

enum wire_type {
	WIRE_PAGE = 1,	/* a page's bytes follow */
	WIRE_ZERO,	/* the page is all zeros */
	WIRE_ROUND,	/* the end of round .arg */
	WIRE_DONE,	/* stop-and-copy is complete */
	WIRE_ACK,	/* destination: has everything */
	WIRE_HASHES,	/* destination: .arg hashes follow */
	WIRE_GET,	/* source: send page .page back */
	WIRE_BYTES,	/* destination: its bytes follow */
};

struct wire_hdr {
	u64 magic;
	u64 pages;
};

struct wire_msg {
	u32 type;
	u32 arg;
	u64 page;
};

/*
 * Both ends buffer the stream, as QEMU's does: a system call per 16-byte
 * zero marker would cost more than the zero check it follows.
 */
#define WIRE_BUF	(64 * 1024)

/* The sending end; flushes are paced at @rate bytes/s (0: no cap). */
struct wire {
	int fd;
	double rate;
	double tokens;		/* bytes that may go now */
	double refilled_ms;
	u64 bytes;		/* sent so far */
	size_t len;		/* bytes in buf */
	u8 buf[WIRE_BUF];
};

/* The receiving end. */
struct wire_in {
	int fd;
	size_t pos, len;
	u8 buf[WIRE_BUF];
};

void wire_init(struct wire *w, int fd, double rate);
/* Queue @len <= WIRE_BUF bytes; whole buffers go when it is full. */
int wire_send(struct wire *w, const void *buf, size_t len);
/* Send what is queued: at the end of a round, before waiting for replies. */
int wire_flush(struct wire *w);
void wire_in_init(struct wire_in *in, int fd);
int wire_in_read(struct wire_in *in, void *buf, size_t len);
/*
 * Whole buffers on a socket, or -1 with errno set (0 at EOF); a peer that
 * went away is an error, not SIGPIPE.
 */
int wire_read(int fd, void *buf, size_t len);
int wire_write(int fd, const void *buf, size_t len);
/* FNV-1a over a 4K page, 8 bytes at a time. */
u64 wire_page_hash(const void *page);
bool wire_page_zero(const void *page);

#endif
