// SPDX-License-Identifier: GPL-2.0
/*
 * A small flattened device tree reader for the standalone boot: the RAM
 * ranges (/memory*), /chosen/bootargs, /psci/method and the CPUs'
 * MPIDRs (/cpus/cpu*).  It runs with the MMU off, so it reads bytes
 * (nothing unaligned), and it treats the blob as untrusted: every offset
 * and length is checked against the blob's own bounds before use.
 */
#include "arm64.h"

#define FDT_BEGIN_NODE	1
#define FDT_END_NODE	2
#define FDT_PROP	3
#define FDT_NOP		4
#define FDT_END		9

#define FDT_HEADER_SIZE	40
#define FDT_MAX_SIZE	(4 * MMUB_MIB)
#define FDT_MAX_DEPTH	16

enum node_kind { N_OTHER, N_ROOT, N_MEMORY, N_CHOSEN, N_CPUS, N_CPU, N_PSCI };

struct fdt_walk {
	const u8 *st;		/* structure block */
	u32 st_size;
	const u8 *strs;		/* strings block */
	u32 strs_size;
	u32 off;		/* next token in the structure block */
	u32 depth;
	u8 kind[FDT_MAX_DEPTH];
	u32 addr_cells, size_cells, cpu_addr_cells;
	bool cpu_reg_seen;
	u64 cpu_reg;
	struct arm64_fdt_info *info;
};

static u32 be32(const u8 *p)
{
	return (u32)p[0] << 24 | (u32)p[1] << 16 | (u32)p[2] << 8 | p[3];
}

/* Length of the string at @s, or -1 if no NUL within @max bytes. */
static s64 bounded_strlen(const u8 *s, u32 max)
{
	u32 i;

	for (i = 0; i < max; i++)
		if (!s[i])
			return i;
	return -1;
}

static bool str_eq(const char *a, const char *b)
{
	while (*a && *a == *b) {
		a++;
		b++;
	}
	return *a == *b;
}

/* "name" or "name@unit". */
static bool node_is(const char *node, const char *name)
{
	while (*name && *node == *name) {
		node++;
		name++;
	}
	return !*name && (!*node || *node == '@');
}

/* A value of @cells 32-bit cells (1 or 2) at @p. */
static u64 read_cells(const u8 *p, u32 cells)
{
	return cells == 2 ? (u64)be32(p) << 32 | be32(p + 4) : be32(p);
}

static enum node_kind classify(const struct fdt_walk *w, const char *name)
{
	u8 parent = w->kind[w->depth - 1];

	if (w->depth == 1)
		return N_ROOT;
	if (parent == N_ROOT) {
		if (node_is(name, "memory"))
			return N_MEMORY;
		if (node_is(name, "chosen"))
			return N_CHOSEN;
		if (node_is(name, "cpus"))
			return N_CPUS;
		if (node_is(name, "psci"))
			return N_PSCI;
	}
	if (parent == N_CPUS && node_is(name, "cpu"))
		return N_CPU;
	return N_OTHER;
}

static int mem_reg(struct fdt_walk *w, const u8 *val, u32 len)
{
	struct arm64_fdt_info *info = w->info;
	u32 entry = 4 * (w->addr_cells + w->size_cells), i;

	if (w->addr_cells < 1 || w->addr_cells > 2 || w->size_cells < 1 ||
	    w->size_cells > 2 || len % entry)
		return -1;
	for (i = 0; i < len / entry && info->nr_mem < ARM64_FDT_MAX_MEM; i++) {
		const u8 *e = val + i * entry;

		info->mem_base[info->nr_mem] = read_cells(e, w->addr_cells);
		info->mem_size[info->nr_mem] =
			read_cells(e + 4 * w->addr_cells, w->size_cells);
		info->nr_mem++;
	}
	return 0;
}

/* A string property: NUL-terminated within its own length. */
static const char *prop_str(const u8 *val, u32 len)
{
	return len && bounded_strlen(val, len) >= 0 ? (const char *)val : NULL;
}

