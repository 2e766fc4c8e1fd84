// SPDX-License-Identifier: GPL-2.0
/*
 * An independent model of inkprobe.ko's verdict on a raw blob (see
 * blob_model.h): Documentation/blob-format.rst read again, field by field,
 * in the order its "Refusals" table gives, with the kernel's BTF format
 * (Documentation/bpf/btf.rst of the kernel).  No code, header or constant
 * is taken from lib/ or uapi/.
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "blob_model.h"

/* blob-format.rst: the container */
#define MAGIC		0x424b4e49u	/* "INKB" */
#define HDR_LEN		16
#define MAX_LEN		(256u << 20)
#define MAX_SECTIONS	16
#define SEC_TARGET	1
#define SEC_BTF		2
#define SEC_INLINE	3
#define SEC_SYMBOLS	4
#define TARGET_LEN	112
#define SYMBOL_LEN	12
/* .BTF.inline */
#define INL_MAGIC	0xeb1e
#define INL_HDR_V0	24
#define INL_HDR		32
#define INST_LEN(n)	(14u + 4u * (n))
/* location expressions */
#define EXPR_MAX	64
#define STACK_MAX	4
#define REG_MAX		15
#define NR_OPS		25
/* the kernel's BTF */
#define BTF_MAGIC_	0xeb9f
#define BTF_HDR_MIN	24
#define BTF_TYPE_LEN	12
#define BTF_MAX_TYPE_	0x000fffffu
#define BTF_MAX_STR	0x00ffffffu

static char msg[512];

static uint16_t le16(const uint8_t *p)
{
	return (uint16_t)(p[0] | p[1] << 8);
}

static uint32_t le32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
	       (uint32_t)p[3] << 24;
}

static const char *fail(const char *what, uint64_t at)
{
	snprintf(msg, sizeof(msg), "invalid blob: %s at byte %llu", what, (unsigned long long)at);
	return msg;
}

static const char *fail_btf(const char *what, uint64_t at)
{
	snprintf(msg, sizeof(msg), "invalid blob BTF: %s at byte %llu", what,
		 (unsigned long long)at);
	return msg;
}

/* [off, off + len) inside [0, total)? */
static bool inside(uint64_t off, uint64_t len, uint64_t total)
{
	return off <= total && len <= total - off;
}

/* ---- the container header, field by field as it arrives ---- */

const char *model_prefix(const uint8_t *d, size_t len)
{
	static const uint8_t magic[4] = { 'I', 'N', 'K', 'B' };
	uint32_t v;

	msg[0] = '\0';
	if (memcmp(d, magic, len < 4 ? len : 4))
		return fail("not an inkprobe blob (bad magic)", 0);
	if (len >= 6 && le16(d + 4) != 1)
		return fail("unsupported blob version", 4);
	if (len >= 8 && le16(d + 6) != HDR_LEN)
		return fail("bad blob header length", 6);
	if (len >= 12) {
		v = le32(d + 8);
		if (v < HDR_LEN || v > MAX_LEN)
			return fail("blob length out of range", 8);
	}
	if (len >= 16) {
		v = le32(d + 12);
		if (!v || v > MAX_SECTIONS)
			return fail("bad number of blob sections", 12);
	}
	return msg;
}

/* ---- the parts ---- */

struct blob {
	const uint8_t *d;
	uint32_t len;
	uint32_t sec_off[5], sec_len[5];	/* by type */
	uint32_t nr_syms;
	uint32_t inl, hl, inst, inst_len, loc, loc_len, ext, ext_len;
	uint32_t nr_inst;
};

