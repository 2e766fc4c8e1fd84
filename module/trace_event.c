// SPDX-License-Identifier: GPL-2.0
/*
 * Each definition is a trace event: /sys/kernel/tracing/events/GRP/EVENT/
 * with id, format, enable, filter, trigger (and hist), readable by ftrace,
 * trace-cmd, perf and BPF (Documentation/trace-events.rst).
 *
 * A record is struct ink_tev_entry, then one field per argument in the
 * order of the definition, each aligned to its size; strings are
 * __data_loc char[] with their characters after the fixed part.
 *
 * trace_add_event_call() and trace_remove_event_call() must run under
 * event_mutex, which is not exported.  The module has one static event,
 * inkprobe/__control (in "_ftrace_events": the kernel registers it when
 * the module loads and removes it when it goes), whose reg() runs a
 * pending operation of this module, and the kernel calls that reg() with
 * event_mutex held: when a perf event is opened on it (refused once the
 * operation ran), or when it is enabled or disabled in ftrace.  The
 * control path holds ink_mutex and then takes event_mutex; nothing called
 * under event_mutex takes ink_mutex (consumers.c).
 */
#include <linux/kallsyms.h>
#include <linux/module.h>
#include <linux/perf_event.h>
#include <linux/ring_buffer.h>
#include <linux/slab.h>
#include <linux/trace_events.h>
#include <linux/tracepoint.h>

#include "inkprobe.h"
#include "consumers.h"
#include "debugfs_files.h"
#include "error_log.h"
#include "fetch.h"
#include "probe_event.h"
#include "stack.h"
#include "trace_event.h"

#define GATE_SYSTEM	INK_DEFAULT_GROUP
#define GATE_EVENT	"__control"

/* ------------------------------------------------------------------ */
/* The gate: code that runs under event_mutex                          */

struct gate_op {
	int (*fn)(void *arg);
	void *arg;
	struct task_struct *task;	/* only the thread that asked runs it */
	int ret;
	bool done;
};

static struct gate_op *gate_pending;	/* written under ink_mutex */
static bool gate_works;

static int gate_reg(struct trace_event_call *call, enum trace_reg type, void *data)
{
	struct gate_op *op = READ_ONCE(gate_pending);

	switch (type) {
	case TRACE_REG_REGISTER:
	case TRACE_REG_UNREGISTER:
#ifdef CONFIG_PERF_EVENTS
	case TRACE_REG_PERF_REGISTER:
#endif
		/* event_mutex is held, for our thread: by gate_run() */
		if (op && op->task == current && !op->done) {
			op->ret = op->fn(op->arg);
			op->done = true;
		}
		/* nothing to count in perf: refused, the perf event is not made */
		return type == TRACE_REG_REGISTER || type == TRACE_REG_UNREGISTER ? 0 : -EOPNOTSUPP;
	default:
		return 0;
	}
}

static struct trace_event_fields gate_fields[] = {
	{}
};

static struct trace_event_class gate_class = {
	.system = GATE_SYSTEM,
	.reg = gate_reg,
	.fields_array = gate_fields,
	.fields = LIST_HEAD_INIT(gate_class.fields),
	.raw_init = trace_event_raw_init,
};

static struct trace_event_functions gate_funcs;

static struct trace_event_call gate_call = {
	.class = &gate_class,
	.name = GATE_EVENT,
	.event.funcs = &gate_funcs,
	.print_fmt = "\"\"",
};

/* the kernel registers the events listed in this section with the module */
static struct trace_event_call *gate_call_ptr __used __section("_ftrace_events") = &gate_call;

/*
 * Opening a perf event on the gate event: perf_trace_init() takes
 * event_mutex and calls reg(PERF_REGISTER), which refuses it.  Not while
 * the module goes: perf_trace_init() needs a reference to the module.
 */
static void gate_by_perf(void)
{
#ifdef CONFIG_PERF_EVENTS
	struct perf_event_attr attr = {
		.type = PERF_TYPE_TRACEPOINT,
		.size = sizeof(attr),
		.config = gate_call.event.type,
		.disabled = 1,
	};
	struct perf_event *event;

	event = perf_event_create_kernel_counter(&attr, -1, current, NULL, NULL);
	if (!IS_ERR(event))	/* cannot happen: reg() refused it */
		perf_event_release_kernel(event);
#endif
}

