// SPDX-License-Identifier: GPL-2.0
/* Shared by the x86_64 standalone entries; see standalone.h. */
#include "x86.h"
#include "standalone.h"

#define MSR_APIC_BASE		0x1b
#define APIC_BASE_X2APIC	(1ULL << 10)
#define APIC_BASE_ADDR		0x000ffffffffff000ULL
#define APIC_ICR_LO		0x300
#define APIC_ICR_HI		0x310
#define MSR_X2APIC_ICR		0x830
#define ICR_INIT		(5 << 8)
#define ICR_STARTUP		(6 << 8)
#define ICR_BUSY		(1 << 12)
#define ICR_ASSERT		(1 << 14)
#define ICR_ALL_BUT_SELF	(3 << 18)
#define AP_WAIT_S		5

_Static_assert(MMUB_KSTACK_SIZE == 1 << X86_KSTACK_SHIFT,
	       "head.S computes AP stacks with X86_KSTACK_SHIFT");

/* Read by the APs in head.S; written before the first SIPI. */
u64 x86_ap_bi, x86_ap_kstack;
u32 x86_ap_cr3, x86_ap_nr, x86_ap_next;
extern char x86_ap_tramp[], x86_ap_tramp_end[];

/* The xAPIC's registers, or 0 when firmware left it in x2APIC mode. */
static u64 apic_mmio;

static void early_puts(const char *s)
{
	while (*s)
		asm volatile("outb %b0, %w1" : : "a"(*s++), "Nd"(COM1_PORT));
}

void early_fail(const char *what, const char *detail)
{
	early_puts("MMUB error: ");
	early_puts(what);
	early_puts(detail);
	early_puts("\nMMUB-EXIT status=2\n");
	asm volatile("outl %0, %w1" : : "a"(2), "Nd"(QEMU_DEBUG_EXIT_PORT));
	for (;;)
		asm volatile("cli; hlt");
}

static void *identity(void *ctx, u64 gpa)
{
	(void)ctx;
	return (void *)gpa;
}

void x86_build_tables(const struct mmub_layout *l, struct mmub_pt *pt,
		      bool test_exec)
{
	u32 sys = MMUB_PROT_WRITE | MMUB_PROT_EXEC | MMUB_PROT_USER;
	u32 test = MMUB_PROT_WRITE | MMUB_PROT_USER;

	if (test_exec)
		test |= MMUB_PROT_EXEC;
	/* Firmware's memory need not be zero: the root is cleared here. */
	__builtin_memset((void *)l->pgtable, 0, MMUB_SZ_4K);
	if (mmub_pt_init(pt, &mmub_pt_x86_64, identity, NULL, l->pgtable,
			 l->pgtable_size))
		early_fail("page tables: ", "bad pool");
	if (mmub_pt_map(pt, MMUB_SZ_4K, MMUB_SZ_4K, l->sys_end - MMUB_SZ_4K,
			MMUB_SZ_4K, sys) ||
	    mmub_pt_map(pt, l->test_gpa, l->test_gpa, l->test_size,
			l->guest_page, test))
		early_fail("page tables: ", "pool too small or page size "
			   "not supported");
}

static void delay_us(const struct mmub_boot_info *bi, u64 us)
{
	u64 t0 = rdtsc(), ticks = bi->clk_hz / 1000000 * us;

	while (rdtsc() - t0 < ticks)
		asm volatile("pause");
}

/* Use the local APIC in whatever mode the firmware left it. */
static void apic_init(struct mmub_pt *pt)
{
	u32 lo, hi;
	u64 base;

	asm volatile("rdmsr" : "=a"(lo), "=d"(hi) : "c"(MSR_APIC_BASE));
	base = (u64)hi << 32 | lo;
	if (base & APIC_BASE_X2APIC)
		return;
	apic_mmio = base & APIC_BASE_ADDR;
	/*
	 * Into the live tables: no TLB can hold an address that was not
	 * mapped.  Cacheable by PAT, but firmware's MTRRs make it UC, and
	 * under QEMU or KVM every access is emulated anyway.
	 */
	if (mmub_pt_map(pt, apic_mmio, apic_mmio, MMUB_SZ_4K, MMUB_SZ_4K,
			MMUB_PROT_WRITE))
		early_fail("local APIC: ", "cannot map its registers");
}