static const char *sections(struct blob *b)
{
	const uint8_t *d = b->d;
	uint32_t n = le32(d + 12), end = HDR_LEN + 16 * n, i, j, seen = 0;

	if (le32(d + 8) != b->len)
		return fail("blob length does not match its header", 8);
	if (end > b->len)
		return fail("section table out of bounds", 12);
	for (i = 0; i < n; i++) {
		uint32_t at = HDR_LEN + 16 * i, type = le32(d + at), off = le32(d + at + 4);
		uint32_t len = le32(d + at + 8);

		if (type < SEC_TARGET || type > SEC_SYMBOLS)
			return fail("unknown section type", at);
		if (seen & 1u << type)
			return fail("duplicate section", at);
		seen |= 1u << type;
		if (le32(d + at + 12))
			return fail("section flags must be zero", at + 12);
		if (off % 8 || off < end || !inside(off, len, b->len))
			return fail("section out of bounds or misaligned", at + 4);
		for (j = 0; j < i; j++) {
			uint32_t o2 = le32(d + HDR_LEN + 16 * j + 4);
			uint32_t l2 = le32(d + HDR_LEN + 16 * j + 8);

			if ((uint64_t)off < (uint64_t)o2 + l2 && (uint64_t)o2 < (uint64_t)off + len)
				return fail("sections overlap", at + 4);
		}
		if (type == SEC_TARGET && len != TARGET_LEN)
			return fail("bad target section length", at + 8);
		if (type == SEC_SYMBOLS && len % SYMBOL_LEN)
			return fail("bad symbols section length", at + 8);
		b->sec_off[type] = off;
		b->sec_len[type] = len;
	}
	if ((seen & 0x1e) != 0x1e)
		return fail("blob lacks a required section", 12);
	b->nr_syms = b->sec_len[SEC_SYMBOLS] / SYMBOL_LEN;
	return NULL;
}

static bool name_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       c == '_' || c == '-';
}

static const char *target(struct blob *b)
{
	uint32_t t = b->sec_off[SEC_TARGET], i;

	for (i = 0; i < 56 && b->d[t + i]; i++)
		if (!name_char((char)b->d[t + i]))
			return fail("bad character in target name", t + i);
	if (!i || i == 56)
		return fail("target name empty or unterminated", t);
	if (le32(b->d + t + 76) > 20)
		return fail("build ID too long", t + 76);
	if (le32(b->d + t + 96))
		return fail("target flags must be zero", t + 96);
	return NULL;
}

static uint32_t sym_id(const struct blob *b, uint32_t i)
{
	return le32(b->d + b->sec_off[SEC_SYMBOLS] + SYMBOL_LEN * i);
}

static uint32_t sym_size(const struct blob *b, uint32_t i)
{
	return le32(b->d + b->sec_off[SEC_SYMBOLS] + SYMBOL_LEN * i + 8) & 0xffffff;
}

static const char *symbols(struct blob *b)
{
	uint32_t i, at;

	for (i = 0; i < b->nr_syms; i++) {
		at = b->sec_off[SEC_SYMBOLS] + SYMBOL_LEN * i;
		if (i && sym_id(b, i) <= sym_id(b, i - 1))
			return fail("symbols not sorted by BTF id", at);
		if (!sym_size(b, i))
			return fail("symbol of size zero", at + 8);
	}
	return NULL;
}

/* The SYMBOLS entry of BTF id @id (they are sorted), or -1. */
static long find_sym(const struct blob *b, uint32_t id)
{
	uint32_t i;

	for (i = 0; i < b->nr_syms; i++)
		if (sym_id(b, i) == id)
			return i;
	return -1;
}

/* operand bytes of each operator (blob-format.rst, "Location expressions") */
static const uint8_t operand_len[NR_OPS] = {
	0, 1, 2, 4, 8, 1, 2, 4, 8, 1, 9, 1, 8, 1, 0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1,
};

/*
 * The expression at @off of the location subsection: NULL, or the message
 * (its own offset is replaced by the instance's parameter slot: *@what).
 */
