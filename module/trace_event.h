/* SPDX-License-Identifier: GPL-2.0 */
/*
 * trace_event.c: each definition as a trace event in tracefs; for
 * probe_event.c and consumers.c.
 */
#ifndef _INKPROBE_TRACE_EVENT_H
#define _INKPROBE_TRACE_EVENT_H

#include <linux/trace_events.h>
#include <linux/tracepoint.h>
#include <linux/types.h>

#include "inkprobe.h"

struct ink_event;
struct ink_type;

/* A record of a trace event: these fields, then the arguments' (ink_tev_arg). */
struct ink_tev_entry {
	struct trace_entry ent;
	unsigned long probe_ip;		/* __probe_ip: the kprobe's address */
	u32 optimized_out;		/* __optimized_out: bit i, argument i has no value */
	u32 fault;			/* __fault: bit i, reading argument i faulted */
};

/* An r event's, right after struct ink_tev_entry: which exit was taken. */
struct ink_tev_exit {
	u32 instance;			/* __instance: the instance's index among TARGET's */
	u32 exit;			/* __exit: the exit's index in its EXITS */
};

/*
 * After the arguments of a stacktrace event (4-byte aligned), then the
 * fixed part padded to 8 bytes.
 */
struct ink_tev_stack {
	u32 frames;			/* __stack: __data_loc unsigned long[] */
	u32 flags;			/* __stack_flags: __data_loc u8[], INK_FRAME_* */
	u32 probe_idx;			/* __probe_idx: the instance's index in the event */
	u32 nr_frames;			/* __nr_frames: in each of the two */
};

/*
 * After the fixed part (tev->size bytes): a slot of INK_STR_LEN bytes per
 * string argument, in the order of their str_slot (the characters, a NUL,
 * zeros to the end of the slot); then a stacktrace event's frames (8-byte
 * aligned there) and their flags.
 */
struct ink_tev_arg {
	const char *name;		/* the ink_fetch's */
	const struct ink_type *type;	/* the ink_fetch's */
	u16 off;			/* of its field in the record */
	u16 str_off;			/* strings: of its slot in the record */
	u8 pad;				/* bytes of alignment before it, zeroed */
};

struct ink_tev {
	struct trace_event_call call;
	struct trace_event_class class;
	struct tracepoint tp;		/* only its name: TRACE_EVENT_FL_TRACEPOINT */
	struct ink_event *ev;
	bool registered;		/* in tracefs (ink_mutex, or event_mutex) */
	/* consumers.c: changed in reg(), under event_mutex; read by handlers */
	unsigned int flags;
	struct list_head files;		/* the trace buffers it is enabled in, RCU */
	u16 size;			/* a record's fixed part, common fields included */
	u16 str_bytes;			/* the string slots after it */
	u16 stack_off;			/* stacktrace: where struct ink_tev_stack is; else 0 */
	u16 exit_off;			/* r: where struct ink_tev_exit is; else 0 */
	u8 nr_args;
	struct ink_tev_arg args[INK_MAX_ARGS];
};

/* At load: checks that the module can add trace events at all. */
int ink_tev_init(void);
/*
 * Errors go to the log context of the command (ink_log_err()).
 * Argument names that would shadow the fields of every trace event: -EINVAL.
 */
int ink_tev_check_name(const char *name);
/* -EEXIST if tracefs has an event GROUP:NAME. */
int ink_tev_name_free(const char *group, const char *name);
/* Builds ev->tev for a parsed @ev (its args typed), not yet in tracefs. */
int ink_tev_alloc(struct ink_event *ev);
void ink_tev_free(struct ink_event *ev);
/* Adds ev->tev to tracefs (ink_mutex held); errors logged. */
int ink_tev_add(struct ink_event *ev);
/*
 * Removes the trace events of @evs[0..n) from tracefs, all or none:
 * -EBUSY (logged) when one is enabled, open in perf, or referenced.
 */
int ink_tev_remove(struct ink_event **evs, unsigned int n);

#endif /* _INKPROBE_TRACE_EVENT_H */
