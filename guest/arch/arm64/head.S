/* SPDX-License-Identifier: GPL-2.0 */
/*
 * arm64 entries into the guest image.  Every CPU arrives at EL1 with the
 * MMU off.
 *
 * arm64_entry (e_entry, 0x40200000) is reached two ways:
 *   - mmubench's VMM starts every vCPU here with x0 = boot info and
 *     x1 = vCPU index.  The boot info sits below the image (the layout
 *     puts it at sys_base + 0x1000, the image is at sys_base + 2M) and
 *     starts with MMUB_BOOT_MAGIC.
 *   - QEMU -M virt -kernel guest.elf starts CPU 0 here with x0 = 0 (QEMU
 *     7.2 passes nothing to an ELF image; the device tree is at the start
 *     of RAM), or the device tree's address: never the magic, which is
 *     how the two are told apart.  The other CPUs stay off until CPU 0
 *     turns them on with PSCI CPU_ON at arm64_secondary_entry.
 *
 * All paths meet in boot_common: the vCPU's kernel stack, the MMU on with
 * the tables at bi->pgtable_root, then arm64_el1_init(), which drops to
 * EL0 where the workload runs (like CPL3 on x86_64).
 */
#include "arm64.h"
#include <mmubench/version.h>

	.section .text.head, "ax"
	.globl arm64_entry
