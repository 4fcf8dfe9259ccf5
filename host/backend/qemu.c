// SPDX-License-Identifier: GPL-2.0
/*
 * The QEMU backend: where no /dev/kvm is at hand, boot the guest image
 * directly under QEMU (TCG), pass the workload on its command line, and
 * turn the "MMUB" lines it prints on the serial port into the same table
 * as the VMM's.  QEMU has no second-stage MMU to measure, so there are no
 * KVM stats: this is for the guest's own figures and for CI anywhere.
 */
#define _GNU_SOURCE
#include <elf.h>
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/wait.h>
#include "util/util.h"
#include "results/json.h"
#include "backend/qemu.h"

#define OUT_MAX		(4 * MMUB_MIB)
#define QEMU_ARGV_MAX	64

struct qemu_pass {
	u64 pass, cpu, accesses, writes, cycles, clk_hz, p50, p99, p999, max;
};

/* The guest's command line, in the words guest/arch/<arch> parses. */
static void guest_words(const struct vm_params *p, u32 passes, char *buf,
			size_t len)
{
	const struct mmub_workload *wl = &p->wl;
	char frac[16];
	size_t n;

	if (wl->fraction_ppm >= MMUB_FRACTION_ONE)
		snprintf(frac, sizeof(frac), "1");
	else
		snprintf(frac, sizeof(frac), "0.%06u", wl->fraction_ppm);
	snprintf(buf, len, "vcpus=%u mem=%llu page=%llu passes=%u write=%u "
		 "seed=%llu stride=%llu fraction=%s random=%u latency=%u "
		 "action=%s", p->nr_vcpus,
		 (unsigned long long)(p->vcpu_bytes * p->nr_vcpus),
		 (unsigned long long)p->guest_page, passes,
		 wl->write_pct, (unsigned long long)wl->seed,
		 (unsigned long long)wl->stride, frac,
		 !!(wl->flags & MMUB_WL_RANDOM), !!(wl->flags & MMUB_WL_LATENCY),
		 mmub_action_names[wl->action]);
	for (u32 i = 0; i < wl->nr_ranges; i++) {
		n = strlen(buf);
		snprintf(buf + n, len - n, "%s%llu+%llu", i ? "," : " ranges=",
			 (unsigned long long)wl->ranges[i].offset,
			 (unsigned long long)wl->ranges[i].length);
	}
}

/* The guest's engine prints this first, once every vCPU is in it. */
#define START_LINE	"MMUB start "

/*
 * Runs QEMU, collecting its serial output; returns its wait status.
 * @boot_ms: from the fork until START_LINE arrived (0 if it never did).
 */
static int run_qemu(char *const argv[], char *out, size_t cap, u32 timeout_s,
		    bool *timed_out, double *boot_ms)
{
	size_t len = 0;
	int fds[2], status = 0;
	double t0 = now_ms(), deadline = t0 + timeout_s * 1e3;
	pid_t pid;

	if (pipe(fds))
		die("--backend qemu: pipe: %s", strerror(errno));
	pid = fork();
	if (pid < 0)
		die("--backend qemu: fork: %s", strerror(errno));
	if (!pid) {
		dup2(fds[1], 1);
		dup2(fds[1], 2);
		close(fds[0]);
		execvp(argv[0], argv);
		/* Not stderr: its lock may be held by a thread not copied here. */
		dprintf(STDERR_FILENO, "exec %s: %s\n", argv[0],
			strerror(errno));
		_exit(127);
	}
	close(fds[1]);
	*timed_out = false;
	*boot_ms = 0;
	for (;;) {
		struct pollfd p = { .fd = fds[0], .events = POLLIN };
		int left = (int)(deadline - now_ms());
		ssize_t n;

		if (left <= 0) {
			*timed_out = true;
			kill(pid, SIGKILL);
			break;
		}
		if (poll(&p, 1, left) <= 0)
			continue;
		n = read(fds[0], out + len, cap - len - 1);
		if (n <= 0)
			break;
		len += (size_t)n;
		out[len] = 0;
		if (!*boot_ms && strstr(out, START_LINE))
			*boot_ms = now_ms() - t0;
		if (len + 1 >= cap)
			break;
	}
	out[len] = 0;
	close(fds[0]);
	waitpid(pid, &status, 0);
	return status;
}

static bool parse_pass(const char *line, struct qemu_pass *q)
{
	memset(q, 0, sizeof(*q));
	return sscanf(line, "MMUB pass=%llu cpu=%llu accesses=%llu writes=%llu "
		      "cycles=%llu clk_hz=%llu ns=%*f pages_per_s=%*f "
		      "lat_p50=%llu lat_p99=%llu lat_p999=%llu lat_max=%llu",
		      (unsigned long long *)&q->pass,
		      (unsigned long long *)&q->cpu,
		      (unsigned long long *)&q->accesses,
		      (unsigned long long *)&q->writes,
		      (unsigned long long *)&q->cycles,
		      (unsigned long long *)&q->clk_hz,
		      (unsigned long long *)&q->p50,
		      (unsigned long long *)&q->p99,
		      (unsigned long long *)&q->p999,
		      (unsigned long long *)&q->max) == 10;
}

