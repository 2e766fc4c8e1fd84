// SPDX-License-Identifier: GPL-2.0
/*
 * The blob validator shared by inkprobe.ko and the userspace tool.
 * See blob.h and Documentation/blob-format.rst.
 */
#include "blob.h"

#define MAX_SECTIONS		16
#define LEB_MAX_BYTES		5	/* 32-bit values */

static bool is_access_size(u8 size)
{
	return size == 1 || size == 2 || size == 4 || size == 8;
}

/*
 * The operators' own rules (loc_op.h), then their stack effect: the
 * operands, then underflow, overflow and pieces, each operator as the
 * table says.
 */
int ink_loc_check(const struct ink_blob *b, u32 off, struct ink_err *err)
{
	u32 pos = off, depth = 0, pieces = 0, piece_bytes = 0;
	const struct ink_loc_op_info *info;
	struct ink_loc_op op;

	if (off >= b->loc_len)
		return ink_fail(err, "location offset out of range", off);
	for (;;) {
		u32 avail = b->loc_len - pos;
		u32 n;

		if (pos - off >= LOC_MAX_EXPR_LEN)
			return ink_fail(err, "location expression too long", off);
		if (avail > LOC_MAX_EXPR_LEN - (pos - off))
			avail = LOC_MAX_EXPR_LEN - (pos - off);
		n = ink_loc_decode(b->loc + pos, avail, &op);
		if (!n)
			return ink_fail(err, "bad or unterminated location operator", pos);
		info = &ink_loc_ops[op.op];
		if (info->effect == INK_EFF_END) {
			if (pos == off)
				return 0;	/* empty: unavailable */
			if ((depth == 1 && !pieces) || (depth == 0 && pieces))
				return 0;
			return ink_fail(err, "location expression leaves no single value", pos);
		}
		switch (info->operand) {
		case INK_OPND_REG:
		case INK_OPND_REG_OFF:
			if (op.reg > LOC_MAX_REGISTER)
				return ink_fail(err, "location register out of range", pos);
			break;
		case INK_OPND_SYM_OFF:
			if (op.sym >= b->nr_syms)
				return ink_fail(err, "location symbol out of range", pos);
			break;
		case INK_OPND_SIZE:
			if (!is_access_size(op.size))
				return ink_fail(err, info->effect == INK_EFF_PIECE ?
						"bad piece size" : "bad dereference size", pos);
			break;
		case INK_OPND_SHIFT:
			if (op.val > 63)
				return ink_fail(err, "bad shift count", pos);
			break;
		}
		if (info->effect == INK_EFF_PIECE) {
			if (depth != 1)
				return ink_fail(err, "piece needs exactly one value", pos);
			depth = 0;
			piece_bytes += op.size;
			if (++pieces > LOC_MAX_PIECES || piece_bytes > 8)
				return ink_fail(err, "pieces exceed 8 bytes", pos);
		} else {
			if (depth < info->pops)
				return ink_fail(err, "location stack underflow", pos);
			depth = depth - info->pops + info->pushes;
			if (depth > LOC_MAX_STACK)
				return ink_fail(err, "location stack overflow", pos);
		}
		pos += n;
	}
}

/* [off, off + len) inside [0, total)? */
static bool in_bounds(u64 off, u64 len, u64 total)
{
	return off <= total && len <= total - off;
}

