// SPDX-License-Identifier: GPL-2.0
/*
 * The workload engine: each vCPU owns one slice of the test memory and
 * touches one word per stride, in order or in a seeded permutation, of
 * the selected part of its slice.  This is the hot loop of every
 * scenario, so it never exits: progress is published in the mailbox.
 */
#include <mmubench/engine.h>

void engine_init(struct engine *e, struct mmub_boot_info *bi, u32 cpu)
{
	const struct mmub_workload *wl = &bi->wl;
	u64 per = mmub_slice_size(bi->test_size, bi->nr_vcpus, wl->stride);

	e->bi = bi;
	e->cpu = cpu;
	e->mb = (struct mmub_mailbox *)bi->mailbox_gpa + cpu;
	e->slice = bi->test_gpa + cpu * per;
	e->slice_size = per;
	e->nr_selected = mmub_nr_selected(per, wl->stride, wl->fraction_ppm);
	e->rng = (wl->seed + 1) * 0x9e3779b97f4a7c15ULL ^ (cpu + 1);
	e->heartbeat = 0;
	e->stop_seen = false;
	e->sent_epoch = ~0ULL;
	for (u32 a = 0; a <= MMUB_SENTINEL_AHEAD; a++)
		e->skip[a] = (struct mmub_sentinels){ 0, 0 };
}

static u64 xorshift64(u64 *s)
{
	u64 x = *s;

	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	*s = x;
	return x;
}

/*
 * A full-period LCG modulo the next power of two visits every index
 * exactly once; indices past the end are skipped.  No table, any size.
 */
struct perm {
	u64 x, mask, c, n;
};

static void perm_init(struct perm *p, u64 n, u64 seed)
{
	u64 m = 1;

	while (m < n)
		m <<= 1;
	p->mask = m - 1;
	p->c = (seed << 1) | 1;
	p->x = (seed * 0x2545f4914f6cdd1dULL) & p->mask;
	p->n = n;
}

static u64 perm_next(struct perm *p)
{
	do
		p->x = (p->x * 0x5851f42d4c957f2dULL + p->c) & p->mask;
	while (p->x >= p->n);
	return p->x;
}

/* A stamp this vCPU wrote, in this generation or an earlier one. */
static bool own_stamp(const struct engine *e, u64 old, u64 generation)
{
	return old && (old & 0xff) == e->cpu + 1 &&
	       (old >> 40) <= (generation & 0xffffff);
}

/*
 * A written word may hold: 0 (never written, or refaulted after private
 * memory was invalidated), or a stamp this vCPU wrote; with
 * MMUB_WL_CONVERT also the host's shared word.  Anything else is lost or
 * foreign data.
 */
static void check_old(struct engine *e, struct mmub_pass *rec, u64 addr,
		      u64 old, u64 generation)
{
	const struct mmub_workload *wl = &e->bi->wl;
	u64 off = addr - e->bi->test_gpa;
	bool own = own_stamp(e, old, generation);

	if ((wl->flags & MMUB_WL_CONVERT) &&
	    old == mmub_shared_word(mmub_align_down(off, MMUB_SZ_4K))) {
		rec->shared_reads++;
		return;
	}
	if (old == 0 && generation > 0) {
		if (!rec->zero_reads++ || off < rec->zero_lo)
			rec->zero_lo = off;
		if (off > rec->zero_hi)
			rec->zero_hi = off;
		if (!(wl->flags & MMUB_WL_KEEP))
			return;
	} else if (old == 0 || own) {
		return;
	}
	if (!rec->violations++) {
		rec->bad_addr = addr;
		rec->bad_value = old;
	}
}

/*
 * Supplied memory (MMUB_WL_SUPPLIED): the word at the start of the 4K
 * page the handler put there, or a stamp this vCPU wrote since.
 */
