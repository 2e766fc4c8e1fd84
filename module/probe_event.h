/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the rest of the module uses of the probe_*.c files (probe.h: what
 * they share among themselves): the events and their probes, for fetch.c,
 * stack.c, inline_map.c, trace_event.c, consumers.c, site_spec.c and main.c,
 * and the probe_*.c themselves.
 */
#ifndef _INKPROBE_PROBE_EVENT_H
#define _INKPROBE_PROBE_EVENT_H

#include <linux/kprobes.h>
#include <linux/list.h>
#include <linux/percpu.h>
#include <linux/string.h>
#include <linux/types.h>
#include <linux/uaccess.h>

#include "inkprobe.h"
#include "fetch.h"

struct dentry;
struct ink_site;
struct ink_target;
struct ink_tev;
struct ink_timed_calls;

/*
 * Per CPU.  hits: every hit the handler got, as kprobe_profile's nhit.
 * Then per consumer, hits = written + lost (+ filtered for ftrace):
 * ftrace, one hit per trace buffer the event is enabled in (not in soft
 * mode); perf, a perf event or BPF program.
 */
struct ink_event_stats {
	u64 hits;
	u64 ftrace_hits;
	u64 ftrace_written;
	u64 ftrace_filtered;		/* discarded by filter or set_event_pid */
	u64 ftrace_lost;		/* the ring's reservation failed */
	u64 perf_hits;
	u64 perf_written;		/* handed to perf and BPF */
	u64 perf_lost;			/* perf's buffer of this context was busy */
	/* paired r events: calls not followed, for want of a slot (timed_calls.c) */
	u64 untimed;
	u64 unpaired;			/* exits whose entry was not kept: no record */
};

/*
 * How a hit takes one argument of one instance, compiled from its
 * location expression and "->" reads when the event is defined.
 */
enum ink_fetch_op {
	INK_OP_NONE,			/* no location: (optimized out) */
	INK_OP_REG,			/* register + val */
	INK_OP_CONST,			/* val */
	INK_OP_REG_MEM,			/* one read of the value at register + val */
	INK_OP_COMM,			/* $comm */
	INK_OP_DURATION,		/* $duration: the hit's, in ink_tev_hit() */
	INK_OP_EVAL,			/* anything else: ink_fetch_eval() */
};

/*
 * One argument as compiled for one instance, and where it goes in the
 * record (the trace event's layout, copied here by ink_tev_alloc()): all
 * a hit reads of it, together.
 */
struct ink_probe_arg {
	u8 op;				/* enum ink_fetch_op */
	u8 reg_off;			/* a register's offset in struct pt_regs */
	u8 size;			/* bytes of the value, its type's */
	u8 pad;				/* bytes of alignment before its field */
	u16 off;			/* its field in the record */
	u16 str_off;			/* strings: its slot in the record; else 0 */
	s64 val;
	const u8 *loc;			/* location expression; NULL: unavailable */
	bool base_reg;			/* the location is register + val ... */
	bool base_const;		/* ... or val, taken without the interpreter */
	bool in_place;			/* :string of a char array: no last read */
	s32 field_off[INK_MAX_FIELDS];	/* per "->": offset of the member read */
};

/*
 * A caller offset for printf's "%s0x%x": "-0x10" for an exit in a
 * NAME.cold before its caller, "+0x10" otherwise.
 */
static inline const char *ink_off_sign(s32 off)
{
	return off < 0 ? "-" : "+";
}

static inline u32 ink_off_abs(s32 off)
{
	return off < 0 ? -(u32)off : (u32)off;
}