/*
 * Runs @fn(@arg) with event_mutex held; returns what it returned, or
 * -EAGAIN when the gate could not be passed.  ink_mutex held.
 *
 * Through perf first: enabling the gate event in ftrace would start and
 * stop the recording of task names each time (sched_switch probes, an RCU
 * grace period): twice as slow on a busy machine.  Else through ftrace:
 * enabling the gate event calls its reg(REGISTER), disabling it
 * reg(UNREGISTER); one of the two runs @fn, unless somebody holds the gate
 * event enabled in soft mode (an enable_event trigger on it).
 */
static int gate_run(int (*fn)(void *arg), void *arg)
{
	struct gate_op op = { .fn = fn, .arg = arg, .task = current };

	lockdep_assert_held(&ink_mutex);
	WRITE_ONCE(gate_pending, &op);
	gate_by_perf();
	if (!op.done) {
		trace_set_clr_event(GATE_SYSTEM, GATE_EVENT, 1);
		trace_set_clr_event(GATE_SYSTEM, GATE_EVENT, 0);
	}
	WRITE_ONCE(gate_pending, NULL);
	return op.done ? op.ret : -EAGAIN;
}

static int gate_nop(void *arg)
{
	return 0;
}

/* ------------------------------------------------------------------ */
/* The kernel's buffer of records for triggers only                    */

/*
 * When a trace buffer cannot take a record and the event has a trigger
 * that reads records (a condition, hist), trace_event_buffer_lock_reserve()
 * reserves it in the kernel's temp_buffer instead, which only the triggers
 * see: not written, for stats (consumers.c).  That buffer is not exported,
 * but the function names it before it reserves: a length beyond any page,
 * in a file flagged as having such triggers (a copy of the gate event's
 * top-level file, never registered), makes both reservations fail and
 * leaves the temp buffer named.  It is allocated at boot, never freed.
 */
static void find_temp_buffer(void)
{
	struct trace_event_file *file = trace_get_event_file(NULL, GATE_SYSTEM, GATE_EVENT);
	struct trace_buffer *buffer = NULL;
	struct trace_event_file copy;
	struct ring_buffer_event *e;

	if (IS_ERR(file))
		return;
	copy = *file;
	copy.flags = EVENT_FILE_FL_TRIGGER_COND;
	preempt_disable_notrace();
	e = trace_event_buffer_lock_reserve(&buffer, &copy, gate_call.event.type, 1UL << 30, 0);
	if (e)		/* cannot happen: no buffer takes 1 GB */
		ring_buffer_discard_commit(buffer, e);
	preempt_enable_notrace();
	trace_put_event_file(file);
	ink_tev_set_temp_buffer(buffer);
}

/* ------------------------------------------------------------------ */
/* Output: the "trace" and "trace_pipe" files of tracefs                */

/*
 * @len bytes of a string up to its NUL into @buf, with '"' and '\\' and
 * bytes outside printable ASCII escaped (\", \\, \xNN): one line whatever
 * the string holds.
 */
static void escape_string(char *buf, size_t n, const char *str, unsigned int len)
{
	size_t at = 0;
	unsigned int i;

	for (i = 0; i < len && str[i] && at + 5 <= n; i++) {
		unsigned char c = str[i];

		if (c == '"' || c == '\\')
			at += scnprintf(buf + at, n - at, "\\%c", c);
		else if (c < 0x20 || c >= 0x7f)
			at += scnprintf(buf + at, n - at, "\\x%02x", c);
		else
			buf[at++] = c;
	}
	buf[at] = '\0';
}

/*
 * The one renderer of a value: argument @a of record @rec (@len bytes)
 * as " NAME=value", by its type's entry in the table (fetch.c).
 */
