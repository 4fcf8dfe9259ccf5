/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the arm64 standalone entries (QEMU -M virt, EFI handover) share
 * before the core runs: at EL1, no VMM, no printf, possibly MMU off.
 */
#ifndef GUEST_ARM64_STANDALONE_H
#define GUEST_ARM64_STANDALONE_H

#include <mmubench/boot.h>
#include <mmubench/pgtable.h>

/* "MMUB error: WHAT DETAIL" on the PL011, then exit status 2. */
__attribute__((noreturn)) void early_fail(const char *what,
					  const char *detail);

/*
 * Text and read-only data executable at EL1 and EL0 and writable by
 * neither (EL1 may never execute what EL0 can write); the rest of the
 * system memory read/write; the PL011 device memory EL0 writes to; the
 * test memory (executable if @test_exec).  Page 0 stays unmapped.
 */
void arm64_build_tables(const struct mmub_layout *l, struct mmub_pt *pt,
			bool test_exec);

struct arm64_fdt_info;

/*
 * Start vCPUs 1..bi->nr_vcpus - 1 into arm64_el1_init(bi, cpu) with PSCI
 * CPU_ON over HVC on the CPUs of @fdt's /cpus other than this one, in
 * their order (virt.c).  arm64_boot_info must already be @bi, and the
 * MMU on with bi->pgtable_root.  Fails if PSCI refuses one.
 */
void arm64_start_secondaries(struct mmub_boot_info *bi,
			     const struct arm64_fdt_info *fdt);

#endif
