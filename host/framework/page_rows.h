/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The rows of the cover letters' tables: 4K, 2M and 1G pages, each with
 * the backing that gives it, and why this machine cannot give one.
 */
#ifndef HOST_FRAMEWORK_PAGE_ROWS_H
#define HOST_FRAMEWORK_PAGE_ROWS_H

#include "vmm/vmm.h"

struct page_row {
	const char *name;
	enum backing_type backing;
	u64 page;
};

#define NR_PAGE_ROWS	3
extern const struct page_row page_rows[NR_PAGE_ROWS];

/* @p for @row: its page and backing, each vCPU's share rounded up. */
void page_row_params(struct vm_params *p, const struct page_row *row);
/* Why this machine cannot run @p (set for @row), or NULL. */
const char *page_row_unavailable(const struct vm_params *p,
				 const struct page_row *row);

#endif
