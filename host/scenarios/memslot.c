// SPDX-License-Identifier: GPL-2.0
/*
 * Scenario "memslot": memslot operations while the vCPUs write, as the
 * kernel's memslot_modification_stress_test and memslot_perf_test do
 * them: a slot moved (an active one, whose pages KVM maps, and an
 * inactive one), deleted and added back, unmapped whole and in chunks.
 *
 * The test memory is split over -x N slots (4 per vCPU unless given).
 * The vCPUs write to the first N - 2 of them, which never change.  Slot
 * N - 2 is the churned slot; the range of slot N - 1 is its move target,
 * a hole once that slot is deleted at the start.  The guest's page tables
 * map both ranges, and the guest touches neither while the host works:
 * a vCPU touching a GPA with no slot would exit to the host
 * in its hot loop (KVM_EXIT_MMIO on x86; on arm64 MMIO, or a KVM_RUN
 * error for an access it cannot decode), which mmubench treats as an
 * error.
 * It reads the churned slot only in a check pass, between operations,
 * where the slot is.
 *
 * Each operation is one KVM_SET_USER_MEMORY_REGION, timed, while the
 * vCPUs loop over their memory: one pass before it, two after.  Around
 * it (from the loop's start to its stop) the VM's stats give what it
 * zapped and flushed (x86 zaps every mapping on a move or a delete,
 * kvm_mmu_zap_all_fast(): measured on 6.1; 6.12 does so while
 * KVM_X86_QUIRK_SLOT_ZAP_ALL is on, its default; the vCPUs refault their
 * memory), and the vCPUs' access latency what they paid for it.  A
 * round is:
 *
 *   move_active    the slot, mapped by the check before, to the hole
 *   move_active    back (the check after the first move mapped it there)
 *   move_inactive  to the hole and back again, nothing mapped meanwhile
 *   delete, add    the slot deleted and added back at its place
 *   delete, add_chunk x K, delete_chunk x K, add
 *                  the slot's memory added as --chunks slots, then
 *                  unmapped chunk by chunk, then added back whole
 *
 * The checks: before a sequence of operations the host writes, at the
 * start of each 4K page of the slot's memory, the word the guest expects
 * at the GPA the sequence leaves it at (mmub_supplied_word() of that
 * page's offset in the test memory); after it, the vCPUs pass over
 * that range (MMUB_WL_SUPPLIED: each word read and replaced by a stamp,
 * anything else a violation naming its page), and the host finds each
 * page of the slot's memory holding that pass's stamp.  So the guest sees
 * at the new GPA the data the slot had, page by page, and its writes
 * there land in the slot's memory.  --debug-lose-page loses one page
 * on purpose, to show that the check catches it.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <mmubench/engine.h>
#include <mmubench/workload.h>
#include "util/util.h"
#include "util/parse.h"
#include "results/json.h"
#include "framework/scenario.h"
#include "scenarios/scenarios.h"

#define MAX_ROUNDS	100
#define MAX_CHUNKS	64
/* A stat this kernel does not have. */
#define NA		INT64_MIN

enum {
	O_ROUNDS = 512, O_CHUNKS, O_LOSE, O_LOSE_WRITE,
};

static const struct opt opts[] = {
	{ "rounds", O_ROUNDS, required_argument, "N",
	  "rounds of operations, 1..100 (2)" },
	{ "chunks", O_CHUNKS, required_argument, "K",
	  "slots the churned memory is split into for the chunked unmap, "
	  "1..64 (4)" },
	{ "debug-lose-page", O_LOSE, required_argument, "N",
	  "debug: after operation N, zero one 4K page of the churned slot's "
	  "memory; the content check must fail" },
	{ "debug-lose-write", O_LOSE_WRITE, required_argument, "N",
	  "debug: at the first check after operation N, put back the word "
	  "one 4K page of the churned slot held before the guest's pass, as "
	  "if its write went elsewhere; the host's check must fail" },
	{ NULL },
};

