/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The arm64 guest image's EFI entry (see handover.h).  guest.efi's loader
 * branches to efi_entry after ExitBootServices with x0 = struct
 * mmub_efi_handover, at EL1 with the MMU and caches on (the firmware's
 * identity map), having cleaned the image, the memory it claimed and the
 * handover to the point of coherency and invalidated the I-cache.
 *
 * Turning the MMU off here puts the CPU where QEMU -kernel leaves it for
 * virt.c, so the C part can follow virt_main(): build the tables with the
 * MMU off, then arm64_mmu_on() and arm64_el1_init().  The code runs from
 * the identity map, so the next instruction is where it was.
 */
#include "arm64.h"

	.text
	.globl efi_entry
efi_entry:
	msr	daifset, #0xf
	mov	x19, x0
	mrs	x9, sctlr_el1
	mov	x10, #(SCTLR_M | SCTLR_C)
	orr	x10, x10, #SCTLR_I
	bic	x9, x9, x10
	msr	sctlr_el1, x9
	isb
	ic	iallu
	dsb	nsh
	isb
	ldr	x9, =arm64_vectors
	msr	vbar_el1, x9
	isb
	ldr	x9, =efi_stack_top
	mov	sp, x9
	mov	x0, x19
	bl	efi_handover_main
	b	.

	.bss
	.balign	16
	.skip	16384
efi_stack_top:

/* Where the loader jumps: name "mmubench-efi", type 1, an 8-byte address. */
	.section .note.mmubench, "a", %note
	.balign	4
	.long	13
	.long	8
	.long	1
	.asciz	"mmubench-efi"
	.balign	4
	.quad	efi_entry
