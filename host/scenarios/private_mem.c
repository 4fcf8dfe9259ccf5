// SPDX-License-Identifier: GPL-2.0
/*
 * Scenario "private-mem": the test memory is private, in a guest_memfd of
 * a KVM_X86_SW_PROTECTED_VM (-s guest_memfd, kvm/gmem.h), and the host
 * converts ranges of it to shared and back with KVM_SET_MEMORY_ATTRIBUTES
 * while the vCPUs write, as a confidential VM's VMM does when its guest
 * shares a buffer.  The kernel's private_mem_conversions_test converts
 * from the guest; here the host does, on its own schedule, so that each
 * conversion is one ioctl on a VM whose whole memory is mapped.
 *
 *   populate    one pass: every private page faulted in through KVM
 *   private     one pass over the memory now mapped: the baseline
 *   convert     the vCPUs loop over their slices while the host, for each
 *               of --conversions ranges of --convert-size (rolling over
 *               the test memory), converts it to shared, waits for every
 *               vCPU to pass over it, converts it back to private, waits
 *               again.  Per conversion: the ioctl's time, the mappings it
 *               removed (KVM's pages_4k/2m before it and once the vCPUs
 *               passed over the range, plus their faults in between:
 *               pf_fixed), their drop across the ioctl alone, the TLB
 *               flushes it asked for (remote_tlb_flush_requests), the
 *               mappings the vCPUs rebuilt after it; the phase's access
 *               latency is the vCPUs' across the conversions.
 *
 * What the checks verify.  Linux 6.12 cannot mmap a guest_memfd: the host
 * never reads private memory, so no check reads it from the host.
 * Instead:
 *
 *   - private data: the guest checks every word it replaces (exchange):
 *     its own stamp, or zero only in the populate pass.  KVM does not
 *     touch a guest_memfd's pages on a conversion (kvm_vm_set_mem_-
 *     attributes() zaps mappings only; pages go with FALLOC_FL_PUNCH_HOLE
 *     or the file), so private data survives a round trip to shared and
 *     back, and a zero there is data lost;
 *   - to shared: before the conversion the host writes mmub_shared_word()
 *     at each stride of the range on the shared side.  The guest must
 *     read it, once per stride (not its private stamp: a private mapping
 *     left in place), which it counts, and its writes must land there:
 *     the host reads each stride back before converting the range back;
 *   - to private: the host writes mmub_stale_word() on the shared side
 *     once the range is private; the guest reading it is a shared mapping
 *     left in place, a violation named with its page.
 *
 * A vCPU whose fault raced a conversion exits with KVM_EXIT_MEMORY_FAULT
 * (vcpu.c re-enters it): their count is reported.  --debug-skip and
 * --debug-discard break one conversion on purpose, to show that the
 * checks catch it.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <mmubench/engine.h>
#include <mmubench/workload.h>
#include "util/util.h"
#include "util/parse.h"
#include "kvm/gmem.h"
#include "results/json.h"
#include "framework/scenario.h"
#include "scenarios/scenarios.h"

#define MAX_ROUNDS	1000

enum {
	O_CONVERSIONS = 512, O_SIZE, O_SKIP, O_DISCARD, O_FAULT_EXIT,
};

static const struct opt opts[] = {
	{ "conversions", O_CONVERSIONS, required_argument, "N",
	  "ranges converted private->shared->private, 1..1000 (4)" },
	{ "convert-size", O_SIZE, required_argument, "SIZE",
	  "bytes of each range, a multiple of the stride dividing the test "
	  "memory (1m)" },
	{ "debug-skip", O_SKIP, required_argument, "N",
	  "debug: leave out the ioctl of conversion N (odd: to shared, even: "
	  "back to private); the checks must fail" },
	{ "debug-discard", O_DISCARD, required_argument, "N",
	  "debug: punch the private side of range N out of the guest_memfd "
	  "when it goes shared; the guest must find its data lost" },
	{ "debug-fault-exit", O_FAULT_EXIT, no_argument, NULL,
	  "debug: make the page of vCPU 0's mailbox, in a slot without a "
	  "guest_memfd, private while the vCPUs loop: it must exit with "
	  "KVM_EXIT_MEMORY_FAULT and go on once the page is shared again" },
	{ NULL },
};

static struct {
	u32 rounds;
	u64 size;
	s64 skip;		/* conversion number (from 1), -1: none */
	s64 discard;		/* round number (from 1), -1: none */
	bool fault_exit;	/* --debug-fault-exit */
} o = { .rounds = 4, .size = MMUB_MIB, .skip = -1, .discard = -1 };

