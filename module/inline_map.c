// SPDX-License-Identifier: GPL-2.0
/*
 * Which inlined functions of a target contain a code address: the inline
 * frames of a stack trace.  Per live target, built on first use from the
 * blob's instance ranges (lib/inline_chain.c, the look-up the tool shares):
 * the caller symbols that hold inlined code, sorted by runtime address, each
 * with its instances.  Used only in process context (the trace event's
 * output, the stack file), under ink_frames_mutex.
 */
#include <linux/slab.h>
#include <linux/sort.h>

#include "inkprobe.h"
#include "blob_store.h"
#include "inline_map.h"
#include "probe_event.h"
#include "../lib/blob.h"
#include "../lib/btf_lite.h"
#include "../lib/inline_chain.h"

DEFINE_MUTEX(ink_frames_mutex);

struct map_sym {
	unsigned long addr;	/* runtime start */
	u32 size;
	u32 group;		/* its instances: map.groups[group] */
};

struct ink_inline_map {
	struct map_sym *syms;		/* by address */
	u32 nr_syms;
	struct ink_chain_group *groups;	/* SYMBOLS order */
	struct ink_chain_ref *refs;
};

void ink_inline_map_free(struct ink_target *t)
{
	if (!t->inline_map)
		return;
	kvfree(t->inline_map->syms);
	kvfree(t->inline_map->groups);
	kvfree(t->inline_map->refs);
	kfree(t->inline_map);
	t->inline_map = NULL;
}

static int cmp_sym(const void *a, const void *b)
{
	const struct map_sym *x = a, *y = b;

	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

/* Only the symbols the target has an address for. */
static bool has_addr(const void *ctx, u32 sym)
{
	const struct ink_target *t = ctx;

	return t->sym_addr[sym];
}

/* Instances with ranges, grouped by caller symbol, symbols sorted by address. */
static struct ink_inline_map *build(struct ink_target *t)
{
	const struct ink_blob *b = &t->blob;
	struct ink_inline_map *m;
	u32 *per_sym, n, s;

	m = kzalloc(sizeof(*m), GFP_KERNEL);
	per_sym = kvcalloc(max(b->nr_syms, 1U), sizeof(*per_sym), GFP_KERNEL);
	if (!m || !per_sym)
		goto fail;
	n = ink_chain_count(b, INK_CHAIN_RANGED, has_addr, t, per_sym, &m->nr_syms);
	m->syms = kvcalloc(max(m->nr_syms, 1U), sizeof(*m->syms), GFP_KERNEL);
	m->groups = kvcalloc(max(m->nr_syms, 1U), sizeof(*m->groups), GFP_KERNEL);
	m->refs = kvcalloc(max(n, 1U), sizeof(*m->refs), GFP_KERNEL);
	if (!m->syms || !m->groups || !m->refs)
		goto fail;
	ink_chain_fill(b, INK_CHAIN_RANGED, has_addr, t, per_sym, m->groups, m->refs);
	for (s = 0; s < m->nr_syms; s++) {
		m->syms[s].addr = t->sym_addr[m->groups[s].sym];
		m->syms[s].size = ink_symbol_size(&b->syms[m->groups[s].sym]);
		m->syms[s].group = s;
	}
	sort(m->syms, m->nr_syms, sizeof(*m->syms), cmp_sym, NULL);
	kvfree(per_sym);
	return m;
fail:
	kvfree(per_sym);
	if (m) {
		kvfree(m->syms);
		kvfree(m->groups);
		kvfree(m->refs);
		kfree(m);
	}
	return NULL;
}

int ink_inline_map_build(struct ink_target *t)
{
	lockdep_assert_held(&ink_frames_mutex);
	if (!t->live || t->inline_map)
		return 0;
	t->inline_map = build(t);
	return t->inline_map ? 0 : -ENOMEM;
}

/*
 * The instances of the symbol of @t holding @addr, built on first use;
 * NULL when none.  *@off: @addr's offset in it.
 */
static const struct ink_chain_group *group_at(struct ink_target *t, unsigned long addr,
					      s64 *off)
{
	struct ink_inline_map *m;
	u32 lo = 0, hi;

	if (ink_inline_map_build(t))
		return NULL;
	m = t->inline_map;
	if (!m || !m->nr_syms)
		return NULL;
	/* the last symbol starting at or below addr */
	hi = m->nr_syms;
	while (lo < hi) {
		u32 mid = lo + (hi - lo) / 2;

		if (m->syms[mid].addr <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo || addr - m->syms[lo - 1].addr >= m->syms[lo - 1].size)
		return NULL;
	*off = addr - m->syms[lo - 1].addr;
	return &m->groups[m->syms[lo - 1].group];
}

unsigned int ink_inline_frames(struct ink_target *t, unsigned long addr, const char **names,
			       unsigned int max)
{
	struct ink_chain_hit hits[INK_MAX_INLINE_DEPTH];
	const struct ink_chain_group *g;
	unsigned int n;
	s64 off;

	lockdep_assert_held(&ink_frames_mutex);
	if (!t->live)
		return 0;
	g = group_at(t, addr, &off);
	n = g ? ink_chain_lookup(&t->blob, t->inline_map->refs, &g, 1, off, hits,
				 ARRAY_SIZE(hits)) : 0;
	return ink_chain_names(&t->btf, hits, n, names, max);
}

unsigned int ink_inline_site_frames(const struct ink_probe *p, const char **names,
				    unsigned int max)
{
	struct ink_chain_hit hits[INK_MAX_INLINE_DEPTH];
	const struct ink_chain_hit probed = {
		.callee_id = p->callee_id, .entry = p->entry_offset, .total = p->code_len,
		.depth = p->depth,
	};
	struct ink_target *t = p->target;
	const struct ink_chain_group *g = NULL;
	s64 off = 0;

	lockdep_assert_held(&ink_frames_mutex);
	if (p->out_of_line || !max || !t->live)
		return 0;
	/* an exit: the code there, the copy's own when still inside it */
	if (p->exit_kind)
		return ink_inline_frames(t, t->sym_addr[p->sym] + (long)p->caller_offset, names, max);
	/* around it (only when it has code of its own): by its code's address */
	if (p->code_len)
		g = group_at(t, t->sym_addr[p->sym] + p->first_range, &off);
	return ink_chain_site(&t->blob, &t->btf, g ? t->inline_map->refs : NULL, &g, g ? 1 : 0,
			      &probed, off, hits, ARRAY_SIZE(hits), names, max);
}