static double to_ns(const struct qemu_pass *q, u64 cycles)
{
	return q->clk_hz ? (double)cycles * 1e9 / (double)q->clk_hz : 0;
}

static void print_row(const struct qemu_pass *q)
{
	double ns = to_ns(q, q->cycles);
	char name[32];

	snprintf(name, sizeof(name), q->pass ? "iter%llu" : "populate",
		 (unsigned long long)q->pass);
	printf("  %-10s %4llu %10llu %10.2f %10.3f %9.0f %9.0f %9.0f\n", name,
	       (unsigned long long)q->cpu, (unsigned long long)q->accesses,
	       ns / 1e6, ns > 0 ? q->accesses / ns * 1e3 : 0.0,
	       to_ns(q, q->p50), to_ns(q, q->p99), to_ns(q, q->p999));
}

static json_t *json_pass(const struct qemu_pass *q)
{
	double ns = to_ns(q, q->cycles);
	json_t *o = json_object(), *lat = json_object();

	jset(o, "pass", json_integer((json_int_t)q->pass));
	jset(o, "vcpu", json_integer((json_int_t)q->cpu));
	jset(o, "accesses", json_integer((json_int_t)q->accesses));
	jset(o, "writes", json_integer((json_int_t)q->writes));
	jset(o, "cycles", json_integer((json_int_t)q->cycles));
	jset(o, "ns", jnum(ns));
	jset(o, "pages_per_s", jnum(ns > 0 ? q->accesses / ns * 1e9 : 0));
	jset(lat, "p50", jnum(to_ns(q, q->p50)));
	jset(lat, "p99", jnum(to_ns(q, q->p99)));
	jset(lat, "p99.9", jnum(to_ns(q, q->p999)));
	jset(lat, "max", jnum(to_ns(q, q->max)));
	jset(o, "latency_ns", lat);
	return o;
}

/* Print every pass line; the guest's own exit line decides success. */
static int parse_output(char *out, json_t *passes)
{
	char *line, *save = NULL;
	int status = -1;

	printf("  %-10s %4s %10s %10s %10s %9s %9s %9s\n", "pass", "vcpu",
	       "accesses", "ms", "Mpages/s", "p50_ns", "p99_ns", "p99.9_ns");
	for (line = strtok_r(out, "\r\n", &save); line;
	     line = strtok_r(NULL, "\r\n", &save)) {
		struct qemu_pass q;

		if (parse_pass(line, &q)) {
			print_row(&q);
			if (json_array_append_new(passes, json_pass(&q)))
				die("out of memory");
		} else if (!strncmp(line, "MMUB-EXIT status=", 17)) {
			status = atoi(line + 17);
		} else if (!strncmp(line, "MMUB error", 10) ||
			   !strncmp(line, "MMUB fault", 10)) {
			err_msg("guest: %s", line);
		}
	}
	return status;
}

static u16 guest_machine(const char *path)
{
	Elf64_Ehdr eh;
	FILE *f = fopen(path, "rb");
	size_t n = f ? fread(&eh, 1, sizeof(eh), f) : 0;

	if (f)
		fclose(f);
	if (n != sizeof(eh) || memcmp(eh.e_ident, ELFMAG, SELFMAG))
		die("--guest %s: not an ELF guest image", path);
	return eh.e_machine;
}

void qemu_cmd_init(struct qemu_cmd *q, const struct vm_params *p, u32 passes,
		   enum qemu_x86_machine x86)
{
	guest_words(p, passes, q->words, sizeof(q->words));
	/* The guest's own memory and the firmware's, on top of the test. */
	q->ram_bytes = (p->vcpu_bytes * p->nr_vcpus / MMUB_MIB + 192) *
		       MMUB_MIB;
	snprintf(q->mem, sizeof(q->mem), "%lluM",
		 (unsigned long long)(q->ram_bytes / MMUB_MIB));
	snprintf(q->smp, sizeof(q->smp), "%u", p->nr_vcpus);
	switch (guest_machine(p->guest)) {
	case EM_X86_64:
		qemu_argv_x86_64(p, q->argv, QEMU_ARGV_MAX, q->words, q->mem,
				 q->smp, x86);
		q->arch = "x86_64";
		q->package = "qemu-system-x86";
		q->ram_base = 0;
		break;
	case EM_AARCH64:
		qemu_argv_arm64(p, q->argv, QEMU_ARGV_MAX, q->words, q->mem,
				q->smp);
		q->arch = "arm64";
		q->package = "qemu-system-arm";
		/* -M virt: RAM begins at 1 GiB. */
		q->ram_base = 1ULL << 30;
		break;
	default:
		die("--guest %s: not an x86_64 or arm64 guest image", p->guest);
	}
	for (q->argc = 0; q->argv[q->argc]; q->argc++)
		;
}

