// SPDX-License-Identifier: GPL-2.0
/*
 * x86_64 vCPU setup: long mode at CPL0 with paging on (the host built the
 * tables), entering the image's 64-bit entry with the boot info in RDI
 * and the vCPU index in RSI.  The guest's tiny CPL0 part then drops to
 * CPL3, where the workload runs natively even on hosts that emulate
 * guest CPL0.
 */
#include <stdio.h>
#include <elf.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <linux/kvm.h>
#include <mmubench/pgtable.h>
#include "util/util.h"
#include "vmm/vmm.h"

const char *const arch_name = "x86_64";
const u16 arch_elf_machine = EM_X86_64;

#define CR0_PE		(1ULL << 0)
#define CR0_MP		(1ULL << 1)
#define CR0_ET		(1ULL << 4)
#define CR0_NE		(1ULL << 5)
#define CR0_PG		(1ULL << 31)
#define CR4_PAE		(1ULL << 5)
#define CR4_OSFXSR	(1ULL << 9)
#define CR4_OSXMMEXCPT	(1ULL << 10)
#define EFER_LME	(1ULL << 8)
#define EFER_LMA	(1ULL << 10)
#define EFER_NXE	(1ULL << 11)
#define CPUID_PDPE1GB	(1U << 26)	/* 0x80000001 EDX */
#define CPUID_SVM	(1U << 2)	/* 0x80000001 ECX */
#define CPUID_NP	(1U << 0)	/* 0x8000000A EDX */

static struct kvm_cpuid2 *supported_cpuid;
static bool svm_offered;	/* KVM offers SVM: given on --nested-guest */

u64 arch_sys_base(void)
{
	return 0;
}

/* Above the 32-bit PCI hole and 1G-aligned, so 1G guest pages fit. */
u64 arch_test_gpa(void)
{
	return 4 * MMUB_GIB;
}

u64 arch_doorbell_gpa(void)
{
	return MMUB_X86_DOORBELL_GPA;
}

/* One 4K page: the PD and PT it needs come from the pool's slack. */
int arch_map_doorbell(struct mmub_pt *pt)
{
	return mmub_pt_map(pt, MMUB_X86_DOORBELL_GPA, MMUB_X86_DOORBELL_GPA,
			   MMUB_SZ_4K, MMUB_SZ_4K,
			   MMUB_PROT_WRITE | MMUB_PROT_USER);
}

const struct mmub_pt_fmt *arch_pt_fmt(void)
{
	return &mmub_pt_x86_64;
}

static struct kvm_cpuid_entry2 *cpuid_find(u32 fn, u32 index)
{
	for (u32 i = 0; i < supported_cpuid->nent; i++) {
		struct kvm_cpuid_entry2 *e = &supported_cpuid->entries[i];

		if (e->function == fn && e->index == index)
			return e;
	}
	return NULL;
}

static void load_cpuid(int kvm_fd)
{
	struct kvm_cpuid_entry2 *e;
	u32 n = 256;

	for (;;) {
		supported_cpuid = calloc(1, sizeof(*supported_cpuid) +
					 n * sizeof(struct kvm_cpuid_entry2));
		if (!supported_cpuid)
			die("out of memory");
		supported_cpuid->nent = n;
		if (!ioctl(kvm_fd, KVM_GET_SUPPORTED_CPUID, supported_cpuid))
			break;
		if (errno != E2BIG)
			die("KVM_GET_SUPPORTED_CPUID failed: %s", strerror(errno));
		free(supported_cpuid);
		n *= 2;
	}
	e = cpuid_find(0x80000001, 0);
	svm_offered = e && (e->ecx & CPUID_SVM);
}

bool arch_cpuid_has_npt(int kvm_fd)
{
	struct kvm_cpuid_entry2 *e;

	if (!supported_cpuid)
		load_cpuid(kvm_fd);
	e = cpuid_find(0x8000000a, 0);
	return svm_offered && e && (e->edx & CPUID_NP);
}