static noinline_for_stack void print_value(struct trace_seq *s, const struct ink_tev *tev,
					   const struct ink_tev_arg *a, const char *rec,
					   unsigned int len)
{
	const struct ink_type *t = a->type;
	char text[4 * INK_STR_LEN + 1];
	unsigned int off, n;
	u64 v = 0;
	u32 loc;

	if (!t->is_string) {
		memcpy(&v, rec + a->off, t->size);	/* little-endian */
		if (t->is_signed)
			v = (s64)(v << (64 - 8 * t->size)) >> (64 - 8 * t->size);
		trace_seq_printf(s, t->out, a->name, v);
		return;
	}
	memcpy(&loc, rec + a->off, sizeof(loc));
	off = loc & 0xffff;
	n = loc >> 16;
	if (off < tev->size || off + n > len || n > INK_STR_LEN) {
		trace_seq_printf(s, " %s=(bad record)", a->name);
		return;
	}
	escape_string(text, sizeof(text), rec + off, n);
	trace_seq_printf(s, t->out, a->name, text);
}

/*
 * A stacktrace event's frames, inline frames expanded (stack.c renders
 * them, as for the stack file), checked against the record.
 */
static noinline_for_stack void print_stack(const struct ink_tev *tev,
					   const struct trace_iterator *iter, struct trace_seq *s)
{
	const char *rec = (const char *)iter->ent;
	const struct ink_tev_stack *ts = (const void *)(rec + tev->stack_off);
	unsigned int foff = ts->frames & 0xffff, flen = ts->frames >> 16;
	unsigned int goff = ts->flags & 0xffff, nr = ts->flags >> 16;
	unsigned long frames[INK_MAX_FRAMES];

	if (foff < tev->size || foff + flen > iter->ent_size || goff < tev->size ||
	    goff + nr > iter->ent_size || nr > INK_MAX_FRAMES ||
	    flen != nr * sizeof(unsigned long) || nr != ts->nr_frames ||
	    ts->probe_idx >= tev->ev->nr_probes) {
		trace_seq_puts(s, " => (bad record)\n");
		return;
	}
	memcpy(frames, rec + foff, flen);	/* the ring keeps records 4-byte aligned */
	ink_stack_format(&s->seq, &tev->ev->probes[ts->probe_idx], frames,
			 (const u8 *)rec + goff, nr);
}

/*
 * "GRP:EVENT: (caller+0xoff) name=value ...", and for a stacktrace event
 * its " => frame" lines.  Records
 * are checked against the event's layout: a record left in the buffer by
 * a removed event whose type id was reused must not be read beyond its
 * end.
 */
static enum print_line_t ink_tev_output(struct trace_iterator *iter, int flags,
					struct trace_event *event)
{
	struct ink_tev *tev = container_of(event, struct ink_tev, call.event);
	const struct ink_tev_entry *e = (const struct ink_tev_entry *)iter->ent;
	const char *rec = (const char *)iter->ent;
	struct trace_seq *s = &iter->seq;
	char sym[KSYM_SYMBOL_LEN], *cut;
	unsigned int i;

	trace_seq_printf(s, "%s:%s: ", tev->call.class->system, tev->tp.name);
	if (iter->ent_size < tev->size) {
		trace_seq_puts(s, "(record too short)\n");
		return trace_handle_return(s);
	}
	sprint_symbol(sym, e->probe_ip);
	cut = strchr(sym, '/');		/* "caller+0xoff/0xsize [module]" */
	if (cut)
		*cut = '\0';
	trace_seq_printf(s, "(%s)", sym);
	if (tev->exit_off) {
		const struct ink_tev_exit *x = (const void *)(rec + tev->exit_off);

		trace_seq_printf(s, " instance=%u exit=%u", x->instance, x->exit);
	}
	for (i = 0; i < tev->nr_args; i++) {
		const struct ink_tev_arg *a = &tev->args[i];

		if (e->fault & BIT(i))
			trace_seq_printf(s, " %s=(fault)", a->name);
		else if (e->optimized_out & BIT(i))
			trace_seq_printf(s, " %s=(optimized out)", a->name);
		else
			print_value(s, tev, a, rec, iter->ent_size);
	}
	trace_seq_putc(s, '\n');
	if (tev->stack_off)
		print_stack(tev, iter, s);
	return trace_handle_return(s);
}

static struct trace_event_functions ink_tev_funcs = {
	.trace = ink_tev_output,
};

/* ------------------------------------------------------------------ */
/* Fields and print fmt                                                */

