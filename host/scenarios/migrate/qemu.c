// SPDX-License-Identifier: GPL-2.0
/*
 * "migrate --backend qemu": the same scenario through QEMU's own live
 * migration, as an anchor for mmubench's model of it.
 *
 *  start     two QEMUs (TCG) boot the same guest with the same words and
 *            a pass count that outlasts the migration; each one's RAM is
 *            a shared file in a private directory, so that both can be
 *            read from here.  The destination waits with -incoming defer
 *            and -S, so it stays paused once the migration is in.
 *  migrate   over QMP, once the source's guest has finished a pass (so it
 *            is writing): max-bandwidth (and max-postcopy-bandwidth) and
 *            downtime-limit, then migrate to the destination's Unix
 *            socket, and query-migrate until QEMU says completed or
 *            failed.
 *  check     the source stopped (postmigrate), the destination paused:
 *            their RAM files compared page by page.
 *
 * With --postcopy N: postcopy-ram on both (and postcopy-blocktime on the
 * destination), migrate-start-postcopy once QEMU has synced its bitmap
 * N + 1 times (its first sync starts round 1), and the destination runs
 * the vCPUs from the switch on (no -S).  When QEMU says completed, the
 * destination is stopped and its figures read: the pages it requested
 * and the time its vCPUs were blocked on missing pages.  Its guest wrote
 * on after the switch, so the check is of the test memory only, word by
 * word: equal to the source's at the switch, or a stamp this vCPU wrote
 * since (its generation later).  The rest of RAM, the guest's own state,
 * has changed and is not compared.
 *
 * The table is QEMU's own figures; it does not report the first harvest
 * or the time spent zero-checking, so those are "-" and JSON null.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include "util/util.h"
#include "util/cleanup.h"
#include "util/progress.h"
#include "results/json.h"
#include "backend/qemu.h"
#include "backend/qmp.h"
#include "scenarios/migrate/qemu.h"
#include "scenarios/migrate/table.h"

/* The guest's passes= cap: far longer than any migration here. */
#define FOREVER_PASSES	1000000
/*
 * QEMU's default max-bandwidth is a cap (128 MiB/s on 7.2, as
 * query-migrate-parameters says), and its documentation does not say
 * that 0 means none: "no cap" is 1 TiB/s.
 */
#define NO_CAP		(1ULL << 40)
#define SHOW_MISMATCHES	4
#define PATH_LEN	128

struct side {
	const char *who;	/* "the source QEMU" */
	struct qemu_cmd cmd;
	char ram[PATH_LEN], qmp_path[PATH_LEN], out[PATH_LEN], err[PATH_LEN];
	char backend[PATH_LEN + 96], qmp_arg[PATH_LEN + 32];
	pid_t pid;
	int kill_h;
	int ram_fd;		/* its RAM file, held open once unlinked */
	struct qmp qmp;
};

struct qmig {
	const struct common *c;
	const struct qemu_migrate_opts *o;
	char dir[80], sock[PATH_LEN], uri[PATH_LEN + 8];
	int undo[16], nr_undo;
	struct side src, dst;
	double deadline;
	u64 test_gpa;
	/* QEMU's figures, then the check's */
	double total_ms, downtime_ms, wire_mib;
	u32 rounds;
	u64 pages_sent, zero_pages, bytes;
	u64 verified, mismatches, test_mismatches;
	const char *not_reported;	/* NULL: "-" in the table, JSON null */
	/* post-copy: requests, vCPU blocked time at the destination */
	u64 pulled;
	double blocktime_ms;
	json_t *vcpu_blocktime;
	char version[32];	/* the QEMU's */
	u64 pad;		/* RAM added for QEMU before 9.0 */
};

