/* SPDX-License-Identifier: GPL-2.0 */
/*
 * consumers.c: a trace event's consumers (ftrace, perf, BPF); for
 * trace_event.c and probe_attach.c.
 */
#ifndef _INKPROBE_CONSUMERS_H
#define _INKPROBE_CONSUMERS_H

#include <linux/compiler.h>
#include <linux/types.h>

#include "trace_event.h"

struct ink_event;
struct ink_probe;
struct ink_stack;
struct pt_regs;

/* At load (trace_event.c): the kernel's buffer of records for triggers only. */
void ink_tev_set_temp_buffer(struct trace_buffer *b);
int ink_tev_reg(struct trace_event_call *call, enum trace_reg type, void *data);
unsigned int ink_tev_nr_files(const struct ink_tev *tev);
/* Handler side: whether the trace event has a consumer now. */
static inline bool ink_tev_wanted(const struct ink_tev *tev)
{
	return tev && READ_ONCE(tev->flags);
}

/*
 * Handler side: a hit of probe @p, to every consumer of its event's trace
 * event; @st: its stack, captured for a stacktrace event; @duration: its
 * call's, for $duration; @entry: an r event's, its call's entry record
 * (ink_tev_fill_entry()), or NULL.
 */
void ink_tev_hit(const struct ink_probe *p, struct pt_regs *regs, const struct ink_stack *st,
		 u64 duration, const void *entry);

/*
 * The bytes of an r event's entry record: its call's arguments, kept from
 * the entry to the exit (0: it takes none at the entry).
 */
unsigned int ink_tev_entry_size(const struct ink_event *ev);
/*
 * Handler side, at the entry of a call an r event follows: the arguments
 * it takes there into @entry (ink_tev_entry_size() bytes), each at its
 * place in a record, with their __optimized_out and __fault bits.
 */
void ink_tev_fill_entry(const struct ink_probe *p, struct pt_regs *regs, void *entry);

#endif /* _INKPROBE_CONSUMERS_H */
