// SPDX-License-Identifier: GPL-2.0
/*
 * The options every VM scenario shares (names as in KVM's
 * dirty_log_perf_test where they overlap), and the dispatch of the rest
 * to the scenario that declares them.  Every bad value is rejected here
 * or in the scenario's validate(), before any VM exists, with one line
 * naming the option and what it accepts.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "util/util.h"
#include "util/parse.h"
#include "results/json.h"
#include "kvm/kvm_dev.h"
#include "kvm/prefault.h"
#include "cli.h"

enum {
	C_GUEST_PAGE = 256,
	C_TOUCH,
	C_FRACTION,
	C_RANGES,
	C_REPEAT,
	C_JSON,
	C_NO_POPULATE,
	C_PREFAULT,
	C_RESERVE,
	C_WATCHDOG,
	C_GUEST,
	C_NO_LATENCY,
	C_DEBUG_ACTION,
	C_NESTED,
	C_L2_PAGE,
	C_HELP,
};

static const struct opt common_opts[] = {
	{ "vcpus", 'v', required_argument, "N", "vCPUs, 1..64 (1)" },
	{ "bytes", 'b', required_argument, "SIZE",
	  "test memory per vCPU, k/m/g/t suffix (128M)" },
	{ "backing", 's', required_argument, "BACKING",
	  "anonymous, anonymous_thp, anonymous_hugetlb_2mb, "
	  "anonymous_hugetlb_1gb, shmem, shared_hugetlb, memfd, guest_memfd "
	  "(private memory, x86 6.8+: touch and private-mem) (anonymous)" },
	{ "slots", 'x', required_argument, "N",
	  "split the test memory over N memslots, 1..256 (1)" },
	{ "iterations", 'i', required_argument, "N",
	  "passes after the populate pass (2)" },
	{ "writes", 'w', required_argument, "PCT",
	  "share of accesses that write, 0..100 (100)" },
	{ "random", 'a', no_argument, NULL,
	  "visit pages in a seeded random order" },
	{ "seed", 'r', required_argument, "SEED",
	  "seed for -a and for -w below 100 (1)" },
	{ "cpus", 'c', required_argument, "CPU,...",
	  "pin vCPU i to host CPU i of the list" },
	{ "guest-page", C_GUEST_PAGE, required_argument, "P",
	  "guest page size mapping the test memory: 4k, 2m, 1g (4k)" },
	{ "touch", C_TOUCH, required_argument, "STRIDE",
	  "one 8-byte access per 4k, 2m or 1g (4k)" },
	{ "fraction", C_FRACTION, required_argument, "F",
	  "touch only the first F of each vCPU's share, 0.25 or 25%" },
	{ "ranges", C_RANGES, required_argument, "LIST",
	  "touch only these OFFSET+LENGTH ranges (up to 8, disjoint)" },
	{ "repeat", C_REPEAT, required_argument, "R",
	  "run everything R times, 1..1000 (1)" },
	{ "json", C_JSON, required_argument, "FILE",
	  "write all results as one JSON document (atomically)" },
	{ "no-populate", C_NO_POPULATE, no_argument, NULL,
	  "do not pre-fault host memory before the guest runs" },
	{ "prefault", C_PREFAULT, no_argument, NULL,
	  "map the test memory in KVM before the guest runs, through "
	  "KVM_PRE_FAULT_MEMORY (Linux 6.10+, x86 with TDP)" },
	{ "reserve-hugepages", C_RESERVE, no_argument, NULL,
	  "raise the hugetlb pool for the run, restore it after" },
	{ "watchdog", C_WATCHDOG, required_argument, "SEC",
	  "a vCPU without progress this long is stuck (30)" },
	{ "guest", C_GUEST, required_argument, "FILE",
	  "guest image (<arch>/guest.elf by the binary)" },
	{ "no-latency", C_NO_LATENCY, no_argument, NULL,
	  "do not time each access in the guest" },
	{ "debug-action", C_DEBUG_ACTION, required_argument, "A",
	  "fault or hang on purpose (tests the error paths)" },
	{ "nested-guest", C_NESTED, no_argument, NULL,
	  "run the workload in an L2 of the guest's own, under SVM, so that "
	  "KVM's shadow MMU serves it (x86_64, kvm_amd nested=1)" },
	{ "l2-page", C_L2_PAGE, required_argument, "P",
	  "with --nested-guest: the page size of the L2's nested table over "
	  "the test memory: 4k, 2m, 1g (4k)" },
	{ "help", C_HELP, no_argument, NULL, "this text" },
	{ NULL },
};

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

/* "0-3,6": the CPUs this process may run on, for an error message. */
static const char *allowed_cpus(const cpu_set_t *set, char *buf, size_t len)
{
	size_t used = 0;

	buf[0] = 0;
	for (int c = 0; c < CPU_SETSIZE && used < len; c++) {
		int last = c;

		if (!CPU_ISSET(c, set))
			continue;
		while (last + 1 < CPU_SETSIZE && CPU_ISSET(last + 1, set))
			last++;
		used += (size_t)snprintf(buf + used, len - used,
					 last > c ? "%s%d-%d" : "%s%d",
					 used ? "," : "", c, last);
		c = last;
	}
	return buf;
}

