/* SPDX-License-Identifier: GPL-2.0 */
/*
 * arm64 KVM's stage-2 page-table dump in debugfs (Linux 6.12 with
 * CONFIG_PTDUMP_STAGE2_DEBUGFS): /sys/kernel/debug/kvm/<tid>-<fd>/
 * stage2_page_tables, where <tid> is the thread that made the VM and
 * <fd> its VM file descriptor.  arm64's KVM has no pages_4k/2m/1g
 * stats; this dump is where its mappings by size can be counted.
 *
 * The dump prints one line per run of leaf entries of the same level
 * and attributes (arch/arm64/mm/ptdump.c's note_page()):
 *
 *   0x0000000080000000-0x0000000080800000           8M 2   R W   AF BLK
 *
 * the IPA range, its size, the level, then, for an entry with any of
 * the attribute bits, " " (valid) or "F" (invalid) and the others; an
 * empty range prints nothing after the level.  With 4K pages, level 3
 * holds 4K pages, level 2 2M blocks and level 1 1G blocks.
 *
 * Reading it walks the whole IPA space under KVM's mmu_lock held for
 * write: vCPUs that fault meanwhile wait.  Never read it in a timed
 * phase.
 */
#ifndef HOST_KVM_STAGE2_DUMP_H
#define HOST_KVM_STAGE2_DUMP_H

#include <stdio.h>
#include <sys/types.h>
#include <mmubench/types.h>

#define STAGE2_DUMP_SIZES	3	/* 4K, 2M, 1G */

/* Guest physical [start, end): what is counted. */
struct stage2_range {
	u64 start;
	u64 end;
};

/*
 * The dump of the VM that thread @tid made as @vm_fd: 0 and its path in
 * @path, or -1 and why there is none in @why.
 */
int stage2_dump_find(pid_t tid, int vm_fd, char *path, size_t len,
		     char *why, size_t wlen);

/*
 * Count the valid leaf mappings of dump @f by size (4K, 2M, 1G) whose
 * start lies in one of @r[0..@n) into @pages: 0, or -1 and why (a line
 * it cannot read, or a dump that stops before the last range's end).
 */
int stage2_dump_count(FILE *f, const struct stage2_range *r, u32 n,
		      s64 pages[STAGE2_DUMP_SIZES], char *why, size_t wlen);

#endif
