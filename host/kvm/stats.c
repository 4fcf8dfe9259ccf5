// SPDX-License-Identifier: GPL-2.0
/* KVM binary stats reader; see kvm/stats.h and the KVM API document. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <linux/kvm.h>
#include "kvm/stats.h"

static int read_exact(int fd, void *buf, size_t len, off_t off)
{
	ssize_t r = pread(fd, buf, len, off);

	if (r < 0)
		return -1;
	if ((size_t)r != len) {
		errno = EIO;
		return -1;
	}
	return 0;
}

static int keep_desc(struct kstats *s, const struct kvm_stats_desc *d)
{
	u32 type = d->flags & KVM_STATS_TYPE_MASK;

	/* Histograms have size > 1; the counters we report have size 1. */
	if (d->size != 1 || s->n >= 4096)
		return 0;
	strncpy(s->names[s->n], d->name, KSTATS_NAME_MAX - 1);
	s->names[s->n][KSTATS_NAME_MAX - 1] = 0;
	s->offsets[s->n] = d->offset;
	s->cumulative[s->n] = type == KVM_STATS_TYPE_CUMULATIVE;
	s->n++;
	return 0;
}

int kstats_open(struct kstats *s, int kvm_obj_fd)
{
	struct kvm_stats_header h;
	size_t dsz;
	u8 *descs;
	u32 i;

	memset(s, 0, sizeof(*s));
	s->fd = ioctl(kvm_obj_fd, KVM_GET_STATS_FD, NULL);
	if (s->fd < 0)
		return -1;
	if (read_exact(s->fd, &h, sizeof(h), 0))
		goto fail;
	dsz = sizeof(struct kvm_stats_desc) + h.name_size;
	descs = calloc(h.num_desc, dsz);
	s->names = calloc(h.num_desc + 1, KSTATS_NAME_MAX);
	s->offsets = calloc(h.num_desc + 1, sizeof(u32));
	s->cumulative = calloc(h.num_desc + 1, 1);
	if (!descs || !s->names || !s->offsets || !s->cumulative)
		goto fail_free;
	if (read_exact(s->fd, descs, h.num_desc * dsz, h.desc_offset))
		goto fail_free;
	s->data_offset = h.data_offset;
	for (i = 0; i < h.num_desc; i++) {
		const struct kvm_stats_desc *d = (void *)(descs + i * dsz);

		keep_desc(s, d);
		if ((u64)(d->offset + d->size * 8) > s->data_size)
			s->data_size = d->offset + d->size * 8;
	}
	free(descs);
	s->buf = malloc(s->data_size ? s->data_size : 8);
	if (!s->buf)
		goto fail;
	return 0;
fail_free:
	free(descs);
fail:
	kstats_close(s);
	return -1;
}

void kstats_close(struct kstats *s)
{
	if (s->fd > 0)
		close(s->fd);
	free(s->names);
	free(s->offsets);
	free(s->cumulative);
	free(s->buf);
	memset(s, 0, sizeof(*s));
	s->fd = -1;
}

int kstats_read(struct kstats *s, u64 *vals)
{
	u32 i;

	if (s->fd < 0)
		return -1;
	if (read_exact(s->fd, s->buf, s->data_size, s->data_offset))
		return -1;
	for (i = 0; i < s->n; i++)
		memcpy(&vals[i], s->buf + s->offsets[i], sizeof(u64));
	return 0;
}

int kstats_index(const struct kstats *s, const char *name)
{
	u32 i;

	for (i = 0; i < s->n; i++)
		if (!strcmp(s->names[i], name))
			return (int)i;
	return -1;
}
