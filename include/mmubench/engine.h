/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The workload engine (common/engine/engine.c): the hot loop every
 * scenario runs, in the guest, and in the host for "bench" to compare.
 * Each side provides the services below.
 */
#ifndef MMUBENCH_ENGINE_H
#define MMUBENCH_ENGINE_H

#include <mmubench/boot.h>
#include <mmubench/sentinel.h>

struct engine {
	struct mmub_boot_info *bi;
	struct mmub_mailbox *mb;
	u32 cpu;
	u64 slice;		/* first byte of this vCPU's share */
	u64 slice_size;
	u64 nr_selected;	/* strides this vCPU may touch */
	u64 rng;
	u64 heartbeat;
	bool stop_seen;
	u64 sent_epoch;		/* MMUB_WL_SENTINEL: the window of skip[0] */
	/* that window's sentinels, and the next windows' chunks */
	struct mmub_sentinels skip[MMUB_SENTINEL_AHEAD + 1];
};

/*
 * Each vCPU's share of the test memory and the strides it selects in
 * it: the guest's engine and the host's oracle compute them alike.
 */
static inline u64 mmub_slice_size(u64 test_size, u32 nr_vcpus, u64 stride)
{
	return mmub_align_down(test_size / nr_vcpus, stride);
}

static inline u64 mmub_nr_selected(u64 slice_size, u64 stride,
				   u32 fraction_ppm)
{
	u64 n = slice_size / stride, sel = n * fraction_ppm / MMUB_FRACTION_ONE;

	return !sel && n && fraction_ppm ? 1 : sel;
}

void engine_init(struct engine *e, struct mmub_boot_info *bi, u32 cpu);
/* One pass; stops early (returns false) if @loop and the host said stop. */
bool engine_pass(struct engine *e, u64 generation, bool loop,
		 struct mmub_pass *rec);
__attribute__((noreturn)) void engine_serve(struct engine *e);
__attribute__((noreturn)) void engine_debug_action(struct engine *e);

/* What the engine needs from where it runs. */
u64 arch_clock(void);
void arch_relax(void);
void arch_doorbell(u32 event);
/*
 * The execute workload: put a return instruction at @addr unless it is
 * already there (true if written, caches made coherent), and call it.
 */
bool arch_code_plant(u64 addr);
void arch_code_call(u64 addr);

#endif
