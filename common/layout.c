// SPDX-License-Identifier: GPL-2.0
/* One placement of the guest's memory, used by the host and the guest. */
#include <mmubench/boot.h>
#include <mmubench/pgtable.h>

int mmub_layout_compute(struct mmub_layout *l, u64 sys_base, u64 image_start,
			u64 image_end, u32 nr_vcpus, u64 test_gpa,
			u64 test_size, u64 guest_page)
{
	u64 p, sys_guess;

	if (!nr_vcpus || nr_vcpus > MMUB_MAX_VCPUS || image_end < image_start)
		return -1;
	if (guest_page != MMUB_SZ_4K && guest_page != MMUB_SZ_2M &&
	    guest_page != MMUB_SZ_1G)
		return -1;

	l->sys_base = sys_base;
	l->boot_info = sys_base + 0x1000;
	l->image_start = image_start;
	l->image_end = image_end;
	l->nr_vcpus = nr_vcpus;
	l->guest_page = guest_page;

	p = mmub_align_up(image_end, MMUB_SZ_4K);
	l->mailbox = p;
	p += mmub_align_up(nr_vcpus * sizeof(struct mmub_mailbox), MMUB_SZ_4K);
	l->kstack = p;
	p += (u64)nr_vcpus * MMUB_KSTACK_SIZE;
	l->ustack = p;
	p += (u64)nr_vcpus * MMUB_USTACK_SIZE;
	l->heap = p;
	p += MMUB_HEAP_SIZE;
	l->pgtable = p;

	/*
	 * The system memory is mapped with 4K pages, so its own tables count
	 * too; guess its size generously (the tables for the test memory
	 * dominate) and size the table pool for both.
	 */
	sys_guess = p - sys_base + 64 * MMUB_MIB;
	l->pgtable_size = (mmub_pt_tables_needed(sys_guess, MMUB_SZ_4K) +
			   mmub_pt_tables_needed(test_size, guest_page)) *
			  MMUB_SZ_4K;
	p += l->pgtable_size;
	l->sys_end = mmub_align_up(p, MMUB_SZ_2M);

	if (!test_gpa)
		test_gpa = mmub_align_up(l->sys_end, guest_page);
	if (!mmub_is_aligned(test_gpa, guest_page) ||
	    !mmub_is_aligned(test_size, guest_page) || test_gpa < l->sys_end)
		return -1;
	l->test_gpa = test_gpa;
	l->test_size = test_size;
	return 0;
}

int mmub_layout_nested(struct mmub_layout *l, u64 l2_page)
{
	u64 p = l->pgtable + l->pgtable_size, sys_guess;

	if (l2_page != MMUB_SZ_4K && l2_page != MMUB_SZ_2M &&
	    l2_page != MMUB_SZ_1G)
		return -1;
	l->nested = p;
	p += (u64)l->nr_vcpus * MMUB_NESTED_VCPU_SIZE;
	l->npt = p;
	/* As for the guest's own tables: the doorbell's from the slack. */
	sys_guess = p - l->sys_base + 64 * MMUB_MIB;
	l->npt_size = (mmub_pt_tables_needed(sys_guess, MMUB_SZ_4K) +
		       mmub_pt_tables_needed(l->test_size, l2_page)) *
		      MMUB_SZ_4K;
	p += l->npt_size;
	l->sys_end = mmub_align_up(p, MMUB_SZ_2M);
	return l->test_gpa < l->sys_end ? -1 : 0;
}

void mmub_boot_info_init(struct mmub_boot_info *bi,
			 const struct mmub_layout *l)
{
	bi->magic = MMUB_BOOT_MAGIC;
	bi->version = MMUB_BOOT_VERSION;
	bi->size = sizeof(*bi);
	bi->nr_vcpus = l->nr_vcpus;
	bi->test_gpa = l->test_gpa;
	bi->test_size = l->test_size;
	bi->guest_page = l->guest_page;
	bi->mailbox_gpa = l->mailbox;
	bi->kstack_gpa = l->kstack;
	bi->ustack_gpa = l->ustack;
	bi->heap_gpa = l->heap;
	bi->heap_size = MMUB_HEAP_SIZE;
	bi->nested_gpa = l->nested;
}
