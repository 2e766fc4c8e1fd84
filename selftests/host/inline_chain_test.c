// SPDX-License-Identifier: GPL-2.0
/*
 * The address -> inline chain look-up inkprobe.ko and the tool share
 * (lib/inline_chain.c), on a small blob written here byte by byte from
 * Documentation/blob-format.rst (instance records, extension records with
 * MOVED_PC, RANGES, MERGED and DEPTH, OUT_OF_LINE): three callers, copies
 * nested three deep, two copies with the same code and entry and no depth
 * (an older blob's), three nested ones with the same code and entry and
 * their depths, two at one depth, a merged copy, a copy without ranges and
 * an out-of-line one.  Every chain and site frame asserted is known from
 * the layout below, not from the code under test.  Blob order, callee id
 * order and depth order differ for the copies with depths, so that a chain
 * in any other order than depth then callee id fails.
 *
 *   alpha (SYMBOLS 0, 0x100 bytes), instances in blob order:
 *     0 o1  probe 0x10, code [0x10,0x40) [0x80,0x90)   0x40 bytes
 *     1 w   probe 0x10, code [0x10,0x14)                  4
 *     2 m1  probe 0x14, code [0x14,0x30)               0x1c
 *     3 n1  probe 0x20, code [0x20,0x28)                  8
 *     4 mv  probe 0x24, entry 0x22 (moved), [0x22,0x28)   6
 *     6 t1  probe 0x50, code [0x50,0x60)               0x10
 *     7 t2  probe 0x50, code [0x50,0x60)               0x10 (t1's twin)
 *     9 mg  probe 0x84, code [0x84,0x88), 2 merged calls  4
 *    10 nr  probe 0x30, no ranges
 *    12 k1  probe 0x70, code [0x70,0x78)                  8
 *    13 k2  probe 0x6c, code [0x70,0x78)                  8 (entry earlier)
 *    14 x3  probe 0xa0, code [0xa0,0xb0), depth 2      0x10
 *    15 x1  probe 0xa0, code [0xa0,0xb0), depth 1      0x10 (outermost)
 *    16 x2  probe 0xa0, code [0xa0,0xb0), depth 3      0x10 (innermost)
 *    17 y2  probe 0xc0, code [0xc0,0xc8), depth 2         8
 *    18 y1  probe 0xc0, code [0xc0,0xc8), depth 2         8 (y2's twin)
 *   beta (SYMBOLS 1, 0x80 bytes):
 *     5 o1  probe 0, code [0,0x20)
 *    11 n1  probe 8, code [8,0x10)
 *   gamma (SYMBOLS 2): 8 ool, OUT_OF_LINE (with a range): in no group.
 */
#include <bpf/btf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kselftest_harness.h"
#include "../../lib/blob.h"
#include "../../lib/blob_open.h"
#include "../../lib/inline_chain.h"

/* BTF ids: 1 is the FUNC_PROTO, then the FUNCs in this order. */
static const char *const func_names[] = {
	"alpha", "beta", "gamma", "o1", "w", "m1", "n1", "mv", "t1", "t2", "ool", "mg", "nr",
	"k1", "k2", "x1", "x2", "x3", "y1", "y2",
};

static unsigned int id_of(const char *name)
{
	unsigned int i;

	for (i = 0; i < sizeof(func_names) / sizeof(func_names[0]); i++)
		if (!strcmp(func_names[i], name))
			return i + 2;
	abort();
}

#define F_OOL		BTF_INLINE_EXT_OUT_OF_LINE
#define F_MOVED		BTF_INLINE_EXT_MOVED_PC
#define F_RANGES	BTF_INLINE_EXT_RANGES
#define F_MERGED	BTF_INLINE_EXT_MERGED
#define F_DEPTH		BTF_INLINE_EXT_DEPTH

struct craft_inst {
	const char *callee, *caller;
	uint32_t probe;		/* caller_offset */
	uint32_t moved;		/* MOVED_PC: entry = probe - moved */
	unsigned int flags;
	int nr_ranges;
	uint32_t start[2], len[2];	/* absolute in the caller */
	uint8_t depth;		/* DEPTH */
};

