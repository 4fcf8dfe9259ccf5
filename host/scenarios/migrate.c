// SPDX-License-Identifier: GPL-2.0
/*
 * Scenario "migrate" (seed 000's second table): pre-copy live migration
 * of the test memory while the vCPUs keep writing, to a destination
 * process ("migrate-receive", started here on a Unix socket, or on
 * another host with --to), then a byte-for-byte check.
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
 */
#define _GNU_SOURCE
#include <errno.h>
#include <netdb.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include "util/util.h"
#include "util/bitmap.h"
#include "util/parse.h"
#include "results/json.h"
#include "migrate/wire.h"
#include "scenarios/oracle.h"
#include "scenarios/scenarios.h"
#include "scenarios/migrate_qemu.h"

enum {
	O_MODE = 512, O_BANDWIDTH, O_DOWNTIME, O_MAX_ROUNDS, O_TO, O_SKIP,
	O_BACKEND,
};

static const struct opt opts[] = {
	{ "mode", O_MODE, required_argument, "M",
	  "dirty logging: get, clear, clear-init-set, ring, ring-acq-rel "
	  "(clear-init-set)" },
	{ "bandwidth", O_BANDWIDTH, required_argument, "BYTES",
	  "cap on the stream, bytes/s with k/m/g suffix (0: none)" },
	{ "downtime-ms", O_DOWNTIME, required_argument, "MS",
	  "stop and copy once the rest fits in this, 1..100000 (300)" },
	{ "max-rounds", O_MAX_ROUNDS, required_argument, "N",
	  "stop and copy after N rounds anyway, 1..10000 (30)" },
	{ "to", O_TO, required_argument, "HOST:PORT",
	  "send to \"mmubench migrate-receive --listen PORT\" there "
	  "(default: a receiver process here, on a Unix socket)" },
	{ "debug-skip-page", O_SKIP, required_argument, "P",
	  "never send test page P: the check must fail, naming it (with "
	  "--backend qemu: flip a byte of it at the destination after the "
	  "migration)" },
	{ "backend", O_BACKEND, required_argument, "B",
	  "kvm (mmubench's model) or qemu: QEMU's own migration between two "
	  "QEMUs (TCG), its figures in the same table" },
	{ NULL },
};

static struct {
	enum dlog_mode mode;
	u64 bandwidth;
	u32 downtime_ms;
	u32 max_rounds;
	const char *to;
	s64 skip;
	int to_fd;		/* --to's connection, made before the VM */
	bool qemu;
	bool rounds_set;	/* no meaning for QEMU */
} o = {
	.mode = DLOG_CLEAR_INIT_SET, .downtime_ms = 300, .max_rounds = 30,
	.skip = -1, .to_fd = -1,
};

static void parse(int key, const char *arg)
{
	switch (key) {
	case O_MODE:
		o.mode = dlog_parse_mode("--mode", arg);
		break;
	case O_BANDWIDTH:
		if (mmub_parse_size(arg, &o.bandwidth))
			die("--bandwidth %s: bytes per second, with k/m/g "
			    "suffix (0: no cap)", arg);
		break;
	case O_DOWNTIME:
		o.downtime_ms = (u32)parse_u64("--downtime-ms", arg, 1, 100000);
		break;
	case O_MAX_ROUNDS:
		o.max_rounds = (u32)parse_u64("--max-rounds", arg, 1, 10000);
		o.rounds_set = true;
		break;
	case O_TO:
		if (!strchr(arg, ':'))
			die("--to %s: HOST:PORT", arg);
		o.to = arg;
		break;
	case O_SKIP:
		o.skip = (s64)parse_u64("--debug-skip-page", arg, 0, 1ULL << 40);
		break;
	case O_BACKEND:
		if (strcmp(arg, "kvm") && strcmp(arg, "qemu"))
			die("--backend %s: unknown (accepted: kvm, qemu)", arg);
		o.qemu = !strcmp(arg, "qemu");
		break;
	}
}