static void check_supplied(struct engine *e, struct mmub_pass *rec, u64 addr,
			   u64 old, u64 generation)
{
	u64 page = mmub_align_down(addr, MMUB_SZ_4K);

	if (old == mmub_supplied_word(page - e->bi->test_gpa) ||
	    own_stamp(e, old, generation))
		return;
	if (!rec->violations++) {
		rec->bad_addr = page;
		rec->bad_value = old;
	}
}

/*
 * The checking write: the word's old value and the new stamp, in one
 * exchange.  A plain store to the next word goes first, so that a page's
 * first access after an invalidation is a write, as an x86 exchange is
 * on hardware: arm64's exchange without LSE starts with a load (ldxr),
 * and so does any atomic under QEMU's single-threaded TCG (a load, then
 * a store), and a load maps the zero page, which the store must then
 * copy: a second fault and an invalidation per refaulted page that the
 * scenario did not ask for (nested on --clock icount, 1027 of 1049
 * tdp_mmu_zap_leafs() calls came from wp_page_copy() before this).
 */
static u64 write_then_exchange(u64 addr, u64 stamp)
{
	((volatile u64 *)addr)[1] = stamp;
	return __atomic_exchange_n((u64 *)addr, stamp, __ATOMIC_RELAXED);
}

/*
 * MMUB_WL_SENTINEL (sentinel.h): on adopting a new epoch, write that
 * window's sentinels once, each as the loop would, before epoch_seen
 * says that every write with an older epoch is done.  The loop skips
 * them until the next epoch.
 */
static void write_sentinels(struct engine *e, u64 epoch, u64 stamp,
			    u64 generation, struct mmub_pass *rec)
{
	const struct mmub_workload *wl = &e->bi->wl;
	u64 i, addr;

	e->sent_epoch = epoch;
	for (u32 a = 0; a <= MMUB_SENTINEL_AHEAD; a++)
		e->skip[a] = mmub_sentinels_of(e->nr_selected, epoch + a);
	for (i = e->skip[0].first; i < e->skip[0].first + e->skip[0].n; i++) {
		addr = e->slice + i * wl->stride;
		if (wl->nr_ranges &&
		    !mmub_wl_in_ranges(wl, addr - e->bi->test_gpa))
			continue;
		if (mmub_wl_cold_skip(wl, addr - e->bi->test_gpa))
			continue;
		if (wl->flags & MMUB_WL_CHECK)
			check_old(e, rec, addr,
				  write_then_exchange(addr, stamp), generation);
		else
			*(volatile u64 *)addr = stamp;
		rec->accesses++;
		rec->writes++;
	}
}

/*
 * Between batches: publish progress, then adopt the host's epoch.  The
 * release store of epoch_seen orders every earlier write before it, so
 * once the host sees epoch_seen >= E no write with an older epoch is
 * still in flight.  @rec: the pass's record (NULL: no sentinels).
 */
/* Does the loop leave stride @idx alone (MMUB_WL_SENTINEL)? */
static bool skipped(const struct engine *e, u64 idx)
{
	for (u32 a = 0; a <= MMUB_SENTINEL_AHEAD; a++)
		if (idx - e->skip[a].first < e->skip[a].n)
			return true;
	return false;
}

static u64 batch_boundary(struct engine *e, u64 generation,
			  struct mmub_pass *rec)
{
	struct mmub_mailbox *mb = e->mb;
	u64 epoch = mmub_load_acquire(&mb->epoch);
	u64 stamp = MMUB_STAMP(generation, epoch, e->cpu);

	mmub_store_relaxed(&mb->heartbeat, ++e->heartbeat);
	if (rec && (e->bi->wl.flags & MMUB_WL_SENTINEL) &&
	    epoch != e->sent_epoch)
		write_sentinels(e, epoch, stamp, generation, rec);
	mmub_store_release(&mb->epoch_seen, epoch);
	return stamp;
}

/*
 * The execute workload's access: write only where the instruction is
 * missing (first visit, or refaulted as zeros after an invalidation), so
 * later passes are pure instruction fetches.  Counts as a write if it
 * planted, or always with MMUB_WL_EXEC_WRITE (its data word).
 */
