// SPDX-License-Identifier: GPL-2.0
/*
 * Attaching an event: its probes onto the kprobes of their addresses
 * (probe_site.c; kretprobes of their own for an r event's out-of-line
 * copies), and kprobes' global switch.
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
#include "probe_hit.h"
#include "probe_site.h"
#include "refusal.h"
#include "timed_calls.h"
#include "../lib/btf_lite.h"
#include "../uapi/inkprobe.h"

static int ret_maxactive;
module_param(ret_maxactive, int, 0444);
MODULE_PARM_DESC(ret_maxactive,
		 "calls of one out-of-line copy an r event follows at once (kretprobe's maxactive; 0: the kernel's default)");

static unsigned long probe_addr(const struct ink_probe *p)
{
	return p->target->sym_addr[p->sym] + (long)p->caller_offset;
}

/* The kprobe or kretprobe @p is registered with. */
static struct kprobe *kprobe_of(struct ink_probe *p)
{
	return p->exit_kind == INK_EXIT_RETURN ? &p->rp.kp : ink_site_kprobe(p);
}

/*
 * Registers @p's kretprobe (an r event's out-of-line copy), or has it
 * join the kprobe at its address.
 */
static int register_one(struct ink_probe *p, u32 flags)
{
	int ret;

	if (p->exit_kind != INK_EXIT_RETURN) {
		ret = ink_site_join(p, probe_addr(p), flags);
	} else {
		memset(&p->rp, 0, sizeof(p->rp));
		p->rp.kp.addr = (kprobe_opcode_t *)probe_addr(p);
		p->rp.kp.flags = flags;
		p->rp.handler = ink_ret_handler;
		if (p->ev->paired) {
			p->rp.entry_handler = ink_ret_entry_handler;
			p->rp.data_size = sizeof(u64) + ink_tev_entry_size(p->ev);
		}
		p->rp.maxactive = ret_maxactive;
		ret = register_kretprobe(&p->rp);
	}
	if (!ret)
		p->addr = (unsigned long)kprobe_of(p)->addr;
	return ret;
}

/*
 * Unregisters @ev's probes ps[0..n), kretprobes and kprobes alike
 * (reorders ps); on return no handler runs them.
 */
static void unregister_all(struct ink_event *ev, struct ink_probe **ps, unsigned int n)
{
	unsigned int i, k = 0;

	for (i = 0; i < n; i++) {
		if (ps[i]->exit_kind == INK_EXIT_RETURN)
			unregister_kretprobe(&ps[i]->rp);
		else
			ps[k++] = ps[i];
	}
	ink_site_leave(ps, k, ev->kps);
}

/* Unregisters @p alone (seldom: it waits for running handlers). */
static void unregister_one(struct ink_probe *p)
{
	unregister_all(p->ev, &p, 1);
}

/*
 * An r event's probes ps[0..n), registered: only whole instances take
 * part (exit_probe.c), the others' are unregistered.  Returns how many
 * stay, first in ps; they fire from now on.
 */
static unsigned int settle(struct ink_event *ev, struct ink_probe **ps, unsigned int n)
{
	unsigned int i, kept = 0;

	ink_exit_settle(ev);
	for (i = 0; i < n; i++) {
		if (ps[i]->refused == -ECANCELED)
			unregister_one(ps[i]);
		else
			ps[kept++] = ps[i];
	}
	for (i = 0; i < kept; i++)
		WRITE_ONCE(ps[i]->exit_ready, true);
	return kept;
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
 * Registers each of ps[0..n) with @flags (0 or KPROBE_FLAG_DISABLED);
 * the refused ones are logged and marked.  ps[] keeps the registered
 * ones, first; returns how many.
 */
static unsigned int register_each(struct ink_probe **ps, unsigned int n, u32 flags)
{
	unsigned int i, ok = 0;
	int ret;

	for (i = 0; i < n; i++) {
		struct ink_probe *p = ps[i];

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
		ret = ink_exit_decode(p, kprobe_of(p));	/* logged */
		if (!ret && p->ev->paired && p->exit_kind != INK_EXIT_RETURN)
			ret = ink_timed_call_site(p);	/* logged */
		if (ret) {
			unregister_one(p);
			p->refused = ret;
			continue;
		}
		ps[ok++] = p;
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
			ev->work[n++] = p;
	}
	if (!tried)
		return 0;
	on = kprobes_switched_on();
	if (ev->strict && n < tried)
		n = 0;
	else
		n = register_each(ev->work, n, on ? KPROBE_FLAG_DISABLED : 0);
	/* a kprobe other events share is enabled already: nothing done */
	for (i = 0, k = 0; on && i < n; i++) {
		struct ink_probe *p = ev->work[i];

		ret = enable_kprobe(kprobe_of(p));
		if (!ret) {
			ev->work[k++] = p;
			continue;
		}
		ink_log_err(0, "kprobe at %pS refused: cannot be armed (%d)", (void *)p->addr, ret);
		unregister_one(p);
		p->refused = ret;
	}
	if (on)
		n = k;
	if (n && on && !kprobes_switched_on()) {
		/* switched off meanwhile */
		unregister_all(ev, ev->work, n);
		n = register_each(ev->work, n, 0);
	}
	/* an r event: only whole instances, and then they fire */
	if (ev->is_return)
		n = settle(ev, ev->work, n);
	/* out of memory is no property of a site: all or none, as strict */
	for (i = 0; i < ev->nr_probes; i++)
		oom |= ev->probes[i].refused == -ENOMEM &&
		       (!only || ev->probes[i].target == only);
	if (n && n < tried && (ev->strict || oom)) {
		unregister_all(ev, ev->work, n);
		n = 0;
	}
	for (i = 0; i < n; i++)
		ev->work[i]->registered = true;
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
			ev->work[n++] = p;
	}
	for (i = 0; i < n; i++)
		ev->work[i]->registered = false;
	unregister_all(ev, ev->work, n);
}