static const struct craft_inst insts[] = {
	{ "o1", "alpha", 0x10, 0, F_RANGES, 2, { 0x10, 0x80 }, { 0x30, 0x10 }, 0 },
	{ "w", "alpha", 0x10, 0, F_RANGES, 1, { 0x10 }, { 4 }, 0 },
	{ "m1", "alpha", 0x14, 0, F_RANGES, 1, { 0x14 }, { 0x1c }, 0 },
	{ "n1", "alpha", 0x20, 0, F_RANGES, 1, { 0x20 }, { 8 }, 0 },
	{ "mv", "alpha", 0x24, 2, F_MOVED | F_RANGES, 1, { 0x22 }, { 6 }, 0 },
	{ "o1", "beta", 0, 0, F_RANGES, 1, { 0 }, { 0x20 }, 0 },
	{ "t1", "alpha", 0x50, 0, F_RANGES, 1, { 0x50 }, { 0x10 }, 0 },
	{ "t2", "alpha", 0x50, 0, F_RANGES, 1, { 0x50 }, { 0x10 }, 0 },
	{ "ool", "gamma", 0, 0, F_OOL | F_RANGES, 1, { 0 }, { 0x10 }, 0 },
	{ "mg", "alpha", 0x84, 0, F_RANGES | F_MERGED, 1, { 0x84 }, { 4 }, 0 },
	{ "nr", "alpha", 0x30, 0, 0, 0, { 0 }, { 0 }, 0 },
	{ "n1", "beta", 8, 0, F_RANGES, 1, { 8 }, { 8 }, 0 },
	{ "k1", "alpha", 0x70, 0, F_RANGES, 1, { 0x70 }, { 8 }, 0 },
	{ "k2", "alpha", 0x6c, 0, F_RANGES, 1, { 0x70 }, { 8 }, 0 },
	{ "x3", "alpha", 0xa0, 0, F_RANGES | F_DEPTH, 1, { 0xa0 }, { 0x10 }, 2 },
	{ "x1", "alpha", 0xa0, 0, F_RANGES | F_DEPTH, 1, { 0xa0 }, { 0x10 }, 1 },
	{ "x2", "alpha", 0xa0, 0, F_RANGES | F_DEPTH, 1, { 0xa0 }, { 0x10 }, 3 },
	{ "y2", "alpha", 0xc0, 0, F_RANGES | F_DEPTH, 1, { 0xc0 }, { 8 }, 2 },
	{ "y1", "alpha", 0xc0, 0, F_RANGES | F_DEPTH, 1, { 0xc0 }, { 8 }, 2 },
};

#define NR_INSTS	(sizeof(insts) / sizeof(insts[0]))

static uint32_t put_uleb(uint8_t *p, uint32_t v)
{
	uint32_t n = 0;

	do {
		p[n] = v & 0x7f;
		v >>= 7;
		if (v)
			p[n] |= 0x80;
		n++;
	} while (v);
	return n;
}

static uint32_t put_sleb(uint8_t *p, int32_t v)
{
	uint32_t n = 0;
	bool more = true;

	while (more) {
		uint8_t byte = v & 0x7f;

		v >>= 7;	/* arithmetic on the compilers we build with */
		more = !((v == 0 && !(byte & 0x40)) || (v == -1 && (byte & 0x40)));
		p[n++] = byte | (more ? 0x80 : 0);
	}
	return n;
}

static void put32(uint8_t *p, uint32_t v)
{
	memcpy(p, &v, 4);
}

static struct {
	uint8_t inst[NR_INSTS * 14];
	uint8_t ext[NR_INSTS * 32];
	uint32_t ext_at[NR_INSTS];	/* where each extension record starts */
	struct inkprobe_symbol syms[3];
	struct ink_blob b;
	struct ink_btf btf;
	void *raw;
} w;

