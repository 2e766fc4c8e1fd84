/* SPDX-License-Identifier: GPL-2.0 */
/*
 * timed_calls.c: the calls of inlined copies an r event follows from entry
 * to exit ($duration, arguments), each with its entry's time and record;
 * for probe_event.c and probe_attach.c, and inline below for the handlers
 * of probe_hit.c.
 */
#ifndef _INKPROBE_TIMED_CALLS_H
#define _INKPROBE_TIMED_CALLS_H

#include <linux/hash.h>
#include <linux/sched.h>
#include <linux/types.h>

#include <asm/barrier.h>
#include <asm/cmpxchg.h>

struct ink_probe;
struct ink_timed_calls;

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

#define INK_TIMED_WINDOW	8	/* slots a key may be in, from its hash */
#define INK_TIMED_CLAIMED	1UL	/* no CFA: they are 8-byte aligned */

struct timed_call {
	unsigned long frame;		/* 0: free, CLAIMED, or the key's frame */
	struct task_struct *task;
	u32 instance;
	u64 start;
	u8 data[];			/* the entry's record: ink_timed_calls.stride */
};

struct ink_timed_calls {
	unsigned int mask;
	unsigned int stride;		/* bytes from a slot to the next */
	char slots[];
};

/*
 * The handler side, inline in the probe handlers (probe_hit.c): a hit
 * pays no calls for it.
 */
static __always_inline struct timed_call *ink_timed_slot(struct ink_timed_calls *c,
							 unsigned int i)
{
	return (struct timed_call *)(c->slots + (size_t)(i & c->mask) * c->stride);
}

static __always_inline unsigned int ink_timed_hash(const struct ink_timed_calls *c, u32 instance,
						   unsigned long frame)
{
	return hash_long(frame ^ ((unsigned long)instance << 3), 32) & c->mask;
}

static __always_inline bool ink_timed_is_key(const struct timed_call *s, u32 instance,
					     unsigned long frame)
{
	/* pairs with the release in ink_timed_call_kept(): its fields are written */
	return smp_load_acquire(&s->frame) == frame && s->instance == instance &&
	       s->task == current;
}

/* The slot holding key (@instance, @frame, current), NULL if none. */
static __always_inline struct timed_call *ink_timed_find(struct ink_timed_calls *c,
							 unsigned int h, u32 instance,
							 unsigned long frame)
{
	unsigned int i;

	for (i = 0; i < INK_TIMED_WINDOW; i++) {
		struct timed_call *s = ink_timed_slot(c, h + i);

		if (ink_timed_is_key(s, instance, frame))
			return s;
	}
	return NULL;
}

/*
 * Handler side, an entry of @instance in the frame whose ORC CFA is
 * @frame: keeps @now for its exit in a slot, *@slot, and returns where
 * the entry's record goes (data_size bytes); NULL when no slot is free.
 * The caller writes the record, then ink_timed_call_kept() makes the
 * entry visible to its exit.
 */
static __always_inline void *ink_timed_call_enter(struct ink_timed_calls *c, u32 instance,
						  unsigned long frame, u64 now,
						  struct timed_call **slot)
{
	unsigned int h = ink_timed_hash(c, instance, frame), i;
	struct timed_call *s;

	/* an entry whose exit never came: this call takes its slot */
	s = ink_timed_find(c, h, instance, frame);
	if (s) {
		WRITE_ONCE(s->start, now);
		*slot = s;
		return s->data;
	}
	for (i = 0; i < INK_TIMED_WINDOW; i++) {
		s = ink_timed_slot(c, h + i);
		if (READ_ONCE(s->frame) || cmpxchg(&s->frame, 0, INK_TIMED_CLAIMED))
			continue;
		s->task = current;
		s->instance = instance;
		s->start = now;
		*slot = s;
		return s->data;
	}
	return NULL;
}

static __always_inline void ink_timed_call_kept(struct timed_call *s, unsigned long frame)
{
	/* the key last: a reader that sees it sees the fields and the record */
	smp_store_release(&s->frame, frame);
}

/*
 * Handler side, an exit of @instance in @frame: its entry's time into
 * *@start and its record, returned; NULL when its entry was not kept.
 * The record stays until ink_timed_call_done(*@slot) frees the slot.
 */
static __always_inline const void *ink_timed_call_exit(struct ink_timed_calls *c, u32 instance,
						       unsigned long frame, u64 *start,
						       struct timed_call **slot)
{
	struct timed_call *s = ink_timed_find(c, ink_timed_hash(c, instance, frame), instance,
					      frame);

	if (!s)
		return NULL;
	*start = s->start;
	*slot = s;
	return s->data;
}

static __always_inline void ink_timed_call_done(struct timed_call *s)
{
	/* start and the record are read before the slot can be claimed again */
	smp_store_release(&s->frame, 0);
}

#endif /* _INKPROBE_TIMED_CALLS_H */