/* A private directory for the RAM files and sockets, gone at any exit. */
static void make_dir(struct qmig *m)
{
	const char *base = getenv("TMPDIR") ?: "/tmp";
	static const char *const names[] = {
		"src.ram", "dst.ram", "src.qmp", "dst.qmp", "src.out",
		"dst.out", "src.err", "dst.err", "mig.sock",
	};
	char path[PATH_LEN + 16];

	/* tmpfs: RAM files that cost no disk I/O. */
	if (!access("/dev/shm", W_OK))
		base = "/dev/shm";
	/* The sockets' paths must fit a sockaddr_un. */
	if ((size_t)snprintf(m->dir, sizeof(m->dir), "%s/mmubench-migrate."
			     "XXXXXX", base) >= sizeof(m->dir))
		die("--backend qemu: TMPDIR %s: too long a path for a Unix "
		    "socket in it", base);
	if (!mkdtemp(m->dir))
		die("--backend qemu: cannot make a directory in %s: %s", base,
		    strerror(errno));
	m->undo[m->nr_undo++] = cleanup_push(CLEANUP_RMDIR, m->dir, NULL);
	for (size_t i = 0; i < MMUB_ARRAY_SIZE(names); i++) {
		snprintf(path, sizeof(path), "%s/%s", m->dir, names[i]);
		m->undo[m->nr_undo++] = cleanup_push(CLEANUP_UNLINK, path,
						      NULL);
	}
	snprintf(m->sock, sizeof(m->sock), "%s/mig.sock", m->dir);
	snprintf(m->uri, sizeof(m->uri), "unix:%s", m->sock);
}

static void side_init(struct qmig *m, struct side *s, const char *who,
		      const char *tag)
{
	s->who = who;
	s->pid = 0;
	s->kill_h = -1;
	s->ram_fd = -1;
	s->qmp.fd = -1;
	snprintf(s->ram, sizeof(s->ram), "%s/%.3s.ram", m->dir, tag);
	snprintf(s->qmp_path, sizeof(s->qmp_path), "%s/%.3s.qmp", m->dir, tag);
	snprintf(s->out, sizeof(s->out), "%s/%.3s.out", m->dir, tag);
	snprintf(s->err, sizeof(s->err), "%s/%.3s.err", m->dir, tag);
	qemu_cmd_init(&s->cmd, &m->c->vm, FOREVER_PASSES, QEMU_X86_PC);
	snprintf(s->backend, sizeof(s->backend),
		 "memory-backend-file,id=mmub-ram,size=%llu,mem-path=%s,"
		 "share=on", (unsigned long long)s->cmd.ram_bytes, s->ram);
	snprintf(s->qmp_arg, sizeof(s->qmp_arg), "unix:%s,server=on,wait=off",
		 s->qmp_path);
	qemu_cmd_add(&s->cmd, "-object");
	qemu_cmd_add(&s->cmd, s->backend);
	qemu_cmd_add(&s->cmd, "-machine");
	qemu_cmd_add(&s->cmd, "memory-backend=mmub-ram");
	qemu_cmd_add(&s->cmd, "-qmp");
	qemu_cmd_add(&s->cmd, s->qmp_arg);
}

/* The serial port into s->out, QEMU's messages s->err; killed at exit. */
static void start(struct side *s)
{
	int flags = O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC;
	int out = open(s->out, flags, 0600), err = open(s->err, flags, 0600);
	int null = open("/dev/null", O_RDONLY | O_CLOEXEC);
	pid_t parent = getpid();

	if (out < 0 || err < 0 || null < 0)
		die("--backend qemu: cannot open its output files in %s: %s",
		    s->out, strerror(errno));
	s->pid = fork();
	if (s->pid < 0)
		die("--backend qemu: fork: %s", strerror(errno));
	if (!s->pid) {
		/* Not even a SIGKILL of ours may leave it running. */
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		if (getppid() != parent)
			_exit(127);
		dup2(null, 0);
		dup2(out, 1);
		dup2(err, 2);
		execvp(s->cmd.argv[0], s->cmd.argv);
		/* Not stderr: its lock may be held by a thread not copied here. */
		dprintf(STDERR_FILENO, "exec %s: %s\n", s->cmd.argv[0],
			strerror(errno));
		_exit(127);
	}
	s->kill_h = cleanup_push_kill(s->pid);
	close(out);
	close(err);
	close(null);
}

/* What QEMU last said on its stderr, to explain a failure. */
static void say_output(const struct side *s)
{
	char buf[4096], *line, *save = NULL, *last = NULL;
	int fd = open(s->err, O_RDONLY | O_CLOEXEC);
	off_t size = fd < 0 ? 0 : lseek(fd, 0, SEEK_END);
	off_t from = size > (off_t)sizeof(buf) - 1 ?
		     size - (off_t)sizeof(buf) + 1 : 0;
	ssize_t n;

	if (fd < 0)
		return;
	n = pread(fd, buf, sizeof(buf) - 1, from);
	close(fd);
	buf[n > 0 ? n : 0] = 0;
	for (line = strtok_r(buf, "\r\n", &save); line;
	     line = strtok_r(NULL, "\r\n", &save))
		last = line;
	if (last)
		err_msg("%s said: %s", s->who, last);
}