static void parse(int key, const char *arg)
{
	switch (key) {
	case O_CONVERSIONS:
		o.rounds = (u32)parse_u64("--conversions", arg, 1, MAX_ROUNDS);
		break;
	case O_SIZE:
		o.size = parse_size("--convert-size", arg, MMUB_SZ_4K);
		break;
	case O_SKIP:
		o.skip = (s64)parse_u64("--debug-skip", arg, 1,
					2 * MAX_ROUNDS);
		break;
	case O_DISCARD:
		o.discard = (s64)parse_u64("--debug-discard", arg, 1,
					   MAX_ROUNDS);
		break;
	case O_FAULT_EXIT:
		o.fault_exit = true;
		break;
	}
}

static void validate(struct common *c)
{
	struct vm_params *p = &c->vm;
	u64 total = p->vcpu_bytes * p->nr_vcpus;
	char a[32], b[32], t[32];

	if (!(c->given & GIVEN_BACKING))
		p->backing = BACKING_GUEST_MEMFD;
	if (p->backing != BACKING_GUEST_MEMFD)
		die("-s %s: private-mem converts private memory (accepted: "
		    "guest_memfd)", backing_names[p->backing]);
	if (p->wl.action != MMUB_ACT_TOUCH)
		die("--debug-action: not with private-mem");
	/* The checks read the word each write replaces, at every stride. */
	if (p->wl.write_pct != 100)
		die("-w %u: private-mem writes every stride it visits, its "
		    "checks read what each write replaces (accepted: 100)",
		    p->wl.write_pct);
	if (p->wl.fraction_ppm != MMUB_FRACTION_ONE || p->wl.nr_ranges)
		die("--fraction/--ranges: private-mem visits all the test "
		    "memory, every converted stride must be checked");
	if (o.size % p->wl.stride || o.size > total || total % o.size)
		die("--convert-size %s: must be a multiple of the stride (%s) "
		    "dividing the %s of test memory",
		    fmt_size(o.size, a, sizeof(a)),
		    fmt_size(p->wl.stride, b, sizeof(b)),
		    fmt_size(total, t, sizeof(t)));
	if (o.skip > 2 * (s64)o.rounds)
		die("--debug-skip %lld: there are %u conversions "
		    "(--conversions %u, each range twice)", (long long)o.skip,
		    2 * o.rounds, o.rounds);
	if (o.discard > (s64)o.rounds)
		die("--debug-discard %lld: there are %u ranges "
		    "(--conversions)", (long long)o.discard, o.rounds);
	p->wl.flags |= MMUB_WL_CHECK | MMUB_WL_KEEP | MMUB_WL_CONVERT;
}

/* ---- one conversion ------------------------------------------------- */

/* Stats at one instant around a conversion. */
struct pm_stats {
	s64 pages[VM_PAGE_SIZES];	/* KVM's mappings by size */
	s64 flush_reqs;		/* remote_tlb_flush_requests, -1: none */
	u64 pf_fixed;		/* faults that built a mapping, all vCPUs */
};

struct conv {
	bool to_shared;
	bool skipped;		/* --debug-skip */
	u64 off;		/* in the test memory */
	double ms;		/* KVM_SET_MEMORY_ATTRIBUTES */
	double settle_ms;	/* until every vCPU passed over it */
	/* before the ioctl, right after it, and once every vCPU passed */
	struct pm_stats before, after, settled;
};

struct pm_ctx {
	struct conv *convs;	/* 2 per round */
	u32 nconv;
	u64 expected_reads;	/* strides the guest must find shared */
};

/* A VM stat of @s, or -1 where the kernel lacks it. */
static s64 vm_stat(const struct vm *vm, const struct snap *s, const char *name)
{
	u64 v;

	return snap_stat(vm, s, false, name, &v) ? (s64)v : -1;
}

static void read_stats(struct vm *vm, struct pm_stats *st)
{
	struct snap s;
	u64 v;

	/* A stat left at 0 would read as no zap and no refault. */
	if (snap_take(vm, &s))
		die("private-mem: reading KVM's stats failed");
	for (u32 i = 0; i < VM_PAGE_SIZES; i++)
		st->pages[i] = vm_stat(vm, &s, vm_page_size_stats[i]);
	st->flush_reqs = vm_stat(vm, &s, "remote_tlb_flush_requests");
	st->pf_fixed = snap_stat(vm, &s, true, "pf_fixed", &v) ? v : 0;
	snap_free(&s);
}

