// SPDX-License-Identifier: GPL-2.0
/*
 * guest.efi: the EFI application that boots the guest image under UEFI
 * firmware (OVMF, QEMU_EFI.fd, or a real machine).  Why it is a loader
 * that carries guest.elf, and how it hands over: handover.h.
 *
 * Built with GNU-EFI.  gnu-efi's crt0 relocates the application and calls
 * efi_main() with the C convention of the build (SysV on x86_64), so
 * efi_main is not EFIAPI; calls into the firmware go through its EFIAPI
 * (ms_abi on x86_64) function pointers.
 *
 * Everything the loader finds wrong with the command line or the memory
 * it is given, it passes to the image, which reports it as the other
 * standalone entries do.  Only what stops the image itself from running
 * (a broken image, its pages taken, the wrong exception level) ends the
 * run here, with the same "MMUB error:" line on the firmware's console.
 */
#include "loader.h"

/* ELF64, as much of it as the loader reads. */
struct elf64_ehdr {
	u8 ident[16];
	u16 type;
	u16 machine;
	u32 version;
	u64 entry;
	u64 phoff;
	u64 shoff;
	u32 flags;
	u16 ehsize;
	u16 phentsize;
	u16 phnum;
	u16 shentsize;
	u16 shnum;
	u16 shstrndx;
};

struct elf64_phdr {
	u32 type;
	u32 flags;
	u64 offset;
	u64 vaddr;
	u64 paddr;
	u64 filesz;
	u64 memsz;
	u64 align;
};

struct elf64_nhdr {
	u32 namesz;
	u32 descsz;
	u32 type;
};

#define ELF_PT_LOAD	1
#define ELF_PT_NOTE	4

/* The guest image, built into guest.efi by payload.S. */
extern const u8 mmub_guest_elf[], mmub_guest_elf_end[];

struct image {
	const u8 *elf;
	u64 size;
	const struct elf64_phdr *ph;
	u32 phnum;
	u64 start;	/* page-aligned bounds of the PT_LOAD segments */
	u64 end;
	u64 entry;	/* the image's EFI entry */
};

static struct mmub_efi_handover ho;
static char cmdline[1024];

static EFI_MEMORY_DESCRIPTOR *map;
static UINTN map_size, map_cap, map_key, map_desc_size;

static bool str_eq(const char *a, const char *b)
{
	while (*a && *a == *b) {
		a++;
		b++;
	}
	return *a == *b;
}

/* Append @s to the handover's error text (truncated, always ended). */
static void err_str(const char *s)
{
	u32 n = 0;

	while (n < sizeof(ho.error) - 1 && ho.error[n])
		n++;
	while (n < sizeof(ho.error) - 1 && *s)
		ho.error[n++] = *s++;
	ho.error[n] = 0;
}

static void err_hex(u64 v)
{
	char buf[19];
	int i, j = 2;

	buf[0] = '0';
	buf[1] = 'x';
	for (i = 60; i > 0 && !((v >> i) & 0xf); i -= 4)
		;
	for (; i >= 0; i -= 4)
		buf[j++] = "0123456789abcdef"[(v >> i) & 0xf];
	buf[j] = 0;
	err_str(buf);
}

static void err_dec(u32 v)
{
	char buf[11];
	int i = sizeof(buf) - 1;

	buf[i] = 0;
	do
		buf[--i] = '0' + v % 10;
	while (v /= 10);
	err_str(buf + i);
}

/* The first error wins; returns -1 for "return fail(...)". */
static int fail(const char *what, const char *detail)
{
	if (!ho.error[0]) {
		err_str(what);
		err_str(detail);
	}
	return -1;
}

__attribute__((noreturn))
static void fatal(void)
{
	Print(L"MMUB error: %a\nMMUB-EXIT status=2\n", ho.error);
	loader_fail_exit();
}

/* The address in the image's "mmubench-efi" note, or 0. */
static u64 note_entry(const struct image *im, const struct elf64_phdr *p)
{
	u64 off = p->offset, end = p->offset + p->filesz, desc, v = 0;
	const struct elf64_nhdr *n;
	u32 i;

	while (off + sizeof(*n) <= end) {
		n = (const void *)(im->elf + off);
		desc = off + sizeof(*n) + mmub_align_up(n->namesz, 4);
		if (n->namesz == sizeof(MMUB_EFI_NOTE_NAME) &&
		    n->type == MMUB_EFI_NOTE_ENTRY && n->descsz == 8 &&
		    desc + 8 <= end &&
		    str_eq((const char *)(n + 1), MMUB_EFI_NOTE_NAME))
			for (i = 0; i < 8; i++)
				v |= (u64)im->elf[desc + i] << (8 * i);
		off = desc + mmub_align_up(n->descsz, 4);
	}
	return v;
}

