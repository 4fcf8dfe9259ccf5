/* SPDX-License-Identifier: GPL-2.0 */
/* What guest.efi's loader (loader.c) asks of each architecture. */
#ifndef GUEST_EFI_LOADER_H
#define GUEST_EFI_LOADER_H

#include <efi.h>
#include <efilib.h>
#include "handover.h"

/* e_machine of the guest image this loader carries. */
extern const u16 loader_elf_machine;

/* Where the system memory starts, as the arch's standalone entry puts it. */
u64 loader_sys_base(u64 image_start);

/* NULL, or why guest page size @page cannot be had ("page=1g: ..."). */
const char *loader_page_check(u64 page);

/* NULL, or why this CPU state cannot run the image (fatal, before boot). */
const char *loader_cpu_check(void);

/*
 * For vcpus= above 1, before ExitBootServices: what the image needs to
 * start the other CPUs (x86_64: the APs' trampoline page claimed;
 * arm64: @ho->fdt).  NULL, or why they cannot be started.  *@nr_cpus:
 * how many CPUs the firmware has, 0 if it does not say here.
 */
const char *loader_smp_prepare(struct mmub_efi_handover *ho, u32 *nr_cpus);

/* The guest clock's frequency if the image cannot read it (x86: TSC). */
u64 loader_clk_hz(void);

/*
 * After ExitBootServices: make [start, end) and @ho visible to the image
 * the way it will read them, and enter it.
 */
__attribute__((noreturn))
void loader_enter(u64 entry, struct mmub_efi_handover *ho, u64 start,
		  u64 end);

/* Stop the machine with exit status 2 where QEMU can report one. */
__attribute__((noreturn)) void loader_fail_exit(void);

#endif