/* The host's word at each stride of [@off, @off + @size) on the shared side. */
static void put_words(struct vm *vm, u64 off, bool shared)
{
	u64 stride = vm->p.wl.stride;

	for (u64 s = off; s < off + o.size; s += stride)
		__atomic_store_n((u64 *)(vm->test.hva + s), shared ?
				 mmub_shared_word(s) : mmub_stale_word(s),
				 __ATOMIC_RELAXED);
}

/*
 * After a shared window: every stride of the range holds a stamp of the
 * vCPU that owns it, written on the shared side.  The host's word still
 * there means the guest wrote elsewhere: to its private page.
 */
static int check_shared_side(struct vm *vm, u32 n, u64 off)
{
	u64 slice = mmub_slice_size(vm->test.size, vm->p.nr_vcpus,
				    vm->p.wl.stride);
	u64 w;

	for (u64 s = off; s < off + o.size; s += vm->p.wl.stride) {
		w = __atomic_load_n((u64 *)(vm->test.hva + s), __ATOMIC_RELAXED);
		if (w && (w & 0xff) == s / slice + 1)
			continue;
		err_msg("private-mem: conversion %u (to shared, test offset "
			"0x%llx+0x%llx): 4K page %llu still holds 0x%016llx%s "
			"after every vCPU passed over it: the guest's writes "
			"did not reach the shared side", n,
			(unsigned long long)off, (unsigned long long)o.size,
			(unsigned long long)(s / MMUB_SZ_4K),
			(unsigned long long)w, w == mmub_shared_word(s) ?
			" (the host's shared word)" : "");
		return -1;
	}
	return 0;
}

/* Conversion @n (from 1) of the range at @off; settled, not checked. */
static int convert(struct vm *vm, struct conv *cv, u32 n, u64 off,
		   bool to_shared)
{
	double t;

	cv->to_shared = to_shared;
	cv->off = off;
	cv->skipped = o.skip == n;
	if (to_shared)
		put_words(vm, off, true);
	read_stats(vm, &cv->before);
	t = now_ms();
	if (!cv->skipped && gmem_set_private(vm->fd, vm->layout.test_gpa + off,
					     o.size, !to_shared)) {
		err_msg("private-mem: conversion %u: KVM_SET_MEMORY_ATTRIBUTES "
			"(%s, gpa 0x%llx+0x%llx) failed: %s", n,
			to_shared ? "shared" : "private",
			(unsigned long long)(vm->layout.test_gpa + off),
			(unsigned long long)o.size, strerror(errno));
		return -1;
	}
	cv->ms = now_ms() - t;
	read_stats(vm, &cv->after);
	if (to_shared && o.discard == (n + 1) / 2 &&
	    gmem_discard(vm->test.gmem_fd, off, o.size))
		die("--debug-discard: punching the guest_memfd "
		    "failed: %s", strerror(errno));
	if (!to_shared)
		put_words(vm, off, false);
	t = now_ms();
	if (vm_wait_passes(vm, 2, to_shared ? "passing over memory gone "
			   "shared" : "passing over memory gone private"))
		return -1;
	cv->settle_ms = now_ms() - t;
	read_stats(vm, &cv->settled);
	return 0;
}

/* The rounds, while the vCPUs loop: private->shared->private each. */
static int rounds(struct vm *vm, struct pm_ctx *x)
{
	u64 total = vm->test.size, off;

	for (u32 k = 0; k < o.rounds; k++) {
		struct conv *cv = &x->convs[2 * k];

		off = (u64)k * o.size % total;
		if (convert(vm, cv, 2 * k + 1, off, true) ||
		    check_shared_side(vm, 2 * k + 1, off))
			return -1;
		if (!cv->skipped)
			x->expected_reads += o.size / vm->p.wl.stride;
		x->nconv++;
		if (convert(vm, cv + 1, 2 * k + 2, off, false))
			return -1;
		x->nconv++;
	}
	return 0;
}

/* ---- the guest's side ------------------------------------------------ */

