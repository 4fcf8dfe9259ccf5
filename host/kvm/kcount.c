// SPDX-License-Identifier: GPL-2.0
/* Counting kprobes through perf (kcount.h). */
#define _GNU_SOURCE
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/syscall.h>
#include <linux/perf_event.h>
#include "util/util.h"
#include "kvm/kcount.h"
#include "kvm/probes.h"

#define KPROBE_PMU_TYPE	"/sys/bus/event_source/devices/kprobe/type"

static int kprobe_pmu(void)
{
	u64 type;

	return read_sysfs_u64(KPROBE_PMU_TYPE, &type) || type > INT32_MAX ?
	       -1 : (int)type;
}

static int open_on(int type, const char *func, int cpu)
{
	struct perf_event_attr attr;

	memset(&attr, 0, sizeof(attr));
	attr.size = sizeof(attr);
	attr.type = (u32)type;
	attr.config1 = (u64)(uintptr_t)func;	/* kprobe_func */
	return (int)syscall(SYS_perf_event_open, &attr, -1, cpu, -1,
			    PERF_FLAG_FD_CLOEXEC);
}

int kcount_open(struct kcount *k, const char *func, char *why, size_t len)
{
	long cpus = sysconf(_SC_NPROCESSORS_CONF);
	int type = kprobe_pmu(), fd;

	memset(k, 0, sizeof(*k));
	k->func = func;
	if (type < 0) {
		snprintf(why, len, "no kprobe PMU (%s: %s; needs "
			 "CONFIG_KPROBE_EVENTS)", KPROBE_PMU_TYPE,
			 strerror(errno));
		return -1;
	}
	if (!probes_have_symbol(func)) {
		snprintf(why, len, "%s is not a function of this kernel "
			 "(/proc/kallsyms)", func);
		return -1;
	}
	for (int cpu = 0; cpu < cpus && cpu < KCOUNT_CPUS; cpu++) {
		fd = open_on(type, func, cpu);
		/* An offline CPU: nothing of it to count. */
		if (fd < 0 && (errno == ENODEV || errno == EINVAL))
			continue;
		if (fd < 0) {
			snprintf(why, len, "perf_event_open(kprobe %s, CPU "
				 "%d): %s", func, cpu, strerror(errno));
			kcount_close(k);
			return -1;
		}
		k->fd[k->n++] = fd;
	}
	if (!k->n) {
		snprintf(why, len, "perf_event_open(kprobe %s): no CPU took "
			 "it", func);
		return -1;
	}
	return 0;
}

s64 kcount_read(const struct kcount *k)
{
	u64 v, sum = 0;

	if (!k->n)
		return -1;
	for (u32 i = 0; i < k->n; i++) {
		if (read(k->fd[i], &v, sizeof(v)) != sizeof(v))
			return -1;
		sum += v;
	}
	return (s64)sum;
}

void kcount_close(struct kcount *k)
{
	for (u32 i = 0; i < k->n; i++)
		close(k->fd[i]);
	k->n = 0;
}
