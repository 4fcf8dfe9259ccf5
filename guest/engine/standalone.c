// SPDX-License-Identifier: GPL-2.0
/*
 * Standalone runs (QEMU -kernel, EFI): no VMM drives the passes, so the
 * guest runs them itself and prints one "MMUB" line per pass and vCPU on
 * the console in key=value form, which mmubench's QEMU backend parses and
 * a person can read.  It ends with "MMUB-EXIT status=N".
 */
#include <stdio.h>
#include "../guest.h"

/* Spinning barrier for the vCPUs of a standalone run (generation-counted). */
static u32 barrier_count, barrier_gen;

static void barrier(u32 n)
{
	u32 gen = __atomic_load_n(&barrier_gen, __ATOMIC_ACQUIRE);

	if (__atomic_add_fetch(&barrier_count, 1, __ATOMIC_ACQ_REL) == n) {
		/* Reset before releasing: nobody re-enters until gen moves. */
		__atomic_store_n(&barrier_count, 0, __ATOMIC_RELAXED);
		__atomic_store_n(&barrier_gen, gen + 1, __ATOMIC_RELEASE);
		return;
	}
	while (__atomic_load_n(&barrier_gen, __ATOMIC_ACQUIRE) == gen)
		arch_relax();
}

/* One vCPU's last pass, from its mailbox (CPU 0 prints them all). */
static void print_pass(const struct mmub_boot_info *bi, u32 cpu)
{
	const struct mmub_mailbox *mb =
		(const struct mmub_mailbox *)bi->mailbox_gpa + cpu;
	const struct mmub_pass *p = &mb->last;
	const struct mmub_hist *h = &mb->lat;
	u64 cycles = p->clk_end - p->clk_start;
	u64 hz = bi->clk_hz;
	double secs = hz ? (double)cycles / (double)hz : 0;

	printf("MMUB pass=%llu cpu=%u accesses=%llu writes=%llu cycles=%llu "
	       "clk_hz=%llu ns=%.0f pages_per_s=%.0f lat_p50=%llu "
	       "lat_p99=%llu lat_p999=%llu lat_max=%llu\n",
	       (unsigned long long)p->generation, cpu,
	       (unsigned long long)p->accesses, (unsigned long long)p->writes,
	       (unsigned long long)cycles, (unsigned long long)hz, secs * 1e9,
	       secs > 0 ? (double)p->accesses / secs : 0,
	       (unsigned long long)mmub_hist_quantile(h, 500000),
	       (unsigned long long)mmub_hist_quantile(h, 990000),
	       (unsigned long long)mmub_hist_quantile(h, 999000),
	       (unsigned long long)h->max);
}

/*
 * Every vCPU runs each pass over its own slice; between passes a barrier
 * lets CPU 0 print every vCPU's line, and a second one keeps the others
 * from resetting their histogram before it has.  CPU 0 ends the run.
 */
void engine_standalone(struct engine *e)
{
	const struct mmub_boot_info *bi = e->bi;
	u32 n = bi->nr_vcpus, pass, cpu;

	if (e->cpu == 0)
		printf("MMUB start vcpus=%u test_gpa=0x%llx test_size=%llu "
		       "guest_page=%llu stride=%llu fraction_ppm=%u "
		       "write_pct=%u random=%u selected=%llu\n", n,
		       (unsigned long long)bi->test_gpa,
		       (unsigned long long)bi->test_size,
		       (unsigned long long)bi->guest_page,
		       (unsigned long long)bi->wl.stride, bi->wl.fraction_ppm,
		       bi->wl.write_pct, !!(bi->wl.flags & MMUB_WL_RANDOM),
		       (unsigned long long)e->nr_selected);
	for (pass = 0; pass < bi->wl.passes; pass++) {
		mmub_hist_reset(&e->mb->lat);
		barrier(n);
		engine_pass(e, pass, false, &e->mb->last);
		barrier(n);
		if (e->cpu == 0)
			for (cpu = 0; cpu < n; cpu++)
				print_pass(bi, cpu);
		barrier(n);
	}
	if (e->cpu != 0)
		for (;;)
			arch_relax();
	printf("MMUB-EXIT status=0\n");
	fflush(stdout);
	arch_standalone_exit(0);
}
