/* SPDX-License-Identifier: GPL-2.0 */
/*
 * exit_probe.c: the kprobes of an r event, one per exit of each inlined
 * copy (the blob's EXITS); for probe_attach.c and consumers.c.
 */
#ifndef _INKPROBE_EXIT_PROBE_H
#define _INKPROBE_EXIT_PROBE_H

#include <linux/types.h>

/*
 * An r event's out-of-line copy: a kretprobe at its entry (not a kind of
 * the blob's EXITS, BTF_INLINE_EXIT_*).
 */
#define INK_EXIT_RETURN		0x10
/*
 * An r event with $duration: a kprobe at an inlined copy's entry (its p
 * event's site) that times the call for its exit; it writes no record.
 */
#define INK_EXIT_ENTRY		0x20

struct ink_event;
struct ink_probe;
struct kprobe;
struct pt_regs;

/*
 * After @p's kprobe @kp is registered: what a LEAVE_JCC or LEAVE_INDIRECT
 * exit tests, read from kprobes' copy of the instruction.  -EOPNOTSUPP (logged)
 * when inkprobe cannot tell from it when control leaves.
 */
int ink_exit_decode(struct ink_probe *p, const struct kprobe *kp);

/*
 * After @ev's probes are registered: an instance takes part only with all
 * its exits (and its entry when paired); the placed probes of the others
 * are marked refused -ECANCELED (logged, counted as dropped), for the
 * caller to unregister.
 */
void ink_exit_settle(struct ink_event *ev);

/*
 * Handler side: does this hit of LEAVE_JCC or LEAVE_INDIRECT exit @p leave
 * its copy?  (Every other kind leaves at each hit.)
 */
bool ink_exit_leaves(const struct ink_probe *p, struct pt_regs *regs);

/* "LAND", "LEAVE", ... for a BTF_INLINE_EXIT_* kind, "RETURN" for INK_EXIT_RETURN. */
const char *ink_exit_kind_name(u8 kind);

#endif /* _INKPROBE_EXIT_PROBE_H */
