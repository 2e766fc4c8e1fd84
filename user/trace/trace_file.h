/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The file of `inkprobe trace --output` and `--input`: ftrace's ring pages
 * as the reader got them, with what is needed to format them later
 * (Documentation/trace-events.rst, "Recording and reporting later"):
 *
 *   header    "INKTRACE", version, flags, page size, long size, CPUs,
 *             the metadata's length and CRC-32, the header's CRC-32
 *   metadata  items {tag, length, bytes}: the clock, events/header_page,
 *             events/header_event, each event's format (its system, a NUL,
 *             the text), the task names (PID and 16 bytes each)
 *   chunks    {kind, cpu, length, bytes}: a CPU's page; the end of a read
 *             (the ring's clock when it began); events a CPU dropped; the
 *             trailer (each CPU's loss count), last
 *
 * Integers of the file are little-endian; the pages are as the recording
 * kernel wrote them.  The file is untrusted input: the reader checks every
 * length and offset, and ink_tf_page_check() a page's records, before
 * anything else reads them; its errors name the byte offset.
 */
#ifndef _INKPROBE_USER_TRACE_FILE_H
#define _INKPROBE_USER_TRACE_FILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "comms.h"
#include "../common/util.h"

#define INK_TF_MAGIC		"INKTRACE"
#define INK_TF_VERSION		1
#define INK_TF_HEADER_SIZE	40
#define INK_TF_CHUNK_HEADER	12
#define INK_TF_MAX_PAGE		(1U << 20)
#define INK_TF_MAX_CPUS		4096
#define INK_TF_MAX_META		(64U << 20)

#define INK_TF_BIG_ENDIAN	0x1	/* flags: the pages are big-endian */

enum ink_tf_tag {
	INK_TF_CLOCK = 1,
	INK_TF_HEADER_PAGE = 2,
	INK_TF_HEADER_EVENT = 3,
	INK_TF_FORMAT = 4,
	INK_TF_COMMS = 5,
};

enum ink_tf_kind {
	INK_TF_PAGE = 1,	/* a CPU's sub-buffer */
	INK_TF_CYCLE = 2,	/* a read ended; 8 bytes: the ring's clock when it began */
	INK_TF_LOST = 3,	/* 8 bytes: events the CPU's buffer dropped since the last */
	INK_TF_END = 4,		/* the trailer: 8 bytes a CPU, its loss count in all */
};

struct ink_tf_format {
	const char *system;	/* NUL-terminated */
	const char *text;
	size_t len;
};

struct ink_tf_comm {
	int32_t pid;
	char comm[INK_COMM_LEN];	/* not NUL-terminated if 16 long */
};

struct ink_tf_meta {
	uint32_t page_size, long_size, nr_cpus;
	bool big_endian;
	const char *clock;		/* NUL-terminated */
	const char *header_page, *header_event;
	size_t header_page_len, header_event_len;
	struct ink_tf_format *formats;
	size_t nr_formats;
	struct ink_tf_comm *comms;
	size_t nr_comms;
};

/* ---- writing ---- */

struct ink_tf_writer {
	int fd;
	struct buf out;		/* not written yet */
	unsigned int long_size;
	uint64_t written;
	int err;		/* errno of the first failed write; 0 */
};

void ink_tf_writer_init(struct ink_tf_writer *w, int fd);
/* Header and metadata; sets the long size pages are trimmed with. */
void ink_tf_write_meta(struct ink_tf_writer *w, const struct ink_tf_meta *m);
/* A page as read: its bytes up to the end of its data (header + commit). */
void ink_tf_write_page(struct ink_tf_writer *w, uint32_t cpu, const void *page, size_t len);
void ink_tf_write_cycle(struct ink_tf_writer *w, uint64_t now);
void ink_tf_write_lost(struct ink_tf_writer *w, uint32_t cpu, uint64_t lost);
void ink_tf_write_end(struct ink_tf_writer *w, const uint64_t *lost, uint32_t nr_cpus);
/* What is buffered, to the file; false (w->err) once a write failed. */
bool ink_tf_flush(struct ink_tf_writer *w);
/* Flushes when much is buffered. */
bool ink_tf_maybe_flush(struct ink_tf_writer *w);
void ink_tf_writer_free(struct ink_tf_writer *w);

/* ---- reading ---- */

struct ink_tf_chunk {
	enum ink_tf_kind kind;
	uint32_t cpu, len;
	uint64_t off;		/* of the chunk in the file */
	uint64_t value;		/* CYCLE, LOST */
	const void *data;	/* PAGE: len bytes; END: nr_cpus loss counts */
};

struct ink_tf_reader {
	FILE *f;
	uint64_t off;		/* read so far */
	struct ink_tf_meta meta;
	unsigned char *meta_buf;
	unsigned char *payload;	/* the chunk read last */
	size_t payload_cap;
	bool ended;		/* the trailer was read */
	char err[256];
};

/* Reads the header and metadata of @f; 0, or -1 with r->err ("at byte N: ..."). */
int ink_tf_open(struct ink_tf_reader *r, FILE *f);
/* The next chunk: 1; 0 at the end of a whole file (after its trailer); -1 with r->err. */
int ink_tf_next(struct ink_tf_reader *r, struct ink_tf_chunk *c);
void ink_tf_close(struct ink_tf_reader *r);

/*
 * Whether a page of @len bytes holds records libtraceevent's kbuffer can
 * walk within it (the ring buffer's encoding: a page header, then events
 * each with a type and length word); else false and why, with the offset
 * in the page.  A page of fewer than @page_size bytes is read as if zeros
 * followed.
 */
bool ink_tf_page_check(const void *page, size_t len, uint32_t page_size, uint32_t long_size,
		       bool big_endian, char *why, size_t n);

#endif /* _INKPROBE_USER_TRACE_FILE_H */