static void stop(struct side *s)
{
	qmp_close(&s->qmp);
	if (s->ram_fd >= 0)
		close(s->ram_fd);
	s->ram_fd = -1;
	if (s->pid <= 0)
		return;
	cleanup_run_one(s->kill_h);
	waitpid(s->pid, NULL, 0);
	s->pid = 0;
}

/* Both QEMUs gone, then their files and the directory (newest first). */
static void teardown(struct qmig *m)
{
	stop(&m->src);
	stop(&m->dst);
	while (m->nr_undo)
		cleanup_run_one(m->undo[--m->nr_undo]);
}

/*
 * Until the source's guest has reported a pass: it is writing now.  Its
 * start line says where the test memory is in guest-physical memory.
 */
static int wait_writing(struct qmig *m)
{
	static char buf[65536];
	unsigned long long gpa;
	const char *at;
	ssize_t n;
	int fd;

	for (;;) {
		fd = open(m->src.out, O_RDONLY | O_CLOEXEC);
		n = fd < 0 ? -1 : pread(fd, buf, sizeof(buf) - 1, 0);
		if (fd >= 0)
			close(fd);
		buf[n > 0 ? n : 0] = 0;
		if (strstr(buf, "\nMMUB pass=") ||
		    !strncmp(buf, "MMUB pass=", 10))
			break;
		if (strstr(buf, "MMUB error") || strstr(buf, "MMUB fault") ||
		    waitpid(m->src.pid, NULL, WNOHANG) == m->src.pid) {
			err_msg("--backend qemu: the source's guest stopped "
				"before its first pass");
			say_output(&m->src);
			return -1;
		}
		if (now_ms() > m->deadline) {
			err_msg("--backend qemu: the source's guest did not "
				"finish a pass in time (--watchdog)");
			return -1;
		}
		usleep(20000);
	}
	at = strstr(buf, "test_gpa=");
	if (!at || sscanf(at, "test_gpa=0x%llx", &gpa) != 1) {
		err_msg("--backend qemu: no test_gpa= in the guest's start "
			"line");
		return -1;
	}
	m->test_gpa = gpa;
	return 0;
}

/* QEMU answers a command at once; the run's deadline is for waits. */
static double reply_by(void)
{
	return now_ms() + 10000;
}

static int exec_ok(struct side *s, const char *cmd, json_t *args,
		   double deadline)
{
	json_t *r = qmp_exec(&s->qmp, cmd, args, deadline);

	json_decref(r);
	return r ? 0 : -1;
}

static u64 jint(const json_t *o, const char *k)
{
	return (u64)json_integer_value(json_object_get(o, k));
}

/* On a terminal (util/progress.h): QEMU's own view of where it is. */
static void progress(const json_t *r)
{
	const json_t *ram = json_object_get(r, "ram");

	if (!ram)
		return;
	progress_detail("round %llu, %llu dirty pages pending, %.1f MiB/s, "
			"%.1f MiB sent",
			(unsigned long long)jint(ram, "dirty-sync-count"),
			(unsigned long long)(jint(ram, "remaining") /
					     MMUB_SZ_4K),
			json_number_value(json_object_get(ram, "mbps")) * 1e6 /
			8 / MMUB_MIB, (double)jint(ram, "transferred") /
			MMUB_MIB);
}

