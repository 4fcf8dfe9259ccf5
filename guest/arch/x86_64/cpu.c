// SPDX-License-Identifier: GPL-2.0
/*
 * The guest's whole CPL0 part on x86_64: descriptor tables, the exception
 * handler, and the drop to CPL3.  On hosts whose hypervisor emulates guest
 * CPL0 one instruction at a time this code is ~1000x slower than at CPL3,
 * so it stays small, and it is built with -mgeneral-regs-only because SSE
 * at CPL0 is not allowed there.
 */
#include <mmubench/boot.h>
#include "x86.h"
#include "svm.h"
#include "../../guest.h"

struct x86_tss {
	u32 reserved0;
	u64 rsp[3];
	u64 reserved1;
	u64 ist[7];
	u64 reserved2;
	u16 reserved3;
	u16 iopb;
} __attribute__((packed));

struct x86_desc_ptr {
	u16 limit;
	u64 base;
} __attribute__((packed));

#define GDT_TSS_FIRST	8
#define GDT_ENTRIES	(GDT_TSS_FIRST + 2 * MMUB_MAX_VCPUS)

static u64 x86_gdt[GDT_ENTRIES] __attribute__((aligned(16))) = {
	[1] = 0x00af9a000000ffffULL,	/* kernel code, 64-bit */
	[2] = 0x00cf92000000ffffULL,	/* kernel data */
	[5] = 0x00affa000000ffffULL,	/* user code, 64-bit, DPL3 */
	[6] = 0x00cff2000000ffffULL,	/* user data, DPL3 */
};

struct x86_desc_ptr x86_gdt_desc = {
	.limit = sizeof(x86_gdt) - 1,
	.base = (u64)x86_gdt,
};

/*
 * An interrupt gate to exception stub @v, at CPL0.  The stubs are below
 * 4 GiB, so the gate's upper half (offset 63:32) is zero.
 */
#define IDT_STUB(v)	((u64)X86_EXC_STUBS + 16 * (v))
#define IDT_GATE(v)	[2 * (v)] = (IDT_STUB(v) & 0xffff) |		\
			((u64)KERNEL_CS << 16) | (0x8eULL << 40) |	\
			((IDT_STUB(v) >> 16 & 0xffff) << 48)
#define IDT_GATES4(v)	IDT_GATE(v), IDT_GATE((v) + 1),			\
			IDT_GATE((v) + 2), IDT_GATE((v) + 3)
#define IDT_GATES16(v)	IDT_GATES4(v), IDT_GATES4((v) + 4),		\
			IDT_GATES4((v) + 8), IDT_GATES4((v) + 12)

_Static_assert(IDT_STUB(31) < 1ULL << 32, "the IDT's upper halves are 0");

static const u64 x86_idt[2 * 32] __attribute__((aligned(16))) = {
	IDT_GATES16(0), IDT_GATES16(16),
};
static struct x86_tss x86_tss[MMUB_MAX_VCPUS] __attribute__((aligned(16)));
extern char x86_user_entry[];

/* Read by the exception handler, which has no other way to find it. */
struct mmub_boot_info *x86_boot_info;

static void set_tss_desc(u32 cpu)
{
	u64 base = (u64)&x86_tss[cpu];
	u64 limit = sizeof(struct x86_tss) - 1;
	u32 i = GDT_TSS_FIRST + 2 * cpu;

	x86_gdt[i] = (limit & 0xffff) | ((base & 0xffffff) << 16) |
		     (0x89ULL << 40) | (((limit >> 16) & 0xf) << 48) |
		     (((base >> 24) & 0xff) << 56);
	x86_gdt[i + 1] = base >> 32;
}

static void enable_sse(void)
{
	u64 cr0, cr4;

	asm volatile("mov %%cr0, %0" : "=r"(cr0));
	asm volatile("mov %%cr4, %0" : "=r"(cr4));
	/* Write only when needed: each write may be an exit. */
	if ((cr0 & (X86_CR0_EM | X86_CR0_MP | X86_CR0_NE)) !=
	    (X86_CR0_MP | X86_CR0_NE)) {
		cr0 = (cr0 & ~(u64)X86_CR0_EM) | X86_CR0_MP | X86_CR0_NE;
		asm volatile("mov %0, %%cr0" : : "r"(cr0));
	}
	if ((cr4 & (X86_CR4_OSFXSR | X86_CR4_OSXMMEXCPT)) !=
	    (X86_CR4_OSFXSR | X86_CR4_OSXMMEXCPT)) {
		cr4 |= X86_CR4_OSFXSR | X86_CR4_OSXMMEXCPT;
		asm volatile("mov %0, %%cr4" : : "r"(cr4));
	}
}

