// SPDX-License-Identifier: GPL-2.0
/* kprobe availability and trace-text parsing; see kvm/probes.h. */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/stat.h>
#include "util/cleanup.h"
#include "util/util.h"
#include "kvm/probes.h"

static const char *const tracefs_dirs[] = {
	"/sys/kernel/tracing",
	"/sys/kernel/debug/tracing",
};

/*
 * "ADDR T NAME" or "ADDR t NAME\t[module]": NAME as a whole word after
 * the type letter.
 */
bool probes_kallsyms_has(const char *text, const char *sym)
{
	size_t n = strlen(sym);
	const char *p;

	for (p = strstr(text, sym); p; p = strstr(p + 1, sym))
		if (p - text >= 3 && p[-1] == ' ' && p[-3] == ' ' &&
		    (p[n] == '\n' || p[n] == '\t' || !p[n]))
			return true;
	return false;
}

/*
 * Asked before every zap run, twice: read /proc/kallsyms once a process
 * and a symbol.  Under nested TCG a line-by-line read of its ~94,000
 * lines took 0.85 s a call, most of a short run (2026-12-07).
 */
bool probes_have_symbol(const char *sym)
{
	static struct {
		const char *sym;
		bool found;
	} seen[4];
	static u32 nr_seen;
	char *text;
	bool found;
	u32 i;

	for (i = 0; i < nr_seen; i++)
		if (!strcmp(seen[i].sym, sym))
			return seen[i].found;
	text = read_text("/proc/kallsyms");
	if (!text)
		return false;
	found = probes_kallsyms_has(text, sym);
	free(text);
	if (nr_seen < MMUB_ARRAY_SIZE(seen)) {
		seen[nr_seen].sym = sym;
		seen[nr_seen++].found = found;
	}
	return found;
}

static const char *tracefs;

int probes_tracefs_status(char *why, size_t len)
{
	char path[128];
	int fd = -1;

	for (size_t i = 0; i < sizeof(tracefs_dirs) / sizeof(*tracefs_dirs);
	     i++) {
		snprintf(path, sizeof(path), "%s/kprobe_events",
			 tracefs_dirs[i]);
		fd = open(path, O_WRONLY | O_APPEND);
		tracefs = tracefs_dirs[i];
		if (fd >= 0 || errno != ENOENT)
			break;
	}
	if (fd < 0 && errno == ENOENT) {
		snprintf(why, len, "no kprobe_events in tracefs: "
			 "CONFIG_KPROBE_EVENTS, or tracefs not mounted");
		return -1;
	}
	if (fd < 0) {
		snprintf(why, len, "%s: %s (kernel lockdown, or not root)",
			 path, strerror(errno));
		return -1;
	}
	close(fd);
	return 0;
}

int probes_status(char *why, size_t len)
{
	if (probes_tracefs_status(why, len))
		return -1;
	if (!probes_have_symbol("tdp_mmu_zap_leafs")) {
		snprintf(why, len, "tdp_mmu_zap_leafs is not in /proc/kallsyms "
			 "(inlined, or no TDP MMU)");
		return -1;
	}
	return 0;
}

/*
 * "task-1234 [001] d..1. 5678.123456: event: ..." (ftrace) or
 * "task 1234 [001] 5678.123456: event: ..." (perf script): the pid is the
 * number right before " [", after a dash or a blank.
 */
static bool parse_line(const char *l, long *pid, double *t, char *ev,
		       size_t evlen)
{
	const char *br = strstr(l, " ["), *colon, *d, *p;
	size_t n;

	if (!br)
		return false;
	for (d = br; d > l && d[-1] == ' '; d--)
		;
	for (p = d; p > l && p[-1] >= '0' && p[-1] <= '9'; p--)
		;
	if (p == d || p == l || (p[-1] != '-' && p[-1] != ' ') ||
	    sscanf(p, "%ld", pid) != 1)
		return false;
	/* The timestamp is the number right before the first ": ". */
	colon = strstr(br, ": ");
	if (!colon)
		return false;
	for (p = colon; p > br && p[-1] != ' '; p--)
		;
	if (sscanf(p, "%lf", t) != 1)
		return false;
	/* The event ends at the next ": " (perf's contain "group:name"). */
	for (p = colon + 2; *p == ' '; p++)
		;
	d = strstr(p, ": ");
	n = d ? (size_t)(d - p) : strlen(p);
	if (!n || n >= evlen)
		return false;
	memcpy(ev, p, n);
	ev[n] = 0;
	return true;
}

