// SPDX-License-Identifier: GPL-2.0
/*
 * What a run owes the machine.  Every setting mmubench changes (hugetlb
 * pools, kvm parameters, kprobe events, its tracing instance) registers
 * its undo here when it changes it, and the undo runs once, in reverse
 * order, on every way out: a normal exit, die(), and SIGINT, SIGTERM or
 * SIGHUP.
 *
 * An undo is a file operation on a path decided in advance (write a
 * value, append a line, remove a file or a directory) or the SIGKILL of
 * a child process, so that the signal handler can run it with open(),
 * write(), unlink(), rmdir() and kill() alone: nothing in a signal
 * handler may take stdio's or malloc's locks.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/file.h>
#include <sys/stat.h>
#include "util/cleanup.h"
#include "util/util.h"

#define CLEANUP_MAX	64

struct undo {
	enum cleanup_op op;
	char path[160];
	char text[96];
	int pid;		/* CLEANUP_KILL */
	bool done;
};

static struct undo undos[CLEANUP_MAX];
static volatile sig_atomic_t nr_undos;

static int undo_run(struct undo *u)
{
	int fd, flags = O_WRONLY | O_CLOEXEC;
	size_t len = strlen(u->text);
	int ret = 0;

	if (u->done)
		return 0;
	u->done = true;
	if (u->op == CLEANUP_RMDIR)
		return rmdir(u->path) ? -1 : 0;
	if (u->op == CLEANUP_UNLINK)
		return unlink(u->path) && errno != ENOENT ? -1 : 0;
	if (u->op == CLEANUP_KILL)
		return u->pid > 0 && kill(u->pid, SIGKILL) && errno != ESRCH ?
		       -1 : 0;
	flags |= u->op == CLEANUP_APPEND ? O_APPEND : O_TRUNC;
	fd = open(u->path, flags);
	if (fd < 0)
		return -1;
	/* sysfs and tracefs report a rejected value at write() or close(). */
	if (write(fd, u->text, len) != (ssize_t)len)
		ret = -1;
	if (close(fd))
		ret = -1;
	return ret;
}

static int push(enum cleanup_op op, const char *path, const char *text,
		int pid)
{
	struct undo *u;

	if (nr_undos == CLEANUP_MAX)
		die("too many settings to restore (bug: raise CLEANUP_MAX)");
	u = &undos[nr_undos];
	if ((size_t)snprintf(u->path, sizeof(u->path), "%s", path) >=
	    sizeof(u->path) ||
	    (size_t)snprintf(u->text, sizeof(u->text), "%s", text ? text : "") >=
	    sizeof(u->text))
		die("%s: path or value too long to restore (bug)", path);
	u->op = op;
	u->pid = pid;
	u->done = false;
	/* Fully written before the handler can see it. */
	__atomic_store_n(&nr_undos, nr_undos + 1, __ATOMIC_RELEASE);
	return nr_undos - 1;
}

int cleanup_push(enum cleanup_op op, const char *path, const char *text)
{
	return push(op, path, text, 0);
}

/* The pid is in place before the handler can see the entry. */
int cleanup_push_kill(int pid)
{
	char name[32];

	snprintf(name, sizeof(name), "process %d", pid);
	return push(CLEANUP_KILL, name, NULL, pid);
}

int cleanup_run_one(int handle)
{
	if (handle < 0 || handle >= nr_undos)
		return 0;
	return undo_run(&undos[handle]);
}

void cleanup_forget(int handle)
{
	if (handle >= 0 && handle < nr_undos)
		undos[handle].done = true;
}

void cleanup_rearm(int handle)
{
	if (handle >= 0 && handle < nr_undos)
		undos[handle].done = false;
}

static const int fatal_sigs[] = { SIGINT, SIGTERM, SIGHUP };

void cleanup_run(void)
{
	sigset_t set;

	/* A signal now would run the same undos a second time, racing us. */
	sigemptyset(&set);
	for (size_t i = 0; i < MMUB_ARRAY_SIZE(fatal_sigs); i++)
		sigaddset(&set, fatal_sigs[i]);
	pthread_sigmask(SIG_BLOCK, &set, NULL);
	for (int i = nr_undos - 1; i >= 0; i--) {
		struct undo *u = &undos[i];

		if (!u->done && undo_run(u))
			err_msg("could not restore %s%s%s: %s", u->path,
				*u->text ? " to " : "", u->text,
				strerror(errno));
	}
}

/* Async-signal-safe: file operations only, then die of the signal. */
static void on_fatal_signal(int sig)
{
	for (int i = nr_undos - 1; i >= 0; i--)
		undo_run(&undos[i]);
	signal(sig, SIG_DFL);
	raise(sig);
}

void cleanup_install(void)
{
	struct sigaction sa = { .sa_handler = on_fatal_signal };

	sigemptyset(&sa.sa_mask);
	for (size_t i = 0; i < MMUB_ARRAY_SIZE(fatal_sigs); i++)
		sigaddset(&sa.sa_mask, fatal_sigs[i]);
	for (size_t i = 0; i < MMUB_ARRAY_SIZE(fatal_sigs); i++)
		sigaction(fatal_sigs[i], &sa, NULL);
	atexit(cleanup_run);
}

static void fatal_set(sigset_t *set)
{
	sigemptyset(set);
	for (size_t i = 0; i < MMUB_ARRAY_SIZE(fatal_sigs); i++)
		sigaddset(set, fatal_sigs[i]);
}

void cleanup_thread_init(void)
{
	sigset_t set;

	fatal_set(&set);
	pthread_sigmask(SIG_BLOCK, &set, NULL);
}

void cleanup_signals_hold(sigset_t *old)
{
	sigset_t set;

	fatal_set(&set);
	pthread_sigmask(SIG_BLOCK, &set, old);
}

/* A signal that came meanwhile is taken here, with the files closed. */
void cleanup_signals_release(const sigset_t *old)
{
	pthread_sigmask(SIG_SETMASK, old, NULL);
}

/*
 * Two runs that change the same setting would each put back what the
 * other found: the second to raise a hugetlb pool restores the first's
 * raised value, a run's stale-probe sweep removes another's kprobes.  So
 * a run takes the host's lock before it reads the first setting it will
 * change, and holds it until it exits, when the kernel drops it (after
 * the undos, on every way out, a SIGKILL included).  Another run waits,
 * and says for whom.
 */
static int open_host_lock(char *path, size_t len)
{
	struct stat st;

	snprintf(path, len, "%s/mmubench.lock",
		 !stat("/run/lock", &st) && S_ISDIR(st.st_mode) ? "/run/lock" :
		 "/tmp");
	return open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
}

void cleanup_hold_host(const char *what)
{
	static int fd = -1;
	char path[64], pid[24] = "";
	ssize_t n;

	if (fd >= 0)
		return;
	fd = open_host_lock(path, sizeof(path));
	/* Not ours to change then: the change itself will say why. */
	if (fd < 0)
		return;
	if (flock(fd, LOCK_EX | LOCK_NB)) {
		n = pread(fd, pid, sizeof(pid) - 1, 0);
		pid[n > 0 ? n : 0] = 0;
		pid[strcspn(pid, "\n")] = 0;
		err_msg("%s: waiting for another run (pid %s) to put the host's "
			"settings back (%s)", what, *pid ? pid : "?", path);
		if (flock(fd, LOCK_EX))
			die("%s: flock: %m", path);
	}
	n = snprintf(pid, sizeof(pid), "%d\n", (int)getpid());
	if (ftruncate(fd, 0) || pwrite(fd, pid, (size_t)n, 0) != n)
		err_msg("%s: could not write our pid: %m", path);
}