static const char *expression(const struct blob *b, uint32_t off)
{
	const uint8_t *loc = b->d + b->loc;
	uint32_t pos = off, depth = 0, pieces = 0, bytes = 0;

	if (off >= b->loc_len)
		return "location offset out of range";
	for (;;) {
		uint32_t avail = b->loc_len - pos, op;

		if (pos - off >= EXPR_MAX)
			return "location expression too long";
		if (avail > EXPR_MAX - (pos - off))
			avail = EXPR_MAX - (pos - off);
		op = loc[pos];
		if (op >= NR_OPS || 1u + operand_len[op] > avail)
			return "bad or unterminated location operator";
		if (op == 0) {
			if (pos == off || (depth == 1 && !pieces) || (depth == 0 && pieces))
				return NULL;
			return "location expression leaves no single value";
		}
		if ((op == 9 || op == 10) && loc[pos + 1] > REG_MAX)
			return "location register out of range";
		if (op == 12 && le32(loc + pos + 1) >= b->nr_syms)
			return "location symbol out of range";
		if (op == 11 || op == 13) {
			uint8_t s = loc[pos + 1];

			if (s != 1 && s != 2 && s != 4 && s != 8)
				return op == 13 ? "bad piece size" : "bad dereference size";
		}
		if (op >= 22 && loc[pos + 1] > 63)
			return "bad shift count";
		if (op == 13) {
			if (depth != 1)
				return "piece needs exactly one value";
			depth = 0;
			bytes += loc[pos + 1];
			if (++pieces > 8 || bytes > 8)
				return "pieces exceed 8 bytes";
		} else {
			/* what each pops: constants, registers, symbols none;
			 * DEREF and the unary ones one; ADD..XOR two
			 */
			uint32_t pops = op >= 14 && op <= 19 ? 2 : op == 11 || op >= 20 ? 1 : 0;

			if (depth < pops)
				return "location stack underflow";
			depth = depth - pops + 1;
			if (depth > STACK_MAX)
				return "location stack overflow";
		}
		pos += 1 + operand_len[op];
	}
}

static const char *inline_section(struct blob *b)
{
	const uint8_t *d = b->d;
	uint32_t s = b->sec_off[SEC_INLINE], len = b->sec_len[SEC_INLINE], hl, off = 0, i;

	if (len < INL_HDR_V0)
		return fail(".BTF.inline shorter than its header", s);
	if (le16(d + s) != INL_MAGIC)
		return fail("bad .BTF.inline magic", s);
	if (d[s + 2] != 1)
		return fail("unsupported .BTF.inline version", s + 2);
	if (d[s + 3])
		return fail(".BTF.inline flags must be zero", s + 3);
	hl = le32(d + s + 4);
	if (hl < INL_HDR_V0 || hl > len || hl % 4)
		return fail("bad .BTF.inline header length", s + 4);
	if (!inside(le32(d + s + 8), le32(d + s + 12), len - hl))
		return fail("inline info subsection out of bounds", s + 8);
	if (!inside(le32(d + s + 16), le32(d + s + 20), len - hl))
		return fail("location subsection out of bounds", s + 16);
	b->inl = s;
	b->hl = hl;
	b->inst = s + hl + le32(d + s + 8);
	b->inst_len = le32(d + s + 12);
	b->loc = s + hl + le32(d + s + 16);
	b->loc_len = le32(d + s + 20);
	if (!b->loc_len || d[b->loc])
		return fail("location subsection must start with an empty expression", s + 16);
	b->ext_len = 0;
	if (hl >= INL_HDR && le32(d + s + 28)) {
		if (!inside(le32(d + s + 24), le32(d + s + 28), len - hl))
			return fail("extension subsection out of bounds", s + 24);
		b->ext = s + hl + le32(d + s + 24);
		b->ext_len = le32(d + s + 28);
	}
	/* the instance records */
	b->nr_inst = 0;
	while (off < b->inst_len) {
		uint32_t at = b->inst + off, nr;
		long sym;

		if (b->inst_len - off < INST_LEN(0))
			return fail("truncated instance record", at);
		nr = le16(d + at + 12);
		if (b->inst_len - off < INST_LEN(nr))
			return fail("truncated instance parameters", at + 12);
		sym = find_sym(b, le32(d + at + 4));
		if (sym < 0)
			return fail("instance caller has no symbol", at + 4);
		if (le32(d + at + 8) >= sym_size(b, (uint32_t)sym))
			return fail("instance offset outside its caller", at + 8);
		for (i = 0; i < nr; i++) {
			const char *why = expression(b, le32(d + at + 14 + 4 * i));

			if (why)
				return fail(why, at + 14 + 4 * i);
		}
		off += INST_LEN(nr);
		b->nr_inst++;
	}
	return NULL;
}

