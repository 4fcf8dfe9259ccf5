/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The undo of every setting a run changes on the machine, run once on
 * every way out (exit, die(), SIGINT/SIGTERM/SIGHUP); see cleanup.c.
 */
#ifndef HOST_UTIL_CLEANUP_H
#define HOST_UTIL_CLEANUP_H

#include <signal.h>
#include <stdbool.h>

enum cleanup_op {
	CLEANUP_WRITE,		/* write @text to @path (truncating) */
	CLEANUP_APPEND,		/* append @text to @path (kprobe_events) */
	CLEANUP_RMDIR,		/* remove the directory @path */
	CLEANUP_UNLINK,		/* remove the file @path */
	CLEANUP_KILL,		/* SIGKILL a child: cleanup_push_kill() */
};

/*
 * Before the first setting a run changes is read: the host's lock, held
 * until exit, so that two runs never put back each other's values; a
 * second run waits, saying so, its line led by @what.
 */
void cleanup_hold_host(const char *what);
/* Register an undo; returns its handle. */
int cleanup_push(enum cleanup_op op, const char *path, const char *text);
/* Kill child @pid on the way out (a QEMU must not outlive us); handle. */
int cleanup_push_kill(int pid);
/* Run one undo now (a scenario puts a setting back early); 0 if done. */
int cleanup_run_one(int handle);
/* The setting is back already: nothing to undo. */
void cleanup_forget(int handle);
/* The setting is changed again: undo it again at exit. */
void cleanup_rearm(int handle);
/* Run every pending undo, newest first, saying which failed. */
void cleanup_run(void);
/* At exit and on fatal signals; call once, early in main(). */
void cleanup_install(void);

/*
 * The fatal signals are the main thread's: a helper thread calls
 * cleanup_thread_init() first, so that the main thread can hold them off
 * (cleanup_signals_hold) while it has open a file an undo must remove,
 * such as a tracing instance's: removed with a file of it open, it stays.
 */
void cleanup_thread_init(void);
void cleanup_signals_hold(sigset_t *old);
void cleanup_signals_release(const sigset_t *old);

#endif
