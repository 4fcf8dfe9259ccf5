// SPDX-License-Identifier: GPL-2.0
/*
 * Scenario "bench": figures about mmubench itself, measured in one run.
 * Benchmarks are not tests: this prints, it asserts nothing.
 *  - boot: KVM_CREATE_VM until every vCPU waits in the engine;
 *  - the guest's second-pass touch rate against the very same engine
 *    loop (guest/engine/engine.c, linked into the host) run in this
 *    process over host memory, as a ratio (target >= 0.9);
 *  - exits per pass (target 0: the hot loop never exits).
 */
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <mmubench/engine.h>
#include "util/util.h"
#include "results/json.h"
#include "scenarios/scenarios.h"

/* The same engine_pass() the guest runs, over host memory. */
static double host_loop_rate(const struct vm_params *p)
{
	u64 size = p->vcpu_bytes;
	struct mmub_boot_info *bi = calloc(1, sizeof(*bi));
	struct mmub_mailbox *mb = calloc(1, sizeof(*mb));
	struct mmub_pass rec;
	struct engine e;
	double t0, ns;
	u8 *mem;

	mem = mmap(NULL, size, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
	if (!bi || !mb || mem == MAP_FAILED)
		die("bench: cannot allocate %llu bytes for the host loop",
		    (unsigned long long)size);
	bi->nr_vcpus = 1;
	bi->test_gpa = (u64)mem;
	bi->test_size = size;
	bi->mailbox_gpa = (u64)mb;
	bi->wl = p->wl;
	engine_init(&e, bi, 0);
	mmub_hist_reset(&mb->lat);
	engine_pass(&e, 0, false, &rec);
	mmub_hist_reset(&mb->lat);
	t0 = now_ms();
	engine_pass(&e, 1, false, &rec);
	ns = (now_ms() - t0) * 1e6;
	munmap(mem, size);
	free(bi);
	free(mb);
	return ns > 0 ? rec.accesses / ns * 1e9 : 0;
}

struct bench {
	double guest, host;	/* pages/s per vCPU, second pass */
	s64 exits, io_exits, mmio_exits;
};

/* Boot, step by step; the host's populate apart (target <= 5 ms). */
static void print_boot(const struct vm *vm)
{
	const struct vm_boot *b = &vm->boot;
	const struct vm_boot_step *s = vm_boot_steps;

	printf("  %-22s %14.2f   KVM_CREATE_VM to every vCPU in the engine, "
	       "populate excluded; target <= 5\n", "boot_ms", vm->boot_ms);
	for (u32 i = 0; i < VM_BOOT_STEPS; i++)
		printf("    %-20s %14.2f   %s\n", s[i].key,
		       vm_boot_step_ms(b, &s[i]), s[i].what);
	if (vm->p.populate)
		printf("  %-22s %14.2f   the host's touch of the test memory, "
		       "before boot\n", "populate_ms", b->populate_ms);
}

static int once(struct vm *vm, struct run *r, u32 index, void *arg)
{
	struct bench *b = arg;
	const struct phase *second;
	u64 acc = 0, longest = 0;
	double ns;

	(void)index;
	if (run_pass(vm, r, "populate", 0) || run_pass(vm, r, "second", 1))
		return -1;
	second = &r->ph[1];
	for (u32 i = 0; i < vm->p.nr_vcpus; i++) {
		acc += second->pass[i].accesses;
		longest = mmub_max(longest, second->pass[i].clk_end -
					    second->pass[i].clk_start);
	}
	/* Per vCPU: each one's share of the accesses over the slowest's time. */
	ns = cycles_to_ns(vm, longest);
	b->guest = ns > 0 ? acc / (double)vm->p.nr_vcpus / ns * 1e9 : 0;
	b->exits = phase_stat_or(vm, second, true, "exits", -1);
	b->io_exits = phase_stat_or(vm, second, true, "io_exits", -1);
	b->mmio_exits = phase_stat_or(vm, second, true, "mmio_exits", -1);
	b->host = host_loop_rate(&vm->p);
	print_boot(vm);
	printf("  %-22s %14.0f   second pass, per vCPU\n", "guest_pages_per_s",
	       b->guest);
	printf("  %-22s %14.0f   the same loop in this process\n",
	       "host_pages_per_s", b->host);
	printf("  %-22s %14.3f   target >= 0.9\n", "guest_host_ratio",
	       b->host > 0 ? b->guest / b->host : 0);
	/* Interrupts exit too; the guest itself may only exit by I/O. */
	printf("  %-22s %14lld   target 0 (io_exits + mmio_exits, all vCPUs)\n",
	       "guest_exits_per_pass", (long long)(b->io_exits + b->mmio_exits));
	printf("  %-22s %14lld   every exit, host interrupts included\n",
	       "exits_per_pass", (long long)b->exits);
	jset(r->json, "bench", json_pack("{s:f, s:f, s:I, s:I}",
		"guest_pages_per_s", b->guest, "host_pages_per_s", b->host,
		"guest_exits_per_pass", (json_int_t)(b->io_exits + b->mmio_exits),
		"exits_per_pass", (json_int_t)b->exits));
	return 0;
}

static void validate(struct common *c)
{
	if (c->vm.wl.action == MMUB_ACT_EXEC)
		die("--exec: bench runs its loop in host memory, which is not "
		    "executable");
}

static int run(struct common *c)
{
	struct bench b;
	struct run_hooks h = { .once = once, .arg = &b };

	report_header(&c->vm, "bench");
	return run_all(c, "bench", NULL, &h);
}

const struct scenario scenario_bench = {
	.name = "bench",
	.brief = "figures about mmubench itself: boot, loop ratio, exits",
	.help = "figures about mmubench itself: boot time, guest/host loop "
		"ratio, exits per pass",
	.opts = (const struct opt[]){ { NULL } },
	.validate = validate,
	.run = run,
};

/*
 * What the engine needs from where it runs, for host_loop_rate() (the
 * clock is common/arch/<arch>/clock.c).  That loop runs in host memory,
 * which is not executable, never exits to a VMM, and the CLI allows
 * --exec only where a guest runs it: reaching these is a bug.
 */
bool arch_code_plant(u64 addr)
{
	(void)addr;
	abort();
}

void arch_code_call(u64 addr)
{
	(void)addr;
	abort();
}

void arch_doorbell(u32 event)
{
	(void)event;
	abort();
}