static int on_prop(struct fdt_walk *w, const char *name, const u8 *val,
		   u32 len)
{
	u8 kind = w->kind[w->depth];
	bool cells = str_eq(name, "#address-cells") ||
		     str_eq(name, "#size-cells");

	if (cells && len != 4)
		return -1;
	if (kind == N_ROOT && str_eq(name, "#address-cells"))
		w->addr_cells = be32(val);
	else if (kind == N_ROOT && str_eq(name, "#size-cells"))
		w->size_cells = be32(val);
	else if (kind == N_MEMORY && str_eq(name, "reg"))
		return mem_reg(w, val, len);
	else if (kind == N_CHOSEN && str_eq(name, "bootargs"))
		w->info->bootargs = prop_str(val, len);
	else if (kind == N_PSCI && str_eq(name, "method"))
		w->info->psci_method = prop_str(val, len);
	else if (kind == N_CPUS && str_eq(name, "#address-cells"))
		w->cpu_addr_cells = be32(val);
	else if (kind == N_CPU && str_eq(name, "reg")) {
		if (w->cpu_addr_cells < 1 || w->cpu_addr_cells > 2 ||
		    len != 4 * w->cpu_addr_cells)
			return -1;
		w->cpu_reg = read_cells(val, w->cpu_addr_cells);
		w->cpu_reg_seen = true;
	}
	return 0;
}

static int begin_node(struct fdt_walk *w)
{
	const u8 *name = w->st + w->off;
	s64 len = bounded_strlen(name, w->st_size - w->off);

	if (len < 0 || w->depth + 1 >= FDT_MAX_DEPTH)
		return -1;
	w->off += mmub_align_up((u32)len + 1, 4);
	w->depth++;
	w->kind[w->depth] = (u8)classify(w, (const char *)name);
	w->cpu_reg_seen = false;
	return 0;
}

static int end_node(struct fdt_walk *w)
{
	struct arm64_fdt_info *info = w->info;

	if (!w->depth)
		return -1;
	if (w->kind[w->depth] == N_CPU && w->cpu_reg_seen &&
	    info->nr_cpus < ARM64_FDT_MAX_CPUS)
		info->mpidr[info->nr_cpus++] = w->cpu_reg;
	w->cpu_reg_seen = false;
	w->depth--;
	return 0;
}

static int prop(struct fdt_walk *w)
{
	u32 len, nameoff;
	const u8 *val;
	s64 nlen;

	if (w->st_size - w->off < 8)
		return -1;
	len = be32(w->st + w->off);
	nameoff = be32(w->st + w->off + 4);
	w->off += 8;
	if (len > w->st_size - w->off || nameoff >= w->strs_size || !w->depth)
		return -1;
	nlen = bounded_strlen(w->strs + nameoff, w->strs_size - nameoff);
	if (nlen < 0)
		return -1;
	val = w->st + w->off;
	w->off += mmub_align_up(len, 4);
	return on_prop(w, (const char *)w->strs + nameoff, val, len);
}

/* Walk the structure block token by token, to FDT_END. */
static int walk(struct fdt_walk *w)
{
	u32 tok;
	int r;

	for (;;) {
		if (w->off > w->st_size || w->st_size - w->off < 4)
			return -1;
		tok = be32(w->st + w->off);
		w->off += 4;
		switch (tok) {
		case FDT_BEGIN_NODE:
			r = begin_node(w);
			break;
		case FDT_END_NODE:
			r = end_node(w);
			break;
		case FDT_PROP:
			r = prop(w);
			break;
		case FDT_NOP:
			r = 0;
			break;
		case FDT_END:
			return w->depth ? -1 : 0;
		default:
			return -1;
		}
		if (r)
			return r;
	}
}

int arm64_fdt_read(const void *blob, struct arm64_fdt_info *info)
{
	const u8 *h = blob;
	u32 total, off_st, off_strs, size_st, size_strs;
	struct fdt_walk w = {
		.addr_cells = 2, .size_cells = 1, .cpu_addr_cells = 2,
		.info = info,
	};
	u8 *p = (u8 *)info;
	size_t i;

	for (i = 0; i < sizeof(*info); i++)
		p[i] = 0;
	if (be32(h) != ARM64_FDT_MAGIC)
		return -1;
	total = be32(h + 4);
	off_st = be32(h + 8);
	off_strs = be32(h + 12);
	size_strs = be32(h + 32);
	size_st = be32(h + 36);
	/* Version 17 is the first with size_dt_struct. */
	if (be32(h + 20) < 17 || total < FDT_HEADER_SIZE ||
	    total > FDT_MAX_SIZE)
		return -1;
	if ((u64)off_st + size_st > total ||
	    (u64)off_strs + size_strs > total ||
	    off_st < FDT_HEADER_SIZE || off_strs < FDT_HEADER_SIZE)
		return -1;
	w.st = h + off_st;
	w.st_size = size_st;
	w.strs = h + off_strs;
	w.strs_size = size_strs;
	return walk(&w);
}