/* LEB128 of at most 5 bytes and 32 bits; its length, 0 when bad. */
static uint32_t uleb(const uint8_t *p, uint32_t avail, uint32_t *v)
{
	uint64_t val = 0;
	uint32_t i;

	for (i = 0; i < avail && i < 5; i++) {
		val |= (uint64_t)(p[i] & 0x7f) << (7 * i);
		if (!(p[i] & 0x80)) {
			if (val > 0xffffffffu)
				return 0;
			*v = (uint32_t)val;
			return i + 1;
		}
	}
	return 0;
}

static uint32_t sleb(const uint8_t *p, uint32_t avail, int64_t *v)
{
	uint64_t val = 0;
	uint32_t i;

	for (i = 0; i < avail && i < 5; i++) {
		val |= (uint64_t)(p[i] & 0x7f) << (7 * i);
		if (!(p[i] & 0x80)) {
			int64_t sv;

			if (p[i] & 0x40)
				val |= ~0ULL << (7 * (i + 1));
			sv = (int64_t)val;
			if (sv < -0x80000000LL || sv > 0x7fffffffLL)
				return 0;
			*v = sv;
			return i + 1;
		}
	}
	return 0;
}

/*
 * The number of entries of a list (RANGES, EXITS: 1 to 4096) at @p + *@pos,
 * *@pos moved past it; false, *@pos where it was, when bad.
 */
static bool list_len(const uint8_t *p, uint32_t *pos, uint32_t avail, uint32_t *nr)
{
	uint32_t n = uleb(p + *pos, avail - *pos, nr);

	if (!n || !*nr || *nr > 4096)
		return false;
	*pos += n;
	return true;
}

