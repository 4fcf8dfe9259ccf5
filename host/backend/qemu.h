/* SPDX-License-Identifier: GPL-2.0 */
#ifndef HOST_BACKEND_QEMU_H
#define HOST_BACKEND_QEMU_H

#include "../mmubench.h"

/* Run cfg's scenario as a standalone guest under QEMU; exit status. */
int backend_qemu(const struct run_config *cfg);
/*
 * QEMU command lines per guest architecture, chosen by the image's ELF
 * machine: any host can run either guest under TCG.
 */
int qemu_argv_x86_64(const struct run_config *cfg, char **argv, int max,
		     const char *guest, const char *words, const char *mem,
		     const char *smp);
int qemu_argv_arm64(const struct run_config *cfg, char **argv, int max,
		    const char *guest, const char *words, const char *mem,
		    const char *smp);

#endif
