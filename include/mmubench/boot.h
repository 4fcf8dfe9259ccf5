/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The boot protocol between mmubench's VMM (or the guest's own PVH/EFI
 * entry) and the guest core.
 *
 * Guest physical memory is two parts: the system memory (boot info, the
 * image, mailboxes, stacks, heap and page tables; one memslot) and the test
 * memory that the workload touches (split over one or more memslots).
 * mmub_layout_compute() places everything; the host and the guest's
 * standalone entries both call it, so there is one layout, not two.
 *
 * Every vCPU enters the core with the boot info's address and its index;
 * the address space is an identity map (virtual == guest physical).
 */
#ifndef MMUBENCH_BOOT_H
#define MMUBENCH_BOOT_H

#include <mmubench/types.h>
#include <mmubench/workload.h>
#include <mmubench/mailbox.h>
#include <mmubench/version.h>

#define MMUB_BOOT_MAGIC		0x68636e6562756d6dULL	/* "mmubench" */


#define MMUB_MAX_VCPUS		64
#define MMUB_KSTACK_SIZE	(16 * MMUB_KIB)
#define MMUB_USTACK_SIZE	(128 * MMUB_KIB)
#define MMUB_HEAP_SIZE		(2 * MMUB_MIB)

/* The guest drives its own passes and prints (QEMU, EFI). */
#define MMUB_BOOT_STANDALONE	(1U << 0)
/* Map the test memory executable (for the execute workload). */
#define MMUB_BOOT_TEST_EXEC	(1U << 1)
/*
 * x86 --nested-guest: the guest is a hypervisor.  It enables SVM and runs
 * the workload in its own L2 under VMRUN, with npt_root as the nested
 * page table (the host built it: the guest's memory 1:1) and, per vCPU,
 * a VMCB, a host save area and a stack at nested_gpa
 * (MMUB_NESTED_VCPU_SIZE each).
 */
#define MMUB_BOOT_NESTED	(1U << 2)
#define MMUB_NESTED_VCPU_SIZE	(3 * MMUB_SZ_4K)

/*
 * x86: the doorbell is a 32-bit store of enum mmub_doorbell to this guest
 * physical address, in the hole below 4 GiB that neither the system
 * memory nor the test memory (from 4 GiB) uses.  No memslot backs it, so
 * KVM exits to the VMM with KVM_EXIT_MMIO.  Not port I/O: under kvm_pvm
 * an OUT at CPL3 takes #GP whatever RFLAGS.IOPL says.
 */
#define MMUB_X86_DOORBELL_GPA	0xfe000000ULL

/*
 * arm64: the doorbell is a 32-bit store of enum mmub_doorbell to this
 * guest physical address.  No memslot backs it, so KVM exits to the VMM
 * with KVM_EXIT_MMIO.  The VMM maps the 2M block holding it (Device
 * memory EL0 may write) with one entry in the table that maps the system
 * memory, which must therefore lie in [1G, MMUB_ARM64_DOORBELL_GPA).
 */
#define MMUB_ARM64_DOORBELL_GPA	0x7fe00000ULL

struct mmub_boot_info {
	u64 magic;
	u32 version;
	u32 size;		/* sizeof(struct mmub_boot_info) */
	u32 nr_vcpus;
	u32 flags;		/* MMUB_BOOT_* */
	u64 clk_hz;		/* frequency of the guest clock (TSC/CNTVCT) */
	u64 test_gpa;
	u64 test_size;
	u64 guest_page;		/* page size that maps the test memory */
	u64 mailbox_gpa;	/* nr_vcpus struct mmub_mailbox */
	u64 kstack_gpa;		/* nr_vcpus * MMUB_KSTACK_SIZE */
	u64 ustack_gpa;		/* nr_vcpus * MMUB_USTACK_SIZE */
	u64 heap_gpa;
	u64 heap_size;
	u64 pgtable_root;
	u64 npt_root;		/* MMUB_BOOT_NESTED: the L2's nested table */
	u64 nested_gpa;		/* MMUB_BOOT_NESTED: the VMCBs */
	u64 reserved[4];
	struct mmub_workload wl;
};

struct mmub_layout {
	u64 sys_base;
	u64 boot_info;
	u64 image_start;
	u64 image_end;
	u64 mailbox;
	u64 kstack;
	u64 ustack;
	u64 heap;
	u64 pgtable;
	u64 pgtable_size;
	u64 nested;		/* mmub_layout_nested(): the VMCBs, or 0 */
	u64 npt;		/* and the nested page table's pool */
	u64 npt_size;
	u64 sys_end;
	u64 test_gpa;
	u64 test_size;
	u64 guest_page;
	u32 nr_vcpus;
};

/*
 * Place the system memory after the image, which starts at @image_start
 * and ends at @image_end.  If @test_gpa is 0 the test memory starts after
 * the system memory, aligned to @guest_page.  Returns 0 or -1.
 */
int mmub_layout_compute(struct mmub_layout *l, u64 sys_base, u64 image_start,
			u64 image_end, u32 nr_vcpus, u64 test_gpa,
			u64 test_size, u64 guest_page);

/*
 * Make room for a nested guest (MMUB_BOOT_NESTED) after the page tables:
 * the VMCBs and a pool for a nested page table mapping the system memory
 * at 4K and the test memory at @l2_page.  Returns 0 or -1.
 */
int mmub_layout_nested(struct mmub_layout *l, u64 l2_page);

void mmub_boot_info_init(struct mmub_boot_info *bi,
			 const struct mmub_layout *l);

static inline struct mmub_mailbox *mmub_mailbox_of(struct mmub_mailbox *base,
						   u32 cpu)
{
	return base + cpu;
}

#endif
