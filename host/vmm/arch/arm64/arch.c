// SPDX-License-Identifier: GPL-2.0
/*
 * arm64 vCPU setup: every vCPU enters the image's entry at EL1h with the
 * MMU off, interrupts masked, x0 = boot info, x1 = vCPU index and SP_EL1
 * = its kernel stack.  The guest turns its MMU on with the tables the
 * host built (TTBR0 = bi->pgtable_root) and drops to EL0, where the
 * workload runs.  Its doorbell is a 32-bit store to
 * MMUB_ARM64_DOORBELL_GPA, which no memslot backs: KVM_EXIT_MMIO.
 */
#include <stdio.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <linux/kvm.h>
#include <mmubench/pgtable.h>
#include "util/util.h"
#include "vmm/vmm.h"

const char *const arch_name = "arm64";
const u16 arch_elf_machine = EM_AARCH64;

/* As on QEMU's virt board: RAM (our system memory) from 1 GiB. */
#define SYS_BASE	(1 * MMUB_GIB)
/* The first 1G boundary above the doorbell, so 1G guest pages fit. */
#define TEST_GPA	(2 * MMUB_GIB)
/* KVM_CREATE_VM type 0 gives a 40-bit guest physical address space. */
#define DEFAULT_IPA_BITS	40

#define PSTATE_EL1H_MASKED	(PSR_MODE_EL1h | PSR_D_BIT | PSR_A_BIT | \
				 PSR_I_BIT | PSR_F_BIT)

#define CORE_REG(x)	(KVM_REG_ARM64 | KVM_REG_SIZE_U64 | \
			 KVM_REG_ARM_CORE | KVM_REG_ARM_CORE_REG(x))
#define SYS_ESR_EL1	ARM64_SYS_REG(3, 0, 5, 2, 0)
#define SYS_FAR_EL1	ARM64_SYS_REG(3, 0, 6, 0, 0)
#define SYS_SCTLR_EL1	ARM64_SYS_REG(3, 0, 1, 0, 0)
#define SYS_TTBR0_EL1	ARM64_SYS_REG(3, 0, 2, 0, 0)

/* struct mmub_fault.vector: the EC, or 0x100 + vector index if async. */
#define FAULT_ASYNC	0x100

static struct kvm_vcpu_init preferred;

u64 arch_sys_base(void)
{
	return SYS_BASE;
}

u64 arch_test_gpa(void)
{
	return TEST_GPA;
}

u64 arch_doorbell_gpa(void)
{
	return MMUB_ARM64_DOORBELL_GPA;
}

/*
 * The 2M block as device memory EL0 may write.  Its entry goes into the
 * table that maps the system memory (same 1G): no new table.
 */
int arch_map_doorbell(struct mmub_pt *pt)
{
	return mmub_pt_map(pt, MMUB_ARM64_DOORBELL_GPA, MMUB_ARM64_DOORBELL_GPA,
			   MMUB_SZ_2M, MMUB_SZ_2M, MMUB_PROT_WRITE |
			   MMUB_PROT_USER | MMUB_PROT_DEVICE);
}

const struct mmub_pt_fmt *arch_pt_fmt(void)
{
	return &mmub_pt_arm64;
}

/* The stage-1 4K granule has 2M and 1G blocks; KVM maps what it can. */
bool arch_supports_page(int kvm_fd, u64 page, char *why, size_t len)
{
	(void)kvm_fd;
	(void)page;
	(void)why;
	(void)len;
	return true;
}

int arch_vm_init(struct vm *vm)
{
	const struct mmub_layout *l = &vm->layout;

	if (l->test_gpa + l->test_size > (1ULL << DEFAULT_IPA_BITS))
		die("-b: %llu GiB of test memory from 0x%llx exceed the "
		    "%u-bit guest physical space of an arm64 VM",
		    (unsigned long long)(l->test_size >> 30),
		    (unsigned long long)l->test_gpa, DEFAULT_IPA_BITS);
	if (ioctl(vm->fd, KVM_ARM_PREFERRED_TARGET, &preferred))
		die("KVM_ARM_PREFERRED_TARGET failed: %s", strerror(errno));
	if (ioctl(vm->kvm_fd, KVM_CHECK_EXTENSION, KVM_CAP_ARM_PSCI_0_2) <= 0)
		die("/dev/kvm: KVM_CAP_ARM_PSCI_0_2 missing");
	return 0;
}

