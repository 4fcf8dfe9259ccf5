// SPDX-License-Identifier: GPL-2.0
/*
 * mmubench: measure what KVM's second-stage MMU costs while a guest
 * touches its memory.  "mmubench SCENARIO [options]".
 */
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include "cli.h"
#include "backend/qemu.h"
#include "commands.h"
#include "scenarios/scenarios.h"

#ifndef MMUB_VERSION
#define MMUB_VERSION "unknown"
#endif

struct scenario {
	const char *name;
	int (*run)(const struct run_config *cfg);
	const char *help;
	/* A subcommand with its own arguments instead of a VM's. */
	int (*cmd)(int argc, char **argv);
};

static const struct scenario scenarios[] = {
	{ "touch", scenario_touch,
	  "populate, then -i passes; time, pages/s, latency, KVM stats" },
	{ "dirty-log", scenario_dirty_log,
	  "enable logging (timed), first-harvest accounting, -i write+harvest "
	  "iterations, disable; --verify checks that no dirty page is lost" },
	{ "zap", scenario_zap,
	  "vCPUs fault and write while the host invalidates with "
	  "MADV_DONTNEED; zap cost, fault-side latency, refault integrity" },
	{ "nx-recovery", scenario_nx_recovery,
	  "execute (NX huge pages split), enable dirty logging, wait for "
	  "KVM's recovery worker: what it zaps, its CPU time (x86)" },
	{ "bench", scenario_bench,
	  "figures about mmubench itself: boot time, guest/host loop ratio, "
	  "exits per pass" },
	{ "compare", NULL,
	  "A.json B.json: per metric medians, B/A, t-test and Mann-Whitney "
	  "at 95 %", cmd_compare },
	{ "ab", NULL,
	  "--series NAME [--repeat R] -- SCENARIO ...: original vs patched "
	  "kernel, nested boots A B A B, then compare (ci/ab.sh)", cmd_ab },
	{ "merge", NULL,
	  "OUT.json IN.json...: the runs of several documents in one",
	  cmd_merge },
};