static struct {
	u32 rounds;
	u32 chunks;
	u32 lose;		/* operation number (from 1), 0: none */
	u32 lose_write;		/* the same, for --debug-lose-write */
} o = { .rounds = 2, .chunks = 4 };

/* A round: 4 moves, delete, add, delete, K adds, K deletes, add. */
static u32 ops_per_round(void)
{
	return 8 + 2 * o.chunks;
}

static void parse(int key, const char *arg)
{
	switch (key) {
	case O_ROUNDS:
		o.rounds = (u32)parse_u64("--rounds", arg, 1, MAX_ROUNDS);
		break;
	case O_CHUNKS:
		o.chunks = (u32)parse_u64("--chunks", arg, 1, MAX_CHUNKS);
		break;
	case O_LOSE:
		o.lose = (u32)parse_u64("--debug-lose-page", arg, 1,
					MAX_ROUNDS * (8 + 2 * MAX_CHUNKS));
		break;
	case O_LOSE_WRITE:
		o.lose_write = (u32)parse_u64("--debug-lose-write", arg, 1,
					      MAX_ROUNDS * (8 + 2 * MAX_CHUNKS));
		break;
	}
}

static void validate(struct common *c)
{
	struct vm_params *p = &c->vm;
	u64 total = p->vcpu_bytes * p->nr_vcpus, slot, unit;
	char a[32], b[32];

	if (!(c->given & GIVEN_SLOTS))
		p->nr_slots = mmub_min(4 * p->nr_vcpus, 256u);
	if (p->wl.action != MMUB_ACT_TOUCH)
		die("--debug-action: not with memslot");
	if (p->wl.stride != MMUB_SZ_4K)
		die("--touch %s: memslot checks every 4K page of the churned "
		    "slot (accepted: 4k)", fmt_size(p->wl.stride, a, sizeof(a)));
	if (p->wl.write_pct != 100)
		die("-w %u: memslot's checks read what each write replaces "
		    "(accepted: 100)", p->wl.write_pct);
	if (p->wl.fraction_ppm != MMUB_FRACTION_ONE || p->wl.nr_ranges)
		die("--fraction/--ranges: memslot chooses the vCPUs' ranges "
		    "itself (all slots but the last two)");
	/* Else every operation's latency would read 0 ns, a gain in compare. */
	if (!(p->wl.flags & MMUB_WL_LATENCY))
		die("--no-latency: not with memslot: the vCPUs' latency "
		    "around each operation is one of its figures");
	/* Every vCPU's share must reach into the slots that stay. */
	if (p->nr_slots < 2 * p->nr_vcpus + 1)
		die("-x %u: memslot needs at least %u slots with %u vCPU%s "
		    "(the last two are churned, and every vCPU's share must "
		    "reach into the others)", p->nr_slots,
		    2 * p->nr_vcpus + 1, p->nr_vcpus,
		    p->nr_vcpus > 1 ? "s" : "");
	slot = total / p->nr_slots;
	unit = mmub_max(p->guest_page, backing_page_size(p->backing));
	if (slot % o.chunks || (slot / o.chunks) % unit)
		die("--chunks %u: a slot of %s does not split into %u chunks "
		    "that are multiples of %s", o.chunks,
		    fmt_size(slot, a, sizeof(a)), o.chunks,
		    fmt_size(unit, b, sizeof(b)));
	if (o.lose > o.rounds * ops_per_round())
		die("--debug-lose-page %u: there are %u operations (%u a round "
		    "with --chunks %u)", o.lose, o.rounds * ops_per_round(),
		    ops_per_round(), o.chunks);
	if (o.lose_write > o.rounds * ops_per_round())
		die("--debug-lose-write %u: there are %u operations (%u a round "
		    "with --chunks %u)", o.lose_write, o.rounds * ops_per_round(),
		    ops_per_round(), o.chunks);
	p->wl.nr_ranges = 1;
	p->wl.ranges[0] = (struct mmub_range){ 0, slot * (p->nr_slots - 2) };
}

/* ---- the churned slot ------------------------------------------------- */

