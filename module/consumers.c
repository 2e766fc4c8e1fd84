// SPDX-License-Identifier: GPL-2.0
/*
 * The consumers of an event's trace event (trace_event.c), each enabled on
 * its own as in trace_kprobe.c:
 *
 *   ftrace  every trace buffer (top level, instances) the event is enabled
 *           in: filters, triggers, hist, trace, trace_pipe, trace-cmd
 *   perf    perf events open on it (perf stat/record), and the BPF programs
 *           attached to them (BPF_PROG_TYPE_TRACEPOINT: bpftrace's
 *           tracepoint:GRP:EVENT reads the fields of the format file)
 *
 * Their state changes in reg(), which the kernel calls with event_mutex
 * held: that lock protects it, and reg() never takes ink_mutex (the
 * control path takes ink_mutex, then event_mutex).  The handler reads it
 * under RCU (kprobe handlers run with preemption disabled).
 *
 * While a consumer is registered, the module is pinned: rmmod is refused
 * rather than leave a trace buffer or a perf event with an event whose
 * code is gone.
 */
#include <linux/module.h>
#include <linux/perf_event.h>
#include <linux/rculist.h>
#include <linux/slab.h>
#include <linux/trace_events.h>

#include "inkprobe.h"
#include "consumers.h"
#include "fetch.h"
#include "probe_event.h"
#include "stack.h"
#include "trace_event.h"

#define INK_TEV_TRACE	BIT(0)		/* enabled in a trace buffer */
#define INK_TEV_PERF	BIT(1)		/* open in perf (or BPF) */

struct tev_link {
	struct list_head list;
	struct trace_event_file *file;
};

unsigned int ink_tev_nr_files(const struct ink_tev *tev)
{
	const struct tev_link *l;
	unsigned int n = 0;

	list_for_each_entry(l, &tev->files, list)
		n++;
	return n;
}

static int enable_file(struct ink_tev *tev, struct trace_event_file *file)
{
	struct tev_link *l = kmalloc(sizeof(*l), GFP_KERNEL);

	if (!l)
		return -ENOMEM;
	if (!try_module_get(THIS_MODULE)) {	/* going away */
		kfree(l);
		return -ENODEV;
	}
	l->file = file;
	list_add_tail_rcu(&l->list, &tev->files);
	WRITE_ONCE(tev->flags, tev->flags | INK_TEV_TRACE);
	return 0;
}

static int disable_file(struct ink_tev *tev, struct trace_event_file *file)
{
	struct tev_link *l;

	list_for_each_entry(l, &tev->files, list)
		if (l->file == file)
			goto found;
	return -ENOENT;
found:
	list_del_rcu(&l->list);
	if (list_empty(&tev->files))
		WRITE_ONCE(tev->flags, tev->flags & ~INK_TEV_TRACE);
	synchronize_rcu();	/* no handler still writes to that file */
	kfree(l);
	/*
	 * event_mutex is held until after this returns, and the module's
	 * exit needs it: the module's code stays until then.
	 */
	module_put(THIS_MODULE);
	return 0;
}

int ink_tev_reg(struct trace_event_call *call, enum trace_reg type, void *data)
{
	struct ink_tev *tev = container_of(call, struct ink_tev, call);

	switch (type) {
	case TRACE_REG_REGISTER:
		return enable_file(tev, data);
	case TRACE_REG_UNREGISTER:
		return disable_file(tev, data);
#ifdef CONFIG_PERF_EVENTS
	case TRACE_REG_PERF_REGISTER:
		/* the first perf event: the kernel counts the others */
		if (!try_module_get(THIS_MODULE))
			return -ENODEV;
		WRITE_ONCE(tev->flags, tev->flags | INK_TEV_PERF);
		return 0;
	case TRACE_REG_PERF_UNREGISTER:
		/* the kernel waits for handlers before it frees perf_events */
		WRITE_ONCE(tev->flags, tev->flags & ~INK_TEV_PERF);
		module_put(THIS_MODULE);
		return 0;
	case TRACE_REG_PERF_OPEN:
	case TRACE_REG_PERF_CLOSE:
	case TRACE_REG_PERF_ADD:	/* 0: the kernel adds it to perf_events */
	case TRACE_REG_PERF_DEL:
		return 0;
#endif
	}
	return 0;
}

/* ------------------------------------------------------------------ */
/* Handler side                                                        */

static struct trace_buffer *temp_buffer;

void ink_tev_set_temp_buffer(struct trace_buffer *b)
{
	temp_buffer = b;
}