static bool event_is(const char *ev, const char *want)
{
	const char *colon = strrchr(want, ':');

	/* Accept "probe:name" for "name" and the reverse. */
	return !strcmp(ev, want) || (colon && !strcmp(ev, colon + 1)) ||
	       (strchr(ev, ':') && !strcmp(strchr(ev, ':') + 1, want));
}

static void keep(struct probe_durations *d, u64 ns)
{
	if (d->n == d->cap) {
		size_t cap = d->cap ? d->cap * 2 : 256;
		u64 *v = realloc(d->ns, cap * sizeof(*v));

		if (!v)
			return;
		d->ns = v;
		d->cap = cap;
	}
	d->ns[d->n++] = ns;
}

void probes_middle(struct probe_durations *d, double *p50, double *iqm)
{
	size_t n = d->n, lo = n / 4, hi = n - n / 4;
	double sum = 0;

	if (!n) {
		*p50 = *iqm = NAN;
		return;
	}
	qsort(d->ns, n, sizeof(*d->ns), cmp_u64);
	*p50 = n % 2 ? (double)d->ns[n / 2] :
	       ((double)d->ns[n / 2 - 1] + (double)d->ns[n / 2]) / 2;
	for (size_t i = lo; i < hi; i++)
		sum += (double)d->ns[i];
	*iqm = sum / (double)(hi - lo);
}

/*
 * A call open at its entry line: its task, time, and the text after its
 * event's name (the probe's fetched arguments), for its exit line.
 */
struct open_call {
	long pid;
	double t;
	char args[96];
};

/* The text after "event: " on @l, the event @ev found by parse_line(). */
static const char *event_args(const char *l, const char *ev)
{
	const char *p = strstr(l, " [");

	/* After the task's name and CPU, where parse_line() found it. */
	p = p ? strstr(p, ev) : NULL;
	p = p ? strstr(p + strlen(ev), ": ") : NULL;
	return p ? p + 2 : "";
}

u64 probes_pairs(const char *text, const char *entry, const char *exit_ev,
		 long pid, double ns_per_unit, probe_pair_fn fn, void *arg)
{
	struct open_call open_calls[256];
	u32 nr_open = 0;
	u64 pairs = 0;
	char line[512], ev[128];

	while (*text) {
		size_t n = strcspn(text, "\n");
		long p;
		double t;

		snprintf(line, sizeof(line), "%.*s", (int)mmub_min(n, 511),
			 text);
		text += n + (text[n] == '\n');
		if (!parse_line(line, &p, &t, ev, sizeof(ev)) ||
		    (pid >= 0 && p != pid))
			continue;
		if (event_is(ev, entry) && nr_open < 256) {
			struct open_call *c = &open_calls[nr_open++];

			c->pid = p;
			c->t = t;
			snprintf(c->args, sizeof(c->args), "%s",
				 event_args(line, ev));
		} else if (event_is(ev, exit_ev)) {
			for (u32 i = nr_open; i-- > 0;) {
				if (open_calls[i].pid != p)
					continue;
				fn(open_calls[i].args, event_args(line, ev),
				   (u64)((t - open_calls[i].t) * ns_per_unit +
					 0.5), arg);
				open_calls[i] = open_calls[--nr_open];
				pairs++;
				break;
			}
		}
	}
	return pairs;
}

struct parse_to {
	struct mmub_hist *h;
	struct probe_durations *all;
};

static void add_pair(const char *entry_args, const char *exit_args, u64 ns,
		     void *arg)
{
	struct parse_to *to = arg;

	(void)entry_args;
	(void)exit_args;
	mmub_hist_add(to->h, ns);
	if (to->all)
		keep(to->all, ns);
}

u64 probes_parse(const char *text, const char *entry, const char *exit_ev,
		 double ns_per_unit, struct mmub_hist *h,
		 struct probe_durations *all)
{
	struct parse_to to = { h, all };

	return probes_pairs(text, entry, exit_ev, -1, ns_per_unit, add_pair,
			    &to);
}