/* One KVM_SET_USER_MEMORY_REGION and what it cost. */
struct op {
	const char *kind;	/* "move_active", ... */
	u32 slot;
	u64 gpa;		/* where it leaves the slot; size 0: deleted */
	u64 size;
	double ms;
	/* Around it: the VM's and vCPUs' stats, NA where the kernel lacks one */
	s64 pages[VM_PAGE_SIZES];	/* change of mappings by size */
	s64 pf_fixed;
	s64 flush;		/* remote_tlb_flush */
	s64 flush_reqs;		/* remote_tlb_flush_requests */
	/* the vCPUs' accesses meanwhile, ns, all vCPUs merged */
	double p50_ns, p99_ns, max_ns;
	u64 accesses;
};

struct ms_ctx {
	struct op *ops;
	u32 nops;
	u32 gen;		/* the guest's next generation */
	u32 id;			/* the churned slot's id */
	u64 off;		/* its offset in the test memory */
	u64 hole;		/* the offset of its move target */
	u64 size;
	u8 *hva;		/* its memory */
	u32 checks;
	u64 pages_checked;
	bool lost_write;	/* --debug-lose-write done */
};

/* What the phase around an operation saw, into @op. */
static void op_record(const struct vm *vm, const struct phase *p,
		      struct op *op)
{
	struct mmub_hist h;

	for (u32 s = 0; s < VM_PAGE_SIZES; s++)
		op->pages[s] = phase_stat_or(vm, p, false, vm_page_size_stats[s],
					     NA);
	op->pf_fixed = phase_stat_or(vm, p, true, "pf_fixed", NA);
	op->flush = phase_stat_or(vm, p, false, "remote_tlb_flush", NA);
	op->flush_reqs = phase_stat_or(vm, p, false,
				       "remote_tlb_flush_requests", NA);
	op->accesses = phase_latency(p, &h);
	op->p50_ns = access_ns(vm, &h, 500000);
	op->p99_ns = access_ns(vm, &h, 990000);
	op->max_ns = access_ns(vm, &h, 1000000);
}

/* --debug-lose-page: one page of the slot's data gone, as a bad move would. */
static void lose_page(struct ms_ctx *x)
{
	memset(x->hva + x->size / 2, 0, MMUB_SZ_4K);
}

/*
 * Operation number x->nops + 1: the ioctl, timed, while the vCPUs loop
 * over their memory, one pass before it and two after.
 */
static int slot_op(struct vm *vm, struct ms_ctx *x, const char *kind, u32 id,
		   u64 off, u64 size, u8 *hva)
{
	struct op *op = &x->ops[x->nops++];
	u64 gpa = vm->layout.test_gpa + off;
	struct phase p;
	double t;
	int ret;

	*op = (struct op){ .kind = kind, .slot = id, .gpa = gpa, .size = size };
	phase_begin(vm, &p, kind);
	ret = vm_post(vm, MMUB_CMD_LOOP, x->gen++) ||
	      vm_wait_passes(vm, 1, "looping before a slot operation");
	if (!ret) {
		t = now_ms();
		if (vm_set_region(vm, id, gpa, size, hva, 0)) {
			err_msg("memslot: operation %u (%s): KVM_SET_USER_"
				"MEMORY_REGION slot %u (gpa 0x%llx, %llu bytes) "
				"failed: %s", x->nops, kind, id,
				(unsigned long long)gpa,
				(unsigned long long)size, strerror(errno));
			ret = -1;
		}
		op->ms = now_ms() - t;
	}
	if (!ret && o.lose == x->nops)
		lose_page(x);
	ret = ret || vm_wait_passes(vm, 2, "looping after a slot operation");
	ret = vm_stop_loop(vm) || ret;
	phase_end(vm, &p, !ret);
	if (!ret)
		op_record(vm, &p, op);
	phase_free(&p);
	return ret;
}

/* The churned slot, whole, at test offset @off (0 size: deleted). */
static int churn_op(struct vm *vm, struct ms_ctx *x, const char *kind,
		    u64 off, bool present)
{
	return slot_op(vm, x, kind, x->id, off, present ? x->size : 0, x->hva);
}

/* ---- the checks -------------------------------------------------------- */

