// SPDX-License-Identifier: GPL-2.0
/*
 * Which inlined functions of a target contain a code address: the inline
 * frames of a stack trace.  Per live target, built on first use from the
 * blob's instance ranges: the caller symbols that hold inlined code,
 * sorted by runtime address, each with its instances.  Used only in process context
 * (the trace event's output, the stack file), under ink_frames_mutex.
 */
#include <linux/slab.h>
#include <linux/sort.h>

#include "inkprobe.h"
#include "blob_store.h"
#include "inline_map.h"
#include "probe_event.h"
#include "../lib/blob.h"
#include "../lib/btf_lite.h"

DEFINE_MUTEX(ink_frames_mutex);

struct map_sym {
	unsigned long addr;	/* runtime start */
	u32 size;
	u32 first, count;	/* its instances in map.insts */
};

/* Enough to decode one instance again: the iterator's state before it. */
struct map_inst {
	u32 inst_off;
	u32 ext_off;
	u32 index;
};

struct ink_inline_map {
	struct map_sym *syms;
	u32 nr_syms;
	struct map_inst *insts;
	u32 nr_insts;
};

void ink_inline_map_free(struct ink_target *t)
{
	if (!t->inline_map)
		return;
	kvfree(t->inline_map->syms);
	kvfree(t->inline_map->insts);
	kfree(t->inline_map);
	t->inline_map = NULL;
}