/* A __data_loc field at @off: @len bytes at @data. */
static __always_inline void put_loc(void *rec, unsigned int off, u32 data, u32 len)
{
	u32 loc = len << 16 | data;

	memcpy((char *)rec + off, &loc, sizeof(loc));
}

/*
 * A string argument's slot, fetched: its length as a __data_loc, and zeros
 * after its NUL to the end of the slot, so that no byte of the ring's
 * previous contents stays in the record.
 */
static __always_inline void put_str(void *rec, const struct ink_probe_arg *a, char *str)
{
	u32 len = strnlen(str, INK_STR_LEN - 1);

	memset(str + len, 0, INK_STR_LEN - len);
	put_loc(rec, a->off, a->str_off, len + 1);
}

/*
 * Argument @i of a hit of @p into its field or string slot of @rec, the
 * alignment hole before it zeroed; a failure sets its bit in *@fault or
 * *@optimized_out and leaves a 0 or an empty string.
 */
static __always_inline void fetch_arg(const struct ink_probe *p, unsigned int i,
				      struct pt_regs *regs, void *rec, u32 *optimized_out,
				      u32 *fault)
{
	const struct ink_probe_arg *a = &p->args[i];
	char *field = (char *)rec + a->off;
	char *str = a->str_off ? (char *)rec + a->str_off : NULL;
	enum ink_arg_state state;

	if (unlikely(a->pad))
		memset(field - a->pad, 0, a->pad);
	state = ink_fetch(p, i, regs, field, str);
	if (unlikely(state != INK_ARG_OK)) {
		if (state == INK_ARG_FAULT)
			*fault |= BIT(i);
		else
			*optimized_out |= BIT(i);
		if (str)
			str[0] = '\0';
		else
			ink_store(field, 0, a->size);
	}
	if (str)
		put_str(rec, a, str);
}

/*
 * Argument @i of an r event, from its call's entry record @entry (as
 * ink_tev_fill_entry() wrote it): its field, with the hole before it, and
 * its string slot.
 */
static __always_inline void entry_arg(const struct ink_probe *p, unsigned int i,
				      const void *entry, void *rec, u32 *optimized_out,
				      u32 *fault)
{
	const struct ink_probe_arg *a = &p->args[i];
	const struct ink_tev_entry *e = entry;

	memcpy((char *)rec + a->off - a->pad, (const char *)entry + a->off - a->pad,
	       a->pad + a->size);
	if (a->str_off)
		memcpy((char *)rec + a->str_off, (const char *)entry + a->str_off, INK_STR_LEN);
	*optimized_out |= e->optimized_out & BIT(i);
	*fault |= e->fault & BIT(i);
}

unsigned int ink_tev_entry_size(const struct ink_event *ev)
{
	return ev->entry_args && ev->tev ? ev->tev->size + ev->tev->str_bytes : 0;
}

void ink_tev_fill_entry(const struct ink_probe *p, struct pt_regs *regs, void *entry)
{
	struct ink_tev_entry *e = entry;
	u32 entry_args = p->ev->entry_args, optimized_out = 0, fault = 0;
	unsigned int i;

	for (i = 0; entry_args; i++) {
		if (!(entry_args & BIT(i)))
			continue;
		entry_args &= ~BIT(i);
		fetch_arg(p, i, regs, entry, &optimized_out, &fault);
	}
	e->optimized_out = optimized_out;
	e->fault = fault;
}
NOKPROBE_SYMBOL(ink_tev_fill_entry);

/* fill()'s arguments: out of line, so that a hit's common path stays short */
static noinline void fill_args(const struct ink_tev *tev, const struct ink_probe *p,
			       struct pt_regs *regs, u64 duration, const void *entry, void *rec,
			       u32 *optimized_out, u32 *fault)
{
	u32 entry_args = entry ? p->ev->entry_args : 0;
	unsigned int i;

	for (i = 0; i < tev->nr_args; i++) {
		const struct ink_probe_arg *a = &p->args[i];

		if (unlikely(a->op == INK_OP_DURATION)) {
			if (unlikely(a->pad))
				memset((char *)rec + a->off - a->pad, 0, a->pad);
			ink_store((char *)rec + a->off, duration, a->size);
		} else if (unlikely(entry_args & BIT(i))) {
			entry_arg(p, i, entry, rec, optimized_out, fault);
		} else {
			fetch_arg(p, i, regs, rec, optimized_out, fault);
		}
	}
}
NOKPROBE_SYMBOL(fill_args);

