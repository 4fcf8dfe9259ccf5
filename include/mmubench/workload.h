/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The workload descriptor: what every vCPU of the guest does to the test
 * memory.  The host fills it into the boot info; under QEMU the guest
 * parses it from its command line with mmub_wl_parse(), the same parser
 * the host uses to write that command line, so both sides agree.
 */
#ifndef MMUBENCH_WORKLOAD_H
#define MMUBENCH_WORKLOAD_H

#include <mmubench/types.h>
#include <mmubench/cold.h>

enum mmub_action {
	MMUB_ACT_TOUCH = 0,	/* read/write one word per stride */
	MMUB_ACT_FAULT = 1,	/* debug: access an unmapped address */
	MMUB_ACT_HANG = 2,	/* debug: spin without progress */
	/*
	 * Execute: each visited stride starts with a return instruction
	 * (planted on the first visit, or again after an invalidation) and
	 * is called.  With kvm.nx_huge_pages on, KVM splits every huge page
	 * executed this way.  The test memory is mapped executable.
	 */
	MMUB_ACT_EXEC = 3,
	MMUB_ACT_NR,
};

/* Visit the selected strides in a seeded random permutation. */
#define MMUB_WL_RANDOM		(1U << 0)
/* Time every access with the guest clock and fill the histogram. */
#define MMUB_WL_LATENCY		(1U << 1)
/*
 * Write by exchange and check what was there: our own stamp, or zero
 * after an invalidation of private memory.  With MMUB_WL_KEEP (shared
 * memory, whose data survives MADV_DONTNEED) a zero is a violation too.
 */
#define MMUB_WL_CHECK		(1U << 2)
#define MMUB_WL_KEEP		(1U << 3)
/*
 * Set aside a chunk of each vCPU's strides per epoch, written once when
 * the epoch is adopted (mmubench/sentinel.h): the dirty-log oracle's
 * write-once pages.
 */
#define MMUB_WL_SENTINEL	(1U << 4)
/*
 * The memory arrives from the host's demand-paging handler, which puts
 * mmub_supplied_word() at the start of every 4K page it supplies: every
 * access checks what was there, that word or this vCPU's own stamp.  A
 * zero (a page not supplied) or another page's word is a violation.
 */
#define MMUB_WL_SUPPLIED	(1U << 5)

/*
 * Private memory converted to shared and back (private-mem): before a
 * range becomes shared the host writes mmub_shared_word() at the start of
 * each of its strides on the shared side, and once it is private again
 * mmub_stale_word() there.  With MMUB_WL_CHECK the guest takes the first
 * for what it is, counting it (shared_reads: it read the shared side,
 * not its private data), and the second as a violation: a shared page
 * still mapped after the range went private.
 */
#define MMUB_WL_CONVERT		(1U << 6)

/*
 * The execute workload writes too: a stamp at the start of the 4K page
 * after each stride's instruction (nx-recovery --under-load), so that the
 * vCPUs keep writing into the huge pages they execute from.  Not the
 * instruction's own page: a write there is self-modifying code, which
 * costs the CPU (and QEMU's TCG) far more than the MMU.  Needs a stride
 * of 8K or more.
 */
#define MMUB_WL_EXEC_WRITE	(1U << 7)

/*
 * Cold pages (mmubench/cold.h): one in every 64-page word of the dirty
 * bitmap, written on MMUB_CMD_COLD before logging starts and left alone
 * by every pass after.  Not with the execute workload, whose
 * MMUB_WL_EXEC_WRITE writes the page after each instruction.
 */
#define MMUB_WL_COLD		(1U << 8)

/*
 * The page's offset in the test memory, so that a page supplied at the
 * wrong place is told apart; the low byte 0, which no vCPU's stamp has.
 */
static inline u64 mmub_supplied_word(u64 off)
{
	return 0xd5a0000000000000ULL | ((off >> 12) << 8);
}

