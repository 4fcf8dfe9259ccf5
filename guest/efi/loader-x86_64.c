// SPDX-License-Identifier: GPL-2.0
/* guest.efi's loader on x86_64 (see loader.h). */
#include "loader.h"
#include "../arch/x86_64/x86.h"

#define EM_X86_64		62
#define CPUID_PDPE1GB		(1U << 26)	/* 0x80000001 EDX */

const u16 loader_elf_machine = EM_X86_64;

/* As the PVH entry: the system memory starts at 0, the image at 1 MiB. */
u64 loader_sys_base(u64 image_start)
{
	(void)image_start;
	return 0;
}

const char *loader_page_check(u64 page)
{
	u32 eax = 0x80000000, ebx, ecx, edx;

	if (page != MMUB_SZ_1G)
		return NULL;
	asm volatile("cpuid" : "+a"(eax), "=b"(ebx), "=c"(ecx), "=d"(edx));
	if (eax >= 0x80000001) {
		eax = 0x80000001;
		asm volatile("cpuid"
			     : "+a"(eax), "=b"(ebx), "=c"(ecx), "=d"(edx));
		if (edx & CPUID_PDPE1GB)
			return NULL;
	}
	return "page=1g: this CPU has no 1G pages (pdpe1gb)";
}

const char *loader_cpu_check(void)
{
	return NULL;
}

/*
 * EFI_MP_SERVICES_PROTOCOL (UEFI PI specification, volume 2), which
 * gnu-efi does not define: only its first member is called here.
 */
#define MP_SERVICES_GUID \
	{ 0x3fdda605, 0xa76e, 0x4f46, \
	  { 0xad, 0x29, 0x12, 0xf4, 0x53, 0x1b, 0x3d, 0x08 } }

struct mp_services {
	EFI_STATUS (EFIAPI *get_number_of_processors)(struct mp_services *mp,
						      UINTN *nr,
						      UINTN *nr_enabled);
};

/*
 * The APs are restarted after ExitBootServices with INIT and SIPI into a
 * real-mode trampoline at X86_AP_TRAMPOLINE (x86_start_aps()): that page
 * must be ours, not the firmware's.
 */
const char *loader_smp_prepare(struct mmub_efi_handover *ho, u32 *nr_cpus)
{
	EFI_GUID guid = MP_SERVICES_GUID;
	EFI_PHYSICAL_ADDRESS a = X86_AP_TRAMPOLINE;
	struct mp_services *mp;
	UINTN nr, enabled;

	(void)ho;
	*nr_cpus = 0;
	if (BS->LocateProtocol(&guid, NULL, (void **)&mp) == EFI_SUCCESS &&
	    mp->get_number_of_processors(mp, &nr, &enabled) == EFI_SUCCESS)
		*nr_cpus = (u32)enabled;
	if (BS->AllocatePages(AllocateAddress, EfiLoaderData, 1, &a) !=
	    EFI_SUCCESS)
		return "vcpus: the APs' trampoline page at 0x8000 is not free "
		       "RAM under this firmware";
	return NULL;
}

static u64 rdtsc(void)
{
	u32 lo, hi;

	asm volatile("rdtsc" : "=a"(lo), "=d"(hi));
	return ((u64)hi << 32) | lo;
}

/* The TSC over 50 ms of the firmware's Stall(). */
u64 loader_clk_hz(void)
{
	u64 t0, t1;

	t0 = rdtsc();
	BS->Stall(50000);
	t1 = rdtsc();
	return (t1 - t0) * 20;
}

/* A SysV call, which is what entry-x86_64.S expects. */
void loader_enter(u64 entry, struct mmub_efi_handover *ho, u64 start,
		  u64 end)
{
	(void)start;
	(void)end;
	asm volatile("cli" ::: "memory");
	((void (*)(struct mmub_efi_handover *))entry)(ho);
	__builtin_unreachable();
}

/* isa-debug-exit if QEMU has one (exit status 5), else power off. */
void loader_fail_exit(void)
{
	asm volatile("outl %0, %w1" : : "a"(2), "Nd"(QEMU_DEBUG_EXIT_PORT));
	RT->ResetSystem(EfiResetShutdown, EFI_ABORTED, 0, NULL);
	for (;;)
		asm volatile("hlt");
}
