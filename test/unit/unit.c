// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of the code that guest and host share: size and fraction
 * parsing, the workload words, the histogram's quantiles, the layout and
 * the page-table builder.  Each check prints what failed; the exit
 * status is the number of failures.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <mmubench/boot.h>
#include <mmubench/histogram.h>
#include <mmubench/pgtable.h>
#include <mmubench/workload.h>
#include "check.h"


static void test_sizes(void)
{
	u64 v;
	u32 ppm;

	CHECK(!mmub_parse_size("4k", &v) && v == 4096);
	CHECK(!mmub_parse_size("2M", &v) && v == 2 * MMUB_MIB);
	CHECK(!mmub_parse_size("1g", &v) && v == MMUB_GIB);
	CHECK(!mmub_parse_size("512MB", &v) && v == 512 * MMUB_MIB);
	CHECK(!mmub_parse_size("123", &v) && v == 123);
	CHECK(mmub_parse_size("", &v));
	CHECK(mmub_parse_size("12x", &v));
	CHECK(mmub_parse_size("-1", &v));
	CHECK(mmub_parse_size("99999999999999999999", &v));
	CHECK(mmub_parse_size("20000000000000000g", &v));

	CHECK(!mmub_parse_fraction("0.25", &ppm) && ppm == 250000);
	CHECK(!mmub_parse_fraction("25%", &ppm) && ppm == 250000);
	CHECK(!mmub_parse_fraction("1", &ppm) && ppm == 1000000);
	CHECK(!mmub_parse_fraction("0.0000010", &ppm) && ppm == 1);
	CHECK(mmub_parse_fraction("1.5", &ppm));
	CHECK(mmub_parse_fraction("101%", &ppm));
	CHECK(mmub_parse_fraction("0.0000001", &ppm));
	CHECK(mmub_parse_fraction(".5", &ppm));
	CHECK(mmub_parse_fraction("0.", &ppm));
}

/*
 * One cold page in every 64-page word, never the first page of an 8K or
 * larger stride, at every odd bit once over 32 words; only a 4K stride
 * skips any.
 */
static void test_cold_pages(void)
{
	struct mmub_workload wl = { .flags = MMUB_WL_COLD, .stride = 4096 };
	u64 w, b, n, bits = 0;

	for (w = 0; w < 4096; w++) {
		for (n = 0, b = 0; b < 64; b++) {
			if (!mmub_cold_page(w * 64 + b))
				continue;
			n++;
			CHECK(b & 1);
			if (w < 32)
				bits |= 1ULL << b;
		}
		CHECK(n == 1);
	}
	CHECK(bits == 0xaaaaaaaaaaaaaaaaULL);
	CHECK(mmub_wl_cold_skip(&wl, 1 * 4096));
	CHECK(!mmub_wl_cold_skip(&wl, 0));
	wl.stride = 8192;
	CHECK(!mmub_wl_cold_skip(&wl, 1 * 4096));
	for (w = 0; w < (1 << 20); w += 2)
		CHECK(!mmub_cold_page(w));
	wl.stride = 4096;
	wl.flags = 0;
	CHECK(!mmub_wl_cold_skip(&wl, 1 * 4096));
}

static void test_workload_words(void)
{
	struct mmub_workload wl;

	mmub_wl_defaults(&wl);
	CHECK(wl.stride == MMUB_SZ_4K && wl.write_pct == 100);
	CHECK(!mmub_wl_parse_word(&wl, "stride", "2m") && wl.stride == MMUB_SZ_2M);
	CHECK(mmub_wl_parse_word(&wl, "stride", "8k") < 0);
	CHECK(!mmub_wl_parse_word(&wl, "fraction", "0.5") &&
	      wl.fraction_ppm == 500000);
	CHECK(mmub_wl_parse_word(&wl, "fraction", "0") < 0);
	CHECK(!mmub_wl_parse_word(&wl, "random", "1") &&
	      (wl.flags & MMUB_WL_RANDOM));
	CHECK(mmub_wl_parse_word(&wl, "random", "yes") < 0);
	CHECK(!mmub_wl_parse_word(&wl, "ranges", "0+1m,4m+2m") &&
	      wl.nr_ranges == 2 && wl.ranges[1].offset == 4 * MMUB_MIB &&
	      wl.ranges[1].length == 2 * MMUB_MIB);
	CHECK(mmub_wl_parse_word(&wl, "ranges", "0+0") < 0);
	CHECK(mmub_wl_parse_word(&wl, "ranges",
				 "0+1,0+1,0+1,0+1,0+1,0+1,0+1,0+1,0+1") < 0);
	CHECK(mmub_wl_parse_word(&wl, "write", "101") < 0);
	CHECK(!mmub_wl_parse_word(&wl, "action", "hang") &&
	      wl.action == MMUB_ACT_HANG);
	CHECK(mmub_wl_parse_word(&wl, "console", "ttyS0") == 1);
}

