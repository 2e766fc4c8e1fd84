// SPDX-License-Identifier: GPL-2.0
/*
 * Attaching an event: one kprobe per instance, its pre-handler, and
 * kprobes' global switch.
 *
 * kprobes may refuse single instances, and inkprobe refuses those in
 * functions ftrace cannot trace, as kprobe_events does: the event attaches
 * to the others, each refusal in error_log and counted (stats: refused=N,
 * notrace=N of them for want of an ftrace location), unless it is strict
 * (all or nothing), every instance is refused, or one was refused for
 * want of memory (then all or nothing too).
 */
#include <linux/ftrace.h>
#include <linux/kprobes.h>
#include <linux/module.h>
#include <linux/percpu.h>
#include <linux/slab.h>
#include <linux/timekeeping.h>
#include <linux/uaccess.h>

#include <asm/text-patching.h>

#include "blob_store.h"
#include "consumers.h"
#include "error_log.h"
#include "exit_probe.h"
#include "kallsyms.h"
#include "probe.h"
#include "probe_event.h"
#include "refusal.h"
#include "stack.h"
#include "timed_calls.h"
#include "../lib/btf_lite.h"
#include "../uapi/inkprobe.h"

/*
 * A hit of @p at @site, to the consumers of its event; @duration: its
 * call's, for $duration; @entry: its call's entry record, for an r event's
 * arguments.  Inlined into each handler (they are NOKPROBE): no call more
 * per hit than before r events.
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

static int ret_maxactive;
module_param(ret_maxactive, int, 0444);
MODULE_PARM_DESC(ret_maxactive,
		 "calls of one out-of-line copy an r event follows at once (kretprobe's maxactive; 0: the kernel's default)");

static int ink_pre_handler(struct kprobe *kp, struct pt_regs *regs)
{
	ink_hit(container_of(kp, struct ink_probe, kp), regs, (unsigned long)kp->addr, 0, NULL);
	return 0;
}
NOKPROBE_SYMBOL(ink_pre_handler);

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
static int ink_entry_pre_handler(struct kprobe *kp, struct pt_regs *regs)
{
	struct ink_probe *p = container_of(kp, struct ink_probe, kp);
	struct ink_event *ev = p->ev;
	struct timed_call *slot;
	unsigned long frame;
	void *entry;

	if (!READ_ONCE(p->exit_ready) || !ink_tev_wanted(ev->tev))
		return 0;
	frame = call_frame(p, regs);
	entry = ink_timed_call_enter(ev->calls, p->instance, frame, ktime_get_mono_fast_ns(),
				     &slot);
	if (!entry) {
		this_cpu_inc(ev->stats->untimed);
		return 0;
	}
	if (ev->entry_args)
		ink_tev_fill_entry(p, regs, entry);
	ink_timed_call_kept(slot, frame);
	return 0;
}
NOKPROBE_SYMBOL(ink_entry_pre_handler);

/*
 * An r event's kprobe: a hit when control leaves the copy there.  In a
 * paired event, only a call whose entry was kept has one; its slot is
 * freed whether the event still has a consumer or not.
 */
static int ink_exit_pre_handler(struct kprobe *kp, struct pt_regs *regs)
{
	struct ink_probe *p = container_of(kp, struct ink_probe, kp);
	struct ink_event *ev = p->ev;
	struct timed_call *slot;
	unsigned long frame;
	const void *entry;
	u64 now, start;

	if (!ink_exit_taken(p, regs))
		return 0;
	if (!ev->paired) {
		ink_hit(p, regs, (unsigned long)kp->addr, 0, NULL);
		return 0;
	}
	now = ktime_get_mono_fast_ns();
	frame = call_frame(p, regs);
	entry = ink_timed_call_exit(ev->calls, p->instance, frame, &start, &slot);
	if (entry) {
		ink_hit(p, regs, (unsigned long)kp->addr, now - start, entry);
		ink_timed_call_done(slot);
	} else if (ink_tev_wanted(ev->tev)) {
		this_cpu_inc(ev->stats->unpaired);
	}
	return 0;
}
NOKPROBE_SYMBOL(ink_exit_pre_handler);

/*
 * A paired r event ($duration, arguments), at an out-of-line copy's entry:
 * the call's start and arguments, in its kretprobe instance (the time,
 * then the entry record).  Without a consumer, no instance: the return is
 * not followed.
 */
static int ink_ret_entry_handler(struct kretprobe_instance *ri, struct pt_regs *regs)
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
static int ink_ret_handler(struct kretprobe_instance *ri, struct pt_regs *regs)
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