static void parse_pins(struct vm_params *p, const char *val)
{
	char *copy = strdup(val), *save = NULL, *tok, list[128];
	cpu_set_t allowed;
	u32 n = 0;

	if (!copy)
		die("out of memory");
	if (sched_getaffinity(0, sizeof(allowed), &allowed))
		die("-c: cannot read this process's CPU affinity: %m");
	for (tok = strtok_r(copy, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save)) {
		if (n == MMUB_MAX_VCPUS)
			die("-c %s: more than %d CPUs", val, MMUB_MAX_VCPUS);
		p->pin[n] = (int)parse_u64("-c", tok, 0, CPU_SETSIZE - 1);
		if (!CPU_ISSET(p->pin[n], &allowed))
			die("-c %s: this process may not run on CPU %d "
			    "(accepted: %s)", val, p->pin[n],
			    allowed_cpus(&allowed, list, sizeof(list)));
		n++;
	}
	free(copy);
	if (!n)
		die("-c %s: expected a comma-separated list of host CPUs", val);
}

static void ranges(struct mmub_workload *wl, const char *val)
{
	if (mmub_wl_parse_word(wl, "ranges", val))
		die("--ranges %s: bad list (accepted: up to %d OFFSET+LENGTH "
		    "pairs, e.g. 0+64m,512m+1g)", val, MMUB_MAX_RANGES);
	for (u32 i = 0; i < wl->nr_ranges; i++) {
		const struct mmub_range *r = &wl->ranges[i];

		if (!r->length)
			die("--ranges %s: range %u is empty", val, i);
		for (u32 k = 0; k < i; k++) {
			const struct mmub_range *q = &wl->ranges[k];

			if (r->offset < q->offset + q->length &&
			    q->offset < r->offset + r->length)
				die("--ranges %s: ranges %u and %u overlap "
				    "(accepted: disjoint ranges)", val, k, i);
		}
	}
}

static void defaults(struct common *c)
{
	struct vm_params *p = &c->vm;

	memset(c, 0, sizeof(*c));
	p->nr_vcpus = 1;
	p->vcpu_bytes = 128 * MMUB_MIB;
	p->backing = BACKING_ANONYMOUS;
	p->nr_slots = 1;
	p->guest_page = MMUB_SZ_4K;
	p->populate = true;
	p->watchdog_s = 30;
	for (int i = 0; i < MMUB_MAX_VCPUS; i++)
		p->pin[i] = -1;
	mmub_wl_defaults(&p->wl);
	c->iterations = 2;
	c->repeat = 1;
}