void qemu_cmd_add(struct qemu_cmd *q, const char *arg)
{
	if (q->argc + 1 >= QEMU_ARGV_MAX)
		die("--backend qemu: too many QEMU arguments (bug)");
	q->argv[q->argc++] = (char *)arg;
	q->argv[q->argc] = NULL;
}

bool qemu_parse_backend(const char *arg)
{
	if (strcmp(arg, "kvm") && strcmp(arg, "qemu"))
		die("--backend %s: unknown (accepted: kvm, qemu)", arg);
	return !strcmp(arg, "qemu");
}

void qemu_check_params(const struct vm_params *p)
{
	if (p->backing || p->nr_slots > 1 || p->pin[0] >= 0 ||
	    p->reserve_hugepages || p->prefault)
		die("--backend qemu: -s, -x, -c, --reserve-hugepages and "
		    "--prefault are about KVM memslots and vCPU threads; "
		    "QEMU's own memory is used");
}

void qemu_cmd_check(const struct qemu_cmd *q)
{
	const char *path = getenv("PATH");
	char buf[4096];

	for (const char *d = path; d && *d;) {
		size_t n = strcspn(d, ":");

		snprintf(buf, sizeof(buf), "%.*s/%s", (int)n, d, q->argv[0]);
		if (n && !access(buf, X_OK))
			return;
		d += n + !!d[n];
	}
	die("--backend qemu: %s is not installed (Debian package %s; make "
	    "deps)", q->argv[0], q->package);
}

int qemu_run(const struct vm_params *p, u32 passes, struct qemu_result *res)
{
	struct qemu_cmd q;
	char *out;
	u32 want = passes * p->nr_vcpus;
	bool timed_out;
	int wst, status;

	qemu_cmd_init(&q, p, passes, QEMU_X86_MICROVM);
	qemu_cmd_check(&q);
	res->arch = q.arch;
	res->machine = q.argv[2];
	res->passes = json_array();
	out = malloc(OUT_MAX);
	if (!out || !res->passes)
		die("out of memory");
	printf("mmubench touch --backend qemu: %u vCPU%s x %lluM under %s "
	       "(TCG: no second-stage MMU, no KVM stats)\n",
	       p->nr_vcpus, p->nr_vcpus > 1 ? "s" : "",
	       (unsigned long long)(p->vcpu_bytes / MMUB_MIB), q.argv[0]);
	wst = run_qemu(q.argv, out, OUT_MAX, p->watchdog_s, &timed_out,
		       &res->boot_ms);
	if (timed_out) {
		free(out);
		die("--backend qemu: the guest did not finish in %u s "
		    "(--watchdog)", p->watchdog_s);
	}
	if (res->boot_ms)
		printf("boot %.1f ms: QEMU -M %s started until the guest's "
		       "engine began\n", res->boot_ms, res->machine);
	status = parse_output(out, res->passes);
	if (status < 0)
		err_msg("--backend qemu: no result from the guest (QEMU wait "
			"status %d); its output was:\n%s", wst, out);
	else if (!status && json_array_size(res->passes) != want)
		err_msg("--backend qemu: %zu pass lines, expected %u",
			json_array_size(res->passes), want);
	free(out);
	return !status && json_array_size(res->passes) == want ? 0 : 1;
}

/*
 * The passes as phases, as a KVM run's document has them: "populate"
 * (pass 0), then "iterN", each with its vCPUs, so that compare and the
 * report read a QEMU run like any other.  Takes @passes.
 */
json_t *qemu_phases(json_t *passes)
{
	json_t *phases = json_array(), *p, *ph = NULL;
	json_int_t cur = -1;
	size_t i;

	json_array_foreach(passes, i, p) {
		json_int_t n = json_integer_value(json_object_get(p, "pass"));
		char name[32];

		if (n != cur) {
			if (n)
				snprintf(name, sizeof(name), "iter%lld", (long long)n);
			else
				snprintf(name, sizeof(name), "populate");
			ph = json_pack("{s:s, s:[]}", "name", name, "vcpus");
			if (!ph || json_array_append_new(phases, ph))
				die("out of memory");
			cur = n;
		}
		json_object_del(p, "pass");
		json_array_append(json_object_get(ph, "vcpus"), p);
	}
	json_decref(passes);
	return phases;
}
