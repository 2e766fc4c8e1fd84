// SPDX-License-Identifier: GPL-2.0
/* A recorded trace file to lines (report.h). */
#include <endian.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <event-parse.h>

#include "report.h"
#include "stream.h"
#include "trace_file.h"

/* libtraceevent's symbols, for the print fmts of other events (%pS...), as tracefs gives them. */
static void tep_symbols(struct tep_handle *tep)
{
	const char *path = getenv("INKPROBE_KALLSYMS");
	struct buf text = { 0 };
	char chunk[65536];
	size_t n;
	FILE *f = fopen(path && *path ? path : "/proc/kallsyms", "r");

	if (!f)
		return;
	while ((n = fread(chunk, 1, sizeof(chunk), f)) > 0)
		buf_add(&text, chunk, n);
	fclose(f);
	buf_add_u8(&text, '\0');
	tep_parse_kallsyms(tep, (const char *)text.data);
	buf_free(&text);
}

static bool host_big_endian(void)
{
	const uint16_t one = 1;

	return !*(const uint8_t *)&one;
}

/* The events of the file in a libtraceevent handle; NULL after a message. */
static struct tep_handle *file_tep(const struct ink_tf_meta *m, const char *name, bool json)
{
	struct tep_handle *tep = tep_alloc();
	size_t i;

	if (!tep)
		die("out of memory");
	tep_set_file_bigendian(tep, m->big_endian ? TEP_BIG_ENDIAN : TEP_LITTLE_ENDIAN);
	tep_set_local_bigendian(tep, host_big_endian() ? TEP_BIG_ENDIAN : TEP_LITTLE_ENDIAN);
	tep_parse_header_page(tep, (char *)m->header_page, m->header_page_len, m->long_size);
	if (tep_get_header_page_size(tep) != (int)m->long_size ||
	    tep_get_header_timestamp_size(tep) != 8 ||
	    tep_get_sub_buffer_size(tep) != (int)m->page_size) {
		warnx("trace: %s: its header_page (a %d-byte commit, %d-byte pages) does not "
		      "describe its pages (%u-byte long, %u-byte pages)", name,
		      tep_get_header_page_size(tep), tep_get_sub_buffer_size(tep), m->long_size,
		      m->page_size);
		tep_free(tep);
		return NULL;
	}
	tep_set_long_size(tep, m->long_size);
	tep_set_page_size(tep, m->page_size);
	tep_set_cpus(tep, m->nr_cpus);
	/* as tracefs_local_events_system(): an event it cannot parse is not printed */
	for (i = 0; i < m->nr_formats; i++)
		tep_parse_event(tep, m->formats[i].text, m->formats[i].len, m->formats[i].system);
	if (!json)
		tep_symbols(tep);
	return tep;
}

int ink_report(FILE *f, const char *name, const struct ink_report_opts *o)
{
	struct ink_tf_reader r;
	struct ink_tf_chunk c;
	struct ink_stream s;
	struct tep_handle *tep = NULL;
	unsigned long long lost_total = 0;
	unsigned char *page = NULL;
	bool ended = false;
	size_t i;
	int ret = 1, got = 0;

	if (ink_tf_open(&r, f) < 0) {
		warnx("trace: %s: %s", name, r.err);
		goto out;
	}
	if (r.meta.big_endian != host_big_endian()) {
		warnx("trace: %s: recorded on a %s-endian machine: read it on one", name,
		      r.meta.big_endian ? "big" : "little");
		goto out;
	}
	tep = file_tep(&r.meta, name, o->json);
	if (!tep)
		goto out;
	if (!ink_stream_init(&s, tep, r.meta.nr_cpus, o->out_fd)) {
		warnx("trace: libtraceevent has no ring-buffer reader for this file");
		ink_stream_free(&s);
		goto out;
	}
	s.json = o->json;
	s.ns = ink_clock_in_ns(r.meta.clock);
	s.count = o->count;
	s.ctx = o->ctx;
	for (i = 0; i < r.meta.nr_comms; i++)
		ink_comms_put(&s.comms, r.meta.comms[i].pid, r.meta.comms[i].comm, INK_COMM_LEN);
	/* a page as the ring has it: the bytes after its data read as zeros */
	page = xcalloc(1, r.meta.page_size + 16);
	while (!s.out_failed && !ink_stream_count_reached(&s) &&
	       (got = ink_tf_next(&r, &c)) > 0) {
		switch (c.kind) {
		case INK_TF_PAGE:
			memcpy(page, c.data, c.len);
			memset(page + c.len, 0, r.meta.page_size + 16 - c.len);
			if (ink_stream_page(&s, c.cpu, page) < 0) {
				snprintf(r.err, sizeof(r.err), "at byte %llu: CPU %u's page cannot be "
					 "read", (unsigned long long)c.off, c.cpu);
				got = -1;
			}
			break;
		case INK_TF_CYCLE:
			ink_stream_cycle(&s, c.value);
			break;
		case INK_TF_LOST:
			ink_stream_lost(&s, c.cpu, c.value);
			break;
		case INK_TF_END:
			for (i = 0; i < r.meta.nr_cpus; i++) {
				uint64_t v;

				memcpy(&v, (const char *)c.data + 8 * i, 8);
				lost_total += le64toh(v);
			}
			ended = true;
			break;
		}
		if (got < 0)
			break;
	}
	/* what was read before an error or the end is printed */
	ink_stream_cycle(&s, UINT64_MAX);
	ret = 0;
	if (got < 0 && !s.out_failed && !ink_stream_count_reached(&s)) {
		warnx("trace: %s: %s", name, r.err);
		ret = 1;
	}
	if (ended && lost_total)
		warnx("trace: %llu events lost, %llu read: the buffer was full "
		      "(a larger --buffer-kb keeps more)", lost_total, s.read);
	if (s.out_failed && !s.out_closed)
		ret = 1;
	ink_stream_free(&s);
out:
	free(page);
	tep_free(tep);
	ink_tf_close(&r);
	return ret;
}
