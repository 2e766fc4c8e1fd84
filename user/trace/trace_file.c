// SPDX-License-Identifier: GPL-2.0
/*
 * The recorded trace file (trace_file.h): writer and reader, and the check
 * of a page's records against the ring buffer's encoding as libtraceevent's
 * kbuffer walks it (the kernel's kernel/trace/ring_buffer.c): a page is
 * a time stamp (8 bytes), the commit word (a long: the data's length in
 * its low 27 bits, flags above), then events, each a 32-bit word of type
 * and length (5 bits) and time delta (27 bits) and its data.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#include "trace_file.h"

#define COMMIT_MASK	((1U << 27) - 1)	/* kbuffer's */
#define MISSED_STORED	(1ULL << 30)
#define TYPE_PADDING	29
#define TYPE_TIME_EXTEND	30
#define TYPE_TIME_STAMP	31
#define FLUSH_AT	(1U << 20)

static uint32_t crc(const void *p, size_t n)
{
	return (uint32_t)crc32(crc32(0L, Z_NULL, 0), p, n);
}

static void put32(unsigned char *p, uint32_t v)
{
	p[0] = v;
	p[1] = v >> 8;
	p[2] = v >> 16;
	p[3] = v >> 24;
}

static void put64(unsigned char *p, uint64_t v)
{
	put32(p, (uint32_t)v);
	put32(p + 4, (uint32_t)(v >> 32));
}

static uint32_t get32(const unsigned char *p)
{
	return p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static uint64_t get64(const unsigned char *p)
{
	return get32(p) | (uint64_t)get32(p + 4) << 32;
}

/* ------------------------------------------------------------------ */
/* Writing                                                              */

void ink_tf_writer_init(struct ink_tf_writer *w, int fd)
{
	memset(w, 0, sizeof(*w));
	w->fd = fd;
	w->long_size = 8;
}

static void add32(struct buf *b, uint32_t v)
{
	unsigned char p[4];

	put32(p, v);
	buf_add(b, p, 4);
}

static void add64(struct buf *b, uint64_t v)
{
	unsigned char p[8];

	put64(p, v);
	buf_add(b, p, 8);
}

static void item(struct buf *b, uint32_t tag, const void *a, size_t alen, const void *c,
		 size_t clen)
{
	add32(b, tag);
	add32(b, (uint32_t)(alen + clen));
	buf_add(b, a, alen);
	buf_add(b, c, clen);
}

void ink_tf_write_meta(struct ink_tf_writer *w, const struct ink_tf_meta *m)
{
	struct buf meta = { 0 };
	unsigned char h[INK_TF_HEADER_SIZE];
	size_t i;

	item(&meta, INK_TF_CLOCK, m->clock, strlen(m->clock), NULL, 0);
	item(&meta, INK_TF_HEADER_PAGE, m->header_page, m->header_page_len, NULL, 0);
	item(&meta, INK_TF_HEADER_EVENT, m->header_event, m->header_event_len, NULL, 0);
	for (i = 0; i < m->nr_formats; i++)
		item(&meta, INK_TF_FORMAT, m->formats[i].system, strlen(m->formats[i].system) + 1,
		     m->formats[i].text, m->formats[i].len);
	add32(&meta, INK_TF_COMMS);
	add32(&meta, (uint32_t)(m->nr_comms * (4 + INK_COMM_LEN)));
	for (i = 0; i < m->nr_comms; i++) {
		add32(&meta, (uint32_t)m->comms[i].pid);
		buf_add(&meta, m->comms[i].comm, INK_COMM_LEN);
	}
	memcpy(h, INK_TF_MAGIC, 8);
	put32(h + 8, INK_TF_VERSION);
	put32(h + 12, m->big_endian ? INK_TF_BIG_ENDIAN : 0);
	put32(h + 16, m->page_size);
	put32(h + 20, m->long_size);
	put32(h + 24, m->nr_cpus);
	put32(h + 28, (uint32_t)meta.len);
	put32(h + 32, crc(meta.data, meta.len));
	put32(h + 36, crc(h, 36));
	buf_add(&w->out, h, sizeof(h));
	buf_add(&w->out, meta.data, meta.len);
	buf_free(&meta);
	w->long_size = m->long_size;
}

static void chunk(struct ink_tf_writer *w, uint32_t kind, uint32_t cpu, uint32_t len)
{
	add32(&w->out, kind);
	add32(&w->out, cpu);
	add32(&w->out, len);
}

/* The bytes of a page that hold something: its header and data, and a stored loss count. */
static size_t page_used(const unsigned char *page, size_t len, unsigned int long_size)
{
	size_t head = 8 + long_size, used;
	uint64_t commit;

	if (len < head)
		return len;
	commit = long_size == 8 ? get64(page + 8) : get32(page + 8);
	used = head + (commit & COMMIT_MASK) + (commit & MISSED_STORED ? long_size : 0);
	return used < len ? used : len;
}

void ink_tf_write_page(struct ink_tf_writer *w, uint32_t cpu, const void *page, size_t len)
{
	len = page_used(page, len, w->long_size);
	chunk(w, INK_TF_PAGE, cpu, (uint32_t)len);
	buf_add(&w->out, page, len);
}

void ink_tf_write_cycle(struct ink_tf_writer *w, uint64_t now)
{
	chunk(w, INK_TF_CYCLE, 0, 8);
	add64(&w->out, now);
}

void ink_tf_write_lost(struct ink_tf_writer *w, uint32_t cpu, uint64_t lost)
{
	chunk(w, INK_TF_LOST, cpu, 8);
	add64(&w->out, lost);
}

void ink_tf_write_end(struct ink_tf_writer *w, const uint64_t *lost, uint32_t nr_cpus)
{
	uint32_t i;

	chunk(w, INK_TF_END, 0, 8 * nr_cpus);
	for (i = 0; i < nr_cpus; i++)
		add64(&w->out, lost[i]);
}

bool ink_tf_flush(struct ink_tf_writer *w)
{
	size_t done = 0;
	ssize_t n;

	while (done < w->out.len && !w->err) {
		n = write(w->fd, w->out.data + done, w->out.len - done);
		if (n > 0)
			done += n;
		else if (n < 0 && errno == EINTR)
			continue;
		else
			w->err = n < 0 ? errno : EIO;
	}
	w->written += done;
	w->out.len = 0;
	return !w->err;
}

bool ink_tf_maybe_flush(struct ink_tf_writer *w)
{
	return w->out.len < FLUSH_AT ? !w->err : ink_tf_flush(w);
}

void ink_tf_writer_free(struct ink_tf_writer *w)
{
	buf_free(&w->out);
}

/* ------------------------------------------------------------------ */
/* Reading                                                              */

__attribute__((format(printf, 3, 4)))
static int fail(struct ink_tf_reader *r, uint64_t at, const char *fmt, ...)
{
	char why[200];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, sizeof(why), fmt, ap);
	va_end(ap);
	snprintf(r->err, sizeof(r->err), "at byte %llu: %s", (unsigned long long)at, why);
	return -1;
}