static void test_cmdline(void)
{
	struct mmub_guest_args a = { .vcpus = 1, .mem = 1, .page = 4096 };
	struct mmub_workload wl;
	char line[] = "console=ttyS0 vcpus=2 mem=32m page=2m stride=2m passes=3";
	char bare[] = "\\EFI\\guest.efi mem=8m";
	char bad[] = "mem=8m stride=3k";
	char bare_late[] = "mem=8m quiet";

	mmub_wl_defaults(&wl);
	CHECK(!mmub_cmdline_parse(line, &a, &wl, false));
	CHECK(a.vcpus == 2 && a.mem == 32 * MMUB_MIB && a.page == MMUB_SZ_2M &&
	      wl.stride == MMUB_SZ_2M && wl.passes == 3);
	CHECK(!mmub_cmdline_parse(bare, &a, &wl, true) && a.mem == 8 * MMUB_MIB);
	{
		const char *k = mmub_cmdline_parse(bad, &a, &wl, false);

		CHECK(k && !strcmp(k, "stride"));
	}
	CHECK(mmub_cmdline_parse(bare_late, &a, &wl, true));
	CHECK(!mmub_cmdline_parse(NULL, &a, &wl, false));
}

static void test_histogram(void)
{
	struct mmub_hist *h = malloc(sizeof(*h));
	u64 v, q;

	mmub_hist_reset(h);
	CHECK(mmub_hist_quantile(h, 500000) == 0);
	for (v = 1; v <= 100000; v++)
		mmub_hist_add(h, v);
	CHECK(h->count == 100000 && h->min == 1 && h->max == 100000);
	/* Within the 1/16 bucket width of the exact answer. */
	q = mmub_hist_quantile(h, 500000);
	CHECK(q <= 50000 && q >= 50000 - 50000 / 16);
	q = mmub_hist_quantile(h, 999000);
	CHECK(q <= 99900 && q >= 99900 - 99900 / 16);
	CHECK(mmub_hist_quantile(h, 1000000) <= 100000);
	for (v = 0; v < 5000; v++)
		CHECK(mmub_hist_bucket_low(mmub_hist_index(v)) <= v);
	CHECK(mmub_hist_index(~0ULL) < MMUB_HIST_BUCKETS);
	free(h);
}

static u8 *arena;
static void *arena_ptr(void *ctx, u64 gpa)
{
	(void)ctx;
	return arena + gpa;
}

static void test_pgtable(void)
{
	u32 rw = MMUB_PROT_WRITE | MMUB_PROT_USER;
	struct mmub_pt pt;
	u64 page, e;

	arena = calloc(1, 4 * MMUB_MIB);
	CHECK(!mmub_pt_init(&pt, &mmub_pt_x86_64, arena_ptr, NULL, 0x1000,
			    4 * MMUB_MIB - 0x1000));
	CHECK(!mmub_pt_map(&pt, 0x200000, 0x200000, 0x400000, MMUB_SZ_4K, rw));
	CHECK(!mmub_pt_map(&pt, 4 * MMUB_GIB, 4 * MMUB_GIB, 8 * MMUB_MIB,
			   MMUB_SZ_2M, rw));
	CHECK(!mmub_pt_map(&pt, 8 * MMUB_GIB, 8 * MMUB_GIB, 2 * MMUB_GIB,
			   MMUB_SZ_1G, rw | MMUB_PROT_EXEC));
	e = mmub_pt_lookup(&pt, 0x201000, &page);
	CHECK(e && page == MMUB_SZ_4K && (e & 0xfffff000) == 0x201000 &&
	      (e & 4) && (e & (1ULL << 63)));
	e = mmub_pt_lookup(&pt, 4 * MMUB_GIB + 3 * MMUB_MIB, &page);
	CHECK(e && page == MMUB_SZ_2M && (e & 0x80));
	e = mmub_pt_lookup(&pt, 9 * MMUB_GIB + 5, &page);
	CHECK(e && page == MMUB_SZ_1G && !(e & (1ULL << 63)));
	CHECK(!mmub_pt_lookup(&pt, 0x600000, &page));
	/* Misaligned, unknown size, conflicting remap: all refused. */
	CHECK(mmub_pt_map(&pt, 0x1000, 0x1000, 0x1000, MMUB_SZ_2M, rw));
	CHECK(mmub_pt_map(&pt, 0, 0, 0x1000, 8192, rw));
	CHECK(mmub_pt_map(&pt, 0x200000, 0x900000, 0x1000, MMUB_SZ_4K, rw));
	CHECK(mmub_pt_map(&pt, 4 * MMUB_GIB, 4 * MMUB_GIB, 0x1000,
			  MMUB_SZ_4K, rw));
	/* The estimate covers what mapping really used. */
	CHECK(pt.tables <= 1 + mmub_pt_tables_needed(0x400000, MMUB_SZ_4K) +
	      mmub_pt_tables_needed(8 * MMUB_MIB, MMUB_SZ_2M) +
	      mmub_pt_tables_needed(2 * MMUB_GIB, MMUB_SZ_1G));
	free(arena);
}