/* Poll query-migrate until QEMU is done; take its figures. */
static int wait_completed(struct qmig *m)
{
	json_t *r, *ram;
	const char *st;

	for (;;) {
		r = qmp_exec(&m->src.qmp, "query-migrate", NULL, reply_by());
		if (!r)
			return -1;
		st = json_string_value(json_object_get(r, "status")) ?: "";
		/*
		 * QEMU 7.2 says completed before it has computed total-time
		 * and downtime: migration_calculate_complete() runs after the
		 * state change (upstream later moved it ahead, "so that the
		 * status MIGRATION_STATUS_COMPLETED is only emitted after the
		 * final counters update").  Read at once, both were 0 in 1
		 * of about 25 runs here.
		 */
		if (!strcmp(st, "completed") && jint(r, "total-time") > 0)
			break;
		if (!strcmp(st, "failed") || !strcmp(st, "cancelled")) {
			err_msg("--backend qemu: QEMU's migration %s: %s", st,
				json_string_value(json_object_get(r,
					"error-desc")) ?: "no error-desc");
			json_decref(r);
			return -1;
		}
		if (now_ms() > m->deadline) {
			err_msg("--backend qemu: the migration was still %s "
				"after --watchdog %u s (is the guest dirtying "
				"faster than --bandwidth?)", st,
				m->c->vm.watchdog_s);
			json_decref(r);
			return -1;
		}
		progress(r);
		json_decref(r);
		usleep(20000);
	}
	ram = json_object_get(r, "ram");
	m->total_ms = (double)jint(r, "total-time");
	m->downtime_ms = (double)jint(r, "downtime");
	m->rounds = (u32)jint(ram, "dirty-sync-count");
	m->zero_pages = jint(ram, "duplicate");
	m->pages_sent = jint(ram, "normal") + m->zero_pages;
	m->bytes = jint(ram, "transferred");
	m->pulled = jint(ram, "postcopy-requests");
	m->wire_mib = (double)m->bytes / MMUB_MIB;
	json_decref(r);
	return 0;
}

/* The run state of @s, as query-status names it ("" if unknown). */
static int run_state(struct side *s, char *buf, size_t len)
{
	json_t *r = qmp_exec(&s->qmp, "query-status", NULL, reply_by());

	if (!r)
		return -1;
	snprintf(buf, len, "%s",
		 json_string_value(json_object_get(r, "status")) ?: "");
	json_decref(r);
	return 0;
}

/*
 * The source says completed once it has sent everything; the destination
 * may still be loading it, so wait for it to leave "inmigrate".
 */
static int both_stopped(struct qmig *m)
{
	char s[32], d[32];

	do {
		if (run_state(&m->dst, d, sizeof(d)))
			return -1;
		if (!strcmp(d, "inmigrate"))
			usleep(20000);
	} while (!strcmp(d, "inmigrate") && now_ms() < m->deadline);
	if (run_state(&m->src, s, sizeof(s)))
		return -1;
	if (strcmp(s, "postmigrate") || strcmp(d, "paused")) {
		err_msg("--backend qemu: after the migration the source is "
			"\"%s\" and the destination \"%s\" (expected "
			"postmigrate and paused)", s, d);
		return -1;
	}
	return 0;
}

static int set_postcopy(struct side *s, bool blocktime)
{
	json_t *caps = json_pack("{s:[{s:s, s:b}]}", "capabilities",
				 "capability", "postcopy-ram", "state", 1);

	if (blocktime)
		json_array_append_new(json_object_get(caps, "capabilities"),
				      json_pack("{s:s, s:b}", "capability",
						"postcopy-blocktime", "state",
						1));
	return exec_ok(s, "migrate-set-capabilities", caps, reply_by());
}

/* Until QEMU has synced its dirty bitmap @n times. */
static int wait_syncs(struct qmig *m, u64 n)
{
	json_t *r;
	u64 got;

	for (;;) {
		r = qmp_exec(&m->src.qmp, "query-migrate", NULL, reply_by());
		if (!r)
			return -1;
		got = jint(json_object_get(r, "ram"), "dirty-sync-count");
		json_decref(r);
		if (got >= n)
			return 0;
		if (now_ms() > m->deadline)
			return -1;
		usleep(1000);
	}
}

/*
 * Post-copy's destination is running: stop it, after reading how long
 * its vCPUs waited for pages (postcopy-blocktime).
 */
static int stop_destination(struct qmig *m)
{
	json_t *r;

	r = qmp_exec(&m->dst.qmp, "query-migrate", NULL, reply_by());
	if (!r)
		return -1;
	m->blocktime_ms = (double)jint(r, "postcopy-blocktime");
	m->vcpu_blocktime = json_incref(json_object_get(r,
				"postcopy-vcpu-blocktime"));
	json_decref(r);
	return exec_ok(&m->dst, "stop", NULL, reply_by());
}

