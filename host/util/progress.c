// SPDX-License-Identifier: GPL-2.0
/*
 * The progress line (progress.h).  One lock orders the line and every
 * other write to the terminal: stdout and stderr become streams whose
 * writes erase the line first, under the lock, and whoever draws the
 * line (its thread, or a caller with news) takes the same lock.  So
 * output printed mid-run (a run's stats, a table) is never mixed with
 * the line, and the line never lands in the middle of a line of output:
 * it waits for the newline.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>
#include "util/util.h"
#include "util/progress.h"
#include "util/cleanup.h"

#define GAP_MS		100.0	/* at most 10 redraws a second */
#define AFTER_MS	2000.0	/* runs shorter than this print nothing */
#define ERASE		"\r\033[K"

/* One run: what progress_begin() resets. */
struct pg_run {
	bool active;
	char name[48], step[80], detail[128];
	u32 steps, done;
	double work, work_done, ms_done;	/* of the finished steps */
	double t0, step_t0, step_work;
	bool in_step;
};

static struct {
	bool on;		/* both terminals; decided once, at start */
	bool ticking;
	double after_ms;
	pthread_mutex_t lock;	/* everything below, and the terminal */
	struct pg_run r;
	bool drawn;		/* the line is on the terminal */
	double drawn_ms;	/* when it was last written */
	bool bol;		/* the cursor is at the start of a line */
	char shown[256];
} pg = { .lock = PTHREAD_MUTEX_INITIALIZER, .bol = true };

static int write_all(int fd, const char *buf, size_t len)
{
	while (len) {
		ssize_t n = write(fd, buf, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -1;
		buf += n;
		len -= (size_t)n;
	}
	return 0;
}

static void erase_locked(void)
{
	if (pg.drawn)
		write_all(STDERR_FILENO, ERASE, strlen(ERASE));
	pg.drawn = false;
}

__attribute__((format(printf, 3, 4)))
static void append(char *buf, size_t len, const char *fmt, ...)
{
	size_t n = strlen(buf);
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf + n, len - n, fmt, ap);
	va_end(ap);
}

static void append_time(char *buf, size_t len, double ms)
{
	unsigned long s = (unsigned long)(mmub_max(ms, 0) / 1e3 + 0.5);

	if (s < 60)
		append(buf, len, "%lu s", s);
	else if (s < 3600)
		append(buf, len, "%lu min %02lu s", s / 60, s % 60);
	else
		append(buf, len, "%lu h %02lu min", s / 3600, s / 60 % 60);
}

/* At the pace of the finished steps: the rest of this one, and the others. */
static double left_ms(const struct pg_run *r, double now)
{
	double rate = r->ms_done / r->work_done;
	double later = r->work - r->work_done - r->step_work;
	double here = rate * r->step_work - (now - r->step_t0);

	return rate * mmub_max(later, 0) + mmub_max(here, 0);
}

/* "zap --table: c4, run 2 of 3 (7/18 done, 33 s left): iter1" */
static void compose(char *line, size_t len, double now)
{
	const struct pg_run *r = &pg.r;

	snprintf(line, len, "%s", r->name);
	if (r->steps > 1) {
		append(line, len, ": %s (%u/%u done", r->step, r->done,
		       r->steps);
		if (r->done && r->work_done > 0) {
			append(line, len, ", ");
			append_time(line, len, left_ms(r, now));
			append(line, len, " left");
		}
		append(line, len, ")");
	}
	if (*r->detail)
		append(line, len, ": %s", r->detail);
	if (r->steps <= 1) {
		/* One step: no pace to go by, but a sign of life. */
		append(line, len, " (");
		append_time(line, len, now - r->t0);
		append(line, len, ")");
	}
}

/* Columns: a line that wrapped could not be rewritten in place. */
static size_t width(void)
{
	struct winsize ws;

	if (ioctl(STDERR_FILENO, TIOCGWINSZ, &ws) || ws.ws_col < 20)
		return 80;
	return ws.ws_col;
}

static void draw_locked(void)
{
	char line[sizeof(pg.shown)], out[sizeof(line) + 8];
	double now = now_ms();
	size_t w = width() - 1;

	if (!pg.r.active || !pg.bol || now - pg.r.t0 < pg.after_ms ||
	    now - pg.drawn_ms < GAP_MS)
		return;
	compose(line, sizeof(line), now);
	if (strlen(line) > w)
		line[w] = 0;
	if (pg.drawn && !strcmp(line, pg.shown))
		return;
	snprintf(out, sizeof(out), "\r%s\033[K", line);
	write_all(STDERR_FILENO, out, strlen(out));
	memcpy(pg.shown, line, sizeof(line));
	pg.drawn = true;
	pg.drawn_ms = now;
}

