/* SPDX-License-Identifier: GPL-2.0 */
/*
 * x86_64 entries into the guest image.
 *
 * entry64:      mmubench's VMM starts every vCPU here in long mode at CPL0
 *               with paging on (tables built by the host), RDI = boot info,
 *               RSI = vCPU index, RSP = top of that vCPU's kernel stack.
 * pvh_start32:  QEMU -kernel (PVH boot, the ELF note below): 32-bit flat
 *               protected mode, paging off, EBX = hvm_start_info.
 * x86_ap_tramp: the other vCPUs of a PVH boot, from SIPI in real mode.
 *
 * Both end in x86_cpl0_init(), which drops to CPL3 where the workload runs.
 */
#include "x86.h"
#include <mmubench/version.h>

	.section .text.head, "ax"
	.code64
	.globl entry64
entry64:
	cld
	call	x86_cpl0_init
	ud2

/* CPL3 from here: RDI = boot info, RSI = vCPU, RSP = user stack top. */
	.globl x86_user_entry
x86_user_entry:
	fninit
	call	guest_main
	ud2

/*
 * From 32-bit protected mode to long mode (compatibility mode until the
 * far jump to a 64-bit CS): PAE, the page tables @cr3, EFER.LME and NXE,
 * paging.  Used by the PVH entry and by the APs.  Clobbers eax, ecx, edx.
 */
.macro long_mode_on cr3
	mov	%cr4, %eax
	or	$X86_CR4_PAE, %eax
	mov	%eax, %cr4
	mov	\cr3, %eax
	mov	%eax, %cr3
	mov	$MSR_EFER, %ecx
	rdmsr
	or	$(EFER_LME | EFER_NXE), %eax
	wrmsr
	mov	%cr0, %eax
	or	$(X86_CR0_PG | X86_CR0_PE), %eax
	mov	%eax, %cr0
.endm

	.code32
	.globl pvh_start32
pvh_start32:
	cli
	cld
	mov	%ebx, %edi
	mov	$pvh_stack_top, %esp

	/* Identity-map the first 1 GiB with 2M pages, enough to reach C. */
	mov	$pvh_pd, %edx
	xor	%ecx, %ecx
1:	mov	%ecx, %eax
	shl	$21, %eax
	or	$0x83, %eax
	mov	%eax, (%edx, %ecx, 8)
	movl	$0, 4(%edx, %ecx, 8)
	inc	%ecx
	cmp	$512, %ecx
	jne	1b
	mov	$pvh_pd, %eax
	or	$3, %eax
	mov	%eax, pvh_pdpt
	mov	$pvh_pdpt, %eax
	or	$3, %eax
	mov	%eax, pvh_pml4

	long_mode_on $pvh_pml4
	lgdt	x86_gdt_desc
	ljmp	$KERNEL_CS, $pvh_start64

	.code64
pvh_start64:
	mov	$KERNEL_DS, %eax
	mov	%eax, %ds
	mov	%eax, %es
	mov	%eax, %ss
	mov	%eax, %fs
	mov	%eax, %gs
	mov	%edi, %edi
	mov	$pvh_stack_top, %rsp
	call	pvh_main
	ud2

/*
 * Application processors of a standalone run (x86_start_aps() in
 * standalone.c).  The 16-bit part is copied to X86_AP_TRAMPOLINE, where
 * SIPI starts each AP in real mode with CS = that page; it has its own
 * GDT there, with the kernel selectors of cpu.c's GDT and a 32-bit code
 * segment, and jumps to ap_start32 in the image.
 */
#define AP_CS32		0x18
#define AP_OFF(sym)	((sym) - x86_ap_tramp)

	.code16
	.align 16
	.globl x86_ap_tramp, x86_ap_tramp_end
x86_ap_tramp:
	cli
	mov	%cs, %ax
	mov	%ax, %ds
	lgdtl	AP_OFF(ap_gdt_desc)
	mov	%cr0, %eax
	or	$X86_CR0_PE, %eax
	mov	%eax, %cr0
	ljmpl	$AP_CS32, $ap_start32

	.align 8
