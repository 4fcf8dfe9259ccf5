// SPDX-License-Identifier: GPL-2.0
/*
 * The guest's whole EL1 part on arm64 after the MMU is on: the system
 * registers EL0 needs, the drop to EL0, and the exception handler.  Like
 * the x86_64 CPL0 part it stays small and is built with
 * -mgeneral-regs-only, so the vectors never have FP/SIMD state to keep.
 */
#include <mmubench/boot.h>
#include <mmubench/pgtable.h>
#include "arm64.h"
#include "../../guest.h"

MMUB_STATIC_ASSERT(MMUB_BOOT_MAGIC_ASM == MMUB_BOOT_MAGIC);
MMUB_STATIC_ASSERT(MMUB_KSTACK_SIZE_ASM == MMUB_KSTACK_SIZE);
MMUB_STATIC_ASSERT(MMUB_ARM64_MAIR_ASM == MMUB_ARM64_MAIR);
MMUB_STATIC_ASSERT(offsetof(struct mmub_boot_info, magic) == BI_MAGIC);
MMUB_STATIC_ASSERT(offsetof(struct mmub_boot_info, kstack_gpa) ==
		   BI_KSTACK_GPA);
MMUB_STATIC_ASSERT(offsetof(struct mmub_boot_info, pgtable_root) ==
		   BI_PGTABLE_ROOT);

