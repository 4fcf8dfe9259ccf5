// SPDX-License-Identifier: GPL-2.0
/*
 * Standalone boot under QEMU -M virt -kernel guest.elf: no VMM prepared
 * anything, so at EL1, with the MMU off, CPU 0 reads the device tree (RAM,
 * command line, CPUs), places its memory with the shared layout, builds
 * its page tables with the shared builder, turns the MMU on, starts the
 * other vCPUs with PSCI CPU_ON, and joins the common path as a
 * standalone run.
 *
 * Command line: vcpus=1 mem=64m page=4k|2m|1g plus the workload's words
 * (see include/mmubench/workload.h), e.g. "vcpus=2 passes=3 stride=2m".
 */
#include <mmubench/boot.h>
#include <mmubench/pgtable.h>
#include "arm64.h"
#include "standalone.h"
#include "../../guest.h"

#define CURRENT_EL_1	(1 << 2)
#define MPIDR_AFF_MASK	0xff00ffffffULL


extern char __image_start[], __ro_end[], __image_end[];
extern struct mmub_boot_info *arm64_boot_info;
__attribute__((noreturn)) void virt_main(u64 x0);

static struct mmub_boot_info virt_bi;
static struct arm64_fdt_info fdt;
static char cmdline[1024];

static u32 be32_at(u64 addr)
{
	const volatile u8 *p = (const volatile u8 *)addr;

	return (u32)p[0] << 24 | (u32)p[1] << 16 | (u32)p[2] << 8 | p[3];
}

/*
 * QEMU passes the device tree in x0 to Linux images; for an ELF image it
 * puts it at the start of RAM (below the image) and x0 may be 0.
 */
static const void *find_fdt(u64 x0)
{
	u64 ram = (u64)__image_start - ARM64_IMAGE_OFFSET;

	if (x0 && !(x0 & 7) && be32_at(x0) == ARM64_FDT_MAGIC)
		return (const void *)x0;
	if (be32_at(ram) == ARM64_FDT_MAGIC)
		return (const void *)ram;
	return NULL;
}

/* The RAM range that holds the image: [*base, return value). */
static u64 ram_of_image(u64 *base)
{
	u64 img = (u64)__image_start;
	u32 i;

	for (i = 0; i < fdt.nr_mem; i++) {
		if (img >= fdt.mem_base[i] &&
		    img - fdt.mem_base[i] < fdt.mem_size[i]) {
			*base = fdt.mem_base[i];
			return fdt.mem_base[i] + fdt.mem_size[i];
		}
	}
	return 0;
}

static s64 psci_call(u64 fn, u64 a1, u64 a2, u64 a3)
{
	register u64 x0 asm("x0") = fn;
	register u64 x1 asm("x1") = a1;
	register u64 x2 asm("x2") = a2;
	register u64 x3 asm("x3") = a3;

	/* SMCCC 1.0 lets the callee corrupt x4-x17. */
	asm volatile("hvc #0"
		     : "+r"(x0), "+r"(x1), "+r"(x2), "+r"(x3)
		     :
		     : "x4", "x5", "x6", "x7", "x8", "x9", "x10", "x11", "x12",
		       "x13", "x14", "x15", "x16", "x17", "memory");
	return (s64)x0;
}

/*
 * The others start with the MMU off and read the boot info, its pointer
 * and their kernel stacks from memory: push them out of the cache first.
 */
void arm64_start_secondaries(struct mmub_boot_info *bi,
			     const struct arm64_fdt_info *fdt)
{
	u64 self = 0, mpidr;
	u32 i, next = 1;

	asm volatile("mrs %0, mpidr_el1" : "=r"(self));
	self &= MPIDR_AFF_MASK;
	arm64_dcache_clean((u64)&arm64_boot_info,
			   (u64)&arm64_boot_info + sizeof(arm64_boot_info));
	arm64_dcache_clean((u64)bi, (u64)bi + sizeof(*bi));
	arm64_dcache_clean(bi->kstack_gpa,
			   bi->kstack_gpa + bi->nr_vcpus * MMUB_KSTACK_SIZE);
	for (i = 0; i < fdt->nr_cpus && next < bi->nr_vcpus; i++) {
		mpidr = fdt->mpidr[i];
		if ((mpidr & MPIDR_AFF_MASK) == self)
			continue;
		if (psci_call(PSCI_CPU_ON_64, mpidr,
			      (u64)arm64_secondary_entry, next))
			early_fail("PSCI: ", "CPU_ON failed for a vCPU");
		next++;
	}
}