/* The blob above and the BTF naming its functions. */
static int craft(void)
{
	uint32_t ip = 0, ep = 0, i;
	struct ink_err err = { 0 };
	const void *raw;
	struct btf *btf;
	uint32_t len;

	memset(&w, 0, sizeof(w));
	for (i = 0; i < NR_INSTS; i++) {
		const struct craft_inst *c = &insts[i];
		uint32_t cur = c->probe - c->moved;
		int r;

		put32(w.inst + ip, id_of(c->callee));
		put32(w.inst + ip + 4, id_of(c->caller));
		put32(w.inst + ip + 8, c->probe);
		w.inst[ip + 12] = 0;	/* no parameters */
		w.inst[ip + 13] = 0;
		ip += 14;
		w.ext_at[i] = ep;
		w.ext[ep++] = (uint8_t)c->flags;
		if (c->flags & F_MOVED)
			ep += put_uleb(w.ext + ep, c->moved);
		if (c->flags & F_RANGES) {
			ep += put_uleb(w.ext + ep, c->nr_ranges);
			for (r = 0; r < c->nr_ranges; r++) {
				ep += put_sleb(w.ext + ep, (int32_t)(c->start[r] - cur));
				ep += put_uleb(w.ext + ep, c->len[r]);
				cur = c->start[r] + c->len[r];
			}
		}
		if (c->flags & F_MERGED) {
			ep += put_uleb(w.ext + ep, 2);	/* calls */
			ep += put_uleb(w.ext + ep, 0);	/* ambiguous parameters */
		}
		if (c->flags & F_DEPTH)
			w.ext[ep++] = c->depth;
	}
	/* SYMBOLS, by BTF id */
	w.syms[0] = (struct inkprobe_symbol){ id_of("alpha"), 0x1000, 0x100 };
	w.syms[1] = (struct inkprobe_symbol){ id_of("beta"), 0x1100, 0x80 };
	w.syms[2] = (struct inkprobe_symbol){ id_of("gamma"), 0x1180, 0x40 };
	w.b.data = w.inst;
	w.b.len = ip;
	w.b.inst = w.inst;
	w.b.inst_len = ip;
	w.b.ext = w.ext;
	w.b.ext_len = ep;
	w.b.nr_instances = NR_INSTS;
	w.b.syms = w.syms;
	w.b.nr_syms = 3;

	btf = btf__new_empty();
	if (!btf || btf__add_func_proto(btf, 0) != 1)
		return -1;
	for (i = 0; i < sizeof(func_names) / sizeof(func_names[0]); i++)
		if (btf__add_func(btf, func_names[i], BTF_FUNC_STATIC, 1) != (int)i + 2)
			return -1;
	raw = btf__raw_data(btf, &len);
	w.raw = malloc(len);
	if (!raw || !w.raw)
		return -1;
	memcpy(w.raw, raw, len);
	btf__free(btf);
	return ink_btf_load(&w.btf, w.raw, len, NULL, &err);
}

/* An index as the tool keeps it (@flags 0) or the module (INK_CHAIN_RANGED). */
struct index {
	uint32_t per_sym[3], nr_groups, nr_refs;
	struct ink_chain_group groups[3];
	struct ink_chain_ref refs[NR_INSTS];
};

static bool not_beta(const void *ctx, u32 sym)
{
	(void)ctx;
	return sym != 1;
}

static void build(struct index *x, unsigned int flags, ink_chain_sym_fn keep)
{
	memset(x, 0, sizeof(*x));
	x->nr_refs = ink_chain_count(&w.b, flags, keep, NULL, x->per_sym, &x->nr_groups);
	ink_chain_fill(&w.b, flags, keep, NULL, x->per_sym, x->groups, x->refs);
}

/* @n names joined by spaces. */
static const char *join(const char **names, unsigned int n)
{
	static char out[256];
	unsigned int i;

	out[0] = '\0';
	for (i = 0; i < n; i++)
		snprintf(out + strlen(out), sizeof(out) - strlen(out), "%s%s", i ? " " : "",
			 names[i]);
	return out;
}

/* The chain at @off of @groups. */
static const char *chain(const struct index *x, const struct ink_chain_group *const *groups,
			 unsigned int nr, int64_t off, unsigned int max)
{
	struct ink_chain_hit hits[64];
	const char *names[64];
	unsigned int n;

	n = ink_chain_lookup(&w.b, x->refs, groups, nr, off, hits, max);
	return join(names, ink_chain_names(&w.btf, hits, n, names, 64));
}

/* The site frames at @off, the probed copy found by its pc; "-" if none. */
static const char *site(const struct index *x, const struct ink_chain_group *const *groups,
			unsigned int nr, int64_t off, unsigned int max)
{
	struct ink_chain_hit hits[64], p;
	const char *names[64];
	int64_t first;

	if (!ink_chain_probed(&w.b, x->refs, groups, nr, off, &p, &first))
		return "-";
	return join(names, ink_chain_site(&w.b, &w.btf, x->refs, groups, nr, &p, first, hits, 64,
					  names, max));
}