/* The word the guest must find at each page once the slot is at @off. */
static void put_words(struct ms_ctx *x, u64 off)
{
	for (u64 s = 0; s < x->size; s += MMUB_SZ_4K)
		*(volatile u64 *)(x->hva + s) = mmub_supplied_word(off + s);
}

/* "after operation N", or the setup's check before the first. */
static const char *when(const struct ms_ctx *x)
{
	static char buf[40];

	if (!x->nops)
		return "before the first operation";
	snprintf(buf, sizeof(buf), "after operation %u", x->nops);
	return buf;
}

/*
 * --debug-lose-write: at the first check after operation N, one page of the
 * slot holds again what it held before the guest's pass, as if its write
 * had landed in other memory.
 */
static void lose_write(const struct vm *vm, struct ms_ctx *x, u64 off)
{
	u64 s = x->size / 2;

	x->lost_write = true;
	*(volatile u64 *)(x->hva + s) = mmub_supplied_word(off + s);
	err_msg("--debug-lose-write: after operation %u, 4K page %llu of the "
		"churned slot's memory (gpa 0x%llx) given back its word from "
		"before the guest's pass, on purpose", x->nops,
		(unsigned long long)(s >> 12),
		(unsigned long long)(vm->layout.test_gpa + off + s));
}

/* The slot's pages after the guest's pass: each with that pass's stamp. */
static int check_host_side(const struct vm *vm, struct ms_ctx *x, u64 off,
			   u32 gen)
{
	u64 slice = mmub_slice_size(vm->test.size, vm->p.nr_vcpus,
				    MMUB_SZ_4K), w;

	for (u64 s = 0; s < x->size; s += MMUB_SZ_4K) {
		w = *(volatile u64 *)(x->hva + s);
		if ((w & 0xff) == (off + s) / slice + 1 &&
		    (w >> 40) == (gen & 0xffffff))
			continue;
		err_msg("memslot: %s, 4K page %llu of the "
			"churned slot's memory holds 0x%016llx, not the stamp "
			"the guest wrote at gpa 0x%llx: its writes did not "
			"reach the slot", when(x), (unsigned long long)(s >> 12),
			(unsigned long long)w,
			(unsigned long long)(vm->layout.test_gpa + off + s));
		return -1;
	}
	return 0;
}

/* The guest's pass over the slot at @off; the words put there before. */
static int check_slot(struct vm *vm, struct ms_ctx *x, u64 off)
{
	struct mmub_workload *wl = &vm->bi->wl, keep = *wl;
	u64 acc = 0, bad = 0, val = 0, violations = 0;
	u32 gen = x->gen++;

	wl->ranges[0] = (struct mmub_range){ off, x->size };
	wl->flags |= MMUB_WL_SUPPLIED;
	vm_post(vm, MMUB_CMD_PASS, gen);
	if (vm_wait(vm))
		return -1;
	*wl = keep;
	for (u32 i = 0; i < vm->p.nr_vcpus; i++) {
		const struct mmub_pass *r = &vm->vcpus[i].mb->last;

		if (r->violations && !violations) {
			bad = r->bad_addr - vm->layout.test_gpa - off;
			val = r->bad_value;
		}
		violations += r->violations;
		acc += r->accesses;
	}
	if (violations) {
		err_msg("memslot: %s, the guest found %llu of "
			"the churned slot's %llu pages without their data at "
			"gpa 0x%llx; the first, 4K page %llu of the slot, "
			"held 0x%016llx, not 0x%016llx: a page lost in the "
			"slot's operations", when(x),
			(unsigned long long)violations,
			(unsigned long long)(x->size >> 12),
			(unsigned long long)(vm->layout.test_gpa + off),
			(unsigned long long)(bad >> 12),
			(unsigned long long)val,
			(unsigned long long)mmub_supplied_word(off + bad));
		return -1;
	}
	if (acc != x->size / MMUB_SZ_4K) {
		err_msg("memslot: %s, the guest read %llu pages of the "
			"churned slot, not its %llu", when(x),
			(unsigned long long)acc,
			(unsigned long long)(x->size >> 12));
		return -1;
	}
	x->checks++;
	x->pages_checked += acc;
	if (o.lose_write && x->nops >= o.lose_write && !x->lost_write)
		lose_write(vm, x, off);
	return check_host_side(vm, x, off, gen);
}