static void parse_common(struct common *c, int key, const char *arg,
			 const struct scenario *s)
{
	struct vm_params *p = &c->vm;
	char *para;
	int a;

	switch (key) {
	case 'v':
		p->nr_vcpus = (u32)parse_u64("-v", arg, 1, MMUB_MAX_VCPUS);
		c->given |= GIVEN_VCPUS;
		break;
	case 'b':
		p->vcpu_bytes = parse_size("-b", arg, MMUB_SZ_4K);
		c->given |= GIVEN_BYTES;
		break;
	case 's':
		p->backing = parse_backing(arg);
		c->given |= GIVEN_BACKING;
		break;
	case 'x':
		p->nr_slots = (u32)parse_u64("-x", arg, 1, 256);
		c->given |= GIVEN_SLOTS;
		break;
	case 'i':
		c->iterations = (u32)parse_u64("-i", arg, 0, MMUB_MAX_PASSES);
		break;
	case 'w':
		p->wl.write_pct = (u32)parse_u64("-w", arg, 0, 100);
		break;
	case 'a':
		p->wl.flags |= MMUB_WL_RANDOM;
		break;
	case 'r':
		p->wl.seed = parse_u64("-r", arg, 0, ~0ULL);
		break;
	case 'c':
		parse_pins(p, arg);
		break;
	case C_GUEST_PAGE:
		p->guest_page = parse_page("--guest-page", arg);
		c->given |= GIVEN_PAGE;
		break;
	case C_TOUCH:
		p->wl.stride = parse_page("--touch", arg);
		c->given |= GIVEN_STRIDE;
		break;
	case C_FRACTION:
		if (arg[0] < '0' || arg[0] > '9')
			die("--fraction %s: not a number (accepted: (0, 1] as "
			    "0.25 or 25%%)", arg);
		if (mmub_parse_fraction(arg, &p->wl.fraction_ppm) ||
		    !p->wl.fraction_ppm)
			die("--fraction %s: out of range (accepted: (0, 1] as "
			    "0.25 or 25%%)", arg);
		break;
	case C_RANGES:
		ranges(&p->wl, arg);
		break;
	case C_REPEAT:
		c->repeat = (u32)parse_u64("--repeat", arg, 1, 1000);
		break;
	case C_JSON:
		c->json = arg;
		break;
	case C_NO_POPULATE:
		p->populate = false;
		break;
	case C_PREFAULT:
		p->prefault = true;
		break;
	case C_RESERVE:
		p->reserve_hugepages = true;
		break;
	case C_WATCHDOG:
		p->watchdog_s = (u32)parse_u64("--watchdog", arg, 1, 86400);
		break;
	case C_GUEST:
		p->guest = arg;
		break;
	case C_NO_LATENCY:
		p->wl.flags &= ~MMUB_WL_LATENCY;
		break;
	case C_DEBUG_ACTION:
		a = mmub_parse_action(arg);
		if (a <= MMUB_ACT_TOUCH || a == MMUB_ACT_EXEC)
			die("--debug-action %s: unknown (accepted: fault, hang)",
			    arg);
		p->wl.action = (u32)a;
		break;
	case C_NESTED:
		c->nested = true;
		p->l2_page = c->l2_page ? c->l2_page : MMUB_SZ_4K;
		break;
	case C_L2_PAGE:
		c->l2_page = parse_page("--l2-page", arg);
		if (c->nested)
			p->l2_page = c->l2_page;
		break;
	case C_HELP:
		printf("usage: %s %s [options]\n\n", MMUB_NAME, s->name);
		if (asprintf(&para, "%s.", s->help) < 0)
			die("out of memory");
		cli_wrap(stdout, para, 0, 0);
		free(para);
		printf("\n\n");
		cli_usage_options(stdout, s);
		exit(0);
	}
}

/*
 * @text from column @col on, its words wrapped within CLI_COLUMNS, each
 * further line indented by @indent; no newline after the last word.
 */
void cli_wrap(FILE *f, const char *text, int indent, int col)
{
	const char *p = text;

	while (*p) {
		size_t word = strcspn(p, " ");

		if (col > indent && col + 1 + (int)word > CLI_COLUMNS) {
			fprintf(f, "\n%*s", indent, "");
			col = indent;
		} else if (col > indent) {
			fputc(' ', f);
			col++;
		}
		fprintf(f, "%.*s", (int)word, p);
		col += (int)word;
		p += word;
		while (*p == ' ')
			p++;
	}
}

/* "-v, --vcpus N": an option as the usage names it. */
static void opt_head(char *head, size_t len, const struct opt *o)
{
	int n = 0;

	if (o->key < 256)
		n = snprintf(head, len, "-%c, ", o->key);
	snprintf(head + n, len - n, "--%s%s%s", o->name, o->arg ? " " : "",
		 o->arg ? o->arg : "");
}

static void usage_opts(FILE *f, const struct opt *o)
{
	char head[48];

	for (; o->name; o++) {
		opt_head(head, sizeof(head), o);
		fprintf(f, "  %-24s ", head);
		cli_wrap(f, o->help, 27, 27);
		fputc('\n', f);
	}
}

void cli_usage_common_names(FILE *f)
{
	char head[48];
	int i = 0;

	for (const struct opt *o = common_opts; o->name; o++, i++) {
		opt_head(head, sizeof(head), o);
		if (i % 3 == 0)
			fprintf(f, "%s  ", i ? "\n" : "");
		if (i % 3 == 2 || !o[1].name)
			fprintf(f, "%s", head);
		else
			fprintf(f, "%-26s", head);
	}
	fputc('\n', f);
}

