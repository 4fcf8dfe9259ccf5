// SPDX-License-Identifier: GPL-2.0
/* Load the guest ELF image into the system memory and check its protocol. */
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include "util/util.h"
#include "vmm/vmm.h"

struct image {
	u8 *data;
	size_t size;
	Elf64_Ehdr *eh;
	Elf64_Phdr *ph;
};

static int image_read(struct image *im, const char *path)
{
	struct stat st;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		die("--guest %s: %s (build it with make)", path,
		    strerror(errno));
	if (fstat(fd, &st) || st.st_size < (off_t)sizeof(Elf64_Ehdr))
		die("--guest %s: not a guest image (too small)", path);
	im->size = (size_t)st.st_size;
	im->data = malloc(im->size);
	if (!im->data || read(fd, im->data, im->size) != (ssize_t)im->size)
		die("--guest %s: cannot read it", path);
	close(fd);
	im->eh = (Elf64_Ehdr *)im->data;
	if (memcmp(im->eh->e_ident, ELFMAG, SELFMAG) ||
	    im->eh->e_ident[EI_CLASS] != ELFCLASS64)
		die("--guest %s: not an ELF64 file", path);
	if (im->eh->e_machine != arch_elf_machine)
		die("--guest %s: built for another architecture than this "
		    "mmubench (%s)", path, arch_name);
	if (im->eh->e_phoff + (u64)im->eh->e_phnum * sizeof(Elf64_Phdr) >
	    im->size)
		die("--guest %s: truncated program headers", path);
	im->ph = (Elf64_Phdr *)(im->data + im->eh->e_phoff);
	return 0;
}

/* The "mmubench" note carries the boot protocol version. */
static u32 image_version(const struct image *im)
{
	u32 i;

	for (i = 0; i < im->eh->e_phnum; i++) {
		const Elf64_Phdr *p = &im->ph[i];
		u64 off = p->p_offset, end = p->p_offset + p->p_filesz;

		if (p->p_type != PT_NOTE || end > im->size)
			continue;
		while (off + sizeof(Elf64_Nhdr) <= end) {
			const Elf64_Nhdr *n = (void *)(im->data + off);
			const char *name = (const char *)(n + 1);
			u64 desc = off + sizeof(*n) + mmub_align_up(n->n_namesz, 4);

			if (n->n_namesz == 9 && desc + 4 <= end &&
			    !memcmp(name, "mmubench", 9) &&
			    n->n_type == MMUB_NOTE_VERSION)
				return *(const u32 *)(im->data + desc);
			off = desc + mmub_align_up(n->n_descsz, 4);
		}
	}
	return 0;
}

static void image_bounds(const struct image *im, u64 *start, u64 *end)
{
	u32 i;

	*start = ~0ULL;
	*end = 0;
	for (i = 0; i < im->eh->e_phnum; i++) {
		const Elf64_Phdr *p = &im->ph[i];

		if (p->p_type != PT_LOAD || !p->p_memsz)
			continue;
		*start = mmub_min(*start, p->p_paddr);
		*end = mmub_max(*end, p->p_paddr + p->p_memsz);
	}
}

int elf_probe(const char *path, u64 *image_start, u64 *image_end)
{
	struct image im;
	u32 v;

	image_read(&im, path);
	v = image_version(&im);
	if (v != MMUB_BOOT_VERSION)
		die("--guest %s: boot protocol version %u, this mmubench "
		    "speaks %u: rebuild both with make", path, v,
		    MMUB_BOOT_VERSION);
	image_bounds(&im, image_start, image_end);
	free(im.data);
	if (*image_start >= *image_end)
		die("--guest %s: no loadable segment", path);
	return 0;
}

int elf_load(struct vm *vm, const char *path, u64 *image_start,
	     u64 *image_end, u64 *entry)
{
	u64 base = vm->layout.sys_base;
	struct image im;
	u32 i;

	image_read(&im, path);
	image_bounds(&im, image_start, image_end);
	for (i = 0; i < im.eh->e_phnum; i++) {
		const Elf64_Phdr *p = &im.ph[i];

		if (p->p_type != PT_LOAD)
			continue;
		if (p->p_paddr < base || p->p_paddr + p->p_memsz >
		    base + vm->sys_size || p->p_filesz > p->p_memsz ||
		    p->p_offset + p->p_filesz > im.size)
			die("--guest %s: segment at 0x%llx does not fit the "
			    "system memory", path,
			    (unsigned long long)p->p_paddr);
		memcpy(vm->sys + (p->p_paddr - base), im.data + p->p_offset,
		       p->p_filesz);
		memset(vm->sys + (p->p_paddr - base) + p->p_filesz, 0,
		       p->p_memsz - p->p_filesz);
	}
	*entry = im.eh->e_entry;
	free(im.data);
	return 0;
}