static int cmp_sym(const void *a, const void *b)
{
	const struct map_sym *x = a, *y = b;

	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

/* Instances with ranges, grouped by caller symbol, symbols sorted by address. */
static struct ink_inline_map *build(struct ink_target *t)
{
	const struct ink_blob *b = &t->blob;
	struct ink_inline_map *m;
	struct ink_instance_iter it, before;
	struct ink_instance in;
	u32 *per_sym, i, n = 0, s;

	m = kzalloc(sizeof(*m), GFP_KERNEL);
	per_sym = kvcalloc(max(b->nr_syms, 1U), sizeof(*per_sym), GFP_KERNEL);
	if (!m || !per_sym)
		goto fail;
	/* count instances per caller symbol */
	ink_instance_iter_init(&it, b);
	while (ink_instance_next(&it, &in)) {
		long sym = ink_blob_symbol(b, in.caller_id);

		if (sym < 0 || !in.nr_ranges || (in.flags & BTF_INLINE_EXT_OUT_OF_LINE) ||
		    !t->sym_addr[sym])
			continue;
		per_sym[sym]++;
		n++;
	}
	for (i = 0; i < b->nr_syms; i++)
		m->nr_syms += per_sym[i] != 0;
	m->syms = kvcalloc(max(m->nr_syms, 1U), sizeof(*m->syms), GFP_KERNEL);
	m->insts = kvcalloc(max(n, 1U), sizeof(*m->insts), GFP_KERNEL);
	if (!m->syms || !m->insts)
		goto fail;
	/* lay the symbols out in blob order, then fill their slots */
	for (i = 0, s = 0, n = 0; i < b->nr_syms; i++) {
		if (!per_sym[i])
			continue;
		m->syms[s].addr = t->sym_addr[i];
		m->syms[s].size = ink_symbol_size(&b->syms[i]);
		m->syms[s].first = n;
		n += per_sym[i];
		per_sym[i] = s++;	/* now: the symbol's slot */
	}
	ink_instance_iter_init(&it, b);
	for (before = it; ink_instance_next(&it, &in); before = it) {
		long sym = ink_blob_symbol(b, in.caller_id);
		struct map_sym *ms;

		if (sym < 0 || !in.nr_ranges || (in.flags & BTF_INLINE_EXT_OUT_OF_LINE) ||
		    !t->sym_addr[sym])
			continue;
		ms = &m->syms[per_sym[sym]];
		m->insts[ms->first + ms->count].inst_off = before.inst_off;
		m->insts[ms->first + ms->count].ext_off = before.ext_off;
		m->insts[ms->first + ms->count++].index = before.index;
	}
	m->nr_insts = n;
	sort(m->syms, m->nr_syms, sizeof(*m->syms), cmp_sym, NULL);
	kvfree(per_sym);
	return m;
fail:
	kvfree(per_sym);
	if (m) {
		kvfree(m->syms);
		kvfree(m->insts);
		kfree(m);
	}
	return NULL;
}

/* Total length of @in's ranges, and whether one contains offset @off. */
static bool contains(const struct ink_instance *in, s64 off, u64 *total)
{
	struct ink_range_iter r;
	bool hit = false;
	s32 start;
	u32 len;

	*total = 0;
	ink_range_iter_init(&r, in);
	while (ink_range_next(&r, &start, &len)) {
		*total += len;
		if (off >= start && off - start < len)
			hit = true;
	}
	return hit;
}

struct hit {
	u32 callee_id;
	u64 total;
	u32 entry;
};

/* Innermost first: the smallest code, then the latest entry. */
static int cmp_hit(const void *a, const void *b)
{
	const struct hit *x = a, *y = b;

	if (x->total != y->total)
		return x->total < y->total ? -1 : 1;
	return x->entry > y->entry ? -1 : x->entry < y->entry;
}

/* @t's instances containing @addr, innermost first; how many. */
static unsigned int lookup(struct ink_target *t, unsigned long addr, struct hit *hits,
			   unsigned int max)
{
	struct ink_inline_map *m;
	struct map_sym *ms;
	u32 lo = 0, hi, i;
	unsigned int n = 0;

	if (!t->inline_map)
		t->inline_map = build(t);
	m = t->inline_map;
	if (!m || !m->nr_syms)
		return 0;
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
		return 0;
	ms = &m->syms[lo - 1];
	for (i = 0; i < ms->count && n < max; i++) {
		struct map_inst *mi = &m->insts[ms->first + i];
		struct ink_instance in;
		u64 total;

		if (!ink_instance_at(&t->blob, mi->inst_off, mi->ext_off, mi->index, &in) ||
		    !contains(&in, addr - ms->addr, &total))
			continue;
		hits[n].callee_id = in.callee_id;
		hits[n].total = total;
		hits[n].entry = in.entry_offset;
		n++;
	}
	sort(hits, n, sizeof(hits[0]), cmp_hit, NULL);
	return n;
}

unsigned int ink_inline_frames(struct ink_target *t, unsigned long addr, const char **names,
			       unsigned int max)
{
	struct hit hits[INK_MAX_INLINE_DEPTH];
	unsigned int n, i;

	lockdep_assert_held(&ink_frames_mutex);
	if (!t->live)
		return 0;
	n = lookup(t, addr, hits, ARRAY_SIZE(hits));
	for (i = 0; i < n && i < max; i++)
		names[i] = ink_btf_name(&t->btf, hits[i].callee_id);
	return min(n, max);
}

unsigned int ink_inline_site_frames(const struct ink_probe *p, const char **names,
				    unsigned int max)
{
	struct hit hits[INK_MAX_INLINE_DEPTH];
	struct ink_target *t = p->target;
	unsigned int n = 0, nh, i;

	lockdep_assert_held(&ink_frames_mutex);
	if (p->out_of_line || !max || !t->live)
		return 0;
	/* an exit: the code there, the copy's own when still inside it */
	if (p->exit_kind)
		return ink_inline_frames(t, t->sym_addr[p->sym] + p->caller_offset, names, max);
	names[n++] = ink_btf_name(&t->btf, p->callee_id);
	if (!p->code_len)
		return n;
	/* around it: instances holding its code, with more code than it has */
	nh = lookup(t, t->sym_addr[p->sym] + p->first_range, hits, ARRAY_SIZE(hits));
	for (i = 0; i < nh && n < max; i++)
		if (hits[i].total > p->code_len ||
		    (hits[i].total == p->code_len && hits[i].entry < p->entry_offset))
			names[n++] = ink_btf_name(&t->btf, hits[i].callee_id);
	return n;
}
