// SPDX-License-Identifier: GPL-2.0
/*
 * Scenario "migrate" (seed 000's second table): pre-copy live migration
 * of the test memory while the vCPUs keep writing, to a destination
 * process ("migrate-receive", started here on a Unix socket, or on
 * another host with --to), then a byte-for-byte check.  The rounds are
 * in source.c; this file sets the run up and reports it.
 *
 * --table runs one migration per page size (the seed's rows).
 * --invalidate is the arm64 series' own doubt: the guest writes every
 * page (its history), the host invalidates the stage-2 mappings keeping
 * the content, and only then do the working set's writes and logging
 * start.  Whoever trusts a first harvest of mapped pages loses the
 * history the working set does not rewrite; the check counts it.
 *
 * --postcopy N switches after N pre-copy rounds: the vCPUs go on at the
 * destination, which pulls the pages it lacks on their faults while the
 * source pushes the rest (postcopy.c; with --backend qemu, QEMU's
 * postcopy-ram, qemu.c).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <netdb.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include "util/util.h"
#include "util/parse.h"
#include "results/json.h"
#include "scenarios/migrate/source.h"
#include "framework/dlog_opts.h"
#include "framework/oracle.h"
#include "framework/page_rows.h"
#include "scenarios/scenarios.h"
#include "scenarios/migrate/qemu.h"
#include "scenarios/migrate/table.h"
#include "kvm/uffd.h"

/* Linux 6.1; older C libraries do not name it. */
#ifndef MADV_COLLAPSE
#define MADV_COLLAPSE	25
#endif

enum {
	O_BANDWIDTH = 512, O_DOWNTIME, O_MAX_ROUNDS, O_TO, O_SKIP,
	O_TABLE, O_INVALIDATE, O_IDLE, O_BACKEND, O_POSTCOPY, O_FLIP,
	O_BREAK,
};

enum invalidate {
	INV_OFF, INV_NONE, INV_MPROTECT, INV_DONTNEED, INV_COLLAPSE,
};

static const char *const inv_names[] = {
	[INV_OFF] = "off", [INV_NONE] = "none", [INV_MPROTECT] = "mprotect",
	[INV_DONTNEED] = "dontneed",
	[INV_COLLAPSE] = "collapse",
};

static const struct opt opts[] = {
	DLOG_OPT_MODE("clear-init-set"),
	DLOG_OPT_CHUNK,
	DLOG_OPT_RING,
	{ "bandwidth", O_BANDWIDTH, required_argument, "BYTES",
	  "cap on the stream, bytes/s with k/m/g suffix (0: none)" },
	{ "downtime-ms", O_DOWNTIME, required_argument, "MS",
	  "stop and copy once the rest fits in this, 1..100000 (300)" },
	{ "max-rounds", O_MAX_ROUNDS, required_argument, "N",
	  "stop and copy after N rounds anyway, 1..10000 (30)" },
	{ "to", O_TO, required_argument, "HOST:PORT",
	  "send to \"mmubench migrate-receive --listen PORT\" there "
	  "(default: a receiver process here, on a Unix socket)" },
	{ "table", O_TABLE, no_argument, NULL,
	  "one migration per page size, 4K, 2M and 1G (n/a and why where "
	  "this machine has none): the seed's rows" },
	{ "invalidate", O_INVALIDATE, required_argument, "KIND",
	  "the guest first writes every page, then the host invalidates "
	  "its stage-2 mappings keeping the content: mprotect (read-only "
	  "and back), dontneed (MADV_DONTNEED, -s shmem or another shared "
	  "backing, whose page cache keeps it), collapse (MADV_COLLAPSE "
	  "into THPs, -s anonymous), none (the control: nothing "
	  "invalidated)" },
	{ "idle", O_IDLE, no_argument, NULL,
	  "the vCPUs write their working set, then idle while it migrates "
	  "(seed 000's setting: the memory pressure was written before)" },
	{ "postcopy", O_POSTCOPY, required_argument, "N",
	  "post-copy after N pre-copy rounds (0..10000): the vCPUs then run "
	  "at the destination, which pulls the pages it lacks on their "
	  "faults (userfaultfd) while the source pushes the rest; "
	  "anonymous or shmem backings, a receiver here" },
	{ "debug-skip-page", O_SKIP, required_argument, "P",
	  "never send test page P: the check must fail, naming it (with "
	  "--postcopy: sent in no round of either phase; with --backend "
	  "qemu: flip a byte of it at the destination after the "
	  "migration)" },
	DLOG_OPT_NO_COLD,
	DLOG_OPT_DROP("0: the first"),
	DLOG_OPT_DROP_COLD,
	{ "debug-flip-postcopy", O_FLIP, no_argument, NULL,
	  "with --postcopy: flip a byte of the first page the source sends in "
	  "post-copy: the destination's check of its hash must fail the run, "
	  "naming it" },
	{ "debug-break-postcopy", O_BREAK, no_argument, NULL,
	  "with --postcopy: the destination stops reading the stream after "
	  "its first page, as on a corrupt message, while the source sends: "
	  "the run must fail, saying so, and not hang" },
	{ "backend", O_BACKEND, required_argument, "B",
	  "kvm (mmubench's model) or qemu: QEMU's own migration between two "
	  "QEMUs (TCG), its figures in the same table" },
	{ NULL },
};

