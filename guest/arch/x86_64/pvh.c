// SPDX-License-Identifier: GPL-2.0
/*
 * PVH boot under QEMU -kernel: no VMM prepared anything, so at CPL0 the
 * guest reads its command line and memory map, places its memory with the
 * shared layout, builds its page tables with the shared builder, measures
 * the TSC against the PIT, starts the other vCPUs (-smp), and joins the
 * common path as a standalone run.
 *
 * Command line: vcpus=1 mem=64m page=4k|2m|1g plus the workload's words
 * (see include/mmubench/workload.h), e.g. "passes=3 stride=2m random=1".
 */
#include <mmubench/boot.h>
#include <mmubench/pgtable.h>
#include "x86.h"
#include "standalone.h"
#include "../../guest.h"

#define HVM_START_MAGIC	0x336ec578
#define E820_RAM	1
#define PIT_HZ		1193182

struct hvm_start_info {
	u32 magic;
	u32 version;
	u32 flags;
	u32 nr_modules;
	u64 modlist_paddr;
	u64 cmdline_paddr;
	u64 rsdp_paddr;
	u64 memmap_paddr;
	u32 memmap_entries;
	u32 reserved;
};

struct hvm_memmap_entry {
	u64 addr;
	u64 size;
	u32 type;
	u32 reserved;
};

static struct mmub_boot_info pvh_bi;
extern char __image_start[], __image_end[];

static u8 inb(u16 port)
{
	u8 v;

	asm volatile("inb %w1, %0" : "=a"(v) : "Nd"(port));
	return v;
}

static void outb(u16 port, u8 v)
{
	asm volatile("outb %b0, %w1" : : "a"(v), "Nd"(port));
}

#define PIT_CH0		0x40
#define PIT_CMD		0x43
/* The TSC of any x86 QEMU would run; a slower "TSC" is a bad reading. */
#define TSC_MIN_HZ	(10 * 1000 * 1000ULL)

/* Channel 0's count, latched so that both bytes are of one moment. */
static u16 pit_count0(void)
{
	u8 lo, hi;

	outb(PIT_CMD, 0x00);
	lo = inb(PIT_CH0);
	hi = inb(PIT_CH0);
	return (u16)(hi << 8 | lo);
}

/*
 * Count TSC ticks over 10 ms of PIT channel 0, read back: 11931 ticks,
 * one of them 0.008 %.  Not channel 2 through port 0x61: that port is
 * the PC speaker's, which -M microvm lacks; it reads 0xff there, the
 * wait ended at once, and clk_hz came out near 630 kHz for a 2.3 GHz
 * TSC (the APs' start-up waits, which use it, then lost a vCPU in 2 of
 * 6 boots).  Channel 0 is in every PIT.
 */
static u64 tsc_hz_from_pit(void)
{
	u16 start, elapsed = 0;
	u64 t0, t1, hz, reads = 0;

	outb(PIT_CMD, 0x34);		/* channel 0, lo/hi byte, mode 2 */
	outb(PIT_CH0, 0);
	outb(PIT_CH0, 0);		/* period 65536 ticks, 55 ms */
	start = pit_count0();
	t0 = rdtsc();
	while (elapsed < PIT_HZ / 100) {
		elapsed = (u16)(start - pit_count0());
		/* A tick is 0.84 us, a read three port accesses. */
		if (!elapsed && ++reads > 100000)
			break;
	}
	t1 = rdtsc();
	hz = elapsed ? (t1 - t0) * PIT_HZ / elapsed : 0;
	if (hz < TSC_MIN_HZ)
		early_fail("TSC: ", "no PIT to measure it against, or below "
			   "10 MHz (-M microvm needs pit=on, its default)");
	return hz;
}

static u64 ram_end_of(const struct hvm_start_info *si, u64 addr)
{
	const struct hvm_memmap_entry *m;
	u32 i;

	if (si->version < 1 || !si->memmap_paddr)
		return 0;
	m = (const struct hvm_memmap_entry *)si->memmap_paddr;
	for (i = 0; i < si->memmap_entries; i++)
		if (m[i].type == E820_RAM && addr >= m[i].addr &&
		    addr - m[i].addr < m[i].size)
			return m[i].addr + m[i].size;
	return 0;
}

__attribute__((noreturn))
void pvh_main(struct hvm_start_info *si)
{
	struct mmub_guest_args a = { .vcpus = 1, .mem = 64 * MMUB_MIB,
				     .page = MMUB_SZ_4K };
	const char *bad;
	u64 image_start = (u64)__image_start, image_end = (u64)__image_end;
	struct mmub_layout l;
	struct mmub_pt pt;
	u64 ram_end;

	if (si->magic != HVM_START_MAGIC)
		early_fail("PVH: ", "bad start_info magic");
	mmub_wl_defaults(&pvh_bi.wl);
	bad = mmub_cmdline_parse((char *)si->cmdline_paddr, &a, &pvh_bi.wl,
				 false);
	if (bad)
		early_fail("bad value for guest command line key ", bad);
	if (a.vcpus > 1 && !ram_end_of(si, X86_AP_TRAMPOLINE))
		early_fail("vcpus: ", "no RAM for the AP trampoline at 0x8000");
	if (a.page == MMUB_SZ_1G)
		early_fail("page=1g: ", "not offered by the PVH entry");
	if (mmub_layout_compute(&l, 0, image_start, image_end, a.vcpus, 0,
				a.mem, a.page))
		early_fail("mem/page: ", "mem must be a multiple of page "
			   "(4k or 2m)");
	ram_end = ram_end_of(si, image_start);
	if (!ram_end || l.test_gpa + l.test_size > ram_end)
		early_fail("mem: ", "larger than the RAM QEMU gave (-m)");
	if (pvh_bi.wl.stride > l.test_size)
		early_fail("stride: ", "larger than mem");

	/* RAM from QEMU is zero, but a warm reset may not be: clear ours. */
	__builtin_memset((void *)l.mailbox, 0, l.pgtable - l.mailbox);
	pvh_bi.flags |= MMUB_BOOT_STANDALONE;
	x86_build_tables(&l, &pt, mmub_wl_executes(&pvh_bi.wl));
	mmub_boot_info_init(&pvh_bi, &l);
	pvh_bi.pgtable_root = pt.root;
	pvh_bi.clk_hz = tsc_hz_from_pit();
	asm volatile("mov %0, %%cr3" : : "r"(pt.root) : "memory");
	x86_start_aps(&pvh_bi, &pt);
	x86_cpl0_init(&pvh_bi, 0);
}