arm64_entry:
	msr	daifset, #0xf
	ldr	x9, =arm64_vectors
	msr	vbar_el1, x9
	isb
	/* The VMM's boot info: 8-aligned, in the 2M below the image. */
	ldr	x9, =__image_start
	sub	x10, x9, #ARM64_IMAGE_OFFSET
	cmp	x0, x10
	b.lo	1f
	cmp	x0, x9
	b.hs	1f
	tst	x0, #7
	b.ne	1f
	ldr	x10, [x0, #BI_MAGIC]
	ldr	x11, =MMUB_BOOT_MAGIC_ASM
	cmp	x10, x11
	b.eq	boot_common
1:	/* QEMU: x0 may point at the device tree. */
	ldr	x9, =arm64_boot_stack_top
	mov	sp, x9
	bl	virt_main
	b	.

/* Standalone secondary CPUs (PSCI CPU_ON): x0 = the index CPU 0 gave. */
	.globl arm64_secondary_entry
arm64_secondary_entry:
	msr	daifset, #0xf
	ldr	x9, =arm64_vectors
	msr	vbar_el1, x9
	isb
	mov	x1, x0
	ldr	x0, =arm64_boot_info
	ldr	x0, [x0]
	b	boot_common

/* x0 = boot info, x1 = vCPU index, MMU off. */
boot_common:
	mov	x19, x0
	mov	x20, x1
	msr	tpidr_el1, x20
	ldr	x9, [x19, #BI_KSTACK_GPA]
	add	x10, x20, #1
	mov	x11, #MMUB_KSTACK_SIZE_ASM
	madd	x9, x10, x11, x9
	mov	sp, x9
	ldr	x0, [x19, #BI_PGTABLE_ROOT]
	bl	arm64_mmu_on
	mov	x0, x19
	mov	x1, x20
	bl	arm64_el1_init
	b	.

/*
 * arm64_mmu_on(root): attributes, translation control and TTBR0, then
 * MMU and caches on.  The code runs from an identity map, so the next
 * instruction is where it was.
 */
	.text
	.globl arm64_mmu_on
arm64_mmu_on:
	ldr	x1, =MMUB_ARM64_MAIR_ASM
	msr	mair_el1, x1
	mrs	x2, id_aa64mmfr0_el1
	and	x2, x2, #0xf
	mov	x3, #PARANGE_48
	cmp	x2, x3
	csel	x2, x2, x3, ls
	ldr	x1, =TCR_EL1_BASE
	orr	x1, x1, x2, lsl #TCR_IPS_SHIFT
	msr	tcr_el1, x1
	msr	ttbr0_el1, x0
	isb
	tlbi	vmalle1
	dsb	nsh
	isb
	ldr	x1, =SCTLR_EL1_VALUE
	msr	sctlr_el1, x1
	isb
	ic	iallu
	dsb	nsh
	isb
	ret

/* arm64_to_el0(bi, cpu, user_sp, kernel_sp): ERET to arm64_user_entry. */
	.globl arm64_to_el0
arm64_to_el0:
	msr	sp_el0, x2
	mov	sp, x3
	ldr	x9, =arm64_user_entry
	msr	elr_el1, x9
	mov	x9, #SPSR_EL0T_MASKED
	msr	spsr_el1, x9
	mov	x29, #0
	mov	x30, #0
	eret

/* EL0 from here: x0 = boot info, x1 = vCPU, SP = user stack top. */
arm64_user_entry:
	bl	guest_main
	brk	#0

/*
 * arm64_el1_exit(status): end a standalone run.  Semihosting's
 * SYS_EXIT_EXTENDED makes QEMU exit with @status.  Without -semihosting
 * the HLT is undefined; the exception handler recognises its address and
 * comes to arm64_psci_off instead (QEMU then exits 0: the console's
 * "MMUB-EXIT status=N" line still says how the run ended).
 */
	.globl arm64_el1_exit
arm64_el1_exit:
	sub	sp, sp, #16
	ldr	x9, =SEMIHOST_ADP_STOPPED_APP_EXIT
	sxtw	x10, w0
	stp	x9, x10, [sp]
	mov	w0, #SEMIHOST_SYS_EXIT_EXTENDED
	mov	x1, sp
	.globl arm64_semihost_hlt
arm64_semihost_hlt:
	hlt	#0xf000
	.globl arm64_psci_off
arm64_psci_off:
	ldr	x0, =PSCI_SYSTEM_OFF
	hvc	#0
2:	wfi
	b	2b

/*
 * Exception vectors: every entry saves x0-x30 and calls
 * arm64_exception(frame, index) on SP_EL1 (the vCPU's kernel stack).
 * Nothing returns: an SVC from EL0 asks for exit, anything else is a
 * fault that is reported and ends the run.
 */
#define FRAME_SIZE	256

.macro vector index
	.balign	0x80
	sub	sp, sp, #FRAME_SIZE
	stp	x0, x1, [sp, #0]
	mov	x0, #\index
	b	exc_common
.endm

	.balign	0x800
	.globl arm64_vectors
arm64_vectors:
	vector	0
	vector	1
	vector	2
	vector	3
	vector	4
	vector	5
	vector	6
	vector	7
	vector	8
	vector	9
	vector	10
	vector	11
	vector	12
	vector	13
	vector	14
	vector	15

exc_common:
	stp	x2, x3, [sp, #16]
	stp	x4, x5, [sp, #32]
	stp	x6, x7, [sp, #48]
	stp	x8, x9, [sp, #64]
	stp	x10, x11, [sp, #80]
	stp	x12, x13, [sp, #96]
	stp	x14, x15, [sp, #112]
	stp	x16, x17, [sp, #128]
	stp	x18, x19, [sp, #144]
	stp	x20, x21, [sp, #160]
	stp	x22, x23, [sp, #176]
	stp	x24, x25, [sp, #192]
	stp	x26, x27, [sp, #208]
	stp	x28, x29, [sp, #224]
	str	x30, [sp, #240]
	mov	x1, x0
	mov	x0, sp
	mov	x29, #0
	bl	arm64_exception
	b	.

	.bss
	.balign	16
	.skip	16384
arm64_boot_stack_top:

/* Boot protocol version, checked by mmubench's loader. */
	.section .note.mmubench, "a", %note
	.balign	4
	.long	9
	.long	4
	.long	MMUB_NOTE_VERSION
	.asciz	"mmubench"
	.balign	4
	.long	MMUB_BOOT_VERSION
