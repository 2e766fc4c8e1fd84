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

/* The arguments of one hit, fetched once for every consumer, and its stack. */
struct tev_sample {
	u64 val[INK_MAX_ARGS];
	u32 optimized_out;
	u32 fault;
	u32 dsize;				/* bytes after the fixed part: frames,
						 * strings (NULs included), frame flags
						 */
	const struct ink_stack *st;		/* stacktrace events */
	u16 str_len[INK_MAX_STR_ARGS];
	char str[INK_MAX_STR_ARGS][INK_STR_LEN];
};

static __always_inline void fetch(const struct ink_probe *p, struct pt_regs *regs,
				  struct tev_sample *s)
{
	const struct ink_event *ev = p->ev;
	unsigned int i;

	s->optimized_out = 0;
	s->fault = 0;
	s->dsize = p->ev->tev->stack_off ? s->st->nr * (sizeof(unsigned long) + 1) : 0;
	for (i = 0; i < ev->nr_args; i++) {
		const struct ink_fetch *f = &ev->args[i];
		char *str = ink_fetch_is_str(f) ? s->str[f->str_slot] : NULL;

		switch (ink_fetch(p, i, regs, &s->val[i], str)) {
		case INK_ARG_OK:
			break;
		case INK_ARG_FAULT:
			s->fault |= BIT(i);
			s->val[i] = 0;
			break;
		default:
			s->optimized_out |= BIT(i);
			s->val[i] = 0;
			break;
		}
		if (!str)
			continue;
		if (s->fault & BIT(i) || s->optimized_out & BIT(i))
			str[0] = '\0';
		s->str_len[f->str_slot] = strnlen(str, INK_STR_LEN - 1) + 1;
		str[s->str_len[f->str_slot] - 1] = '\0';
		s->dsize += s->str_len[f->str_slot];
	}
}

/* A __data_loc field at @off: @len bytes from @src at *@data. */
static void put_dyn(void *rec, unsigned int off, u32 *data, const void *src, u16 len)
{
	memcpy((char *)rec + *data, src, len);
	*(u32 *)((char *)rec + off) = (u32)len << 16 | *data;
	*data += len;
}
NOKPROBE_SYMBOL(put_dyn);

/*
 * The record after its common fields: tev->size + s->dsize bytes.  After
 * the fixed part: the frames (8-byte aligned there), the strings, the
 * frames' flags.  Every byte is written once, the alignment holes with
 * zeros: no memset or memcpy of the whole, which costs most under TCG.
 */
static __always_inline void fill(const struct ink_tev *tev, const struct ink_probe *p,
				 const struct tev_sample *s, void *rec)
{
	struct ink_tev_entry *e = rec;
	struct ink_tev_stack *ts = NULL;
	u32 data = tev->size;
	unsigned int i;

	e->probe_ip = (unsigned long)p->kp.addr;
	e->optimized_out = s->optimized_out;
	e->fault = s->fault;
	if (unlikely(tev->stack_off)) {
		const struct ink_tev_arg *last = tev->nr_args ? &tev->args[tev->nr_args - 1] : NULL;
		unsigned int end = last ? last->off + last->size : sizeof(struct ink_tev_entry);

		ts = (void *)((char *)rec + tev->stack_off);
		/* the holes before and after struct ink_tev_stack */
		memset((char *)rec + end, 0, tev->stack_off - end);
		memset(ts + 1, 0, tev->size - tev->stack_off - sizeof(*ts));
		put_dyn(rec, tev->stack_off + offsetof(struct ink_tev_stack, frames), &data,
			s->st->frames, s->st->nr * sizeof(unsigned long));
		ts->probe_idx = p - p->ev->probes;
		ts->nr_frames = s->st->nr;
	}
	for (i = 0; i < tev->nr_args; i++) {
		const struct ink_tev_arg *a = &tev->args[i];
		char *at = (char *)rec + a->off;

		if (unlikely(a->pad))
			memset(at - a->pad, 0, a->pad);
		/*
		 * The value's low bytes, by constant sizes: single moves (the
		 * ring keeps records 4-byte aligned only).
		 */
		if (a->type == INK_T_STRING || a->type == INK_T_COMM) {
			put_dyn(rec, a->off, &data, s->str[a->str_slot], s->str_len[a->str_slot]);
		} else if (a->size == 8) {
			memcpy(at, &s->val[i], 8);
		} else if (a->size == 4) {
			u32 v = s->val[i];

			memcpy(at, &v, 4);
		} else if (a->size == 2) {
			u16 v = s->val[i];

			memcpy(at, &v, 2);
		} else {
			*(u8 *)at = s->val[i];
		}
	}
	if (ts)
		put_dyn(rec, tev->stack_off + offsetof(struct ink_tev_stack, flags), &data,
			s->st->flags, s->st->nr);
}