/* ---- a round ------------------------------------------------------------ */

/* Moves: active (mapped by the check before) and inactive (nothing mapped). */
static int moves(struct vm *vm, struct ms_ctx *x)
{
	put_words(x, x->hole);
	if (churn_op(vm, x, "move_active", x->hole, true) ||
	    check_slot(vm, x, x->hole))
		return -1;
	put_words(x, x->off);
	return churn_op(vm, x, "move_active", x->off, true) ||
	       churn_op(vm, x, "move_inactive", x->hole, true) ||
	       churn_op(vm, x, "move_inactive", x->off, true) ||
	       check_slot(vm, x, x->off);
}

/* The slot deleted and added back, then as chunks unmapped one by one. */
static int deletes(struct vm *vm, struct ms_ctx *x)
{
	u64 chunk = x->size / o.chunks;
	u32 base = VM_TEST_SLOT0 + vm->p.nr_slots;

	put_words(x, x->off);
	if (churn_op(vm, x, "delete", x->off, false) ||
	    churn_op(vm, x, "add", x->off, true) || check_slot(vm, x, x->off))
		return -1;
	put_words(x, x->off);
	if (churn_op(vm, x, "delete", x->off, false))
		return -1;
	for (u32 j = 0; j < o.chunks; j++)
		if (slot_op(vm, x, "add_chunk", base + j, x->off + j * chunk,
			    chunk, x->hva + j * chunk))
			return -1;
	if (check_slot(vm, x, x->off))
		return -1;
	put_words(x, x->off);
	for (u32 j = 0; j < o.chunks; j++)
		if (slot_op(vm, x, "delete_chunk", base + j,
			    x->off + j * chunk, 0, x->hva + j * chunk))
			return -1;
	/* Added back and mapped again: the next round's move is active. */
	return churn_op(vm, x, "add", x->off, true) ||
	       check_slot(vm, x, x->off);
}

/*
 * Before the vCPUs first write: the move target's slot deleted
 * (untimed), the churned slot checked once, which maps it.
 */
static int setup(struct vm *vm, struct ms_ctx *x)
{
	const struct vm_slot *c = &vm->slots[vm->p.nr_slots - 2];
	const struct vm_slot *h = &vm->slots[vm->p.nr_slots - 1];

	x->id = c->id;
	x->off = c->gpa - vm->layout.test_gpa;
	x->hole = h->gpa - vm->layout.test_gpa;
	x->size = c->size;
	x->hva = c->hva;
	if (vm_set_region(vm, h->id, h->gpa, 0, h->hva, 0)) {
		err_msg("memslot: deleting slot %u, the move target, failed: "
			"%s", h->id, strerror(errno));
		return -1;
	}
	put_words(x, x->off);
	return check_slot(vm, x, x->off);
}

/* ---- the report -------------------------------------------------------- */

/*
 * Mappings the operation removed: their drop, plus those rebuilt
 * meanwhile.  That holds only if the vCPUs' memory was all mapped when
 * the window opened; a negative count says it was not (a shadow MMU
 * maps less than the guest touched), and nothing is known.  A fault that
 * gained no mapping counts too: an add, which zaps nothing, showed 0 or
 * 1 on nested x86 6.1 (pf_fixed 5, pages_4k +4), so a few are noise.
 */
static s64 zapped(const struct op *op)
{
	s64 n = op->pf_fixed;

	if (n == NA)
		return NA;
	for (u32 s = 0; s < VM_PAGE_SIZES; s++) {
		if (op->pages[s] == NA)
			return NA;
		n -= op->pages[s];
	}
	return n < 0 ? NA : n;
}

static json_t *jopt(s64 v)
{
	return v == NA ? json_null() : json_integer(v);
}