u64 probes_count(const char *text, const char *event)
{
	char line[512], ev[128];
	u64 n = 0;

	while (*text) {
		size_t len = strcspn(text, "\n");
		long pid;
		double t;

		snprintf(line, sizeof(line), "%.*s", (int)mmub_min(len, 511),
			 text);
		text += len + (text[len] == '\n');
		n += parse_line(line, &pid, &t, ev, sizeof(ev)) &&
		     event_is(ev, event);
	}
	return n;
}

static int tracefs_write(const char *file, const char *text, bool append)
{
	char path[192];
	int fd, ok;

	snprintf(path, sizeof(path), "%s/%s", tracefs, file);
	fd = open(path, O_WRONLY | O_CLOEXEC | (append ? O_APPEND : O_TRUNC));
	if (fd < 0)
		return -1;
	ok = write(fd, text, strlen(text)) == (ssize_t)strlen(text);
	ok &= !close(fd);
	return ok ? 0 : -1;
}

/*
 * The kprobe events are global (kprobe_events), but they are enabled,
 * buffered and read in a tracing instance of our own, so the machine's
 * own trace buffer, its size and its events are never touched.  Every
 * probe placed and the instance are undone on every way out
 * (util/cleanup.h), here at probes_stop().
 */
#define INSTANCE	"instances/mmubench"

/*
 * The trace's clock.  ftrace prints its nanosecond clocks in whole
 * microseconds, a step of 3 % for a walk of 30 us, so the instance
 * counts TSC cycles where the kernel has that clock (x86-tsc); the
 * cycles become ns at the TSC's rate, measured against CLOCK_MONOTONIC
 * over the probes' window.  Elsewhere the trace stays in seconds.
 */
static struct {
	bool tsc;
	u64 tsc0;
	struct timespec t0;
	double ns_per_unit;
} trace_clock;

static u64 read_tsc(void)
{
#ifdef __x86_64__
	return __builtin_ia32_rdtsc();
#else
	return 0;
#endif
}

/* Before any event is enabled: a new clock empties the buffer. */
static void trace_clock_start(void)
{
	trace_clock.ns_per_unit = 1e9;
	trace_clock.tsc = false;
#ifdef __x86_64__
	if (tracefs_write(INSTANCE "/trace_clock", "x86-tsc", false))
		return;
	trace_clock.tsc = true;
	clock_gettime(CLOCK_MONOTONIC, &trace_clock.t0);
	trace_clock.tsc0 = read_tsc();
#endif
}

static void trace_clock_stop(void)
{
	struct timespec t1;
	u64 cycles;
	double ns;

	if (!trace_clock.tsc)
		return;
	cycles = read_tsc() - trace_clock.tsc0;
	clock_gettime(CLOCK_MONOTONIC, &t1);
	ns = (double)(t1.tv_sec - trace_clock.t0.tv_sec) * 1e9 +
	     (double)(t1.tv_nsec - trace_clock.t0.tv_nsec);
	trace_clock.ns_per_unit = cycles ? ns / (double)cycles : NAN;
}

/*
 * The probes placed now, the set a scenario asked for.  The removal
 * each one registered is kept by name, re-armed when a later run of the
 * same process places it again.
 */
#define PROBES_MAX	12

static struct {
	const struct probe_def *defs;
	u32 n;
	bool placed[PROBES_MAX];
} cur;

static struct {
	const char *name;
	int undo;
} undos[2 * PROBES_MAX];
static int instance_undo = -1;

static int *undo_of(const char *name)
{
	u32 i;

	for (i = 0; i < MMUB_ARRAY_SIZE(undos) && undos[i].name; i++)
		if (!strcmp(undos[i].name, name))
			return &undos[i].undo;
	if (i == MMUB_ARRAY_SIZE(undos))
		return NULL;
	undos[i].name = name;
	undos[i].undo = -1;
	return &undos[i].undo;
}

/* Place one probe and register (or re-arm) its removal. */
static int place(const struct probe_def *d)
{
	char line[128], path[160];
	int *undo = undo_of(d->name);

	snprintf(line, sizeof(line), "%s\n", d->def);
	if (!undo || tracefs_write("kprobe_events", line, true))
		return -1;
	snprintf(line, sizeof(line), "-:mmub/%s\n", d->name);
	snprintf(path, sizeof(path), "%s/kprobe_events", tracefs);
	if (*undo < 0)
		*undo = cleanup_push(CLEANUP_APPEND, path, line);
	else
		cleanup_rearm(*undo);
	return 0;
}