FIXTURE(chain) {
	struct index all, ranged;
	const struct ink_chain_group *alpha, *beta;
};

FIXTURE_SETUP(chain)
{
	ASSERT_EQ(0, craft());
	build(&self->all, 0, NULL);
	build(&self->ranged, INK_CHAIN_RANGED, NULL);
	ASSERT_EQ(2, self->all.nr_groups);
	self->alpha = &self->all.groups[0];
	self->beta = &self->all.groups[1];
}

FIXTURE_TEARDOWN(chain)
{
	ink_btf_unload(&w.btf);
	free(w.raw);
}

/* The crafted records read back as written (a check of the crafting). */
TEST_F(chain, the_blob_reads_back)
{
	struct ink_instance_iter it;
	struct ink_instance in;
	unsigned int i = 0;

	ink_instance_iter_init(&it, &w.b);
	while (ink_instance_next(&it, &in)) {
		struct ink_range_iter r;
		int32_t start;
		uint32_t len;
		int k = 0;

		ASSERT_GT(NR_INSTS, i);
		EXPECT_EQ(id_of(insts[i].callee), in.callee_id);
		EXPECT_EQ(insts[i].probe - insts[i].moved, in.entry_offset);
		EXPECT_EQ(insts[i].nr_ranges, in.nr_ranges);
		ink_range_iter_init(&r, &in);
		while (ink_range_next(&r, &start, &len)) {
			EXPECT_EQ(insts[i].start[k], (uint32_t)start);
			EXPECT_EQ(insts[i].len[k], len);
			k++;
		}
		EXPECT_EQ(insts[i].nr_ranges, k);
		EXPECT_EQ(insts[i].depth, in.depth);
		i++;
	}
	EXPECT_EQ(NR_INSTS, i);
	EXPECT_STREQ("mg", ink_btf_name(&w.btf, id_of("mg")));
}

/* Groups per caller in SYMBOLS order, each with its copies in blob order. */
TEST_F(chain, groups_and_their_instances)
{
	static const uint32_t alpha_all[] = { 0, 1, 2, 3, 4, 6, 7, 9, 10, 12, 13, 14, 15, 16,
					      17, 18 };
	static const uint32_t alpha_ranged[] = { 0, 1, 2, 3, 4, 6, 7, 9, 12, 13, 14, 15, 16, 17,
						 18 };
	static const uint32_t beta[] = { 5, 11 };
	const struct index *a = &self->all, *r = &self->ranged;
	struct index k;
	unsigned int i;

	/* the tool's: every inlined copy, with or without ranges */
	EXPECT_EQ(18, a->nr_refs);
	EXPECT_EQ(0, a->groups[0].sym);
	EXPECT_EQ(0, a->groups[0].first);
	EXPECT_EQ(16, a->groups[0].count);
	EXPECT_EQ(1, a->groups[1].sym);
	EXPECT_EQ(16, a->groups[1].first);
	EXPECT_EQ(2, a->groups[1].count);
	for (i = 0; i < 16; i++)
		EXPECT_EQ(alpha_all[i], a->refs[i].index);
	for (i = 0; i < 2; i++)
		EXPECT_EQ(beta[i], a->refs[16 + i].index);
	/* the module's: those with ranges */
	EXPECT_EQ(2, r->nr_groups);
	EXPECT_EQ(17, r->nr_refs);
	EXPECT_EQ(15, r->groups[0].count);
	EXPECT_EQ(15, r->groups[1].first);
	EXPECT_EQ(2, r->groups[1].count);
	for (i = 0; i < 15; i++)
		EXPECT_EQ(alpha_ranged[i], r->refs[i].index);
	/* each ref: the walk's position before its instance (14-byte records) */
	for (i = 0; i < r->nr_refs; i++) {
		EXPECT_EQ(14 * r->refs[i].index, r->refs[i].inst_off);
		EXPECT_EQ(w.ext_at[r->refs[i].index], r->refs[i].ext_off);
	}
	/* symbols the user has no address for are left out */
	build(&k, INK_CHAIN_RANGED, not_beta);
	EXPECT_EQ(1, k.nr_groups);
	EXPECT_EQ(15, k.nr_refs);
	EXPECT_EQ(0, k.groups[0].sym);
}