static unsigned long probe_addr(const struct ink_probe *p)
{
	return p->target->sym_addr[p->sym] + (long)p->caller_offset;
}

/* Registers @p's kprobe, or its kretprobe (an r event's out-of-line copy). */
static int register_one(struct ink_probe *p, u32 flags)
{
	if (p->exit_kind == INK_EXIT_RETURN) {
		memset(&p->rp, 0, sizeof(p->rp));
		p->rp.kp.addr = (kprobe_opcode_t *)probe_addr(p);
		p->rp.kp.flags = flags;
		p->rp.handler = ink_ret_handler;
		if (p->ev->paired) {
			p->rp.entry_handler = ink_ret_entry_handler;
			p->rp.data_size = sizeof(u64) + ink_tev_entry_size(p->ev);
		}
		p->rp.maxactive = ret_maxactive;
		return register_kretprobe(&p->rp);
	}
	memset(&p->kp, 0, sizeof(p->kp));
	p->kp.addr = (kprobe_opcode_t *)probe_addr(p);
	p->kp.pre_handler = p->exit_kind == INK_EXIT_ENTRY ? ink_entry_pre_handler :
			    p->exit_kind ? ink_exit_pre_handler : ink_pre_handler;
	p->kp.flags = flags;
	return register_kprobe(&p->kp);
}

/* Unregisters kps[0..n), kprobes and kretprobes alike (reorders kps). */
static void unregister_all(struct kprobe **kps, unsigned int n)
{
	unsigned int i, k = 0;

	for (i = 0; i < n; i++) {
		struct ink_probe *p = container_of(kps[i], struct ink_probe, kp);

		if (p->exit_kind == INK_EXIT_RETURN)
			unregister_kretprobe(&p->rp);
		else
			kps[k++] = kps[i];
	}
	if (k)
		unregister_kprobes(kps, k);	/* waits for running handlers */
}

static const char *caller_name(const struct ink_probe *p)
{
	return ink_target_sym_name(p->target, p->sym);
}

/* Instance @p is not placed, for @err (-ENOEXEC: its caller did not resolve): say why. */
static void refuse(struct ink_probe *p, int err)
{
	char why[160], name[KSYM_NAME_LEN];
	unsigned long off, size;

	p->refused = err;
	if (p->in_notrace) {
		ink_log_err(0,
			    "kprobe at 0x%lx (%s%s0x%x) refused: %s is notrace: its hits would write into the trace buffers from code ftrace cannot trace (kprobe_events: Could not probe notrace function)",
			    probe_addr(p), caller_name(p), ink_off_sign(p->caller_offset),
			    ink_off_abs(p->caller_offset), caller_name(p));
		return;
	}
	if (err == -ENOEXEC) {
		/* what kallsyms has where the blob says the caller is, if known */
		const struct inkprobe_symbol *s = &p->target->blob.syms[p->sym];
		unsigned long at = p->target->is_module ? 0 :
				   (unsigned long)&sprint_symbol + s->addr;

		if (at && ink_kallsyms_at(at, name, &off, &size, NULL))
			ink_log_err(0,
				    "%s%s0x%x: caller %s in %s does not match kallsyms (it has %s+0x%lx/0x%lx there): refused",
				    caller_name(p), ink_off_sign(p->caller_offset),
				    ink_off_abs(p->caller_offset), caller_name(p),
				    p->target->name, name, off, size);
		else
			ink_log_err(0, "%s%s0x%x: caller %s in %s does not match kallsyms: refused",
				    caller_name(p), ink_off_sign(p->caller_offset),
				    ink_off_abs(p->caller_offset), caller_name(p),
				    p->target->name);
		return;
	}
	ink_refusal_reason(why, sizeof(why), p->target->mod, probe_addr(p), err);
	ink_log_err(0, "kprobe at 0x%lx (%s%s0x%x) refused: %s", probe_addr(p),
		    caller_name(p), ink_off_sign(p->caller_offset),
		    ink_off_abs(p->caller_offset), why);
}

/*
 * One look-up in ftrace's tables; a fresh ops each time: its hash is freed
 * after.  1: ftrace has a location at @addr, 0: none, or -ENOMEM (the
 * look-up allocates: out of memory, it cannot tell).
 */
static int ftrace_site_in(unsigned long addr)
{
	struct ftrace_ops *ops = kzalloc(sizeof(*ops), GFP_KERNEL);
	int ret;

	if (!ops)
		return -ENOMEM;
	ret = ftrace_set_filter_ip(ops, addr, 0, 1);
	ftrace_free_filter(ops);
	kfree(ops);
	return ret == -ENOMEM ? ret : !ret;
}