static int migrate(struct qmig *m)
{
	const struct qemu_migrate_opts *o = m->o;
	json_int_t bw = (json_int_t)(o->bandwidth ?: NO_CAP);
	json_t *params = json_pack("{s:I, s:I}", "max-bandwidth", bw,
				   "downtime-limit",
				   (json_int_t)o->downtime_ms);

	if (o->postcopy_rounds >= 0 &&
	    (set_postcopy(&m->dst, true) || set_postcopy(&m->src, false)))
		return -1;
	/*
	 * The push after the switch at --bandwidth too, as mmubench's own
	 * post-copy does: QEMU's default is no cap, and the destination then
	 * had every page before its vCPUs faulted (0 requests in 5 of 6 runs
	 * of -v 2 -b 16m --fraction 0.25 --postcopy 1, at 8m and 16m).
	 */
	if (o->postcopy_rounds >= 0 && o->bandwidth)
		json_object_set_new(params, "max-postcopy-bandwidth",
				    json_integer(bw));
	if (exec_ok(&m->dst, "migrate-incoming",
		    json_pack("{s:s}", "uri", m->uri), reply_by()) ||
	    exec_ok(&m->src, "migrate-set-parameters", params, reply_by()) ||
	    exec_ok(&m->src, "migrate", json_pack("{s:s}", "uri", m->uri),
		    reply_by()))
		return -1;
	if (o->postcopy_rounds >= 0 &&
	    (wait_syncs(m, (u64)o->postcopy_rounds + 1) ||
	     exec_ok(&m->src, "migrate-start-postcopy", NULL, reply_by())))
		return -1;
	if (wait_completed(m))
		return -1;
	if (o->postcopy_rounds >= 0 && stop_destination(m))
		return -1;
	return both_stopped(m);
}

/* --debug-skip-page: one byte of that test page changed at the end. */
static int corrupt(struct qmig *m, u64 page)
{
	off_t off = (off_t)(m->test_gpa - m->dst.cmd.ram_base +
			    page * MMUB_SZ_4K);
	int fd = m->dst.ram_fd;
	u8 b = 0;

	if (pread(fd, &b, 1, off) == 1) {
		b ^= 0xff;
		if (pwrite(fd, &b, 1, off) == 1)
			return 0;
	}
	err_msg("--debug-skip-page: cannot change the destination's RAM: %s",
		strerror(errno));
	return -1;
}

static void *map_ram(const struct side *s, u64 len)
{
	int fd = s->ram_fd;
	struct stat st;
	void *p = MAP_FAILED;

	if (!fstat(fd, &st) && (u64)st.st_size == len)
		p = mmap(NULL, len, PROT_READ, MAP_SHARED, fd, 0);
	if (p == MAP_FAILED)
		err_msg("--backend qemu: cannot map %s's RAM %s (%llu bytes)",
			s->who, s->ram, (unsigned long long)len);
	return p == MAP_FAILED ? NULL : p;
}

/*
 * Once QEMU answers QMP it has its RAM file mapped: hold it open and
 * remove its name, so that not even a SIGKILL of ours leaves it behind.
 */
static int hold_ram(struct side *s)
{
	s->ram_fd = open(s->ram, O_RDWR | O_CLOEXEC);
	if (s->ram_fd < 0) {
		err_msg("--backend qemu: %s: %s", s->ram, strerror(errno));
		return -1;
	}
	unlink(s->ram);
	return 0;
}

/* Test page number of RAM offset @off, or -1 outside the test memory. */
static s64 test_page(const struct qmig *m, u64 off)
{
	u64 gpa = m->src.cmd.ram_base + off;
	u64 size = m->c->vm.vcpu_bytes * m->c->vm.nr_vcpus;

	if (gpa < m->test_gpa || gpa >= m->test_gpa + size)
		return -1;
	return (s64)((gpa - m->test_gpa) / MMUB_SZ_4K);
}

static void describe(const struct qmig *m, u64 off, const u8 *a, const u8 *b)
{
	s64 p = test_page(m, off);
	char what[48] = " (not test memory)";
	u32 i = 0;

	if (p >= 0)
		snprintf(what, sizeof(what), " (test page %lld)", (long long)p);
	while (i < MMUB_SZ_4K - 1 && a[i] == b[i])
		i++;
	err_msg("migrate: guest-physical 0x%llx%s differs at the destination "
		"from byte %u on (0x%02x here, 0x%02x there)",
		(unsigned long long)(m->src.cmd.ram_base + off), what, i, a[i],
		b[i]);
}