/* The one-walk index (ink_chain_collect() and _layout()) is the two-pass one. */
TEST_F(chain, one_walk_is_the_same_index)
{
	static const unsigned int flags[] = { 0, INK_CHAIN_RANGED, INK_CHAIN_RANGED };
	static const ink_chain_sym_fn keeps[] = { NULL, NULL, not_beta };
	static const uint32_t want_refs[] = { 18, 17, 15 }, want_groups[] = { 2, 2, 1 };
	struct ink_chain_ref all[NR_INSTS];
	uint32_t sym_of[NR_INSTS], n;
	struct index two, one;
	unsigned int i, j;

	for (i = 0; i < 3; i++) {
		build(&two, flags[i], keeps[i]);
		memset(&one, 0, sizeof(one));
		memset(all, 0xff, sizeof(all));
		n = ink_chain_collect(&w.b, flags[i], keeps[i], NULL, one.per_sym,
				      &one.nr_groups, all, sym_of);
		ink_chain_layout(&w.b, one.per_sym, all, sym_of, n, one.groups, one.refs);
		EXPECT_EQ(want_refs[i], n);
		EXPECT_EQ(want_groups[i], one.nr_groups);
		EXPECT_EQ(two.nr_refs, n);
		EXPECT_EQ(two.nr_groups, one.nr_groups);
		for (j = 0; j < one.nr_groups; j++) {
			EXPECT_EQ(two.groups[j].sym, one.groups[j].sym);
			EXPECT_EQ(two.groups[j].first, one.groups[j].first);
			EXPECT_EQ(two.groups[j].count, one.groups[j].count);
		}
		for (j = 0; j < n; j++) {
			EXPECT_EQ(two.refs[j].index, one.refs[j].index);
			EXPECT_EQ(two.refs[j].inst_off, one.refs[j].inst_off);
			EXPECT_EQ(two.refs[j].ext_off, one.refs[j].ext_off);
			EXPECT_EQ(two.refs[j].lo, one.refs[j].lo);
			EXPECT_EQ(two.refs[j].span, one.refs[j].span);
		}
	}
}

/*
 * Each ref spans its instance's ranges, from the lowest start to the highest
 * end (the table above, not the blob): a look-up decodes only those copies.
 */
TEST_F(chain, each_ref_spans_its_ranges)
{
	const struct index *a = &self->all;
	unsigned int i;
	int k;

	for (i = 0; i < a->nr_refs; i++) {
		const struct craft_inst *c = &insts[a->refs[i].index];
		uint32_t lo = 0, hi = 0;

		for (k = 0; k < c->nr_ranges; k++) {
			if (!k || c->start[k] < lo)
				lo = c->start[k];
			if (!k || c->start[k] + c->len[k] > hi)
				hi = c->start[k] + c->len[k];
		}
		EXPECT_EQ((int32_t)lo, a->refs[i].lo);
		EXPECT_EQ(hi - lo, a->refs[i].span);
	}
	/* o1, two ranges: [0x10, 0x40) and [0x80, 0x90); nr, no ranges */
	EXPECT_EQ(0x10, a->refs[0].lo);
	EXPECT_EQ(0x80, a->refs[0].span);
	EXPECT_EQ(10, a->refs[8].index);
	EXPECT_EQ(0, a->refs[8].span);
}

