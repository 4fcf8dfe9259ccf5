// SPDX-License-Identifier: GPL-2.0
/*
 * Command-line options.  Names follow dirty_log_perf_test where they
 * overlap.  Every bad value is rejected here, before any VM exists, with
 * one line naming the option and what it accepts.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "mmubench.h"
#include "cli.h"
#include "scenarios/zap.h"

enum {
	OPT_GUEST_PAGE = 256,
	OPT_TOUCH,
	OPT_FRACTION,
	OPT_RANGES,
	OPT_REPEAT,
	OPT_JSON,
	OPT_NO_POPULATE,
	OPT_RESERVE,
	OPT_WATCHDOG,
	OPT_GUEST,
	OPT_NO_LATENCY,
	OPT_DEBUG_ACTION,
	OPT_MODE,
	OPT_RING_SIZE,
	OPT_VERIFY,
	OPT_ROUNDS,
	OPT_TABLE,
	OPT_DEBUG_DROP,
	OPT_ZAP,
	OPT_ZAP_COUNT,
	OPT_ZAP_DURATION,
	OPT_ZAP_PAUSE,
	OPT_BACKEND,
	OPT_EXEC,
	OPT_NX_PERIOD,
	OPT_NX_RATIO,
	OPT_NX_WAIT,
	OPT_NX_NO_LOG,
	OPT_HELP,
};

static const struct option long_opts[] = {
	{ "guest-page", required_argument, NULL, OPT_GUEST_PAGE },
	{ "touch", required_argument, NULL, OPT_TOUCH },
	{ "fraction", required_argument, NULL, OPT_FRACTION },
	{ "ranges", required_argument, NULL, OPT_RANGES },
	{ "repeat", required_argument, NULL, OPT_REPEAT },
	{ "json", required_argument, NULL, OPT_JSON },
	{ "no-populate", no_argument, NULL, OPT_NO_POPULATE },
	{ "reserve-hugepages", no_argument, NULL, OPT_RESERVE },
	{ "watchdog", required_argument, NULL, OPT_WATCHDOG },
	{ "guest", required_argument, NULL, OPT_GUEST },
	{ "no-latency", no_argument, NULL, OPT_NO_LATENCY },
	{ "debug-action", required_argument, NULL, OPT_DEBUG_ACTION },
	{ "mode", required_argument, NULL, OPT_MODE },
	{ "ring-size", required_argument, NULL, OPT_RING_SIZE },
	{ "verify", no_argument, NULL, OPT_VERIFY },
	{ "rounds", required_argument, NULL, OPT_ROUNDS },
	{ "table", optional_argument, NULL, OPT_TABLE },
	{ "zap", required_argument, NULL, OPT_ZAP },
	{ "zap-count", required_argument, NULL, OPT_ZAP_COUNT },
	{ "zap-duration", required_argument, NULL, OPT_ZAP_DURATION },
	{ "zap-pause", required_argument, NULL, OPT_ZAP_PAUSE },
	{ "backend", required_argument, NULL, OPT_BACKEND },
	{ "debug-drop-dirty", required_argument, NULL, OPT_DEBUG_DROP },
	{ "exec", no_argument, NULL, OPT_EXEC },
	{ "recovery-period", required_argument, NULL, OPT_NX_PERIOD },
	{ "recovery-ratio", required_argument, NULL, OPT_NX_RATIO },
	{ "recovery-wait", required_argument, NULL, OPT_NX_WAIT },
	{ "no-dirty-log", no_argument, NULL, OPT_NX_NO_LOG },
	{ "help", no_argument, NULL, OPT_HELP },
	{ NULL, 0, NULL, 0 },
};

static u64 parse_u64_opt(const char *opt, const char *val, u64 lo, u64 hi)
{
	char *end;
	unsigned long long v;

	if (!val[0] || val[0] == '-')
		die("%s %s: not a number (accepted: %llu..%llu)", opt, val,
		    (unsigned long long)lo, (unsigned long long)hi);
	v = strtoull(val, &end, 0);
	if (*end || v < lo || v > hi)
		die("%s %s: out of range (accepted: %llu..%llu)", opt, val,
		    (unsigned long long)lo, (unsigned long long)hi);
	return v;
}

static u64 parse_page(const char *opt, const char *val)
{
	u64 v;

	if (mmub_parse_size(val, &v) ||
	    (v != MMUB_SZ_4K && v != MMUB_SZ_2M && v != MMUB_SZ_1G))
		die("%s %s: unknown page size (accepted: 4k, 2m, 1g)", opt, val);
	return v;
}

static enum backing_type parse_backing(const char *val)
{
	char list[256] = "";

	for (int i = 0; i < BACKING_NR; i++)
		if (!strcmp(val, backing_names[i]))
			return (enum backing_type)i;
	for (int i = 0; i < BACKING_NR; i++) {
		strcat(list, backing_names[i]);
		if (i + 1 < BACKING_NR)
			strcat(list, ", ");
	}
	die("-s %s: unknown backing (accepted: %s)", val, list);
}

static void parse_pins(struct run_config *cfg, const char *val)
{
	char *copy = strdup(val), *save = NULL, *tok;
	u32 n = 0;

	if (!copy)
		die("out of memory");
	for (tok = strtok_r(copy, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save)) {
		if (n == MMUB_MAX_VCPUS)
			die("-c %s: more than %d CPUs", val, MMUB_MAX_VCPUS);
		cfg->pin[n++] = (int)parse_u64_opt("-c", tok, 0, CPU_SETSIZE - 1);
	}
	free(copy);
	if (!n)
		die("-c %s: expected a comma-separated list of host CPUs", val);
	cfg->pinned = true;
}

static void defaults(struct run_config *cfg)
{
	memset(cfg, 0, sizeof(*cfg));
	cfg->nr_vcpus = 1;
	cfg->vcpu_bytes = 128 * MMUB_MIB;
	cfg->backing = BACKING_ANONYMOUS;
	cfg->nr_slots = 1;
	cfg->iterations = 2;
	cfg->repeat = 1;
	cfg->guest_page = MMUB_SZ_4K;
	cfg->populate = true;
	cfg->watchdog_s = 30;
	cfg->ring_bytes = 64 * 1024;
	cfg->rounds = 200;
	cfg->debug_drop_round = -1;
	cfg->zap_count = 200;
	cfg->nx_period_ms = 1000;
	cfg->nx_ratio = 1;
	cfg->nx_wait_s = 30;
	for (int i = 0; i < MMUB_MAX_VCPUS; i++)
		cfg->pin[i] = -1;
	mmub_wl_defaults(&cfg->wl);
}

/* A guest image next to the binary: <dir>/<arch>/guest.elf or ../. */
static const char *default_guest(void)
{
	static char path[PATH_MAX + 64];
	char exe[PATH_MAX], *slash;
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);

	if (n <= 0)
		return "guest.elf";
	exe[n] = 0;
	slash = strrchr(exe, '/');
	if (slash)
		*slash = 0;
	snprintf(path, sizeof(path), "%s/%s/guest.elf", exe, arch_name);
	if (access(path, R_OK)) {
		snprintf(path, sizeof(path), "%s/../%s/guest.elf", exe,
			 arch_name);
		if (access(path, R_OK))
			snprintf(path, sizeof(path), "%s/%s/guest.elf", exe,
				 arch_name);
	}
	return path;
}

