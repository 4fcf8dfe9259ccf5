// SPDX-License-Identifier: GPL-2.0
/* arm64 KVM's stage-2 dump, found and counted; see stage2_dump.h. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include "kvm/stage2_dump.h"

#define KVM_DEBUGFS	"/sys/kernel/debug/kvm"
#define GRANULE		4096ULL

int stage2_dump_find(pid_t tid, int vm_fd, char *path, size_t len,
		     char *why, size_t wlen)
{
	struct stat st;

	if (sysconf(_SC_PAGESIZE) != (long)GRANULE) {
		snprintf(why, wlen, "the stage-2 dump is read for 4K pages; "
			 "this kernel's are %ld bytes", sysconf(_SC_PAGESIZE));
		return -1;
	}
	if (stat(KVM_DEBUGFS, &st)) {
		snprintf(why, wlen, "no %s (debugfs not mounted, or not root)",
			 KVM_DEBUGFS);
		return -1;
	}
	/* kvm_create_vm_debugfs(): "%d-%s", task_pid_nr(current), the fd. */
	snprintf(path, len, "%s/%d-%d", KVM_DEBUGFS, (int)tid, vm_fd);
	if (stat(path, &st)) {
		snprintf(why, wlen, "no %s, the VM's debugfs directory: %s",
			 path, strerror(errno));
		return -1;
	}
	snprintf(path, len, "%s/%d-%d/stage2_page_tables", KVM_DEBUGFS,
		 (int)tid, vm_fd);
	if (stat(path, &st)) {
		snprintf(why, wlen, "this KVM has no stage-2 dump (%s: "
			 "CONFIG_PTDUMP_STAGE2_DEBUGFS, arm64)", path);
		return -1;
	}
	return 0;
}

/* Bytes of a level's leaf with 4K pages: 3, 2, 1 are 4K, 2M, 1G. */
static int level_size(unsigned int level, u32 *idx, u64 *bytes)
{
	if (level < 1 || level > 3)
		return -1;
	*idx = 3 - level;
	*bytes = GRANULE << (9 * *idx);
	return 0;
}

/* The size column, "%9lu%c" in K, M, G...: bytes, or 0 if unreadable. */
static u64 size_bytes(unsigned long long n, char unit)
{
	const char *units = "KMGTPE", *u = strchr(units, unit);

	if (!unit || !u)
		return 0;
	return (u64)n << (10 * (u - units + 1));
}

/* Blocks of @bytes in [@start, @end) whose start lies in one of @r. */
static u64 blocks_in(u64 start, u64 end, u64 bytes,
		     const struct stage2_range *r, u32 n)
{
	u64 count = 0;

	for (u32 i = 0; i < n; i++) {
		u64 lo = r[i].start > start ? r[i].start : start;
		u64 hi = r[i].end < end ? r[i].end : end;

		/* The first block at or after lo, on the run's grid. */
		lo = start + (lo - start + bytes - 1) / bytes * bytes;
		if (hi > lo)
			count += (hi - lo + bytes - 1) / bytes;
	}
	return count;
}

/*
 * One range line, which must start where the last one ended (*@end,
 * 0 before the first): a gap or an overlap would count a range never
 * or twice.  *@end becomes its end.  After the level, an entry with
 * attribute bits prints " " and a space for valid, or " F"; an empty
 * one nothing.  0, -1 if the line is not one of those, -2 if it does
 * not start at *@end.
 */
static int count_line(const char *line, const struct stage2_range *r,
		      u32 n, s64 pages[STAGE2_DUMP_SIZES], u64 *end)
{
	unsigned long long start, stop, size;
	unsigned int level;
	char unit = 0;
	const char *rest;
	int pos = -1;
	u64 bytes;
	u32 idx;

	if (sscanf(line, "0x%llx-0x%llx %llu%c %u%n", &start, &stop, &size,
		   &unit, &level, &pos) != 5 || pos < 0 || stop <= start ||
	    size_bytes(size, unit) != stop - start)
		return -1;
	if (start != *end)
		return -2;
	*end = stop;
	rest = line + pos;
	if (!*rest || *rest == '\n' || !strncmp(rest, " F", 2))
		return 0;	/* invalid: nothing mapped */
	if (strncmp(rest, "  ", 2) || level_size(level, &idx, &bytes) ||
	    (start | stop) & (bytes - 1))
		return -1;
	pages[idx] += (s64)blocks_in(start, stop, bytes, r, n);
	return 0;
}

int stage2_dump_count(FILE *f, const struct stage2_range *r, u32 n,
		      s64 pages[STAGE2_DUMP_SIZES], char *why, size_t wlen)
{
	char *line = NULL;
	size_t cap = 0;
	u64 end = 0, need = 0, last;
	int ret = 0;

	memset(pages, 0, sizeof(s64) * STAGE2_DUMP_SIZES);
	for (u32 i = 0; i < n; i++)
		need = r[i].end > need ? r[i].end : need;
	while (getline(&line, &cap, f) > 0) {
		if (!strncmp(line, "---[", 4))
			continue;	/* the "Guest IPA" marker */
		last = end;
		ret = count_line(line, r, n, pages, &end);
		if (ret) {
			line[strcspn(line, "\n")] = 0;
			if (ret == -2)
				snprintf(why, wlen, "a line of the stage-2 dump "
					 "not starting where the last one "
					 "ended (0x%llx): \"%.80s\"",
					 (unsigned long long)last, line);
			else
				snprintf(why, wlen, "an unreadable line in the "
					 "stage-2 dump: \"%.80s\"", line);
			ret = -1;
			break;
		}
	}
	free(line);
	/*
	 * The dump prints a run when the next one starts: the last run, up
	 * to the end of the IPA space, is never printed.  What it printed
	 * must reach past the memory counted.
	 */
	if (!ret && end < need) {
		snprintf(why, wlen, "the stage-2 dump stops at 0x%llx, before "
			 "the end of the memory counted (0x%llx)",
			 (unsigned long long)end, (unsigned long long)need);
		ret = -1;
	}
	return ret;
}