static const char *what_was(u64 off, u64 w)
{
	if (!w)
		return "zero: private data lost across the conversions";
	if (w == mmub_stale_word(off))
		return "the host's word for a page gone private: a shared "
		       "mapping left in place";
	return "neither this vCPU's stamp nor a host word";
}

/* The guest's checks over the convert phase; -1 after naming a failure. */
static int check_guest(const struct vm *vm, const struct phase *p,
		       const struct pm_ctx *x, u64 *reads)
{
	u64 violations = 0, bad = 0, val = 0;

	*reads = 0;
	for (u32 i = 0; i < p->nr_vcpus; i++) {
		const struct mmub_pass *r = &p->pass[i];

		if (r->violations && !violations) {
			bad = r->bad_addr - vm->layout.test_gpa;
			val = r->bad_value;
		}
		violations += r->violations;
		*reads += r->shared_reads;
	}
	if (violations) {
		err_msg("private-mem: the guest found %llu words it did not "
			"write; the first, 4K page %llu (test offset 0x%llx), "
			"held 0x%016llx: %s", (unsigned long long)violations,
			(unsigned long long)(bad / MMUB_SZ_4K),
			(unsigned long long)bad, (unsigned long long)val,
			what_was(mmub_align_down(bad, MMUB_SZ_4K), val));
		return -1;
	}
	if (*reads != x->expected_reads) {
		err_msg("private-mem: the guest read the host's shared word at "
			"%llu strides, expected %llu (each stride of each range "
			"once, after it went shared)", (unsigned long long)*reads,
			(unsigned long long)x->expected_reads);
		return -1;
	}
	return 0;
}

/* ---- the report ------------------------------------------------------ */

static s64 pages4k(const struct pm_stats *st)
{
	const s64 *p = st->pages;

	return p[0] + (p[1] > 0 ? p[1] * 512 : 0) +
	       (p[2] > 0 ? p[2] * 512 * 512 : 0);
}

/*
 * The mappings a conversion removed, in 4K pages: those there before it,
 * less those there once every vCPU passed over the range, plus those the
 * vCPUs built in between (pf_fixed).  Nothing faults at either instant:
 * every other page is mapped when a conversion starts, and every page
 * once the vCPUs passed.  Right after the ioctl the count would race the
 * vCPUs' refaults (pages_drop, its drop across the ioctl, is only a
 * lower bound, and pf_fixed read beside it a different instant).
 */
static s64 zapped(const struct conv *cv)
{
	return pages4k(&cv->before) - pages4k(&cv->settled) +
	       (s64)(cv->settled.pf_fixed - cv->before.pf_fixed);
}

/* The mappings rebuilt, in 4K pages: the faults from the ioctl on. */
static s64 rebuilt(const struct conv *cv)
{
	return (s64)(cv->settled.pf_fixed - cv->before.pf_fixed);
}

static s64 flush_reqs(const struct conv *cv)
{
	return cv->before.flush_reqs < 0 ? -1 :
	       cv->after.flush_reqs - cv->before.flush_reqs;
}

static json_t *conv_json(const struct conv *cv)
{
	json_t *j = json_pack("{s:s, s:I, s:o, s:o, s:b}", "to",
			      cv->to_shared ? "shared" : "private", "offset",
			      (json_int_t)cv->off, "ms", jnum(cv->ms),
			      "settle_ms", jnum(cv->settle_ms), "skipped",
			      cv->skipped);

	jset(j, "zapped_pages", json_integer(zapped(cv)));
	jset(j, "rebuilt_pages", json_integer(rebuilt(cv)));
	jset(j, "pages_drop", json_integer(pages4k(&cv->before) -
					   pages4k(&cv->after)));
	jset(j, "tlb_flush_requests", flush_reqs(cv) < 0 ? json_null() :
	     json_integer(flush_reqs(cv)));
	return j;
}

/* Mean and max of one direction's conversions, and their zaps. */
static json_t *dir_json(const struct pm_ctx *x, bool to_shared)
{
	double sum = 0, max = 0;
	s64 zaps = 0, flushes = 0;
	u32 n = 0;

	for (u32 i = 0; i < x->nconv; i++) {
		const struct conv *cv = &x->convs[i];

		if (cv->to_shared != to_shared || cv->skipped)
			continue;
		n++;
		sum += cv->ms;
		max = mmub_max(max, cv->ms);
		zaps += zapped(cv);
		flushes += mmub_max(flush_reqs(cv), 0);
	}
	return json_pack("{s:i, s:o, s:o, s:o, s:o}", "conversions", (int)n,
			 "ms_mean", jnum(n ? sum / n : 0), "ms_max", jnum(max),
			 "zapped_per_conversion", jnum(n ? (double)zaps / n : 0),
			 "tlb_flush_requests_per_conversion",
			 jnum(n ? (double)flushes / n : 0));
}