static bool access_exec(u64 addr, u32 flags, u64 stamp)
{
	bool planted = arch_code_plant(addr);

	arch_code_call(addr);
	if (!(flags & MMUB_WL_EXEC_WRITE))
		return planted;
	*(volatile u64 *)(addr + MMUB_SZ_4K) = stamp;
	return true;
}

bool engine_pass(struct engine *e, u64 generation, bool loop,
		 struct mmub_pass *rec)
{
	const struct mmub_workload *wl = &e->bi->wl;
	bool latency = wl->flags & MMUB_WL_LATENCY;
	bool exec = mmub_wl_executes(wl);
	/* Only a loop has windows: a single pass writes each stride once. */
	bool sentinels = loop && (wl->flags & MMUB_WL_SENTINEL);
	struct mmub_pass *srec = sentinels ? rec : NULL;
	/* Compare 32 random bits with this instead of a division per access. */
	u64 wthresh = ((u64)wl->write_pct << 32) / 100;
	u64 stamp, i, idx, addr, t0, writes = 0, done = 0;
	struct mmub_mailbox *mb = e->mb;
	bool complete = true, w;
	struct perm perm;

	perm_init(&perm, e->nr_selected, wl->seed + generation);
	*rec = (struct mmub_pass){ 0 };
	rec->generation = generation;
	stamp = batch_boundary(e, generation, srec);
	rec->clk_start = arch_clock();
	for (i = 0; i < e->nr_selected; i++) {
		idx = (wl->flags & MMUB_WL_RANDOM) ? perm_next(&perm) : i;
		addr = e->slice + idx * wl->stride;
		if (wl->nr_ranges &&
		    !mmub_wl_in_ranges(wl, addr - e->bi->test_gpa))
			continue;
		if (sentinels && skipped(e, idx))
			continue;
		if (mmub_wl_cold_skip(wl, addr - e->bi->test_gpa))
			continue;
		w = wl->write_pct == 100 ||
		    (wl->write_pct && (xorshift64(&e->rng) >> 32) < wthresh);
		t0 = latency ? arch_clock() : 0;
		if (exec)
			w = access_exec(addr, wl->flags, stamp);
		else if (wl->flags & MMUB_WL_SUPPLIED)
			check_supplied(e, rec, addr, w ?
				       write_then_exchange(addr, stamp) :
				       *(volatile u64 *)addr, generation);
		else if (w && (wl->flags & MMUB_WL_CHECK))
			check_old(e, rec, addr, write_then_exchange(addr, stamp),
				  generation);
		else if (w)
			*(volatile u64 *)addr = stamp;
		else
			(void)*(volatile u64 *)addr;
		if (latency)
			mmub_hist_add(&mb->lat, arch_clock() - t0);
		writes += w;
		if ((++done % MMUB_BATCH) == 0) {
			stamp = batch_boundary(e, generation, srec);
			if (loop && mmub_load_acquire(&mb->stop)) {
				complete = false;
				break;
			}
		}
	}
	rec->clk_end = arch_clock();
	rec->accesses += done;
	rec->writes += writes;
	mmub_store_relaxed(&mb->accesses, mb->accesses + rec->accesses);
	batch_boundary(e, generation, srec);
	return complete;
}

/*
 * The guest's history: one stamp in every 4K page of the slice, whatever
 * the workload selects, so that memory written long ago (page cache, old
 * heap) holds data a migration must carry even if the working set of
 * later passes is smaller.
 */
static void engine_fill(struct engine *e, u64 generation)
{
	u64 stamp = batch_boundary(e, generation, NULL), off;

	for (off = 0; off < e->slice_size; off += MMUB_SZ_4K)
		*(volatile u64 *)(e->slice + off) = stamp;
	e->mb->last = (struct mmub_pass){
		.generation = generation,
		.accesses = e->slice_size / MMUB_SZ_4K,
		.writes = e->slice_size / MMUB_SZ_4K,
	};
	batch_boundary(e, generation, NULL);
}

