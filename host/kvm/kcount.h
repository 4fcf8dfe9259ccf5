/* SPDX-License-Identifier: GPL-2.0 */
/*
 * How often kernel functions ran, counted by perf's kprobe PMU on every
 * CPU: nothing is traced, and nothing of the machine's tracing is
 * touched (the counters go with their descriptors, on every way out).
 */
#ifndef HOST_KVM_KCOUNT_H
#define HOST_KVM_KCOUNT_H

#include <stddef.h>
#include <mmubench/types.h>

#define KCOUNT_CPUS	64

struct kcount {
	const char *func;
	int fd[KCOUNT_CPUS];
	u32 n;
};

/* Count calls of @func from now on; -1 with @why if it cannot be. */
int kcount_open(struct kcount *k, const char *func, char *why, size_t len);
/* The calls so far, on all CPUs; -1 if a counter cannot be read. */
s64 kcount_read(const struct kcount *k);
void kcount_close(struct kcount *k);

#endif