/*
 * Post-copy: a word of a test page the destination's guest may have
 * written since the switch, a stamp (mailbox.h) of one of its vCPUs
 * with a later generation than what the source held.
 */
static bool written_since(const struct qmig *m, u64 src, u64 dst)
{
	u64 cpu = dst & 0xff;

	return cpu >= 1 && cpu <= m->c->vm.nr_vcpus &&
	       (!src || (src & 0xff) == cpu) && (dst >> 40) > (src >> 40);
}

static bool same_test_page(const struct qmig *m, const u8 *a, const u8 *b)
{
	const u64 *x = (const u64 *)a, *y = (const u64 *)b;

	for (u32 i = 0; i < MMUB_SZ_4K / 8; i++)
		if (x[i] != y[i] && !written_since(m, x[i], y[i]))
			return false;
	return true;
}

/*
 * Every 4K page of the source's RAM against the destination's (with
 * --postcopy, of the test memory, see above).  Under
 * -M pc, RAM offset = guest-physical address only below 3.5 GiB, which
 * the sizes here stay under (the message would name the wrong address).
 */
static int compare(struct qmig *m)
{
	u64 len = m->src.cmd.ram_bytes, other = 0;
	const u8 *a = map_ram(&m->src, len), *b = map_ram(&m->dst, len);
	bool postcopy = m->o->postcopy_rounds >= 0;
	int ret = -1;

	if (a && b) {
		for (u64 off = 0; off < len; off += MMUB_SZ_4K) {
			bool in_test = test_page(m, off) >= 0;
			u64 *n = in_test ? &m->test_mismatches : &other;

			if (postcopy && !in_test)
				continue;
			m->verified++;
			if (!memcmp(a + off, b + off, MMUB_SZ_4K) ||
			    (postcopy && same_test_page(m, a + off, b + off)))
				continue;
			/* A few of each kind: neither hides the other. */
			if ((*n)++ < SHOW_MISMATCHES)
				describe(m, off, a + off, b + off);
		}
		m->mismatches = m->test_mismatches + other;
		ret = 0;
	}
	if (a)
		munmap((void *)a, len);
	if (b)
		munmap((void *)b, len);
	return ret;
}

/* The KVM run's columns (table.h), then the JSON's. */
static const struct field qmig_fields[] = {
	MIG_TABLE_FIELDS(struct qmig),
	/* QEMU reports neither: "-" and null, not a zero that looks measured. */
	FIELD_AS("zero_check_ms", struct qmig, not_reported, FIELD_STR, 14, 0),
	FIELD_AS("first_harvest", struct qmig, not_reported, FIELD_STR, 0, 0),
	FIELD(struct qmig, verified, FIELD_U64, 0, 0),
	FIELD(struct qmig, mismatches, FIELD_U64, 0, 0),
	/* Beyond the KVM run's fields: QEMU migrates all of RAM. */
	FIELD(struct qmig, test_mismatches, FIELD_U64, 0, 0),
	FIELD(struct qmig, bytes, FIELD_U64, 0, 0),
	{ NULL },
};

static void print_table(const struct qmig *m)
{
	char page[16];

	printf("  %-6s", "page");
	fields_head(qmig_fields);
	printf("  %-6s", fmt_size(m->c->vm.guest_page, page, sizeof(page)));
	fields_row(qmig_fields, m);
	if (m->o->postcopy_rounds >= 0) {
		size_t i;
		json_t *v;

		printf("  post-copy after %lld rounds: %llu pages requested "
		       "by the destination; its vCPUs blocked on missing "
		       "pages",
		       (long long)m->o->postcopy_rounds,
		       (unsigned long long)m->pulled);
		json_array_foreach(m->vcpu_blocktime, i, v)
			printf("%s%lld", i ? ", " : " ",
			       (long long)json_integer_value(v));
		printf(" ms (postcopy-vcpu-blocktime), all at once %.0f ms "
		       "(postcopy-blocktime)\n", m->blocktime_ms);
		printf("  first harvest: - (QEMU does not report it); "
		       "destination: %llu test pages checked (the rest of RAM "
		       "ran on there), %llu differ\n",
		       (unsigned long long)m->verified,
		       (unsigned long long)m->mismatches);
		return;
	}
	printf("  first harvest: - (QEMU does not report it); destination: "
	       "%llu pages checked (all of RAM), %llu differ, %llu of them "
	       "in the test memory\n", (unsigned long long)m->verified,
	       (unsigned long long)m->mismatches,
	       (unsigned long long)m->test_mismatches);
}