TEST_F(chain, contains_and_total)
{
	struct ink_instance in;
	uint64_t total;
	int64_t first = -7;

	/* o1: [0x10,0x40) [0x80,0x90) */
	ASSERT_TRUE(ink_instance_at(&w.b, self->all.refs[0].inst_off, self->all.refs[0].ext_off,
				    self->all.refs[0].index, &in));
	EXPECT_FALSE(ink_chain_contains(&in, 0xf, &total, &first));
	EXPECT_EQ(0x40, total);
	EXPECT_EQ(0x10, first);
	EXPECT_TRUE(ink_chain_contains(&in, 0x10, &total, NULL));
	EXPECT_TRUE(ink_chain_contains(&in, 0x3f, &total, NULL));
	EXPECT_FALSE(ink_chain_contains(&in, 0x40, &total, NULL));
	EXPECT_FALSE(ink_chain_contains(&in, 0x7f, &total, NULL));
	EXPECT_TRUE(ink_chain_contains(&in, 0x80, &total, NULL));
	EXPECT_TRUE(ink_chain_contains(&in, 0x8f, &total, NULL));
	EXPECT_FALSE(ink_chain_contains(&in, 0x90, &total, NULL));
	EXPECT_FALSE(ink_chain_contains(&in, -0x10, &total, NULL));
	/* nr (refs[8] of alpha): no ranges, first left alone */
	ASSERT_TRUE(ink_instance_at(&w.b, self->all.refs[8].inst_off, self->all.refs[8].ext_off,
				    self->all.refs[8].index, &in));
	EXPECT_EQ(id_of("nr"), in.callee_id);
	first = -7;
	EXPECT_FALSE(ink_chain_contains(&in, 0x30, &total, &first));
	EXPECT_EQ(0, total);
	EXPECT_EQ(-7, first);
}

/*
 * Innermost first: the smallest code, then the latest entry, then the
 * deepest, then the smallest callee id (not blob order, which glibc's
 * qsort(), a merge sort, would keep).
 */
TEST_F(chain, chains_innermost_first)
{
	const struct ink_chain_group *a[] = { self->alpha }, *b[] = { self->beta };
	const struct ink_chain_group *ra[] = { &self->ranged.groups[0] };

	EXPECT_STREQ("w o1", chain(&self->all, a, 1, 0x10, 64));
	EXPECT_STREQ("w o1", chain(&self->all, a, 1, 0x13, 64));
	EXPECT_STREQ("m1 o1", chain(&self->all, a, 1, 0x14, 64));
	EXPECT_STREQ("n1 m1 o1", chain(&self->all, a, 1, 0x21, 64));
	/* the moved copy: 6 bytes inside n1's 8 */
	EXPECT_STREQ("mv n1 m1 o1", chain(&self->all, a, 1, 0x22, 64));
	EXPECT_STREQ("mv n1 m1 o1", chain(&self->all, a, 1, 0x27, 64));
	EXPECT_STREQ("m1 o1", chain(&self->all, a, 1, 0x28, 64));
	EXPECT_STREQ("o1", chain(&self->all, a, 1, 0x30, 64));
	EXPECT_STREQ("o1", chain(&self->all, a, 1, 0x3f, 64));
	EXPECT_STREQ("", chain(&self->all, a, 1, 0x40, 64));
	/* the same code and entry, no depth (an older blob): callee id order */
	EXPECT_STREQ("t1 t2", chain(&self->all, a, 1, 0x55, 64));
	/* the same code and entry: the deepest first (blob order x3 x1 x2) */
	EXPECT_STREQ("x2 x3 x1", chain(&self->all, a, 1, 0xa0, 64));
	EXPECT_STREQ("x2 x3 x1", chain(&self->all, a, 1, 0xaf, 64));
	EXPECT_STREQ("", chain(&self->all, a, 1, 0xb0, 64));
	/* and the same depth: callee id order (blob order y2 y1) */
	EXPECT_STREQ("y1 y2", chain(&self->all, a, 1, 0xc4, 64));
	/* the same code: the later entry first */
	EXPECT_STREQ("k1 k2", chain(&self->all, a, 1, 0x70, 64));
	EXPECT_STREQ("", chain(&self->all, a, 1, 0x6c, 64));
	/* the merged copy in o1's second range */
	EXPECT_STREQ("o1", chain(&self->all, a, 1, 0x80, 64));
	EXPECT_STREQ("mg o1", chain(&self->all, a, 1, 0x84, 64));
	EXPECT_STREQ("o1", chain(&self->all, a, 1, 0x88, 64));
	EXPECT_STREQ("", chain(&self->all, a, 1, 0x90, 64));
	EXPECT_STREQ("", chain(&self->all, a, 1, -1, 64));
	/* beta's own */
	EXPECT_STREQ("o1", chain(&self->all, b, 1, 0, 64));
	EXPECT_STREQ("n1 o1", chain(&self->all, b, 1, 9, 64));
	EXPECT_STREQ("", chain(&self->all, b, 1, 0x20, 64));
	/* the module's index answers the same */
	EXPECT_STREQ("mv n1 m1 o1", chain(&self->ranged, ra, 1, 0x22, 64));
	EXPECT_STREQ("t1 t2", chain(&self->ranged, ra, 1, 0x55, 64));
	EXPECT_STREQ("x2 x3 x1", chain(&self->ranged, ra, 1, 0xa8, 64));
	EXPECT_STREQ("y1 y2", chain(&self->ranged, ra, 1, 0xc7, 64));
}

