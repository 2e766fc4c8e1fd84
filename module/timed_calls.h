/* SPDX-License-Identifier: GPL-2.0 */
/*
 * timed_calls.c: the calls of inlined copies an r event follows from entry
 * to exit ($duration, arguments), each with its entry's time and record;
 * for probe_event.c and probe_attach.c.
 */
#ifndef _INKPROBE_TIMED_CALLS_H
#define _INKPROBE_TIMED_CALLS_H

#include <linux/types.h>

struct ink_probe;
struct ink_timed_calls;
struct timed_call;

/*
 * A table of timed_calls (the module parameter) slots, each with
 * @data_size bytes for the entry's record; NULL: no memory.
 */
struct ink_timed_calls *ink_timed_calls_alloc(unsigned int data_size);
void ink_timed_calls_free(struct ink_timed_calls *c);

/*
 * After @p's kprobe is registered (an entry or exit of an inlined copy):
 * how its hits find their call's frame, from ORC's rule at its address.
 * -EOPNOTSUPP (logged) where ORC has none: its calls cannot be timed.
 */
int ink_timed_call_site(struct ink_probe *p);

/*
 * Handler side, an entry of @instance in the frame whose ORC CFA is
 * @frame: keeps @now for its exit in a slot, *@slot, and returns where
 * the entry's record goes (data_size bytes); NULL when no slot is free.
 * The caller writes the record, then ink_timed_call_kept() makes the
 * entry visible to its exit.
 */
void *ink_timed_call_enter(struct ink_timed_calls *c, u32 instance, unsigned long frame, u64 now,
			   struct timed_call **slot);
void ink_timed_call_kept(struct timed_call *slot, unsigned long frame);

/*
 * Handler side, an exit of @instance in @frame: its entry's time into
 * *@start and its record, returned; NULL when its entry was not kept.
 * The record stays until ink_timed_call_done(*@slot) frees the slot.
 */
const void *ink_timed_call_exit(struct ink_timed_calls *c, u32 instance, unsigned long frame,
				u64 *start, struct timed_call **slot);
void ink_timed_call_done(struct timed_call *slot);

#endif /* _INKPROBE_TIMED_CALLS_H */