/* fill()'s stack trace: its frames and flags, the holes around its field zeroed */
static noinline void fill_stack(const struct ink_tev *tev, const struct ink_probe *p,
				const struct ink_stack *st, void *rec)
{
	const struct ink_tev_arg *last = tev->nr_args ? &tev->args[tev->nr_args - 1] : NULL;
	unsigned int end = last ? last->off + last->type->size :
			   tev->exit_off ? tev->exit_off + sizeof(struct ink_tev_exit) :
			   sizeof(struct ink_tev_entry);
	struct ink_tev_stack *ts = (void *)((char *)rec + tev->stack_off);
	u32 frames = tev->size + tev->str_bytes;
	u32 flags = frames + st->nr * sizeof(unsigned long);

	/* the holes before and after struct ink_tev_stack */
	memset((char *)rec + end, 0, tev->stack_off - end);
	memset(ts + 1, 0, tev->size - tev->stack_off - sizeof(*ts));
	memcpy((char *)rec + frames, st->frames, st->nr * sizeof(unsigned long));
	memcpy((char *)rec + flags, st->flags, st->nr);
	put_loc(rec, tev->stack_off + offsetof(struct ink_tev_stack, frames), frames,
		st->nr * sizeof(unsigned long));
	put_loc(rec, tev->stack_off + offsetof(struct ink_tev_stack, flags), flags, st->nr);
	ts->probe_idx = p - p->ev->probes;
	ts->nr_frames = st->nr;
}
NOKPROBE_SYMBOL(fill_stack);

/*
 * The record of a hit after its common fields: every argument fetched
 * once, straight into its field or string slot, the alignment holes
 * zeroed; no byte left as the buffer had it.  Each argument's plan
 * (ink_probe_arg) says how and where.  An r event's parameters come from
 * its call's @entry record instead.
 */
static __always_inline void fill(const struct ink_tev *tev, const struct ink_probe *p,
				 struct pt_regs *regs, const struct ink_stack *st, u64 duration,
				 const void *entry, void *rec)
{
	struct ink_tev_entry *e = rec;
	u32 optimized_out = 0, fault = 0;

	e->probe_ip = p->addr;
	if (unlikely(tev->exit_off)) {
		struct ink_tev_exit *x = (void *)((char *)rec + tev->exit_off);

		x->instance = p->instance;
		x->exit = p->exit;
	}
	if (tev->nr_args)
		fill_args(tev, p, regs, duration, entry, rec, &optimized_out, &fault);
	e->optimized_out = optimized_out;
	e->fault = fault;
	if (unlikely(tev->stack_off))
		fill_stack(tev, p, st, rec);
}

/* One trace buffer's reservation, and what stats will say of it. */
struct ftrace_rec {
	struct trace_event_buffer fb;
	void *rec;
	bool counted;			/* not in soft mode: a hit of this buffer */
	bool filtering;			/* its filter may discard the record */
};

/*
 * Reserves @size bytes in @file for a hit; NULL when set_event_pid leaves
 * the task out (filtered), the event is in soft mode, or the ring has no
 * room (lost).  As trace_kprobe.c: unconditional triggers first.
 *
 * Exactly what the ring took: trace_event_buffer_reserve() would take a
 * filtered (or soft-disabled) event's record in a per-CPU page and copy
 * it into the ring at the commit, whose failure nobody reports.  Reserved
 * through a copy of the file without those flags, the record goes into
 * the ring or nowhere, and the commit (with the file itself: filter,
 * triggers) discards it if the filter says so.  And when the ring refuses
 * it while a trigger needs the record, the kernel hands out its temp
 * buffer: that record only feeds the triggers, it is lost for the buffer.
 */
static __always_inline void *reserve(struct ftrace_rec *r, struct trace_event_file *file,
				     struct ink_event_stats __percpu *st, u32 size)
{
	unsigned long flags = READ_ONCE(file->flags);

	/* soft mode: written for conditional triggers only, never kept */
	r->counted = !(flags & EVENT_FILE_FL_SOFT_DISABLED);
	r->filtering = flags & EVENT_FILE_FL_FILTERED;
	if (r->counted)
		this_cpu_inc(st->ftrace_hits);
	if (trace_trigger_soft_disabled(file)) {
		if (r->counted)		/* set_event_pid */
			this_cpu_inc(st->ftrace_filtered);
		return NULL;
	}
	if (unlikely(flags & (EVENT_FILE_FL_SOFT_DISABLED | EVENT_FILE_FL_FILTERED))) {
		struct trace_event_file direct = *file;

		direct.flags = flags & ~(EVENT_FILE_FL_SOFT_DISABLED | EVENT_FILE_FL_FILTERED);
		r->rec = trace_event_buffer_reserve(&r->fb, &direct, size);
		r->fb.trace_file = file;
	} else {
		r->rec = trace_event_buffer_reserve(&r->fb, file, size);
	}
	if (!r->rec) {
		/* set_event_pid, checked here for conditional triggers */
		if (r->counted && (flags & EVENT_FILE_FL_PID_FILTER) &&
		    trace_event_ignore_this_pid(file))
			this_cpu_inc(st->ftrace_filtered);
		else if (r->counted)
			this_cpu_inc(st->ftrace_lost);
		return NULL;
	}
	if (unlikely(r->fb.buffer == temp_buffer) && r->counted) {
		this_cpu_inc(st->ftrace_lost);
		r->counted = false;
	}
	return r->rec;
}

