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
 * for the event's entry record), open addressing over a window of
 * INK_TIMED_WINDOW slots.  A slot is claimed by cmpxchg on its frame word
 * (INK_TIMED_CLAIMED while its fields are written), and only the context
 * that claimed it frees it: the exit of that call, in the same task and
 * stack.  A full window: the entry is not timed (untimed=, in stats), and
 * its exit finds no entry (unpaired=): never a duration that is not the
 * call's own.
 *
 * Here: the table's allocation and each probe's frame rule.  The handler
 * side, what a hit does with the table, is inline in timed_calls.h: the
 * entry and exit handlers (probe_hit.c) make no call for it.
 */
#include <linux/log2.h>
#include <linux/kprobes.h>
#include <linux/moduleparam.h>
#include <linux/slab.h>

#include "error_log.h"
#include "probe_event.h"
#include "stack.h"
#include "timed_calls.h"

static unsigned int timed_calls = 4096;
module_param(timed_calls, uint, 0444);
MODULE_PARM_DESC(timed_calls,
		 "calls of inlined copies an r event with $duration or arguments follows at once (rounded up to a power of 2)");

struct ink_timed_calls *ink_timed_calls_alloc(unsigned int data_size)
{
	unsigned int n = roundup_pow_of_two(clamp(timed_calls, INK_TIMED_WINDOW, 1U << 20));
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