static void check_ranges(const struct run_config *cfg, u64 total)
{
	for (u32 i = 0; i < cfg->wl.nr_ranges; i++) {
		const struct mmub_range *r = &cfg->wl.ranges[i];

		if (r->offset >= total || r->length > total - r->offset)
			die("--ranges: range %u (offset %llu, length %llu) "
			    "is outside the %llu bytes of test memory", i,
			    (unsigned long long)r->offset,
			    (unsigned long long)r->length,
			    (unsigned long long)total);
	}
}

static bool ring_size_given, backing_given, page_given, stride_given,
	    nx_given;

/* Dirty-log options: only where they mean something. */
static void validate_dirty_log(struct run_config *cfg)
{
	bool dl = !strcmp(cfg->scenario, "dirty-log");
	bool ring = cfg->dirty_mode == DLOG_RING ||
		    cfg->dirty_mode == DLOG_RING_ACQ_REL;

	if (!strcmp(cfg->scenario, "nx-recovery")) {
		/* Only the memslot flag matters to the worker; any mode. */
		if (cfg->clear_chunk || cfg->verify || ring_size_given ||
		    cfg->debug_drop_round >= 0)
			die("-k, --ring-size, --verify and --debug-drop-dirty "
			    "belong to the dirty-log scenario (nx-recovery "
			    "takes --mode)");
		if (!cfg->dirty_mode)
			cfg->dirty_mode = DLOG_GET;
		return;
	}
	if (!dl) {
		if (cfg->dirty_mode || cfg->clear_chunk || cfg->verify ||
		    ring_size_given || cfg->debug_drop_round >= 0)
			die("--mode, -g, -k, --ring-size, --verify and "
			    "--debug-drop-dirty belong to the dirty-log scenario");
		return;
	}
	if (cfg->table && strcmp(cfg->table, "enable"))
		die("--table %s: unknown (accepted: enable)", cfg->table);
	if (!cfg->dirty_mode)
		cfg->dirty_mode = DLOG_CLEAR;
	if (cfg->clear_chunk && cfg->dirty_mode != DLOG_CLEAR &&
	    cfg->dirty_mode != DLOG_CLEAR_INIT_SET)
		die("-k %llu: only with --mode clear or clear-init-set, not %s",
		    (unsigned long long)cfg->clear_chunk,
		    dlog_mode_names[cfg->dirty_mode]);
	if (ring_size_given && !ring)
		die("--ring-size: only with --mode ring or ring-acq-rel, not %s",
		    dlog_mode_names[cfg->dirty_mode]);
	if (cfg->debug_drop_round >= 0 && !cfg->verify)
		die("--debug-drop-dirty: needs --verify, whose oracle must "
		    "catch the dropped page");
	if (cfg->table && cfg->verify)
		die("--table enable: measures enabling only; drop --verify");
}