/* One extension record at @at of instance @inst: its length, or 0 and *@why. */
static uint32_t ext_record(const struct blob *b, uint32_t at, uint32_t avail, uint32_t inst,
			   const char **why, uint32_t *why_at)
{
	const uint8_t *d = b->d, *p = d + at;
	uint32_t flags = p[0], caller_off = le32(d + inst + 8), nr_parms = le16(d + inst + 12);
	uint32_t pos = 1, n, v, i, prev = 0, nr_rs = 0;
	int64_t cur = caller_off, start, rs[4096][2], off, prev_off = 0;

#define BAD(m, o) do { *why = (m); *why_at = (o); return 0; } while (0)
	/* all eight bits of the flags byte have a meaning */
	if ((flags & 8) && !(flags & 1))
		BAD("split part not out of line", at);
	if ((flags & 16) && (flags & 1))
		BAD("merged instance out of line", at);
	if ((flags & 32) && (flags & 1))
		BAD("exits of an out-of-line instance", at);
	/* NO_PROBE: ranges alone, in the table's order */
	if ((flags & 64) && !(flags & 4))
		BAD("unprobeable instance without ranges", at);
	if ((flags & 64) && (flags & 1))
		BAD("unprobeable instance out of line", at);
	if ((flags & 64) && (flags & 2))
		BAD("moved probe pc of an unprobeable instance", at);
	if ((flags & 64) && (flags & 16))
		BAD("merged unprobeable instance", at);
	if ((flags & 64) && (flags & 32))
		BAD("exits of an unprobeable instance", at);
	if ((flags & 64) && nr_parms)
		BAD("parameters of an unprobeable instance", at);
	/* DEPTH: an inlined copy's, with ranges */
	if ((flags & 128) && !(flags & 4))
		BAD("depth of an instance without ranges", at);
	if ((flags & 128) && (flags & 1))
		BAD("depth of an out-of-line instance", at);
	if (flags & 2) {
		n = uleb(p + pos, avail - pos, &v);
		if (!n || !v || v > caller_off)
			BAD("bad moved probe pc", at + pos);
		cur = caller_off - v;
		pos += n;
	}
	if (flags & 4) {
		uint32_t nr;

		if (!list_len(p, &pos, avail, &nr))
			BAD("bad number of ranges", at + pos);
		for (i = 0; i < nr; i++) {
			n = sleb(p + pos, avail - pos, &start);
			if (!n)
				BAD("bad range start", at + pos);
			pos += n;
			cur += start;
			n = uleb(p + pos, avail - pos, &v);
			if (!n || !v || cur < -0x80000000LL || cur + v > 0x7fffffffLL)
				BAD("bad range", at + pos);
			pos += n;
			if (nr_rs < 4096) {
				rs[nr_rs][0] = cur;
				rs[nr_rs++][1] = cur + v;
			}
			cur += v;
		}
	}
	if (flags & 16) {
		n = uleb(p + pos, avail - pos, &v);
		if (!n || v < 2)
			BAD("bad number of merged calls", at + pos);
		pos += n;
		n = uleb(p + pos, avail - pos, &v);
		if (!n || v > nr_parms)
			BAD("bad number of ambiguous parameters", at + pos);
		pos += n;
		for (i = 0, n = v; i < n; i++) {
			uint32_t m = uleb(p + pos, avail - pos, &v);

			if (!m || v >= nr_parms || (i && v <= prev))
				BAD("bad ambiguous parameter index", at + pos);
			if (le32(d + inst + 14 + 4 * v))
				BAD("ambiguous parameter has a location", at + pos);
			prev = v;
			pos += m;
		}
	}
	if (flags & 32) {
		/* the instance's caller has a symbol: the instances were checked */
		uint32_t size = sym_size(b, (uint32_t)find_sym(b, le32(d + inst + 4))), nr;

		if (!list_len(p, &pos, avail, &nr))
			BAD("bad number of exits", at + pos);
		for (i = 0; i < nr; i++) {
			uint32_t r;
			bool own = false;

			n = uleb(p + pos, avail - pos, &v);
			if (!n)
				BAD("bad exit offset", at + pos);
			/* the caller's start plus a signed 32-bit offset */
			off = v >= 0x80000000U ? (int64_t)v - 0x100000000LL : (int64_t)v;
			for (r = 0; r < nr_rs; r++)
				own |= off >= rs[r][0] && off < rs[r][1];
			if ((off < 0 || off >= size) && !own)
				BAD("exit offset outside its caller", at + pos);
			if (i && off <= prev_off)
				BAD("exits not in increasing order", at + pos);
			prev_off = off;
			pos += n;
			if (pos >= avail)
				BAD("truncated exit", at + pos);
			if (p[pos] & 0xf8)
				BAD("exit kind reserved bits set", at + pos);
			if (p[pos] < 1 || p[pos] > 4)
				BAD("unknown exit kind", at + pos);
			pos++;
		}
	}
	if (flags & 128) {
		if (pos >= avail || !p[pos])
			BAD("bad inline depth", at + pos);
		pos++;
	}
	return pos;
#undef BAD
}

static const char *extensions(const struct blob *b)
{
	uint32_t off = 0, inst = b->inst, n = 0, len, why_at = 0;
	const char *why = NULL;

	while (off < b->ext_len) {
		if (n >= b->nr_inst)
			return fail("more extension records than instances", b->ext + off);
		len = ext_record(b, b->ext + off, b->ext_len - off, inst, &why, &why_at);
		if (!len)
			return fail(why, why_at);
		inst += INST_LEN(le16(b->d + inst + 12));
		off += len;
		n++;
	}
	if (n != b->nr_inst)
		return fail("extension records do not match instances", b->ext);
	return NULL;
}

/* ---- BTF ---- */

