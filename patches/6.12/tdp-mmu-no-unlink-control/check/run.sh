#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Usage: check/run.sh /path/to/linux-6.12-with-this-series-applied [iterations]
# v2's userspace check (../../tdp-mmu-unlink-empty-leaf-tables/check/, the
# 6.12 one) on this series' tree: the same extracted walk over the same
# random tables, but every 4K table must stay linked, the covered empty ones
# included, while every leaf in the range is still zapped and nothing
# outside it.  The walk must also still step with v2's post-order iterator,
# which is what sets the control apart from the original kernel.
set -e
src=${1:?usage: $0 KERNEL_SRC [iterations]}
here=$(cd "$(dirname "$0")" && pwd)
awk -v pat='static bool tdp_mmu_zap_leafs' -f "$here/../../../check-extract.awk" \
	"$src/arch/x86/kvm/mmu/tdp_mmu.c" | grep -q 'tdp_iter_next_post_order(&iter, &event);' ||
	{ echo "$0: tdp_mmu_zap_leafs() does not step with tdp_iter_next_post_order()" >&2; exit 1; }
CHECK_EXPECT=no-unlink exec "$here/../../tdp-mmu-unlink-empty-leaf-tables/check/run.sh" "$@"