/*
 * The same for a function called @name, in vmlinux or a module: whether
 * ftrace has one in its tables (ftrace_set_filter() matches names there).
 */
static int ftrace_function_named(char *name)
{
	struct ftrace_ops *ops = kzalloc(sizeof(*ops), GFP_KERNEL);
	int ret;

	if (!ops)
		return -ENOMEM;
	ret = ftrace_set_filter(ops, name, strlen(name), 1);
	ftrace_free_filter(ops);
	kfree(ops);
	return ret == -ENOMEM ? ret : !ret;
}

/*
 * Can ftrace trace the function holding @p's site?  What kprobe_events
 * asks (within_notrace_func()): is there an ftrace location in the
 * symbol, in ftrace's own tables.  ftrace_set_filter_ip() on an ops that
 * is never registered looks the symbol's start up there
 * (ftrace_location()) and patches nothing.  A NAME.cold or NAME.part.N
 * piece counts as NAME, as for kprobe_events: in a module, the NAME of
 * that module; in vmlinux, any function ftrace knows by that name
 * (kallsyms_lookup_name() is not exported).
 *
 * Not asked of an out-of-line copy: the kernel's "inline" says notrace,
 * so no such copy has an ftrace location, wherever it is called from
 * (Documentation/trace-events.rst, "Functions ftrace cannot trace").
 */
static int caller_traceable(const struct ink_probe *p)
{
	char name[KSYM_NAME_LEN], *dot;
	unsigned long addr = p->target->sym_addr[p->sym], off, size;
	int ret;

	if (!IS_ENABLED(CONFIG_DYNAMIC_FTRACE))
		return 1;
	ret = ftrace_site_in(addr);
	if (ret)
		return ret;
	if (!ink_kallsyms_at(addr, name, &off, &size, NULL))
		return 0;
	dot = strchr(name, '.');
	if (!dot || off)
		return 0;
	*dot = '\0';
	if (!p->target->mod)
		return ftrace_function_named(name);
	addr = ink_module_symbol(p->target->mod, name, 0);
	return addr ? ftrace_site_in(addr) : 0;
}

/*
 * Registers each of kps[0..n) with @flags (0 or KPROBE_FLAG_DISABLED);
 * the refused ones are logged and marked.  kps[] keeps the registered
 * ones, first; returns how many.
 */
static unsigned int register_each(struct kprobe **kps, unsigned int n, u32 flags)
{
	unsigned int i, ok = 0;
	int ret;

	for (i = 0; i < n; i++) {
		struct ink_probe *p = container_of(kps[i], struct ink_probe, kp);

		p->exit_ready = false;
		ret = p->out_of_line ? 1 : caller_traceable(p);
		p->in_notrace = !ret;
		if (ret > 0)
			ret = register_one(p, flags);
		else if (!ret)
			ret = -EINVAL;		/* as kprobe_events answers */
		if (ret) {
			refuse(p, ret);
			continue;
		}
		ret = ink_exit_decode(p);	/* logged */
		if (!ret && p->ev->paired && p->exit_kind != INK_EXIT_RETURN)
			ret = ink_timed_call_site(p);	/* logged */
		if (ret) {
			ink_exit_unregister(p);
			p->refused = ret;
			continue;
		}
		kps[ok++] = kps[i];
	}
	return ok;
}

/*
 * The site only kprobes_switched_on() probes; nothing calls it.  notrace:
 * no ftrace call at its start, so the kprobe there is an int3.
 */
static noinline notrace void switch_probe_site(void)
{
	barrier();
}

static int switch_probe_pre(struct kprobe *kp, struct pt_regs *regs)
{
	return 0;
}
NOKPROBE_SYMBOL(switch_probe_pre);

static void switch_probe_post(struct kprobe *kp, struct pt_regs *regs, unsigned long flags)
{
}
NOKPROBE_SYMBOL(switch_probe_post);

/*
 * kprobes' global switch, debug/kprobes/enabled: kprobes_all_disarmed is
 * not exported, and the debugfs file cannot be read from the kernel.  A
 * kprobe registered enabled is armed (its int3 written) only while the
 * switch is on.  The post handler keeps it from being optimized: its int3
 * stays until it is unregistered.  Unknown (kprobes refuse the site): off.
 */
static bool kprobes_switched_on(void)
{
	struct kprobe kp = {
		.addr = (kprobe_opcode_t *)switch_probe_site,
		.pre_handler = switch_probe_pre,
		.post_handler = switch_probe_post,
	};
	u8 insn = 0;

	if (register_kprobe(&kp))
		return false;
	/* kp.addr: past an endbr64, where kprobes put the int3 */
	if (copy_from_kernel_nofault(&insn, kp.addr, 1))
		insn = 0;
	unregister_kprobe(&kp);
	return insn == INT3_INSN_OPCODE;
}