struct ink_probe {
	union {
		struct {		/* a kprobe: the one at its address (probe_site.c) */
			struct ink_site *site;
			struct list_head site_node;	/* in the site's probes */
		};
		struct kretprobe rp;	/* exit_kind INK_EXIT_RETURN */
	};
	unsigned long addr;		/* where kprobes put it, once registered */
	struct ink_event *ev;
	struct ink_target *target;
	u32 sym;			/* caller: index in the target's SYMBOLS */
	s32 caller_offset;	/* negative: an exit in a NAME.cold before the caller */
	/* the probed instance, for its inline frames at the probe site */
	u32 callee_id;
	u32 entry_offset;
	s32 first_range;		/* start of its first code range */
	u32 code_len;			/* total length of its ranges; 0: none */
	u8 depth;			/* its inline depth (DEPTH), or 0 */
	bool out_of_line;
	bool registered;
	bool in_notrace;		/* refused: in a function ftrace cannot trace */
	int refused;			/* why kprobes refused it (-errno; -ENOEXEC:
					 * its caller did not resolve), or 0
					 */
	/* r events: this kprobe is exit @exit of the instance (exit_probe.c) */
	u32 instance;			/* the instance's index among TARGET's */
	u16 exit;			/* the exit's index in the instance's EXITS */
	u8 exit_kind;			/* BTF_INLINE_EXIT_*, INK_EXIT_*; 0: a p event's */
	u8 exit_test;			/* LEAVE_JCC: the condition; LEAVE_INDIRECT:
					 * the target register's pt_regs offset / 8
					 */
	bool exit_ready;		/* decoded, its instance whole: it may fire */
	/* $duration: the call's frame (ORC CFA) is this register + frame_off */
	u8 frame_reg;			/* its offset in struct pt_regs */
	s32 frame_off;
	const u8 *ranges;		/* the instance's ranges, for LEAVE_INDIRECT */
	u32 ranges_len;
	u16 nr_ranges;
	struct ink_probe_arg args[INK_MAX_ARGS];
};

/*
 * The low @size bytes of @v at @field (little-endian), by constant sizes:
 * single moves, whatever the alignment (records are 4-byte aligned).
 */
static __always_inline void ink_store(void *field, u64 v, u8 size)
{
	if (size == 8) {
		memcpy(field, &v, 8);
	} else if (size == 4) {
		u32 v4 = v;

		memcpy(field, &v4, 4);
	} else if (size == 2) {
		u16 v2 = v;

		memcpy(field, &v2, 2);
	} else {
		*(u8 *)field = v;
	}
}

/*
 * ink_fetch_eval(), with the commonest arguments (a register plus an
 * offset, a constant, one read at a register plus an offset) taken
 * inline: a call less per argument and hit.
 */
static __always_inline enum ink_arg_state ink_fetch(const struct ink_probe *p, unsigned int i,
						    struct pt_regs *regs, void *field, char *str)
{
	const struct ink_probe_arg *a = &p->args[i];
	unsigned long reg;

	if (a->op == INK_OP_REG) {
		reg = *(const unsigned long *)((const char *)regs + a->reg_off);
		ink_store(field, reg + a->val, a->size);
		return INK_ARG_OK;
	}
	if (a->op == INK_OP_CONST) {
		ink_store(field, a->val, a->size);
		return INK_ARG_OK;
	}
	if (a->op == INK_OP_REG_MEM) {
		reg = *(const unsigned long *)((const char *)regs + a->reg_off);
		if (copy_from_kernel_nofault(field, (const void *)(reg + a->val + a->field_off[0]),
					     a->size))
			return INK_ARG_FAULT;
		return INK_ARG_OK;
	}
	return ink_fetch_eval(p, i, regs, field, str);
}

struct ink_event {
	struct list_head list;
	char group[INK_NAME_LEN];
	char name[INK_NAME_LEN];
	char *target_text;		/* TARGET as written */
	unsigned int nr_args;
	struct ink_fetch args[INK_MAX_ARGS];
	unsigned int nr_strs;		/* :string and $comm arguments */
	unsigned int nr_probes;
	struct ink_probe *probes;
	struct ink_probe **work;	/* probe_attach.c's lists, nr_probes each */
	struct kprobe **kps;
	bool is_return;			/* r: a kprobe per exit of each instance */
	/*
	 * r with $duration or arguments: a kprobe at each inlined copy's
	 * entry too, each call followed from it to its exit (timed_calls.c)
	 */
	bool paired;
	u32 entry_args;			/* r: bit i, argument i is the entry's value */
	struct ink_timed_calls *calls;	/* paired: the inlined copies' calls */
	unsigned int nr_instances;	/* the instances TARGET names */
	unsigned int nr_skipped;	/* r: of them, those without known exits */
	unsigned int nr_no_probe;	/* NO_PROBE records TARGET names: not probed */
	bool stacktrace;		/* capture the stack at each hit */
	bool strict;			/* all instances or none */
	struct ink_event_stats __percpu *stats;
	struct ink_tev *tev;		/* its trace event; NULL without tracefs */
};

extern struct list_head ink_events;
/* The probes file and stats; registers the blob store's ink_target_ops. */
int ink_probes_init(struct dentry *dir);
void ink_probes_exit(void);

#endif /* _INKPROBE_PROBE_EVENT_H */
