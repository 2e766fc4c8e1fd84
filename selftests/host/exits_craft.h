/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Malformed EXITS fields (Documentation/blob-format.rst, "Exits") and
 * NO_PROBE records ("Unprobeable instances"), made from a generated raw
 * blob of the target module: one mutation per check of their rules, each
 * with the message and the byte a validator must name.  blob_validate_test runs them through lib/blob.c,
 * blob_model_test through lib/blob.c and the independent model.
 */
#ifndef _INKPROBE_EXITS_CRAFT_H
#define _INKPROBE_EXITS_CRAFT_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../../lib/blob.h"

#define EXITS_CRAFT_MAX	16
#define EXITS_CRAFTS	14	/* what exits_crafts() makes of the target's blob */

struct exits_craft {
	const char *what;
	uint32_t at, len;		/* bytes to write at @at (the blob's offset) */
	uint8_t bytes[8];
	uint32_t at2, len2;		/* and a second write (len2 0: none) */
	uint8_t bytes2[8];
	const char *msg;		/* what the validator says; NULL: it accepts the blob */
	uint32_t msg_at;		/* at which byte */
	bool btf;			/* a refusal of the BTF check, not the structure's */
};

/*
 * The first instance with at least @min exits, each offset and their
 * number one LEB128 byte: where its extension record's EXITS fields are
 * (*@nr_at: the number; the exits follow, two bytes each), and its
 * caller's size.  False when the blob has none.
 */
static inline bool exits_record(const struct ink_blob *b, uint32_t min, uint32_t *nr_at,
				uint32_t *nr, uint32_t *caller_size, uint32_t *flags_at,
				struct ink_instance *rec)
{
	struct ink_instance_iter it;
	struct ink_instance in;
	uint32_t start;

	ink_instance_iter_init(&it, b);
	for (;;) {
		struct ink_exit_iter e;
		uint32_t big = 0;
		int32_t off;
		uint8_t kind;

		start = it.ext_off;
		if (!ink_instance_next(&it, &in))
			return false;
		if (in.nr_exits < min || in.nr_exits > 0x7f)
			continue;
		ink_exit_iter_init(&e, &in);
		while (ink_exit_next(&e, &off, &kind))
			big += off < 0 || off > 0x7f;
		if (big || in.exits_len != 2U * in.nr_exits)
			continue;
		*nr_at = (uint32_t)(in.exits - 1 - b->data);
		*nr = in.nr_exits;
		*caller_size = ink_symbol_size(&b->syms[ink_blob_symbol(b, in.caller_id)]);
		*flags_at = (uint32_t)(b->ext + start - b->data);
		*rec = in;
		return true;
	}
}

static inline void craft(struct exits_craft *c, const char *what, uint32_t at, const void *bytes,
			 uint32_t len, const char *msg, uint32_t msg_at)
{
	c->what = what;
	c->at = at;
	c->len = len;
	memcpy(c->bytes, bytes, len);
	c->at2 = c->len2 = 0;
	c->msg = msg;
	c->msg_at = msg_at;
	c->btf = false;
}

/*
 * Where @in's last range's length is in @b, and that range's start from
 * the caller's start, when each of its fields is one LEB128 byte.
 */
static inline bool last_range(const struct ink_blob *b, const struct ink_instance *in,
			      uint32_t *len_at, int32_t *start, uint32_t *len)
{
	const uint8_t *p = in->ranges;
	int64_t pos = in->entry_offset;
	uint32_t i;

	for (i = 0; i < in->nr_ranges; i++) {
		if ((p[0] & 0x80) || (p[1] & 0x80))
			return false;
		pos += (p[0] & 0x40) ? (int64_t)p[0] - 0x80 : p[0];	/* sleb128 */
		*start = (int32_t)pos;
		*len = p[1];
		*len_at = (uint32_t)(p + 1 - b->data);
		pos += p[1];
		p += 2;
	}
	return in->nr_ranges > 0;
}

/*
 * The mutations of @b's EXITS fields: one for each rule.  Returns how
 * many, 0 if the blob lacks a record to make them from (one with two
 * exits or more, a small caller, and a later extension record).
 */