static int connect_to(const char *to)
{
	struct addrinfo hints = { .ai_socktype = SOCK_STREAM }, *res, *a;
	char host[256];
	const char *port = strrchr(to, ':') + 1;
	int fd = -1, r;

	snprintf(host, sizeof(host), "%.*s", (int)(port - 1 - to), to);
	r = getaddrinfo(host, port, &hints, &res);
	if (r)
		die("--to %s: %s", to, gai_strerror(r));
	for (a = res; a && fd < 0; a = a->ai_next) {
		fd = socket(a->ai_family, a->ai_socktype | SOCK_CLOEXEC, 0);
		if (fd >= 0 && connect(fd, a->ai_addr, a->ai_addrlen)) {
			close(fd);
			fd = -1;
		}
	}
	freeaddrinfo(res);
	if (fd < 0)
		die("--to %s: cannot connect: %s (is \"%s migrate-receive "
		    "--listen %s\" running there?)", to, strerror(errno),
		    MMUB_NAME, port);
	return fd;
}

/* QEMU has its own dirty logging, rounds and destination. */
static void validate_qemu(struct common *c)
{
	const char *bad = o.to ? "--to" :
			  o.mode != DLOG_CLEAR_INIT_SET ? "--mode" :
			  o.rounds_set ? "--max-rounds" :
			  c->repeat > 1 ? "--repeat" : NULL;

	if (bad)
		die("--backend qemu: not with %s (QEMU's migration has its "
		    "own)", bad);
	qemu_check_params(&c->vm);
	c->no_kvm = true;
}

static void validate(struct common *c)
{
	u64 pages = c->vm.vcpu_bytes * c->vm.nr_vcpus / MMUB_SZ_4K;

	if (o.skip >= (s64)pages)
		die("--debug-skip-page %lld: the test memory has pages 0..%llu",
		    (long long)o.skip, (unsigned long long)pages - 1);
	if (o.qemu) {
		validate_qemu(c);
		return;
	}
	if (dlog_is_ring(o.mode)) {
		c->vm.dirty_ring_bytes = DLOG_RING_DEFAULT;
		c->vm.dirty_ring_acq_rel = o.mode == DLOG_RING_ACQ_REL;
	}
	dlog_preflight(o.mode, c->vm.dirty_ring_bytes);
	if (o.to && c->repeat > 1)
		die("--to: a receiver takes one migration; not with --repeat %u",
		    c->repeat);
	/* An unreachable receiver is said before any VM exists. */
	if (o.to)
		o.to_fd = connect_to(o.to);
}

struct mig {
	u32 rounds;
	u64 pages_sent, zero_pages, first_harvest;
	double total_ms, downtime_ms, zero_check_ms, wire_mib;
	double start_ms, stop_ms;
	u64 verified, mismatches;
	/* source side */
	struct wire w;
	pid_t child;
	u64 pages;
	u8 *mem;
	u64 *pending;		/* bitmap: to send */
	u32 *sent_in;		/* round that last sent each page, 0: none */
	struct dlog d;
};

static const struct field mig_fields[] = {
	FIELD(struct mig, total_ms, FIELD_DOUBLE, 10, 1),
	FIELD(struct mig, rounds, FIELD_U32, 7, 0),
	FIELD(struct mig, pages_sent, FIELD_U64, 11, 0),
	FIELD(struct mig, zero_pages, FIELD_U64, 11, 0),
	FIELD(struct mig, wire_mib, FIELD_DOUBLE, 9, 1),
	FIELD(struct mig, downtime_ms, FIELD_DOUBLE, 12, 1),
	FIELD(struct mig, zero_check_ms, FIELD_DOUBLE, 14, 2),
	{ NULL },
};

static const struct field mig_json_fields[] = {
	FIELD(struct mig, first_harvest, FIELD_U64, 0, 0),
	FIELD(struct mig, verified, FIELD_U64, 0, 0),
	FIELD(struct mig, mismatches, FIELD_U64, 0, 0),
	{ NULL },
};

/* "mmubench migrate-receive --fd 3" on the other end of a socket pair. */
static int spawn_receiver(pid_t *child)
{
	int sv[2];

	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv))
		die("migrate: socketpair: %s", strerror(errno));
	*child = fork();
	if (*child < 0)
		die("migrate: fork: %s", strerror(errno));
	if (*child == 0) {
		/* Only exec after fork() in a process with vCPU threads. */
		if (dup2(sv[1], 3) == 3)
			execl("/proc/self/exe", MMUB_NAME, "migrate-receive",
			      "--fd", "3", (char *)NULL);
		_exit(127);
	}
	close(sv[1]);
	return sv[0];
}


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
		if ((s64)p != o.skip && send_page(m, p, round))
			return -1;
	}
	return send_msg(m, WIRE_ROUND, round, 0);
}

