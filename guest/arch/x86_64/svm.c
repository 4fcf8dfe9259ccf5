// SPDX-License-Identifier: GPL-2.0
/*
 * --nested-guest (MMUB_BOOT_NESTED): the guest is a hypervisor.  Each
 * vCPU enables SVM and runs, in an L2 of its own, what it would have run
 * at CPL3: the same page tables, descriptor tables, TSS and stacks, from
 * x86_user_entry.  The host built the nested page table: the guest's
 * memory 1:1, the test memory at --l2-page.  So every access of the L2
 * to the test memory goes through KVM's shadow of that table, the shadow
 * MMU, where the same access at L1 goes through the TDP MMU.
 *
 * The L2 never exits on purpose: its mailbox is memory, its doorbell a
 * store to an address no memslot backs, which KVM takes to the VMM from
 * the L2 as from L1.  An exit to here is reported as a fault.
 *
 * VMCB offsets: AMD64 Architecture Programmer's Manual, volume 2,
 * appendix B.  Built with -mgeneral-regs-only, as all CPL0 code here.
 */
#include <mmubench/boot.h>
#include "x86.h"
#include "svm.h"
#include "../../guest.h"

#define MSR_VM_HSAVE_PA		0xc0010117
#define EFER_SVME		(1ULL << 12)
#define INTERCEPT1_SHUTDOWN	(1U << 31)
#define INTERCEPT2_VMRUN	(1U << 0)
#define NP_ENABLE		(1ULL << 0)
#define TLB_FLUSH_ALL		1
#define PAT_DEFAULT		0x0007040600070406ULL

struct vmcb_seg {
	u16 sel;
	u16 attrib;	/* descriptor bits 40-47 and 52-55 */
	u32 limit;
	u64 base;
} __attribute__((packed));

struct vmcb {
	u32 intercept_cr;		/* 0x000: the control area */
	u32 intercept_dr;
	u32 intercept_exc;
	u32 intercept1;
	u32 intercept2;			/* 0x010 */
	u8 pad0[0x40 - 0x14];
	u64 iopm_pa;			/* 0x040 */
	u64 msrpm_pa;
	u64 tsc_offset;
	u32 asid;			/* 0x058 */
	u8 tlb_ctl;
	u8 pad1[3];
	u64 vintr;			/* 0x060 */
	u64 int_state;
	u64 exit_code;			/* 0x070 */
	u64 exit_info1;
	u64 exit_info2;
	u64 exit_int_info;
	u64 np_ctl;			/* 0x090 */
	u8 pad2[0xb0 - 0x98];
	u64 ncr3;			/* 0x0b0 */
	u8 pad3[0x400 - 0xb8];
	/* 0x400: the save area */
	struct vmcb_seg es, cs, ss, ds, fs, gs;
	struct vmcb_seg gdtr, ldtr, idtr, tr;
	u8 pad4[0x4cb - 0x4a0];
	u8 cpl;				/* 0x4cb */
	u32 pad5;
	u64 efer;			/* 0x4d0 */
	u8 pad6[0x548 - 0x4d8];
	u64 cr4;			/* 0x548 */
	u64 cr3;
	u64 cr0;
	u64 dr7;
	u64 dr6;
	u64 rflags;
	u64 rip;			/* 0x578 */
	u8 pad7[0x5d8 - 0x580];
	u64 rsp;			/* 0x5d8 */
	u8 pad8[0x5f8 - 0x5e0];
	u64 rax;			/* 0x5f8 */
	u8 pad9[0x668 - 0x600];
	u64 g_pat;			/* 0x668 */
	u8 pad10[0x1000 - 0x670];
} __attribute__((packed));

_Static_assert(__builtin_offsetof(struct vmcb, exit_code) == 0x70, "VMCB");
_Static_assert(__builtin_offsetof(struct vmcb, ncr3) == 0xb0, "VMCB");
_Static_assert(__builtin_offsetof(struct vmcb, tr) == 0x490, "VMCB");
_Static_assert(__builtin_offsetof(struct vmcb, cpl) == 0x4cb, "VMCB");
_Static_assert(__builtin_offsetof(struct vmcb, efer) == 0x4d0, "VMCB");
_Static_assert(__builtin_offsetof(struct vmcb, rip) == 0x578, "VMCB");
_Static_assert(__builtin_offsetof(struct vmcb, rax) == 0x5f8, "VMCB");
_Static_assert(__builtin_offsetof(struct vmcb, g_pat) == 0x668, "VMCB");
_Static_assert(sizeof(struct vmcb) == MMUB_SZ_4K, "VMCB");

/* A vCPU's part of the nested area: its VMCB, host save area, L1 stack. */
struct nested_vcpu {
	struct vmcb vmcb;
	u8 hsave[MMUB_SZ_4K];
	u8 stack[MMUB_SZ_4K];
};

_Static_assert(sizeof(struct nested_vcpu) == MMUB_NESTED_VCPU_SIZE,
	       "boot.h's size of a vCPU's nested area");

struct desc_ptr {
	u16 limit;
	u64 base;
} __attribute__((packed));

extern char x86_user_entry[];

static u64 rdmsr(u32 msr)
{
	u32 lo, hi;

	asm volatile("rdmsr" : "=a"(lo), "=d"(hi) : "c"(msr));
	return (u64)hi << 32 | lo;
}

