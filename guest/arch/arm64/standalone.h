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

#endif
