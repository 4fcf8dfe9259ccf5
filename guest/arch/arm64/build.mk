# SPDX-License-Identifier: GPL-2.0
# arm64 guest pieces.  Privileged files run at EL1 and are built with
# -mgeneral-regs-only (no FP/SIMD state to save in the vectors) and
# -mstrict-align: before the MMU is on every access is Device memory,
# where an unaligned access faults.
GUEST_TRIPLE := aarch64-none-elf
GUEST_ARCH_CFLAGS := -mstrict-align
GUEST_PRIV_FLAGS := -mgeneral-regs-only
GUEST_ASM_SRCS := guest/arch/arm64/head.S
GUEST_PRIV_SRCS := guest/arch/arm64/cpu.c guest/arch/arm64/fdt.c \
	guest/arch/arm64/standalone.c \
	guest/arch/arm64/virt.c
GUEST_USER_SRCS := guest/arch/arm64/console.c guest/arch/arm64/exec.c
# newlib's vfprintf calls __trunctfdf2 (long double) even with long-double
# I/O off; the cross gcc's libgcc has it (guest/libc/README.md).
GUEST_ARCH_LIBS := $(shell aarch64-linux-gnu-gcc -print-libgcc-file-name 2>/dev/null)