/* Aliases: one chain over several groups; at most @max, the innermost. */
TEST_F(chain, aliases_and_the_cut)
{
	const struct ink_chain_group *ab[] = { self->alpha, self->beta };
	const struct ink_chain_group *ba[] = { self->beta, self->alpha };
	const struct ink_chain_group *a[] = { self->alpha };

	/* at 0x18: alpha's m1 (0x1c), beta's o1 (0x20), alpha's o1 (0x40) */
	EXPECT_STREQ("m1 o1 o1", chain(&self->all, ab, 2, 0x18, 64));
	EXPECT_STREQ("m1 o1 o1", chain(&self->all, ba, 2, 0x18, 64));
	/* at 9: beta's n1 (8), alpha has nothing there */
	EXPECT_STREQ("n1 o1", chain(&self->all, ab, 2, 9, 64));
	/*
	 * the hits kept are the @max innermost (blob order there: o1 m1 n1
	 * mv), whatever the order found: a look-up with less room gives a
	 * prefix of one with more, whatever room a user gives it
	 */
	EXPECT_STREQ("mv", chain(&self->all, a, 1, 0x22, 1));
	EXPECT_STREQ("mv n1", chain(&self->all, a, 1, 0x22, 2));
	EXPECT_STREQ("mv n1 m1", chain(&self->all, a, 1, 0x22, 3));
	EXPECT_STREQ("mv n1 m1 o1", chain(&self->all, a, 1, 0x22, 4));
	EXPECT_STREQ("", chain(&self->all, a, 1, 0x22, 0));
	/* over two groups: at 0x18, beta's o1 (found first) is not the innermost */
	EXPECT_STREQ("m1", chain(&self->all, ba, 2, 0x18, 1));
	/* the deepest of three with the same code, found last in blob order */
	EXPECT_STREQ("x2", chain(&self->all, a, 1, 0xa0, 1));
}

/* The probed copy, then those around it with more code. */
TEST_F(chain, site_frames)
{
	const struct ink_chain_group *a[] = { self->alpha }, *b[] = { self->beta };
	const struct ink_chain_group *ab[] = { self->alpha, self->beta };

	/* two probed at 0x10: the inner, w */
	EXPECT_STREQ("w o1", site(&self->all, a, 1, 0x10, 16));
	EXPECT_STREQ("m1 o1", site(&self->all, a, 1, 0x14, 16));
	EXPECT_STREQ("n1 m1 o1", site(&self->all, a, 1, 0x20, 16));
	/* probed at 0x24, its code from 0x22: looked up there */
	EXPECT_STREQ("mv n1 m1 o1", site(&self->all, a, 1, 0x24, 16));
	/* twins: the first, and not the other */
	EXPECT_STREQ("t1", site(&self->all, a, 1, 0x50, 16));
	/* nested with the same code and entry: the deepest, and those around it */
	EXPECT_STREQ("x2 x3 x1", site(&self->all, a, 1, 0xa0, 16));
	/* twins at one depth: the smaller callee id, and not the other */
	EXPECT_STREQ("y1", site(&self->all, a, 1, 0xc0, 16));
	/* as much code: only one with an earlier entry is around */
	EXPECT_STREQ("k1 k2", site(&self->all, a, 1, 0x70, 16));
	EXPECT_STREQ("k2", site(&self->all, a, 1, 0x6c, 16));
	EXPECT_STREQ("mg o1", site(&self->all, a, 1, 0x84, 16));
	/* no code of its own: itself alone */
	EXPECT_STREQ("nr", site(&self->all, a, 1, 0x30, 16));
	EXPECT_STREQ("-", site(&self->all, a, 1, 0x31, 16));
	EXPECT_STREQ("-", site(&self->all, a, 1, 0x22, 16));
	EXPECT_STREQ("n1 o1", site(&self->all, b, 1, 8, 16));
	/* over aliases: beta's n1 holds 8..0x10, alpha's none of it */
	EXPECT_STREQ("n1 o1", site(&self->all, ab, 2, 8, 16));
	/* @max */
	EXPECT_STREQ("mv n1", site(&self->all, a, 1, 0x24, 2));
	EXPECT_STREQ("mv", site(&self->all, a, 1, 0x24, 1));
	EXPECT_STREQ("", site(&self->all, a, 1, 0x24, 0));
}

