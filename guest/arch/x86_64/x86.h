/* SPDX-License-Identifier: GPL-2.0 */
/* x86_64 constants shared by the guest's assembly and C. */
#ifndef GUEST_X86_H
#define GUEST_X86_H

#define KERNEL_CS	0x08
#define KERNEL_DS	0x10
#define USER_CS		0x2b	/* GDT entry 5, RPL 3 */
#define USER_DS		0x33	/* GDT entry 6, RPL 3 */
#define TSS_SEL(cpu)	(0x40 + 16 * (cpu))

#define X86_CR0_PE	(1 << 0)
#define X86_CR0_MP	(1 << 1)
#define X86_CR0_EM	(1 << 2)
#define X86_CR0_NE	(1 << 5)
#define X86_CR0_PG	(1 << 31)
#define X86_CR4_PAE	(1 << 5)
#define X86_CR4_OSFXSR	(1 << 9)
#define X86_CR4_OSXMMEXCPT (1 << 10)
#define MSR_EFER	0xc0000080
#define EFER_LME	(1 << 8)
#define EFER_NXE	(1 << 11)

/* RFLAGS for CPL3: IOPL=3 so the workload may use OUT; interrupts off. */
#define USER_RFLAGS	0x3002

/* isa-debug-exit under QEMU: the exit status is (value << 1) | 1. */
#define QEMU_DEBUG_EXIT_PORT	0xf4
#define COM1_PORT		0x3f8

/*
 * The standalone entries start the other vCPUs in real mode at this page
 * (SIPI vector 0x08): below 1 MiB as SIPI requires, RAM in QEMU's PC
 * memory map, and left alone by the layout, which starts at the image.
 */
#define X86_AP_TRAMPOLINE	0x8000
/*
 * The exception stubs, 16 bytes each, open the image (linker/x86_64.ld
 * asserts it): with their address a constant the IDT is one too, and
 * no vCPU spends ~420 emulated CPL0 instructions building it.
 */
#define X86_EXC_STUBS		0x100000
/* log2(MMUB_KSTACK_SIZE), for the assembly that picks an AP's stack. */
#define X86_KSTACK_SHIFT	14

#endif
