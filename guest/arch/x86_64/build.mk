# SPDX-License-Identifier: GPL-2.0
# x86_64 guest pieces.  Privileged files run at CPL0 and are built with
# -mgeneral-regs-only: some hypervisors emulate guest CPL0 and fail on SSE.
GUEST_TRIPLE := x86_64-none-elf
GUEST_ARCH_CFLAGS := -mcmodel=small
GUEST_PRIV_FLAGS := -mgeneral-regs-only -mno-red-zone
GUEST_ASM_SRCS := guest/arch/x86_64/head.S
GUEST_PRIV_SRCS := guest/arch/x86_64/cpu.c guest/arch/x86_64/pvh.c \
	guest/arch/x86_64/standalone.c guest/arch/x86_64/svm.c
GUEST_USER_SRCS := guest/arch/x86_64/console.c guest/arch/x86_64/exec.c
