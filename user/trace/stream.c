// SPDX-License-Identifier: GPL-2.0
/*
 * Ring pages to lines (stream.h).  Records are checked against their
 * event's format before they are read: a field outside the record is not
 * read (record.c), and an event that is not inkprobe's is printed by
 * libtraceevent only when every field, and every __data_loc's bytes, lies
 * in the record.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <kbuffer.h>

#include "stream.h"

#define ARENA_MAX	(1U << 30)	/* queued bytes of a CPU: the offsets are 32-bit */

/* Whether [@off, @off + @len) lies in @size bytes. */
static bool fits(uint64_t off, uint64_t len, uint64_t size)
{
	return off <= size && len <= size - off;
}

static int32_t read_s32(const char *data, unsigned int size, unsigned int off)
{
	int32_t v = -1;

	if (fits(off, 4, size))
		memcpy(&v, data + off, 4);
	return v;
}

bool ink_clock_in_ns(const char *clock)
{
	return !clock || (strcmp(clock, "counter") && strcmp(clock, "uptime") &&
			  strcmp(clock, "x86-tsc") && strcmp(clock, "ppc-tb"));
}

static int field_off(struct tep_event *ev, const char *name)
{
	struct tep_format_field *f = ev ? tep_find_field(ev, name) : NULL;

	return f && f->offset >= 0 ? f->offset : -1;
}

/* task:task_newtask and task:task_rename, if @tep has them: names from the ring. */
static void comm_events(struct ink_stream *s)
{
	struct tep_event *nt = tep_find_event_by_name(s->tep, "task", "task_newtask");
	struct tep_event *rn = tep_find_event_by_name(s->tep, "task", "task_rename");
	int a = field_off(nt, "pid"), b = field_off(nt, "comm");
	int c = field_off(rn, "pid"), d = field_off(rn, "newcomm");

	s->newtask_id = s->rename_id = -1;
	if (a >= 0 && b >= 0) {
		s->newtask_id = nt->id;
		s->nt_pid = a;
		s->nt_comm = b;
	}
	if (c >= 0 && d >= 0) {
		s->rename_id = rn->id;
		s->rn_pid = c;
		s->rn_comm = d;
	}
}

bool ink_stream_init(struct ink_stream *s, struct tep_handle *tep, int nr_cpus, int out_fd)
{
	memset(s, 0, sizeof(*s));
	trace_seq_init(&s->seq);
	s->tep = tep;
	s->out_fd = out_fd;
	s->nr_cpus = nr_cpus;
	s->cpus = xcalloc(nr_cpus + 1, sizeof(*s->cpus));
	comm_events(s);
	s->kbuf = tep_kbuffer(tep);
	return s->kbuf;
}

void ink_stream_free(struct ink_stream *s)
{
	int k;

	for (k = 0; s->cpus && k < s->nr_cpus; k++) {
		free(s->cpus[k].recs);
		buf_free(&s->cpus[k].arena);
	}
	free(s->cpus);
	if (s->fmts)
		for (k = 0; k < 0x10000; k++)
			free(s->fmts[k]);
	free(s->fmts);
	kbuffer_free(s->kbuf);
	ink_comms_free(&s->comms);
	buf_free(&s->out);
	trace_seq_destroy(&s->seq);
	memset(s, 0, sizeof(*s));
}

static const struct ink_rec_fmt *fmt_of(struct ink_stream *s, int id)
{
	struct tep_event *ev;
	struct ink_rec_fmt *f;

	if (id < 0 || id > 0xffff)
		return NULL;
	if (!s->fmts)
		s->fmts = xcalloc(0x10000, sizeof(*s->fmts));
	if (s->fmts[id])
		return s->fmts[id];
	ev = tep_find_event(s->tep, id);
	if (!ev)
		return NULL;
	f = xcalloc(1, sizeof(*f));
	if (!ink_rec_fmt_init(f, ev)) {
		free(f);
		return NULL;
	}
	s->fmts[id] = f;
	return f;
}

bool ink_stream_flush(struct ink_stream *s)
{
	size_t done = 0;
	ssize_t n;

	while (done < s->out.len && !s->out_failed) {
		n = write(s->out_fd, s->out.data + done, s->out.len - done);
		if (n > 0) {
			done += n;
		} else if (n < 0 && errno == EINTR) {
			continue;
		} else {
			if (n < 0 && errno == EPIPE)
				s->out_closed = true;
			else
				warnx("stdout: %s", n < 0 ? strerror(errno) : "short write");
			s->out_failed = true;
		}
	}
	s->out.len = 0;
	return !s->out_failed;
}

static void put_padded(struct buf *b, const char *str, int width, bool left)
{
	int n = (int)strlen(str);

	if (!left)
		for (; n < width; n++)
			buf_add_u8(b, ' ');
	ink_put_str(b, str);
	if (left)
		for (; n < width; n++)
			buf_add_u8(b, ' ');
}

