/* SPDX-License-Identifier: GPL-2.0 */
/* What the guest core expects from each architecture, and vice versa. */
#ifndef GUEST_GUEST_H
#define GUEST_GUEST_H

#include <mmubench/engine.h>

/* Provided by guest/arch/<arch>/, with the engine's services. */
void arch_serial_write(const char *s, size_t n);
__attribute__((noreturn)) void arch_standalone_exit(int status);

/* Provided by the core. */
__attribute__((noreturn)) void guest_main(struct mmub_boot_info *bi, u64 cpu);
void guest_console_write(const char *s, size_t n);
extern struct mmub_boot_info *guest_bi;

/* The guest's own printing of the engine's passes (QEMU, EFI). */
__attribute__((noreturn)) void engine_standalone(struct engine *e);

#endif