/*
 * MMUB_WL_COLD: the slice's cold pages (cold.h), once, before logging;
 * no pass writes them after.  The test memory's page index counts from
 * its start, as the host's bitmap does.
 */
static void engine_cold(struct engine *e, u64 generation)
{
	u64 stamp = batch_boundary(e, generation, NULL), off, n = 0;
	u64 base = e->slice - e->bi->test_gpa;

	for (off = 0; off < e->slice_size; off += MMUB_SZ_4K) {
		if (!mmub_cold_page((base + off) >> 12))
			continue;
		*(volatile u64 *)(e->slice + off) = stamp;
		n++;
	}
	e->mb->last = (struct mmub_pass){
		.generation = generation, .accesses = n, .writes = n,
	};
	batch_boundary(e, generation, NULL);
}

static void run_loop(struct engine *e, u64 generation)
{
	struct mmub_pass total = { .generation = generation }, rec;
	bool first = true;

	while (!mmub_load_acquire(&e->mb->stop)) {
		bool complete = engine_pass(e, generation++, true, &rec);

		if (first)
			total.clk_start = rec.clk_start;
		first = false;
		total.clk_end = rec.clk_end;
		total.accesses += rec.accesses;
		total.writes += rec.writes;
		if (rec.zero_reads && (!total.zero_reads ||
				       rec.zero_lo < total.zero_lo))
			total.zero_lo = rec.zero_lo;
		total.zero_hi = mmub_max(total.zero_hi, rec.zero_hi);
		total.zero_reads += rec.zero_reads;
		if (rec.violations && !total.violations) {
			total.bad_addr = rec.bad_addr;
			total.bad_value = rec.bad_value;
		}
		total.violations += rec.violations;
		total.shared_reads += rec.shared_reads;
		if (complete)
			e->mb->passes_done++;
	}
	e->mb->last = total;
}

void engine_serve(struct engine *e)
{
	struct mmub_mailbox *mb = e->mb;
	u64 seen = 0, seq;
	u32 cmd, arg;

	mmub_store_release(&mb->state, MMUB_STATE_IDLE);
	/*
	 * Spinning until the first command, the vCPUs that booted first
	 * would take the CPUs from those still booting whenever the host
	 * has fewer CPUs than vCPUs.  One exit per vCPU, before any pass.
	 */
	arch_doorbell(MMUB_DB_PARK);
	for (;;) {
		while ((seq = mmub_load_acquire(&mb->cmd_seq)) == seen)
			arch_relax();
		seen = seq;
		cmd = mb->cmd;
		arg = mb->cmd_arg;
		mmub_store_relaxed(&mb->state, MMUB_STATE_BUSY);
		mmub_hist_reset(&mb->lat);
		switch (cmd) {
		case MMUB_CMD_PASS:
			engine_pass(e, arg, false, &mb->last);
			mb->passes_done++;
			break;
		case MMUB_CMD_LOOP:
			run_loop(e, arg);
			break;
		case MMUB_CMD_FILL:
			engine_fill(e, arg);
			break;
		case MMUB_CMD_COLD:
			engine_cold(e, arg);
			break;
		case MMUB_CMD_EXIT:
			mmub_store_release(&mb->state, MMUB_STATE_DONE);
			mmub_store_release(&mb->ack_seq, seq);
			for (;;)
				arch_doorbell(MMUB_DB_DONE);
		default:
			mb->error = cmd;
			break;
		}
		mmub_store_relaxed(&mb->state, MMUB_STATE_IDLE);
		mmub_store_release(&mb->ack_seq, seq);
	}
}

/* Debug workloads that prove the host notices faults and hangs. */
void engine_debug_action(struct engine *e)
{
	mmub_store_release(&e->mb->state, MMUB_STATE_BUSY);
	if (e->bi->wl.action == MMUB_ACT_FAULT)
		*(volatile u64 *)0x7ffff0000000ULL = 1;
	for (;;)
		arch_relax();
}