bool arch_supports_page(int kvm_fd, u64 page, char *why, size_t len)
{
	struct kvm_cpuid_entry2 *e;

	if (!supported_cpuid)
		load_cpuid(kvm_fd);
	if (page != MMUB_SZ_1G)
		return true;
	e = cpuid_find(0x80000001, 0);
	if (e && (e->edx & CPUID_PDPE1GB))
		return true;
	snprintf(why, len, "1g: this KVM does not offer 1G guest pages "
		 "(CPUID PDPE1GB is absent); use 4k or 2m");
	return false;
}

int arch_vm_init(struct vm *vm)
{
	if (!supported_cpuid)
		load_cpuid(vm->kvm_fd);
	return 0;
}

static void set_cpuid(struct vcpu *v)
{
	struct kvm_cpuid_entry2 *e = cpuid_find(1, 0);

	/* Each vCPU gets its own initial APIC ID. */
	if (e)
		e->ebx = (e->ebx & 0x00ffffff) | (v->id << 24);
	/* A guest that is no hypervisor is not offered SVM. */
	e = cpuid_find(0x80000001, 0);
	if (e && svm_offered) {
		e->ecx &= ~CPUID_SVM;
		if (v->vm->p.l2_page)
			e->ecx |= CPUID_SVM;
	}
	if (ioctl(v->fd, KVM_SET_CPUID2, supported_cpuid))
		die("KVM_SET_CPUID2 failed: %s", strerror(errno));
}

static void seg(struct kvm_segment *s, u16 sel, u8 type, bool code)
{
	memset(s, 0, sizeof(*s));
	s->selector = sel;
	s->limit = 0xffffffff;
	s->type = type;
	s->present = 1;
	s->s = 1;
	s->g = 1;
	s->l = code;
	s->db = !code;
}

int arch_vcpu_init(struct vcpu *v)
{
	struct vm *vm = v->vm;
	struct kvm_sregs sregs;
	struct kvm_regs regs;
	int khz;

	set_cpuid(v);
	if (ioctl(v->fd, KVM_GET_SREGS, &sregs))
		die("KVM_GET_SREGS failed: %s", strerror(errno));
	sregs.cr0 = CR0_PG | CR0_NE | CR0_ET | CR0_MP | CR0_PE;
	sregs.cr4 = CR4_PAE | CR4_OSFXSR | CR4_OSXMMEXCPT;
	sregs.efer = EFER_LME | EFER_LMA | EFER_NXE;
	sregs.cr3 = vm->bi->pgtable_root;
	seg(&sregs.cs, 0x08, 11, true);
	seg(&sregs.ds, 0x10, 3, false);
	sregs.es = sregs.fs = sregs.gs = sregs.ss = sregs.ds;
	/* A valid busy TSS for VM entry; the guest loads its own with LTR. */
	memset(&sregs.tr, 0, sizeof(sregs.tr));
	sregs.tr.type = 11;
	sregs.tr.present = 1;
	sregs.tr.limit = 0x67;
	if (ioctl(v->fd, KVM_SET_SREGS, &sregs))
		die("KVM_SET_SREGS failed: %s", strerror(errno));

	memset(&regs, 0, sizeof(regs));
	regs.rflags = 2;
	regs.rip = vm->entry;
	regs.rsp = vm->layout.kstack + (u64)(v->id + 1) * MMUB_KSTACK_SIZE;
	regs.rdi = vm->layout.boot_info;
	regs.rsi = v->id;
	if (ioctl(v->fd, KVM_SET_REGS, &regs))
		die("KVM_SET_REGS failed: %s", strerror(errno));

	khz = ioctl(v->fd, KVM_GET_TSC_KHZ, NULL);
	if (khz > 0 && !vm->bi->clk_hz)
		vm->bi->clk_hz = (u64)khz * 1000;
	return 0;
}