/* "SEC.USEC" rounded to the microsecond, as ftrace prints it; the raw count otherwise. */
static void put_ts(struct buf *b, bool ns, uint64_t ts, int width)
{
	char tmp[48];

	if (!ns) {
		snprintf(tmp, sizeof(tmp), "%llu", (unsigned long long)ts);
	} else {
		uint64_t us = (ts + 500) / 1000;

		snprintf(tmp, sizeof(tmp), "%llu.%06llu", (unsigned long long)(us / 1000000),
			 (unsigned long long)(us % 1000000));
	}
	put_padded(b, tmp, width, false);
}

/*
 * Whether libtraceevent may print @data as @ev: its fields, and the bytes
 * of its __data_loc and __rel_loc fields, lie in the record.
 */
static bool record_fits(struct tep_event *ev, const char *data, unsigned int size)
{
	struct tep_format_field *f;
	int pass;

	for (pass = 0; pass < 2; pass++) {
		for (f = pass ? ev->format.fields : ev->format.common_fields; f; f = f->next) {
			uint32_t loc;
			uint64_t o, l;

			if (f->offset < 0 || f->size < 0 || !fits(f->offset, f->size, size))
				return false;
			if (!(f->flags & TEP_FIELD_IS_DYNAMIC))
				continue;
			if (f->size < 4)
				return false;
			memcpy(&loc, data + f->offset, 4);
			o = loc & 0xffff;
			l = loc >> 16;
			if (f->flags & TEP_FIELD_IS_RELATIVE)
				o += (uint64_t)f->offset + f->size;
			if (!fits(o, l, size))
				return false;
		}
	}
	return true;
}

/* One record of an enabled event, to s->out. */
static void emit(struct ink_stream *s, const struct ink_stream_rec *r,
		 const struct ink_rec_fmt *f, const char *data)
{
	int pid = read_s32(data, r->size, f->pid_off);
	const char *comm = ink_comms_get(&s->comms, pid);
	char num[32];

	if (!comm)
		comm = "<...>";
	if (s->json) {
		ink_put_str(&s->out, "{\"comm\":");
		ink_json_str(&s->out, comm, strlen(comm));
		ink_put_str(&s->out, ",\"pid\":");
		ink_put_s64(&s->out, pid);
		ink_put_str(&s->out, ",\"cpu\":");
		ink_put_u64(&s->out, r->cpu);
		ink_put_str(&s->out, ",\"ts\":");
		put_ts(&s->out, s->ns, r->ts, 0);
		ink_put_str(&s->out, ",\"ts_raw\":");
		ink_put_u64(&s->out, r->ts);
		ink_put_str(&s->out, ",\"group\":");
		ink_json_str(&s->out, f->system, strlen(f->system));
		ink_put_str(&s->out, ",\"event\":");
		ink_json_str(&s->out, f->name, strlen(f->name));
		ink_rec_json(&s->out, &s->ctx, f, data, r->size);
		ink_put_str(&s->out, "}\n");
	} else {
		put_padded(&s->out, comm, 16, false);
		buf_add_u8(&s->out, '-');
		snprintf(num, sizeof(num), "%d", pid);
		put_padded(&s->out, num, 7, true);
		snprintf(num, sizeof(num), " [%03d] ", r->cpu);
		ink_put_str(&s->out, num);
		put_ts(&s->out, s->ns, r->ts, 12);
		ink_put_str(&s->out, ": ");
		ink_put_str(&s->out, f->system);
		buf_add_u8(&s->out, ':');
		ink_put_str(&s->out, f->name);
		ink_put_str(&s->out, ": ");
		if (f->inkprobe) {
			ink_rec_text(&s->out, &s->ctx, f, data, r->size);
		} else {
			struct tep_event *ev = tep_find_event(s->tep, f->id);
			struct tep_record rec = {
				.ts = r->ts, .size = r->size, .data = (void *)data, .cpu = r->cpu,
			};

			if (ev && record_fits(ev, data, r->size)) {
				trace_seq_reset(&s->seq);
				tep_print_event(s->tep, &s->seq, &rec, "%s", TEP_PRINT_INFO);
				trace_seq_terminate(&s->seq);
				buf_add(&s->out, s->seq.buffer, s->seq.len);
			} else {
				ink_put_str(&s->out, "(bad record)");
			}
		}
		buf_add_u8(&s->out, '\n');
	}
	s->seen++;
}

static void emit_lost(struct ink_stream *s, int cpu, unsigned long long lost)
{
	char line[96];

	if (s->on_lost) {
		s->on_lost(s->cb_ctx, cpu, lost);
		return;
	}
	if (s->json)
		snprintf(line, sizeof(line), "{\"cpu\":%d,\"lost\":%llu}\n", cpu, lost);
	else
		snprintf(line, sizeof(line), "CPU:%d [LOST %llu EVENTS]\n", cpu, lost);
	ink_put_str(&s->out, line);
}

bool ink_stream_count_reached(const struct ink_stream *s)
{
	return s->count && s->seen >= s->count;
}