long ink_blob_symbol(const struct ink_blob *b, u32 btf_id)
{
	u32 lo = 0, hi = b->nr_syms;

	while (lo < hi) {
		u32 mid = lo + (hi - lo) / 2;
		u32 id = b->syms[mid].btf_id;

		if (id == btf_id)
			return mid;
		if (id < btf_id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return -1;
}

int ink_blob_check_prefix(const void *data, u32 len, struct ink_err *err)
{
	const struct inkprobe_blob_header *h = data;
	const u32 magic = INKPROBE_BLOB_MAGIC;

	if (memcmp(data, &magic, len < 4 ? len : 4))
		return ink_fail(err, "not an inkprobe blob (bad magic)", 0);
	if (len >= 6 && h->version != INKPROBE_BLOB_VERSION)
		return ink_fail(err, "unsupported blob version", 4);
	if (len >= 8 && h->hdr_len != sizeof(*h))
		return ink_fail(err, "bad blob header length", 6);
	if (len >= 12 && (h->blob_len < sizeof(*h) || h->blob_len > INKPROBE_BLOB_MAX_LEN))
		return ink_fail(err, "blob length out of range", 8);
	if (len >= 16 && (!h->nr_sections || h->nr_sections > MAX_SECTIONS))
		return ink_fail(err, "bad number of blob sections", 12);
	return 0;
}

int ink_blob_check_header(const void *data, u32 len, u32 *blob_len, struct ink_err *err)
{
	const struct inkprobe_blob_header *h = data;
	int ret;

	if (len < sizeof(*h))
		return ink_fail(err, "blob shorter than its header", 0);
	ret = ink_blob_check_prefix(data, sizeof(*h), err);
	if (ret)
		return ret;
	*blob_len = h->blob_len;
	return 0;
}

static int parse_sections(struct ink_blob *b, struct ink_err *err)
{
	const struct inkprobe_blob_header *h = (const void *)b->data;
	const struct inkprobe_blob_section *sec;
	u32 seen = 0, table_end, i, j, blob_len;
	int ret;

	ret = ink_blob_check_header(b->data, b->len, &blob_len, err);
	if (ret)
		return ret;
	if (blob_len != b->len)
		return ink_fail(err, "blob length does not match its header", 8);
	table_end = sizeof(*h) + h->nr_sections * sizeof(*sec);
	if (table_end > b->len)
		return ink_fail(err, "section table out of bounds", 12);
	sec = (const void *)(b->data + sizeof(*h));
	for (i = 0; i < h->nr_sections; i++) {
		u32 at = sizeof(*h) + i * sizeof(*sec);
		const u8 *p;

		if (!sec[i].type || sec[i].type >= INKPROBE_SEC_MAX)
			return ink_fail(err, "unknown section type", at);
		if (seen & (1U << sec[i].type))
			return ink_fail(err, "duplicate section", at);
		seen |= 1U << sec[i].type;
		if (sec[i].flags)
			return ink_fail(err, "section flags must be zero", at + 12);
		if (sec[i].offset % INKPROBE_SECTION_ALIGN || sec[i].offset < table_end ||
		    !in_bounds(sec[i].offset, sec[i].length, b->len))
			return ink_fail(err, "section out of bounds or misaligned", at + 4);
		for (j = 0; j < i; j++)
			if (sec[i].offset < sec[j].offset + sec[j].length &&
			    sec[j].offset < sec[i].offset + sec[i].length)
				return ink_fail(err, "sections overlap", at + 4);
		p = b->data + sec[i].offset;
		switch (sec[i].type) {
		case INKPROBE_SEC_TARGET:
			if (sec[i].length != sizeof(*b->target))
				return ink_fail(err, "bad target section length", at + 8);
			b->target = (const void *)p;
			break;
		case INKPROBE_SEC_BTF:
			b->btf = p;
			b->btf_len = sec[i].length;
			break;
		case INKPROBE_SEC_BTF_INLINE:
			b->inl = (const void *)p;
			b->inst_len = sec[i].length; /* whole section until parsed */
			break;
		case INKPROBE_SEC_SYMBOLS:
			if (sec[i].length % sizeof(*b->syms))
				return ink_fail(err, "bad symbols section length", at + 8);
			b->syms = (const void *)p;
			b->nr_syms = sec[i].length / sizeof(*b->syms);
			break;
		}
	}
	if (!b->target || !b->btf || !b->inl || !b->syms)
		return ink_fail(err, "blob lacks a required section", 12);
	return 0;
}

static bool name_char_ok(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	       (c >= '0' && c <= '9') || c == '_' || c == '-';
}

static int parse_target(struct ink_blob *b, struct ink_err *err)
{
	const struct inkprobe_target *t = b->target;
	u32 base = (u32)((const u8 *)t - b->data), i;

	for (i = 0; i < INKPROBE_TARGET_NAME_LEN && t->name[i]; i++)
		if (!name_char_ok(t->name[i]))
			return ink_fail(err, "bad character in target name", base + i);
	if (!i || i == INKPROBE_TARGET_NAME_LEN)
		return ink_fail(err, "target name empty or unterminated", base);
	if (t->build_id_len > INKPROBE_BUILD_ID_MAX)
		return ink_fail(err, "build ID too long", base + 76);
	if (t->flags)
		return ink_fail(err, "target flags must be zero", base + 96);
	return 0;
}

static int parse_symbols(struct ink_blob *b, struct ink_err *err)
{
	u32 base = (u32)((const u8 *)b->syms - b->data), i;

	for (i = 0; i < b->nr_syms; i++) {
		u32 at = base + i * (u32)sizeof(*b->syms);

		if (i && b->syms[i].btf_id <= b->syms[i - 1].btf_id)
			return ink_fail(err, "symbols not sorted by BTF id", at);
		if (!ink_symbol_size(&b->syms[i]))
			return ink_fail(err, "symbol of size zero", at + 8);
	}
	return 0;
}

static int parse_instances(struct ink_blob *b, u32 sec_off, struct ink_err *err)
{
	u32 off = 0, n = 0, i;

	while (off < b->inst_len) {
		u32 at = sec_off + off, nr, caller, caller_off;
		long s;

		if (b->inst_len - off < BTF_INLINE_INSTANCE_LEN(0))
			return ink_fail(err, "truncated instance record", at);
		nr = ink_get16(b->inst + off + 12);
		if (b->inst_len - off < BTF_INLINE_INSTANCE_LEN(nr))
			return ink_fail(err, "truncated instance parameters", at + 12);
		caller = ink_get32(b->inst + off + 4);
		caller_off = ink_get32(b->inst + off + 8);
		s = ink_blob_symbol(b, caller);
		if (s < 0)
			return ink_fail(err, "instance caller has no symbol", at + 4);
		if (caller_off >= ink_symbol_size(&b->syms[s]))
			return ink_fail(err, "instance offset outside its caller", at + 8);
		for (i = 0; i < nr; i++) {
			u32 loc = ink_get32(b->inst + off + 14 + 4 * i);
			int ret = ink_loc_check(b, loc, err);

			if (ret)
				return ink_fail(err, err ? err->msg : NULL, at + 14 + 4 * i);
		}
		off += BTF_INLINE_INSTANCE_LEN(nr);
		n++;
	}
	b->nr_instances = n;
	return 0;
}

/* Unsigned LEB128 of at most 32 bits; returns its length, 0 if bad. */
static u32 get_uleb(const u8 *p, u32 avail, u32 *v)
{
	u64 val = 0;
	u32 i;

	for (i = 0; i < avail && i < LEB_MAX_BYTES; i++) {
		val |= (u64)(p[i] & 0x7f) << (7 * i);
		if (!(p[i] & 0x80)) {
			if (val > 0xffffffffULL)
				return 0;
			*v = (u32)val;
			return i + 1;
		}
	}
	return 0;
}

/* Signed LEB128 of at most 32 bits. */
static u32 get_sleb(const u8 *p, u32 avail, s32 *v)
{
	u64 val = 0;
	u32 i;

	for (i = 0; i < avail && i < LEB_MAX_BYTES; i++) {
		val |= (u64)(p[i] & 0x7f) << (7 * i);
		if (!(p[i] & 0x80)) {
			s64 sv;

			if (p[i] & 0x40)
				val |= ~0ULL << (7 * (i + 1));
			sv = (s64)val;
			if (sv < -0x80000000LL || sv > 0x7fffffffLL)
				return 0;
			*v = (s32)sv;
			return i + 1;
		}
	}
	return 0;
}

static u32 ext_fail(struct ink_err *err, const char *msg, u32 at)
{
	ink_fail(err, msg, at);
	return 0;
}

/* The RANGES fields at @p (@avail bytes): their length, 0 when bad. */
static u32 ranges_decode(const u8 *p, u32 avail, struct ink_instance *in, u32 at,
			 struct ink_err *err)
{
	u32 pos = 0, n, v, i;
	s64 cur;

	n = get_uleb(p + pos, avail - pos, &v);
	if (!n || !v || v > BTF_INLINE_EXT_MAX_RANGES)
		return ext_fail(err, "bad number of ranges", at + pos);
	in->nr_ranges = (u16)v;
	pos += n;
	in->ranges = p + pos;
	cur = in->entry_offset;
	for (i = 0; i < in->nr_ranges; i++) {
		s32 start;
		u32 len;

		n = get_sleb(p + pos, avail - pos, &start);
		if (!n)
			return ext_fail(err, "bad range start", at + pos);
		pos += n;
		cur += start;
		n = get_uleb(p + pos, avail - pos, &len);
		if (!n || !len || cur < -0x80000000LL || cur + len > 0x7fffffffLL)
			return ext_fail(err, "bad range", at + pos);
		pos += n;
		cur += len;
	}
	in->ranges_len = (u32)(p + pos - in->ranges);
	return pos;
}

/*
 * The MERGED fields at @p (@avail bytes) of instance record @inst: the
 * number of calls, then the ambiguous parameters, each one < nr_parms, in
 * increasing order and with the empty expression.  Returns their length.
 */
static u32 merged_decode(const u8 *p, u32 avail, const u8 *inst, struct ink_instance *in,
			 u32 at, struct ink_err *err)
{
	u32 nr_parms = ink_get16(inst + 12), pos, n, v, i, prev = 0;

	n = get_uleb(p, avail, &v);
	if (!n || v < 2)
		return ext_fail(err, "bad number of merged calls", at);
	in->merged_calls = v;
	pos = n;
	n = get_uleb(p + pos, avail - pos, &v);
	if (!n || v > nr_parms)
		return ext_fail(err, "bad number of ambiguous parameters", at + pos);
	in->nr_ambiguous = (u16)v;
	pos += n;
	in->ambiguous = p + pos;
	for (i = 0; i < in->nr_ambiguous; i++) {
		n = get_uleb(p + pos, avail - pos, &v);
		if (!n || v >= nr_parms || (i && v <= prev))
			return ext_fail(err, "bad ambiguous parameter index", at + pos);
		if (ink_get32(inst + 14 + 4 * v))
			return ext_fail(err, "ambiguous parameter has a location", at + pos);
		prev = v;
		pos += n;
	}
	return pos;
}

/* Is @off (from the caller's start) inside one of @in's ranges? */
static bool in_own_ranges(const struct ink_instance *in, s32 off)
{
	struct ink_range_iter it;
	s32 start;
	u32 len;

	ink_range_iter_init(&it, in);
	while (ink_range_next(&it, &start, &len))
		if ((s64)off >= start && (s64)off < (s64)start + len)
			return true;
	return false;
}

/*
 * The EXITS fields at @p (@avail bytes): the number of exits, then each
 * exit's offset (a u32 read as s32: inside the caller's symbol of
 * @caller_size bytes, or inside one of the instance's own ranges, which
 * were decoded before; increasing as s32) and kind (known, reserved bits
 * 0).  Returns their length.
 */
static u32 exits_decode(const u8 *p, u32 avail, u32 caller_size, struct ink_instance *in,
			u32 at, struct ink_err *err)
{
	u32 pos, n, v, i;
	s32 off, prev = 0;

	n = get_uleb(p, avail, &v);
	if (!n || !v || v > BTF_INLINE_EXT_MAX_EXITS)
		return ext_fail(err, "bad number of exits", at);
	in->nr_exits = (u16)v;
	pos = n;
	in->exits = p + pos;
	for (i = 0; i < in->nr_exits; i++) {
		n = get_uleb(p + pos, avail - pos, &v);
		if (!n)
			return ext_fail(err, "bad exit offset", at + pos);
		off = (s32)v;
		if (err && (off < 0 || (u32)off >= caller_size) && !in_own_ranges(in, off))
			return ext_fail(err, "exit offset outside its caller", at + pos);
		if (i && off <= prev)
			return ext_fail(err, "exits not in increasing order", at + pos);
		prev = off;
		pos += n;
		if (pos >= avail)
			return ext_fail(err, "truncated exit", at + pos);
		if (p[pos] & ~BTF_INLINE_EXIT_KIND_MASK)
			return ext_fail(err, "exit kind reserved bits set", at + pos);
		if (!p[pos] || p[pos] > BTF_INLINE_EXIT_KIND_MAX)
			return ext_fail(err, "unknown exit kind", at + pos);
		pos++;
	}
	in->exits_len = (u32)(p + pos - in->exits);
	return pos;
}

/*
 * Decodes the extension record at @p (@avail bytes) of the instance record
 * at @inst; checks every field when @err is given (the caller's symbol in
 * @b then holds every exit).  Returns the record's length, or 0 (with @err
 * set) when it is bad.
 */
static u32 ext_decode(const struct ink_blob *b, const u8 *p, u32 avail, const u8 *inst,
		      struct ink_instance *in, u32 at, struct ink_err *err)
{
	u32 caller_off = ink_get32(inst + 8), pos = 1, n, v;

	if (!avail)
		return ext_fail(err, "truncated extension record", at);
	in->flags = p[0];
	in->entry_offset = caller_off;
	in->nr_ranges = 0;
	in->ranges = NULL;
	in->ranges_len = 0;
	in->merged_calls = 0;
	in->nr_ambiguous = 0;
	in->ambiguous = NULL;
	in->nr_exits = 0;
	in->exits = NULL;
	in->exits_len = 0;
	in->depth = 0;
	/* every bit of the flags byte has a meaning: none is unknown */
	if ((in->flags & BTF_INLINE_EXT_SPLIT_PART) && !(in->flags & BTF_INLINE_EXT_OUT_OF_LINE))
		return ext_fail(err, "split part not out of line", at);
	if ((in->flags & BTF_INLINE_EXT_MERGED) && (in->flags & BTF_INLINE_EXT_OUT_OF_LINE))
		return ext_fail(err, "merged instance out of line", at);
	if ((in->flags & BTF_INLINE_EXT_EXITS) && (in->flags & BTF_INLINE_EXT_OUT_OF_LINE))
		return ext_fail(err, "exits of an out-of-line instance", at);
	if (in->flags & BTF_INLINE_EXT_NO_PROBE) {
		/* ranges only: nothing a probe would need */
		if (!(in->flags & BTF_INLINE_EXT_RANGES))
			return ext_fail(err, "unprobeable instance without ranges", at);
		if (in->flags & BTF_INLINE_EXT_OUT_OF_LINE)
			return ext_fail(err, "unprobeable instance out of line", at);
		if (in->flags & BTF_INLINE_EXT_MOVED_PC)
			return ext_fail(err, "moved probe pc of an unprobeable instance", at);
		if (in->flags & BTF_INLINE_EXT_MERGED)
			return ext_fail(err, "merged unprobeable instance", at);
		if (in->flags & BTF_INLINE_EXT_EXITS)
			return ext_fail(err, "exits of an unprobeable instance", at);
		if (ink_get16(inst + 12))
			return ext_fail(err, "parameters of an unprobeable instance", at);
	}
	if (in->flags & BTF_INLINE_EXT_DEPTH) {
		/* a depth orders copies by their code: an inlined one's */
		if (!(in->flags & BTF_INLINE_EXT_RANGES))
			return ext_fail(err, "depth of an instance without ranges", at);
		if (in->flags & BTF_INLINE_EXT_OUT_OF_LINE)
			return ext_fail(err, "depth of an out-of-line instance", at);
	}
	if (in->flags & BTF_INLINE_EXT_MOVED_PC) {
		n = get_uleb(p + pos, avail - pos, &v);
		if (!n || !v || v > caller_off)
			return ext_fail(err, "bad moved probe pc", at + pos);
		in->entry_offset = caller_off - v;
		pos += n;
	}
	if (in->flags & BTF_INLINE_EXT_RANGES) {
		n = ranges_decode(p + pos, avail - pos, in, at + pos, err);
		if (!n)
			return 0;
		pos += n;
	}
	if (in->flags & BTF_INLINE_EXT_MERGED) {
		n = merged_decode(p + pos, avail - pos, inst, in, at + pos, err);
		if (!n)
			return 0;
		pos += n;
	}
	if (in->flags & BTF_INLINE_EXT_EXITS) {
		/* parse_instances() found the caller's symbol */
		u32 size = err ? ink_symbol_size(&b->syms[ink_blob_symbol(b, ink_get32(inst + 4))]) :
			   0xffffffffU;

		n = exits_decode(p + pos, avail - pos, size, in, at + pos, err);
		if (!n)
			return 0;
		pos += n;
	}
	if (in->flags & BTF_INLINE_EXT_DEPTH) {
		if (pos >= avail || !p[pos])
			return ext_fail(err, "bad inline depth", at + pos);
		in->depth = p[pos++];
	}
	return pos;
}

static int parse_ext(struct ink_blob *b, u32 sec_off, struct ink_err *err)
{
	u32 off = 0, inst_off = 0, n = 0;
	struct ink_instance in;

	while (off < b->ext_len) {
		u32 len;

		if (n >= b->nr_instances)
			return ink_fail(err, "more extension records than instances",
					sec_off + off);
		len = ext_decode(b, b->ext + off, b->ext_len - off, b->inst + inst_off, &in,
				 sec_off + off, err);
		if (!len)
			return -EINVAL;
		inst_off += BTF_INLINE_INSTANCE_LEN(ink_get16(b->inst + inst_off + 12));
		off += len;
		n++;
	}
	if (n != b->nr_instances)
		return ink_fail(err, "extension records do not match instances", sec_off);
	return 0;
}

int ink_blob_parse(struct ink_blob *b, const void *data, u32 len, struct ink_err *err)
{
	const struct btf_inline_header *h;
	u32 sec_off, sec_len, hl;
	int ret;

	memset(b, 0, sizeof(*b));
	b->data = data;
	b->len = len;
	ret = parse_sections(b, err);
	if (!ret)
		ret = parse_target(b, err);
	if (!ret)
		ret = parse_symbols(b, err);
	if (ret)
		return ret;

	h = b->inl;
	sec_off = (u32)((const u8 *)h - b->data);
	sec_len = b->inst_len;
	if (sec_len < BTF_INLINE_HDR_LEN_V0)
		return ink_fail(err, ".BTF.inline shorter than its header", sec_off);
	if (h->magic != BTF_INLINE_MAGIC)
		return ink_fail(err, "bad .BTF.inline magic", sec_off);
	if (h->version != BTF_INLINE_VERSION)
		return ink_fail(err, "unsupported .BTF.inline version", sec_off + 2);
	if (h->flags)
		return ink_fail(err, ".BTF.inline flags must be zero", sec_off + 3);
	hl = h->hdr_len;
	if (hl < BTF_INLINE_HDR_LEN_V0 || hl > sec_len || hl % 4)
		return ink_fail(err, "bad .BTF.inline header length", sec_off + 4);
	if (!in_bounds(h->inline_info_off, h->inline_info_len, sec_len - hl))
		return ink_fail(err, "inline info subsection out of bounds", sec_off + 8);
	if (!in_bounds(h->loc_off, h->loc_len, sec_len - hl))
		return ink_fail(err, "location subsection out of bounds", sec_off + 16);
	b->inst = (const u8 *)h + hl + h->inline_info_off;
	b->inst_len = h->inline_info_len;
	b->loc = (const u8 *)h + hl + h->loc_off;
	b->loc_len = h->loc_len;
	if (!b->loc_len || b->loc[0] != LOC_END_OF_EXPR)
		return ink_fail(err, "location subsection must start with an empty expression",
				sec_off + 16);
	if (hl >= sizeof(*h) && h->ext_len) {
		if (!in_bounds(h->ext_off, h->ext_len, sec_len - hl))
			return ink_fail(err, "extension subsection out of bounds", sec_off + 24);
		b->ext = (const u8 *)h + hl + h->ext_off;
		b->ext_len = h->ext_len;
	}
	ret = parse_instances(b, sec_off + hl + h->inline_info_off, err);
	if (!ret && b->ext)
		ret = parse_ext(b, sec_off + hl + h->ext_off, err);
	return ret;
}

int ink_blob_check_btf(const struct ink_blob *b, const struct ink_btf *btf,
		       struct ink_err *err)
{
	struct ink_instance_iter it;
	struct ink_instance in;
	u32 base = (u32)((const u8 *)b->syms - b->data), i;

	for (i = 0; i < b->nr_syms; i++) {
		const struct btf_type *t = ink_btf_type(btf, b->syms[i].btf_id);

		if (!t || (ink_btf_kind(t) != BTF_KIND_FUNC && ink_btf_kind(t) != BTF_KIND_VAR) ||
		    !*ink_btf_str(btf, t->name_off))
			return ink_fail(err, "symbol is not a named BTF FUNC/VAR",
					base + i * (u32)sizeof(*b->syms));
	}
	ink_instance_iter_init(&it, b);
	while (ink_instance_next(&it, &in)) {
		const struct btf_type *proto = ink_btf_func_proto(btf, in.callee_id);
		u32 at = (u32)(in.parm_loc - 14 - b->data);

		if (!proto)
			return ink_fail(err, "instance callee is not a BTF FUNC", at);
		/* an unprobeable instance has none (ext_decode()) */
		if (ink_btf_vlen(proto) != in.nr_parms && !(in.flags & BTF_INLINE_EXT_NO_PROBE))
			return ink_fail(err, "instance parameter count differs from BTF", at + 12);
		if (!ink_btf_func_proto(btf, in.caller_id))
			return ink_fail(err, "instance caller is not a BTF FUNC", at + 4);
	}
	return 0;
}

void ink_instance_iter_init(struct ink_instance_iter *it, const struct ink_blob *b)
{
	it->b = b;
	it->inst_off = 0;
	it->ext_off = 0;
	it->index = 0;
}

bool ink_instance_next(struct ink_instance_iter *it, struct ink_instance *in)
{
	const struct ink_blob *b = it->b;
	const u8 *p;

	if (it->index >= b->nr_instances)
		return false;
	p = b->inst + it->inst_off;
	in->callee_id = ink_get32(p);
	in->caller_id = ink_get32(p + 4);
	in->caller_offset = ink_get32(p + 8);
	in->nr_parms = ink_get16(p + 12);
	in->parm_loc = p + 14;
	it->inst_off += BTF_INLINE_INSTANCE_LEN(in->nr_parms);
	if (b->ext) {
		/* validated by ink_blob_parse(): cannot fail */
		it->ext_off += ext_decode(b, b->ext + it->ext_off, b->ext_len - it->ext_off,
					  p, in, 0, NULL);
	} else {
		in->entry_offset = in->caller_offset;
		in->flags = 0;
		in->nr_ranges = 0;
		in->ranges = NULL;
		in->ranges_len = 0;
		in->merged_calls = 0;
		in->nr_ambiguous = 0;
		in->ambiguous = NULL;
		in->nr_exits = 0;
		in->exits = NULL;
		in->exits_len = 0;
		in->depth = 0;
	}
	it->index++;
	return true;
}

bool ink_parm_ambiguous(const struct ink_instance *in, u32 parm)
{
	const u8 *p = in->ambiguous;
	u32 i, n, v;

	for (i = 0; i < in->nr_ambiguous; i++) {
		n = get_uleb(p, LEB_MAX_BYTES, &v);
		if (!n)
			return false;	/* not on a validated blob */
		if (v == parm)
			return true;
		p += n;
	}
	return false;
}

void ink_range_iter_init(struct ink_range_iter *it, const struct ink_instance *in)
{
	it->p = in->ranges;
	it->left = in->ranges_len;
	it->pos = in->entry_offset;
	it->nr = in->nr_ranges;
}

bool ink_range_next(struct ink_range_iter *it, s32 *start, u32 *len)
{
	u32 n, m;
	s32 d;

	if (!it->nr)
		return false;
	n = get_sleb(it->p, it->left, &d);
	m = n ? get_uleb(it->p + n, it->left - n, len) : 0;
	if (!m)
		return false;	/* not on a validated blob */
	it->p += n + m;
	it->left -= n + m;
	it->pos += d;
	*start = (s32)it->pos;
	it->pos += *len;
	it->nr--;
	return true;
}

void ink_exit_iter_init(struct ink_exit_iter *it, const struct ink_instance *in)
{
	it->p = in->exits;
	it->left = in->exits_len;
	it->nr = in->nr_exits;
}

bool ink_exit_next(struct ink_exit_iter *it, s32 *offset, u8 *kind)
{
	u32 n, v;

	if (!it->nr)
		return false;
	n = get_uleb(it->p, it->left, &v);
	if (!n || n >= it->left)
		return false;	/* not on a validated blob */
	*offset = (s32)v;
	*kind = it->p[n];
	it->p += n + 1;
	it->left -= n + 1;
	it->nr--;
	return true;
}
