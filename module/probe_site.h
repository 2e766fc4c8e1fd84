/* SPDX-License-Identifier: GPL-2.0 */
/*
 * probe_site.c: one kprobe per address for every probe of every event
 * there, whose handler runs theirs in a fixed order; for probe_attach.c
 * and exit_probe.c.  All but the handler run under ink_mutex.
 */
#ifndef _INKPROBE_PROBE_SITE_H
#define _INKPROBE_PROBE_SITE_H

#include <linux/kprobes.h>
#include <linux/list.h>
#include <linux/types.h>

struct ink_probe;
struct pt_regs;

/* The kprobe at one address, and its probes (probe_hit.c's handler walks them). */
struct ink_site {
	struct hlist_node node;		/* in probe_site.c's table, by addr */
	unsigned long addr;		/* as asked; kp.addr: where kprobes put it */
	struct list_head probes;	/* ink_probe.site_node, in the order they run */
	struct kprobe kp;
};

/*
 * @p takes part in the kprobe at @addr: one is registered there with
 * @flags (0 or KPROBE_FLAG_DISABLED) if there is none yet.  0, or why
 * kprobes refused @addr (-errno).  The kprobe's handler
 * (ink_site_pre_handler(), probe_hit.c) runs each of its probes: exits first, the innermost
 * copy's first; then entries, the outermost copy's first (as a stack
 * frame's inline chain orders copies); probes alike in that, in the order
 * they joined.
 */
int ink_site_join(struct ink_probe *p, unsigned long addr, u32 flags);

/* The kprobe @p takes part in (registered; enable_kprobe(), its ainsn, nmissed). */
struct kprobe *ink_site_kprobe(const struct ink_probe *p);

/*
 * ps[0..n) leave their kprobes; those left without a probe are
 * unregistered, in one batch (@scratch: room for n of them).  On return
 * no handler runs any of ps[] any more.
 */
void ink_site_leave(struct ink_probe **ps, unsigned int n, struct kprobe **scratch);

#endif /* _INKPROBE_PROBE_SITE_H */