/*
 * Registers the probes of @ev on live targets (only @only if set): those
 * kprobes accept; each refused one is logged and marked.  Fails when
 * nothing could be placed, or when one was refused and @ev is strict, or
 * one was refused for want of memory (-ENOMEM), which says nothing about
 * its site: then none stays registered.
 *
 * They are registered disabled and enabled in a second pass, as
 * kprobe_events does: a kprobe registered enabled is queued for jump
 * optimization at once, and the optimizer holds kprobe_mutex across
 * synchronize_rcu_tasks() while the next register_kprobe() waits for it.
 * Enabled in one quick pass, the optimizer runs once for all of them.
 *
 * But while kprobes are switched off, enable_kprobe() does not enable an
 * optimizable kprobe for good (only the kprobe, not the aggregate kprobes
 * made for it), and switching kprobes on does not arm it.  The probes are
 * then registered enabled: they are armed when kprobes are switched on.
 *
 * Errors go to the command's log context, at the word it has chosen.
 */
int ink_probes_arm(struct ink_event *ev, struct ink_target *only)
{
	unsigned int i, k, n = 0, tried = 0;
	int ret, first = 0;
	bool on, oom = false;

	for (i = 0; i < ev->nr_probes; i++) {
		struct ink_probe *p = &ev->probes[i];

		if (p->registered || !p->target->live || (only && p->target != only))
			continue;
		tried++;
		p->refused = 0;
		p->in_notrace = false;
		if (!p->target->sym_addr[p->sym])
			refuse(p, -ENOEXEC);
		else
			ev->kps[n++] = &p->kp;
	}
	if (!tried)
		return 0;
	on = kprobes_switched_on();
	if (ev->strict && n < tried)
		n = 0;
	else
		n = register_each(ev->kps, n, on ? KPROBE_FLAG_DISABLED : 0);
	for (i = 0, k = 0; on && i < n; i++) {
		ret = enable_kprobe(ev->kps[i]);
		if (!ret) {
			ev->kps[k++] = ev->kps[i];
			continue;
		}
		ink_log_err(0, "kprobe at %pS refused: cannot be armed (%d)", ev->kps[i]->addr,
			    ret);
		ink_exit_unregister(container_of(ev->kps[i], struct ink_probe, kp));
		container_of(ev->kps[i], struct ink_probe, kp)->refused = ret;
	}
	if (on)
		n = k;
	if (n && on && !kprobes_switched_on()) {
		/* switched off meanwhile */
		unregister_all(ev->kps, n);
		n = register_each(ev->kps, n, 0);
	}
	/* an r event: only whole instances, and then they fire */
	if (ev->is_return)
		n = ink_exit_settle(ev, ev->kps, n);
	/* out of memory is no property of a site: all or none, as strict */
	for (i = 0; i < ev->nr_probes; i++)
		oom |= ev->probes[i].refused == -ENOMEM &&
		       (!only || ev->probes[i].target == only);
	if (n && n < tried && (ev->strict || oom)) {
		unregister_all(ev->kps, n);
		n = 0;
	}
	for (i = 0; i < n; i++)
		container_of(ev->kps[i], struct ink_probe, kp)->registered = true;
	if (n)
		return 0;
	/* nothing placed: the first refusal's errno */
	for (i = 0, k = 0; i < ev->nr_probes; i++) {
		const struct ink_probe *p = &ev->probes[i];

		if (p->refused && (!only || p->target == only)) {
			first = first ?: p->refused;
			k++;
		}
	}
	if (oom)
		ink_log_err(0, "out of memory: %u of %u instances refused: none attached", k,
			    tried);
	else if (ev->strict && k < tried)
		ink_log_err(0, "strict: %u of %u instances refused: none attached", k, tried);
	else
		ink_log_err(0, "no instance could be attached: %u of %u refused", k, tried);
	return oom ? -ENOMEM : first ?: -EINVAL;
}

void ink_probes_disarm(struct ink_event *ev, struct ink_target *only)
{
	unsigned int i, n = 0;

	for (i = 0; i < ev->nr_probes; i++) {
		struct ink_probe *p = &ev->probes[i];

		if (only && p->target != only)
			continue;
		p->refused = 0;		/* tried again when its target comes back */
		p->in_notrace = false;
		if (p->registered)
			ev->kps[n++] = &p->kp;
	}
	for (i = 0; i < n; i++)
		container_of(ev->kps[i], struct ink_probe, kp)->registered = false;
	unregister_all(ev->kps, n);
}

