// SPDX-License-Identifier: GPL-2.0
/* The page-size rows shared by the tables of dirty-log and migrate. */
#include "util/util.h"
#include "framework/page_rows.h"
#include "kvm/kvm_dev.h"

const struct page_row page_rows[NR_PAGE_ROWS] = {
	{ "4K", BACKING_ANONYMOUS, MMUB_SZ_4K },
	{ "2M", BACKING_ANONYMOUS_THP, MMUB_SZ_2M },
	{ "1G", BACKING_ANONYMOUS_HUGETLB_1GB, MMUB_SZ_1G },
};

void page_row_params(struct vm_params *p, const struct page_row *row)
{
	p->guest_page = row->page;
	p->backing = row->backing;
	p->vcpu_bytes = mmub_align_up(p->vcpu_bytes, row->page);
}

const char *page_row_unavailable(const struct vm_params *p,
				 const struct page_row *row)
{
	static char why[200];

	if (row->page == MMUB_SZ_1G && kvm_dev() >= 0 &&
	    !arch_supports_page(kvm_dev(), row->page, why, sizeof(why)))
		return why;
	return backing_unavailable(row->backing,
				   p->vcpu_bytes * p->nr_vcpus,
				   p->reserve_hugepages);
}
