// SPDX-License-Identifier: GPL-2.0
/*
 * kvm-hold: create one KVM VM and keep it for the rest of the boot.
 *
 * The x86_64 L1's /init (ci/nested/mkinitramfs.sh) runs it before the
 * command.  KVM's first VM turns the kernel's preempt_notifier_key on and
 * its last one off, and each turn rewrites a jump label in __schedule
 * (text_poke_bp) while every CPU runs it.  Under QEMU 7.2's multi-threaded
 * TCG a CPU can go on executing the breakpoint of that rewrite after the
 * site is restored in memory: the kernel sees no int3 there, steps back
 * onto the site, and the CPU loops with interrupts off for good
 * (ci/README.md, "Nested QEMU failures").  With this VM alive the key
 * stays on and __schedule is written once, at boot.  The VM has no vCPU
 * and no memory: no measured VM shares anything with it.
 *
 * The parent returns once the VM exists; a child keeps it.
 */
#include <fcntl.h>
#include <linux/kvm.h>
#include <stdio.h>
#include <sys/ioctl.h>
#include <unistd.h>

int main(void)
{
	int kvm = open("/dev/kvm", O_RDWR | O_CLOEXEC);
	pid_t pid;

	if (kvm < 0) {
		perror("kvm-hold: /dev/kvm");
		return 1;
	}
	if (ioctl(kvm, KVM_CREATE_VM, 0) < 0) {
		perror("kvm-hold: KVM_CREATE_VM");
		return 1;
	}
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