/* The same for the host's words of MMUB_WL_CONVERT. */
static inline u64 mmub_shared_word(u64 off)
{
	return 0x5a4e000000000000ULL | ((off >> 12) << 8);
}

static inline u64 mmub_stale_word(u64 off)
{
	return 0x57a1000000000000ULL | ((off >> 12) << 8);
}

#define MMUB_MAX_RANGES		8
#define MMUB_FRACTION_ONE	1000000U	/* fraction_ppm of "all" */

struct mmub_range {
	u64 offset;	/* from the start of the test memory */
	u64 length;
};

struct mmub_workload {
	u32 action;		/* enum mmub_action */
	u32 flags;		/* MMUB_WL_* */
	u32 write_pct;		/* 0..100: share of accesses that write */
	u32 passes;		/* standalone (QEMU) runs only; the VMM drives passes */
	u64 seed;
	u64 stride;		/* bytes between two accesses: 4K, 2M or 1G */
	u32 fraction_ppm;	/* touch this leading share of each vCPU slice */
	u32 nr_ranges;		/* 0: no restriction */
	struct mmub_range ranges[MMUB_MAX_RANGES];
};

MMUB_STATIC_ASSERT(sizeof(struct mmub_workload) == 40 + 16 * MMUB_MAX_RANGES);

void mmub_wl_defaults(struct mmub_workload *wl);

/* Is test-memory offset @off in one of the workload's ranges? */
static inline bool mmub_wl_in_ranges(const struct mmub_workload *wl, u64 off)
{
	u32 i;

	for (i = 0; i < wl->nr_ranges; i++)
		if (off - wl->ranges[i].offset < wl->ranges[i].length)
			return true;
	return false;
}

/*
 * Does a pass leave the stride at test-memory offset @off alone, as a
 * cold page?  Only a 4K stride can start on one (cold.h).
 */
static inline bool mmub_wl_cold_skip(const struct mmub_workload *wl, u64 off)
{
	return (wl->flags & MMUB_WL_COLD) && wl->stride == 4096 &&
	       mmub_cold_page(off >> 12);
}

/* Does the workload run code from the test memory? */
static inline bool mmub_wl_executes(const struct mmub_workload *wl)
{
	return wl->action == MMUB_ACT_EXEC;
}

/*
 * Parse one "key=value" word of a guest command line (passes=3 stride=2m
 * fraction=0.25 write=100 random=1 seed=7 ranges=0+1m,4m+1m action=touch
 * latency=1) into @wl.  Returns 0, 1 if the key is not a workload key, or
 * -1 if the value is bad.  Freestanding: no libc needed.
 */
int mmub_wl_parse_word(struct mmub_workload *wl, const char *key,
		       const char *val);

/* What a standalone guest's command line says besides the workload. */
struct mmub_guest_args {
	u32 vcpus;
	u64 mem;	/* test memory, all vCPUs */
	u64 page;	/* guest page size of the test memory */
};

/*
 * Split a standalone guest's command line in place into key=value words:
 * vcpus=, mem=, page= into @a, the workload's words into @wl; other keys
 * (console=, ...) are ignored.  With @skip_bare_first a first word
 * without '=' (the UEFI Shell's command path) is skipped.  Returns NULL,
 * or the key whose value is bad.
 */
const char *mmub_cmdline_parse(char *s, struct mmub_guest_args *a,
			       struct mmub_workload *wl, bool skip_bare_first);

/* Parse an action name ("touch", "fault", "hang", "exec"); -1 if unknown. */
int mmub_parse_action(const char *s);
extern const char *const mmub_action_names[MMUB_ACT_NR];

/* Sizes with k/m/g suffixes, as the selftests accept them. */
int mmub_parse_size(const char *s, u64 *out);
/* "0.25" or "25%" -> parts per million. */
int mmub_parse_fraction(const char *s, u32 *ppm);

#endif