/* arm64 stage-1 descriptor bits, as the architecture defines them. */
#define A64_VALID	(1ULL << 0)
#define A64_TABLE	(1ULL << 1)
#define A64_ATTR_MASK	(7ULL << 2)
#define A64_AP_EL0	(1ULL << 6)
#define A64_AP_RO	(1ULL << 7)
#define A64_SH_MASK	(3ULL << 8)
#define A64_AF		(1ULL << 10)
#define A64_PXN		(1ULL << 53)
#define A64_UXN		(1ULL << 54)
#define A64_XN		(A64_PXN | A64_UXN)

static void test_pgtable_arm64(void)
{
	u32 rw = MMUB_PROT_WRITE | MMUB_PROT_USER;
	struct mmub_pt pt;
	u64 page, e, *root, *l2;

	arena = calloc(1, 4 * MMUB_MIB);
	CHECK(!mmub_pt_init(&pt, &mmub_pt_arm64, arena_ptr, NULL, 0x1000,
			    4 * MMUB_MIB - 0x1000));
	CHECK(!mmub_pt_map(&pt, 0x200000, 0x200000, 0x400000, MMUB_SZ_4K, rw));
	CHECK(!mmub_pt_map(&pt, 4 * MMUB_GIB, 4 * MMUB_GIB, 8 * MMUB_MIB,
			   MMUB_SZ_2M, rw));
	CHECK(!mmub_pt_map(&pt, 8 * MMUB_GIB, 8 * MMUB_GIB, 2 * MMUB_GIB,
			   MMUB_SZ_1G, MMUB_PROT_USER | MMUB_PROT_EXEC));
	CHECK(!mmub_pt_map(&pt, 0x9000000, 0x9000000, 0x1000, MMUB_SZ_4K,
			   rw | MMUB_PROT_DEVICE));

	/* Tables: valid + table, no APTable/XNTable restrictions. */
	root = (u64 *)arena_ptr(NULL, pt.root);
	CHECK((root[0] & 3) == 3 && !(root[0] & ~0x0000fffffffff003ULL));
	l2 = (u64 *)arena_ptr(NULL, root[0] & 0x0000fffffffff000ULL);
	CHECK((l2[8] & 3) == 1);	/* 8 GiB: a 1G block */

	/* 4K page: bits[1:0] = 11, AF, inner shareable, normal, EL0 RW, XN. */
	e = mmub_pt_lookup(&pt, 0x201000, &page);
	CHECK(e && page == MMUB_SZ_4K &&
	      (e & 0x0000fffffffff000ULL) == 0x201000);
	CHECK((e & 3) == 3 && (e & A64_AF) &&
	      (e & A64_SH_MASK) == A64_SH_MASK &&
	      !(e & A64_ATTR_MASK) && (e & A64_AP_EL0) && !(e & A64_AP_RO) &&
	      (e & A64_XN) == A64_XN);
	/* 2M block: bits[1:0] = 01. */
	e = mmub_pt_lookup(&pt, 4 * MMUB_GIB + 3 * MMUB_MIB, &page);
	CHECK(e && page == MMUB_SZ_2M && (e & 3) == 1 &&
	      (e & 0x0000fffffffff000ULL) == 4 * MMUB_GIB + 2 * MMUB_MIB);
	/* 1G block, read-only and executable at EL0 and EL1. */
	e = mmub_pt_lookup(&pt, 9 * MMUB_GIB + 5, &page);
	CHECK(e && page == MMUB_SZ_1G && (e & 3) == 1 &&
	      (e & A64_AP_RO) && (e & A64_AP_EL0) && !(e & A64_XN));
	/* Device page: AttrIndx 1, never executable. */
	e = mmub_pt_lookup(&pt, 0x9000000, &page);
	CHECK(e && (e & A64_ATTR_MASK) == (1ULL << 2) &&
	      (e & A64_XN) == A64_XN);
	CHECK(!mmub_pt_lookup(&pt, 0x600000, &page));
	CHECK(mmub_pt_map(&pt, 0x200000, 0x900000, 0x1000, MMUB_SZ_4K, rw));

	/* Protect: rewrite the attributes of existing leaves in place. */
	CHECK(!mmub_pt_protect(&pt, 0x202000, 0x2000,
			       MMUB_PROT_EXEC | MMUB_PROT_USER));
	e = mmub_pt_lookup(&pt, 0x203000, &page);
	CHECK(e && (e & 0x0000fffffffff000ULL) == 0x203000 &&
	      (e & A64_AP_RO) && !(e & A64_XN));
	e = mmub_pt_lookup(&pt, 0x204000, &page);
	CHECK(e && !(e & A64_AP_RO) && (e & A64_XN) == A64_XN);
	CHECK(mmub_pt_protect(&pt, 0x600000, 0x1000, MMUB_PROT_USER));
	CHECK(mmub_pt_protect(&pt, 4 * MMUB_GIB, 0x1000, MMUB_PROT_USER));

	/* With the pool used up, a block still fits an existing table. */
	pt.pool = pt.pool_end;
	CHECK(!mmub_pt_map(&pt, 0x800000, 0x800000, MMUB_SZ_2M, MMUB_SZ_2M,
			   rw | MMUB_PROT_DEVICE));
	CHECK(mmub_pt_map(&pt, 16 * MMUB_GIB, 16 * MMUB_GIB, MMUB_SZ_2M,
			  MMUB_SZ_2M, rw));
	free(arena);
}