static int make_instance(void)
{
	char path[160];

	snprintf(path, sizeof(path), "%s/" INSTANCE, tracefs);
	if (mkdir(path, 0700) && errno != EEXIST)
		return -1;
	/* Removed first: the probes cannot go while it has them enabled. */
	if (instance_undo < 0)
		instance_undo = cleanup_push(CLEANUP_RMDIR, path, NULL);
	else
		cleanup_rearm(instance_undo);
	return 0;
}

static void undo_all(void)
{
	cleanup_run_one(instance_undo);
	for (u32 i = 0; i < cur.n; i++)
		if (cur.placed[i])
			cleanup_run_one(*undo_of(cur.defs[i].name));
	memset(cur.placed, 0, sizeof(cur.placed));
}

static int trace_start(const struct probe_def *defs, u32 n, u32 required,
		       char *why, size_t len)
{
	char stale[160];
	u32 i;

	/* A set the table cannot hold is our bug: never cut it silently. */
	if (n > PROBES_MAX || required > n) {
		snprintf(why, len, "a set of %u probes, %u required (at most %u)",
			 n, required, PROBES_MAX);
		return -1;
	}
	cleanup_hold_host("kprobes");
	cur.defs = defs;
	cur.n = n;
	memset(cur.placed, 0, sizeof(cur.placed));
	/* Leftovers of a run that was killed: they would block ours. */
	snprintf(stale, sizeof(stale), "%s/" INSTANCE, tracefs);
	rmdir(stale);
	for (i = 0; i < n; i++) {
		char line[64];

		snprintf(line, sizeof(line), "-:mmub/%s\n", defs[i].name);
		tracefs_write("kprobe_events", line, true);
	}
	for (i = 0; i < n; i++) {
		cur.placed[i] = !place(&defs[i]);
		if (!cur.placed[i] && i < required) {
			undo_all();
			snprintf(why, len, "placing the kprobe \"%s\" failed",
				 defs[i].def);
			return -1;
		}
	}
	/*
	 * Room for every event of a run (a lost event loses a pair), set
	 * after enabling: before 6.7 the first event enabled anywhere grows
	 * the global buffer to trace_buf_size, as any tracing user does,
	 * but resizing any buffer first marks it grown while it stays at
	 * its boot size, a few KB, for whoever traces after us.
	 */
	if (make_instance())
		goto fail;
	trace_clock_start();
	if (tracefs_write(INSTANCE "/events/mmub/enable", "1", false) ||
	    tracefs_write(INSTANCE "/buffer_size_kb", "32768", false))
		goto fail;
	return 0;
fail:
	snprintf(why, len, "setting up the tracing instance %s/%s: %s", tracefs,
		 INSTANCE, strerror(errno));
	undo_all();
	return -1;
}

static char *read_all(const char *file)
{
	char path[192];

	snprintf(path, sizeof(path), "%s/%s", tracefs, file);
	return read_text(path);
}

static char *trace_stop(double *ns_per_unit)
{
	char *text;

	tracefs_write(INSTANCE "/events/mmub/enable", "0", false);
	trace_clock_stop();
	*ns_per_unit = trace_clock.ns_per_unit;
	text = read_all(INSTANCE "/trace");
	undo_all();
	return text;
}

/*
 * Setting up and reading the instance open files in it; an instance
 * with a file open cannot be removed (EBUSY), and while it has the probes
 * enabled they cannot go either.  A SIGINT or SIGTERM in that window
 * left both behind (test/zap.bats, twice in three runs under load): the
 * signals wait until the files are closed.
 */
int probes_trace_start(const struct probe_def *defs, u32 n, u32 required,
		       char *why, size_t len)
{
	sigset_t old;
	int ret;

	if (probes_tracefs_status(why, len))
		return -1;
	cleanup_signals_hold(&old);
	ret = trace_start(defs, n, required, why, len);
	cleanup_signals_release(&old);
	return ret;
}

bool probes_trace_placed(u32 i)
{
	return i < cur.n && cur.placed[i];
}