/* Zap options: the pattern must fit the memory and its pages. */
static void validate_zap(struct run_config *cfg, u64 total)
{
	const char *why;

	if (strcmp(cfg->scenario, "zap")) {
		if (cfg->zap_name || cfg->zap_duration_s || cfg->zap_pause_us ||
		    cfg->zap_count != 200)
			die("--zap, --zap-count, --zap-duration and --zap-pause "
			    "belong to the zap scenario");
		if (cfg->table && strcmp(cfg->scenario, "dirty-log"))
			die("--table belongs to the dirty-log and zap scenarios");
		return;
	}
	if (!cfg->zap_name && !cfg->table)
		zap_parse_pattern(cfg, "same16");
	if (cfg->wl.write_pct != 100)
		die("-w %u: zap checks every refault by writing; it needs -w "
		    "100", cfg->wl.write_pct);
	if (cfg->table)
		return;
	why = zap_unfit(cfg, total);
	if (why)
		die("--zap %s: %s", cfg->zap_name, why);
}

/*
 * The execute workload and nx-recovery: the seed's set-up (hugetlb, 2M
 * guest pages, one RET per 2M) unless the user chose otherwise.
 */
static void validate_exec(struct run_config *cfg)
{
	bool nx = !strcmp(cfg->scenario, "nx-recovery");

	if (!nx) {
		if (nx_given)
			die("--recovery-period, --recovery-ratio, "
			    "--recovery-wait and --no-dirty-log belong to the "
			    "nx-recovery scenario");
		if (mmub_wl_executes(&cfg->wl) && strcmp(cfg->scenario,
							 "touch"))
			die("--exec: only with touch or nx-recovery (dirty-log "
			    "and zap check data the code would overwrite; "
			    "bench runs its loop in host memory)");
		return;
	}
	if (cfg->wl.action != MMUB_ACT_TOUCH &&
	    cfg->wl.action != MMUB_ACT_EXEC)
		die("--debug-action: not with nx-recovery");
	cfg->wl.action = MMUB_ACT_EXEC;
	if (!backing_given)
		cfg->backing = BACKING_ANONYMOUS_HUGETLB_2MB;
	if (!page_given)
		cfg->guest_page = MMUB_SZ_2M;
	if (!stride_given)
		cfg->wl.stride = MMUB_SZ_2M;
}

