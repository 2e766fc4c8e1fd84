/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Address -> inline chain: which inlined copies of a blob hold an offset
 * of their caller, innermost first.  The one look-up inkprobe.ko
 * (module/inline_map.c, by runtime address) and the tool
 * (user/trace/inline_frames.c, by symbol name and offset) share.  Nothing
 * here allocates: the users size the index with ink_chain_count() and give
 * its arrays to ink_chain_fill().  The hits of a look-up are sorted with
 * ink_sort() (compat.h), as each side always sorted them.
 *
 * The index: per caller symbol with inlined copies (a group), the copies
 * inlined into it, each kept as the iterator's state before it
 * (ink_instance_at() decodes it again) and the span its ranges cover, so
 * that a look-up decodes only the copies whose span holds the offset.
 */
#ifndef _INKPROBE_INLINE_CHAIN_H
#define _INKPROBE_INLINE_CHAIN_H

#include "compat.h"
#include "blob.h"
#include "btf_lite.h"

/*
 * One instance of the index: where it is decoded again, and [lo, lo + span)
 * from its lowest range's start to its highest range's end (span 0: no
 * ranges).
 */
struct ink_chain_ref {
	u32 inst_off;
	u32 ext_off;
	u32 index;
	s32 lo;
	u32 span;
};

/* A caller symbol's inlined copies: refs[first .. first + count). */
struct ink_chain_group {
	u32 sym;		/* SYMBOLS index */
	u32 first, count;
};

/* An instance holding the offset looked up. */
struct ink_chain_hit {
	u32 callee_id;
	u32 entry;		/* its entry_offset */
	u64 total;		/* its code: the ranges' total length */
	u8 depth;		/* its inline depth (DEPTH), 0 if the blob has none */
};

/*
 * Whether copy @x is inner to copy @y, of one caller symbol: the smaller
 * code, then the later entry, then the deeper (DEPTH; 0 in an older blob),
 * then the smaller callee id, so that only copies of one name are equal.
 * The order of a frame's inline chain, and of the probes at one pc
 * (module/probe_site.c).
 */
bool ink_chain_inner(const struct ink_chain_hit *x, const struct ink_chain_hit *y);

/* Which copies an index keeps: only those with ranges (else all). */
#define INK_CHAIN_RANGED	(1U << 0)

/* Whether the index keeps the copies inlined into symbol @sym; NULL: all. */
typedef bool (*ink_chain_sym_fn)(const void *ctx, u32 sym);

/*
 * First pass: the inlined copies (not OUT_OF_LINE) whose caller is a
 * symbol of @b that @keep accepts, with ranges if @flags says so, counted
 * per symbol into @per_sym (b->nr_syms entries, zeroed).  Returns how many;
 * *@nr_groups: how many symbols have any.
 */
u32 ink_chain_count(const struct ink_blob *b, unsigned int flags, ink_chain_sym_fn keep,
		    const void *ctx, u32 *per_sym, u32 *nr_groups);

/*
 * Second pass, with the same @flags, @keep and the @per_sym of the first
 * (reused): @groups (*@nr_groups of them) in SYMBOLS order, each with its
 * copies in @refs in blob order.
 */
void ink_chain_fill(const struct ink_blob *b, unsigned int flags, ink_chain_sym_fn keep,
		    const void *ctx, u32 *per_sym, struct ink_chain_group *groups,
		    struct ink_chain_ref *refs);

/*
 * The two passes above in one walk of the blob, for a user with room for
 * a copy: ink_chain_count()'s counts, and each kept copy's ref in blob
 * order into @all and its symbol into @sym_of (both with room for
 * b->nr_instances).  Returns how many.
 */
u32 ink_chain_collect(const struct ink_blob *b, unsigned int flags, ink_chain_sym_fn keep,
		      const void *ctx, u32 *per_sym, u32 *nr_groups, struct ink_chain_ref *all,
		      u32 *sym_of);

/*
 * Then the index ink_chain_fill() makes, from the @n refs and symbols
 * ink_chain_collect() gave and its @per_sym (reused): @groups in SYMBOLS
 * order, each with its copies in @refs in blob order.
 */
void ink_chain_layout(const struct ink_blob *b, u32 *per_sym, const struct ink_chain_ref *all,
		      const u32 *sym_of, u32 n, struct ink_chain_group *groups,
		      struct ink_chain_ref *refs);

/*
 * The total length of @in's ranges into *@total, and whether one holds
 * offset @off; *@first (if not NULL): the first range's start, unchanged
 * when there is none.
 */
bool ink_chain_contains(const struct ink_instance *in, s64 off, u64 *total, s64 *first);

/*
 * The copies of the @nr_groups groups @groups (symbols at one address:
 * aliases) holding offset @off, innermost first: the smallest code, then
 * the latest entry, then the deepest (copies with the same code and entry
 * carry their depth, BTF_INLINE_EXT_DEPTH; an older blob has none), then
 * the smallest callee id.  A total order: hits it leaves equal are the same
 * name, so the kernel's sort() and libc's qsort() give the same chain.
 * The @max innermost, into @hits (so that a look-up with room for fewer
 * gives a prefix of one with room for more: the module's and the tool's
 * chains agree); how many.
 */
unsigned int ink_chain_lookup(const struct ink_blob *b, const struct ink_chain_ref *refs,
			      const struct ink_chain_group *const *groups,
			      unsigned int nr_groups, s64 off, struct ink_chain_hit *hits,
			      unsigned int max);

/*
 * Where no probe says which copy it is: the copy probed at offset @off
 * (caller_offset), the innermost of those there as ink_chain_lookup()
 * orders them, the first in blob order among equals (the same name).  False if none;
 * else *@p and the start of its code in *@first (@off when it has none).
 */
bool ink_chain_probed(const struct ink_blob *b, const struct ink_chain_ref *refs,
		      const struct ink_chain_group *const *groups, unsigned int nr_groups,
		      s64 off, struct ink_chain_hit *p, s64 *first);

/*
 * The inline frames at a probe site, into @names: the probed copy @p
 * itself, then the copies holding its code's first byte @first with more
 * code than it, or as much and an earlier entry (its entry pc may sit
 * before its own code), or as much, the same entry and a smaller depth
 * (around it by DWARF).  @hits (@nr_hits) is room for the look-up, which
 * keeps the @nr_hits innermost copies there (@p's own among them); names
 * are read on @btf.  How many, at most @max.
 */
unsigned int ink_chain_site(const struct ink_blob *b, const struct ink_btf *btf,
			    const struct ink_chain_ref *refs,
			    const struct ink_chain_group *const *groups, unsigned int nr_groups,
			    const struct ink_chain_hit *p, s64 first, struct ink_chain_hit *hits,
			    unsigned int nr_hits, const char **names, unsigned int max);

/* The callees' names of @hits (@n) on @btf, into @names: how many, at most @max. */
unsigned int ink_chain_names(const struct ink_btf *btf, const struct ink_chain_hit *hits,
			     unsigned int n, const char **names, unsigned int max);

#endif /* _INKPROBE_INLINE_CHAIN_H */