static void print_convs(const struct pm_ctx *x)
{
	printf("  conversions: %u ranges of %llu KiB (%llu 4K pages), each "
	       "private->shared->private while the vCPUs write\n",
	       x->nconv / 2, (unsigned long long)(o.size >> 10),
	       (unsigned long long)(o.size / MMUB_SZ_4K));
	printf("     #  to       offset           ms     zapped  pages_drop  "
	       "flush_reqs    rebuilt  settle_ms\n");
	for (u32 i = 0; i < x->nconv; i++) {
		const struct conv *cv = &x->convs[i];

		printf("  %4u  %-7s  0x%-9llx %9.3f %10lld %11lld %11lld "
		       "%10lld %10.1f%s\n", i + 1,
		       cv->to_shared ? "shared" : "private",
		       (unsigned long long)cv->off, cv->ms,
		       (long long)zapped(cv),
		       (long long)(pages4k(&cv->before) - pages4k(&cv->after)),
		       (long long)flush_reqs(cv), (long long)rebuilt(cv),
		       cv->settle_ms, cv->skipped ? "  (skipped: debug)" : "");
	}
}

static u32 done(const struct pm_ctx *x)
{
	u32 n = 0;

	for (u32 i = 0; i < x->nconv; i++)
		n += !x->convs[i].skipped;
	return n;
}

static u64 memory_faults(const struct vm *vm)
{
	u64 n = 0;

	for (u32 i = 0; i < vm->p.nr_vcpus; i++)
		n += __atomic_load_n(&vm->vcpus[i].memory_faults,
				     __ATOMIC_RELAXED);
	return n;
}

/*
 * --debug-fault-exit: the page of vCPU 0'"'"'s mailbox, in a memslot without a
 * guest_memfd, made private while the vCPUs loop.  The vCPU polling it
 * exits with KVM_EXIT_MEMORY_FAULT (its slot cannot be private), as a
 * fault that raced a conversion does; once it has, the page goes shared
 * again, and the vCPU'"'"'s next entry (vcpu.c) must go on.
 */
static int fault_exit(struct vm *vm)
{
	u64 gpa = mmub_align_down(vm->bi->mailbox_gpa, MMUB_SZ_4K), n;
	double t = now_ms();

	if (gmem_set_private(vm->fd, gpa, MMUB_SZ_4K, true)) {
		err_msg("--debug-fault-exit: KVM_SET_MEMORY_ATTRIBUTES at gpa "
			"0x%llx: %s", (unsigned long long)gpa, strerror(errno));
		return -1;
	}
	while (!(n = memory_faults(vm)) && now_ms() - t < 10000)
		usleep(100);
	if (gmem_set_private(vm->fd, gpa, MMUB_SZ_4K, false))
		die("--debug-fault-exit: KVM_SET_MEMORY_ATTRIBUTES back to "
		    "shared at gpa 0x%llx: %s", (unsigned long long)gpa,
		    strerror(errno));
	if (!n) {
		err_msg("--debug-fault-exit: no vCPU exited with "
			"KVM_EXIT_MEMORY_FAULT in 10 s of the mailbox page "
			"(gpa 0x%llx) made private", (unsigned long long)gpa);
		return -1;
	}
	err_msg("--debug-fault-exit: the mailbox page (gpa 0x%llx) made "
		"private until a vCPU exited with KVM_EXIT_MEMORY_FAULT, then "
		"shared again, on purpose", (unsigned long long)gpa);
	return 0;
}

static const char checks_text[] =
	"the host cannot read private memory (guest_memfd, no mmap in 6.12): "
	"the guest checks its own stamps there (private data kept across "
	"each round trip), reads the host's word once per stride after each "
	"conversion to shared (whose writes the host reads back), and never "
	"the host's word left on the shared side of a range gone private";