/* Cross-option checks: everything must divide evenly, or say why. */
static void validate(struct run_config *cfg)
{
	u64 bpage, unit, total, slot;
	char a[32], b[32];

	validate_exec(cfg);
	bpage = backing_page_size(cfg->backing);
	unit = mmub_max(cfg->guest_page, bpage);

	if (cfg->vcpu_bytes % unit)
		die("-b %s: must be a multiple of %s (the larger of "
		    "--guest-page and the %s page size)",
		    fmt_size(cfg->vcpu_bytes, a, sizeof(a)),
		    fmt_size(unit, b, sizeof(b)), backing_names[cfg->backing]);
	if (cfg->wl.stride > cfg->vcpu_bytes)
		die("--touch %s: stride larger than -b %s",
		    fmt_size(cfg->wl.stride, a, sizeof(a)),
		    fmt_size(cfg->vcpu_bytes, b, sizeof(b)));
	total = cfg->vcpu_bytes * cfg->nr_vcpus;
	if (total / cfg->nr_vcpus != cfg->vcpu_bytes || total > (1ULL << 46))
		die("-b: %llu bytes x %u vCPUs is too large",
		    (unsigned long long)cfg->vcpu_bytes, cfg->nr_vcpus);
	slot = total / cfg->nr_slots;
	if (total % cfg->nr_slots || slot % unit)
		die("-x %u: %s of test memory does not split into %u slots "
		    "that are multiples of %s", cfg->nr_slots,
		    fmt_size(total, a, sizeof(a)), cfg->nr_slots,
		    fmt_size(unit, b, sizeof(b)));
	check_ranges(cfg, total);
	validate_dirty_log(cfg);
	validate_zap(cfg, total);
	if (cfg->pinned) {
		for (u32 i = 0; i < cfg->nr_vcpus; i++)
			if (cfg->pin[i] < 0)
				die("-c: %u CPUs listed for %u vCPUs", i,
				    cfg->nr_vcpus);
	}
	if (!cfg->guest)
		cfg->guest = default_guest();
	if (access(cfg->guest, R_OK))
		die("--guest %s: %s (build it with make)", cfg->guest,
		    strerror(errno));
	if (cfg->qemu && (cfg->backing || cfg->nr_slots > 1 || cfg->pinned))
		die("--backend qemu: -s, -x and -c are about KVM memslots and "
		    "vCPU threads; QEMU's own memory is used");
	if (!cfg->qemu)
		backing_preflight(cfg->backing, total,
				  cfg->reserve_hugepages);
}

static enum dlog_mode parse_mode(const char *val)
{
	for (int i = DLOG_GET; i < DLOG_NR; i++)
		if (!strcmp(val, dlog_mode_names[i]))
			return (enum dlog_mode)i;
	die("--mode %s: unknown (accepted: get, clear, clear-init-set, ring, "
	    "ring-acq-rel)", val);
}

