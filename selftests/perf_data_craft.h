/* SPDX-License-Identifier: GPL-2.0 */
/*
 * perf.data files of crafted samples for the tests of `inkprobe profile
 * -i`, on the host and in the guest: one cpu-clock event whose samples
 * carry PERF_SAMPLE_IP | TID | TIME | CPU | PERIOD | CALLCHAIN, from the
 * uapi structs.  The records are written in turn; the header's attrs and
 * data sections are filled in when the file is closed (the layout of
 * perf's own files: the 104-byte header, the attrs, each with its IDs
 * section, then the records).
 */
#ifndef _INKPROBE_PERF_DATA_CRAFT_H
#define _INKPROBE_PERF_DATA_CRAFT_H

#include <linux/perf_event.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#define CRAFT_HEADER_SIZE	104
#define CRAFT_ATTR_SIZE		(sizeof(struct perf_event_attr) + 16)	/* the attr, its IDs section */
#define CRAFT_DATA_AT		(CRAFT_HEADER_SIZE + CRAFT_ATTR_SIZE)

struct perf_craft {
	FILE *f;
	int err;
};

static inline void craft_put(struct perf_craft *c, const void *p, size_t n)
{
	if (n && fwrite(p, n, 1, c->f) != 1)
		c->err = -1;
}

static inline void craft_put_u64(struct perf_craft *c, uint64_t v)
{
	craft_put(c, &v, 8);
}

static inline void craft_put_u32(struct perf_craft *c, uint32_t v)
{
	craft_put(c, &v, 4);
}

static inline void craft_put_header(struct perf_craft *c, uint32_t type, size_t size)
{
	struct perf_event_header h = { .type = type, .size = (uint16_t)size };

	craft_put(c, &h, sizeof(h));
}

/* @path opened, its header left blank, the event (cpu-clock at @hz) written: 0 or -1. */
static inline int perf_craft_open(struct perf_craft *c, const char *path, uint64_t hz)
{
	struct perf_event_attr attr = {
		.type = PERF_TYPE_SOFTWARE, .size = sizeof(attr),
		.config = PERF_COUNT_SW_CPU_CLOCK, .sample_freq = hz, .freq = 1,
		.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |
			       PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD | PERF_SAMPLE_CALLCHAIN,
	};
	uint8_t header[CRAFT_HEADER_SIZE] = { 0 };

	c->err = 0;
	c->f = fopen(path, "wb");
	if (!c->f)
		return -1;
	craft_put(c, header, sizeof(header));
	craft_put(c, &attr, sizeof(attr));
	craft_put_u64(c, 0);			/* its IDs: none */
	craft_put_u64(c, 0);
	return c->err;
}

/* A COMM record (8 bytes of name, NUL-padded) */
static inline void perf_craft_comm(struct perf_craft *c, uint32_t pid, uint32_t tid,
				   const char *comm)
{
	char name[8] = { 0 };

	memcpy(name, comm, strnlen(comm, sizeof(name) - 1));
	craft_put_header(c, PERF_RECORD_COMM, 8 + 8 + 8);
	craft_put_u32(c, pid);
	craft_put_u32(c, tid);
	craft_put(c, name, sizeof(name));
}

/* An MMAP record of @filename (at most 7 characters: its record padded to 8) */
static inline void perf_craft_mmap(struct perf_craft *c, uint32_t pid, uint32_t tid,
				   uint64_t start, uint64_t len, const char *filename)
{
	char name[8] = { 0 };

	memcpy(name, filename, strnlen(filename, sizeof(name) - 1));
	craft_put_header(c, PERF_RECORD_MMAP, 8 + 32 + 8);
	craft_put_u32(c, pid);
	craft_put_u32(c, tid);
	craft_put_u64(c, start);
	craft_put_u64(c, len);
	craft_put_u64(c, 0);
	craft_put(c, name, sizeof(name));
}

/* A sample: its ip (not read by inkprobe) the callchain's last entry, period 250000. */
static inline void perf_craft_sample(struct perf_craft *c, uint32_t pid, uint32_t tid,
				     uint64_t time, uint32_t cpu, const uint64_t *chain,
				     uint32_t nr)
{
	craft_put_header(c, PERF_RECORD_SAMPLE, 8 + 8 + 8 + 8 + 8 + 8 + 8 + 8 * nr);
	craft_put_u64(c, chain[nr - 1]);
	craft_put_u32(c, pid);
	craft_put_u32(c, tid);
	craft_put_u64(c, time);
	craft_put_u32(c, cpu);
	craft_put_u32(c, 0);
	craft_put_u64(c, 250000);
	craft_put_u64(c, nr);
	craft_put(c, chain, 8 * nr);
}

/* The header written (magic, sizes, the attrs and data sections), the file closed: 0 or -1. */
static inline int perf_craft_close(struct perf_craft *c)
{
	long end = ftell(c->f);
	uint64_t h[7] = {
		0, CRAFT_HEADER_SIZE, CRAFT_ATTR_SIZE,
		CRAFT_HEADER_SIZE, CRAFT_ATTR_SIZE,	/* attrs: offset, size */
		CRAFT_DATA_AT, 0,			/* data: offset, size */
	};

	memcpy(&h[0], "PERFILE2", 8);
	h[6] = end < (long)CRAFT_DATA_AT ? 0 : (uint64_t)end - CRAFT_DATA_AT;
	if (end < 0 || fseek(c->f, 0, SEEK_SET))
		c->err = -1;
	craft_put(c, h, sizeof(h));
	if (fclose(c->f))
		c->err = -1;
	return c->err;
}

#endif