/* The document of the KVM run's shape, QEMU's figures in it. */
static void write_json(const struct qmig *m)
{
	struct doc doc;
	json_t *run = json_object(), *j = json_object();

	doc_begin(&doc, m->c, "migrate",
		  json_pack("{s:s, s:I, s:i, s:s, s:o}", "backend", "qemu",
			    "bandwidth", (json_int_t)m->o->bandwidth,
			    "downtime_ms", m->o->downtime_ms, "to", "local",
			    "postcopy_rounds", m->o->postcopy_rounds >= 0 ?
			    json_integer(m->o->postcopy_rounds) :
			    json_null()));
	jset(doc.root, "backend", json_string("qemu"));
	jset(doc.root, "arch", json_string(m->src.cmd.arch));
	jset(doc.root, "qemu_version", json_string(m->version));
	jset(doc.root, "qemu_ram_pad", json_integer((json_int_t)m->pad));
	fields_json(j, qmig_fields, m);
	if (m->o->postcopy_rounds >= 0)
		jset(j, "postcopy", json_pack("{s:I, s:I, s:o, s:O}",
			"rounds_before", (json_int_t)m->o->postcopy_rounds,
			"pulled", (json_int_t)m->pulled,
			"blocktime_ms", jnum(m->blocktime_ms),
			"vcpu_blocktime_ms",
			m->vcpu_blocktime ?: json_null()));
	jset(run, "migrate", j);
	if (json_array_append_new(doc.runs, run))
		die("out of memory building the JSON document");
	doc_finish(&doc);
}

static int run(struct qmig *m)
{
	start(&m->dst);
	start(&m->src);
	if (qmp_open(&m->dst.qmp, m->dst.who, m->dst.qmp_path, m->dst.pid,
		     m->deadline)) {
		say_output(&m->dst);
		return -1;
	}
	if (qmp_open(&m->src.qmp, m->src.who, m->src.qmp_path, m->src.pid,
		     m->deadline)) {
		say_output(&m->src);
		return -1;
	}
	if (hold_ram(&m->src) || hold_ram(&m->dst) || wait_writing(m))
		return -1;
	if (migrate(m)) {
		say_output(&m->src);
		say_output(&m->dst);
		return -1;
	}
	if (m->o->corrupt_page >= 0 && corrupt(m, (u64)m->o->corrupt_page))
		return -1;
	progress_detail("comparing both QEMUs' RAM");
	return compare(m);
}

/*
 * QEMU before 9.0 loses TCG writes while it migrates: the fast path of
 * cpu_physical_memory_sync_dirty_bitmap(), taken for RAM blocks whose
 * offset and size are multiples of 64 pages, clears the migration bitmap
 * without re-arming TLB_NOTDIRTY, so a TLB entry dirtied once stays
 * writable and unlogged.  Fixed upstream by 03bfc2188f06 ("physmem: Fix
 * migration dirty bitmap coherency with TCG memory access", 9.0); not in
 * Debian 12's 7.2.  Measured on 7.2.22: 5 guest pages stale in every run
 * (up to 260 with -v 1 -b 4m), the same with thread=single; 0 of 11 runs
 * with RAM 8 KiB longer, which takes the per-page path that re-arms the
 * TLB; 0 of 13 runs on 10.0.2.  So on such a QEMU the RAM is padded.
 */
#define SYNC_FIX_MAJOR	9
#define SYNC_PAD	(8 * MMUB_KIB)