/* Bytes after the 12-byte type record of @kind with @vlen members; -1: no such kind. */
static long btf_extra(uint32_t kind, uint32_t vlen)
{
	switch (kind) {
	case 1:			/* INT */
	case 14:		/* VAR */
	case 17:		/* DECL_TAG */
		return 4;
	case 2: case 7: case 8: case 9: case 10: case 11: case 12: case 16: case 18:
		return 0;	/* PTR FWD TYPEDEF VOLATILE CONST RESTRICT FUNC FLOAT TYPE_TAG */
	case 3:			/* ARRAY */
		return 12;
	case 4: case 5:		/* STRUCT UNION */
	case 15:		/* DATASEC */
	case 19:		/* ENUM64 */
		return 12L * vlen;
	case 6:			/* ENUM */
	case 13:		/* FUNC_PROTO */
		return 8L * vlen;
	default:
		return -1;
	}
}

#define KIND(p)	((le32((p) + 4) >> 24) & 0x1f)
#define VLEN(p)	(le32((p) + 4) & 0xffff)

/* The split BTF: where its types are. */
struct split {
	const struct model_base *base;
	const uint8_t *types;
	const char *strs;
	uint32_t strs_len, nr_types;
	uint32_t *offs;
};

static const uint8_t *type_of(const struct split *s, uint32_t id)
{
	if (!id)
		return NULL;
	if (id <= s->base->nr_types)
		return s->base->types + s->base->offs[id - 1];
	id -= s->base->nr_types + 1;
	return id < s->nr_types ? s->types + s->offs[id] : NULL;
}

static bool str_in(const struct split *s, uint32_t off)
{
	if (off >= s->base->strs_len)
		return off - s->base->strs_len < s->strs_len;
	return true;
}

static const char *str_at(const struct split *s, uint32_t off)
{
	if (off < s->base->strs_len)
		return s->base->strs + off;
	off -= s->base->strs_len;
	return off < s->strs_len ? s->strs + off : "";
}

static bool id_in(const struct split *s, uint32_t id)
{
	return id < s->base->nr_types + 1 + s->nr_types;
}

/* The references of the type at @off of the type subsection. */
static const char *btf_refs(const struct split *s, uint32_t off)
{
	const uint8_t *t = s->types + off, *m = t + BTF_TYPE_LEN;
	uint32_t kind = KIND(t), vlen = VLEN(t), i;

	if (!str_in(s, le32(t)))
		return fail_btf("BTF name offset out of range", off);
	switch (kind) {
	case 2: case 8: case 9: case 10: case 11: case 12: case 14: case 18: case 17:
		if (!id_in(s, le32(t + 8)))
			return fail_btf("BTF type reference out of range", off);
		break;
	case 13:
		if (!id_in(s, le32(t + 8)))
			return fail_btf("BTF return type out of range", off);
		for (i = 0; i < vlen; i++)
			if (!id_in(s, le32(m + 8 * i + 4)) || !str_in(s, le32(m + 8 * i)))
				return fail_btf("BTF parameter out of range", off);
		break;
	case 4: case 5:
		for (i = 0; i < vlen; i++)
			if (!id_in(s, le32(m + 12 * i + 4)) || !str_in(s, le32(m + 12 * i)))
				return fail_btf("BTF member out of range", off);
		break;
	case 3:
		if (!id_in(s, le32(m)) || !id_in(s, le32(m + 4)))
			return fail_btf("BTF array type out of range", off);
		break;
	case 15:
		for (i = 0; i < vlen; i++)
			if (!id_in(s, le32(m + 12 * i)))
				return fail_btf("BTF datasec entry out of range", off);
		break;
	case 6: case 19:
		for (i = 0; i < vlen; i++)
			if (!str_in(s, le32(m + (kind == 6 ? 8 : 12) * i)))
				return fail_btf("BTF enumerator name out of range", off);
		break;
	}
	return NULL;
}

/* The FUNC_PROTO of the FUNC @id, or NULL. */
static const uint8_t *func_proto(const struct split *s, uint32_t id)
{
	const uint8_t *t = type_of(s, id);

	if (!t || KIND(t) != 12)
		return NULL;
	t = type_of(s, le32(t + 8));
	return t && KIND(t) == 13 ? t : NULL;
}