int arch_vcpu_exit(struct vcpu *v)
{
	struct kvm_run *run = v->run;
	u32 data;

	switch (run->exit_reason) {
	case KVM_EXIT_IO:
		snprintf(v->err, sizeof(v->err), "unexpected port I/O %s 0x%x",
			 run->io.direction == KVM_EXIT_IO_OUT ? "out" : "in",
			 run->io.port);
		return -1;
	case KVM_EXIT_SHUTDOWN:
		snprintf(v->err, sizeof(v->err),
			 "guest shut down (triple fault: an exception before "
			 "its IDT was loaded)");
		return -1;
	case KVM_EXIT_HLT:
		snprintf(v->err, sizeof(v->err), "guest halted");
		return -1;
	case KVM_EXIT_INTERNAL_ERROR:
		snprintf(v->err, sizeof(v->err),
			 "KVM internal error, suberror %u (on hosts that "
			 "emulate guest CPL0, an SSE instruction at CPL0 "
			 "does this)", run->internal.suberror);
		return -1;
	case KVM_EXIT_FAIL_ENTRY:
		snprintf(v->err, sizeof(v->err),
			 "VM entry failed, hardware reason 0x%llx",
			 (unsigned long long)
			 run->fail_entry.hardware_entry_failure_reason);
		return -1;
	case KVM_EXIT_MMIO:
		if (run->mmio.phys_addr == MMUB_X86_DOORBELL_GPA &&
		    run->mmio.is_write && run->mmio.len == 4) {
			memcpy(&data, run->mmio.data, 4);
			return (int)data;
		}
		snprintf(v->err, sizeof(v->err),
			 "guest accessed unbacked memory at 0x%llx",
			 (unsigned long long)run->mmio.phys_addr);
		return -1;
	default:
		snprintf(v->err, sizeof(v->err), "unexpected exit reason %u",
			 run->exit_reason);
		return -1;
	}
}

void arch_vcpu_dump(struct vcpu *v, char *buf, size_t len)
{
	struct kvm_regs r;
	struct kvm_sregs s;

	if (ioctl(v->fd, KVM_GET_REGS, &r) || ioctl(v->fd, KVM_GET_SREGS, &s)) {
		buf[0] = 0;
		return;
	}
	snprintf(buf, len, "RIP=0x%llx RSP=0x%llx RFLAGS=0x%llx CS=0x%x "
		 "(CPL%u) CR2=0x%llx CR3=0x%llx RAX=0x%llx RDI=0x%llx",
		 (unsigned long long)r.rip, (unsigned long long)r.rsp,
		 (unsigned long long)r.rflags, s.cs.selector, s.cs.selector & 3,
		 (unsigned long long)s.cr2, (unsigned long long)s.cr3,
		 (unsigned long long)r.rax, (unsigned long long)r.rdi);
}

static const char *vector_name(u64 v)
{
	static const char *const names[32] = {
		"#DE", "#DB", "NMI", "#BP", "#OF", "#BR", "#UD", "#NM", "#DF",
		"?", "#TS", "#NP", "#SS", "#GP", "#PF", "?", "#MF", "#AC",
		"#MC", "#XM", "#VE", "#CP",
	};

	return v < 32 && names[v] ? names[v] : "?";
}

static const char *svm_exit_name(u64 code)
{
	switch (code) {
	case 0x7f:
		return "SHUTDOWN: the L2 triple-faulted";
	case 0x400:
		return "NPF: outside its nested page table";
	case ~0ULL:
		return "INVALID: VMRUN refused the VMCB";
	default:
		return "unexpected";
	}
}

void arch_describe_fault(const struct mmub_fault *f, char *buf, size_t len)
{
	if (f->kind == MMUB_FAULT_L2_EXIT) {
		snprintf(buf, len, "the L2 exited to the guest: SVM exit code "
			 "0x%llx (%s), EXITINFO1 0x%llx, EXITINFO2 0x%llx, at "
			 "L2 RIP 0x%llx, CPL%llu",
			 (unsigned long long)f->vector,
			 svm_exit_name(f->vector),
			 (unsigned long long)f->error,
			 (unsigned long long)f->addr,
			 (unsigned long long)f->pc,
			 (unsigned long long)(f->cs & 3));
		return;
	}
	snprintf(buf, len, "vector %llu (%s) at RIP 0x%llx, CR2 0x%llx, "
		 "error code 0x%llx, CPL%llu",
		 (unsigned long long)f->vector, vector_name(f->vector),
		 (unsigned long long)f->pc, (unsigned long long)f->addr,
		 (unsigned long long)f->error, (unsigned long long)(f->cs & 3));
}
