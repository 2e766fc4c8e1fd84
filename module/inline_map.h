/* SPDX-License-Identifier: GPL-2.0 */
/*
 * inline_map.c: which inlined functions of a target contain a code
 * address; for blob_store.c, stack.c and frames_file.c.
 */
#ifndef _INKPROBE_INLINE_MAP_H
#define _INKPROBE_INLINE_MAP_H

#include <linux/mutex.h>
#include <linux/types.h>

struct ink_probe;
struct ink_target;

/*
 * What the frames of a stack trace are made of: the membership of
 * ink_targets, each target's live, sym_addr and inline map.  Changed with
 * ink_mutex and this held, read with this alone: the trace event's output
 * function cannot take ink_mutex (tracefs calls it with trace_event_sem
 * held, which the control path takes under ink_mutex, adding events).
 * Nothing is called under it that takes another lock of the module or of
 * tracing.
 */
extern struct mutex ink_frames_mutex;
/*
 * The inlined functions of target @t containing code address @addr,
 * innermost first (ink_frames_mutex held); returns how many, 0 when @t is
 * not live.
 */
unsigned int ink_inline_frames(struct ink_target *t, unsigned long addr, const char **names,
			       unsigned int max);
/*
 * The inline frames at probe @p's site: the probed instance itself, then
 * the instances around it (its entry pc may sit before its own code); at
 * an exit, the instances holding the exit pc.  ink_frames_mutex held.
 */
unsigned int ink_inline_site_frames(const struct ink_probe *p, const char **names,
				    unsigned int max);
/*
 * Builds the map of live target @t if it has none yet (ink_frames_mutex
 * held): 0, or -ENOMEM.  A look-up builds it too, and goes without inline
 * frames while it cannot.
 */
int ink_inline_map_build(struct ink_target *t);
/* Forget a target's map: its addresses changed or it goes. */
void ink_inline_map_free(struct ink_target *t);

#endif /* _INKPROBE_INLINE_MAP_H */