ap_gdt:
	.quad	0
	.quad	0x00af9a000000ffff	/* KERNEL_CS, 64-bit */
	.quad	0x00cf92000000ffff	/* KERNEL_DS */
	.quad	0x00cf9a000000ffff	/* AP_CS32 */
ap_gdt_desc:
	.word	ap_gdt_desc - ap_gdt - 1
	.long	X86_AP_TRAMPOLINE + AP_OFF(ap_gdt)
x86_ap_tramp_end:

	/* Long mode on the BSP's page tables, as pvh_start32 does. */
	.code32
ap_start32:
	mov	$KERNEL_DS, %eax
	mov	%eax, %ds
	mov	%eax, %es
	mov	%eax, %ss
	long_mode_on x86_ap_cr3
	ljmp	$KERNEL_CS, $ap_start64

	/*
	 * Every AP QEMU has gets here; the first nr_vcpus - 1 to take a
	 * number become vCPUs 1.., the rest stay halted.  Then the same
	 * registers as entry64: RDI = boot info, RSI = vCPU, RSP = its
	 * kernel stack top.
	 */
	.code64
ap_start64:
	mov	$KERNEL_DS, %eax
	mov	%eax, %fs
	mov	%eax, %gs
	mov	$1, %esi
	lock xadd %esi, x86_ap_next(%rip)
	cmp	x86_ap_nr(%rip), %esi
	jae	ap_park
	lea	1(%rsi), %rax
	shl	$X86_KSTACK_SHIFT, %rax
	add	x86_ap_kstack(%rip), %rax
	mov	%rax, %rsp
	mov	x86_ap_bi(%rip), %rdi
	jmp	entry64
ap_park:
	cli
	hlt
	jmp	ap_park

/* Exception stubs: push a zero error code where the CPU pushes none. */
.macro exc_stub vec, has_err
	.align 16
	.if \has_err == 0
	pushq	$0
	.endif
	pushq	$\vec
	jmp	x86_exc_common
.endm

	/* First in the image, at X86_EXC_STUBS: cpu.c's IDT is a constant. */
	.section .text.exc, "ax"
	.globl x86_exc_stubs
x86_exc_stubs:
	exc_stub 0, 0
	exc_stub 1, 0
	exc_stub 2, 0
	exc_stub 3, 0
	exc_stub 4, 0
	exc_stub 5, 0
	exc_stub 6, 0
	exc_stub 7, 0
	exc_stub 8, 1
	exc_stub 9, 0
	exc_stub 10, 1
	exc_stub 11, 1
	exc_stub 12, 1
	exc_stub 13, 1
	exc_stub 14, 1
	exc_stub 15, 0
	exc_stub 16, 0
	exc_stub 17, 1
	exc_stub 18, 0
	exc_stub 19, 0
	exc_stub 20, 0
	exc_stub 21, 1
	exc_stub 22, 0
	exc_stub 23, 0
	exc_stub 24, 0
	exc_stub 25, 0
	exc_stub 26, 0
	exc_stub 27, 0
	exc_stub 28, 0
	exc_stub 29, 1
	exc_stub 30, 1
	exc_stub 31, 0

	.section .text.head, "ax"

x86_exc_common:
	mov	%rsp, %rdi
	and	$-16, %rsp
	call	x86_exception
	ud2

	.bss
	.align 4096
pvh_pml4:
	.skip 4096
pvh_pdpt:
	.skip 4096
pvh_pd:
	.skip 4096
	.skip 16384
pvh_stack_top:

/* PVH entry point for QEMU: XEN_ELFNOTE_PHYS32_ENTRY (18). */
	.section .note.Xen, "a", @note
	.align 4
	.long	4
	.long	4
	.long	18
	.asciz	"Xen"
	.align 4
	.long	pvh_start32

/* Boot protocol version, checked by mmubench's loader. */
	.section .note.mmubench, "a", @note
	.align 4
	.long	9
	.long	4
	.long	MMUB_NOTE_VERSION
	.asciz	"mmubench"
	.align 4
	.long	MMUB_BOOT_VERSION
