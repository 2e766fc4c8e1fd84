// SPDX-License-Identifier: GPL-2.0
/*
 * Address -> inline chain, shared by inkprobe.ko and the tool.  See
 * inline_chain.h.
 */
#include "inline_chain.h"

/* The caller symbol of @in if the index keeps it, else -1. */
static long kept(const struct ink_blob *b, const struct ink_instance *in, unsigned int flags,
		 ink_chain_sym_fn keep, const void *ctx)
{
	long sym = ink_blob_symbol(b, in->caller_id);

	if (sym < 0 || (in->flags & BTF_INLINE_EXT_OUT_OF_LINE) ||
	    ((flags & INK_CHAIN_RANGED) && !in->nr_ranges) || (keep && !keep(ctx, (u32)sym)))
		return -1;
	return sym;
}

/* The number of symbols @per_sym counts copies for: the index's groups. */
static u32 count_groups(const struct ink_blob *b, const u32 *per_sym)
{
	u32 i, n = 0;

	for (i = 0; i < b->nr_syms; i++)
		n += per_sym[i] != 0;
	return n;
}

/* The ref of instance @in, which an iterator stood at (@before) to read. */
static void set_ref(struct ink_chain_ref *r, const struct ink_instance_iter *before,
		    const struct ink_instance *in)
{
	struct ink_range_iter it;
	s64 lo = 0, hi = 0;
	bool any = false;
	s32 start;
	u32 len;

	r->inst_off = before->inst_off;
	r->ext_off = before->ext_off;
	r->index = before->index;
	ink_range_iter_init(&it, in);
	while (ink_range_next(&it, &start, &len)) {
		if (!any || start < lo)
			lo = start;
		if (!any || (s64)start + len > hi)
			hi = (s64)start + len;
		any = true;
	}
	/* a span past 4 GiB (no real code): the widest, decoded every time */
	r->lo = (s32)lo;
	r->span = hi - lo > (s64)~0U ? ~0U : (u32)(hi - lo);
}

/* Whether @off may be in a range of @r's instance. */
static bool in_span(const struct ink_chain_ref *r, s64 off)
{
	return off >= r->lo && (u64)(off - r->lo) < r->span;
}

u32 ink_chain_count(const struct ink_blob *b, unsigned int flags, ink_chain_sym_fn keep,
		    const void *ctx, u32 *per_sym, u32 *nr_groups)
{
	struct ink_instance_iter it;
	struct ink_instance in;
	u32 n = 0;

	ink_instance_iter_init(&it, b);
	while (ink_instance_next(&it, &in)) {
		long sym = kept(b, &in, flags, keep, ctx);

		if (sym < 0)
			continue;
		per_sym[sym]++;
		n++;
	}
	*nr_groups = count_groups(b, per_sym);
	return n;
}

/* The groups laid out in SYMBOLS order, empty; per_sym[] becomes each symbol's group. */
static void lay_out(const struct ink_blob *b, u32 *per_sym, struct ink_chain_group *groups)
{
	u32 i, g, n;

	for (i = 0, g = 0, n = 0; i < b->nr_syms; i++) {
		if (!per_sym[i])
			continue;
		groups[g].sym = i;
		groups[g].first = n;
		groups[g].count = 0;
		n += per_sym[i];
		per_sym[i] = g++;
	}
}

void ink_chain_fill(const struct ink_blob *b, unsigned int flags, ink_chain_sym_fn keep,
		    const void *ctx, u32 *per_sym, struct ink_chain_group *groups,
		    struct ink_chain_ref *refs)
{
	struct ink_instance_iter it, before;
	struct ink_instance in;

	/* lay the groups out, then fill their slots */
	lay_out(b, per_sym, groups);
	ink_instance_iter_init(&it, b);
	for (before = it; ink_instance_next(&it, &in); before = it) {
		long sym = kept(b, &in, flags, keep, ctx);

		if (sym < 0)
			continue;
		set_ref(&refs[groups[per_sym[sym]].first + groups[per_sym[sym]].count++], &before,
			&in);
	}
}

u32 ink_chain_collect(const struct ink_blob *b, unsigned int flags, ink_chain_sym_fn keep,
		      const void *ctx, u32 *per_sym, u32 *nr_groups, struct ink_chain_ref *all,
		      u32 *sym_of)
{
	struct ink_instance_iter it, before;
	struct ink_instance in;
	u32 n = 0;

	ink_instance_iter_init(&it, b);
	for (before = it; ink_instance_next(&it, &in); before = it) {
		long sym = kept(b, &in, flags, keep, ctx);

		if (sym < 0)
			continue;
		per_sym[sym]++;
		set_ref(&all[n], &before, &in);
		sym_of[n++] = (u32)sym;
	}
	*nr_groups = count_groups(b, per_sym);
	return n;
}

void ink_chain_layout(const struct ink_blob *b, u32 *per_sym, const struct ink_chain_ref *all,
		      const u32 *sym_of, u32 n, struct ink_chain_group *groups,
		      struct ink_chain_ref *refs)
{
	u32 i;

