/* SPDX-License-Identifier: GPL-2.0 */
/*
 * probe_hit.c: what a hit of a probe does; for probe_site.c (the kprobe of
 * an address) and probe_attach.c (kretprobes).
 */
#ifndef _INKPROBE_PROBE_HIT_H
#define _INKPROBE_PROBE_HIT_H

struct kprobe;
struct kretprobe_instance;
struct pt_regs;

/* The pre-handler of the kprobe of an address: its probes' hits, in order. */
int ink_site_pre_handler(struct kprobe *kp, struct pt_regs *regs);

/* A paired r event's out-of-line copy entered: its time and arguments, in @ri. */
int ink_ret_entry_handler(struct kretprobe_instance *ri, struct pt_regs *regs);
/* An r event's out-of-line copy returns: its record. */
int ink_ret_handler(struct kretprobe_instance *ri, struct pt_regs *regs);

#endif /* _INKPROBE_PROBE_HIT_H */