#define read_sysreg(r) ({						\
	u64 __v;							\
	asm volatile("mrs %0, " #r : "=r"(__v));			\
	__v;								\
})
#define write_sysreg(r, v)						\
	asm volatile("msr " #r ", %0" : : "r"((u64)(v)))

/* Exception vector index (head.S): which of the 16 entries was taken. */
/* 0 sync, 1 IRQ, 2 FIQ, 3 SError */
#define VEC_KIND(i)		((i) & 3)
#define VEC_CUR_SPX_SYNC	4
#define VEC_LOWER64_SYNC	8
/*
 * struct mmub_fault.vector on arm64: the exception class for synchronous
 * exceptions; 0x100 + the vector index for IRQ, FIQ and SError.
 */
#define FAULT_ASYNC		0x100

struct arm64_frame {
	u64 x[31];
	u64 pad;
};

/* Read by the exception handler and by secondaries, which know no other. */
struct mmub_boot_info *arm64_boot_info;
static u32 report_lock;

void *arm64_identity(void *ctx, u64 gpa)
{
	(void)ctx;
	return (void *)gpa;
}

__attribute__((noreturn))
void arm64_el1_init(struct mmub_boot_info *bi, u64 cpu)
{
	u64 ksp = bi->kstack_gpa + (cpu + 1) * MMUB_KSTACK_SIZE;
	u64 usp = bi->ustack_gpa + (cpu + 1) * MMUB_USTACK_SIZE;

	arm64_boot_info = bi;
	write_sysreg(cpacr_el1, CPACR_EL1_VALUE);
	write_sysreg(cntkctl_el1, CNTKCTL_EL1_VALUE);
	asm volatile("isb");
	if (!bi->clk_hz)
		bi->clk_hz = read_sysreg(cntfrq_el0);
	arm64_to_el0(bi, cpu, usp, ksp);
}

static u64 dcache_line(void)
{
	return 4ULL << ((read_sysreg(ctr_el0) >> 16) & 0xf);
}

/* Drop cached copies of data written with the MMU off (to memory). */
void arm64_dcache_inval(u64 start, u64 end)
{
	u64 line = dcache_line(), a;

	for (a = mmub_align_down(start, line); a < end; a += line)
		asm volatile("dc ivac, %0" : : "r"(a) : "memory");
	asm volatile("dsb sy" ::: "memory");
}

/* Push data to memory for a CPU that will read it with the MMU off. */
void arm64_dcache_clean(u64 start, u64 end)
{
	u64 line = dcache_line(), a;

	for (a = mmub_align_down(start, line); a < end; a += line)
		asm volatile("dc civac, %0" : : "r"(a) : "memory");
	asm volatile("dsb sy" ::: "memory");
}

/* EL1 console for boot errors and exceptions under QEMU: no printf here. */
static void pl011_putc(char c)
{
	volatile u32 *uart = (volatile u32 *)PL011_BASE;

	while (uart[PL011_FR / 4] & PL011_FR_TXFF)
		;
	uart[PL011_DR / 4] = (u8)c;
}

void arm64_el1_puts(const char *s)
{
	while (*s)
		pl011_putc(*s++);
}

void arm64_el1_hex(const char *name, u64 v)
{
	char buf[19];
	int i;

	arm64_el1_puts(name);
	buf[0] = '0';
	buf[1] = 'x';
	for (i = 0; i < 16; i++)
		buf[2 + i] = "0123456789abcdef"[(v >> (60 - 4 * i)) & 0xf];
	buf[18] = 0;
	arm64_el1_puts(buf);
}

static const char *class_name(u64 vector)
{
	switch (vector) {
	case 0x00: return "unknown instruction";
	case 0x07: return "FP/SIMD access trap";
	case 0x15: return "SVC";
	case 0x18: return "system register trap";
	case 0x20: return "instruction abort from EL0";
	case 0x21: return "instruction abort at EL1";
	case 0x22: return "PC alignment";
	case 0x24: return "data abort from EL0";
	case 0x25: return "data abort at EL1";
	case 0x26: return "SP alignment";
	case 0x2f: return "SError";
	case 0x3c: return "BRK";
	default: return vector >= FAULT_ASYNC ? "interrupt or SError" : "?";
	}
}

static void doorbell(u32 event)
{
	asm volatile("str %w0, [%1]"
		     : : "r"(event), "r"(MMUB_ARM64_DOORBELL_GPA) : "memory");
}

__attribute__((noreturn))
static void report_console(const struct mmub_fault *f, u64 cpu)
{
	/* Exclusives need the MMU on; before that, one CPU runs anyway. */
	if (read_sysreg(sctlr_el1) & SCTLR_M)
		while (__atomic_exchange_n(&report_lock, 1, __ATOMIC_ACQUIRE))
			asm volatile("yield");
	arm64_el1_hex("\nMMUB fault class=", f->vector);
	arm64_el1_puts(" (");
	arm64_el1_puts(class_name(f->vector));
	arm64_el1_puts(")");
	arm64_el1_hex(" esr=", f->error);
	arm64_el1_hex(" far=", f->addr);
	arm64_el1_hex(" elr=", f->pc);
	arm64_el1_hex(" spsr=", f->flags);
	arm64_el1_hex(" el=", f->cs);
	arm64_el1_hex(" cpu=", cpu);
	arm64_el1_puts("\nMMUB-EXIT status=3\n");
	arm64_el1_exit(3);
}

__attribute__((noreturn))
static void report_fault(struct arm64_frame *fr, u64 index, u64 esr)
{
	struct mmub_boot_info *bi = arm64_boot_info;
	u64 cpu = read_sysreg(tpidr_el1);
	u64 spsr = read_sysreg(spsr_el1);
	struct mmub_fault f = {
		.vector = VEC_KIND(index) ? FAULT_ASYNC + index :
					    esr >> ESR_EC_SHIFT,
		.error = esr,
		.pc = read_sysreg(elr_el1),
		.addr = read_sysreg(far_el1),
		.flags = spsr,
		.cs = (spsr >> 2) & 3,
	};
	struct mmub_mailbox *mb;

	f.sp = f.cs ? (u64)fr + sizeof(*fr) : read_sysreg(sp_el0);
	if (!bi || (bi->flags & MMUB_BOOT_STANDALONE) ||
	    cpu >= bi->nr_vcpus)
		report_console(&f, cpu);
	mb = (struct mmub_mailbox *)bi->mailbox_gpa + cpu;
	mb->fault = f;
	mmub_store_release(&mb->state, MMUB_STATE_FAULT);
	doorbell(MMUB_DB_FAULT);
	for (;;)
		asm volatile("wfi");
}

/* SVCs from EL0: the only one is "exit", for standalone runs. */
__attribute__((noreturn))
static void do_svc(struct arm64_frame *fr, u64 index, u64 esr)
{
	struct mmub_boot_info *bi = arm64_boot_info;

	if ((esr & 0xffff) != SVC_EXIT)
		report_fault(fr, index, esr);
	if (bi && !(bi->flags & MMUB_BOOT_STANDALONE))
		for (;;)
			doorbell(MMUB_DB_DONE);
	arm64_el1_exit((int)fr->x[0]);
}

__attribute__((noreturn))
void arm64_exception(struct arm64_frame *fr, u64 index);
void arm64_exception(struct arm64_frame *fr, u64 index)
{
	u64 esr = read_sysreg(esr_el1);
	u64 ec = esr >> ESR_EC_SHIFT;

	if (index == VEC_LOWER64_SYNC && ec == ESR_EC_SVC64)
		do_svc(fr, index, esr);
	/* No -semihosting: its HLT is undefined; power off instead. */
	if (index == VEC_CUR_SPX_SYNC &&
	    read_sysreg(elr_el1) == (u64)arm64_semihost_hlt)
		arm64_psci_off();
	report_fault(fr, index, esr);
}
