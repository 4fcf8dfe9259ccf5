# SPDX-License-Identifier: GPL-2.0
# guest.efi (make efi, or make EFI=1): a GNU-EFI application that carries
# guest.elf and boots it under UEFI firmware (guest/efi/handover.h).
#
# gnu-efi's recipe: compile -fpic, link a shared object with its crt0 and
# linker script, and turn that into a PE image with objcopy.  x86_64 uses
# the installed gnu-efi package (make deps); arm64 uses gnu-efi:arm64,
# fetched once into $(O)/gnu-efi/arm64 (lib/fetch-arm64.sh).
# The aarch64 crt0 carries its own PE header, so objcopy writes a raw
# binary, padded to whole pages.

GUEST_EFI := $(GUEST_OUT)/guest.efi
EFI_OUT := $(GUEST_OUT)/efi

ifeq ($(ARCH),x86_64)
EFI_CC := gcc
EFI_LD := ld
EFI_OBJCOPY := objcopy
EFI_USR := /usr
EFI_STAMP := $(EFI_USR)/lib/crt0-efi-x86_64.o
EFI_GNU_ARCH := x86_64
# EFIAPI becomes ms_abi, so firmware calls need no wrapper.
EFI_ARCH_CFLAGS := -mno-red-zone -maccumulate-outgoing-args \
	-DGNU_EFI_USE_MS_ABI
EFI_ARCH_LDFLAGS :=
EFI_FORMAT := --target efi-app-x86_64 --subsystem=10
else
EFI_CC := aarch64-linux-gnu-gcc
EFI_LD := aarch64-linux-gnu-ld
EFI_OBJCOPY := aarch64-linux-gnu-objcopy
EFI_USR := $(O)/gnu-efi/arm64/root/usr
EFI_STAMP := $(O)/gnu-efi/arm64/.stamp
EFI_GNU_ARCH := aarch64
EFI_ARCH_CFLAGS :=
# The subsystem field of crt0's PE header: 10, EFI application.
EFI_ARCH_LDFLAGS := --defsym=EFI_SUBSYSTEM=0xa
EFI_FORMAT := -O binary
endif

EFI_CFLAGS := -std=gnu11 -O2 -Wall -Wextra -Werror -ffreestanding -fpic \
	-fno-stack-protector -fno-stack-check -fshort-wchar \
	-fno-strict-aliasing -Iinclude -Iguest/efi \
	-isystem $(EFI_USR)/include/efi \
	-isystem $(EFI_USR)/include/efi/$(EFI_GNU_ARCH) $(EFI_ARCH_CFLAGS) \
	-MMD -MP
EFI_SRCS := guest/efi/loader.c guest/efi/loader-$(ARCH).c common/layout.c \
	common/pgtable.c common/workload.c
EFI_OBJS := $(EFI_SRCS:%.c=$(EFI_OUT)/%.o) $(EFI_OUT)/payload.o
# What guest.efi carries: guest.elf less its debug information.
EFI_PAYLOAD := $(EFI_OUT)/guest.elf

efi: $(GUEST_EFI)

$(EFI_USR)/lib/crt0-efi-x86_64.o:
	@echo "gnu-efi is missing ($@): apt-get install gnu-efi (make deps)" >&2
	@false

$(O)/gnu-efi/arm64/.stamp:
	@echo "  FETCH   gnu-efi:arm64 (first build only)"
	$(Q)lib/fetch-arm64.sh $(O)/gnu-efi/arm64 gnu-efi -- \
		usr/lib/crt0-efi-aarch64.o usr/lib/elf_aarch64_efi.lds \
		usr/lib/libgnuefi.a usr/lib/libefi.a \
		usr/include/efi/aarch64/efibind.h

$(EFI_OUT)/%.o: %.c $(EFI_STAMP)
	@mkdir -p $(dir $@)
	@echo "  CC      $@"
	$(Q)$(EFI_CC) $(EFI_CFLAGS) -c -o $@ $<

$(EFI_PAYLOAD): $(GUEST_ELF)
	@mkdir -p $(dir $@)
	@echo "  STRIP   $@"
	$(Q)llvm-objcopy --strip-debug $< $@

$(EFI_OUT)/payload.o: guest/efi/payload.S $(EFI_PAYLOAD) $(EFI_STAMP)
	@mkdir -p $(dir $@)
	@echo "  AS      $@"
	$(Q)$(EFI_CC) -c -DGUEST_ELF_PATH='"$(EFI_PAYLOAD)"' -o $@ $<

$(EFI_OUT)/guest-efi.so: $(EFI_OBJS)
	@echo "  LD      $@"
	$(Q)$(EFI_LD) -shared -Bsymbolic -nostdlib -znocombreloc \
		--no-warn-rwx-segments $(EFI_ARCH_LDFLAGS) \
		-T $(EFI_USR)/lib/elf_$(EFI_GNU_ARCH)_efi.lds \
		$(EFI_USR)/lib/crt0-efi-$(EFI_GNU_ARCH).o $(EFI_OBJS) \
		-L$(EFI_USR)/lib -lefi -lgnuefi -o $@

$(GUEST_EFI): $(EFI_OUT)/guest-efi.so
	@echo "  EFI     $@"
	$(Q)$(EFI_OBJCOPY) -j .text -j .sdata -j .data -j .rodata -j .dynamic \
		-j .dynsym -j .rel -j .rela -j .rel.* -j .rela.* -j .reloc \
		$(EFI_FORMAT) $< $@.tmp
	$(Q)$(if $(filter arm64,$(ARCH)),truncate -s %4096 $@.tmp)
	$(Q)mv $@.tmp $@

-include $(EFI_OBJS:.o=.d)