char *probes_trace_stop(double *ns_per_unit)
{
	sigset_t old;
	char *text;

	cleanup_signals_hold(&old);
	text = trace_stop(ns_per_unit);
	cleanup_signals_release(&old);
	return text;
}

/* Zap's set: the zap pair is required; the others are used where they exist. */
static const struct probe_def zap_defs[] = {
	{ "zap_entry", "p:mmub/zap_entry tdp_mmu_zap_leafs" },
	{ "zap_exit", "r:mmub/zap_exit tdp_mmu_zap_leafs" },
	{ "lock_entry", "p:mmub/lock_entry queued_read_lock_slowpath" },
	{ "lock_exit", "r:mmub/lock_exit queued_read_lock_slowpath" },
	{ "pt_free", "p:mmub/pt_free tdp_mmu_free_sp_rcu_callback" },
};

/*
 * NX recovery under load: both rwlock slow paths (the read pair
 * required) and the worker's zaps.  Not zap's pair, which recovery does
 * not call, and not in zap's set, where a write-side probe would add
 * its cost inside the timed tdp_mmu_zap_leafs() whenever the zap yields
 * mmu_lock and takes it back contended.
 */
static const struct probe_def nx_defs[] = {
	{ "lock_entry", "p:mmub/lock_entry queued_read_lock_slowpath" },
	{ "lock_exit", "r:mmub/lock_exit queued_read_lock_slowpath" },
	{ "wlock_entry", "p:mmub/wlock_entry queued_write_lock_slowpath" },
	{ "wlock_exit", "r:mmub/wlock_exit queued_write_lock_slowpath" },
	{ "sp_zap", "p:mmub/sp_zap kvm_tdp_mmu_zap_sp" },
};

static bool pt_free_placed, wlock_placed, sp_zap_placed;

/* Was the probe @name of the set placed? */
static bool set_placed(const struct probe_def *defs, u32 n, const char *name)
{
	for (u32 i = 0; i < n; i++)
		if (!strcmp(defs[i].name, name))
			return probes_trace_placed(i);
	return false;
}

static int start_set(const struct probe_def *defs, u32 n, char *why,
		     size_t len)
{
	if (probes_trace_start(defs, n, 2, why, len))
		return -1;
	pt_free_placed = set_placed(defs, n, "pt_free");
	wlock_placed = set_placed(defs, n, "wlock_entry") &&
		       set_placed(defs, n, "wlock_exit");
	sp_zap_placed = set_placed(defs, n, "sp_zap");
	return 0;
}

int probes_start(char *why, size_t len)
{
	if (probes_status(why, len))
		return -1;
	return start_set(zap_defs, MMUB_ARRAY_SIZE(zap_defs), why, len);
}

int probes_start_nx(char *why, size_t len)
{
	return start_set(nx_defs, MMUB_ARRAY_SIZE(nx_defs), why, len);
}

int probes_stop(struct probe_times *t)
{
	struct probe_durations all = { 0 };
	double ns_per_unit;
	char *text;

	/*
	 * Tables are freed an RCU grace period after their zap: give the
	 * last ones time to be counted (there is no rcu_barrier() for us).
	 */
	if (pt_free_placed)
		usleep(200000);
	text = probes_trace_stop(&ns_per_unit);
	mmub_hist_reset(&t->zap);
	mmub_hist_reset(&t->lock_wait);
	mmub_hist_reset(&t->write_wait);
	t->write_calls = t->sp_zaps = -1;
	t->zap_p50_ns = t->zap_iqm_ns = NAN;
	if (!text)
		return -1;
	t->zap_calls = probes_parse(text, "zap_entry", "zap_exit",
				    ns_per_unit, &t->zap, &all);
	probes_middle(&all, &t->zap_p50_ns, &t->zap_iqm_ns);
	free(all.ns);
	t->lock_calls = probes_parse(text, "lock_entry", "lock_exit",
				     ns_per_unit, &t->lock_wait, NULL);
	t->tables_freed = pt_free_placed ?
			  (s64)probes_count(text, "pt_free") : -1;
	if (wlock_placed)
		t->write_calls = (s64)probes_parse(text, "wlock_entry",
						   "wlock_exit", ns_per_unit,
						   &t->write_wait, NULL);
	t->sp_zaps = sp_zap_placed ? (s64)probes_count(text, "sp_zap") : -1;
	free(text);
	return 0;
}
