// SPDX-License-Identifier: GPL-2.0
/*
 * PERF_RECORD_SAMPLE's fields in sample_type order, up to the callchain:
 * what comes after it (raw data, branch stacks, registers) is not needed.
 */
#include <linux/perf_event.h>
#include <string.h>

#include "perf_sample.h"

struct cursor {
	const uint8_t *p;
	size_t left;
};

static int take(struct cursor *c, void *out, size_t n)
{
	if (c->left < n)
		return -1;
	if (out)
		memcpy(out, c->p, n);
	c->p += n;
	c->left -= n;
	return 0;
}

static int skip_u64s(struct cursor *c, uint64_t n)
{
	if (n > c->left / 8)
		return -1;
	return take(c, NULL, (size_t)n * 8);
}

/* struct read_format, as @read_format lays it out. */
static int skip_read(struct cursor *c, uint64_t read_format)
{
	uint64_t nr = 1, per = 1 + !!(read_format & PERF_FORMAT_ID) +
			      !!(read_format & PERF_FORMAT_LOST);
	unsigned int times = !!(read_format & PERF_FORMAT_TOTAL_TIME_ENABLED) +
			     !!(read_format & PERF_FORMAT_TOTAL_TIME_RUNNING);

	if (read_format & PERF_FORMAT_GROUP) {
		if (take(c, &nr, 8))
			return -1;
		if (skip_u64s(c, times))
			return -1;
		return nr > c->left / 8 / per ? -1 : skip_u64s(c, nr * per);
	}
	return skip_u64s(c, per + times);
}

int perf_sample_parse(const void *body, size_t len, uint64_t st, uint64_t read_format,
		      struct perf_sample *out)
{
	struct cursor c = { body, len };
	uint64_t nr = 0;

	memset(out, 0, sizeof(*out));
	if ((st & PERF_SAMPLE_IDENTIFIER) && skip_u64s(&c, 1))
		return -1;
	if ((st & PERF_SAMPLE_IP) && skip_u64s(&c, 1))
		return -1;
	if ((st & PERF_SAMPLE_TID) && (take(&c, &out->pid, 4) || take(&c, &out->tid, 4)))
		return -1;
	if ((st & PERF_SAMPLE_TIME) && take(&c, &out->time, 8))
		return -1;
	if ((st & PERF_SAMPLE_ADDR) && skip_u64s(&c, 1))
		return -1;
	if ((st & PERF_SAMPLE_ID) && skip_u64s(&c, 1))
		return -1;
	if ((st & PERF_SAMPLE_STREAM_ID) && skip_u64s(&c, 1))
		return -1;
	if ((st & PERF_SAMPLE_CPU) && (take(&c, &out->cpu, 4) || take(&c, NULL, 4)))
		return -1;
	if ((st & PERF_SAMPLE_PERIOD) && take(&c, &out->period, 8))
		return -1;
	if ((st & PERF_SAMPLE_READ) && skip_read(&c, read_format))
		return -1;
	if (st & PERF_SAMPLE_CALLCHAIN) {
		if (take(&c, &nr, 8) || nr > c.left / 8)
			return -1;
		out->chain = (const uint64_t *)(const void *)c.p;
		out->nr = (uint32_t)nr;
	}
	return 0;
}
