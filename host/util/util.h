/* SPDX-License-Identifier: GPL-2.0 */
/* Small helpers every part of the host uses: errors, clocks, files. */
#ifndef HOST_UTIL_UTIL_H
#define HOST_UTIL_UTIL_H

#include <stdbool.h>
#include <stddef.h>
#include <mmubench/types.h>

#define MMUB_NAME "mmubench"

/*
 * One line on stderr and exit status 2: bad input or a missing
 * capability.  The undos of cleanup.h run on the way out.
 */
__attribute__((format(printf, 1, 2), noreturn)) void die(const char *fmt, ...);
/* One line on stderr, "mmubench: ..." */
__attribute__((format(printf, 1, 2))) void err_msg(const char *fmt, ...);

double now_ms(void);
/* Since *@t, which becomes now: a stopwatch's lap. */
double lap_ms(double *t);
const char *fmt_size(u64 bytes, char *buf, size_t len);
/* Results are never half-written: a temporary file, then rename. */
int write_file_atomic(const char *path, const char *data, size_t len);
int read_sysfs_u64(const char *path, u64 *v);
int write_sysfs_u64(const char *path, u64 v);
/* A whole procfs or tracefs file, NUL-terminated, to free(); NULL on error. */
char *read_text(const char *path);
/* qsort() and bsearch() of u64s, ascending. */
int cmp_u64(const void *a, const void *b);

#endif