static const char *btf(const struct blob *b, const struct model_base *base)
{
	const uint8_t *p = b->d + b->sec_off[SEC_BTF];
	uint32_t len = b->sec_len[SEC_BTF], hl, t_off, t_len, s_off, s_len, off = 0, n = 0, i, ext;
	uint64_t t_end, s_end;
	struct split s = { .base = base };
	const char *why = NULL;

	if (len < BTF_HDR_MIN)
		return fail_btf("BTF shorter than its header", 0);
	if (le16(p) != BTF_MAGIC_)
		return fail_btf("bad BTF magic", 0);
	if (p[2] != 1 || p[3])
		return fail_btf("unsupported BTF version or flags", 2);
	hl = le32(p + 4);
	if (hl < BTF_HDR_MIN || hl > len || hl % 4)
		return fail_btf("bad BTF header length", 4);
	t_off = le32(p + 8);
	t_len = le32(p + 12);
	s_off = le32(p + 16);
	s_len = le32(p + 20);
	t_end = (uint64_t)hl + t_off + t_len;
	s_end = (uint64_t)hl + s_off + s_len;
	if (t_end > len || s_end > len)
		return fail_btf("BTF subsection out of bounds", 8);
	if (t_off % 4 || t_len % 4)
		return fail_btf("BTF type subsection misaligned", 8);
	if ((uint64_t)t_off + t_len > s_off && (uint64_t)s_off + s_len > t_off)
		return fail_btf("BTF subsections overlap", 8);
	if (!s_len || p[s_end - 1])
		return fail_btf("BTF strings not NUL-terminated", 16);
	if (s_len > BTF_MAX_STR)
		return fail_btf("BTF strings too long", 20);
	s.types = p + hl + t_off;
	s.strs = (const char *)p + hl + s_off;
	s.strs_len = s_len;
	/* every record's kind and length, in order */
	while (off < t_len) {
		long extra;

		if (t_len - off < BTF_TYPE_LEN)
			return fail_btf("truncated BTF type", off);
		extra = btf_extra(KIND(s.types + off), VLEN(s.types + off));
		if (extra < 0)
			return fail_btf("unknown BTF kind", off);
		if ((uint64_t)t_len - off - BTF_TYPE_LEN < (uint64_t)extra)
			return fail_btf("truncated BTF type data", off);
		off += BTF_TYPE_LEN + (uint32_t)extra;
		n++;
		if ((uint64_t)base->nr_types + 1 + n > BTF_MAX_TYPE_)
			return fail_btf("too many BTF types", off);
	}
	s.nr_types = n;
	s.offs = calloc(n + 1, sizeof(*s.offs));
	if (!s.offs)
		return fail_btf("the model is out of memory", 0);
	for (i = 0, off = 0; i < n; i++) {
		s.offs[i] = off;
		off += BTF_TYPE_LEN +
		       (uint32_t)btf_extra(KIND(s.types + off), VLEN(s.types + off));
	}
	/* then every type's names and references */
	for (i = 0; i < n && !why; i++)
		why = btf_refs(&s, s.offs[i]);
	/* then what the blob says of its types: each symbol a named FUNC or
	 * VAR, each instance's callee a FUNC with nr_parms parameters, its
	 * caller a FUNC
	 */
	for (i = 0; i < b->nr_syms && !why; i++) {
		const uint8_t *t = type_of(&s, sym_id(b, i));

		if (!t || (KIND(t) != 12 && KIND(t) != 14) || !*str_at(&s, le32(t)))
			why = fail_btf("symbol is not a named BTF FUNC/VAR",
				       b->sec_off[SEC_SYMBOLS] + SYMBOL_LEN * i);
	}
	for (i = 0, off = 0, ext = 0; i < b->nr_inst && !why; i++) {
		uint32_t at = b->inst + off, nr = le16(b->d + at + 12), why_at;
		const uint8_t *proto = func_proto(&s, le32(b->d + at));
		const char *ext_why;
		bool no_probe = false;

		/* the structure holds: each instance has its extension record */
		if (b->ext_len) {
			no_probe = b->d[b->ext + ext] & 64;
			ext += ext_record(b, b->ext + ext, b->ext_len - ext, at, &ext_why, &why_at);
		}
		if (!proto)
			why = fail_btf("instance callee is not a BTF FUNC", at);
		else if (VLEN(proto) != nr && !no_probe)
			why = fail_btf("instance parameter count differs from BTF", at + 12);
		else if (!func_proto(&s, le32(b->d + at + 4)))
			why = fail_btf("instance caller is not a BTF FUNC", at + 4);
		off += INST_LEN(nr);
	}
	free(s.offs);
	return why;
}