static void read_image(struct image *im)
{
	const struct elf64_ehdr *eh = (const void *)mmub_guest_elf;
	const struct elf64_phdr *p;
	u64 start = ~0ULL, end = 0;

	im->elf = mmub_guest_elf;
	im->size = (u64)(mmub_guest_elf_end - mmub_guest_elf);
	im->entry = 0;
	if (im->size < sizeof(*eh) || eh->ident[0] != 0x7f ||
	    eh->ident[1] != 'E' || eh->ident[2] != 'L' || eh->ident[3] != 'F' ||
	    eh->ident[4] != 2 || eh->ident[5] != 1 ||
	    eh->machine != loader_elf_machine ||
	    eh->phentsize != sizeof(*p) || eh->phoff > im->size ||
	    (im->size - eh->phoff) / sizeof(*p) < eh->phnum) {
		fail("EFI: ", "the guest image in guest.efi is not an ELF64 "
		     "image for this architecture");
		fatal();
	}
	im->ph = (const void *)(im->elf + eh->phoff);
	im->phnum = eh->phnum;
	for (p = im->ph; p < im->ph + im->phnum; p++) {
		if (p->offset > im->size || im->size - p->offset < p->filesz)
			break;
		if (p->type == ELF_PT_NOTE && !im->entry)
			im->entry = note_entry(im, p);
		if (p->type != ELF_PT_LOAD)
			continue;
		if (p->filesz > p->memsz || p->vaddr != p->paddr)
			break;
		start = mmub_min(start, p->paddr);
		end = mmub_max(end, p->paddr + p->memsz);
	}
	im->start = mmub_align_down(start, MMUB_SZ_4K);
	im->end = mmub_align_up(end, MMUB_SZ_4K);
	if (p != im->ph + im->phnum || start >= end || !im->entry ||
	    im->entry < im->start || im->entry >= im->end) {
		fail("EFI: ", "the guest image in guest.efi has bad segments "
		     "or no EFI entry note");
		fatal();
	}
}

/* Take [start, end) from the firmware at exactly that address. */
static int claim(u64 start, u64 end)
{
	EFI_PHYSICAL_ADDRESS a = start;

	return BS->AllocatePages(AllocateAddress, EfiLoaderData,
				 (end - start) / MMUB_SZ_4K, &a) ==
	       EFI_SUCCESS ? 0 : -1;
}

static void copy_image(const struct image *im)
{
	const struct elf64_phdr *p;

	ZeroMem((void *)im->start, im->end - im->start);
	for (p = im->ph; p < im->ph + im->phnum; p++)
		if (p->type == ELF_PT_LOAD)
			CopyMem((void *)p->paddr, (void *)(im->elf + p->offset),
				p->filesz);
}

/* The firmware's memory map into @map; room to spare for a later call. */
static int get_map(void)
{
	UINT32 version;
	EFI_STATUS st;

	for (;;) {
		map_size = map_cap;
		st = BS->GetMemoryMap(&map_size, map, &map_key, &map_desc_size,
				      &version);
		if (st != EFI_BUFFER_TOO_SMALL)
			return st == EFI_SUCCESS ? 0 : -1;
		if (map)
			BS->FreePool(map);
		map = NULL;
		map_cap = map_size + 16 * map_desc_size;
		if (BS->AllocatePool(EfiLoaderData, map_cap, (void **)&map) !=
		    EFI_SUCCESS)
			return -1;
	}
}

/*
 * The lowest @page-aligned range of @size bytes at or above @after that
 * is free RAM, claimed; 0 if there is none.
 */
static u64 claim_test_memory(u64 after, u64 size, u64 page)
{
	u64 best, s, e, a, i, n;
	EFI_MEMORY_DESCRIPTOR *d;

	if (get_map())
		return 0;
	n = map_size / map_desc_size;
	for (;;) {
		best = 0;
		for (i = 0; i < n; i++) {
			d = (void *)((u8 *)map + i * map_desc_size);
			if (d->Type != EfiConventionalMemory)
				continue;
			s = d->PhysicalStart;
			e = s + d->NumberOfPages * MMUB_SZ_4K;
			a = mmub_align_up(mmub_max(s, after), page);
			if (a < e && e - a >= size && (!best || a < best))
				best = a;
		}
		if (!best)
			return 0;
		if (!claim(best, best + size))
			return best;
		/* Taken since the map was read: look above it. */
		after = best + page;
	}
}

