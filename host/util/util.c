// SPDX-License-Identifier: GPL-2.0
/* Small helpers: errors, clocks, sizes, files. */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "util/util.h"

/* One line on stderr: "mmubench: " and the message. */
static void vmsg(const char *fmt, va_list ap)
{
	fprintf(stderr, MMUB_NAME ": ");
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
}

void err_msg(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmsg(fmt, ap);
	va_end(ap);
}

/* exit() runs the undos of util/cleanup.h (atexit). */
void die(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmsg(fmt, ap);
	va_end(ap);
	exit(2);
}

double lap_ms(double *t)
{
	double now = now_ms(), d = now - *t;

	*t = now;
	return d;
}

double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

const char *fmt_size(u64 b, char *buf, size_t len)
{
	if (b && !(b % MMUB_GIB))
		snprintf(buf, len, "%lluG", (unsigned long long)(b / MMUB_GIB));
	else if (b && !(b % MMUB_MIB))
		snprintf(buf, len, "%lluM", (unsigned long long)(b / MMUB_MIB));
	else if (b && !(b % MMUB_KIB))
		snprintf(buf, len, "%lluK", (unsigned long long)(b / MMUB_KIB));
	else
		snprintf(buf, len, "%llu", (unsigned long long)b);
	return buf;
}

/* Results are never half-written: a temp file next to it, then rename. */
int write_file_atomic(const char *path, const char *data, size_t len)
{
	size_t plen = strlen(path) + 32;
	char *tmp = malloc(plen);
	int fd, ret = -1;

	if (!tmp)
		return -1;
	snprintf(tmp, plen, "%s.tmp.%d", path, (int)getpid());
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd < 0)
		goto out;
	if (write(fd, data, len) != (ssize_t)len || fsync(fd)) {
		close(fd);
		unlink(tmp);
		goto out;
	}
	close(fd);
	if (rename(tmp, path)) {
		unlink(tmp);
		goto out;
	}
	ret = 0;
out:
	free(tmp);
	return ret;
}

int read_sysfs_u64(const char *path, u64 *v)
{
	FILE *f = fopen(path, "r");
	unsigned long long x;
	int ok;

	if (!f)
		return -1;
	ok = fscanf(f, "%llu", &x) == 1;
	fclose(f);
	if (!ok)
		return -1;
	*v = x;
	return 0;
}

int write_sysfs_u64(const char *path, u64 v)
{
	FILE *f = fopen(path, "w");
	int ret;

	if (!f)
		return -1;
	ret = fprintf(f, "%llu\n", (unsigned long long)v) < 0;
	ret |= fclose(f) != 0;
	return ret ? -1 : 0;
}

/*
 * The whole of a file whose size stat() does not tell (procfs, tracefs),
 * NUL-terminated, in a few large reads; NULL if it cannot be opened or
 * memory runs out.
 */
char *read_text(const char *path)
{
	size_t len = 0, cap = 0;
	char *buf = NULL, *nb;
	ssize_t n;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return NULL;
	do {
		if (len + 65536 + 1 > cap) {
			nb = realloc(buf, cap = cap * 2 + 65536 + 1);
			if (!nb) {
				free(buf);
				buf = NULL;
				break;
			}
			buf = nb;
		}
		n = read(fd, buf + len, cap - len - 1);
		if (n > 0)
			len += (size_t)n;
	} while (n > 0);
	close(fd);
	if (buf)
		buf[len] = 0;
	return buf;
}

/* qsort() and bsearch() of u64s, ascending. */
int cmp_u64(const void *a, const void *b)
{
	u64 x = *(const u64 *)a, y = *(const u64 *)b;

	return x < y ? -1 : x > y;
}
