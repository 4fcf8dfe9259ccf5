# SPDX-License-Identifier: GPL-2.0
#
# mmubench: make [ARCH=x86_64|arm64] [O=build] [SANITIZE=1] [EFI=1]
# "make help" lists the targets.

HOST_ARCH := $(shell uname -m | sed -e 's/aarch64/arm64/')
ARCH ?= $(HOST_ARCH)
O ?= build
V ?= 0
Q := $(if $(filter 1,$(V)),,@)

ifeq ($(filter $(ARCH),x86_64 arm64),)
$(error ARCH=$(ARCH): unknown (accepted: x86_64, arm64))
endif

VERSION := $(shell git describe --always --dirty 2>/dev/null || echo unknown)
VCPUS ?=
# The nested kernel's base for "make kernel": 6.1 or 6.12.
BASE ?= 6.1
MEM ?= 64M
RUN_ARGS ?=

# ---- guest ---------------------------------------------------------------
include guest/arch/$(ARCH)/build.mk

GUEST_OUT := $(O)/$(ARCH)
NEWLIB := $(O)/newlib/$(ARCH)
NEWLIB_STAMP := $(NEWLIB)/.stamp-$(GUEST_TRIPLE)
NEWLIB_LIB := $(NEWLIB)/install/$(GUEST_TRIPLE)/lib
NEWLIB_INC := $(NEWLIB)/install/$(GUEST_TRIPLE)/include

GUEST_CC := clang --target=$(GUEST_TRIPLE)
GUEST_LD := ld.lld
GUEST_CFLAGS := -std=gnu11 -O2 -g -Wall -Wextra -Werror -ffreestanding \
	-fno-pic -fno-pie -fno-stack-protector -fno-omit-frame-pointer \
	-Iinclude -isystem $(NEWLIB_INC) $(GUEST_ARCH_CFLAGS) -MMD -MP

# Shared with the host, and run by the guest before it is in user mode.
COMMON_SRCS := common/histogram.c common/layout.c common/pgtable.c \
	common/workload.c common/arch/x86_64/pgtable.c \
	common/arch/arm64/pgtable.c
# The engine runs in the guest at CPL3/EL0, and in the host for bench.
ENGINE_SRCS := common/engine/engine.c common/arch/$(ARCH)/clock.c
GUEST_PRIV_SRCS += guest/lib/string.c $(COMMON_SRCS)
GUEST_USER_SRCS += guest/core.c guest/libc.c $(ENGINE_SRCS) \
	guest/engine/standalone.c
# The image's own EFI entry (guest/efi/handover.h) is in every guest.elf:
# guest.efi carries the same image that the VMM and QEMU -kernel boot.
GUEST_ASM_SRCS += guest/efi/entry-$(ARCH).S
GUEST_PRIV_SRCS += guest/efi/handover-$(ARCH).c

GUEST_OBJS := $(GUEST_ASM_SRCS:%.S=$(GUEST_OUT)/obj/%.o) \
	$(GUEST_PRIV_SRCS:%.c=$(GUEST_OUT)/obj/priv/%.o) \
	$(GUEST_USER_SRCS:%.c=$(GUEST_OUT)/obj/%.o)
GUEST_ELF := $(GUEST_OUT)/guest.elf

# ---- host ----------------------------------------------------------------
ifeq ($(ARCH),$(HOST_ARCH))
HOST_CC ?= gcc
HOST_OUT := $(O)$(if $(filter 1,$(SANITIZE)),/san)
HOST_LDFLAGS :=
HOST_DEPS :=
else
HOST_CC := aarch64-linux-gnu-gcc
HOST_OUT := $(O)/$(ARCH)
# Static, so it can be carried to an arm64 machine or into an initramfs;
# with Debian's libjansson-dev:arm64, unpacked under $(O)/deps/arm64.
ARM64_DEPS := $(O)/deps/arm64
HOST_DEPS := $(ARM64_DEPS)/.stamp
HOST_LDFLAGS := -static -L$(ARM64_DEPS)/root/usr/lib/aarch64-linux-gnu
HOST_DEP_CFLAGS := -isystem $(ARM64_DEPS)/root/usr/include
endif
ifeq ($(SANITIZE),1)
HOST_SAN := -fsanitize=address,undefined -fno-sanitize-recover=undefined \
	-fno-omit-frame-pointer
