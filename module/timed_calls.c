// SPDX-License-Identifier: GPL-2.0
/*
 * The calls an r event follows from entry to exit, in inlined copies (it
 * has $duration, or arguments, which are the entry's): an entry kprobe
 * keeps its time and those arguments under the call's key, the exit that
 * ends the call takes them back.  An out-of-line copy needs none of this:
 * its kretprobe keeps them in its instance.
 *
 * The key is (frame, instance, task).  frame is the ORC CFA of the
 * function the copy is inlined into, at the probe's pc: the same at the
 * entry and at every exit of one call, and another for every other live
 * call of that function (recursion), on any stack (a task's, an IRQ
 * stack, ...).  A hit reads it as a register plus an offset, ORC's rule
 * at its kprobe's address, found once when the kprobe is registered.
 * instance tells nested copies in one frame apart.  So a call is paired
 * with its own entry whatever runs between them: sleeps,
 * migration to another CPU, interrupts, softirqs, the same copy in other
 * tasks.  task only guards against a frame address reused by another task
 * while a slot still holds an entry whose exit never came (a path that
 * does not return).
 *
 * The table is preallocated per event (timed_calls slots, each with room
 * for the event's entry record), open addressing over a window of WINDOW
 * slots.  A slot is claimed by cmpxchg
 * on its frame word (CLAIMED while its fields are written), and only the
 * context that claimed it frees it: the exit of that call, in the same
 * task and stack.  A full window: the entry is not timed (untimed=, in
 * stats), and its exit finds no entry (unpaired=): never a duration that
 * is not the call's own.
 */
#include <linux/hash.h>
#include <linux/log2.h>
#include <linux/kprobes.h>
#include <linux/moduleparam.h>
#include <linux/sched.h>
#include <linux/slab.h>

#include "error_log.h"
#include "probe_event.h"
#include "stack.h"
#include "timed_calls.h"

#define WINDOW		8
#define CLAIMED		1UL	/* no CFA: they are 8-byte aligned */

static unsigned int timed_calls = 4096;
module_param(timed_calls, uint, 0444);
MODULE_PARM_DESC(timed_calls,
		 "calls of inlined copies an r event with $duration or arguments follows at once (rounded up to a power of 2)");

struct timed_call {
	unsigned long frame;		/* 0: free, CLAIMED, or the key's frame */
	struct task_struct *task;
	u32 instance;
	u64 start;
	u8 data[];			/* the entry's record: ink_timed_calls.data_size */
};

struct ink_timed_calls {
	unsigned int mask;
	unsigned int stride;		/* bytes from a slot to the next */
	char slots[];
};

struct ink_timed_calls *ink_timed_calls_alloc(unsigned int data_size)
{
	unsigned int n = roundup_pow_of_two(clamp(timed_calls, WINDOW, 1U << 20));
	unsigned int stride = ALIGN(sizeof(struct timed_call) + data_size, sizeof(u64));
	struct ink_timed_calls *c;

	c = kvzalloc(size_add(sizeof(*c), size_mul(n, stride)), GFP_KERNEL);
	if (c) {
		c->mask = n - 1;
		c->stride = stride;
	}
	return c;
}

void ink_timed_calls_free(struct ink_timed_calls *c)
{
	kvfree(c);
}

int ink_timed_call_site(struct ink_probe *p)
{
	if (!ink_stack_cfa_rule(p->addr, &p->frame_reg, &p->frame_off))
		return 0;
	ink_log_err(0, "kprobe at %pS: ORC has no rule for its frame there: its calls cannot be timed",
		    (void *)p->addr);
	return -EOPNOTSUPP;
}

static __always_inline struct timed_call *slot_at(struct ink_timed_calls *c, unsigned int i)
{
	return (struct timed_call *)(c->slots + (size_t)(i & c->mask) * c->stride);
}

static __always_inline unsigned int first_slot(const struct ink_timed_calls *c, u32 instance,
					       unsigned long frame)
{
	return hash_long(frame ^ ((unsigned long)instance << 3), 32) & c->mask;
}

static __always_inline bool is_key(const struct timed_call *s, u32 instance, unsigned long frame)
{
	/* pairs with the release in enter(): a frame read is one whose fields are written */
	return smp_load_acquire(&s->frame) == frame && s->instance == instance &&
	       s->task == current;
}

/* The slot holding key (@instance, @frame, current), NULL if none. */
static __always_inline struct timed_call *find_slot(struct ink_timed_calls *c, unsigned int h,
						    u32 instance, unsigned long frame)
{
	unsigned int i;

	for (i = 0; i < WINDOW; i++) {
		struct timed_call *s = slot_at(c, h + i);

		if (is_key(s, instance, frame))
			return s;
	}
	return NULL;
}

void *ink_timed_call_enter(struct ink_timed_calls *c, u32 instance, unsigned long frame, u64 now,
			   struct timed_call **slot)
{
	unsigned int h = first_slot(c, instance, frame), i;
	struct timed_call *s;

	/* an entry whose exit never came: this call takes its slot */
	s = find_slot(c, h, instance, frame);
	if (s) {
		WRITE_ONCE(s->start, now);
		*slot = s;
		return s->data;
	}
	for (i = 0; i < WINDOW; i++) {
		s = slot_at(c, h + i);
		if (READ_ONCE(s->frame) || cmpxchg(&s->frame, 0, CLAIMED))
			continue;
		s->task = current;
		s->instance = instance;
		s->start = now;
		*slot = s;
		return s->data;
	}
	return NULL;
}
NOKPROBE_SYMBOL(ink_timed_call_enter);

void ink_timed_call_kept(struct timed_call *s, unsigned long frame)
{
	/* the key last: a reader that sees it sees the fields and the record */
	smp_store_release(&s->frame, frame);
}
NOKPROBE_SYMBOL(ink_timed_call_kept);

const void *ink_timed_call_exit(struct ink_timed_calls *c, u32 instance, unsigned long frame,
				u64 *start, struct timed_call **slot)
{
	struct timed_call *s = find_slot(c, first_slot(c, instance, frame), instance, frame);

	if (!s)
		return NULL;
	*start = s->start;
	*slot = s;
	return s->data;
}
NOKPROBE_SYMBOL(ink_timed_call_exit);

void ink_timed_call_done(struct timed_call *s)
{
	/* start and the record are read before the slot can be claimed again */
	smp_store_release(&s->frame, 0);
}
NOKPROBE_SYMBOL(ink_timed_call_done);