/* The module's way: the probed copy known, looked up at its code's start. */
TEST_F(chain, site_frames_of_a_known_probe)
{
	const struct ink_chain_group *ra[] = { &self->ranged.groups[0] };
	const struct ink_chain_hit m1 = { id_of("m1"), 0x14, 0x1c, 0 };
	const struct ink_chain_hit nr = { id_of("nr"), 0x30, 0, 0 };
	const struct ink_chain_hit t2 = { id_of("t2"), 0x50, 0x10, 0 };
	const struct ink_chain_hit x1 = { id_of("x1"), 0xa0, 0x10, 1 };
	const struct ink_chain_hit x3 = { id_of("x3"), 0xa0, 0x10, 2 };
	const struct ink_chain_hit y2 = { id_of("y2"), 0xc0, 8, 2 };
	struct ink_chain_hit hits[16];
	const char *names[16];

	ASSERT_EQ(2, ink_chain_site(&w.b, &w.btf, self->ranged.refs, ra, 1, &m1, 0x14, hits, 16,
				    names, 16));
	EXPECT_STREQ("m1", names[0]);
	EXPECT_STREQ("o1", names[1]);
	ASSERT_EQ(1, ink_chain_site(&w.b, &w.btf, self->ranged.refs, ra, 1, &nr, 0x30, hits, 16,
				    names, 16));
	EXPECT_STREQ("nr", names[0]);
	/* t2 probed: t1, its twin, is not around it */
	ASSERT_EQ(1, ink_chain_site(&w.b, &w.btf, self->ranged.refs, ra, 1, &t2, 0x50, hits, 16,
				    names, 16));
	EXPECT_STREQ("t2", names[0]);
	/* x3 probed (depth 2): x1 (depth 1) is around it, x2 (3) inside */
	ASSERT_EQ(2, ink_chain_site(&w.b, &w.btf, self->ranged.refs, ra, 1, &x3, 0xa0, hits, 16,
				    names, 16));
	EXPECT_STREQ("x3", names[0]);
	EXPECT_STREQ("x1", names[1]);
	ASSERT_EQ(1, ink_chain_site(&w.b, &w.btf, self->ranged.refs, ra, 1, &x1, 0xa0, hits, 16,
				    names, 16));
	EXPECT_STREQ("x1", names[0]);
	/* y2 probed: y1, at its depth, is not around it */
	ASSERT_EQ(1, ink_chain_site(&w.b, &w.btf, self->ranged.refs, ra, 1, &y2, 0xc0, hits, 16,
				    names, 16));
	EXPECT_STREQ("y2", names[0]);
	/* no groups (no symbol at the address): itself */
	ASSERT_EQ(1, ink_chain_site(&w.b, &w.btf, NULL, ra, 0, &m1, 0x14, hits, 16, names, 16));
	EXPECT_STREQ("m1", names[0]);
	/* room for one hit: the look-up keeps the innermost there, m1 itself */
	ASSERT_EQ(1, ink_chain_site(&w.b, &w.btf, self->ranged.refs, ra, 1, &m1, 0x14, hits, 1,
				    names, 16));
	EXPECT_STREQ("m1", names[0]);
	/* room for two: m1 and o1 around it */
	ASSERT_EQ(2, ink_chain_site(&w.b, &w.btf, self->ranged.refs, ra, 1, &m1, 0x14, hits, 2,
				    names, 16));
	EXPECT_STREQ("o1", names[1]);
	/* @max 1: itself */
	ASSERT_EQ(1, ink_chain_site(&w.b, &w.btf, self->ranged.refs, ra, 1, &m1, 0x14, hits, 16,
				    names, 1));
}

TEST_HARNESS_MAIN