void cli_usage(FILE *f)
{
	fprintf(f,
"usage: mmubench SCENARIO [options]\n"
"\n"
"Scenarios:\n");
	for (size_t i = 0; i < MMUB_ARRAY_SIZE(scenarios); i++)
		fprintf(f, "  %-11s %s\n", scenarios[i].name, scenarios[i].help);
	fprintf(f,
"\n"
"Options (as in KVM's dirty_log_perf_test where they overlap):\n"
"  -v N             vCPUs (1..64; default 1)\n"
"  -b SIZE          test memory per vCPU, k/m/g suffix (default 128M)\n"
"  -s BACKING       anonymous, anonymous_thp, anonymous_hugetlb_2mb,\n"
"                   anonymous_hugetlb_1gb, shmem, shared_hugetlb, memfd\n"
"                   (default anonymous)\n"
"  -x N             split the test memory over N memslots (default 1)\n"
"  -i N             passes after the populate pass (default 2)\n"
"  -w PCT           share of accesses that write, 0..100 (default 100)\n"
"  -a               visit pages in a seeded random order\n"
"  -r SEED          seed for -a and for -w below 100 (default 1)\n"
"  -c CPU,CPU,...   pin vCPU i to host CPU i of the list\n"
"  --guest-page P   guest page size mapping the test memory: 4k, 2m, 1g\n"
"  --touch STRIDE   one 8-byte access per 4k, 2m or 1g (default 4k)\n"
"  --fraction F     touch only the first F of each vCPU's share, 0.25 or 25%%\n"
"  --ranges LIST    touch only OFFSET+LENGTH ranges of the test memory\n"
"  --repeat R       run everything R times (default 1)\n"
"  --json FILE      write all results as one JSON document (atomically)\n"
"  --no-populate    do not pre-fault host memory before the guest runs\n"
"  --reserve-hugepages  raise the hugetlb pool for the run, restore after\n"
"  --watchdog SEC   stop a guest that makes no progress (default 30)\n"
"  --guest FILE     guest image (default: <arch>/guest.elf by the binary)\n"
"  --no-latency     do not time each access in the guest\n"
"  --exec           execute instead: each stride holds a RET the vCPUs call\n"
"  --debug-action A fault or hang on purpose (tests the error paths)\n"
"  --backend B      kvm (mmubench's VMM, default) or qemu: the guest alone\n"
"                   under QEMU TCG, its printed results as the same table\n"
"                   (touch only; no KVM stats)\n"
"\n"
"dirty-log:\n"
"  --mode M         get, clear, clear-init-set, ring, ring-acq-rel (clear)\n"
"  -g               same as --mode get (manual protect off), as in the selftests\n"
"  -k PAGES         pages per KVM_CLEAR_DIRTY_LOG, a multiple of 64 (whole slot)\n"
"  --ring-size B    dirty ring bytes per vCPU, a power of two (64K)\n"
"  --verify         check every harvest: no page that changed goes unreported\n"
"  --rounds N       harvests while the vCPUs keep writing, with --verify (200)\n"
"  --table enable   the enable-time table: page sizes x modes, --repeat each\n"
"  --debug-drop-dirty R  drop one reported page in harvest R, or the first\n"
"                   later one with a page to drop (the oracle must then\n"
"                   fail, naming it)\n"
"\n"
"zap:\n"
"  --zap PATTERN    same:SIZE (one range again and again) or rolling:SIZE\n"
"                   (consecutive chunks, wrapping); seed names same16,\n"
"                   same4, c16, c4, c2, c1 (default same16)\n"
"  --zap-count N    invalidations per run (200)\n"
"  --zap-duration S invalidate for S seconds instead\n"
"  --zap-pause US   pause between invalidations (0)\n"
"  --table [LIST]   the seed's tables: same16,same4,c16,c4,c2,c1 or a subset\n"
"\n"
"nx-recovery (sets kvm.nx_huge_pages=force and the worker's knobs for the\n"
"run, restores them after; default -s anonymous_hugetlb_2mb, --guest-page 2m,\n"
"--touch 2m, --mode get):\n"
"  --recovery-period MS  kvm.nx_huge_pages_recovery_period_ms (1000)\n"
"  --recovery-ratio N    kvm.nx_huge_pages_recovery_ratio, 1 = all (1)\n"
"  --recovery-wait S     give up if splits remain after S seconds (30)\n"
"  --no-dirty-log        control run: logging stays off, so every kernel zaps\n"
"  --help           this text\n"
"\n"
"compare (mmubench compare --help):\n"
"  --metric PATH    compare this instead of the scenario's defaults,\n"
"                   e.g. results.runs[].zap.zap_total_ms (repeatable)\n"
"  --json FILE      write the comparison as JSON\n"
"  --labels A,B     names of the two sides\n"
"\n"
"ab (ci/ab.sh --help): [--kernel 6.1] --series NAME [--arch A] [--repeat R (5)]\n"
"  [--cpu MODEL] [--append KARGS] [--out DIR] [--runs] [--] SCENARIO OPTIONS...\n"
"\n"
"Needs /dev/kvm (root or group kvm). Version " MMUB_VERSION ".\n");
}

static void on_signal(int sig)
{
	host_restore();
	signal(sig, SIG_DFL);
	raise(sig);
}

int main(int argc, char **argv)
{
	struct run_config cfg;

	if (argc < 2 || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") ||
	    !strcmp(argv[1], "help")) {
		cli_usage(argc < 2 ? stderr : stdout);
		return argc < 2 ? 2 : 0;
	}
	if (!strcmp(argv[1], "--version")) {
		printf("mmubench %s\n", MMUB_VERSION);
		return 0;
	}
	for (size_t i = 0; i < MMUB_ARRAY_SIZE(scenarios); i++) {
		if (strcmp(argv[1], scenarios[i].name))
			continue;
		if (scenarios[i].cmd) {
			setvbuf(stdout, NULL, _IOLBF, 0);
			return scenarios[i].cmd(argc - 1, argv + 1);
		}
		cli_parse(&cfg, argc - 1, argv + 1);
		atexit(host_restore);
		signal(SIGINT, on_signal);
		signal(SIGTERM, on_signal);
		setvbuf(stdout, NULL, _IOLBF, 0);
		if (cfg.qemu)
			return backend_qemu(&cfg);
		return scenarios[i].run(&cfg);
	}
	die("%s: unknown scenario (accepted: touch, dirty-log, zap, "
	    "nx-recovery, bench, compare, ab, merge)", argv[1]);
}
