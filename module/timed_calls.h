/* SPDX-License-Identifier: GPL-2.0 */
/*
 * timed_calls.c: the calls of inlined copies an r event with $duration is
 * timing, each from its entry to its exit; for probe_event.c and
 * probe_attach.c.
 */
#ifndef _INKPROBE_TIMED_CALLS_H
#define _INKPROBE_TIMED_CALLS_H

#include <linux/types.h>

struct ink_timed_calls;

/* A table of timed_calls (the module parameter) slots; NULL: no memory. */
struct ink_timed_calls *ink_timed_calls_alloc(void);
void ink_timed_calls_free(struct ink_timed_calls *c);

/*
 * Handler side, an entry of @instance in the frame whose ORC CFA is
 * @frame: keeps @now for its exit.  False when no slot is free.
 */
bool ink_timed_call_enter(struct ink_timed_calls *c, u32 instance, unsigned long frame, u64 now);

/*
 * Handler side, an exit of @instance in @frame: its entry's time into
 * *@start, and the slot is free again.  False when its entry was not kept.
 */
bool ink_timed_call_exit(struct ink_timed_calls *c, u32 instance, unsigned long frame, u64 *start);

#endif /* _INKPROBE_TIMED_CALLS_H */