static const char *structure(struct blob *b)
{
	const char *why = sections(b);

	if (!why)
		why = target(b);
	if (!why)
		why = symbols(b);
	if (!why)
		why = inline_section(b);
	if (!why && b->ext_len)
		why = extensions(b);
	return why;
}

const char *model_verdict(const uint8_t *data, size_t len, const struct model_base *base)
{
	struct blob b = { .d = data, .len = (uint32_t)len };
	const char *why;
	uint32_t t;

	msg[0] = '\0';
	if (len < HDR_LEN)
		return fail("blob shorter than its header", 0);
	why = model_prefix(data, HDR_LEN);
	if (*why)
		return why;
	why = structure(&b);
	if (why)
		return why;
	/* the identity the kernel checks before the types: its vmlinux BTF */
	t = b.sec_off[SEC_TARGET];
	if (le32(data + t + 88) != base->len || le32(data + t + 92) != base->crc) {
		snprintf(msg, sizeof(msg),
			 "blob for %s was generated for another kernel build (its vmlinux BTF differs from the running kernel's)",
			 (const char *)data + t);
		return msg;
	}
	why = btf(&b, base);
	return why ? why : "";
}

int model_layout(const uint8_t *data, size_t len, struct model_layout *l)
{
	struct blob b = { .d = data, .len = (uint32_t)len };

	if (len < HDR_LEN || *model_prefix(data, HDR_LEN) || structure(&b))
		return -1;
	l->target = b.sec_off[SEC_TARGET];
	l->symbols = b.sec_off[SEC_SYMBOLS];
	l->nr_syms = b.nr_syms;
	l->btf = b.sec_off[SEC_BTF];
	l->btf_len = b.sec_len[SEC_BTF];
	l->inl = b.inl;
	l->inst = b.inst;
	l->inst_len = b.inst_len;
	l->loc = b.loc;
	l->loc_len = b.loc_len;
	l->ext = b.ext;
	l->ext_len = b.ext_len;
	return 0;
}

/* ---- the running kernel's BTF ---- */

int model_base_open(struct model_base *base, const uint8_t *p, size_t len)
{
	uint32_t hl, t_len, off = 0, n = 0;

	if (len < BTF_HDR_MIN || le16(p) != BTF_MAGIC_)
		return -1;
	hl = le32(p + 4);
	t_len = le32(p + 12);
	if ((uint64_t)hl + le32(p + 8) + t_len > len ||
	    (uint64_t)hl + le32(p + 16) + le32(p + 20) > len)
		return -1;
	base->types = p + hl + le32(p + 8);
	base->strs = (const char *)p + hl + le32(p + 16);
	base->strs_len = le32(p + 20);
	base->len = (uint32_t)len;
	base->crc = (uint32_t)crc32(0, p, (uInt)len);	/* zlib's, as the format says */
	base->offs = malloc((t_len / BTF_TYPE_LEN + 1) * sizeof(*base->offs));
	if (!base->offs)
		return -1;
	while (off < t_len) {
		long extra = btf_extra(KIND(base->types + off), VLEN(base->types + off));

		if (extra < 0 || t_len - off < BTF_TYPE_LEN + (uint64_t)extra)
			return -1;
		base->offs[n++] = off;
		off += BTF_TYPE_LEN + (uint32_t)extra;
	}
	base->nr_types = n;
	return 0;
}
