#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Usage: check/run.sh /path/to/linux-6.1-with-this-series-applied [iterations]
# v2's userspace check (../../tdp-mmu-unlink-empty-leaf-tables/check/) on
# this series' tree: the same extracted walk over the same random tables,
# but every 4K table must stay linked, the covered empty ones included,
# while every leaf in the range is still zapped and nothing outside it.
here=$(cd "$(dirname "$0")" && pwd)
CHECK_EXPECT=no-unlink exec "$here/../../tdp-mmu-unlink-empty-leaf-tables/check/run.sh" "$@"