/* CPUID.1:ECX bit 31, which hypervisors set and CPUs leave clear. */
static bool under_hypervisor(void)
{
	u32 a = 1, b, c = 0, d;

	asm volatile("cpuid" : "+a"(a), "=b"(b), "+c"(c), "=d"(d));
	return c >> 31;
}

/* An IPI to every CPU but this one. */
static void apic_send_others(u32 icr)
{
	volatile u32 *lo = (volatile u32 *)(apic_mmio + APIC_ICR_LO);

	icr |= ICR_ALL_BUT_SELF | ICR_ASSERT;
	if (!apic_mmio) {
		asm volatile("wrmsr"
			     : : "c"(MSR_X2APIC_ICR), "a"(icr), "d"(0)
			     : "memory");
		return;
	}
	*(volatile u32 *)(apic_mmio + APIC_ICR_HI) = 0;
	*lo = icr;
	while (*lo & ICR_BUSY)
		asm volatile("pause");
}

static char *put_str(char *p, const char *s)
{
	while (*s)
		*p++ = *s++;
	return p;
}

static char *put_u32(char *p, u32 v)
{
	char t[10];
	int n = 0;

	do
		t[n++] = '0' + v % 10;
	while (v /= 10);
	while (n)
		*p++ = t[--n];
	return p;
}

__attribute__((noreturn))
static void too_few_aps(u32 arrived, u32 wanted)
{
	static char msg[96];
	char *p = msg;

	p = put_str(p, "only ");
	p = put_u32(p, arrived);
	p = put_str(p, " of ");
	p = put_u32(p, wanted);
	p = put_str(p, " vCPUs started (is QEMU's -smp below vcpus=?)");
	*p = 0;
	early_fail("vcpus: ", msg);
}

void x86_start_aps(struct mmub_boot_info *bi, struct mmub_pt *pt)
{
	u32 sipi = ICR_STARTUP | X86_AP_TRAMPOLINE >> 12, arrived;
	u64 page, t0;

	if (bi->nr_vcpus == 1)
		return;
	if (!mmub_pt_lookup(pt, X86_AP_TRAMPOLINE, &page) || pt->root >> 32)
		early_fail("vcpus: ", "the APs' trampoline or page tables "
			   "are out of their reach");
	apic_init(pt);
	__builtin_memcpy((void *)X86_AP_TRAMPOLINE, x86_ap_tramp,
			 x86_ap_tramp_end - x86_ap_tramp);
	x86_ap_bi = (u64)bi;
	x86_ap_kstack = bi->kstack_gpa;
	x86_ap_cr3 = (u32)pt->root;
	x86_ap_nr = bi->nr_vcpus;
	x86_ap_next = 1;
	/* x2APIC ICR writes do not wait for earlier stores: fence them. */
	asm volatile("mfence" : : : "memory");

	/*
	 * INIT, then SIPI twice (the second is lost on an AP that woke).
	 * The MP spec's 10 ms after INIT is for old hardware; under a
	 * hypervisor, as Linux also does, no wait.
	 */
	apic_send_others(ICR_INIT);
	if (!under_hypervisor())
		delay_us(bi, 10000);
	apic_send_others(sipi);
	delay_us(bi, 200);
	apic_send_others(sipi);

	t0 = rdtsc();
	while ((arrived = __atomic_load_n(&x86_ap_next, __ATOMIC_ACQUIRE)) <
	       bi->nr_vcpus) {
		if (rdtsc() - t0 > AP_WAIT_S * bi->clk_hz)
			too_few_aps(arrived, bi->nr_vcpus);
		asm volatile("pause");
	}
}