static __always_inline void to_ftrace(const struct ink_tev *tev, const struct ink_probe *p,
				      const struct tev_sample *s, struct pt_regs *regs,
				      struct trace_event_file *file)
{
	struct ink_event_stats __percpu *st = p->ev->stats;
	/* trace_event_buffer_reserve() sets every field, then regs is ours */
	struct trace_event_buffer fbuffer __uninitialized;
	unsigned long flags;
	bool counted;
	void *rec;

	if (trace_trigger_soft_disabled(file))
		return;
	flags = READ_ONCE(file->flags);
	/* soft mode: written for conditional triggers only, never kept */
	counted = !(flags & EVENT_FILE_FL_SOFT_DISABLED);
	if (counted) {
		this_cpu_inc(st->ftrace_hits);
		/* what trace_event_buffer_reserve() drops first: set_event_pid */
		if ((flags & EVENT_FILE_FL_PID_FILTER) && trace_event_ignore_this_pid(file)) {
			this_cpu_inc(st->ftrace_filtered);
			return;
		}
	}
	rec = trace_event_buffer_reserve(&fbuffer, file, tev->size + s->dsize);
	if (!rec) {
		if (counted)
			this_cpu_inc(st->ftrace_lost);
		return;
	}
	fbuffer.regs = regs;
	fill(tev, p, s, rec);
	/*
	 * The commit discards what the event's filter refuses: the same
	 * filter on the same record says so here first, for the count.
	 */
	if (counted) {
		struct event_filter *filter = rcu_dereference_sched(file->filter);

		if ((flags & EVENT_FILE_FL_FILTERED) && filter && !filter_match_preds(filter, rec))
			this_cpu_inc(st->ftrace_filtered);
		else
			this_cpu_inc(st->ftrace_written);
	}
	trace_event_buffer_commit(&fbuffer);	/* filter, then triggers */
}

#ifdef CONFIG_PERF_EVENTS
static void to_perf(struct ink_tev *tev, const struct ink_probe *p,
		    const struct tev_sample *s, struct pt_regs *regs)
{
	struct trace_event_call *call = &tev->call;
	struct hlist_head *head = this_cpu_ptr(call->perf_events);
	int size, rctx;
	void *rec;

	if (!bpf_prog_array_valid(call) && hlist_empty(head))
		return;
	this_cpu_inc(p->ev->stats->perf_hits);
	/* with perf's u32 size before it, a record ends 8-byte aligned */
	size = ALIGN(tev->size + s->dsize + sizeof(u32), sizeof(u64)) - sizeof(u32);
	rec = perf_trace_buf_alloc(size, NULL, &rctx);
	if (!rec) {
		this_cpu_inc(p->ev->stats->perf_lost);
		return;
	}
	this_cpu_inc(p->ev->stats->perf_written);
	fill(tev, p, s, rec);
	memset((char *)rec + tev->size + s->dsize, 0, size - tev->size - s->dsize);
	/* BPF programs first (ctx: the record, regs in its first 8 bytes) */
	perf_trace_run_bpf_submit(rec, size, rctx, call, 1, regs, head, NULL);
}
NOKPROBE_SYMBOL(to_perf);
#endif

void ink_tev_hit(const struct ink_probe *p, struct pt_regs *regs, const struct ink_stack *st)
{
	struct ink_tev *tev = p->ev->tev;
	unsigned int flags = READ_ONCE(tev->flags);
	/*
	 * Not zeroed at every hit (CONFIG_INIT_STACK_ALL_ZERO: 416 bytes):
	 * fetch() writes every value, string and length that fill() reads.
	 */
	struct tev_sample s __uninitialized;

	if (!flags)
		return;
	s.st = st;
	fetch(p, regs, &s);
	if (flags & INK_TEV_TRACE) {
		struct tev_link *l;

		list_for_each_entry_rcu(l, &tev->files, list, true)
			to_ftrace(tev, p, &s, regs, l->file);
	}
#ifdef CONFIG_PERF_EVENTS
	if (flags & INK_TEV_PERF)
		to_perf(tev, p, &s, regs);
#endif
}
NOKPROBE_SYMBOL(ink_tev_hit);