/* A record, in time order: a task name, or an event to print. */
static void take(struct ink_stream *s, const struct ink_stream_rec *r)
{
	const struct ink_stream_cpu *c = &s->cpus[r->cpu];
	const char *data = (const char *)c->arena.data + r->off;
	int id = r->size >= 2 ? *(const uint16_t *)data : -1;
	const struct ink_rec_fmt *f;

	if (id == s->newtask_id && fits(s->nt_comm, INK_COMM_LEN, r->size)) {
		ink_comms_put(&s->comms, read_s32(data, r->size, s->nt_pid), data + s->nt_comm,
			      INK_COMM_LEN);
		return;
	}
	if (id == s->rename_id && fits(s->rn_comm, INK_COMM_LEN, r->size)) {
		ink_comms_put(&s->comms, read_s32(data, r->size, s->rn_pid), data + s->rn_comm,
			      INK_COMM_LEN);
		return;
	}
	if (ink_stream_count_reached(s))
		return;
	f = fmt_of(s, id);
	if (!f) {
		s->other++;
		return;
	}
	if (s->on_record) {
		s->on_record(s->cb_ctx, r, f, data);
		s->seen++;
		return;
	}
	emit(s, r, f, data);
	if (s->out.len >= 65536)
		ink_stream_flush(s);
}

int ink_stream_page(struct ink_stream *s, int cpu, void *page)
{
	struct ink_stream_cpu *c = cpu >= 0 && cpu < s->nr_cpus ? &s->cpus[cpu] : NULL;
	unsigned long long ts;
	const char *begin = (const char *)page + (tep_get_long_size(s->tep) == 8 ? 16 : 12), *end;
	void *data;
	int n = 0;

	if (!c || kbuffer_load_subbuffer(s->kbuf, page) < 0)
		return -1;
	end = begin + kbuffer_subbuffer_size(s->kbuf);
	for (data = kbuffer_read_event(s->kbuf, &ts); data;
	     data = kbuffer_next_event(s->kbuf, &ts)) {
		int size = kbuffer_event_size(s->kbuf);
		struct ink_stream_rec *r;

		/* the page's data ends where its commit says (ink_tf_page_check()) */
		if (size < 0 || (const char *)data < begin || (const char *)data > end ||
		    size > end - (const char *)data || c->arena.len + size > ARENA_MAX) {
			errno = E2BIG;
			return -1;
		}
		r = VEC_PUSH(c->recs, c->nr, c->cap);
		r->ts = ts;
		r->off = (uint32_t)c->arena.len;
		r->size = size;
		r->cpu = cpu;
		r->seq = s->seq_no++;
		buf_add(&c->arena, data, size);
		c->read++;
		s->read++;
		n++;
	}
	return n;
}

void ink_stream_lost(struct ink_stream *s, int cpu, unsigned long long lost)
{
	if (cpu >= 0 && cpu < s->nr_cpus)
		s->cpus[cpu].pending_lost += lost;
}

static int cmp_rec(const void *a, const void *b)
{
	const struct ink_stream_rec *x = *(const struct ink_stream_rec *const *)a;
	const struct ink_stream_rec *y = *(const struct ink_stream_rec *const *)b;

	if (x->ts != y->ts)
		return x->ts < y->ts ? -1 : 1;
	if (x->cpu != y->cpu)
		return x->cpu < y->cpu ? -1 : 1;
	return (x->seq > y->seq) - (x->seq < y->seq);
}

static size_t take_until(struct ink_stream *s, uint64_t horizon)
{
	const struct ink_stream_rec **all = NULL;
	size_t n = 0, cap = 0, i, waiting = 0;
	int k;

	for (k = 0; k < s->nr_cpus; k++) {
		struct ink_stream_cpu *c = &s->cpus[k];

		for (i = c->first; i < c->nr && c->recs[i].ts < horizon; i++)
			*VEC_PUSH(all, n, cap) = &c->recs[i];
	}
	if (n)
		qsort(all, n, sizeof(*all), cmp_rec);
	for (i = 0; i < n; i++)
		take(s, all[i]);
	free(all);
	for (k = 0; k < s->nr_cpus; k++) {
		struct ink_stream_cpu *c = &s->cpus[k];

		while (c->first < c->nr && c->recs[c->first].ts < horizon)
			c->first++;
		/* the CPU's records are in time order: the rest waits, moved to the front */
		if (c->first == c->nr) {
			c->arena.len = 0;
		} else if (c->first) {
			uint32_t base = c->recs[c->first].off;

			memmove(c->arena.data, c->arena.data + base, c->arena.len - base);
			c->arena.len -= base;
			memmove(c->recs, c->recs + c->first, (c->nr - c->first) * sizeof(*c->recs));
			for (i = 0; i < c->nr - c->first; i++)
				c->recs[i].off -= base;
		}
		c->nr -= c->first;
		c->first = 0;
		waiting += c->nr;
	}
	return waiting;
}

size_t ink_stream_cycle(struct ink_stream *s, uint64_t horizon)
{
	size_t waiting = take_until(s, horizon);
	int k;

	for (k = 0; k < s->nr_cpus; k++) {
		if (s->cpus[k].pending_lost)
			emit_lost(s, k, s->cpus[k].pending_lost);
		s->cpus[k].pending_lost = 0;
	}
	ink_stream_flush(s);
	return waiting;
}