static int ink_tev_define_fields(struct trace_event_call *call)
{
	struct ink_tev *tev = container_of(call, struct ink_tev, call);
	unsigned int i;
	int ret;

	ret = trace_define_field(call, "unsigned long", "__probe_ip",
				 offsetof(struct ink_tev_entry, probe_ip), sizeof(unsigned long),
				 0, FILTER_OTHER);
	ret = ret ?: trace_define_field(call, "u32", "__optimized_out",
					offsetof(struct ink_tev_entry, optimized_out), sizeof(u32),
					0, FILTER_OTHER);
	ret = ret ?: trace_define_field(call, "u32", "__fault",
					offsetof(struct ink_tev_entry, fault), sizeof(u32), 0,
					FILTER_OTHER);
	if (tev->exit_off && !ret)
		ret = trace_define_field(call, "u32", "__instance",
					 tev->exit_off + offsetof(struct ink_tev_exit, instance),
					 sizeof(u32), 0, FILTER_OTHER) ?:
		      trace_define_field(call, "u32", "__exit",
					 tev->exit_off + offsetof(struct ink_tev_exit, exit),
					 sizeof(u32), 0, FILTER_OTHER);
	for (i = 0; i < tev->nr_args && !ret; i++) {
		const struct ink_tev_arg *a = &tev->args[i];

		ret = trace_define_field(call, a->type->field, a->name, a->off, a->type->size,
					 a->type->is_signed, FILTER_OTHER);
	}
	if (!tev->stack_off || ret)
		return ret;
	ret = trace_define_field(call, "__data_loc unsigned long[]", "__stack",
				 tev->stack_off + offsetof(struct ink_tev_stack, frames),
				 sizeof(u32), 0, FILTER_OTHER);
	ret = ret ?: trace_define_field(call, "__data_loc u8[]", "__stack_flags",
					tev->stack_off + offsetof(struct ink_tev_stack, flags),
					sizeof(u32), 0, FILTER_OTHER);
	ret = ret ?: trace_define_field(call, "u32", "__probe_idx",
					tev->stack_off + offsetof(struct ink_tev_stack, probe_idx),
					sizeof(u32), 0, FILTER_OTHER);
	return ret ?: trace_define_field(call, "u32", "__nr_frames",
					 tev->stack_off + offsetof(struct ink_tev_stack, nr_frames),
					 sizeof(u32), 0, FILTER_OTHER);
}

/* one entry for all events: define_fields finds the event from its call */
static struct trace_event_fields ink_tev_fields[] = {
	{ .type = TRACE_FUNCTION_TYPE, .define_fields = ink_tev_define_fields },
	{}
};

/* >>> reader: the stack field in the print fmt */
/*
 * A stacktrace event's frames for libtraceevent without inkprobe's plugin
 * (perf script; trace-cmd report without it): each frame in hex,
 * "stack=0xffffffffc05e556e 0xffffffffc05e55b3 ...".  libtraceevent 1.7 and
 * perf 6.1's copy print __print_array() in decimal and cannot index a
 * __data_loc array, so each frame is read at its fixed place: the frames
 * come after the fixed part and the string slots (consumers.c, fill()),
 * that is elements of __probe_ip read as an array (REC->__probe_ip[K]).  A frame
 * beyond __nr_frames is 0, which __print_symbolic() prints as nothing;
 * any other value it prints as 0x...  The kernel warns about a print fmt
 * whose 64th argument is a %s (test_event_printk()): past that, the frames
 * that do not fit end in " ...".
 */
#define STACK_ARG_LEN	96	/* one frame's argument, at most */
#define PRINT_FMT_MAX_ARGS	63	/* test_event_printk() warns at the 64th */

static unsigned int stack_fmt_frames(const struct ink_tev *tev)
{
	/*
	 * (%pS), an r event's instance and exit, then 3 per argument: its
	 * value and two " (...)" strings
	 */
	unsigned int used = 1 + (tev->exit_off ? 2 : 0) + 3 * tev->nr_args;
	unsigned int left = PRINT_FMT_MAX_ARGS - used;

	return left >= INK_MAX_FRAMES ? INK_MAX_FRAMES : left - 1;
}

