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
#include "../json.h"
#include "../mmubench.h"
#include "qemu.h"

#define OUT_MAX		(4 * MMUB_MIB)

struct qemu_pass {
	u64 pass, cpu, accesses, writes, cycles, clk_hz, p50, p99, p999, max;
};

/* The guest's command line, in the words guest/arch/<arch> parses. */
static void guest_words(const struct run_config *c, char *buf, size_t len)
{
	const struct mmub_workload *wl = &c->wl;
	char frac[16];
	size_t n;

	if (wl->fraction_ppm >= MMUB_FRACTION_ONE)
		snprintf(frac, sizeof(frac), "1");
	else
		snprintf(frac, sizeof(frac), "0.%06u", wl->fraction_ppm);
	snprintf(buf, len, "vcpus=%u mem=%llu page=%llu passes=%u write=%u "
		 "seed=%llu stride=%llu fraction=%s random=%u latency=%u "
		 "action=%s", c->nr_vcpus,
		 (unsigned long long)(c->vcpu_bytes * c->nr_vcpus),
		 (unsigned long long)c->guest_page, c->iterations + 1,
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

/* Runs QEMU, collecting its serial output; returns its wait status. */
static int run_qemu(char *const argv[], char *out, size_t cap, u32 timeout_s,
		    bool *timed_out)
{
	size_t len = 0;
	int fds[2], status = 0;
	double deadline = now_ms() + timeout_s * 1e3;
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
		fprintf(stderr, "exec %s: %s\n", argv[0], strerror(errno));
		_exit(127);
	}
	close(fds[1]);
	*timed_out = false;
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

static void json_pass(struct json *j, const struct qemu_pass *q)
{
	double ns = to_ns(q, q->cycles);

	json_obj_begin(j, NULL);
	json_u64(j, "pass", q->pass);
	json_u64(j, "vcpu", q->cpu);
	json_u64(j, "accesses", q->accesses);
	json_u64(j, "writes", q->writes);
	json_u64(j, "cycles", q->cycles);
	json_num(j, "ns", ns);
	json_num(j, "pages_per_s", ns > 0 ? q->accesses / ns * 1e9 : 0);
	json_obj_begin(j, "latency_ns");
	json_num(j, "p50", to_ns(q, q->p50));
	json_num(j, "p99", to_ns(q, q->p99));
	json_num(j, "p99.9", to_ns(q, q->p999));
	json_num(j, "max", to_ns(q, q->max));
	json_obj_end(j);
	json_obj_end(j);
}

/* Print every pass line; the guest's own exit line decides success. */
static int report(const struct run_config *cfg, const char *guest_arch,
		  char *out)
{
	int status = -1;
	struct json j;
	char *line, *save = NULL;
	u32 rows = 0;

	json_init(&j);
	json_obj_begin(&j, NULL);
	json_str(&j, "scenario", cfg->scenario);
	json_str(&j, "backend", "qemu");
	json_str(&j, "arch", guest_arch);
	json_obj_begin(&j, "config");
	json_u64(&j, "vcpus", cfg->nr_vcpus);
	json_u64(&j, "vcpu_bytes", cfg->vcpu_bytes);
	json_u64(&j, "guest_page", cfg->guest_page);
	json_u64(&j, "stride", cfg->wl.stride);
	json_str(&j, "action", mmub_action_names[cfg->wl.action]);
	json_u64(&j, "write_pct", cfg->wl.write_pct);
	json_obj_end(&j);
	json_arr_begin(&j, "passes");
	printf("  %-10s %4s %10s %10s %10s %9s %9s %9s\n", "pass", "vcpu",
	       "accesses", "ms", "Mpages/s", "p50_ns", "p99_ns", "p99.9_ns");
	for (line = strtok_r(out, "\r\n", &save); line;
	     line = strtok_r(NULL, "\r\n", &save)) {
		struct qemu_pass q;

		if (parse_pass(line, &q)) {
			print_row(&q);
			json_pass(&j, &q);
			rows++;
		} else if (!strncmp(line, "MMUB-EXIT status=", 17)) {
			status = atoi(line + 17);
		} else if (!strncmp(line, "MMUB error", 10) ||
			   !strncmp(line, "MMUB fault", 10)) {
			err_msg("guest: %s", line);
		}
	}
	json_arr_end(&j);
	json_obj_end(&j);
	if (cfg->json && !status && !j.failed &&
	    write_file_atomic(cfg->json, j.buf, j.len))
		die("--json %s: cannot write it", cfg->json);
	json_free(&j);
	if (!status && rows != (cfg->iterations + 1) * cfg->nr_vcpus) {
		err_msg("--backend qemu: %u pass lines, expected %u", rows,
			(cfg->iterations + 1) * cfg->nr_vcpus);
		return -1;
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

int backend_qemu(const struct run_config *cfg)
{
	char words[512], mem[32], smp[16], *argv[40], *out;
	const char *guest_arch;
	bool timed_out;
	int wst, status;

	if (strcmp(cfg->scenario, "touch"))
		die("--backend qemu: only the touch scenario runs without KVM "
		    "(%s needs /dev/kvm; see ci/kvm-exec.sh)", cfg->scenario);
	guest_words(cfg, words, sizeof(words));
	/* The guest's own memory and the firmware's, on top of the test. */
	snprintf(mem, sizeof(mem), "%lluM", (unsigned long long)
		 ((cfg->vcpu_bytes * cfg->nr_vcpus) / MMUB_MIB + 192));
	snprintf(smp, sizeof(smp), "%u", cfg->nr_vcpus);
	switch (guest_machine(cfg->guest)) {
	case EM_X86_64:
		qemu_argv_x86_64(cfg, argv, 40, cfg->guest, words, mem, smp);
		guest_arch = "x86_64";
		break;
	case EM_AARCH64:
		qemu_argv_arm64(cfg, argv, 40, cfg->guest, words, mem, smp);
		guest_arch = "arm64";
		break;
	default:
		die("--guest %s: not an x86_64 or arm64 guest image", cfg->guest);
	}
	out = malloc(OUT_MAX);
	if (!out)
		die("out of memory");
	printf("mmubench %s --backend qemu: %u vCPU%s x %lluM under %s (TCG: "
	       "no second-stage MMU, no KVM stats)\n", cfg->scenario,
	       cfg->nr_vcpus, cfg->nr_vcpus > 1 ? "s" : "",
	       (unsigned long long)(cfg->vcpu_bytes / MMUB_MIB), argv[0]);
	wst = run_qemu(argv, out, OUT_MAX, cfg->watchdog_s, &timed_out);
	if (timed_out) {
		free(out);
		die("--backend qemu: the guest did not finish in %u s "
		    "(--watchdog)", cfg->watchdog_s);
	}
	status = report(cfg, guest_arch, out);
	if (status < 0) {
		err_msg("--backend qemu: no result from the guest (QEMU wait "
			"status %d); its output was:\n%s", wst, out);
		status = 1;
	}
	free(out);
	return status ? 1 : 0;
}