static inline int exits_crafts(const struct ink_blob *b, struct exits_craft *c)
{
	uint32_t nr_at, nr, size, flags_at, ext_len_at, len_at, len, last;
	struct ink_instance rec;
	int32_t start;
	uint8_t v[8];
	int n = 0;

	if (!exits_record(b, 2, &nr_at, &nr, &size, &flags_at, &rec) || size > 0x7f ||
	    !last_range(b, &rec, &len_at, &start, &len) || start < 0 || (uint32_t)start > size ||
	    size + 1 - start > 0x7f || start + len > size)
		return 0;
	v[0] = 0;
	craft(&c[n++], "no exits", nr_at, v, 1, "bad number of exits", nr_at);
	memset(v, 0x80, 5);
	craft(&c[n++], "a count that never ends", nr_at, v, 5, "bad number of exits", nr_at);
	v[0] = 0x81;	/* 4097: uleb128 0x81 0x20 */
	v[1] = 0x20;
	craft(&c[n++], "4097 exits", nr_at, v, 2, "bad number of exits", nr_at);
	memset(v, 0xff, 5);
	craft(&c[n++], "an offset that never ends", nr_at + 1, v, 5, "bad exit offset", nr_at + 1);
	v[0] = (uint8_t)size;	/* one past the caller's last byte */
	craft(&c[n++], "an offset at the caller's size", nr_at + 1, v, 1,
	      "exit offset outside its caller", nr_at + 1);
	memcpy(v, "\xff\xff\xff\xff\x0f", 5);	/* -1: before the caller, in no range */
	craft(&c[n++], "a negative offset", nr_at + 1, v, 5, "exit offset outside its caller",
	      nr_at + 1);
	/* the last exit at the caller's size: outside it, and outside its ranges... */
	last = nr_at + 1 + 2 * (nr - 1);
	v[0] = (uint8_t)size;
	craft(&c[n++], "the last exit past the caller", last, v, 1,
	      "exit offset outside its caller", last);
	/* ...but inside its last range, grown to it: a NAME.cold part's exit */
	craft(&c[n], "the last exit past the caller, in its own range", last, v, 1, NULL, 0);
	c[n].at2 = len_at;
	c[n].len2 = 1;
	c[n++].bytes2[0] = (uint8_t)(size + 1 - start);
	v[0] = b->data[nr_at + 1];	/* the second exit at the first's offset */
	craft(&c[n++], "two exits at one offset", nr_at + 3, v, 1,
	      "exits not in increasing order", nr_at + 3);
	v[0] = 0;
	craft(&c[n++], "kind 0", nr_at + 2, v, 1, "unknown exit kind", nr_at + 2);
	v[0] = BTF_INLINE_EXIT_KIND_MAX + 1;
	craft(&c[n++], "kind 5", nr_at + 2, v, 1, "unknown exit kind", nr_at + 2);
	v[0] = BTF_INLINE_EXIT_LAND | 0x08;
	craft(&c[n++], "a reserved bit of the kind", nr_at + 2, v, 1,
	      "exit kind reserved bits set", nr_at + 2);
	v[0] = b->data[flags_at] | BTF_INLINE_EXT_OUT_OF_LINE;
	craft(&c[n++], "exits of an out-of-line record", flags_at, v, 1,
	      "exits of an out-of-line instance", flags_at);
	/* the extension subsection ends before the first exit's kind */
	ext_len_at = (uint32_t)((const uint8_t *)b->inl - b->data) + 28;
	{
		uint32_t len = nr_at + 2 - (uint32_t)(b->ext - b->data);

		memcpy(v, &len, 4);
		craft(&c[n++], "the subsection cut before a kind", ext_len_at, v, 4,
		      "truncated exit", nr_at + 2);
	}
	return n;
}

/*
 * The first record whose flags are exactly @flags and whose parameter
 * count is @with_parms > 0 or not: the offsets in the blob of its instance
 * record and of its extension record's flags.  False when there is none.
 */
static inline bool flags_record(const struct ink_blob *b, uint32_t flags, bool with_parms,
				uint32_t *inst_at, uint32_t *flags_at)
{
	struct ink_instance_iter it;
	struct ink_instance in;
	uint32_t start;

	ink_instance_iter_init(&it, b);
	for (;;) {
		start = it.ext_off;
		if (!ink_instance_next(&it, &in))
			return false;
		if (in.flags != flags || !!in.nr_parms != with_parms)
			continue;
		*inst_at = (uint32_t)(in.parm_loc - 14 - b->data);
		*flags_at = (uint32_t)(b->ext + start - b->data);
		return true;
	}
}

#define NO_PROBE_CRAFTS	7

/*
 * The mutations of NO_PROBE flags: one for each rule, on the blob's first
 * NO_PROBE record (nr_parms 0: only its flags can be wrong) and on its first
 * inlined record with parameters.  Returns how many, 0 if the blob lacks
 * either record.
 */
static inline int no_probe_crafts(const struct ink_blob *b, struct exits_craft *c)
{
	const uint8_t np = BTF_INLINE_EXT_NO_PROBE, r = BTF_INLINE_EXT_RANGES;
	uint32_t np_inst, np_at, p_inst, p_at;
	uint8_t v[1];
	int n = 0;

	if (!flags_record(b, np | r, false, &np_inst, &np_at) ||
	    !flags_record(b, r, true, &p_inst, &p_at))
		return 0;
	v[0] = np;
	craft(&c[n++], "no ranges", np_at, v, 1, "unprobeable instance without ranges", np_at);
	v[0] = np | r | BTF_INLINE_EXT_OUT_OF_LINE;
	craft(&c[n++], "out of line", np_at, v, 1, "unprobeable instance out of line", np_at);
	v[0] = np | r | BTF_INLINE_EXT_MOVED_PC;
	craft(&c[n++], "a moved pc", np_at, v, 1, "moved probe pc of an unprobeable instance",
	      np_at);
	v[0] = np | r | BTF_INLINE_EXT_MERGED;
	craft(&c[n++], "merged", np_at, v, 1, "merged unprobeable instance", np_at);
	v[0] = np | r | BTF_INLINE_EXT_EXITS;
	craft(&c[n++], "exits", np_at, v, 1, "exits of an unprobeable instance", np_at);
	v[0] = np | r;
	craft(&c[n++], "parameters", p_at, v, 1, "parameters of an unprobeable instance", p_at);
	/* without the flag, its nr_parms 0 is not the callee's */
	v[0] = r;
	craft(&c[n++], "the flag cleared", np_at, v, 1,
	      "instance parameter count differs from BTF", np_inst + 12);
	c[n - 1].btf = true;
	return n;
}

#endif /* _INKPROBE_EXITS_CRAFT_H */