/* OR a harvest into the pages to send; how many are pending now. */
static u64 harvest(struct mig *m, u64 *scratch)
{
	dlog_harvest(&m->d);
	dlog_take(&m->d, scratch);
	for (u64 w = 0; w * 64 < m->pages; w++)
		m->pending[w] |= scratch[w];
	return bitmap_weight(m->pending, m->pages);
}

/* Would @n pages go within the downtime, at the cap or the last rate? */
static bool converged(u64 n, double last_rate)
{
	double rate = o.bandwidth ? (double)o.bandwidth : last_rate;

	return rate > 0 && n * MMUB_SZ_4K * 1e3 / rate <= o.downtime_ms;
}

/* Rounds while the vCPUs write; then pause them and copy the rest. */
static int precopy(struct vm *vm, struct mig *m, u64 *scratch)
{
	double t, rate = 0;
	u32 r = 1;
	u64 n, bytes;

	dlog_enable(&m->d, true);
	harvest(m, scratch);
	m->first_harvest = bitmap_weight(m->pending, m->pages);
	if (o.mode != DLOG_CLEAR_INIT_SET)
		memset(m->pending, 0xff, (m->pages + 63) / 64 * 8);
	for (;;) {
		t = now_ms();
		bytes = m->w.bytes;
		if (send_round(m, r))
			return -1;
		rate = (double)(m->w.bytes - bytes) * 1e3 /
		       mmub_max(now_ms() - t, 1e-3);
		n = harvest(m, scratch);
		if (++r > o.max_rounds || converged(n, rate))
			break;
	}
	m->stop_ms = now_ms();
	if (vm_stop_loop(vm))
		return -1;
	harvest(m, scratch);
	if (send_round(m, r) || send_msg(m, WIRE_DONE, r, 0))
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
	oracle_describe(vm, p, where, sizeof(where));
	err_msg("migrate: %s differs at the destination from byte %u on "
		"(0x%llx here, 0x%llx there; %s)", where, i * 8,
		(unsigned long long)a[i], (unsigned long long)b[i], last);
}

