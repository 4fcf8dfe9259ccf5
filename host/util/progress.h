/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A progress line on a terminal, for runs that take a while (--repeat,
 * tables, scale, migrations): what runs, how many of its steps are done,
 * and the time left at the mean pace of the finished ones.
 *
 * Only when stdout and stderr are both terminals, so that nothing lands
 * in a redirected stdout or in a log of stderr; and only once a run has
 * lasted MMUBENCH_PROGRESS_AFTER_MS (2000; the tests set 0), so that
 * short runs print nothing.  The line is written to stderr, rewritten
 * in place on news and by a thread of its own (so that the time left
 * counts down), at most 10 times a second, and erased before any other
 * output, so what stays on the terminal is what a pipe gets.  Without a
 * terminal every call here does nothing.
 */
#ifndef HOST_UTIL_PROGRESS_H
#define HOST_UTIL_PROGRESS_H

#include <mmubench/types.h>

/* At start: on or off for good; on a terminal, stdout and stderr wrapped. */
void progress_init(void);

/*
 * A run named @name ("zap --table") of @steps steps that together cost
 * @work (in the unit of progress_step()'s; @steps for steps alike).
 */
void progress_begin(const char *name, u32 steps, double work);
/* The next step begins, costing @work; the one before is done. */
__attribute__((format(printf, 2, 3)))
void progress_step(double work, const char *fmt, ...);
/* A step that will not run (a row n/a here): out of the count. */
void progress_skip(double work);
/* Where the current step is (a phase, a round); NULL: nothing. */
__attribute__((format(printf, 1, 2)))
void progress_detail(const char *fmt, ...);
/* The run is over: the line goes. */
void progress_end(void);

#endif
