// SPDX-License-Identifier: GPL-2.0
/*
 * host/kvm/stage2_dump.c against dumps in the format of arm64 KVM's
 * stage2_page_tables (6.12): counts by size inside the test memory
 * only, invalid runs not counted, and every malformed or short dump an
 * error with its reason, never a count.
 */
#include <stdio.h>
#include <string.h>
#include "kvm/stage2_dump.h"
#include "check.h"

#define GIB	(1ULL << 30)
#define MIB	(1ULL << 20)

/*
 * A VM with system memory at 1G (4K pages and a 2M block), a test slot
 * of 8M at 2G split in its second half (1024 4K pages, two 2M blocks
 * write-protected, one invalid 2M hole), and a 1G block at 4G.
 */
static const char dump[] =
	"---[ Guest IPA ]---\n"
	"0x0000000000000000-0x0000000040000000           1G 1\n"
	"0x0000000040000000-0x0000000040010000          64K 3   R W   AF    \n"
	"0x0000000040010000-0x0000000040200000        1984K 3\n"
	"0x0000000040200000-0x0000000040400000           2M 2   R W   AF BLK\n"
	"0x0000000040400000-0x0000000080000000        1020M 2\n"
	"0x0000000080000000-0x0000000080400000           4M 2   R     AF BLK\n"
	"0x0000000080400000-0x0000000080800000           4M 3   R W   AF    \n"
	"0x0000000080800000-0x0000000080a00000           2M 2 F\n"
	"0x0000000080a00000-0x00000000c0000000        1014M 2\n"
	"0x00000000c0000000-0x0000000100000000           1G 1\n"
	"0x0000000100000000-0x0000000140000000           1G 1   R W   AF BLK\n"
	"0x0000000140000000-0x0000008000000000         507G 1\n";

static int count(const char *text, const struct stage2_range *r, u32 n,
		 s64 pages[STAGE2_DUMP_SIZES], char *why, size_t len)
{
	FILE *f = fmemopen((void *)text, strlen(text), "r");
	int ret;

	if (!f)
		return -2;
	ret = stage2_dump_count(f, r, n, pages, why, len);
	fclose(f);
	return ret;
}

static void test_counts(void)
{
	const struct stage2_range slot = { 2 * GIB, 2 * GIB + 8 * MIB };
	const struct stage2_range two[] = {
		slot, { 4 * GIB, 5 * GIB },
	};
	const struct stage2_range half = {
		2 * GIB + 4 * MIB, 2 * GIB + 6 * MIB,
	};
	s64 p[STAGE2_DUMP_SIZES];
	char why[256] = "";

	CHECK(!count(dump, &slot, 1, p, why, sizeof(why)));
	printf("slot: %lld/%lld/%lld %s\n", (long long)p[0], (long long)p[1],
	       (long long)p[2], why);
	CHECK(p[0] == 1024 && p[1] == 2 && p[2] == 0);
	CHECK(!count(dump, two, 2, p, why, sizeof(why)));
	CHECK(p[0] == 1024 && p[1] == 2 && p[2] == 1);
	CHECK(!count(dump, &half, 1, p, why, sizeof(why)));
	CHECK(p[0] == 512 && p[1] == 0 && p[2] == 0);
}

/* Each a dump that must not give a count. */
static void test_errors(void)
{
	static const char *const bad[] = {
		/* empty: nothing printed reaches the memory counted */
		"",
		"---[ Guest IPA ]---\n",
		/* the size column does not match the range */
		"0x0000000000000000-0x0000000080000000           2G 1\n"
		"0x0000000080000000-0x0000000080800000           4M 2   R W   AF BLK\n",
		/* a valid level-0 leaf: no such block with 4K pages */
		"0x0000000000000000-0x0000008000000000         512G 0   R W   AF BLK\n",
		/* a block not on its size */
		"0x0000000000000000-0x0000000080001000     2097156K 3\n"
		"0x0000000080001000-0x0000000080201000           2M 2   R W   AF BLK\n",
		/* not a range line */
		"Guest IPA 0x80000000\n",
		/* stops inside the test memory */
		"0x0000000000000000-0x0000000080400000        2052M 1\n",
		/* a gap: the runs between would never be counted */
		"0x0000000000000000-0x0000000080000000           2G 1\n"
		"0x0000000080200000-0x0000000080400000           2M 2   R W   AF BLK\n"
		"0x0000000080400000-0x0000000100000000        2044M 2\n",
		/* an overlap: a block counted twice */
		"0x0000000000000000-0x0000000080400000        2052M 1\n"
		"0x0000000080000000-0x0000000080400000           4M 2   R W   AF BLK\n"
		"0x0000000080400000-0x0000000100000000        2044M 2\n",
	};
	const struct stage2_range slot = { 2 * GIB, 2 * GIB + 8 * MIB };
	s64 p[STAGE2_DUMP_SIZES];

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		char why[256] = "";

		CHECK(count(bad[i], &slot, 1, p, why, sizeof(why)) == -1);
		CHECK(why[0]);
		printf("why %zu: %s\n", i, why);
	}
}

int main(void)
{
	test_counts();
	test_errors();
	return check_report();
}
