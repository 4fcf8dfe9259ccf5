// SPDX-License-Identifier: GPL-2.0
/*
 * The system calls newlib needs, for a guest with one console and one
 * heap.  Built without underscores and with them, since newlib's x86_64
 * and aarch64 builds ask for different names.
 */
#include <errno.h>
#include <sys/stat.h>
#include "guest.h"

#undef errno
extern int errno;

static u64 heap_used;
static u32 heap_lock;

int write(int fd, const void *buf, size_t n);
int write(int fd, const void *buf, size_t n)
{
	(void)fd;
	guest_console_write(buf, n);
	return (int)n;
}

void *sbrk(ptrdiff_t inc);
void *sbrk(ptrdiff_t inc)
{
	void *p = (void *)-1;

	while (__atomic_exchange_n(&heap_lock, 1, __ATOMIC_ACQUIRE))
		arch_relax();
	if (guest_bi && inc >= 0 &&
	    heap_used + (u64)inc <= guest_bi->heap_size) {
		p = (void *)(guest_bi->heap_gpa + heap_used);
		heap_used += (u64)inc;
	} else {
		errno = ENOMEM;
	}
	__atomic_store_n(&heap_lock, 0, __ATOMIC_RELEASE);
	return p;
}

int close(int fd);
int close(int fd)
{
	(void)fd;
	return -1;
}

int fstat(int fd, struct stat *st);
int fstat(int fd, struct stat *st)
{
	(void)fd;
	st->st_mode = S_IFCHR;
	return 0;
}

int isatty(int fd);
int isatty(int fd)
{
	(void)fd;
	return 1;
}

off_t lseek(int fd, off_t off, int whence);
off_t lseek(int fd, off_t off, int whence)
{
	(void)fd;
	(void)off;
	(void)whence;
	return 0;
}

int read(int fd, void *buf, size_t n);
int read(int fd, void *buf, size_t n)
{
	(void)fd;
	(void)buf;
	(void)n;
	return 0;
}

int kill(int pid, int sig);
int kill(int pid, int sig)
{
	(void)pid;
	(void)sig;
	errno = EINVAL;
	return -1;
}

int getpid(void);
int getpid(void)
{
	return 1;
}

__attribute__((noreturn)) void _exit(int status);
void _exit(int status)
{
	if (guest_bi && !(guest_bi->flags & MMUB_BOOT_STANDALONE))
		for (;;)
			arch_doorbell(MMUB_DB_DONE);
	arch_standalone_exit(status ? 3 : 0);
}

/* The underscored names some newlib builds reference instead. */
int _write(int fd, const void *buf, size_t n) __attribute__((alias("write")));
void *_sbrk(ptrdiff_t inc) __attribute__((alias("sbrk")));
int _close(int fd) __attribute__((alias("close")));
int _fstat(int fd, struct stat *st) __attribute__((alias("fstat")));
int _isatty(int fd) __attribute__((alias("isatty")));
off_t _lseek(int fd, off_t off, int whence) __attribute__((alias("lseek")));
int _read(int fd, void *buf, size_t n) __attribute__((alias("read")));
int _kill(int pid, int sig) __attribute__((alias("kill")));
int _getpid(void) __attribute__((alias("getpid")));