static void wrmsr(u32 msr, u64 v)
{
	asm volatile("wrmsr" : : "c"(msr), "a"((u32)v), "d"((u32)(v >> 32)));
}

static void flat_seg(struct vmcb_seg *s, u16 sel, u16 attrib)
{
	s->sel = sel;
	s->attrib = attrib;
	s->limit = 0xffffffff;
	s->base = 0;
}

/* The L2 starts where the drop to CPL3 would have gone (cpu.c). */
static void vmcb_init(struct vmcb *v, const struct mmub_boot_info *bi,
		      u64 cpu)
{
	struct desc_ptr gdt, idt;
	u64 cr;

	v->intercept1 = INTERCEPT1_SHUTDOWN;
	v->intercept2 = INTERCEPT2_VMRUN;
	v->asid = 1;
	v->tlb_ctl = TLB_FLUSH_ALL;
	v->np_ctl = NP_ENABLE;
	v->ncr3 = bi->npt_root;

	asm volatile("sgdt %0" : "=m"(gdt));
	asm volatile("sidt %0" : "=m"(idt));
	v->gdtr.base = gdt.base;
	v->gdtr.limit = gdt.limit;
	v->idtr.base = idt.base;
	v->idtr.limit = idt.limit;
	/* The GDT's user code (64-bit, DPL3) and data entries. */
	flat_seg(&v->cs, USER_CS, 0xafa);
	flat_seg(&v->ss, USER_DS, 0xcf2);
	flat_seg(&v->ds, USER_DS, 0xcf2);
	flat_seg(&v->es, USER_DS, 0xcf2);
	v->cpl = 3;
	v->efer = rdmsr(MSR_EFER);
	asm volatile("mov %%cr0, %0" : "=r"(cr));
	v->cr0 = cr;
	asm volatile("mov %%cr3, %0" : "=r"(cr));
	v->cr3 = cr;
	asm volatile("mov %%cr4, %0" : "=r"(cr));
	v->cr4 = cr;
	v->dr7 = 0x400;
	v->dr6 = 0xffff0ff0;
	v->rflags = USER_RFLAGS;
	v->rip = (u64)x86_user_entry;
	v->rsp = bi->ustack_gpa + (cpu + 1) * MMUB_USTACK_SIZE;
	v->g_pat = PAT_DEFAULT;
}

/* What the L2 exited with, for the host to print; then stop here. */
__attribute__((noreturn))
static void report_exit(const struct mmub_boot_info *bi, u64 cpu,
			const struct vmcb *v)
{
	struct mmub_mailbox *mb = (struct mmub_mailbox *)bi->mailbox_gpa + cpu;

	mb->fault.kind = MMUB_FAULT_L2_EXIT;
	mb->fault.vector = v->exit_code;
	mb->fault.error = v->exit_info1;
	mb->fault.addr = v->exit_info2;
	mb->fault.pc = v->rip;
	mb->fault.sp = v->rsp;
	mb->fault.flags = v->rflags;
	mb->fault.cs = v->cs.sel;
	mmub_store_release(&mb->state, MMUB_STATE_FAULT);
	asm volatile("movl %0, (%1)"
		     : : "r"(MMUB_DB_FAULT), "r"(MMUB_X86_DOORBELL_GPA)
		     : "memory");
	for (;;)
		asm volatile("cli; hlt");
}

/*
 * On the vCPU's L1 stack (x86_nested_start): the L2's exceptions take
 * the TSS's RSP0, the top of the kernel stack this vCPU came in on.
 * VMRUN switches only RAX, RSP, RIP and the control state: the L2 starts
 * with these general registers (RDI the boot info, RSI the vCPU), and
 * leaves its own in them, so every one is saved or clobbered here.
 * VMSAVE first puts this vCPU's FS, GS, TR and LDTR into the VMCB, for
 * VMLOAD to give the L2 the same.
 */
__attribute__((noreturn))
void x86_nested_run(struct mmub_boot_info *bi, u64 cpu)
{
	struct nested_vcpu *n = (struct nested_vcpu *)bi->nested_gpa + cpu;
	u64 pa = (u64)&n->vmcb, rdi = (u64)bi, rsi = cpu;

	wrmsr(MSR_EFER, rdmsr(MSR_EFER) | EFER_SVME);
	wrmsr(MSR_VM_HSAVE_PA, (u64)n->hsave);
	vmcb_init(&n->vmcb, bi, cpu);
	asm volatile("vmsave %%rax" : : "a"(pa) : "memory");
	asm volatile("push %%rbp\n\t"
		     "vmload %%rax\n\t"
		     "vmrun %%rax\n\t"
		     "pop %%rbp"
		     : "+a"(pa), "+D"(rdi), "+S"(rsi)
		     :
		     : "rbx", "rcx", "rdx", "r8", "r9", "r10", "r11", "r12",
		       "r13", "r14", "r15", "memory", "cc");
	report_exit(bi, cpu, &n->vmcb);
}

/* From x86_cpl0_init(), with the kernel stack given to the L2. */
__attribute__((noreturn))
void x86_nested_start(struct mmub_boot_info *bi, u64 cpu)
{
	struct nested_vcpu *n = (struct nested_vcpu *)bi->nested_gpa + cpu;
	u64 top = (u64)(n->stack + sizeof(n->stack));

	asm volatile("mov %0, %%rsp\n\t"
		     "call x86_nested_run"
		     : : "r"(top), "D"(bi), "S"(cpu) : "memory");
	__builtin_unreachable();
}
