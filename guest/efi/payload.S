/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The guest image that guest.efi carries: guest.elf without its debug
 * information (GUEST_ELF_PATH, from guest/efi/build.mk).  Hidden, so the
 * loader reaches it PC-relative and gnu-efi's relocation has nothing to do.
 */
	.section .rodata.mmub_guest_elf, "a"
	.balign	16
	.globl	mmub_guest_elf
	.hidden	mmub_guest_elf
mmub_guest_elf:
	.incbin	GUEST_ELF_PATH
	.globl	mmub_guest_elf_end
	.hidden	mmub_guest_elf_end
mmub_guest_elf_end:

	.section .note.GNU-stack, "", %progbits