static void *pt_gpa_to_ptr(void *ctx, u64 gpa)
{
	return vm_gpa_to_hva(ctx, gpa);
}

/* Program headers of the guest image (the loader checked the rest). */
static Elf64_Phdr *read_phdrs(const char *path, u32 *nr)
{
	Elf64_Ehdr eh;
	Elf64_Phdr *ph;
	size_t size;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0 || pread(fd, &eh, sizeof(eh), 0) != sizeof(eh) ||
	    eh.e_phentsize != sizeof(*ph) || !eh.e_phnum)
		die("--guest %s: cannot read its program headers", path);
	size = (size_t)eh.e_phnum * sizeof(*ph);
	ph = malloc(size);
	if (!ph || pread(fd, ph, size, (off_t)eh.e_phoff) != (ssize_t)size)
		die("--guest %s: cannot read its program headers", path);
	close(fd);
	*nr = eh.e_phnum;
	return ph;
}

/* The segment flags that apply to the 4K page at @va (0: none). */
static u32 page_flags(const Elf64_Phdr *ph, u32 nr, u64 va)
{
	u32 flags = 0, i;

	for (i = 0; i < nr; i++)
		if (ph[i].p_type == PT_LOAD && ph[i].p_memsz &&
		    ph[i].p_paddr < va + MMUB_SZ_4K &&
		    va < ph[i].p_paddr + ph[i].p_memsz)
			flags |= ph[i].p_flags;
	return flags;
}

/*
 * EL1 may never execute memory that EL0 can write, so the image pages
 * that no writable segment touches become read-only (and executable at
 * both levels where a segment is): code, read-only data.  The rest
 * stays as vm.c mapped the system memory.
 */
static void protect_image(struct vm *vm, struct mmub_pt *pt)
{
	const struct mmub_layout *l = &vm->layout;
	u64 va, start = mmub_align_down(l->image_start, MMUB_SZ_4K);
	Elf64_Phdr *ph;
	u32 nr, f;

	ph = read_phdrs(vm->p.guest, &nr);
	for (va = start; va < l->image_end; va += MMUB_SZ_4K) {
		f = page_flags(ph, nr, va);
		if (!f || (f & PF_W))
			continue;
		if (mmub_pt_protect(pt, va, MMUB_SZ_4K, MMUB_PROT_USER |
				    (f & PF_X ? MMUB_PROT_EXEC : 0)))
			die("guest image page 0x%llx is not mapped (bug)",
			    (unsigned long long)va);
	}
	free(ph);
}

/* Finish the tables vm.c built: code pages read-only. */
static void finish_tables(struct vm *vm)
{
	struct mmub_pt pt = {
		.fmt = &mmub_pt_arm64,
		.gpa_to_ptr = pt_gpa_to_ptr,
		.ctx = vm,
		.root = vm->bi->pgtable_root,
	};

	protect_image(vm, &pt);
}

static void set_reg(struct vcpu *v, u64 id, u64 val, const char *name)
{
	struct kvm_one_reg r = { .id = id, .addr = (u64)&val };

	if (ioctl(v->fd, KVM_SET_ONE_REG, &r))
		die("KVM_SET_ONE_REG %s on vCPU %u failed: %s", name, v->id,
		    strerror(errno));
}

static int get_reg(struct vcpu *v, u64 id, u64 *val)
{
	struct kvm_one_reg r = { .id = id, .addr = (u64)val };

	return ioctl(v->fd, KVM_GET_ONE_REG, &r);
}