/* Reads @n bytes; how many it could. */
static size_t get(struct ink_tf_reader *r, void *p, size_t n)
{
	size_t got = n ? fread(p, 1, n, r->f) : 0;

	r->off += got;
	return got;
}

static int parse_meta(struct ink_tf_reader *r, const unsigned char *p, uint32_t len)
{
	struct ink_tf_meta *m = &r->meta;
	uint32_t pos = 0, tag, n, i;
	size_t cap = 0;
	bool clock = false, header_page = false, header_event = false, comms = false;

	while (pos < len) {
		uint64_t at = INK_TF_HEADER_SIZE + pos;
		const unsigned char *v;

		if (len - pos < 8)
			return fail(r, at, "a metadata item's header crosses the metadata's end");
		tag = get32(p + pos);
		n = get32(p + pos + 4);
		if (n > len - pos - 8)
			return fail(r, at, "a metadata item of %u bytes crosses the metadata's end", n);
		v = p + pos + 8;
		switch (tag) {
		case INK_TF_CLOCK:
			if (clock || !n || n > 63 || memchr(v, '\0', n))
				return fail(r, at, "a bad clock item");
			m->clock = strndup((const char *)v, n);
			clock = true;
			break;
		case INK_TF_HEADER_PAGE:
			if (header_page || !n)
				return fail(r, at, "a bad header_page item");
			m->header_page = (const char *)v;
			m->header_page_len = n;
			header_page = true;
			break;
		case INK_TF_HEADER_EVENT:
			if (header_event)
				return fail(r, at, "a second header_event item");
			m->header_event = (const char *)v;
			m->header_event_len = n;
			header_event = true;
			break;
		case INK_TF_FORMAT: {
			const unsigned char *nul = memchr(v, '\0', n);
			struct ink_tf_format *f;

			if (!nul || nul == v || nul + 1 == v + n)
				return fail(r, at, "a format item without a system and a text");
			f = VEC_PUSH(m->formats, m->nr_formats, cap);
			f->system = (const char *)v;
			f->text = (const char *)nul + 1;
			f->len = v + n - (nul + 1);
			break;
		}
		case INK_TF_COMMS:
			if (comms || n % (4 + INK_COMM_LEN))
				return fail(r, at, "a bad task names item (%u bytes)", n);
			m->nr_comms = n / (4 + INK_COMM_LEN);
			m->comms = xcalloc(m->nr_comms + 1, sizeof(*m->comms));
			for (i = 0; i < m->nr_comms; i++) {
				m->comms[i].pid = (int32_t)get32(v + i * (4 + INK_COMM_LEN));
				memcpy(m->comms[i].comm, v + i * (4 + INK_COMM_LEN) + 4, INK_COMM_LEN);
			}
			comms = true;
			break;
		default:
			return fail(r, at, "a metadata item of unknown tag %u", tag);
		}
		pos += 8 + n;
	}
	if (!clock || !header_page || !m->nr_formats)
		return fail(r, INK_TF_HEADER_SIZE + len, "the metadata has no %s",
			    !clock ? "clock" : !header_page ? "header_page" : "event format");
	return 0;
}