static json_t *op_json(u32 n, const struct op *op)
{
	json_t *j = json_pack("{s:i, s:s, s:i, s:I, s:I, s:o}", "n", (int)n,
			      "op", op->kind, "slot", (int)op->slot, "gpa",
			      (json_int_t)op->gpa, "bytes",
			      (json_int_t)op->size, "ms", jnum(op->ms));

	jset(j, "zapped", jopt(zapped(op)));
	jset(j, "pages_4k", jopt(op->pages[0]));
	jset(j, "pages_2m", jopt(op->pages[1]));
	jset(j, "pf_fixed", jopt(op->pf_fixed));
	jset(j, "remote_tlb_flush", jopt(op->flush));
	jset(j, "remote_tlb_flush_requests", jopt(op->flush_reqs));
	jset(j, "accesses", json_integer((json_int_t)op->accesses));
	jset(j, "latency_ns", json_pack("{s:o, s:o, s:o}", "p50",
		jnum(op->p50_ns), "p99", jnum(op->p99_ns), "max",
		jnum(op->max_ns)));
	return j;
}

static const char *const kinds[] = {
	"move_active", "move_inactive", "delete", "add", "add_chunk",
	"delete_chunk",
};

/* Per kind: count, mean and max time, mean zap and flushes, worst p99. */
static json_t *kind_json(const struct ms_ctx *x, const char *kind)
{
	double sum = 0, max = 0, p99 = 0;
	s64 zaps = 0, flushes = 0;
	bool have_zaps = true, have_flush = true;
	u32 n = 0;

	for (u32 i = 0; i < x->nops; i++) {
		const struct op *op = &x->ops[i];

		if (strcmp(op->kind, kind))
			continue;
		n++;
		sum += op->ms;
		max = mmub_max(max, op->ms);
		p99 = mmub_max(p99, op->p99_ns);
		have_zaps &= zapped(op) != NA;
		zaps += have_zaps ? zapped(op) : 0;
		have_flush &= op->flush != NA;
		flushes += have_flush ? op->flush : 0;
	}
	return json_pack("{s:i, s:o, s:o, s:o, s:o, s:o}", "count", (int)n,
			 "ms_mean", jnum(n ? sum / n : 0), "ms_max", jnum(max),
			 "zapped_mean", have_zaps && n ?
			 jnum((double)zaps / n) : json_null(),
			 "remote_tlb_flush_mean", have_flush && n ?
			 jnum((double)flushes / n) : json_null(),
			 "latency_p99_ns_max", jnum(p99));
}

/* @v right-aligned in @width after a space, or n/a where the kernel lacks it. */
static void print_na(int width, s64 v)
{
	if (v == NA)
		printf(" %*s", width, "n/a");
	else
		printf(" %*lld", width, (long long)v);
}

static void print_ops(const struct ms_ctx *x)
{
	printf("  slot operations while the vCPUs write (%u rounds; around "
	       "each: one pass before, two after):\n", o.rounds);
	printf("     #  op              slot  gpa               ms   zapped  "
	       "pages_4k  pages_2m  pf_fixed  tlb_flush    p50_ns    p99_ns"
	       "     max_ns\n");
	for (u32 i = 0; i < x->nops; i++) {
		const struct op *op = &x->ops[i];

		printf("  %4u  %-14s %5u  0x%-10llx %9.3f", i + 1, op->kind,
		       op->slot, (unsigned long long)op->gpa, op->ms);
		print_na(8, zapped(op));
		print_na(9, op->pages[0]);
		print_na(9, op->pages[1]);
		print_na(9, op->pf_fixed);
		print_na(10, op->flush);
		printf(" %9.0f %9.0f %10.0f\n", op->p50_ns, op->p99_ns,
		       op->max_ns);
	}
}

static const char checks_text[] =
	"before each sequence of operations the host writes, in every 4K page "
	"of the churned slot's memory, the word the guest expects at the GPA "
	"the sequence leaves the slot at; after it the guest reads each page "
	"there (a violation names the page) and the host finds each page "
	"holding the stamp the guest wrote";