static u64 counter_hz(void)
{
	u64 hz;

	asm volatile("mrs %0, cntfrq_el0" : "=r"(hz));
	return hz;
}

int arch_vcpu_init(struct vcpu *v)
{
	struct vm *vm = v->vm;
	struct kvm_vcpu_init init = preferred;
	u64 ksp = vm->layout.kstack + (u64)(v->id + 1) * MMUB_KSTACK_SIZE;

	init.features[0] |= 1U << KVM_ARM_VCPU_PSCI_0_2;
	if (ioctl(v->fd, KVM_ARM_VCPU_INIT, &init))
		die("KVM_ARM_VCPU_INIT on vCPU %u failed: %s", v->id,
		    strerror(errno));
	/* vm.c has built the tables by the time vCPU 0 is created. */
	if (v->id == 0)
		finish_tables(vm);
	set_reg(v, CORE_REG(regs.pc), vm->entry, "PC");
	set_reg(v, CORE_REG(regs.regs[0]), vm->layout.boot_info, "X0");
	set_reg(v, CORE_REG(regs.regs[1]), v->id, "X1");
	set_reg(v, CORE_REG(sp_el1), ksp, "SP_EL1");
	set_reg(v, CORE_REG(regs.pstate), PSTATE_EL1H_MASKED, "PSTATE");
	/* The guest reads CNTVCT_EL0, which ticks at the host's CNTFRQ. */
	if (!vm->bi->clk_hz)
		vm->bi->clk_hz = counter_hz();
	return 0;
}

static int mmio_exit(struct vcpu *v)
{
	struct kvm_run *run = v->run;
	u32 data;

	if (run->mmio.phys_addr == MMUB_ARM64_DOORBELL_GPA &&
	    run->mmio.is_write && run->mmio.len == 4) {
		memcpy(&data, run->mmio.data, 4);
		return (int)data;
	}
	snprintf(v->err, sizeof(v->err),
		 "guest %s %u bytes of unbacked memory at 0x%llx",
		 run->mmio.is_write ? "wrote" : "read", run->mmio.len,
		 (unsigned long long)run->mmio.phys_addr);
	return -1;
}

int arch_vcpu_exit(struct vcpu *v)
{
	struct kvm_run *run = v->run;

	switch (run->exit_reason) {
	case KVM_EXIT_MMIO:
		return mmio_exit(v);
	case KVM_EXIT_SYSTEM_EVENT:
		snprintf(v->err, sizeof(v->err), "guest %s (PSCI)",
			 run->system_event.type == KVM_SYSTEM_EVENT_SHUTDOWN ?
			 "powered off" :
			 run->system_event.type == KVM_SYSTEM_EVENT_RESET ?
			 "reset" : "raised a system event");
		return -1;
	case KVM_EXIT_INTERNAL_ERROR:
		snprintf(v->err, sizeof(v->err),
			 "KVM internal error, suberror %u",
			 run->internal.suberror);
		return -1;
	case KVM_EXIT_FAIL_ENTRY:
		snprintf(v->err, sizeof(v->err),
			 "VM entry failed, hardware reason 0x%llx",
			 (unsigned long long)
			 run->fail_entry.hardware_entry_failure_reason);
		return -1;
	default:
		snprintf(v->err, sizeof(v->err), "unexpected exit reason %u",
			 run->exit_reason);
		return -1;
	}
}

