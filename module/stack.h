/* SPDX-License-Identifier: GPL-2.0 */
/*
 * stack.c: ORC stack capture, frames with inline expansion, "stack";
 * for probe_attach.c, consumers.c, trace_event.c, frames_file.c and main.c.
 */
#ifndef _INKPROBE_STACK_H
#define _INKPROBE_STACK_H

#include <linux/types.h>

#include "inkprobe.h"

struct dentry;
struct ink_probe;
struct pt_regs;
struct seq_buf;

#define INK_FRAME_EXACT		(1U << 0)	/* the probe site or an interrupted ip,
						 * not a return address
						 */
#define INK_FRAME_GUESS		(1U << 1)	/* found by a scan after an unwinder
						 * error: "? "
						 */

/* The stack of one hit, captured once for every consumer. */
struct ink_stack {
	unsigned int nr;
	unsigned long frames[INK_MAX_FRAMES];
	u8 flags[INK_MAX_FRAMES];		/* INK_FRAME_* */
};

/*
 * Handler side: the probe site and the ORC frames above @regs, at most
 * INK_MAX_FRAMES; returns how many.
 */
unsigned int ink_stack_capture(unsigned long *frames, u8 *flags, struct pt_regs *regs,
			       unsigned long site);
/*
 * ORC's rule for the CFA of the function holding @addr (the stack pointer
 * before its call: the same anywhere in one call of it), at @addr: the
 * register it follows (its offset in struct pt_regs) and what it adds.
 * -ENOENT where ORC has no such rule (no ORC data, an undefined or
 * indirect rule).  Process context: it runs the unwinder.
 */
int ink_stack_cfa_rule(unsigned long addr, u8 *reg_off, s32 *off);
/*
 * The inline frames at code address @addr, innermost first: those of the
 * first live target with any (ink_frames_mutex held).  How many.
 */
unsigned int ink_code_inline_frames(unsigned long addr, const char **names, unsigned int max);
/*
 * " => ..." lines into @sb, inline frames expanded (@p: the probe whose
 * site is frames[0], or NULL), whole lines only: what does not fit ends
 * in " => ... (N more frames)".  Takes ink_frames_mutex itself; where it
 * cannot sleep, the frames are not expanded.  The one renderer of every
 * stack: the trace event's output, the stack file.
 */
void ink_stack_format(struct seq_buf *sb, const struct ink_probe *p,
		      const unsigned long *frames, const u8 *flags, unsigned int nr);
int ink_stack_init(struct dentry *dir);

#endif /* _INKPROBE_STACK_H */