static void report(struct vm *vm, struct run *r, const struct ms_ctx *x)
{
	json_t *j = json_object(), *all = json_array(), *by = json_object();

	for (u32 i = 0; i < x->nops; i++)
		json_array_append_new(all, op_json(i + 1, &x->ops[i]));
	for (u32 k = 0; k < MMUB_ARRAY_SIZE(kinds); k++)
		jset(by, kinds[k], kind_json(x, kinds[k]));
	report_passes(vm, r->ph, r->nph);
	print_ops(x);
	printf("  checks: %u guest passes over the churned slot, %llu pages "
	       "read with their data, every page's stamp found by the host\n",
	       x->checks, (unsigned long long)x->pages_checked);
	jset(j, "checks", json_string(checks_text));
	jset(j, "slot_bytes", json_integer((json_int_t)x->size));
	jset(j, "chunks", json_integer(o.chunks));
	jset(j, "operations", json_integer(x->nops));
	jset(j, "content_checks", json_integer(x->checks));
	jset(j, "pages_checked", json_integer((json_int_t)x->pages_checked));
	jset(j, "by_op", by);
	jset(j, "each", all);
	jset(r->json, "memslot", j);
}

static int once(struct vm *vm, struct run *r, u32 index, void *arg)
{
	struct ms_ctx x = { .ops = calloc(o.rounds * ops_per_round(),
					  sizeof(*x.ops)), .gen = 2 };
	struct phase *p;
	int ret;

	(void)index;
	(void)arg;
	if (!x.ops)
		die("out of memory");
	/* The setup first: its delete zaps every mapping on x86. */
	ret = setup(vm, &x) || run_pass(vm, r, "populate", 0) ||
	      run_pass(vm, r, "steady", 1);
	if (!ret) {
		p = run_phase_begin(vm, r, "churn");
		for (u32 k = 0; !ret && k < o.rounds; k++)
			ret = moves(vm, &x) || deletes(vm, &x);
		run_phase_end(vm, p);
	}
	if (!ret)
		report(vm, r, &x);
	free(x.ops);
	/* Broken on purpose: caught or not, the run failed. */
	return ret || o.lose ? -1 : 0;
}

static int run(struct common *c)
{
	struct run_hooks h = { .once = once, .arg = c };

	report_header(&c->vm, "memslot");
	printf("checks: %s\n", checks_text);
	return run_all(c, "memslot", json_pack("{s:i, s:i}", "rounds",
		(int)o.rounds, "chunks", (int)o.chunks), &h);
}

/*
 * An operation's cost: its ioctl, what it zapped, the vCPUs' latency.
 * Thresholds are a first guess, to check against the A/A noise floor.
 */
static const struct metric_def metrics[] = {
	{ "move_active_ms", "results.runs[].memslot.by_op.move_active.ms_mean",
	  "ms", BETTER_LOWER, 50 },
	{ "move_inactive_ms",
	  "results.runs[].memslot.by_op.move_inactive.ms_mean", "ms",
	  BETTER_LOWER, 50 },
	{ "delete_ms", "results.runs[].memslot.by_op.delete.ms_mean", "ms",
	  BETTER_LOWER, 50 },
	{ "add_ms", "results.runs[].memslot.by_op.add.ms_mean", "ms",
	  BETTER_LOWER, 50 },
	{ "move_active_zapped",
	  "results.runs[].memslot.by_op.move_active.zapped_mean", "mappings",
	  BETTER_LOWER },
	{ "move_active_latency_p99_ns",
	  "results.runs[].memslot.by_op.move_active.latency_p99_ns_max", "ns",
	  BETTER_LOWER, 50 },
	{ NULL }
};

const struct scenario scenario_memslot = {
	.name = "memslot",
	.brief = "memslots moved, deleted, added while the vCPUs write",
	.help = "memslots moved (active and inactive), deleted and added "
		"back, unmapped whole and in chunks while the vCPUs write: "
		"each operation's time, zaps and the vCPUs' latency; the "
		"moved slot's content checked page by page",
	.opts = opts,
	.parse = parse,
	.validate = validate,
	.run = run,
	.metrics = metrics,
};