void arch_vcpu_dump(struct vcpu *v, char *buf, size_t len)
{
	u64 pc, pstate, sp0, sp1, elr, spsr, esr, far, sctlr, ttbr0, x0;

	if (get_reg(v, CORE_REG(regs.pc), &pc) ||
	    get_reg(v, CORE_REG(regs.pstate), &pstate) ||
	    get_reg(v, CORE_REG(regs.sp), &sp0) ||
	    get_reg(v, CORE_REG(sp_el1), &sp1) ||
	    get_reg(v, CORE_REG(elr_el1), &elr) ||
	    get_reg(v, CORE_REG(spsr[KVM_SPSR_EL1]), &spsr) ||
	    get_reg(v, CORE_REG(regs.regs[0]), &x0) ||
	    get_reg(v, SYS_ESR_EL1, &esr) || get_reg(v, SYS_FAR_EL1, &far) ||
	    get_reg(v, SYS_SCTLR_EL1, &sctlr) ||
	    get_reg(v, SYS_TTBR0_EL1, &ttbr0)) {
		buf[0] = 0;
		return;
	}
	snprintf(buf, len, "PC=0x%llx PSTATE=0x%llx (EL%llu) SP_EL0=0x%llx "
		 "SP_EL1=0x%llx ESR_EL1=0x%llx FAR_EL1=0x%llx ELR_EL1=0x%llx "
		 "SPSR_EL1=0x%llx SCTLR_EL1=0x%llx TTBR0_EL1=0x%llx X0=0x%llx",
		 (unsigned long long)pc, (unsigned long long)pstate,
		 (unsigned long long)((pstate >> 2) & 3),
		 (unsigned long long)sp0, (unsigned long long)sp1,
		 (unsigned long long)esr, (unsigned long long)far,
		 (unsigned long long)elr, (unsigned long long)spsr,
		 (unsigned long long)sctlr, (unsigned long long)ttbr0,
		 (unsigned long long)x0);
}

static const char *class_name(u64 ec)
{
	switch (ec) {
	case 0x00: return "undefined instruction";
	case 0x01: return "WFI/WFE trap";
	case 0x07: return "FP/SIMD access trap";
	case 0x0e: return "illegal execution state";
	case 0x15: return "SVC";
	case 0x16: return "HVC";
	case 0x17: return "SMC";
	case 0x18: return "system register trap";
	case 0x19: return "SVE access trap";
	case 0x20: return "instruction abort from EL0";
	case 0x21: return "instruction abort at EL1";
	case 0x22: return "PC alignment fault";
	case 0x24: return "data abort from EL0";
	case 0x25: return "data abort at EL1";
	case 0x26: return "SP alignment fault";
	case 0x2c: return "FP exception";
	case 0x2f: return "SError";
	case 0x3c: return "BRK";
	default: return "?";
	}
}

/* The fault status code of an abort, as words. */
static void abort_status(u64 esr, char *buf, size_t len)
{
	u32 fsc = esr & 0x3f, level = fsc & 3;

	switch (fsc >> 2) {
	case 1:
		snprintf(buf, len, ", translation fault at level %u", level);
		break;
	case 2:
		snprintf(buf, len, ", access flag fault at level %u", level);
		break;
	case 3:
		snprintf(buf, len, ", permission fault at level %u", level);
		break;
	default:
		snprintf(buf, len, fsc == 0x21 ? ", alignment fault" :
			 ", fault status 0x%x", fsc);
		break;
	}
}

void arch_describe_fault(const struct mmub_fault *f, char *buf, size_t len)
{
	char status[48] = "";

	if (f->vector >= FAULT_ASYNC) {
		snprintf(buf, len, "%s (exception vector %llu) at ELR 0x%llx, "
			 "ESR 0x%llx, EL%llu",
			 (f->vector & 3) == 3 ? "SError" : "interrupt",
			 (unsigned long long)(f->vector - FAULT_ASYNC),
			 (unsigned long long)f->pc,
			 (unsigned long long)f->error,
			 (unsigned long long)f->cs);
		return;
	}
	if (f->vector >= 0x20 && f->vector <= 0x25 && f->vector != 0x22 &&
	    f->vector != 0x23)
		abort_status(f->error, status, sizeof(status));
	snprintf(buf, len, "exception class 0x%llx (%s%s) at ELR 0x%llx, "
		 "FAR 0x%llx, ESR 0x%llx, EL%llu",
		 (unsigned long long)f->vector, class_name(f->vector), status,
		 (unsigned long long)f->pc, (unsigned long long)f->addr,
		 (unsigned long long)f->error, (unsigned long long)f->cs);
}