	lay_out(b, per_sym, groups);
	for (i = 0; i < n; i++) {
		struct ink_chain_group *g = &groups[per_sym[sym_of[i]]];

		refs[g->first + g->count++] = all[i];
	}
}

bool ink_chain_contains(const struct ink_instance *in, s64 off, u64 *total, s64 *first)
{
	struct ink_range_iter r;
	bool hit = false, any = false;
	s32 start;
	u32 len;

	*total = 0;
	ink_range_iter_init(&r, in);
	while (ink_range_next(&r, &start, &len)) {
		if (!any && first)
			*first = start;
		any = true;
		*total += len;
		if (off >= start && off - start < len)
			hit = true;
	}
	return hit;
}

bool ink_chain_inner(const struct ink_chain_hit *x, const struct ink_chain_hit *y)
{
	if (x->total != y->total)
		return x->total < y->total;
	if (x->entry != y->entry)
		return x->entry > y->entry;
	if (x->depth != y->depth)
		return x->depth > y->depth;
	return x->callee_id < y->callee_id;
}

/* Innermost first. */
static int cmp_hit(const void *a, const void *b)
{
	const struct ink_chain_hit *x = a, *y = b;

	return ink_chain_inner(x, y) ? -1 : ink_chain_inner(y, x);
}

/* Instance @r, decoded again. */
static bool decode(const struct ink_blob *b, const struct ink_chain_ref *r,
		   struct ink_instance *in)
{
	return ink_instance_at(b, r->inst_off, r->ext_off, r->index, in);
}

unsigned int ink_chain_lookup(const struct ink_blob *b, const struct ink_chain_ref *refs,
			      const struct ink_chain_group *const *groups,
			      unsigned int nr_groups, s64 off, struct ink_chain_hit *hits,
			      unsigned int max)
{
	unsigned int n = 0, k, j, outer;
	u32 i;

	if (!max)
		return 0;
	for (k = 0; k < nr_groups; k++) {
		for (i = 0; i < groups[k]->count; i++) {
			const struct ink_chain_ref *r = &refs[groups[k]->first + i];
			struct ink_chain_hit h;
			struct ink_instance in;

			if (!in_span(r, off) || !decode(b, r, &in) ||
			    !ink_chain_contains(&in, off, &h.total, NULL))
				continue;
			h.callee_id = in.callee_id;
			h.entry = in.entry_offset;
			h.depth = in.depth;
			if (n < max) {
				hits[n++] = h;
				continue;
			}
			/* full: @h takes the outermost's place if it is inner to it */
			for (outer = 0, j = 1; j < n; j++)
				if (ink_chain_inner(&hits[outer], &hits[j]))
					outer = j;
			if (ink_chain_inner(&h, &hits[outer]))
				hits[outer] = h;
		}
	}
	ink_sort(hits, n, sizeof(*hits), cmp_hit);
	return n;
}

bool ink_chain_probed(const struct ink_blob *b, const struct ink_chain_ref *refs,
		      const struct ink_chain_group *const *groups, unsigned int nr_groups,
		      s64 off, struct ink_chain_hit *p, s64 *first)
{
	bool have = false;
	unsigned int k;
	u32 i;

	for (k = 0; k < nr_groups; k++) {
		for (i = 0; i < groups[k]->count; i++) {
			struct ink_chain_hit h = { 0 };
			struct ink_instance in;
			s64 start = off;

			if (!decode(b, &refs[groups[k]->first + i], &in) ||
			    in.caller_offset != off)
				continue;
			ink_chain_contains(&in, off, &h.total, &start);
			h.callee_id = in.callee_id;
			h.entry = in.entry_offset;
			h.depth = in.depth;
			/* several probed here: the innermost, the first of equals */
			if (have && !ink_chain_inner(&h, p))
				continue;
			*p = h;
			*first = start;
			have = true;
		}
	}
	return have;
}

unsigned int ink_chain_site(const struct ink_blob *b, const struct ink_btf *btf,
			    const struct ink_chain_ref *refs,
			    const struct ink_chain_group *const *groups, unsigned int nr_groups,
			    const struct ink_chain_hit *p, s64 first, struct ink_chain_hit *hits,
			    unsigned int nr_hits, const char **names, unsigned int max)
{
	unsigned int n = 0, nh, i;

	if (!max)
		return 0;
	names[n++] = ink_btf_name(btf, p->callee_id);
	if (!p->total)
		return n;
	/* around it: copies holding its code, with more code than it has */
	nh = ink_chain_lookup(b, refs, groups, nr_groups, first, hits, nr_hits);
	for (i = 0; i < nh && n < max; i++)
		if (hits[i].total > p->total ||
		    (hits[i].total == p->total && hits[i].entry < p->entry) ||
		    (hits[i].total == p->total && hits[i].entry == p->entry &&
		     hits[i].depth < p->depth))
			names[n++] = ink_btf_name(btf, hits[i].callee_id);
	return n;
}

unsigned int ink_chain_names(const struct ink_btf *btf, const struct ink_chain_hit *hits,
			     unsigned int n, const char **names, unsigned int max)
{
	unsigned int i;

	for (i = 0; i < n && i < max; i++)
		names[i] = ink_btf_name(btf, hits[i].callee_id);
	return i;
}