static void report(struct vm *vm, struct run *r, const struct pm_ctx *x,
		   u64 reads)
{
	json_t *j = json_object(), *all = json_array();
	u64 faults = memory_faults(vm);

	for (u32 i = 0; i < x->nconv; i++)
		json_array_append_new(all, conv_json(&x->convs[i]));
	report_passes(vm, r->ph, r->nph);
	print_convs(x);
	printf("  checks: %llu shared words read by the guest of %llu "
	       "expected, 0 violations, %llu KVM_EXIT_MEMORY_FAULT "
	       "re-entered\n", (unsigned long long)reads,
	       (unsigned long long)x->expected_reads,
	       (unsigned long long)faults);
	jset(j, "checks", json_string(checks_text));
	jset(j, "convert_bytes", json_integer((json_int_t)o.size));
	jset(j, "conversions", json_integer(done(x)));
	jset(j, "pages_converted", json_integer((json_int_t)(done(x) *
					(o.size / MMUB_SZ_4K))));
	jset(j, "shared_reads", json_integer((json_int_t)reads));
	jset(j, "shared_reads_expected",
	     json_integer((json_int_t)x->expected_reads));
	jset(j, "memory_fault_exits", json_integer((json_int_t)faults));
	jset(j, "to_shared", dir_json(x, true));
	jset(j, "to_private", dir_json(x, false));
	jset(j, "each", all);
	jset(r->json, "private_mem", j);
}

static int once(struct vm *vm, struct run *r, u32 index, void *arg)
{
	struct pm_ctx x = { .convs = calloc(2 * o.rounds, sizeof(*x.convs)) };
	struct phase *p;
	u64 reads = 0;
	int ret;

	(void)index;
	(void)arg;
	if (!x.convs)
		die("out of memory");
	ret = run_pass(vm, r, "populate", 0) || run_pass(vm, r, "private", 1);
	if (!ret) {
		p = run_phase_begin(vm, r, "convert");
		ret = vm_post(vm, MMUB_CMD_LOOP, 2) ||
		      (o.fault_exit && fault_exit(vm)) || rounds(vm, &x) ||
		      vm_stop_loop(vm);
		phase_end(vm, p, !ret);
		ret = ret || check_guest(vm, p, &x, &reads);
	}
	if (!ret)
		report(vm, r, &x, reads);
	free(x.convs);
	/* Broken on purpose: caught or not, the run failed. */
	return ret || o.skip > 0 || o.discard > 0 ? -1 : 0;
}

static int run(struct common *c)
{
	struct run_hooks h = { .once = once, .arg = c };

	report_header(&c->vm, "private-mem");
	printf("checks: %s\n", checks_text);
	return run_all(c, "private-mem", json_pack("{s:i, s:I}", "conversions",
		(int)o.rounds, "convert_bytes", (json_int_t)o.size), &h);
}

/*
 * A conversion's cost: its ioctl and what it zapped.  Thresholds are a
 * first guess, to check against the A/A noise floor.
 */
static const struct metric_def metrics[] = {
	{ "to_shared_ms", "results.runs[].private_mem.to_shared.ms_mean",
	  "ms", BETTER_LOWER, 50 },
	{ "to_private_ms", "results.runs[].private_mem.to_private.ms_mean",
	  "ms", BETTER_LOWER, 50 },
	{ "to_shared_zapped",
	  "results.runs[].private_mem.to_shared.zapped_per_conversion",
	  "pages", BETTER_LOWER },
	{ "to_private_zapped",
	  "results.runs[].private_mem.to_private.zapped_per_conversion",
	  "pages", BETTER_LOWER },
	{ "tlb_flush_requests",
	  "results.runs[].private_mem.to_shared.tlb_flush_requests_per_conversion",
	  "flushes", BETTER_LOWER },
	{ "convert_latency_p99_ns_max",
	  "max:results.runs[].phases[name=convert].vcpus[].latency_ns.p99",
	  "ns", BETTER_LOWER, 50 },
	{ NULL }
};

const struct scenario scenario_private_mem = {
	.name = "private-mem",
	.brief = "guest_memfd converted to shared and back: time, zaps (x86)",
	.help = "guest_memfd private memory converted to shared and back "
		"while the vCPUs write (x86 KVM_X86_SW_PROTECTED_VM): each "
		"conversion's time, zaps and TLB flushes; guest-side checks",
	.opts = opts,
	.parse = parse,
	.validate = validate,
	.run = run,
	.guest_memfd = true,
	.metrics = metrics,
};
