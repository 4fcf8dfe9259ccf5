/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The EFI boot of the guest, and what its two halves tell each other.
 *
 * The guest image (guest.elf) is linked at a fixed physical address
 * (1 MiB on x86_64, 0x40200000 on arm64) and runs identity-mapped, with
 * CPL0/EL1 code built -mgeneral-regs-only; an EFI application is a
 * relocatable PE image that the firmware puts wherever it likes.  So
 * guest.efi is not the guest compiled a second time: it is a small loader
 * (loader.c, built with GNU-EFI) that carries the very guest.elf the VMM
 * and QEMU -kernel boot, and
 *
 *   1. reads the command line from LoadedImage->LoadOptions (UCS-2; the
 *      same key=value words as the PVH and virt entries),
 *   2. claims the image's pages at their link address with
 *      AllocatePages(AllocateAddress) and copies the PT_LOAD segments there,
 *   3. places the memory with mmub_layout_compute() like the other entries,
 *      claims the rest of the system memory after the image the same way,
 *      and the test memory at the lowest free, aligned range of the
 *      firmware's memory map,
 *   4. for vcpus=N above 1, makes sure the firmware has N CPUs and that
 *      the image can start them after boot services: x86_64 counts them
 *      with EFI_MP_SERVICES_PROTOCOL and claims the APs' real-mode
 *      trampoline page (X86_AP_TRAMPOLINE); arm64 passes the device tree
 *      from the EFI configuration table, whose /cpus and /psci the image
 *      reads as the virt entry does,
 *   5. leaves boot services and jumps to the image's EFI entry (found in
 *      the image's "mmubench-efi" note) with a struct mmub_efi_handover.
 *
 * The image's EFI entry (entry-<arch>.S, handover-<arch>.c) then does what
 * the PVH/virt entries do after they have read their configuration: its
 * own page tables with the shared builder, a standalone boot info, the
 * other vCPUs started the way those entries start them (INIT/SIPI, PSCI
 * CPU_ON), and the architecture's drop to user mode.  Whatever the
 * loader found wrong with the command line it passes in @error, and the
 * image reports it ("MMUB error: ...") and exits with status 2 the same
 * way the other standalone entries do, so a bad word ends a firmware run
 * like a QEMU -kernel run.
 *
 * Both halves are built from one tree and the loader carries its image,
 * so this structure needs no compatibility rules beyond the magic and size.
 */
#ifndef GUEST_EFI_HANDOVER_H
#define GUEST_EFI_HANDOVER_H

#include <mmubench/boot.h>

/* ELF note in guest.elf: desc is the u64 address of the EFI entry. */
#define MMUB_EFI_NOTE_NAME	"mmubench-efi"
#define MMUB_EFI_NOTE_ENTRY	1

#define MMUB_EFI_MAGIC		0x4946452d42554d4dULL	/* "MMUB-EFI" */
#define MMUB_EFI_ERROR_LEN	192

struct mmub_efi_handover {
	u64 magic;
	u32 size;		/* sizeof(struct mmub_efi_handover) */
	u32 reserved0;
	u64 clk_hz;		/* x86_64: TSC Hz; arm64: 0 (CNTFRQ_EL0) */
	u64 owned_end;		/* loader claimed [layout.image_start, this) */
	u64 fdt;		/* arm64: the firmware's device tree, or 0 */
	struct mmub_layout layout;	/* valid if !error[0] */
	struct mmub_workload wl;
	char error[MMUB_EFI_ERROR_LEN];	/* "what: detail", or "" */
};

#endif