static size_t stack_fmt_args(const struct ink_tev *tev, unsigned int nr_frames, char *fmt,
			     size_t n)
{
	size_t first = (tev->size + tev->str_bytes - offsetof(struct ink_tev_entry, probe_ip)) /
		       sizeof(unsigned long), len = 0;
	unsigned int i;

	for (i = 0; i < nr_frames; i++)
		len += scnprintf(fmt + len, n - len,
				 ", __print_symbolic(REC->__nr_frames > %u ? REC->__probe_ip[%zu] : 0, { 0, \"\" })",
				 i, first + i);
	if (nr_frames < INK_MAX_FRAMES)
		len += scnprintf(fmt + len, n - len, ", REC->__nr_frames > %u ? \" ...\" : \"\"",
				 nr_frames);
	return len;
}

/* <<< reader */

/*
 * "(%pS) name=%llu%s%s ...": the kernel's trace line, as far as a print
 * fmt can say it.  libtraceevent (trace-cmd, perf) resolves %pS to
 * caller+0xoff; an argument without a value prints its field (0 or "")
 * followed by " (optimized out)" or " (fault)".
 */
static char *build_print_fmt(const struct ink_tev *tev)
{
	size_t n = 128 + tev->nr_args * (2 * INK_NAME_LEN + 160) + 160 +
		   (tev->stack_off ? INK_MAX_FRAMES * STACK_ARG_LEN : 0);
	char *fmt = kmalloc(n, GFP_KERNEL);
	unsigned int i, nr_frames = 0;
	size_t len;

	if (!fmt)
		return NULL;
	len = scnprintf(fmt, n, "\"(%%pS)%s", tev->exit_off ? " instance=%u exit=%u" : "");
	for (i = 0; i < tev->nr_args; i++)
		len += scnprintf(fmt + len, n - len, " %s=%s%%s%%s", tev->args[i].name,
				 tev->args[i].type->fmt);
	/* >>> reader: the stack's print fmt (Documentation/trace-events.rst) */
	if (tev->stack_off) {
		nr_frames = stack_fmt_frames(tev);
		len += scnprintf(fmt + len, n - len, " stack=");
		for (i = 0; i < nr_frames; i++)
			len += scnprintf(fmt + len, n - len, "%s%%s", i ? " " : "");
		if (nr_frames < INK_MAX_FRAMES)
			len += scnprintf(fmt + len, n - len, "%%s");
	}
	/* <<< reader */
	len += scnprintf(fmt + len, n - len, "\", REC->__probe_ip%s",
			 tev->exit_off ? ", REC->__instance, REC->__exit" : "");
	for (i = 0; i < tev->nr_args; i++) {
		const struct ink_tev_arg *a = &tev->args[i];

		len += scnprintf(fmt + len, n - len, ", ");
		len += scnprintf(fmt + len, n - len, a->type->fmt_arg, a->name);
		len += scnprintf(fmt + len, n - len,
				 ", (REC->__optimized_out & 0x%lx) ? \" (optimized out)\" : \"\", (REC->__fault & 0x%lx) ? \" (fault)\" : \"\"",
				 BIT(i), BIT(i));
	}
	/* >>> reader */
	if (tev->stack_off)
		len += stack_fmt_args(tev, nr_frames, fmt + len, n - len);
	/* <<< reader */
	if (len + 1 >= n) {	/* cannot happen: n is the longest line's size */
		kfree(fmt);
		return NULL;
	}
	return fmt;
}

/* ------------------------------------------------------------------ */
/* Events                                                              */

/* Field names of every event (trace_events.c) and of ours. */
static const char *const reserved_names[] = {
	"common_type", "common_flags", "common_preempt_count", "common_pid",
	"__probe_ip", "__optimized_out", "__fault",
	"__stack", "__stack_flags", "__probe_idx", "__nr_frames", "__instance", "__exit",
};

int ink_tev_check_name(const char *name)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(reserved_names); i++) {
		if (strcmp(name, reserved_names[i]))
			continue;
		ink_log_err(0, "'%s' is a field of every trace event: give this argument another NAME=",
			    name);
		return -EINVAL;
	}
	return 0;
}

int ink_tev_name_free(const char *group, const char *name)
{
	struct trace_event_file *file;

	if (!gate_works)
		return 0;
	file = trace_get_event_file(NULL, group, name);
	if (IS_ERR(file))
		return 0;
	trace_put_event_file(file);
	ink_log_err(0, "trace event %s:%s already exists", group, name);
	return -EEXIST;
}