static void *ticker(void *arg)
{
	(void)arg;
	cleanup_thread_init();
	for (;;) {
		usleep((useconds_t)(GAP_MS * 1e3));
		pthread_mutex_lock(&pg.lock);
		draw_locked();
		pthread_mutex_unlock(&pg.lock);
	}
	return NULL;
}

/* Signals go to the other threads, whose handlers expect them. */
static void start_ticker(void)
{
	sigset_t all, old;
	pthread_t t;

	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	if (!pthread_create(&t, NULL, ticker, NULL)) {
		pthread_detach(t);
		pg.ticking = true;
	}
	pthread_sigmask(SIG_SETMASK, &old, NULL);
}

/* Every write to the terminal erases the line first. */
static ssize_t tty_write(void *cookie, const char *buf, size_t len)
{
	int ret;

	pthread_mutex_lock(&pg.lock);
	erase_locked();
	ret = write_all((int)(intptr_t)cookie, buf, len);
	if (len)
		pg.bol = buf[len - 1] == '\n';
	pthread_mutex_unlock(&pg.lock);
	return ret ? 0 : (ssize_t)len;
}

static FILE *wrap(FILE *f, int fd, int mode)
{
	cookie_io_functions_t io = { .write = tty_write };
	FILE *w = fopencookie((void *)(intptr_t)fd, "w", io);

	if (!w)
		return f;
	fflush(f);
	setvbuf(w, NULL, mode, BUFSIZ);
	return w;
}

void progress_init(void)
{
	const char *after = getenv("MMUBENCH_PROGRESS_AFTER_MS");

	if (!isatty(STDOUT_FILENO) || !isatty(STDERR_FILENO))
		return;
	pg.after_ms = after && *after ? strtod(after, NULL) : AFTER_MS;
	stdout = wrap(stdout, STDOUT_FILENO, _IOLBF);
	stderr = wrap(stderr, STDERR_FILENO, _IONBF);
	pg.on = true;
	/* die() mid-run: the shell's prompt must not follow the line. */
	atexit(progress_end);
}

void progress_begin(const char *name, u32 steps, double work)
{
	if (!pg.on)
		return;
	pthread_mutex_lock(&pg.lock);
	pg.r = (struct pg_run){
		.active = true, .steps = steps, .work = work, .t0 = now_ms(),
	};
	snprintf(pg.r.name, sizeof(pg.r.name), "%s", name);
	pthread_mutex_unlock(&pg.lock);
	if (!pg.ticking)
		start_ticker();
}

static void finish_step(struct pg_run *r, double now)
{
	if (!r->in_step)
		return;
	r->done++;
	r->work_done += r->step_work;
	r->ms_done += now - r->step_t0;
	r->in_step = false;
}

void progress_step(double work, const char *fmt, ...)
{
	double now = now_ms();
	va_list ap;

	if (!pg.on)
		return;
	pthread_mutex_lock(&pg.lock);
	finish_step(&pg.r, now);
	va_start(ap, fmt);
	vsnprintf(pg.r.step, sizeof(pg.r.step), fmt, ap);
	va_end(ap);
	pg.r.detail[0] = 0;
	pg.r.step_work = work;
	pg.r.step_t0 = now;
	pg.r.in_step = true;
	draw_locked();
	pthread_mutex_unlock(&pg.lock);
}

void progress_skip(double work)
{
	if (!pg.on)
		return;
	pthread_mutex_lock(&pg.lock);
	if (pg.r.steps)
		pg.r.steps--;
	pg.r.work -= work;
	pthread_mutex_unlock(&pg.lock);
}

void progress_detail(const char *fmt, ...)
{
	va_list ap;

	if (!pg.on)
		return;
	pthread_mutex_lock(&pg.lock);
	va_start(ap, fmt);
	vsnprintf(pg.r.detail, sizeof(pg.r.detail), fmt, ap);
	va_end(ap);
	draw_locked();
	pthread_mutex_unlock(&pg.lock);
}

void progress_end(void)
{
	if (!pg.on)
		return;
	pthread_mutex_lock(&pg.lock);
	pg.r.active = false;
	erase_locked();
	pthread_mutex_unlock(&pg.lock);
}
