// SPDX-License-Identifier: GPL-2.0
/* x86_64 under QEMU: the PVH entry, isa-debug-exit, -smp vCPUs. */
#include <string.h>
#include "util/util.h"
#include "backend/qemu.h"

void qemu_argv_x86_64(const struct vm_params *p, char **argv, int max,
		      const char *words, const char *mem, const char *smp,
		      enum qemu_x86_machine machine)
{
	static char append[600];
	int n = 0;
	char *const a[] = {
		"qemu-system-x86_64", "-M",
		machine == QEMU_X86_PC ? "pc" : "microvm",
		"-accel", "tcg", "-nodefaults",
		"-display", "none", "-no-reboot", "-monitor", "none",
		"-serial", "stdio", "-device", "isa-debug-exit,iobase=0xf4,iosize=4",
		"-m", (char *)mem, "-smp", (char *)smp, "-kernel", (char *)p->guest,
		"-append", append,
	};

	if (p->guest_page == MMUB_SZ_1G)
		die("--guest-page 1g: not offered by the x86_64 PVH entry");
	snprintf(append, sizeof(append), "%s", words);
	for (size_t i = 0; i < sizeof(a) / sizeof(*a) && n < max - 1; i++)
		argv[n++] = a[i];
	argv[n] = NULL;
}