endif
HOST_CFLAGS := -std=gnu11 -O2 -g -Wall -Wextra -Werror -Wshadow \
	-Wno-missing-field-initializers -Iinclude -Ihost $(HOST_DEP_CFLAGS) \
	-DMMUB_VERSION='"$(VERSION)"' $(HOST_SAN) -MMD -MP
# vmm/ the VM, kvm/ KVM's interfaces, framework/ what every scenario
# shares, scenarios/ the experiments, results/ the offline commands,
# util/ die() and its cleanup registry (docs/design.md).
HOST_SRCS := $(wildcard host/*.c host/util/*.c host/vmm/*.c \
	host/vmm/arch/$(ARCH)/*.c host/kvm/*.c host/framework/*.c \
	host/scenarios/*.c host/scenarios/*/*.c \
	host/results/*.c host/backend/*.c host/migrate/*.c) \
	$(COMMON_SRCS) $(ENGINE_SRCS)
HOST_OBJS := $(HOST_SRCS:%.c=$(HOST_OUT)/obj/host/%.o)
HOST_BIN := $(HOST_OUT)/mmubench

.PHONY: all host guest newlib deps fetch-arm64 run run-nested peer test check bench kernel cache cache-prune clean \
	help unit \
	efi run-efi
all: host guest $(if $(filter 1,$(EFI)),efi)

host: $(HOST_BIN)
guest: $(GUEST_ELF)

$(HOST_BIN): $(HOST_OBJS)
	@echo "  LD      $@"
	$(Q)$(HOST_CC) $(HOST_SAN) $(HOST_LDFLAGS) -o $@ $^ -ljansson \
		-lpthread -lm

$(HOST_OUT)/obj/host/%.o: %.c $(HOST_DEPS)
	@mkdir -p $(dir $@)
	@echo "  CC      $@"
	$(Q)$(HOST_CC) $(HOST_CFLAGS) -c -o $@ $<

$(O)/deps/arm64/.stamp: lib/fetch-arm64.sh
	@echo "  FETCH   libjansson-dev:arm64 (first build only)"
	$(Q)lib/fetch-arm64.sh $(O)/deps/arm64 libjansson-dev libjansson4 -- \
		usr/include/jansson.h usr/lib/aarch64-linux-gnu/libjansson.a

newlib: $(NEWLIB_STAMP)
$(NEWLIB_STAMP): guest/libc/build-newlib.sh
	@echo "  NEWLIB  $(ARCH) (first build only, about a minute)"
	$(Q)guest/libc/build-newlib.sh $(ARCH) $(NEWLIB)

$(GUEST_OUT)/obj/priv/%.o: %.c $(NEWLIB_STAMP)
	@mkdir -p $(dir $@)
	@echo "  CC      $@"
	$(Q)$(GUEST_CC) $(GUEST_CFLAGS) $(GUEST_PRIV_FLAGS) -c -o $@ $<

$(GUEST_OUT)/obj/%.o: %.c $(NEWLIB_STAMP)
	@mkdir -p $(dir $@)
	@echo "  CC      $@"
	$(Q)$(GUEST_CC) $(GUEST_CFLAGS) -c -o $@ $<

$(GUEST_OUT)/obj/%.o: %.S
	@mkdir -p $(dir $@)
	@echo "  AS      $@"
	$(Q)$(GUEST_CC) $(GUEST_CFLAGS) -Iguest/arch/$(ARCH) -c -o $@ $<

$(GUEST_ELF): $(GUEST_OBJS) linker/$(ARCH).ld
	@echo "  LD      $@"
	$(Q)$(GUEST_LD) -static -nostdlib -T linker/$(ARCH).ld -o $@ \
		$(GUEST_OBJS) $(NEWLIB_LIB)/libc.a $(NEWLIB_LIB)/libm.a \
		$(GUEST_ARCH_LIBS)

-include $(GUEST_OBJS:.o=.d) $(HOST_OBJS:.o=.d)

include guest/efi/build.mk

# ---- use -----------------------------------------------------------------
deps:
	$(Q)ci/deps.sh

# What Debian cannot install for arm64 next to amd64, unpacked in $(O):
# ci/deps.sh fetches it here, so that builds need no network later.
fetch-arm64:
	$(Q)$(MAKE) -s ARCH=arm64 $(O)/deps/arm64/.stamp $(O)/gnu-efi/arm64/.stamp

# The default job: on this machine's /dev/kvm when it can run ARCH's
# guest; otherwise the guest alone under QEMU (TCG), its results parsed
# into the same table.  run-nested gets KVM figures without /dev/kvm, in a
# nested kernel with KVM under QEMU (built once, cached outside).
run: all
	$(Q)if [ "$(ARCH)" = "$(HOST_ARCH)" ] && [ -r /dev/kvm ] && [ -w /dev/kvm ]; then \
		$(HOST_BIN) touch -v $(or $(VCPUS),2) -b $(MEM) --guest $(GUEST_ELF) $(RUN_ARGS); \
	else \
		$(MAKE) -s ARCH=$(HOST_ARCH) host && \
		echo "(no usable /dev/kvm for $(ARCH) here: the guest runs under QEMU; make run-nested measures KVM in a nested kernel)" && \
		$(O)/mmubench touch --backend qemu -b $(MEM) --guest $(GUEST_ELF) \
			-v $(or $(VCPUS),2) $(RUN_ARGS); \
	fi

run-nested: all
	$(Q)tools/kvm-exec.sh --arch $(ARCH) $(HOST_BIN) $(GUEST_ELF) touch \
		-v $(or $(VCPUS),2) -b $(MEM) $(RUN_ARGS)

# The kernel's own dirty_log_perf_test beside "mmubench dirty-log", the
# same -v, -b, -i and mode, alternating in one nested boot, then compared
# (tools/peer.sh builds both; PEER_ARGS="-g --runs 6").
PEER_ARGS ?=
peer:
	$(Q)tools/peer.sh --arch $(ARCH) -v $(or $(VCPUS),2) -b $(MEM) $(PEER_ARGS)

test:
	$(Q)test/run.sh

# The edit loop: the tests that need no kernel built or booted (unit, bad
# input, JSON, compare, report, manifest, docs; direct KVM where there is
# one); the others skip, saying so.
check:
	$(Q)test/run.sh --check

# Figures about mmubench itself, measured in one run (not tests): boot,
# guest/host loop ratio, guest exits, dirty-log user-space share of the
# harvest, the invalidator's overhead around madvise; boot at 1 GiB with
# 1 and 4 vCPUs, the host's populate apart; the boot under QEMU; the
# scale table (BENCH_SIZES, 17 min to 16 GiB here); and the peer,
# dirty_log_perf_test, side by side in one nested boot (tools/peer.sh).
# BENCH_SIZES= leaves the scale table out.
BENCH_SIZES ?= 1g,2g,4g,8g,16g
bench: all
	$(Q)tools/kvm-exec.sh --arch $(ARCH) --sh ' \
	mmubench bench -v 1 -b $(MEM) $(RUN_ARGS); \
	for v in 1 4; do mmubench touch -v $$v -b $$((1024 / v))m -i 1 --no-populate \
		--repeat 3 | grep "^run"; done; \
	mmubench dirty-log -v 2 -b $(MEM) -i 3 | grep -E "^mmubench|user-space"; \
	mmubench zap -v 2 -b $(MEM) --zap c4 | grep -E "^mmubench|overhead"' \
		$(HOST_BIN) $(GUEST_ELF)
	$(Q)$(MAKE) -s ARCH=$(HOST_ARCH) host && \
		$(O)/mmubench touch --backend qemu -v 2 -b 16m -i 1 \
			--guest $(GUEST_ELF) | grep -E "^boot"
	$(Q)if [ -n "$(BENCH_SIZES)" ]; then \
		tools/kvm-exec.sh --arch $(ARCH) $(HOST_BIN) $(GUEST_ELF) scale \
			--sizes $(BENCH_SIZES); fi
	$(Q)tools/peer.sh --arch $(ARCH)

# The guest alone under UEFI firmware (OVMF or QEMU_EFI.fd), from the UEFI
# Shell so that the words reach it as LoadOptions; VCPUS=N gives QEMU
# -smp N and the guest vcpus=N (default 1).
GUEST_ARGS ?= passes=3
run-efi: $(GUEST_EFI)
	$(Q)guest/efi/run-efi.sh --arch $(ARCH) --smp $(or $(VCPUS),1) \
		$(GUEST_EFI) vcpus=$(or $(VCPUS),1) mem=$(MEM) $(GUEST_ARGS)

kernel:
	$(Q)lib/kernel/build.sh --base $(BASE) --arch $(ARCH) $(if $(PATCHES),--series $(PATCHES))

cache:
	$(Q)lib/kernel/cache.sh list

cache-prune:
	$(Q)lib/kernel/cache.sh prune

clean:
	rm -rf $(O)/$(ARCH)/obj $(O)/obj $(O)/san $(HOST_BIN) $(GUEST_ELF) \
		$(EFI_OUT) $(GUEST_EFI)

help:
	@echo "make [ARCH=x86_64|arm64] [O=build] [EFI=1] TARGET"
	@echo "  all      host harness $(O)/mmubench and guest $(O)/<arch>/guest.elf"
	@echo "           (EFI=1: also $(O)/<arch>/guest.efi)"
	@echo "  host     the harness alone, $(O)/mmubench (no newlib, no guest)"
	@echo "  guest    the guest alone, $(O)/<arch>/guest.elf"
	@echo "  efi      $(O)/<arch>/guest.efi, the guest as an EFI application"
	@echo "  run-efi  boot guest.efi under UEFI firmware in QEMU (VCPUS=1"
	@echo "           MEM=$(MEM) GUEST_ARGS='$(GUEST_ARGS)': guest command line words)"
	@echo "  deps     install the Debian packages needed (apt, idempotent)"
	@echo "  newlib   build newlib for the guest (cached in $(O)/newlib)"
	@echo "  fetch-arm64  unpack libjansson-dev:arm64 and gnu-efi for arm64 into $(O)"
	@echo "  run      run 'touch' (VCPUS=2 MEM=$(MEM) RUN_ARGS=...) on /dev/kvm;"
	@echo "           without it, the guest alone under QEMU TCG"
	@echo "  run-nested  'touch' on KVM inside a nested kernel under QEMU"
	@echo "  peer     the kernel's dirty_log_perf_test beside mmubench dirty-log,"
	@echo "           one nested boot, compared (VCPUS=2 MEM=$(MEM) PEER_ARGS=...)"
	@echo "  bench    figures about mmubench itself (not a test)"
	@echo "  test     every bats file (host with ASan/UBSan), nested kernels built first"
	@echo "  check    the tests that need no kernel (the edit loop; the others skip)"
	@echo "  unit     the unit tests of the shared code (sanitized, $(O)/san/)"
	@echo "  kernel   build the nested test kernel [BASE=6.1|6.12] [PATCHES=<series>]"
	@echo "  cache    the kernel cache: each kernel, source and image, its size,"
	@echo "           last use and whether a run holds it"
	@echo "  cache-prune  remove unheld kernels unused for 30 days, then beyond 20G"
	@echo "           (lib/kernel/cache.sh prune --help for the limits)"
	@echo "  clean    remove objects (keeps newlib and kernel caches)"
	@echo "  help     this text"
	@echo "  SANITIZE=1 builds the host with ASan/UBSan into $(O)/san/"

# ---- unit tests of the shared code (host-built, sanitized) ---------------
UNIT_CC := gcc -std=gnu11 -O1 -g -Wall -Wextra -Werror -Wshadow -Iinclude -Ihost \
	-fsanitize=address,undefined -fno-sanitize-recover=undefined
UNIT_BIN := $(O)/san/unit-tests
unit: $(UNIT_BIN)
$(UNIT_BIN): test/unit/unit.c $(COMMON_SRCS) $(wildcard include/mmubench/*.h)
	@mkdir -p $(dir $@)
	@echo "  CC      $@"
	$(Q)$(UNIT_CC) -o $@ test/unit/unit.c $(COMMON_SRCS)

PROBES_TEST := $(O)/san/probes-test
unit: $(PROBES_TEST)
$(PROBES_TEST): test/unit/probes.c host/kvm/probes.c common/histogram.c \
		host/util/cleanup.c host/util/util.c
	@mkdir -p $(dir $@)
	@echo "  CC      $@"
	$(Q)$(UNIT_CC) -o $@ $^ -lm

PROGRESS_TEST := $(O)/san/progress-test
unit: $(PROGRESS_TEST)
$(PROGRESS_TEST): test/unit/progress.c host/util/progress.c host/util/util.c \
		host/util/cleanup.c host/util/progress.h
	@mkdir -p $(dir $@)
	@echo "  CC      $@"
	$(Q)$(UNIT_CC) -o $@ test/unit/progress.c host/util/progress.c \
		host/util/util.c host/util/cleanup.c -lpthread

PARAMS_TEST := $(O)/san/params-test
unit: $(PARAMS_TEST)
$(PARAMS_TEST): test/unit/params.c host/kvm/params.c host/util/cleanup.c \
		host/util/util.c host/kvm/params.h test/unit/standin.h
	@mkdir -p $(dir $@)
	@echo "  CC      $@"
	$(Q)$(UNIT_CC) -o $@ test/unit/params.c host/kvm/params.c \
		host/util/cleanup.c host/util/util.c -lpthread

NX_WORKER_TEST := $(O)/san/nx-worker-test
unit: $(NX_WORKER_TEST)
$(NX_WORKER_TEST): test/unit/nx_worker.c host/kvm/nx_worker.c \
		host/kvm/nx_worker.h test/unit/standin.h
	@mkdir -p $(dir $@)
	@echo "  CC      $@"
	$(Q)$(UNIT_CC) -o $@ test/unit/nx_worker.c host/kvm/nx_worker.c

STATS_TEST := $(O)/san/stats-test
unit: $(STATS_TEST)
$(STATS_TEST): test/unit/stats.c host/results/statistics.c \
		host/results/statistics.h host/results/resolution.c \
		host/results/resolution.h
	@mkdir -p $(dir $@)
	@echo "  CC      $@"
	$(Q)$(UNIT_CC) -o $@ test/unit/stats.c host/results/statistics.c \
		host/results/resolution.c -lm

STAGE2_DUMP_TEST := $(O)/san/stage2-dump-test
unit: $(STAGE2_DUMP_TEST)
$(STAGE2_DUMP_TEST): test/unit/stage2_dump.c host/kvm/stage2_dump.c \
		host/kvm/stage2_dump.h test/unit/check.h
	@mkdir -p $(dir $@)
	@echo "  CC      $@"
	$(Q)$(UNIT_CC) -o $@ test/unit/stage2_dump.c host/kvm/stage2_dump.c

