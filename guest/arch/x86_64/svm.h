/* SPDX-License-Identifier: GPL-2.0 */
/* The guest as a hypervisor (svm.c), for --nested-guest. */
#ifndef GUEST_X86_SVM_H
#define GUEST_X86_SVM_H

#include <mmubench/boot.h>

/* Run this vCPU's workload in an L2 under VMRUN, from its CPL0 set-up. */
__attribute__((noreturn)) void x86_nested_start(struct mmub_boot_info *bi,
						u64 cpu);

#endif
