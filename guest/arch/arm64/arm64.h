/* SPDX-License-Identifier: GPL-2.0 */
/* arm64 constants shared by the guest's assembly and C. */
#ifndef GUEST_ARM64_H
#define GUEST_ARM64_H

/*
 * SCTLR_EL1: MMU, D- and I-caches on, SP alignment checks, and for EL0:
 * WFI/WFE, CTR_EL0, DC ZVA and cache maintenance allowed (UCT, nTWI,
 * nTWE, DZE, UCI).  SPAN=1 keeps PSTATE.PAN clear on exception entry, so
 * the handlers may read the (EL0-accessible) boot info and mailboxes.
 * The rest are the RES1 bits of ARMv8.0 (EOS, TSCXT, EIS, nTLSMD, LSMAOE).
 */
#define SCTLR_M			(1 << 0)
#define SCTLR_C			(1 << 2)
#define SCTLR_I			(1 << 12)
#define SCTLR_EL1_VALUE		0x34d5d81d

/*
 * TCR_EL1: T0SZ=16 (48-bit VA), TTBR0 walks inner/outer write-back
 * cacheable and inner shareable, 4K granule, TTBR1 walks disabled
 * (EPD1).  IPS is filled in from ID_AA64MMFR0_EL1.PARange.
 */
#define TCR_EL1_BASE		0x00803510
#define TCR_IPS_SHIFT		32
#define PARANGE_48		5

/* CPACR_EL1.FPEN=0b11: FP/SIMD at EL0 and EL1 without traps. */
#define CPACR_EL1_VALUE		(3 << 20)
/* CNTKCTL_EL1: EL0 may read CNTVCT_EL0 (and CNTPCT_EL0, CNTFRQ_EL0). */
#define CNTKCTL_EL1_VALUE	0x3

/* SPSR for the drop to EL0: EL0t, D/A/I/F masked (no interrupts used). */
#define SPSR_EL0T_MASKED	0x3c0

/* The syndrome classes the guest handles or names. */
#define ESR_EC_SHIFT		26
#define ESR_EC_SVC64		0x15

/* The SVC numbers EL0 uses for what only EL1 may do. */
#define SVC_EXIT		0

/*
 * linker/arm64.ld links the image this far into RAM: QEMU puts the
 * device tree (1 MiB) below an ELF image, and the VMM the boot info.
 */
#define ARM64_IMAGE_OFFSET	0x200000

/* QEMU virt: PL011 UART. */
#define PL011_BASE		0x09000000
#define PL011_DR		0x00
#define PL011_FR		0x18
#define PL011_FR_TXFF		(1 << 5)

/* PSCI 0.2 function IDs (SMC64 calling convention where it matters). */
#define PSCI_CPU_ON_64		0xc4000003
#define PSCI_SYSTEM_OFF		0x84000008

/* Semihosting: HLT #0xf000 with the operation in w0 and a block in x1. */
#define SEMIHOST_SYS_EXIT_EXTENDED	0x20
#define SEMIHOST_ADP_STOPPED_APP_EXIT	0x20026

#define MMUB_BOOT_MAGIC_ASM	0x68636e6562756d6d
#define MMUB_KSTACK_SIZE_ASM	0x4000
#define MMUB_ARM64_MAIR_ASM	0x04ff
/* Offsets in struct mmub_boot_info (checked in cpu.c). */
#define BI_MAGIC		0
#define BI_KSTACK_GPA		64
#define BI_PGTABLE_ROOT		96

#ifndef __ASSEMBLER__
#include <mmubench/boot.h>

/* head.S */
void arm64_mmu_on(u64 root);
__attribute__((noreturn)) void arm64_to_el0(struct mmub_boot_info *bi,
					    u64 cpu, u64 user_sp,
					    u64 kernel_sp);
__attribute__((noreturn)) void arm64_el1_exit(int status);
__attribute__((noreturn)) void arm64_psci_off(void);
extern char arm64_secondary_entry[];
extern char arm64_semihost_hlt[];

/* cpu.c */
__attribute__((noreturn)) void arm64_el1_init(struct mmub_boot_info *bi,
					      u64 cpu);
void arm64_el1_puts(const char *s);
void arm64_el1_hex(const char *name, u64 v);
void arm64_dcache_inval(u64 start, u64 end);
void arm64_dcache_clean(u64 start, u64 end);
void *arm64_identity(void *ctx, u64 gpa);

/* fdt.c */
#define ARM64_FDT_MAGIC		0xd00dfeed
#define ARM64_FDT_MAX_MEM	8
#define ARM64_FDT_MAX_CPUS	64

struct arm64_fdt_info {
	u64 mem_base[ARM64_FDT_MAX_MEM];
	u64 mem_size[ARM64_FDT_MAX_MEM];
	u32 nr_mem;
	u32 nr_cpus;		/* CPUs whose MPIDR is in mpidr[] */
	u64 mpidr[ARM64_FDT_MAX_CPUS];
	const char *bootargs;	/* in the blob, NUL-terminated */
	const char *psci_method; /* "hvc" or "smc", in the blob */
};
/* 0, or -1 if the blob is not a well-formed device tree. */
int arm64_fdt_read(const void *blob, struct arm64_fdt_info *info);
#endif

#endif
