// SPDX-License-Identifier: GPL-2.0
/*
 * kvm-hold: keep, for the rest of the boot, one KVM VM, a kprobe on each
 * function named on the command line, and sched_switch's tracepoint on.
 *
 * The x86_64 L1's /init (lib/nested/mkinitramfs.sh) runs it before the
 * command.  Under QEMU 7.2's multi-threaded TCG a CPU can go on executing
 * the int3 of a text_poke_bp() rewrite after the site is restored in
 * memory: the kernel finds no int3 there, steps back onto the site, and
 * the CPU loops with interrupts off for good (docs/findings/nested-qemu-failures.md;
 * docs/quirks.md).  Three things rewrite hot kernel text while every CPU runs it:
 *
 * - KVM's first VM turns preempt_notifier_key on and its last one off,
 *   a jump label in __schedule; the first vCPU of a VM without an
 *   in-kernel irqchip (mmubench's) turns kvm_has_noapic_vcpu on, about
 *   90 sites all over KVM, and the last one off.  With this VM and its
 *   vCPU alive both stay on.  The vCPU never runs and the VM has no
 *   memory: no measured VM shares anything with them.
 * - mmubench's kprobes (host/kvm/probes.c) sit on ftrace call sites,
 *   which each run turns from a nop to a call and back.  A kprobe placed
 *   where one already is joins it, and the site is not written again: so
 *   each function mmubench probes keeps one here, a perf kprobe counting
 *   on CPU 0, which nothing reads (the command runs on the other CPUs,
 *   but on CPU 0 itself when --clock icount gives the L1 one CPU).
 * - Enabling those kprobes' events starts ftrace's recording of task
 *   names, which hooks sched_switch: its tracepoint's key in __schedule
 *   turns on, or its static call is repatched, and turns back when the
 *   run ends.  An instance of our own with sched_switch enabled (its
 *   buffer off) keeps two functions on the tracepoint and the recording
 *   started, so a run's only add to counts.
 *
 * A function this kernel lacks is said on stderr and skipped, as mmubench
 * skips its probe.  The parent returns once all are in place; a child
 * keeps the VM, its vCPU and the perf events; the instance stays on its
 * own.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/kvm.h>
#include <linux/perf_event.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#define HOLD_INSTANCE "/sys/kernel/tracing/instances/kvm-hold"

static int write_file(const char *path, const char *text)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return -1;
	n = write(fd, text, strlen(text));
	close(fd);
	return n == (ssize_t)strlen(text) ? 0 : -1;
}

/* sched_switch on, in an instance whose buffer records nothing. */
static void hold_sched_switch(void)
{
	if ((mkdir(HOLD_INSTANCE, 0755) && errno != EEXIST) ||
	    write_file(HOLD_INSTANCE "/tracing_on", "0") ||
	    write_file(HOLD_INSTANCE "/events/sched/sched_switch/enable", "1"))
		fprintf(stderr, "kvm-hold: sched_switch in " HOLD_INSTANCE ": %m\n");
}

/* The kprobe PMU's type, from sysfs; -1 without one. */
static int kprobe_pmu(void)
{
	FILE *f = fopen("/sys/bus/event_source/devices/kprobe/type", "r");
	int type = -1;

	if (!f)
		return -1;
	if (fscanf(f, "%d", &type) != 1)
		type = -1;
	fclose(f);
	return type;
}

static int hold_kprobe(int type, const char *func)
{
	struct perf_event_attr attr;

	memset(&attr, 0, sizeof(attr));
	attr.size = sizeof(attr);
	attr.type = type;
	attr.config1 = (uintptr_t)func;		/* kprobe_func */
	return syscall(SYS_perf_event_open, &attr, -1, 0, -1, PERF_FLAG_FD_CLOEXEC);
}

int main(int argc, char **argv)
{
	int kvm = open("/dev/kvm", O_RDWR | O_CLOEXEC);
	int type = argc > 1 ? kprobe_pmu() : -1;
	int vm;
	pid_t pid;

	if (kvm < 0) {
		perror("kvm-hold: /dev/kvm");
		return 1;
	}
	vm = ioctl(kvm, KVM_CREATE_VM, 0);
	if (vm < 0) {
		perror("kvm-hold: KVM_CREATE_VM");
		return 1;
	}
	if (ioctl(vm, KVM_CREATE_VCPU, 0) < 0) {
		perror("kvm-hold: KVM_CREATE_VCPU");
		return 1;
	}
	if (argc > 1 && type < 0)
		fprintf(stderr, "kvm-hold: no kprobe PMU in sysfs: no kprobe held\n");
	for (int i = 1; type >= 0 && i < argc; i++)
		if (hold_kprobe(type, argv[i]) < 0)
			fprintf(stderr, "kvm-hold: kprobe on %s: %m (skipped)\n", argv[i]);
	hold_sched_switch();
	pid = fork();
	if (pid < 0) {
		perror("kvm-hold: fork");
		return 1;
	}
	if (pid > 0)
		return 0;
	for (;;)
		pause();
}