/* LoadOptions as ASCII; empty if they are not a UCS-2 command line. */
static int read_cmdline(EFI_HANDLE image)
{
	EFI_LOADED_IMAGE *li;
	const CHAR16 *s;
	UINTN n, i;
	CHAR16 c;

	cmdline[0] = 0;
	if (BS->HandleProtocol(image, &LoadedImageProtocol, (void **)&li) !=
	    EFI_SUCCESS || !li->LoadOptions)
		return 0;
	s = li->LoadOptions;
	n = li->LoadOptionsSize / sizeof(CHAR16);
	for (i = 0; i < n && s[i]; i++) {
		c = s[i];
		if (c == '\t' || c == '\r' || c == '\n')
			c = ' ';
		/* A boot entry's binary OptionalData: no command line. */
		if (c < 0x20 || c > 0x7e) {
			cmdline[0] = 0;
			return 0;
		}
		if (i == sizeof(cmdline) - 1)
			return fail("command line: ", "longer than 1023 "
				    "characters");
		cmdline[i] = (char)c;
	}
	cmdline[i] = 0;
	return 0;
}

/* The command line, the layout, and the memory for it: 0 or -1 (error). */
static int configure(const struct image *im)
{
	struct mmub_guest_args a = { .vcpus = 1, .mem = 64 * MMUB_MIB,
				     .page = MMUB_SZ_4K };
	u64 sys_base = loader_sys_base(im->start), test;
	struct mmub_layout l;
	const char *why;
	u32 cpus = 0;

	mmub_wl_defaults(&ho.wl);
	/* The UEFI Shell passes the command's own path as a first word. */
	why = mmub_cmdline_parse(cmdline, &a, &ho.wl, true);
	if (why)
		return fail("bad value for guest command line key ", why);
	why = loader_page_check(a.page);
	if (why)
		return fail(why, "");
	if (a.vcpus > 1) {
		why = loader_smp_prepare(&ho, &cpus);
		if (why)
			return fail(why, "");
		if (cpus && a.vcpus > cpus) {
			fail("vcpus: more than the ", "");
			err_dec(cpus);
			err_str(cpus == 1 ? " CPU" : " CPUs");
			err_str(" the firmware has (QEMU -smp)");
			return -1;
		}
	}
	if (mmub_layout_compute(&l, sys_base, im->start, im->end, a.vcpus, 0,
				a.mem, a.page))
		return fail("mem/page: ", "mem must be a multiple of page "
			    "(4k, 2m or 1g)");
	if (ho.wl.stride > l.test_size)
		return fail("stride: ", "larger than mem");
	if (claim(im->end, l.sys_end)) {
		fail("mem: the system memory after the image, ", "");
		err_hex(im->end);
		err_str("-");
		err_hex(l.sys_end);
		err_str(", is not free RAM (its page tables grow with mem; "
			"page=2m needs fewer)");
		return -1;
	}
	ho.owned_end = l.sys_end;
	test = claim_test_memory(l.sys_end, l.test_size, l.guest_page);
	if (!test)
		return fail("mem: ", "larger than the free RAM the firmware "
			    "reports (QEMU -m)");
	if (mmub_layout_compute(&l, sys_base, im->start, im->end, a.vcpus,
				test, a.mem, a.page))
		return fail("EFI: ", "no layout with the test memory found");
	ho.layout = l;
	return 0;
}

static void exit_boot_services(EFI_HANDLE image)
{
	int tries;

	/* The map changes under us (e.g. an event allocates): try again. */
	for (tries = 0; tries < 8; tries++) {
		if (get_map())
			break;
		if (BS->ExitBootServices(image, map_key) == EFI_SUCCESS)
			return;
	}
	fail("EFI: ", "ExitBootServices failed");
	fatal();
}

EFI_STATUS efi_main(EFI_HANDLE image, EFI_SYSTEM_TABLE *systab)
{
	struct image im;
	const char *why;

	InitializeLib(image, systab);
	ho.magic = MMUB_EFI_MAGIC;
	ho.size = sizeof(ho);
	read_image(&im);
	why = loader_cpu_check();
	if (why) {
		fail(why, "");
		fatal();
	}
	if (claim(im.start, im.end)) {
		fail("EFI: the guest image's memory, ", "");
		err_hex(im.start);
		err_str("-");
		err_hex(im.end);
		err_str(", is not free RAM");
		fatal();
	}
	ho.owned_end = im.end;
	copy_image(&im);

	if (!read_cmdline(image) && !configure(&im)) {
		ho.clk_hz = loader_clk_hz();
		Print(L"mmubench EFI loader: image 0x%lx-0x%lx, system memory "
		      L"to 0x%lx, test memory 0x%lx-0x%lx\n", im.start, im.end,
		      ho.layout.sys_end, ho.layout.test_gpa,
		      ho.layout.test_gpa + ho.layout.test_size);
	}
	exit_boot_services(image);
	loader_enter(im.entry, &ho, im.start, ho.owned_end);
}