int ink_tf_open(struct ink_tf_reader *r, FILE *f)
{
	unsigned char h[INK_TF_HEADER_SIZE];
	struct ink_tf_meta *m = &r->meta;
	uint32_t version, flags, meta_len;
	size_t got;

	memset(r, 0, sizeof(*r));
	r->f = f;
	got = get(r, h, sizeof(h));
	if (got >= 8 && memcmp(h, INK_TF_MAGIC, 8))
		return fail(r, 0, "not an inkprobe trace file (no %s)", INK_TF_MAGIC);
	if (got < sizeof(h))
		return fail(r, got, "the file ends in its header (%zu bytes)", sizeof(h));
	if (get32(h + 36) != crc(h, 36))
		return fail(r, 36, "the header's CRC-32 does not match: the file is damaged");
	version = get32(h + 8);
	flags = get32(h + 12);
	m->page_size = get32(h + 16);
	m->long_size = get32(h + 20);
	m->nr_cpus = get32(h + 24);
	meta_len = get32(h + 28);
	m->big_endian = flags & INK_TF_BIG_ENDIAN;
	if (version != INK_TF_VERSION)
		return fail(r, 8, "version %u: this inkprobe reads version %u", version,
			    INK_TF_VERSION);
	if (flags & ~INK_TF_BIG_ENDIAN)
		return fail(r, 12, "unknown flags 0x%x", flags);
	if (m->long_size != 4 && m->long_size != 8)
		return fail(r, 20, "a long of %u bytes", m->long_size);
	if (m->page_size < 64 || m->page_size > INK_TF_MAX_PAGE)
		return fail(r, 16, "a page of %u bytes (64 to %u)", m->page_size, INK_TF_MAX_PAGE);
	if (!m->nr_cpus || m->nr_cpus > INK_TF_MAX_CPUS)
		return fail(r, 24, "%u CPUs (1 to %u)", m->nr_cpus, INK_TF_MAX_CPUS);
	if (meta_len > INK_TF_MAX_META)
		return fail(r, 28, "metadata of %u bytes (at most %u)", meta_len, INK_TF_MAX_META);
	r->meta_buf = xmalloc(meta_len + 1);
	got = get(r, r->meta_buf, meta_len);
	if (got < meta_len)
		return fail(r, r->off, "the file ends in its metadata (%zu of %u bytes)", got,
			    meta_len);
	if (get32(h + 32) != crc(r->meta_buf, meta_len))
		return fail(r, INK_TF_HEADER_SIZE,
			    "the metadata's CRC-32 does not match: the file is damaged");
	return parse_meta(r, r->meta_buf, meta_len);
}

int ink_tf_next(struct ink_tf_reader *r, struct ink_tf_chunk *c)
{
	const struct ink_tf_meta *m = &r->meta;
	unsigned char h[INK_TF_CHUNK_HEADER], byte;
	char why[160];
	size_t got;

	memset(c, 0, sizeof(*c));
	c->off = r->off;
	if (r->ended)
		return get(r, &byte, 1) ? fail(r, c->off, "data after the trailer") : 0;
	got = get(r, h, sizeof(h));
	if (!got)
		return fail(r, c->off, "the file ends without its trailer "
			    "(a recording that did not finish?)");
	if (got < sizeof(h))
		return fail(r, c->off, "the file ends in a chunk's header");
	c->kind = get32(h);
	c->cpu = get32(h + 4);
	c->len = get32(h + 8);
	switch (c->kind) {
	case INK_TF_PAGE:
		if (c->cpu >= m->nr_cpus || c->len < 8 + m->long_size || c->len > m->page_size)
			return fail(r, c->off, "a page of %u bytes for CPU %u", c->len, c->cpu);
		break;
	case INK_TF_LOST:
		if (c->cpu >= m->nr_cpus)
			return fail(r, c->off, "a loss count for CPU %u", c->cpu);
		/* fall through */
	case INK_TF_CYCLE:
		if (c->len != 8)
			return fail(r, c->off, "a chunk of kind %u and %u bytes (8)", c->kind, c->len);
		break;
	case INK_TF_END:
		if (c->len != 8 * m->nr_cpus)
			return fail(r, c->off, "a trailer of %u bytes (%u)", c->len, 8 * m->nr_cpus);
		break;
	default:
		return fail(r, c->off, "a chunk of unknown kind %u", c->kind);
	}
	if (r->payload_cap < c->len) {
		r->payload_cap = c->len < m->page_size ? m->page_size : c->len;
		free(r->payload);
		r->payload = xmalloc(r->payload_cap);
	}
	got = get(r, r->payload, c->len);
	if (got < c->len)
		return fail(r, r->off, "the file ends in a chunk of %u bytes (%zu read)", c->len, got);
	c->data = r->payload;
	if (c->kind == INK_TF_CYCLE || c->kind == INK_TF_LOST)
		c->value = get64(r->payload);
	if (c->kind == INK_TF_END)
		r->ended = true;
	if (c->kind == INK_TF_PAGE &&
	    !ink_tf_page_check(r->payload, c->len, m->page_size, m->long_size, m->big_endian, why,
			       sizeof(why)))
		return fail(r, c->off, "CPU %u's page: %s", c->cpu, why);
	return 1;
}