static bool str_eq(const char *a, const char *b)
{
	while (*a && *a == *b) {
		a++;
		b++;
	}
	return *a == *b;
}

static void check_cpu(void)
{
	u64 el;

	asm volatile("mrs %0, CurrentEL" : "=r"(el));
	if (el != CURRENT_EL_1)
		early_fail("boot: ", "not entered at EL1 (boot without "
			   "virtualization=on or secure=on)");
	if (fdt.psci_method && !str_eq(fdt.psci_method, "hvc"))
		early_fail("PSCI: ", "the conduit is not HVC");
}

static void read_config(struct mmub_guest_args *a, u64 x0)
{
	const void *blob = find_fdt(x0);
	const char *s, *bad;
	u32 i;

	if (!blob)
		early_fail("device tree: ", "none found (boot with QEMU -M "
			   "virt -kernel guest.elf)");
	if (arm64_fdt_read(blob, &fdt))
		early_fail("device tree: ", "malformed");
	check_cpu();
	mmub_wl_defaults(&virt_bi.wl);
	s = fdt.bootargs ? fdt.bootargs : "";
	for (i = 0; s[i] && i < sizeof(cmdline) - 1; i++)
		cmdline[i] = s[i];
	cmdline[i] = 0;
	bad = mmub_cmdline_parse(cmdline, a, &virt_bi.wl, false);
	if (bad)
		early_fail("bad value for guest command line key ", bad);
	if (a->vcpus > fdt.nr_cpus)
		early_fail("vcpus: ", "more than the CPUs QEMU has (-smp)");
}

__attribute__((noreturn))
void virt_main(u64 x0)
{
	struct mmub_guest_args a = { .vcpus = 1, .mem = 64 * MMUB_MIB,
				     .page = MMUB_SZ_4K };
	u64 img = (u64)__image_start, ram_base = 0, ram_end;
	struct mmub_layout l;
	struct mmub_pt pt;

	read_config(&a, x0);
	ram_end = ram_of_image(&ram_base);
	if (!ram_end)
		early_fail("device tree: ", "no memory node holds the image");
	if (mmub_layout_compute(&l, ram_base, img, (u64)__image_end, a.vcpus,
				0, a.mem, a.page))
		early_fail("mem/page: ", "mem must be a multiple of page "
			   "(4k, 2m or 1g)");
	if (l.test_gpa + l.test_size > ram_end)
		early_fail("mem: ", "larger than the RAM QEMU gave (-m)");
	if (virt_bi.wl.stride > l.test_size)
		early_fail("stride: ", "larger than mem");

	virt_bi.flags |= MMUB_BOOT_STANDALONE;
	arm64_build_tables(&l, &pt, mmub_wl_executes(&virt_bi.wl));
	/* Written with the MMU off: no stale cached copy may hide them. */
	arm64_dcache_inval(l.pgtable, pt.pool);
	arm64_dcache_inval(img, (u64)__image_end);
	arm64_mmu_on(pt.root);

	/* RAM from QEMU is zero, but a warm reset may not be: clear ours. */
	__builtin_memset((void *)l.mailbox, 0, l.pgtable - l.mailbox);
	mmub_boot_info_init(&virt_bi, &l);
	virt_bi.pgtable_root = pt.root;
	asm volatile("mrs %0, cntfrq_el0" : "=r"(virt_bi.clk_hz));
	arm64_boot_info = &virt_bi;
	arm64_start_secondaries(&virt_bi, &fdt);
	arm64_el1_init(&virt_bi, 0);
}
