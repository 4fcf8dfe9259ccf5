// SPDX-License-Identifier: GPL-2.0
/*
 * mmubench migrate-receive: the destination of a migration.  It maps
 * memory of the size the source announces, applies every page message,
 * and after WIRE_DONE answers with one hash per page, then the bytes of
 * any page the source asks for (to show where a mismatch lies).
 *
 *   migrate-receive --listen PORT   one TCP connection (PORT 0: any free
 *                                   port; "listening on PORT" tells it)
 *   migrate-receive --fd N          an inherited socket ("migrate" itself)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <errno.h>
#include <netinet/in.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include "util/util.h"
#include "util/parse.h"
#include "migrate/wire.h"
#include "migrate/receive.h"

struct dest {
	int fd;
	struct wire_in in;
	u64 pages;
	u8 *mem;
	u64 page_msgs, zero_msgs, rounds;
};

static int apply(struct dest *d, const struct wire_msg *m)
{
	if (m->type != WIRE_ROUND && m->page >= d->pages) {
		err_msg("migrate-receive: page %llu of %llu announced",
			(unsigned long long)m->page,
			(unsigned long long)d->pages);
		return -1;
	}
	switch (m->type) {
	case WIRE_PAGE:
		d->page_msgs++;
		return wire_in_read(&d->in, d->mem + m->page * MMUB_SZ_4K,
				    MMUB_SZ_4K);
	case WIRE_ZERO:
		d->zero_msgs++;
		/*
		 * As QEMU's destination does: a page that already reads as
		 * zeros is left alone, so untouched memory stays unallocated.
		 */
		if (!wire_page_zero(d->mem + m->page * MMUB_SZ_4K))
			memset(d->mem + m->page * MMUB_SZ_4K, 0, MMUB_SZ_4K);
		return 0;
	case WIRE_ROUND:
		d->rounds++;
		return 0;
	default:
		err_msg("migrate-receive: unexpected message type %u", m->type);
		return -1;
	}
}

/* After WIRE_DONE: the ack, every page's hash, then pages on request. */
static int answer(struct dest *d)
{
	struct wire_msg m = { .type = WIRE_ACK };
	u64 *h = malloc(d->pages * sizeof(u64));

	if (!h || wire_write(d->fd, &m, sizeof(m)))
		return -1;
	for (u64 p = 0; p < d->pages; p++)
		h[p] = wire_page_hash(d->mem + p * MMUB_SZ_4K);
	m = (struct wire_msg){ .type = WIRE_HASHES, .page = d->pages };
	if (wire_write(d->fd, &m, sizeof(m)) ||
	    wire_write(d->fd, h, d->pages * sizeof(u64))) {
		free(h);
		return -1;
	}
	free(h);
	while (!wire_in_read(&d->in, &m, sizeof(m))) {
		if (m.type != WIRE_GET || m.page >= d->pages)
			return -1;
		m.type = WIRE_BYTES;
		if (wire_write(d->fd, &m, sizeof(m)) ||
		    wire_write(d->fd, d->mem + m.page * MMUB_SZ_4K, MMUB_SZ_4K))
			return -1;
	}
	return errno ? -1 : 0;
}

int migrate_serve(int fd)
{
	struct dest d = { .fd = fd };
	struct wire_hdr hdr;
	struct wire_msg m;

	wire_in_init(&d.in, fd);
	if (wire_in_read(&d.in, &hdr, sizeof(hdr)) || hdr.magic != WIRE_MAGIC ||
	    !hdr.pages || hdr.pages > WIRE_MAX_PAGES) {
		err_msg("migrate-receive: no mmubench migration stream on the "
			"connection");
		return 1;
	}
	d.pages = hdr.pages;
	d.mem = mmap(NULL, d.pages * MMUB_SZ_4K, PROT_READ | PROT_WRITE,
		     MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (d.mem == MAP_FAILED) {
		err_msg("migrate-receive: cannot map %llu pages: %s",
			(unsigned long long)d.pages, strerror(errno));
		return 1;
	}
	while (!wire_in_read(&d.in, &m, sizeof(m)) && m.type != WIRE_DONE)
		if (apply(&d, &m))
			return 1;
	if (m.type != WIRE_DONE) {
		err_msg("migrate-receive: the source went away before the "
			"end (%s)", errno ? strerror(errno) : "EOF");
		return 1;
	}
	if (answer(&d)) {
		err_msg("migrate-receive: answering the source failed: %s",
			errno ? strerror(errno) : "EOF");
		return 1;
	}
	munmap(d.mem, d.pages * MMUB_SZ_4K);
	return 0;
}

static int listen_once(u64 port)
{
	struct sockaddr_in a = {
		.sin_family = AF_INET,
		.sin_port = htons((u16)port),
		.sin_addr.s_addr = htonl(INADDR_ANY),
	};
	socklen_t len = sizeof(a);
	int one = 1, s, c;

	s = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (s < 0)
		die("--listen: socket: %s", strerror(errno));
	setsockopt(s, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (bind(s, (struct sockaddr *)&a, sizeof(a)) || listen(s, 1) ||
	    getsockname(s, (struct sockaddr *)&a, &len))
		die("--listen %llu: %s", (unsigned long long)port,
		    strerror(errno));
	printf("listening on %u\n", ntohs(a.sin_port));
	fflush(stdout);
	c = accept(s, NULL, NULL);
	if (c < 0)
		die("--listen: accept: %s", strerror(errno));
	close(s);
	return c;
}

int cmd_migrate_receive(int argc, char **argv)
{
	int fd = -1;

	if (argc == 2 && !strcmp(argv[1], "--help")) {
		printf("usage: %s migrate-receive --listen PORT | --fd N\n"
		       "  the destination of \"%s migrate --to HOST:PORT\"\n",
		       MMUB_NAME, MMUB_NAME);
		return 0;
	}
	if (argc != 3)
		die("migrate-receive: needs --listen PORT or --fd N (see "
		    "%s migrate-receive --help)", MMUB_NAME);
	if (!strcmp(argv[1], "--listen"))
		fd = listen_once(parse_u64("--listen", argv[2], 0, 65535));
	else if (!strcmp(argv[1], "--fd"))
		fd = (int)parse_u64("--fd", argv[2], 0, 1023);
	else
		die("migrate-receive: %s: unknown option (accepted: --listen "
		    "PORT, --fd N)", argv[1]);
	return migrate_serve(fd);
}
