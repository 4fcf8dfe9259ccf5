/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The x86_64 guest image's EFI entry (see handover.h).  guest.efi's loader
 * calls efi_entry after ExitBootServices as a SysV function:
 * RDI = struct mmub_efi_handover, long mode at CPL0, paging on with the
 * firmware's identity map, the firmware's GDT and stack.
 *
 * It takes the image's own stack and GDT (the firmware's live in memory
 * that is free now) and continues in C, which ends in x86_cpl0_init().
 */
#include "x86.h"

	.text
	.code64
	.globl efi_entry
efi_entry:
	cli
	cld
	mov	$efi_stack_top, %rsp
	lgdt	x86_gdt_desc
	pushq	$KERNEL_CS
	leaq	1f(%rip), %rax
	pushq	%rax
	lretq
1:	mov	$KERNEL_DS, %eax
	mov	%eax, %ds
	mov	%eax, %es
	mov	%eax, %ss
	mov	%eax, %fs
	mov	%eax, %gs
	call	efi_handover_main
	ud2

	.bss
	.align 16
	.skip 16384
efi_stack_top:

/* Where the loader jumps: name "mmubench-efi", type 1, an 8-byte address. */
	.section .note.mmubench, "a", @note
	.align 4
	.long	13
	.long	8
	.long	1
	.asciz	"mmubench-efi"
	.align 4
	.quad	efi_entry