__attribute__((noreturn))
void x86_cpl0_init(struct mmub_boot_info *bi, u64 cpu)
{
	struct x86_desc_ptr idt = { sizeof(x86_idt) - 1, (u64)x86_idt };
	u64 kstack = bi->kstack_gpa + (cpu + 1) * MMUB_KSTACK_SIZE;
	u64 ustack = bi->ustack_gpa + (cpu + 1) * MMUB_USTACK_SIZE;

	x86_boot_info = bi;
	x86_tss[cpu].rsp[0] = kstack;
	x86_tss[cpu].iopb = sizeof(struct x86_tss);
	set_tss_desc((u32)cpu);
	enable_sse();
	asm volatile("lgdt %0" : : "m"(x86_gdt_desc));
	asm volatile("lidt %0" : : "m"(idt));
	asm volatile("ltr %w0" : : "r"(TSS_SEL(cpu)));
	if (bi->flags & MMUB_BOOT_NESTED)
		x86_nested_start(bi, cpu);

	asm volatile("push %[ss]\n\t"
		     "push %[usp]\n\t"
		     "push %[fl]\n\t"
		     "push %[cs]\n\t"
		     "push %[ip]\n\t"
		     "iretq"
		     :
		     : [ss] "i"(USER_DS), [usp] "r"(ustack),
		       [fl] "i"(USER_RFLAGS), [cs] "i"(USER_CS),
		       [ip] "r"(x86_user_entry), "D"(bi), "S"(cpu)
		     : "memory");
	__builtin_unreachable();
}

struct x86_exc_frame {
	u64 vector;
	u64 error;
	u64 rip;
	u64 cs;
	u64 rflags;
	u64 rsp;
	u64 ss;
};

static u32 this_cpu(void)
{
	u16 tr;

	asm volatile("str %0" : "=r"(tr));
	return (u32)(tr - TSS_SEL(0)) / 16;
}

/* CPL0 console for exceptions under QEMU: no printf here. */
static void serial_puts(const char *s)
{
	while (*s)
		asm volatile("outb %b0, %w1" : : "a"(*s++), "Nd"(COM1_PORT));
}

static void serial_hex(const char *name, u64 v)
{
	char buf[20];
	int i;

	serial_puts(name);
	buf[0] = '0';
	buf[1] = 'x';
	for (i = 0; i < 16; i++)
		buf[2 + i] = "0123456789abcdef"[(v >> (60 - 4 * i)) & 0xf];
	buf[18] = 0;
	serial_puts(buf);
}

__attribute__((noreturn))
void x86_exception(struct x86_exc_frame *f)
{
	struct mmub_boot_info *bi = x86_boot_info;
	u32 cpu = this_cpu();
	struct mmub_mailbox *mb;
	u64 cr2;

	asm volatile("mov %%cr2, %0" : "=r"(cr2));
	if (!bi || (bi->flags & MMUB_BOOT_STANDALONE)) {
		serial_hex("\nMMUB fault vector=", f->vector);
		serial_hex(" rip=", f->rip);
		serial_hex(" cr2=", cr2);
		serial_hex(" error=", f->error);
		serial_hex(" cs=", f->cs);
		serial_puts("\nMMUB-EXIT status=3\n");
		asm volatile("outl %0, %w1" : : "a"(3), "Nd"(QEMU_DEBUG_EXIT_PORT));
	} else {
		mb = (struct mmub_mailbox *)bi->mailbox_gpa + cpu;
		mb->fault.vector = f->vector;
		mb->fault.error = f->error;
		mb->fault.pc = f->rip;
		mb->fault.addr = cr2;
		mb->fault.sp = f->rsp;
		mb->fault.flags = f->rflags;
		mb->fault.cs = f->cs;
		mmub_store_release(&mb->state, MMUB_STATE_FAULT);
		asm volatile("movl %0, (%1)"
			     : : "r"(MMUB_DB_FAULT),
			       "r"(MMUB_X86_DOORBELL_GPA) : "memory");
	}
	for (;;)
		asm volatile("cli; hlt");
}