/*
 * The commit discards what the event's filter refuses: the same filter on
 * the same record says so here first, for the count.
 */
static __always_inline void commit(struct ftrace_rec *r, struct pt_regs *regs,
				   struct ink_event_stats __percpu *st)
{
	if (r->counted) {
		struct event_filter *filter = rcu_dereference_sched(r->fb.trace_file->filter);

		if (r->filtering && filter && !filter_match_preds(filter, r->rec))
			this_cpu_inc(st->ftrace_filtered);
		else
			this_cpu_inc(st->ftrace_written);
	}
	r->fb.regs = regs;
	trace_event_buffer_commit(&r->fb);	/* filter, then triggers */
}

#ifdef CONFIG_PERF_EVENTS
/* To perf and BPF: a copy of @src, or fetched here when there is none. */
static void to_perf(struct ink_tev *tev, const struct ink_probe *p, struct pt_regs *regs,
		    const struct ink_stack *st, u64 duration, const void *entry, u32 size,
		    const void *src)
{
	struct trace_event_call *call = &tev->call;
	struct hlist_head *head = this_cpu_ptr(call->perf_events);
	int psize, rctx;
	void *rec;

	if (!bpf_prog_array_valid(call) && hlist_empty(head))
		return;
	this_cpu_inc(p->ev->stats->perf_hits);
	/* with perf's u32 size before it, a record ends 8-byte aligned */
	psize = ALIGN(size + sizeof(u32), sizeof(u64)) - sizeof(u32);
	rec = perf_trace_buf_alloc(psize, NULL, &rctx);
	if (!rec) {
		this_cpu_inc(p->ev->stats->perf_lost);
		return;
	}
	this_cpu_inc(p->ev->stats->perf_written);
	if (src)
		memcpy((char *)rec + sizeof(struct trace_entry),
		       (const char *)src + sizeof(struct trace_entry),
		       size - sizeof(struct trace_entry));
	else
		fill(tev, p, regs, st, duration, entry, rec);
	memset((char *)rec + size, 0, psize - size);
	/* BPF programs first (ctx: the record, regs in its first 8 bytes) */
	perf_trace_run_bpf_submit(rec, psize, rctx, call, 1, regs, head, NULL);
}
NOKPROBE_SYMBOL(to_perf);
#endif

/*
 * The first buffer that takes the record gets it fetched, straight into
 * its fields; every other buffer and perf get a copy of it, made before
 * it is committed (committed, it may be read and overwritten).
 */
void ink_tev_hit(const struct ink_probe *p, struct pt_regs *regs, const struct ink_stack *st,
		 u64 duration, const void *entry)
{
	struct ink_tev *tev = p->ev->tev;
	struct ink_event_stats __percpu *stats = p->ev->stats;
	unsigned int flags = READ_ONCE(tev->flags);
	u32 size = tev->size + tev->str_bytes + st->nr * (sizeof(unsigned long) + 1);
	/* trace_event_buffer_reserve() sets every field that commit() reads */
	struct ftrace_rec first __uninitialized, other __uninitialized;
	struct tev_link *l;

	first.rec = NULL;
	if (flags & INK_TEV_TRACE) {
		list_for_each_entry_rcu(l, &tev->files, list, true) {
			if (!first.rec) {
				if (reserve(&first, l->file, stats, size))
					fill(tev, p, regs, st, duration, entry, first.rec);
				continue;
			}
			if (!reserve(&other, l->file, stats, size))
				continue;
			memcpy((char *)other.rec + sizeof(struct trace_entry),
			       (char *)first.rec + sizeof(struct trace_entry),
			       size - sizeof(struct trace_entry));
			commit(&other, regs, stats);
		}
	}
#ifdef CONFIG_PERF_EVENTS
	if (flags & INK_TEV_PERF)
		to_perf(tev, p, regs, st, duration, entry, size, first.rec);
#endif
	if (first.rec)
		commit(&first, regs, stats);
}
NOKPROBE_SYMBOL(ink_tev_hit);