/* The destination's hash of every page against ours; bytes of the first. */
static int check(const struct vm *vm, struct mig *m)
{
	struct wire_msg msg;
	u64 *h = calloc(m->pages, sizeof(u64));
	u8 page[MMUB_SZ_4K];
	int ret = -1;

	if (!h || wire_read(m->w.fd, &msg, sizeof(msg)) ||
	    msg.type != WIRE_HASHES || msg.page != m->pages ||
	    wire_read(m->w.fd, h, m->pages * sizeof(u64)))
		goto out;
	for (u64 p = 0; p < m->pages; p++) {
		if (h[p] == wire_page_hash(m->mem + p * MMUB_SZ_4K))
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
	ret = 0;
out:
	free(h);
	return ret;
}

/* After DONE: the destination's ack ends the downtime. */
static int finish(const struct vm *vm, struct mig *m)
{
	struct wire_msg msg;

	if (wire_read(m->w.fd, &msg, sizeof(msg)) || msg.type != WIRE_ACK)
		return -1;
	m->downtime_ms = now_ms() - m->stop_ms;
	m->total_ms = now_ms() - m->start_ms;
	m->wire_mib = (double)m->w.bytes / MMUB_MIB;
	return check(vm, m);
}

/* Its own failure only matters if ours did not cause it (@ok). */
static int end_receiver(struct mig *m, bool ok)
{
	int status = 0;

	close(m->w.fd);
	if (!m->child)
		return 0;
	if (waitpid(m->child, &status, 0) < 0 || !WIFEXITED(status) ||
	    WEXITSTATUS(status)) {
		if (ok)
			err_msg("migrate: the receiver process failed (status "
				"0x%x)", status);
		return -1;
	}
	return 0;
}

static void print_mig(const struct vm *vm, const struct mig *m)
{
	char page[16];

	fmt_size(vm->p.guest_page, page, sizeof(page));
	printf("  %-6s", "page");
	fields_head(mig_fields);
	printf("  %-6s", page);
	fields_row(mig_fields, m);
	printf("  first harvest: %llu pages reported; destination: %llu "
	       "pages checked, %llu differ\n",
	       (unsigned long long)m->first_harvest,
	       (unsigned long long)m->verified,
	       (unsigned long long)m->mismatches);
}

static int migrate_once(struct vm *vm, struct run *run, struct mig *m)
{
	size_t words = m->pages / 64 + 1;
	u64 *scratch = calloc(words, 8);
	int ret;

	m->pending = calloc(words, 8);
	m->sent_in = calloc(m->pages, sizeof(u32));
	if (!scratch || !m->pending || !m->sent_in)
		die("out of memory for the migration's bitmaps");
	ret = run_pass(vm, run, "populate", 0);
	if (!ret) {
		struct wire_hdr hdr = { .magic = WIRE_MAGIC, .pages = m->pages };

		ret = wire_send(&m->w, &hdr, sizeof(hdr)) ||
		      vm_post(vm, MMUB_CMD_LOOP, 1);
	}
	m->start_ms = now_ms();
	ret = ret || precopy(vm, m, scratch) || finish(vm, m);
	dlog_enable(&m->d, false);
	free(scratch);
	free(m->pending);
	free(m->sent_in);
	return ret ? -1 : 0;
}

static int once(struct vm *vm, struct run *run, u32 index, void *arg)
{
	struct mig m = {
		.pages = vm->test.size / MMUB_SZ_4K,
		.mem = vm->test.hva,
	};
	int fd, ret;

	(void)index;
	(void)arg;
	fd = o.to ? o.to_fd : spawn_receiver(&m.child);
	wire_init(&m.w, fd, (double)o.bandwidth);
	run_dlog_init(&m.d, vm, o.mode, 0);
	ret = migrate_once(vm, run, &m);
	if (end_receiver(&m, !ret))
		ret = -1;
	run_dlog_free(&m.d, vm);
	if (!ret) {
		json_t *j = json_object();

		fields_json(j, mig_fields, &m);
		fields_json(j, mig_json_fields, &m);
		jset(j, "bytes", json_integer((json_int_t)m.w.bytes));
		jset(run->json, "migrate", j);
		print_mig(vm, &m);
	}
	if (!ret && m.mismatches) {
		err_msg("migrate: %llu of %llu pages differ at the destination",
			(unsigned long long)m.mismatches,
			(unsigned long long)m.pages);
		ret = -1;
	}
	if (ret && !m.mismatches)
		err_msg("migrate: the migration failed before the check");
	return ret;
}

static int run(struct common *c)
{
	struct run_hooks h = { .once = once };
	struct qemu_migrate_opts q = {
		.bandwidth = o.bandwidth, .downtime_ms = o.downtime_ms,
		.corrupt_page = o.skip,
	};
	char bw[32];

	if (o.qemu)
		return qemu_migrate(c, &q);
	report_header(&c->vm, "migrate");
	if (o.bandwidth)
		fmt_size(o.bandwidth, bw, sizeof(bw));
	printf("migration: --mode %s, %s%s, downtime %u ms, at most %u "
	       "rounds, to %s\n", dlog_mode_names[o.mode],
	       o.bandwidth ? bw : "no cap", o.bandwidth ? "/s" : "",
	       o.downtime_ms, o.max_rounds,
	       o.to ? o.to : "a receiver process (Unix socket)");
	return run_all(c, "migrate",
		       json_pack("{s:s, s:I, s:i, s:i, s:s}", "dirty_mode",
				 dlog_mode_names[o.mode], "bandwidth",
				 (json_int_t)o.bandwidth, "downtime_ms",
				 o.downtime_ms, "max_rounds", o.max_rounds,
				 "to", o.to ? o.to : "local"), &h);
}

const struct scenario scenario_migrate = {
	.name = "migrate",
	.help = "pre-copy live migration while the vCPUs write, to a "
		"receiver process or --to HOST:PORT, at --bandwidth; the "
		"destination checked page by page (seed 000's second table)",
	.opts = opts,
	.parse = parse,
	.validate = validate,
	.run = run,
};