static void test_pool_exhaustion(void)
{
	struct mmub_pt pt;

	arena = calloc(1, 16 * 4096);
	CHECK(!mmub_pt_init(&pt, &mmub_pt_x86_64, arena_ptr, NULL, 0,
			    4 * 4096));
	/* 1 GiB of 4K pages needs 512 leaf tables: must fail, not overrun. */
	CHECK(mmub_pt_map(&pt, 0, 0, MMUB_GIB, MMUB_SZ_4K, MMUB_PROT_WRITE));
	CHECK(pt.pool <= 4 * 4096);
	free(arena);
}

static void test_layout(void)
{
	struct mmub_layout l;

	CHECK(!mmub_layout_compute(&l, 0, 0x100000, 0x180000, 4,
				   4 * MMUB_GIB, MMUB_GIB, MMUB_SZ_4K));
	CHECK(l.mailbox >= 0x180000 && l.kstack > l.mailbox &&
	      l.ustack > l.kstack && l.heap > l.ustack && l.pgtable > l.heap);
	CHECK(l.pgtable_size >= (MMUB_GIB / MMUB_SZ_2M) * MMUB_SZ_4K);
	CHECK(l.sys_end <= 4 * MMUB_GIB && !(l.sys_end % MMUB_SZ_2M));
	CHECK(mmub_layout_compute(&l, 0, 0x100000, 0x180000, 0, 0, MMUB_GIB,
				  MMUB_SZ_4K));
	CHECK(mmub_layout_compute(&l, 0, 0x100000, 0x180000, 1, 0,
				  MMUB_GIB + 4096, MMUB_SZ_2M));
	CHECK(!mmub_layout_compute(&l, 0, 0x100000, 0x180000, 1, 0,
				   64 * MMUB_MIB, MMUB_SZ_2M) &&
	      l.test_gpa >= l.sys_end && !(l.test_gpa % MMUB_SZ_2M));
}

int main(void)
{
	test_sizes();
	test_cold_pages();
	test_workload_words();
	test_cmdline();
	test_histogram();
	test_pgtable();
	test_pgtable_arm64();
	test_pool_exhaustion();
	test_layout();
	return check_report();
}