static void parse_one(struct run_config *cfg, int c, const char *arg)
{
	u64 v;
	int a;

	switch (c) {
	case 'v':
		cfg->nr_vcpus = (u32)parse_u64_opt("-v", arg, 1, MMUB_MAX_VCPUS);
		break;
	case 'b':
		if (mmub_parse_size(arg, &cfg->vcpu_bytes) || !cfg->vcpu_bytes ||
		    cfg->vcpu_bytes % MMUB_SZ_4K)
			die("-b %s: bad size (accepted: a multiple of 4K with "
			    "an optional k/m/g/t suffix, e.g. 512M)", arg);
		break;
	case 's':
		cfg->backing = parse_backing(arg);
		backing_given = true;
		break;
	case 'x':
		cfg->nr_slots = (u32)parse_u64_opt("-x", arg, 1, 256);
		break;
	case 'i':
		cfg->iterations = (u32)parse_u64_opt("-i", arg, 0, 100000);
		break;
	case 'w':
		cfg->wl.write_pct = (u32)parse_u64_opt("-w", arg, 0, 100);
		break;
	case 'a':
		cfg->wl.flags |= MMUB_WL_RANDOM;
		break;
	case 'r':
		cfg->wl.seed = parse_u64_opt("-r", arg, 0, ~0ULL);
		break;
	case 'c':
		parse_pins(cfg, arg);
		break;
	case OPT_GUEST_PAGE:
		cfg->guest_page = parse_page("--guest-page", arg);
		page_given = true;
		break;
	case OPT_TOUCH:
		cfg->wl.stride = parse_page("--touch", arg);
		stride_given = true;
		break;
	case OPT_FRACTION:
		if (mmub_parse_fraction(arg, &cfg->wl.fraction_ppm) ||
		    !cfg->wl.fraction_ppm)
			die("--fraction %s: out of range (accepted: (0, 1] as "
			    "0.25 or 25%%)", arg);
		break;
	case OPT_RANGES:
		if (mmub_wl_parse_word(&cfg->wl, "ranges", arg))
			die("--ranges %s: bad list (accepted: up to %d "
			    "OFFSET+LENGTH pairs, e.g. 0+64m,512m+1g)", arg,
			    MMUB_MAX_RANGES);
		break;
	case OPT_REPEAT:
		cfg->repeat = (u32)parse_u64_opt("--repeat", arg, 1, 1000);
		break;
	case OPT_JSON:
		cfg->json = arg;
		break;
	case OPT_NO_POPULATE:
		cfg->populate = false;
		break;
	case OPT_RESERVE:
		cfg->reserve_hugepages = true;
		break;
	case OPT_WATCHDOG:
		cfg->watchdog_s = (u32)parse_u64_opt("--watchdog", arg, 1, 86400);
		break;
	case OPT_GUEST:
		cfg->guest = arg;
		break;
	case OPT_NO_LATENCY:
		cfg->wl.flags &= ~MMUB_WL_LATENCY;
		break;
	case OPT_DEBUG_ACTION:
		a = mmub_parse_action(arg);
		if (a <= MMUB_ACT_TOUCH)
			die("--debug-action %s: unknown (accepted: fault, hang)",
			    arg);
		cfg->wl.action = (u32)a;
		break;
	case OPT_MODE:
		cfg->dirty_mode = parse_mode(arg);
		break;
	case 'g':
		cfg->dirty_mode = DLOG_GET;
		break;
	case 'k':
		cfg->clear_chunk = parse_u64_opt("-k", arg, 64, 1ULL << 32);
		if (cfg->clear_chunk % 64)
			die("-k %s: must be a multiple of 64 pages", arg);
		break;
	case OPT_RING_SIZE:
		if (mmub_parse_size(arg, &v) || v < 4096 || v > (1U << 30) ||
		    (v & (v - 1)))
			die("--ring-size %s: must be a power of two from 4K "
			    "(bytes, k/m suffix)", arg);
		cfg->ring_bytes = (u32)v;
		ring_size_given = true;
		break;
	case OPT_VERIFY:
		cfg->verify = true;
		break;
	case OPT_ROUNDS:
		cfg->rounds = (u32)parse_u64_opt("--rounds", arg, 0, 1000000);
		break;
	case OPT_TABLE:
		/* "--table" alone (zap: all six) or "--table VALUE". */
		cfg->table = arg ? arg : "";
		break;
	case OPT_ZAP:
		if (zap_parse_pattern(cfg, arg))
			die("--zap %s: unknown pattern (accepted: same:SIZE, "
			    "rolling:SIZE, same16, same4, c16, c4, c2, c1)", arg);
		break;
	case OPT_ZAP_COUNT:
		cfg->zap_count = (u32)parse_u64_opt("--zap-count", arg, 1,
						    100000000);
		break;
	case OPT_ZAP_DURATION:
		cfg->zap_duration_s = (u32)parse_u64_opt("--zap-duration", arg,
							 1, 86400);
		break;
	case OPT_BACKEND:
		if (strcmp(arg, "kvm") && strcmp(arg, "qemu"))
			die("--backend %s: unknown (accepted: kvm, qemu)", arg);
		cfg->qemu = !strcmp(arg, "qemu");
		break;
	case OPT_ZAP_PAUSE:
		cfg->zap_pause_us = (u32)parse_u64_opt("--zap-pause", arg, 0,
						       10000000);
		break;
	case OPT_DEBUG_DROP:
		cfg->debug_drop_round = (s64)parse_u64_opt("--debug-drop-dirty",
							   arg, 0, 1000000);
		break;
	case OPT_EXEC:
		cfg->wl.action = MMUB_ACT_EXEC;
		break;
	case OPT_NX_PERIOD:
		cfg->nx_period_ms = (u32)parse_u64_opt("--recovery-period", arg,
						       1, 3600000);
		nx_given = true;
		break;
	case OPT_NX_RATIO:
		cfg->nx_ratio = (u32)parse_u64_opt("--recovery-ratio", arg, 1,
						   3600);
		nx_given = true;
		break;
	case OPT_NX_WAIT:
		cfg->nx_wait_s = (u32)parse_u64_opt("--recovery-wait", arg, 1,
						    86400);
		nx_given = true;
		break;
	case OPT_NX_NO_LOG:
		cfg->nx_no_log = true;
		nx_given = true;
		break;
	case OPT_HELP:
		cli_usage(stdout);
		exit(0);
	default:
		die("unknown option (see %s --help)", MMUB_NAME);
	}
}

void cli_parse(struct run_config *cfg, int argc, char **argv)
{
	int c;

	defaults(cfg);
	cfg->scenario = argv[0];
	opterr = 0;
	optind = 1;
	while ((c = getopt_long(argc, argv, ":v:b:s:x:i:w:ar:c:gk:", long_opts,
				NULL)) != -1) {
		if (c == ':')
			die("%s: needs a value (see %s --help)",
			    argv[optind - 1], MMUB_NAME);
		if (c == '?')
			die("%s: unknown option (see %s --help)",
			    argv[optind - 1], MMUB_NAME);
		if (c == OPT_TABLE && !optarg && optind < argc &&
		    argv[optind][0] != '-')
			optarg = argv[optind++];
		parse_one(cfg, c, optarg);
	}
	if (optind < argc)
		die("%s: unexpected argument (see %s --help)", argv[optind],
		    MMUB_NAME);
	validate(cfg);
}