static struct {
	struct mig_params mp;
	const char *to;
	bool table;
	enum invalidate inv;
	int to_fd;		/* --to's connection, made before the VM */
	bool qemu;
	bool rounds_set;	/* no meaning for QEMU */
	bool downtime_set;	/* nor for post-copy */
} o = {
	.mp = { .dl = DLOG_OPTS(DLOG_CLEAR_INIT_SET), .downtime_ms = 300,
		.max_rounds = 30, .skip = -1 },
	.to_fd = -1,
};

static void parse(int key, const char *arg)
{
	if (dlog_opts_parse(&o.mp.dl, key, arg))
		return;
	switch (key) {
	case O_BANDWIDTH:
		if (mmub_parse_size(arg, &o.mp.bandwidth))
			die("--bandwidth %s: bytes per second, with k/m/g "
			    "suffix (0: no cap)", arg);
		break;
	case O_DOWNTIME:
		o.mp.downtime_ms = (u32)parse_u64("--downtime-ms", arg, 1,
						  100000);
		o.downtime_set = true;
		break;
	case O_POSTCOPY:
		o.mp.postcopy_rounds = (u32)parse_u64("--postcopy", arg, 0,
						      10000);
		o.mp.postcopy = true;
		break;
	case O_MAX_ROUNDS:
		o.mp.max_rounds = (u32)parse_u64("--max-rounds", arg, 1,
						 10000);
		o.rounds_set = true;
		break;
	case O_TO:
		if (!strchr(arg, ':'))
			die("--to %s: HOST:PORT", arg);
		o.to = arg;
		break;
	case O_TABLE:
		o.table = true;
		break;
	case O_IDLE:
		o.mp.idle = true;
		break;
	case O_INVALIDATE:
		for (o.inv = INV_NONE; o.inv <= INV_COLLAPSE; o.inv++)
			if (!strcmp(arg, inv_names[o.inv]))
				return;
		die("--invalidate %s: mprotect, dontneed, collapse or none",
		    arg);
	case O_SKIP:
		o.mp.skip = (s64)parse_u64("--debug-skip-page", arg, 0,
					   1ULL << 40);
		break;
	case O_BACKEND:
		o.qemu = qemu_parse_backend(arg);
		break;
	case O_FLIP:
		o.mp.flip = true;
		break;
	case O_BREAK:
		o.mp.cut = true;
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
			  o.mp.dl.mode != DLOG_CLEAR_INIT_SET ? "--mode" :
			  o.mp.dl.chunk ? "-k" :
			  o.mp.dl.ring_given ? "--ring-size" :
			  o.rounds_set ? "--max-rounds" :
			  o.table ? "--table" :
			  o.mp.idle ? "--idle" :
			  o.inv != INV_OFF ? "--invalidate" :
			  o.mp.dl.drop >= 0 ? "--debug-drop-dirty" :
			  o.mp.dl.drop_cold ? "--debug-drop-cold" :
			  c->repeat > 1 ? "--repeat" : NULL;

	if (bad)
		die("--backend qemu: not with %s (QEMU's migration has its "
		    "own)", bad);
	qemu_check_params(&c->vm);
	c->no_kvm = true;
}

/*
 * Post-copy runs the destination's vCPUs here (postcopy.c), on memory
 * userfaultfd can leave missing 4K at a time.
 */
static void validate_postcopy(struct common *c)
{
	const char *bad = o.to ? "--to" : o.table ? "--table" :
			  o.mp.idle ? "--idle" :
			  o.rounds_set ? "--max-rounds" :
			  o.downtime_set ? "--downtime-ms" : NULL;
	const char *why;

	if (bad)
		die("--postcopy: not with %s (the destination's vCPUs run in "
		    "this process, after exactly N rounds, and fault on what "
		    "it lacks)", bad);
	if (backing_is_hugetlb(c->vm.backing))
		die("--postcopy: backing %s: hugetlb pages arrive whole, not "
		    "in 4K pages (use anonymous, anonymous_thp, shmem or "
		    "memfd)", backing_names[c->vm.backing]);
	why = uffd_unavailable(UFFD_MISSING, false);
	if (why)
		die("--postcopy: %s", why);
	/* The vCPUs' access latency in the post-copy phase. */
	c->vm.wl.flags |= MMUB_WL_LATENCY;
}

static void validate(struct common *c)
{
	u64 pages = c->vm.vcpu_bytes * c->vm.nr_vcpus / MMUB_SZ_4K;

	if (o.mp.skip >= (s64)pages)
		die("--debug-skip-page %lld: the test memory has pages 0..%llu",
		    (long long)o.mp.skip, (unsigned long long)pages - 1);
	if ((o.mp.flip || o.mp.cut) && !o.mp.postcopy)
		die("--debug-%s-postcopy: needs --postcopy N, whose stream it "
		    "%s", o.mp.flip ? "flip" : "break",
		    o.mp.flip ? "corrupts" : "breaks");
	dlog_opts_check(&o.mp.dl, false);
	if (o.qemu) {
		validate_qemu(c);
		return;
	}
	if (o.mp.postcopy)
		validate_postcopy(c);
	/*
	 * Pages written once per window, which no later write can hide, and
	 * cold pages, written before logging and never again.
	 */
	if (!o.mp.idle)
		oracle_shape(&c->vm, !o.mp.dl.no_cold);
	if (dlog_opts_drops(&o.mp.dl) && o.table)
		die("--debug-drop-%s: not with --table, whose runs must pass",
		    o.mp.dl.drop_cold ? "cold" : "dirty");
	if (o.mp.dl.drop_cold && o.mp.idle)
		die("--debug-drop-cold: the cold pages are those the writing "
		    "vCPUs leave alone; not with --idle");
	if (o.to && o.table)
		die("--to: a receiver takes one migration; not with --table");
	if (o.to && c->repeat > 1)
		die("--to: a receiver takes one migration; not with --repeat "
		    "%u", c->repeat);
	if (o.table && (c->given & (GIVEN_BACKING | GIVEN_PAGE)))
		die("--table: each row sets its own backing and page size; "
		    "not with -s or --guest-page");
	if (o.inv == INV_COLLAPSE && c->vm.backing != BACKING_ANONYMOUS)
		die("--invalidate collapse: collapses 4K anonymous memory; "
		    "not with -s %s", backing_names[c->vm.backing]);
	if (o.inv == INV_DONTNEED && !backing_is_file(c->vm.backing))
		die("--invalidate dontneed: keeps the content only on a shared "
		    "backing (-s shmem, shared_hugetlb or memfd); "
		    "anonymous memory would lose it, not -s %s",
		    backing_names[c->vm.backing]);
	if (o.inv == INV_COLLAPSE && o.table)
		die("--invalidate collapse: 4K anonymous memory only; not "
		    "with --table");
	/* What the kernel offers comes after what the options allow. */
	dlog_opts_apply(&o.mp.dl, &c->vm);
	/* An unreachable receiver is said before any VM exists. */
	if (o.to)
		o.to_fd = connect_to(o.to);
}

static const struct field mig_fields[] = {
	MIG_TABLE_FIELDS(struct mig),
	FIELD(struct mig, zero_check_ms, FIELD_DOUBLE, 14, 2),
	{ NULL },
};

static const struct field mig_json_fields[] = {
	FIELD(struct mig, first_harvest, FIELD_U64, 0, 0),
	FIELD(struct mig, verified, FIELD_U64, 0, 0),
	FIELD(struct mig, mismatches, FIELD_U64, 0, 0),
	FIELD(struct mig, cold_pages, FIELD_U64, 0, 0),
	FIELD_AS("cold_sent_first_round", struct mig, cold_first, FIELD_U64,
		 0, 0),
	FIELD_AS("cold_sent_later", struct mig, cold_later, FIELD_U64, 0, 0),
	FIELD_AS("cold_never_sent", struct mig, cold_never, FIELD_U64, 0, 0),
	FIELD_AS("cold_differ", struct mig, cold_differ, FIELD_U64, 0, 0),
	FIELD(struct mig, cold_in_first_harvest, FIELD_U64, 0, 0),
	{ NULL },
};

/*
 * --debug-drop-dirty or --debug-drop-cold must fail the run: not
 * dropping, or not caught.
 */
static bool drop_unseen(const struct dlog *d, const struct mig *m)
{
	if (dlog_drop_none(d, o.mp.dl.drop, !o.mp.idle))
		return true;
	if (!m->mismatches) {
		err_msg("--debug-drop-%s: the destination has the page "
			"dropped from harvest %u right%s",
			o.mp.dl.drop_cold ? "cold" : "dirty",
			d->dropped_harvest, o.mp.dl.drop_cold ? "" :
			" (written and sent again later: drop from the last "
			"harvest)");
		return true;
	}
	return false;
}

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

/* Its own failure only matters if ours did not cause it (@ok). */
static int end_receiver(int fd, pid_t child, bool ok)
{
	int status = 0;

	close(fd);
	if (!child)
		return 0;
	if (waitpid(child, &status, 0) < 0 || !WIFEXITED(status) ||
	    WEXITSTATUS(status)) {
		if (ok)
			err_msg("migrate: the receiver process failed (status "
				"0x%x)", status);
		return -1;
	}
	return 0;
}

/* Drop the test memory's stage-2 mappings; its content stays. */
static int invalidate(struct vm *vm)
{
	void *a = vm->test.hva;
	size_t n = vm->test.size;

	switch (o.inv) {
	case INV_MPROTECT:
		if (backing_drop_mappings(&vm->test)) {
			err_msg("--invalidate mprotect: %s", strerror(errno));
			return -1;
		}
		return 0;
	case INV_DONTNEED:
		if (madvise(a, n, MADV_DONTNEED)) {
			err_msg("--invalidate dontneed: %s", strerror(errno));
			return -1;
		}
		return 0;
	case INV_COLLAPSE:
		if (madvise(a, n, MADV_HUGEPAGE) ||
		    madvise(a, n, MADV_COLLAPSE)) {
			err_msg("--invalidate collapse: MADV_COLLAPSE: %s "
				"(needs Linux 6.1 with "
				"CONFIG_TRANSPARENT_HUGEPAGE)",
				strerror(errno));
			return -1;
		}
		return 0;
	default:
		return 0;
	}
}

/*
 * What the guest wrote before the migration: its working set, or with
 * --invalidate every page, then the mappings dropped.
 */
static int history(struct vm *vm, struct run *run)
{
	struct phase *p;

	/* The cold pages are written here, FILL writes them with the rest. */
	if (o.inv == INV_OFF)
		return run_pass(vm, run, "populate", 0) || vm_write_cold(vm);
	p = run_phase_begin(vm, run, "history");
	vm_post(vm, MMUB_CMD_FILL, 0);
	if (vm_wait(vm))
		return -1;
	run_phase_end(vm, p);
	p = run_phase_begin(vm, run, "invalidate");
	if (invalidate(vm))
		return -1;
	run_phase_end(vm, p);
	return 0;
}

static int migrate_once(struct vm *vm, struct run *run, struct mig *m)
{
	struct wire_hdr hdr = { .magic = WIRE_MAGIC, .pages = m->pages };

	if (history(vm, run) || wire_send(&m->w, &hdr, sizeof(hdr)) ||
	    (!o.mp.idle && vm_post(vm, MMUB_CMD_LOOP, 1)))
		return -1;
	return mig_source_run(vm, m);
}

/*
 * The post-copy phase: what the destination lacked and how it came, the
 * pulls' latency from the fault to the page installed.
 */
static json_t *postcopy_json(const struct mig_postcopy *pc)
{
	return json_pack("{s:i, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:o, s:o, "
			 "s:o}",
			 "rounds_before", (int)o.mp.postcopy_rounds,
			 "pages", (json_int_t)pc->pages,
			 "pulled", (json_int_t)pc->pulled,
			 "pushed", (json_int_t)pc->pushed,
			 "faults", (json_int_t)pc->faults,
			 "missing", (json_int_t)pc->missing,
			 "bad", (json_int_t)pc->bad,
			 "bytes", (json_int_t)pc->bytes,
			 "postcopy_ms", jnum(pc->postcopy_ms),
			 "staging_ms", jnum(pc->staging_ms),
			 "pull_latency", hist_us_json(&pc->pull_ns));
}

static void print_postcopy(const struct mig_postcopy *pc)
{
	const struct mmub_hist *h = &pc->pull_ns;

	printf("  post-copy: %.1f ms; the destination lacked %llu pages: "
	       "%llu pulled on the vCPUs' %llu faults, %llu pushed; pull "
	       "latency p50 %.1f us, p99 %.1f us, max %.1f us (the model's "
	       "staging, %.1f ms, not counted)\n", pc->postcopy_ms,
	       (unsigned long long)pc->pages, (unsigned long long)pc->pulled,
	       (unsigned long long)pc->faults, (unsigned long long)pc->pushed,
	       hist_us(h, 500000), hist_us(h, 990000), hist_us(h, 1000000),
	       pc->staging_ms);
}

/* The vCPUs' accesses over the post-copy phase, all vCPUs together. */
static void print_access(const struct vm *vm, const struct run *run)
{
	const struct phase *ph = NULL;
	struct mmub_hist all;

	for (u32 k = 0; k < run->nph; k++)
		if (!strcmp(run->ph[k].name, "postcopy"))
			ph = &run->ph[k];
	if (!ph || !ph->lat)
		return;
	phase_latency(ph, &all);
	printf("  the vCPUs' %llu accesses during it: p50 %.2f us, p99 %.2f "
	       "us, p99.9 %.2f us, max %.1f us\n",
	       (unsigned long long)all.count,
	       access_ns(vm, &all, 500000) / 1e3,
	       access_ns(vm, &all, 990000) / 1e3,
	       access_ns(vm, &all, 999000) / 1e3,
	       access_ns(vm, &all, 1000000) / 1e3);
}

/* "page" files the run under its table row in compare. */
static void mig_json(const struct vm *vm, json_t *run, const struct mig *m)
{
	json_t *j = json_object();
	char page[16];

	fields_json(j, mig_fields, m);
	fields_json(j, mig_json_fields, m);
	jset(j, "bytes", json_integer((json_int_t)(m->w.bytes +
						     m->pc.bytes)));
	if (o.mp.postcopy)
		jset(j, "postcopy", postcopy_json(&m->pc));
	jset(run, "migrate", j);
	jset(run, "page", json_string(fmt_size(vm->p.guest_page, page,
						sizeof(page))));
	jset(run, "backing", json_string(backing_names[vm->p.backing]));
}

static void print_row(const char *name, const struct mig *m)
{
	printf("  %-6s", name);
	fields_row(mig_fields, m);
}

static void print_mig(const struct vm *vm, const struct run *run,
		      const struct mig *m)
{
	char page[16];

	printf("  %-6s", "page");
	fields_head(mig_fields);
	print_row(fmt_size(vm->p.guest_page, page, sizeof(page)), m);
	if (o.mp.postcopy) {
		print_postcopy(&m->pc);
		print_access(vm, run);
	}
	printf("  first harvest: %llu pages reported; destination: %llu "
	       "pages checked, %llu differ\n",
	       (unsigned long long)m->first_harvest,
	       (unsigned long long)m->verified,
	       (unsigned long long)m->mismatches);
	if (m->cold_pages)
		printf("  cold pages (written before logging, never since): "
		       "%llu in the first harvest; %llu checked at the "
		       "destination, %llu differ; sent in round 1: %llu, later: "
		       "%llu, never: %llu\n",
		       (unsigned long long)m->cold_in_first_harvest,
		       (unsigned long long)m->cold_pages,
		       (unsigned long long)m->cold_differ,
		       (unsigned long long)m->cold_first,
		       (unsigned long long)m->cold_later,
		       (unsigned long long)m->cold_never);
}

static int once(struct vm *vm, struct run *run, u32 index, void *arg)
{
	struct mig *m = arg ? (struct mig *)arg + index : &(struct mig){ 0 };
	struct dlog d;
	pid_t child = 0;
	int fd, ret;

	*m = (struct mig){
		.p = &o.mp, .d = &d, .pages = vm->test.size / MMUB_SZ_4K,
		.mem = vm->test.hva, .run = run,
	};
	fd = o.to ? o.to_fd : spawn_receiver(&child);
	wire_init(&m->w, fd, (double)o.mp.bandwidth);
	dlog_opts_init(&d, vm, &o.mp.dl);
	if (o.mp.dl.drop >= 0)
		dlog_debug_drop(&d, (u64)o.mp.dl.drop);
	ret = migrate_once(vm, run, m);
	if (end_receiver(fd, child, !ret))
		ret = -1;
	run_dlog_free(&d, vm);
	if (!ret) {
		mig_json(vm, run->json, m);
		if (!arg)
			print_mig(vm, run, m);
	}
	if (!ret && m->mismatches) {
		err_msg("migrate: %llu of %llu pages differ at the destination "
			"(the first harvest reported %llu dirty)",
			(unsigned long long)m->mismatches,
			(unsigned long long)m->pages,
			(unsigned long long)m->first_harvest);
		ret = -1;
	}
	if (dlog_opts_drops(&o.mp.dl) && drop_unseen(&d, m))
		ret = -1;
	if (ret && !m->mismatches)
		err_msg("migrate: the migration failed before the check");
	return ret;
}

/* The run of a row with the median total time: a real run, not a blend. */
static const struct mig *median_run(const struct mig *runs, u32 n)
{
	u32 best = 0, below, i, k;

	for (i = 0; i < n; i++) {
		for (below = 0, k = 0; k < n; k++)
			below += runs[k].total_ms < runs[i].total_ms;
		if (below <= n / 2 && below >= (n - 1) / 2) {
			best = i;
			break;
		}
	}
	return &runs[best];
}

/* The sweep's cells: the page rows, --repeat migrations each. */
struct mig_sweep {
	const struct common *c;
	struct mig *runs;	/* the row's, one per repetition */
};

static void mig_cell(u32 r, struct sweep_cell *sc, void *arg)
{
	struct mig_sweep *ms = arg;
	const struct page_row *row = &page_rows[r];

	page_row_params(&sc->vp, row);
	sc->na = page_row_unavailable(&sc->vp, row);
	if (sc->na)
		sc->na_run = json_pack("{s:s, s:s, s:s}", "page", row->name,
				       "backing", backing_names[row->backing],
				       "na", sc->na);
	memset(ms->runs, 0, ms->c->repeat * sizeof(*ms->runs));
	sc->h = (struct run_hooks){ .once = once, .arg = ms->runs };
	snprintf(sc->label, sizeof(sc->label), "%s", row->name);
}

/* A row's line: the median run, or n/a and why. */
static void mig_row_done(u32 r, const char *na, void *arg)
{
	struct mig_sweep *ms = arg;
	const struct page_row *row = &page_rows[r];

	if (!na) {
		print_row(row->name, median_run(ms->runs, ms->c->repeat));
		return;
	}
	printf("  %-6s n/a: %s\n", row->name, na);
}

static json_t *config(void)
{
	return json_pack("{s:s, s:I, s:i, s:i, s:s, s:b, s:s, s:b, s:o}",
			 "dirty_mode", dlog_mode_names[o.mp.dl.mode], "bandwidth",
			 (json_int_t)o.mp.bandwidth, "downtime_ms",
			 o.mp.downtime_ms, "max_rounds", o.mp.max_rounds,
			 "to", o.to ? o.to : "local", "table", o.table,
			 "invalidate", inv_names[o.inv], "idle", o.mp.idle,
			 "postcopy_rounds", o.mp.postcopy ?
			 json_integer(o.mp.postcopy_rounds) : json_null());
}

static int run_table(const struct common *c)
{
	struct mig_sweep ms = {
		.c = c, .runs = calloc(c->repeat, sizeof(struct mig)),
	};
	struct sweep s = {
		.title = "migrate --table", .ncells = NR_PAGE_ROWS,
		.runs = c->repeat, .cell = mig_cell, .done = mig_row_done,
		.arg = &ms,
	};
	struct doc doc;
	int ret;

	if (!ms.runs)
		die("out of memory");
	printf("one migration per page size, each vCPU's share rounded up to "
	       "it; the run with the median total_ms of %u\n\n", c->repeat);
	doc_begin(&doc, c, "migrate", config());
	printf("  %-6s", "page");
	fields_head(mig_fields);
	ret = run_sweep(&doc, c, &s);
	free(ms.runs);
	if (ret) {
		doc_free(&doc);
		return 1;
	}
	doc_finish(&doc);
	return 0;
}

static int run(struct common *c)
{
	struct run_hooks h = { .once = once };
	struct qemu_migrate_opts q = {
		.bandwidth = o.mp.bandwidth, .downtime_ms = o.mp.downtime_ms,
		.corrupt_page = o.mp.skip,
		.postcopy_rounds = o.mp.postcopy ? (s64)o.mp.postcopy_rounds : -1,
	};
	char bw[32];

	if (o.qemu)
		return qemu_migrate(c, &q);
	report_header(&c->vm, "migrate");
	if (o.mp.bandwidth)
		fmt_size(o.mp.bandwidth, bw, sizeof(bw));
	if (o.mp.postcopy)
		printf("migration: --mode %s, %s%s, post-copy after %u "
		       "pre-copy rounds, to a receiver process (Unix socket); "
		       "the vCPUs then run here as the destination's\n",
		       dlog_mode_names[o.mp.dl.mode],
		       o.mp.bandwidth ? bw : "no cap",
		       o.mp.bandwidth ? "/s" : "", o.mp.postcopy_rounds);
	else
		printf("migration: --mode %s, %s%s, downtime %u ms, at most %u "
		       "rounds, to %s\n", dlog_mode_names[o.mp.dl.mode],
		       o.mp.bandwidth ? bw : "no cap",
		       o.mp.bandwidth ? "/s" : "", o.mp.downtime_ms,
		       o.mp.max_rounds,
		       o.to ? o.to : "a receiver process (Unix socket)");
	if (o.mp.idle)
		printf("the vCPUs write their working set, then idle\n");
	if (o.inv != INV_OFF)
		printf("before logging: the guest writes every page, then "
		       "--invalidate %s\n", inv_names[o.inv]);
	if (o.table)
		return run_table(c);
	return run_all(c, "migrate", config(), &h);
}

/*
 * Seed 000's second table: what the first harvest lets a migration
 * skip.  Counts of pages and bytes move only with the kernel (10 %);
 * the times are a first guess, to check against the A/A noise floor.
 */
static const struct metric_def metrics[] = {
	{ "total_ms", "results.runs[].migrate.total_ms", "ms",
	  BETTER_LOWER, 25 },
	{ "first_harvest", "results.runs[].migrate.first_harvest", "pages" },
	{ "pages_sent", "results.runs[].migrate.pages_sent", "pages",
	  BETTER_LOWER, 10 },
	{ "zero_pages", "results.runs[].migrate.zero_pages", "pages" },
	{ "bytes", "results.runs[].migrate.bytes", "bytes", BETTER_LOWER, 10 },
	{ "downtime_ms", "results.runs[].migrate.downtime_ms", "ms",
	  BETTER_LOWER, 50 },
	{ "zero_check_ms", "results.runs[].migrate.zero_check_ms", "ms",
	  BETTER_LOWER },
	{ "mismatches", "results.runs[].migrate.mismatches", "pages",
	  BETTER_LOWER },
	{ "postcopy_ms", "results.runs[].migrate.postcopy.postcopy_ms", "ms",
	  BETTER_LOWER, 25 },
	{ "postcopy_pulled", "results.runs[].migrate.postcopy.pulled",
	  "pages" },
	{ "postcopy_pull_p99_us",
	  "results.runs[].migrate.postcopy.pull_latency.p99_us", "us",
	  BETTER_LOWER, 50 },
	{ "postcopy_latency_p99_ns_max",
	  "max:results.runs[].phases[name=postcopy].vcpus[].latency_ns.p99",
	  "ns", BETTER_LOWER, 50 },
	{ NULL }
};

/* A --table document's runs are page sizes. */
static const char *const row_keys[] = { "page", NULL };

const struct scenario scenario_migrate = {
	.name = "migrate",
	.brief = "pre-copy or post-copy live migration, checked page by page",
	.help = "pre-copy (or --postcopy) live migration while the vCPUs "
		"write, to a receiver process or --to HOST:PORT, at "
		"--bandwidth; the destination checked page by page (seed "
		"000's second table)",
	.opts = opts,
	.parse = parse,
	.validate = validate,
	.run = run,
	.metrics = metrics,
	.row_keys = row_keys,
};