void cli_usage_scenario(FILE *f, const struct scenario *s)
{
	usage_opts(f, s->opts);
}

void cli_usage_options(FILE *f, const struct scenario *s)
{
	fprintf(f, "Options of every scenario:\n");
	usage_opts(f, common_opts);
	if (s && s->opts->name) {
		fprintf(f, "\n%s:\n", s->name);
		cli_usage_scenario(f, s);
	}
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

/* No more test memory than the machine has: it would all be touched. */
static void check_fits(const struct vm_params *p, u64 total)
{
	long pages = sysconf(_SC_PHYS_PAGES), psize = sysconf(_SC_PAGESIZE);
	char a[32], b[32], t[32];

	if (total / p->nr_vcpus != p->vcpu_bytes || total > (1ULL << 46))
		die("-b %s x -v %u: more test memory than mmubench can map "
		    "(accepted: up to 64T in all)",
		    fmt_size(p->vcpu_bytes, a, sizeof(a)), p->nr_vcpus);
	if (pages > 0 && psize > 0 && total > (u64)pages * (u64)psize)
		die("-b %s x -v %u: %s of test memory is more than this "
		    "machine's %s of RAM", fmt_size(p->vcpu_bytes, a, sizeof(a)),
		    p->nr_vcpus, fmt_size(total, t, sizeof(t)),
		    fmt_size((u64)pages * (u64)psize, b, sizeof(b)));
}

/*
 * --nested-guest: what this KVM needs for it, asked before any VM, and
 * the options it does not go with (their figures would not be the L2's).
 */
static void validate_nested(struct common *c)
{
	struct vm_params *p = &c->vm;
	char why[256], a[32], b[32];

	if (c->l2_page && !c->nested)
		die("--l2-page: only with --nested-guest");
	if (!c->nested)
		return;
	if (c->no_kvm)
		die("--nested-guest: this run boots no guest on KVM "
		    "(accepted: the KVM backend)");
	if (p->backing == BACKING_GUEST_MEMFD)
		die("--nested-guest: not with -s guest_memfd (private memory "
		    "has no nested page table here)");
	if (p->prefault)
		die("--nested-guest: not with --prefault (KVM_PRE_FAULT_MEMORY "
		    "maps the guest's TDP, never the L2's shadow)");
	if (p->vcpu_bytes % p->l2_page)
		die("-b %s: must be a multiple of --l2-page %s",
		    fmt_size(p->vcpu_bytes, a, sizeof(a)),
		    fmt_size(p->l2_page, b, sizeof(b)));
	if (kvm_dev() < 0)
		die("--nested-guest: /dev/kvm: %m");
	if (!arch_supports_nested(kvm_dev(), p->l2_page, why, sizeof(why)))
		die("--nested-guest: %s", why);
}

/* Cross-option checks: everything must divide evenly, or say why. */
static void validate(struct common *c)
{
	struct vm_params *p = &c->vm;
	u64 bpage, unit, total, slot;
	char a[32], b[32];
	const char *why;

	bpage = backing_page_size(p->backing);
	unit = mmub_max(p->guest_page, bpage);
	if (p->vcpu_bytes % unit)
		die("-b %s: must be a multiple of %s (the larger of "
		    "--guest-page and the %s page size)",
		    fmt_size(p->vcpu_bytes, a, sizeof(a)),
		    fmt_size(unit, b, sizeof(b)), backing_names[p->backing]);
	if (p->wl.stride > p->vcpu_bytes)
		die("--touch %s: stride larger than -b %s",
		    fmt_size(p->wl.stride, a, sizeof(a)),
		    fmt_size(p->vcpu_bytes, b, sizeof(b)));
	total = p->vcpu_bytes * p->nr_vcpus;
	check_fits(p, total);
	slot = total / p->nr_slots;
	if (total % p->nr_slots || slot % unit)
		die("-x %u: %s of test memory does not split into %u slots "
		    "that are multiples of %s", p->nr_slots,
		    fmt_size(total, a, sizeof(a)), p->nr_slots,
		    fmt_size(unit, b, sizeof(b)));
	for (u32 i = 0; i < p->wl.nr_ranges; i++) {
		const struct mmub_range *r = &p->wl.ranges[i];

		if (r->offset >= total || r->length > total - r->offset)
			die("--ranges: range %u (offset %llu, length %llu) "
			    "is outside the %llu bytes of test memory", i,
			    (unsigned long long)r->offset,
			    (unsigned long long)r->length,
			    (unsigned long long)total);
	}
	for (u32 i = 0; p->pin[0] >= 0 && i < p->nr_vcpus; i++)
		if (p->pin[i] < 0)
			die("-c: %u CPUs listed for %u vCPUs", i, p->nr_vcpus);
	validate_nested(c);
	if (!p->guest)
		p->guest = default_guest();
	if (c->json && (why = json_path_unwritable(c->json)))
		die("--json %s: %s", c->json, why);
}

struct optent {
	const struct opt *o;
	const struct scenario *owner;	/* NULL: a common option */
};

static size_t collect(struct optent *e, size_t max, const struct opt *o,
		      const struct scenario *owner, size_t n)
{
	for (; o && o->name && n < max; o++)
		e[n++] = (struct optent){ o, owner };
	return n;
}

/* The entry for @key (a short option): ours first, then any other. */
static const struct optent *find_short(const struct optent *e, size_t n,
				       int key, const struct scenario *s)
{
	const struct optent *other = NULL;

	for (size_t i = 0; i < n; i++) {
		if (e[i].o->key != key || key >= 256)
			continue;
		if (!e[i].owner || e[i].owner == s)
			return &e[i];
		if (!other)
			other = &e[i];
	}
	return other;
}

void cli_parse(const struct scenario *s, const struct scenario *const *all,
	       size_t nr, struct common *c, int argc, char **argv)
{
	struct optent ents[256];
	struct option lo[257];
	char shorts[128] = ":";
	size_t n = 0, ls = 1;
	int key, idx;

	defaults(c);
	n = collect(ents, 256, common_opts, NULL, n);
	n = collect(ents, 256, s->opts, s, n);
	for (size_t k = 0; k < nr; k++)
		if (all[k] != s)
			n = collect(ents, 256, all[k]->opts, all[k], n);
	for (size_t i = 0; i < n; i++) {
		const struct opt *o = ents[i].o;

		lo[i] = (struct option){ o->name, o->has_arg, NULL,
					 (int)(1000 + i) };
		if (o->key < 256 && !strchr(shorts, o->key) && ls + 3 < 128) {
			shorts[ls++] = (char)o->key;
			if (o->has_arg != no_argument)
				shorts[ls++] = ':';
		}
	}
	lo[n] = (struct option){ NULL, 0, NULL, 0 };
	opterr = 0;
	optind = 1;
	while ((key = getopt_long(argc, argv, shorts, lo, &idx)) != -1) {
		const struct optent *e;
		const char *arg = optarg;

		if (key == ':')
			die("%s: needs a value (see %s %s --help)",
			    argv[optind - 1], MMUB_NAME, s->name);
		if (key == '?')
			die("%s: unknown option (see %s %s --help)",
			    argv[optind - 1], MMUB_NAME, s->name);
		e = key >= 1000 ? &ents[key - 1000] :
				  find_short(ents, n, key, s);
		if (e->owner && e->owner != s)
			die("--%s: belongs to the %s scenario, not %s",
			    e->o->name, e->owner->name, s->name);
		/* "--table" alone, or "--table VALUE". */
		if (e->o->has_arg == optional_argument && !arg &&
		    optind < argc && argv[optind][0] != '-')
			arg = argv[optind++];
		if (e->owner)
			s->parse(e->o->key, arg);
		else
			parse_common(c, e->o->key, arg, s);
	}
	if (optind < argc)
		die("%s: unexpected argument (see %s %s --help)", argv[optind],
		    MMUB_NAME, s->name);
	if (s->validate)
		s->validate(c);
	if (c->vm.backing == BACKING_GUEST_MEMFD && !s->guest_memfd)
		die("-s guest_memfd: %s reads or changes the test memory from "
		    "the host, which cannot map private memory (accepted: "
		    "touch, private-mem)", s->name);
	validate(c);
	if (!c->no_kvm) {
		u64 start, end;

		/* Not ELF, another arch, another protocol: dies naming it. */
		elf_probe(c->vm.guest, &start, &end);
		if (c->vm.prefault)
			prefault_preflight();
		backing_preflight(c->vm.backing,
				  c->vm.vcpu_bytes * c->vm.nr_vcpus,
				  c->vm.reserve_hugepages);
	}
}
