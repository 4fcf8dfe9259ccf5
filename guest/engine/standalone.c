// SPDX-License-Identifier: GPL-2.0
/*
 * Standalone runs (QEMU -kernel, EFI): no VMM drives the passes, so the
 * guest runs them itself and prints one "MMUB" line per pass and vCPU on
 * the console in key=value form, which mmubench's QEMU backend parses and
 * a person can read.  It ends with "MMUB-EXIT status=N".
 */
#include <stdio.h>
#include "../guest.h"

static void print_pass(const struct engine *e, const struct mmub_pass *p)
{
	const struct mmub_hist *h = &e->mb->lat;
	u64 cycles = p->clk_end - p->clk_start;
	u64 hz = e->bi->clk_hz;
	double secs = hz ? (double)cycles / (double)hz : 0;

	printf("MMUB pass=%llu cpu=%u accesses=%llu writes=%llu cycles=%llu "
	       "clk_hz=%llu ns=%.0f pages_per_s=%.0f lat_p50=%llu "
	       "lat_p99=%llu lat_p999=%llu lat_max=%llu\n",
	       (unsigned long long)p->generation, e->cpu,
	       (unsigned long long)p->accesses, (unsigned long long)p->writes,
	       (unsigned long long)cycles, (unsigned long long)hz, secs * 1e9,
	       secs > 0 ? (double)p->accesses / secs : 0,
	       (unsigned long long)mmub_hist_quantile(h, 500000),
	       (unsigned long long)mmub_hist_quantile(h, 990000),
	       (unsigned long long)mmub_hist_quantile(h, 999000),
	       (unsigned long long)h->max);
}

void engine_standalone(struct engine *e)
{
	const struct mmub_boot_info *bi = e->bi;
	struct mmub_pass rec;
	u32 pass;

	/* Secondary vCPUs have nothing to report yet: park them. */
	if (e->cpu != 0)
		for (;;)
			arch_relax();

	printf("MMUB start vcpus=%u test_gpa=0x%llx test_size=%llu "
	       "guest_page=%llu stride=%llu fraction_ppm=%u write_pct=%u "
	       "random=%u selected=%llu\n", bi->nr_vcpus,
	       (unsigned long long)bi->test_gpa,
	       (unsigned long long)bi->test_size,
	       (unsigned long long)bi->guest_page,
	       (unsigned long long)bi->wl.stride, bi->wl.fraction_ppm,
	       bi->wl.write_pct, !!(bi->wl.flags & MMUB_WL_RANDOM),
	       (unsigned long long)e->nr_selected);
	for (pass = 0; pass < bi->wl.passes; pass++) {
		mmub_hist_reset(&e->mb->lat);
		engine_pass(e, pass, false, &rec);
		print_pass(e, &rec);
	}
	printf("MMUB-EXIT status=0\n");
	fflush(stdout);
	arch_standalone_exit(0);
}
