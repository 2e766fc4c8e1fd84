// SPDX-License-Identifier: GPL-2.0
/*
 * perf.data as tools/perf/Documentation/perf.data-file-format.txt
 * describes it: struct perf_file_header (magic "PERFILE2", its size, the
 * size of one attrs entry, then the attrs, data and event_types sections as
 * offset and size, then the feature bits), each attrs entry a struct
 * perf_event_attr followed by the section of its sample IDs, and the data
 * section a sequence of records, each a struct perf_event_header.
 */
#include <errno.h>
#include <linux/perf_event.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "comms.h"
#include "perf_data.h"
#include "../common/util.h"

#define PERF_MAGIC2	0x32454c4946524550ULL	/* "PERFILE2" */

struct section {
	uint64_t offset, size;
};

struct file_header {
	uint64_t magic, size, attr_size;
	struct section attrs, data, event_types;
	uint64_t features[4];
};

struct file_attr {
	struct perf_event_attr attr;
	struct section ids;	/* its sample IDs (u64s) */
};

/* The event whose IDs have @id (a sample's PERF_SAMPLE_IDENTIFIER); NULL if none. */
static struct perf_event_attr *attr_of_id(const uint8_t *data, struct file_attr *attrs,
					  uint64_t nr, uint64_t id)
{
	uint64_t i, j, v;

	for (i = 0; i < nr; i++)
		for (j = 0; j < attrs[i].ids.size / 8; j++) {
			memcpy(&v, data + attrs[i].ids.offset + j * 8, 8);
			if (v == id)
				return &attrs[i].attr;
		}
	return NULL;
}

static int fail(char *why, size_t n, const char *path, const char *what)
{
	snprintf(why, n, "%s: %s", path, what);
	return -1;
}

static bool in_file(const struct section *s, size_t len)
{
	return s->offset <= len && s->size <= len - s->offset;
}

static const char *event_name(const struct perf_event_attr *a)
{
	if (a->type == PERF_TYPE_SOFTWARE && a->config == PERF_COUNT_SW_CPU_CLOCK)
		return "cpu-clock";
	if (a->type == PERF_TYPE_SOFTWARE && a->config == PERF_COUNT_SW_TASK_CLOCK)
		return "task-clock";
	if (a->type == PERF_TYPE_HARDWARE && a->config == PERF_COUNT_HW_CPU_CYCLES)
		return "cycles";
	return "event";
}

int perf_data_read(const char *path, void (*fn)(void *ctx, const struct perf_sample *sample),
		   void *ctx, struct perf_data_info *info, char *why, size_t why_len)
{
	struct ink_comms comms = { 0 };
	struct perf_event_attr attr, *a;
	struct file_attr *attrs = NULL;
	struct file_header fh;
	uint64_t i, nr_attrs, pos;
	bool same = true, by_id = true;
	uint8_t *data;
	size_t len;
	int ret = -1;

	memset(info, 0, sizeof(*info));
	data = read_whole_file(path, &len, SIZE_MAX);
	if (!data)
		return fail(why, why_len, path, strerror(errno));
	if (len < sizeof(fh))
		goto short_file;
	memcpy(&fh, data, sizeof(fh));
	if (fh.magic != PERF_MAGIC2) {
		fail(why, why_len, path, "not a perf.data file of this byte order (magic)");
		goto out;
	}
	if (fh.size != sizeof(fh)) {
		fail(why, why_len, path, "a perf.data in pipe mode: not supported "
		     "(perf record -o FILE, or perf inject)");
		goto out;
	}
	if (!in_file(&fh.attrs, len) || !in_file(&fh.data, len))
		goto short_file;
	if (fh.attr_size <= sizeof(struct section) || fh.attrs.size < fh.attr_size) {
		fail(why, why_len, path, "no events in its attrs section");
		goto out;
	}
	nr_attrs = fh.attrs.size / fh.attr_size;
	attrs = calloc(nr_attrs, sizeof(*attrs));
	if (!attrs) {
		fail(why, why_len, path, "out of memory");
		goto out;
	}
	for (i = 0; i < nr_attrs; i++) {
		const uint8_t *entry = data + fh.attrs.offset + i * fh.attr_size;
		size_t n = fh.attr_size - sizeof(struct section);

		memcpy(&attrs[i].attr, entry, n < sizeof(attr) ? n : sizeof(attr));
		memcpy(&attrs[i].ids, entry + n, sizeof(struct section));
		if (!in_file(&attrs[i].ids, len))
			goto short_file;
		same &= attrs[i].attr.sample_type == attrs[0].attr.sample_type &&
			attrs[i].attr.read_format == attrs[0].attr.read_format;
		by_id &= !!(attrs[i].attr.sample_type & PERF_SAMPLE_IDENTIFIER);
	}
	if (!same && !by_id) {
		fail(why, why_len, path, "events of different sample types without "
		     "PERF_SAMPLE_IDENTIFIER: not supported");
		goto out;
	}
	attr = attrs[0].attr;
	info->sample_type = attr.sample_type;
	info->hz = attr.freq ? (unsigned int)attr.sample_freq : 0;
	info->event = event_name(&attr);
	for (pos = 0; pos + sizeof(struct perf_event_header) <= fh.data.size;) {
		static uint64_t aligned[65536 / 8];	/* the record, for its u64s */
		const uint8_t *rec = (const uint8_t *)aligned;
		struct perf_event_header h;
		struct perf_sample s;

		memcpy(&h, data + fh.data.offset + pos, sizeof(h));
		if (h.size < sizeof(h) || h.size > fh.data.size - pos)
			goto short_file;
		memcpy(aligned, data + fh.data.offset + pos, h.size);
		pos += h.size;
		if (h.type == PERF_RECORD_COMM && h.size >= sizeof(h) + 8) {
			uint32_t tid;

			memcpy(&tid, rec + sizeof(h) + 4, 4);
			ink_comms_put(&comms, (int)tid, (const char *)rec + sizeof(h) + 8,
				      h.size - sizeof(h) - 8);
		}
		if (h.type != PERF_RECORD_SAMPLE) {
			info->other++;
			continue;
		}
		a = &attrs[0].attr;
		if (!same) {
			uint64_t id;

			if (h.size < sizeof(h) + 8)
				goto short_file;
			memcpy(&id, rec + sizeof(h), 8);
			a = attr_of_id(data, attrs, nr_attrs, id);
			if (!a) {
				info->other++;	/* an event the attrs do not list */
				continue;
			}
		}
		if (perf_sample_parse(rec + sizeof(h), h.size - sizeof(h), a->sample_type,
				      a->read_format, &s)) {
			fail(why, why_len, path, "a sample record cut short");
			goto out;
		}
		s.comm = s.tid ? ink_comms_get(&comms, (int)s.tid) : "swapper";
		if (!info->samples++)
			info->first_time = s.time;
		info->last_time = s.time;
		fn(ctx, &s);
	}
	ret = 0;
	goto out;
short_file:
	fail(why, why_len, path, "cut short or corrupt");
out:
	ink_comms_free(&comms);
	free(attrs);
	free(data);
	return ret;
}
