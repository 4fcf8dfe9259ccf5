// SPDX-License-Identifier: GPL-2.0
/* arm64 under QEMU: -M virt, semihosting for the exit status, SMP. */
#include <string.h>
#include "util/util.h"
#include "backend/qemu.h"

void qemu_argv_arm64(const struct vm_params *p, char **argv, int max,
		     const char *words, const char *mem, const char *smp)
{
	static char append[600];
	int n = 0;
	char *const a[] = {
		"qemu-system-aarch64", "-M", "virt", "-cpu", "max", "-accel",
		"tcg", "-nodefaults", "-display", "none", "-no-reboot",
		"-monitor", "none", "-serial", "stdio", "-semihosting",
		"-m", (char *)mem, "-smp", (char *)smp, "-kernel", (char *)p->guest,
		"-append", append,
	};

	(void)p;
	snprintf(append, sizeof(append), "%s", words);
	for (size_t i = 0; i < sizeof(a) / sizeof(*a) && n < max - 1; i++)
		argv[n++] = a[i];
	argv[n] = NULL;
}
