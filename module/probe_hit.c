// SPDX-License-Identifier: GPL-2.0
/*
 * What a hit of one probe does, by its kind: a p event's writes its
 * record; a paired r event's entry keeps its call (timed_calls.c); an r
 * event's exit writes its record when control leaves the copy there, with
 * its call's duration and arguments when paired; an out-of-line copy's
 * kretprobe handlers do the same at its entry and return.  The kprobe of
 * an address (probe_site.c) runs its probes' in their order, in one
 * function: no call per probe.
 */
#include <linux/kprobes.h>
#include <linux/percpu.h>
#include <linux/timekeeping.h>

#include "consumers.h"
#include "exit_probe.h"
#include "probe_event.h"
#include "probe_hit.h"
#include "probe_site.h"
#include "stack.h"
#include "timed_calls.h"
#include "../uapi/inkprobe.h"

/*
 * A hit of @p at @site, to the consumers of its event; @duration: its
 * call's, for $duration; @entry: its call's entry record, for an r event's
 * arguments.  Inlined into each kind's handler (NOKPROBE, as all here).
 */
static __always_inline void ink_hit(struct ink_probe *p, struct pt_regs *regs, unsigned long site,
				    u64 duration, const void *entry)
{
	struct ink_event *ev = p->ev;
	/*
	 * Not zeroed at every hit (CONFIG_INIT_STACK_ALL_ZERO: 296 bytes): only st.nr
	 * frames are ever read, and the capture writes them.
	 */
	struct ink_stack st __uninitialized;

	this_cpu_inc(ev->stats->hits);
	if (!ink_tev_wanted(ev->tev))
		return;
	/* one capture for every consumer */
	st.nr = 0;
	if (ev->stacktrace)
		st.nr = ink_stack_capture(st.frames, st.flags, regs, site);
	ink_tev_hit(p, regs, &st, duration, entry);	/* ftrace, perf, BPF */
}

/* A p event's probe. */
static __always_inline void entry_hit(struct ink_probe *p, struct pt_regs *regs)
{
	ink_hit(p, regs, p->addr, 0, NULL);
}

/* The frame of the call a hit of @p is in: ORC's CFA, by its rule at the site. */
static __always_inline unsigned long call_frame(const struct ink_probe *p, struct pt_regs *regs)
{
	return *(const unsigned long *)((const char *)regs + p->frame_reg) + p->frame_off;
}

/*
 * A paired r event ($duration, arguments), at an inlined copy's entry: the
 * call's start and arguments, under its frame (timed_calls.c).  While the
 * event has no consumer no call is kept, and its exits write nothing
 * anyway.
 */
static __always_inline void timed_entry_hit(struct ink_probe *p, struct pt_regs *regs)
{
	struct ink_event *ev = p->ev;
	struct timed_call *slot;
	unsigned long frame;
	void *entry;

	if (!READ_ONCE(p->exit_ready) || !ink_tev_wanted(ev->tev))
		return;
	frame = call_frame(p, regs);
	entry = ink_timed_call_enter(ev->calls, p->instance, frame, ktime_get_mono_fast_ns(),
				     &slot);
	if (!entry) {
		this_cpu_inc(ev->stats->untimed);
		return;
	}
	if (ev->entry_args)
		ink_tev_fill_entry(p, regs, entry);
	ink_timed_call_kept(slot, frame);
}

/* Does this hit of exit probe @p leave its copy? */
static __always_inline bool exit_taken(const struct ink_probe *p, struct pt_regs *regs)
{
	if (unlikely(!READ_ONCE(p->exit_ready)))
		return false;
	if (p->exit_kind == BTF_INLINE_EXIT_LEAVE_JCC ||
	    p->exit_kind == BTF_INLINE_EXIT_LEAVE_INDIRECT)
		return ink_exit_leaves(p, regs);
	return true;
}

/*
 * An r event's kprobe: a hit when control leaves the copy there.  In a
 * paired event, only a call whose entry was kept has one; its slot is
 * freed whether the event still has a consumer or not.
 */
static __always_inline void exit_hit(struct ink_probe *p, struct pt_regs *regs)
{
	struct ink_event *ev = p->ev;
	struct timed_call *slot;
	unsigned long frame;
	const void *entry;
	u64 now, start;

	if (!exit_taken(p, regs))
		return;
	if (!ev->paired) {
		ink_hit(p, regs, p->addr, 0, NULL);
		return;
	}
	now = ktime_get_mono_fast_ns();
	frame = call_frame(p, regs);
	entry = ink_timed_call_exit(ev->calls, p->instance, frame, &start, &slot);
	if (entry) {
		ink_hit(p, regs, p->addr, now - start, entry);
		ink_timed_call_done(slot);
	} else if (ink_tev_wanted(ev->tev)) {
		this_cpu_inc(ev->stats->unpaired);
	}
}

int ink_site_pre_handler(struct kprobe *kp, struct pt_regs *regs)
{
	struct ink_site *s = container_of(kp, struct ink_site, kp);
	struct ink_probe *p;

	/* preemption is off in kprobe handlers: an RCU read side */
	list_for_each_entry_rcu(p, &s->probes, site_node) {
		if (!p->exit_kind)
			entry_hit(p, regs);
		else if (p->exit_kind == INK_EXIT_ENTRY)
			timed_entry_hit(p, regs);
		else
			exit_hit(p, regs);
	}
	return 0;
}
NOKPROBE_SYMBOL(ink_site_pre_handler);

/*
 * A paired r event ($duration, arguments), at an out-of-line copy's entry:
 * the call's start and arguments, in its kretprobe instance (the time,
 * then the entry record).  Without a consumer, no instance: the return is
 * not followed.
 */
int ink_ret_entry_handler(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	struct ink_probe *p = container_of(get_kretprobe(ri), struct ink_probe, rp);

	if (!ink_tev_wanted(p->ev->tev))
		return 1;
	*(u64 *)ri->data = ktime_get_mono_fast_ns();
	if (p->ev->entry_args)
		ink_tev_fill_entry(p, regs, ri->data + sizeof(u64));
	return 0;
}
NOKPROBE_SYMBOL(ink_ret_entry_handler);

/* An r event's out-of-line copy returns: the site is its return address. */
int ink_ret_handler(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	struct ink_probe *p = container_of(get_kretprobe(ri), struct ink_probe, rp);
	const void *entry = NULL;
	u64 duration = 0;

	if (p->ev->paired) {
		duration = ktime_get_mono_fast_ns() - *(u64 *)ri->data;
		entry = ri->data + sizeof(u64);
	}
	ink_hit(p, regs, get_kretprobe_retaddr(ri), duration, entry);
	return 0;
}
NOKPROBE_SYMBOL(ink_ret_handler);
