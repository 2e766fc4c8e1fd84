// SPDX-License-Identifier: GPL-2.0
/*
 * One kprobe per address for all of inkprobe's probes there, whatever
 * their events.  kprobes run the kprobes of one address newest first
 * (add_new_kprobe() puts each at the head of its aggregate's list), so
 * the order of two events' handlers at a pc would be the order they were
 * defined in.  Where one pc is the exit of one call and the entry of the
 * next, or nested copies leave by one pc, the calls' events must come in
 * the order the calls end and start: exits first, the innermost copy's
 * first, then entries, the outermost copy's first.  The site's handler
 * runs its probes' in that order.
 *
 * A site's probes are an RCU list, in that order: a probe joins under
 * ink_mutex while the handler may run; one that leaves is not run after
 * the grace period ink_site_leave() waits for (kprobe handlers run with
 * preemption off, as unregister_kprobes() relies on too).
 */
#include <linux/hashtable.h>
#include <linux/kprobes.h>
#include <linux/rculist.h>
#include <linux/slab.h>

#include "debugfs_files.h"
#include "exit_probe.h"
#include "probe_event.h"
#include "probe_hit.h"
#include "probe_site.h"
#include "../lib/inline_chain.h"

static DEFINE_HASHTABLE(sites, 10);	/* ink_mutex */

static bool is_exit(const struct ink_probe *p)
{
	return p->exit_kind && p->exit_kind != INK_EXIT_ENTRY;
}

/* @p's copy as lib/inline_chain.c compares copies. */
static struct ink_chain_hit chain_hit(const struct ink_probe *p)
{
	return (struct ink_chain_hit){
		.callee_id = p->callee_id, .entry = p->entry_offset,
		.total = p->code_len, .depth = p->depth,
	};
}

/*
 * Whether @p's copy is inside @q's, in the order a stack frame's inline
 * chain lists copies (lib/inline_chain.c): copies of one caller symbol;
 * an out-of-line copy is inside none.
 */
static bool inside(const struct ink_probe *p, const struct ink_probe *q)
{
	struct ink_chain_hit x = chain_hit(p), y = chain_hit(q);

	if (p->out_of_line || p->target != q->target || p->sym != q->sym)
		return q->out_of_line && !p->out_of_line;
	return ink_chain_inner(&x, &y);
}

/*
 * Whether @p runs before @q at their address: exits before entries (a p
 * event's, a paired r event's); exits of inner copies first, entries of
 * outer copies first.
 */
static bool runs_before(const struct ink_probe *p, const struct ink_probe *q)
{
	if (is_exit(p) != is_exit(q))
		return is_exit(p);
	return is_exit(p) ? inside(p, q) : inside(q, p);
}

static struct ink_site *site_at(unsigned long addr)
{
	struct ink_site *s;

	hash_for_each_possible(sites, s, node, addr)
		if (s->addr == addr)
			return s;
	return NULL;
}

/* @p into @s's list before the first probe that runs after it. */
static void insert(struct ink_site *s, struct ink_probe *p)
{
	struct ink_probe *q;

	list_for_each_entry(q, &s->probes, site_node) {
		if (runs_before(p, q)) {
			list_add_tail_rcu(&p->site_node, &q->site_node);
			return;
		}
	}
	list_add_tail_rcu(&p->site_node, &s->probes);
}

int ink_site_join(struct ink_probe *p, unsigned long addr, u32 flags)
{
	struct ink_site *s;
	int ret;

	lockdep_assert_held(&ink_mutex);
	s = site_at(addr);
	if (s) {
		insert(s, p);
		p->site = s;
		return 0;
	}
	s = kzalloc(sizeof(*s), GFP_KERNEL);
	if (!s)
		return -ENOMEM;
	s->addr = addr;
	INIT_LIST_HEAD(&s->probes);
	list_add_tail(&p->site_node, &s->probes);	/* no handler yet */
	s->kp.addr = (kprobe_opcode_t *)addr;
	s->kp.pre_handler = ink_site_pre_handler;
	s->kp.flags = flags;
	ret = register_kprobe(&s->kp);
	if (ret) {
		kfree(s);
		return ret;
	}
	hash_add(sites, &s->node, addr);
	p->site = s;
	return 0;
}

struct kprobe *ink_site_kprobe(const struct ink_probe *p)
{
	return &p->site->kp;
}

void ink_site_leave(struct ink_probe **ps, unsigned int n, struct kprobe **scratch)
{
	unsigned int i, empty = 0;

	lockdep_assert_held(&ink_mutex);
	if (!n)
		return;
	for (i = 0; i < n; i++) {
		struct ink_site *s = ps[i]->site;

		list_del_rcu(&ps[i]->site_node);
		ps[i]->site = NULL;
		if (list_empty(&s->probes)) {
			hash_del(&s->node);
			scratch[empty++] = &s->kp;
		}
	}
	/* either waits for the handlers that may still run one of ps[] */
	if (empty)
		unregister_kprobes(scratch, empty);
	else
		synchronize_rcu();
	for (i = 0; i < empty; i++)
		kfree(container_of(scratch[i], struct ink_site, kp));
}
