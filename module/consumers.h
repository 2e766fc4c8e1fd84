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
 * call's, for $duration.
 */
void ink_tev_hit(const struct ink_probe *p, struct pt_regs *regs, const struct ink_stack *st,
		 u64 duration);

#endif /* _INKPROBE_CONSUMERS_H */