int ink_tev_alloc(struct ink_event *ev)
{
	struct ink_tev *tev;
	unsigned int i, j, off = sizeof(struct ink_tev_entry);

	if (!gate_works)
		return 0;
	tev = kzalloc(sizeof(*tev), GFP_KERNEL);
	if (!tev)
		return -ENOMEM;
	tev->ev = ev;
	INIT_LIST_HEAD(&tev->files);
	if (ev->is_return) {
		tev->exit_off = off;
		off += sizeof(struct ink_tev_exit);
	}
	tev->nr_args = ev->nr_args;
	for (i = 0; i < ev->nr_args; i++) {
		const struct ink_fetch *f = &ev->args[i];
		struct ink_tev_arg *a = &tev->args[i];

		a->name = f->name;
		a->type = f->type;
		a->pad = ALIGN(off, a->type->size) - off;
		off += a->pad;
		a->off = off;
		off += a->type->size;
	}
	if (ev->stacktrace) {
		/* then the frames, 8-byte aligned after the fixed part */
		off = ALIGN(off, sizeof(u32));
		tev->stack_off = off;
		off = ALIGN(off + sizeof(struct ink_tev_stack), sizeof(u64));
	}
	tev->size = off;
	/* the string slots, whose size keeps the frames after them aligned */
	for (i = 0; i < ev->nr_args; i++)
		if (ev->args[i].type->is_string)
			tev->args[i].str_off = off + ev->args[i].str_slot * INK_STR_LEN;
	tev->str_bytes = ev->nr_strs * INK_STR_LEN;
	/* where each instance's hit writes each argument */
	for (j = 0; j < ev->nr_probes; j++) {
		for (i = 0; i < ev->nr_args; i++) {
			struct ink_probe_arg *pa = &ev->probes[j].args[i];

			pa->off = tev->args[i].off;
			pa->str_off = tev->args[i].str_off;
			pa->pad = tev->args[i].pad;
		}
	}

	tev->tp.name = ev->name;
	tev->class.system = ev->group;
	tev->class.reg = ink_tev_reg;
	tev->class.fields_array = ink_tev_fields;
	tev->class.raw_init = trace_event_raw_init;
	INIT_LIST_HEAD(&tev->class.fields);
	tev->call.class = &tev->class;
	tev->call.tp = &tev->tp;
	/*
	 * TRACEPOINT: a BPF_PROG_TYPE_TRACEPOINT program may attach (its name
	 * is tp->name); DYNAMIC: references are counted in the call, as for
	 * kprobe_events, and the module is pinned by its consumers instead.
	 */
	tev->call.flags = TRACE_EVENT_FL_TRACEPOINT | TRACE_EVENT_FL_DYNAMIC;
	tev->call.event.funcs = &ink_tev_funcs;
	tev->call.print_fmt = build_print_fmt(tev);
	if (!tev->call.print_fmt) {
		kfree(tev);
		return -ENOMEM;
	}
	ev->tev = tev;
	return 0;
}

void ink_tev_free(struct ink_event *ev)
{
	struct ink_tev *tev = ev->tev;

	if (!tev)
		return;
	WARN_ON(tev->registered);
	kfree(tev->call.print_fmt);
	kfree(tev);
	ev->tev = NULL;
}

static int add_call(void *arg)
{
	struct ink_tev *tev = arg;
	int ret = trace_add_event_call(&tev->call);

	tev->registered = !ret;
	return ret;
}

static int drop_call(void *arg)
{
	struct ink_tev *tev = arg;
	int ret = trace_remove_event_call(&tev->call);

	tev->registered = ret != 0;
	return ret;
}

/*
 * Has tracefs a directory for the event in the top-level buffer?  Out of
 * memory, trace_add_event_call() adds an event without one and succeeds
 * (the kernel logs "Could not create tracefs 'EVENT' directory" or "Failed
 * to create system directory GROUP").  The field that holds the directory
 * changed with eventfs: Kbuild says which this kernel has.
 */