void ink_tf_close(struct ink_tf_reader *r)
{
	free((char *)r->meta.clock);
	free(r->meta.formats);
	free(r->meta.comms);
	free(r->meta_buf);
	free(r->payload);
	memset(r, 0, sizeof(*r));
}

/* ------------------------------------------------------------------ */
/* A page's records                                                     */

struct page {
	const unsigned char *p;
	size_t len;		/* bytes there; zeros after */
	bool big_endian;
};

static uint32_t page32(const struct page *pg, size_t off)
{
	unsigned char b[4] = { 0 };
	size_t i;

	for (i = 0; i < 4; i++)
		if (off + i < pg->len)
			b[i] = pg->p[off + i];
	return pg->big_endian ? (uint32_t)b[0] << 24 | (uint32_t)b[1] << 16 | b[2] << 8 | b[3] :
		get32(b);
}

bool ink_tf_page_check(const void *page, size_t len, uint32_t page_size, uint32_t long_size,
		       bool big_endian, char *why, size_t n)
{
	const struct page pg = { page, len, big_endian };
	size_t head = 8 + long_size;
	uint64_t commit, size, curr = 0;

	if (len < head || len > page_size) {
		snprintf(why, n, "%zu bytes, not %zu to %u", len, head, page_size);
		return false;
	}
	if (long_size == 8)
		commit = big_endian ? (uint64_t)page32(&pg, 8) << 32 | page32(&pg, 12) :
			page32(&pg, 8) | (uint64_t)page32(&pg, 12) << 32;
	else
		commit = page32(&pg, 8);
	size = commit & COMMIT_MASK;
	if (head + size > len) {
		snprintf(why, n, "its data (%llu bytes) goes past its %zu bytes",
			 (unsigned long long)size, len);
		return false;
	}
	if ((commit & MISSED_STORED) && head + size + long_size > page_size) {
		snprintf(why, n, "its loss count goes past the page");
		return false;
	}
	/* each event as kbuffer's __next_event() and translate_data() take it */
	while (curr < size) {
		uint32_t w, type_len;
		uint64_t at = head + curr, index, length, next;

		if (curr + 4 > size) {
			snprintf(why, n, "an event's header at %llu crosses the data's end",
				 (unsigned long long)at);
			return false;
		}
		w = page32(&pg, head + curr);
		type_len = big_endian ? w >> 27 : w & 31;
		if (type_len == TYPE_PADDING) {
			/* kbuffer reads the length even past the data: it stops at the data's end */
			next = (uint32_t)(curr + 4 + page32(&pg, head + curr + 4));
			if (next <= curr) {
				snprintf(why, n, "a padding at %llu goes backwards",
					 (unsigned long long)at);
				return false;
			}
			curr = next;
			continue;
		}
		if (type_len >= TYPE_TIME_EXTEND || type_len == 0) {
			if (curr + 8 > size) {
				snprintf(why, n, "an event at %llu crosses the data's end",
					 (unsigned long long)at);
				return false;
			}
		}
		if (type_len >= TYPE_TIME_EXTEND) {
			curr += 8;
			continue;
		}
		if (type_len == 0) {
			uint32_t raw = page32(&pg, head + curr + 4);

			if (raw < 4) {
				snprintf(why, n, "an event at %llu has a length of %u",
					 (unsigned long long)at, raw);
				return false;
			}
			index = curr + 8;
			length = ((uint64_t)raw - 4 + 3) & ~3ULL;
		} else {
			index = curr + 4;
			length = 4ULL * type_len;
		}
		next = index + length;
		if (next > size) {
			snprintf(why, n, "an event at %llu of %llu bytes crosses the data's end (%llu)",
				 (unsigned long long)at, (unsigned long long)length,
				 (unsigned long long)(head + size));
			return false;
		}
		curr = next;
	}
	return true;
}