/* The QEMU's version into @ver; true if it lacks the fix above. */
static bool lacks_sync_fix(const char *qemu, char *ver, size_t len)
{
	char cmd[128], line[256];
	unsigned int major = 0, minor = 0, micro = 0;
	FILE *f;

	snprintf(cmd, sizeof(cmd), "%s --version 2>/dev/null", qemu);
	f = popen(cmd, "r");
	if (f && fgets(line, sizeof(line), f))
		sscanf(line, "QEMU emulator version %u.%u.%u", &major, &minor,
		       &micro);
	if (f)
		pclose(f);
	snprintf(ver, len, "%u.%u.%u", major, minor, micro);
	return major < SYNC_FIX_MAJOR;
}

/* RAM @pad longer, -m and its backend alike (argv points at both). */
static void side_pad(struct side *s, u64 pad)
{
	s->cmd.ram_bytes += pad;
	snprintf(s->cmd.mem, sizeof(s->cmd.mem), "%lluK",
		 (unsigned long long)(s->cmd.ram_bytes / MMUB_KIB));
	snprintf(s->backend, sizeof(s->backend),
		 "memory-backend-file,id=mmub-ram,size=%llu,mem-path=%s,"
		 "share=on", (unsigned long long)s->cmd.ram_bytes, s->ram);
}

int qemu_migrate(const struct common *c, const struct qemu_migrate_opts *o)
{
	struct qmig m = { .c = c, .o = o };
	char bw[32];
	int ret;

	/* Both are the same binary: one check, before anything starts. */
	make_dir(&m);
	side_init(&m, &m.src, "the source QEMU", "src");
	side_init(&m, &m.dst, "the destination QEMU", "dst");
	qemu_cmd_check(&m.src.cmd);
	if (lacks_sync_fix(m.src.cmd.argv[0], m.version, sizeof(m.version))) {
		m.pad = SYNC_PAD;
		side_pad(&m.src, m.pad);
		side_pad(&m.dst, m.pad);
	}
	/* -M pc moves RAM above 3.5 GiB to 4 GiB; the check reads one range. */
	if (!strcmp(m.src.cmd.arch, "x86_64") &&
	    m.src.cmd.ram_bytes >= 0xe0000000ULL)
		die("--backend qemu: the test memory and QEMU's 192M must stay "
		    "below 3.5G on x86_64 (-M pc splits RAM there)");
	qemu_cmd_add(&m.dst.cmd, "-incoming");
	qemu_cmd_add(&m.dst.cmd, "defer");
	/* Post-copy's destination runs the vCPUs from the switch on. */
	if (o->postcopy_rounds < 0)
		qemu_cmd_add(&m.dst.cmd, "-S");
	m.deadline = now_ms() + c->vm.watchdog_s * 1e3;
	if (o->bandwidth)
		fmt_size(o->bandwidth, bw, sizeof(bw));
	printf("mmubench migrate --backend qemu: %u vCPU%s x %lluM under %s "
	       "(TCG), %lluM of RAM each\n", c->vm.nr_vcpus,
	       c->vm.nr_vcpus > 1 ? "s" : "",
	       (unsigned long long)(c->vm.vcpu_bytes / MMUB_MIB),
	       m.src.cmd.argv[0],
	       (unsigned long long)(m.src.cmd.ram_bytes / MMUB_MIB));
	printf("migration: QEMU's own, %s%s, downtime limit %u ms, to a "
	       "second QEMU (Unix socket)\n", o->bandwidth ? bw : "no cap",
	       o->bandwidth ? "/s" : "", o->downtime_ms);
	if (o->postcopy_rounds >= 0)
		printf("post-copy (postcopy-ram) after %lld rounds; the "
		       "destination's vCPUs run from the switch on\n",
		       (long long)o->postcopy_rounds);
	if (m.pad)
		printf("QEMU %s (before %u.0): RAM 8K longer, so that it logs "
		       "every TCG write while migrating (upstream 03bfc2188f06)"
		       "\n", m.version, SYNC_FIX_MAJOR);
	fflush(stdout);
	progress_begin("migrate", 1, 1);
	ret = run(&m);
	progress_end();
	teardown(&m);
	if (ret) {
		json_decref(m.vcpu_blocktime);
		err_msg("migrate: the migration failed before the check");
		return 1;
	}
	print_table(&m);
	write_json(&m);
	json_decref(m.vcpu_blocktime);
	if (m.mismatches) {
		err_msg("migrate: %llu of %llu pages differ at the destination",
			(unsigned long long)m.mismatches,
			(unsigned long long)m.verified);
		return 1;
	}
	return 0;
}