static bool tracefs_has_dir(const char *group, const char *name)
{
	struct trace_event_file *file = trace_get_event_file(NULL, group, name);
	bool ok;

	if (IS_ERR(file))
		return false;
#if defined(INK_TEF_EI)
	ok = file->system && file->ei;
#elif defined(INK_TEF_EF)
	ok = file->system && file->ef;
#else
	ok = file->system && file->dir;
#endif
	trace_put_event_file(file);
	return ok;
}

int ink_tev_add(struct ink_event *ev)
{
	int ret;

	if (!ev->tev)
		return 0;
	ret = gate_run(add_call, ev->tev);
	if (!ret && !tracefs_has_dir(ev->group, ev->name)) {
		/* in use already (perf by its id) it stays, as it is */
		if (!gate_run(drop_call, ev->tev)) {
			ink_log_err(0, "cannot add trace event %s:%s: tracefs has no directory for it (out of memory?)",
				    ev->group, ev->name);
			return -ENOMEM;
		}
	}
	if (ret == -EAGAIN)
		ink_log_err(0, "cannot add trace event %s:%s: the %s:%s event is held in soft mode (an enable_event trigger on it?)",
			    ev->group, ev->name, GATE_SYSTEM, GATE_EVENT);
	else if (ret)
		ink_log_err(0, "cannot add trace event %s:%s (%d)", ev->group, ev->name, ret);
	return ret;
}

/* Who holds an event (event_mutex held). */
struct tev_users {
	unsigned int files;	/* ftrace buffers it is enabled in */
	int perf;		/* perf events */
	int refs;		/* references to the call: perf, triggers, eprobes */
};

static bool tev_busy(const struct ink_tev *tev, struct tev_users *u)
{
	memset(u, 0, sizeof(*u));
	u->files = ink_tev_nr_files(tev);
#ifdef CONFIG_PERF_EVENTS
	u->perf = tev->call.perf_refcount;
#endif
	u->refs = atomic_read(&tev->call.refcnt);
	return u->files || u->perf || u->refs;
}

struct remove_ctx {
	struct ink_event **evs;
	unsigned int n;
	struct ink_event *busy;		/* the first busy one */
	struct tev_users users;
};

/* All of them or none (event_mutex held). */
static int remove_calls(void *arg)
{
	struct remove_ctx *rc = arg;
	unsigned int i;
	int ret;

	for (i = 0; i < rc->n; i++) {
		struct ink_tev *tev = rc->evs[i]->tev;

		if (tev && tev->registered && tev_busy(tev, &rc->users)) {
			rc->busy = rc->evs[i];
			return -EBUSY;
		}
	}
	for (i = 0; i < rc->n; i++) {
		struct ink_tev *tev = rc->evs[i]->tev;

		if (!tev || !tev->registered)
			continue;
		ret = trace_remove_event_call(&tev->call);
		if (ret) {
			rc->busy = rc->evs[i];
			return ret;
		}
		tev->registered = false;
	}
	return 0;
}

int ink_tev_remove(struct ink_event **evs, unsigned int n)
{
	struct remove_ctx rc = { .evs = evs, .n = n };
	unsigned int i;
	int ret;

	for (i = 0; i < n && !(evs[i]->tev && evs[i]->tev->registered); i++)
		;
	if (i == n)
		return 0;
	ret = gate_run(remove_calls, &rc);
	if (ret && rc.busy)
		ink_log_err(0, "trace event %s:%s is in use (enabled in %u trace buffers, %d perf events, %d references): disable it first",
			    rc.busy->group, rc.busy->name, rc.users.files, rc.users.perf,
			    rc.users.refs);
	else if (ret == -EAGAIN)
		ink_log_err(0, "cannot remove trace events: the %s:%s event is held in soft mode (an enable_event trigger on it?)",
			    GATE_SYSTEM, GATE_EVENT);
	else if (ret)
		ink_log_err(0, "cannot remove trace events (%d)", ret);
	return ret;
}

int ink_tev_init(void)
{
	mutex_lock(&ink_mutex);
	gate_works = !gate_run(gate_nop, NULL);
	mutex_unlock(&ink_mutex);
	if (gate_works)
		find_temp_buffer();
	if (!gate_works)
		pr_warn("inkprobe: no %s:%s trace event: definitions will not be trace events\n",
			GATE_SYSTEM, GATE_EVENT);
	return 0;
}
