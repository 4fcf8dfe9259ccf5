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
#include "../report.h"
#include "../../guest/guest.h"
#include "scenarios.h"

/* The same engine_pass() the guest runs, over host memory. */
static double host_loop_rate(const struct run_config *cfg)
{
	u64 size = cfg->vcpu_bytes;
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
	bi->wl = cfg->wl;
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

static s64 stat_delta(const struct vm *vm, const struct phase *p,
		      const char *name)
{
	s64 d;

	return phase_stat_delta(vm, p, true, name, &d) ? d : -1;
}

int scenario_bench(const struct run_config *cfg)
{
	struct phase ph[2];
	double guest, host, ns;
	struct vm vm;
	s64 exits, io_exits, mmio_exits;
	u64 acc = 0, longest = 0;

	vm_create(&vm, cfg);
	if (vm_start(&vm))
		return 1;
	for (u32 g = 0; g < 2; g++) {
		phase_begin(&vm, &ph[g], g ? "second" : "populate");
		vm_post(&vm, MMUB_CMD_PASS, g);
		if (vm_wait(&vm))
			return 1;
		phase_end(&vm, &ph[g], true);
	}
	for (u32 i = 0; i < cfg->nr_vcpus; i++) {
		acc += ph[1].pass[i].accesses;
		longest = mmub_max(longest, ph[1].pass[i].clk_end -
					    ph[1].pass[i].clk_start);
	}
	ns = cycles_to_ns(&vm, longest) / cfg->nr_vcpus;
	guest = ns > 0 ? acc / ns * 1e9 / cfg->nr_vcpus : 0;
	exits = stat_delta(&vm, &ph[1], "exits");
	io_exits = stat_delta(&vm, &ph[1], "io_exits");
	mmio_exits = stat_delta(&vm, &ph[1], "mmio_exits");
	host = host_loop_rate(cfg);

	report_header(&vm, "bench");
	printf("  %-22s %14.2f   KVM_CREATE_VM to every vCPU in the engine\n",
	       "boot_ms", vm.boot_ms);
	printf("  %-22s %14.0f   second pass, per vCPU\n", "guest_pages_per_s",
	       guest);
	printf("  %-22s %14.0f   the same loop in this process\n",
	       "host_pages_per_s", host);
	printf("  %-22s %14.3f   target >= 0.9\n", "guest_host_ratio",
	       host > 0 ? guest / host : 0);
	/* Interrupts exit too; the guest itself may only exit by I/O. */
	printf("  %-22s %14lld   target 0 (io_exits + mmio_exits, all vCPUs)\n",
	       "guest_exits_per_pass", (long long)(io_exits + mmio_exits));
	printf("  %-22s %14lld   every exit, host interrupts included\n",
	       "exits_per_pass", (long long)exits);
	for (u32 g = 0; g < 2; g++)
		phase_free(&ph[g]);
	vm_destroy(&vm);
	return 0;
}
