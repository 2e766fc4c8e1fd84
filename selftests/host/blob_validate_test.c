// SPDX-License-Identifier: GPL-2.0
/*
 * The shared blob validator (lib/blob.c, lib/btf_lite.c), on the host under
 * ASan/UBSan: a generated blob is accepted; truncations, targeted
 * corruptions and every single-bit flip of the structural parts are refused
 * or, where a flip is harmless, accepted without any out-of-bounds access.
 */
#include "kselftest_harness.h"
#include "host_test.h"
#include "exits_craft.h"

FIXTURE(blob) {
	uint8_t *data;
	uint32_t len;
	struct ink_btf vmlinux;
	struct ink_blob parsed;
};

FIXTURE_SETUP(blob)
{
	struct ink_err err = { 0 };

	self->data = host_target_blob(&self->len);
	ASSERT_NE(NULL, self->data) {
		TH_LOG("no generated blob: run make check (it generates them first)");
	}
	ASSERT_EQ(0, host_vmlinux_btf(&self->vmlinux));
	ASSERT_EQ(0, ink_blob_parse(&self->parsed, self->data, self->len, &err));
}

FIXTURE_TEARDOWN(blob)
{
	free(self->data);
}

/* A mutable copy of the blob. */
static uint8_t *copy_of(const uint8_t *data, uint32_t len)
{
	uint8_t *c = malloc(len);

	memcpy(c, data, len);
	return c;
}

/* Offset of a part of the parsed blob in the raw bytes. */
#define OFF(self, p) ((uint32_t)((const uint8_t *)(p) - (self)->data))

TEST_F(blob, generated_blob_accepted)
{
	struct ink_err err = { 0 };

	EXPECT_EQ(0, host_validate(self->data, self->len, &self->vmlinux, &err)) {
		TH_LOG("%s at %u", err.msg, err.off);
	}
	EXPECT_STREQ("inkprobe_target", self->parsed.target->name);
	/* the iterator walks exactly the records the parser counted */
	{
		struct ink_instance_iter it;
		struct ink_instance in;
		uint32_t n = 0;

		ink_instance_iter_init(&it, &self->parsed);
		while (ink_instance_next(&it, &in)) {
			EXPECT_LE(0, ink_blob_symbol(&self->parsed, in.caller_id));
			n++;
		}
		EXPECT_EQ(self->parsed.nr_instances, n);
		EXPECT_LT(1, n);
	}
}

TEST_F(blob, every_truncation_refused)
{
	struct ink_err err;
	uint32_t n;

	for (n = 0; n < self->len; n++) {
		uint8_t *c = copy_of(self->data, n ? n : 1);

		ASSERT_NE(0, host_validate(c, n, &self->vmlinux, &err)) {
			TH_LOG("truncation to %u accepted", n);
		}
		/* and with the header claiming the shorter length */
		if (n >= sizeof(struct inkprobe_blob_header)) {
			((struct inkprobe_blob_header *)c)->blob_len = n;
			ASSERT_NE(0, host_validate(c, n, &self->vmlinux, &err)) {
				TH_LOG("consistent truncation to %u accepted", n);
			}
		}
		free(c);
	}
}

/* Flip one bit; the validator must not read out of bounds (ASan) either way. */
static int flip_and_validate(FIXTURE_DATA(blob) *self, uint32_t byte, int bit)
{
	uint8_t *c = copy_of(self->data, self->len);
	struct ink_err err;
	int ret;

	c[byte] ^= (uint8_t)(1u << bit);
	ret = host_validate(c, self->len, &self->vmlinux, &err);
	free(c);
	return ret;
}

TEST_F(blob, bit_flips_in_structure)
{
	const struct ink_blob *b = &self->parsed;
	uint32_t start = OFF(self, b->inl), end = OFF(self, b->loc) + b->loc_len;
	uint32_t byte, refused = 0, total = 0;
	int bit;

	/* container header and section table */
	for (byte = 0; byte < sizeof(struct inkprobe_blob_header) + 4 * 16; byte++)
		for (bit = 0; bit < 8; bit++, total++)
			refused += flip_and_validate(self, byte, bit) != 0;
	/* .BTF.inline header, instances and locations */
	for (byte = start; byte < end; byte++)
		for (bit = 0; bit < 8; bit++, total++)
			refused += flip_and_validate(self, byte, bit) != 0;
	TH_LOG("%u of %u single-bit flips refused", refused, total);
	EXPECT_GT(refused, total / 2);
}

/* Overwrite @len bytes at @off and expect refusal with @msg. */
static void expect_refused(struct __test_metadata *_metadata, FIXTURE_DATA(blob) *self,
			   uint32_t off, const void *bytes, uint32_t len, const char *msg)
{
	uint8_t *c = copy_of(self->data, self->len);
	struct ink_err err = { 0 };

	memcpy(c + off, bytes, len);
	EXPECT_NE(0, host_validate(c, self->len, &self->vmlinux, &err));
	EXPECT_NE(NULL, err.msg);
	if (err.msg)
		EXPECT_STREQ(msg, err.msg);
	free(c);
}

/* The first instance's first parameter location, and its offset in the blob. */
static uint32_t first_loc(FIXTURE_DATA(blob) *self)
{
	const struct ink_blob *b = &self->parsed;
	uint32_t i;

	/* find an instance whose first parameter has a non-empty expression */
	for (i = 0; i < b->inst_len;) {
		uint16_t nr = ink_get16(b->inst + i + 12);

		if (nr && ink_get32(b->inst + i + 14))
			return OFF(self, b->loc) + ink_get32(b->inst + i + 14);
		i += BTF_INLINE_INSTANCE_LEN(nr);
	}
	return 0;
}

TEST_F(blob, targeted_corruptions_refused)
{
	const struct ink_blob *b = &self->parsed;
	uint32_t inl = OFF(self, b->inl), inst = OFF(self, b->inst);
	uint32_t loc = first_loc(self);
	uint32_t u32;
	uint16_t u16;
	uint8_t bytes[10];

	u32 = 0x12345678;
	expect_refused(_metadata, self, 0, &u32, 4, "not an inkprobe blob (bad magic)");
	u16 = 9;
	expect_refused(_metadata, self, 4, &u16, 2, "unsupported blob version");
	u32 = 99;
	expect_refused(_metadata, self, 12, &u32, 4, "bad number of blob sections");
	u32 = 7;	/* section 0 type: unknown */
	expect_refused(_metadata, self, 16, &u32, 4, "unknown section type");
	u32 = self->len;	/* section 0 offset past the end */
	expect_refused(_metadata, self, 20, &u32, 4, "section out of bounds or misaligned");
	u16 = 0xbeef;
	expect_refused(_metadata, self, inl, &u16, 2, "bad .BTF.inline magic");
	/* an instance's caller that is no symbol */
	u32 = 0xfffff;
	expect_refused(_metadata, self, inst + 4, &u32, 4, "instance caller has no symbol");
	/* an offset past the caller's end */
	u32 = 0x7fffffff;
	expect_refused(_metadata, self, inst + 8, &u32, 4, "instance offset outside its caller");
	/* a parameter count that is not the callee's */
	u16 = ink_get16(b->inst + 12);
	if (u16) {
		uint16_t fewer = u16 - 1;
		uint8_t *c = copy_of(self->data, self->len);
		struct ink_err err = { 0 };

		/* shrink nr_parms: the next records shift, so expect some refusal */
		memcpy(c + inst + 12, &fewer, 2);
		EXPECT_NE(0, host_validate(c, self->len, &self->vmlinux, &err));
		free(c);
	}
	/* a callee that is not a FUNC: BTF id 1 of vmlinux is no function */
	u32 = 1;
	expect_refused(_metadata, self, inst, &u32, 4, "instance callee is not a BTF FUNC");

	ASSERT_NE(0, loc);
	bytes[0] = LOC_REGISTER;
	bytes[1] = 16;		/* not a general-purpose register */
	expect_refused(_metadata, self, loc, bytes, 2, "location register out of range");
	bytes[0] = LOC_DEREF;	/* on an empty stack */
	bytes[1] = 8;
	expect_refused(_metadata, self, loc, bytes, 2, "location stack underflow");
	bytes[0] = LOC_OP_MAX;	/* unknown operator */
	expect_refused(_metadata, self, loc, bytes, 1, "bad or unterminated location operator");
	bytes[0] = LOC_REGISTER;	/* a deref of 3 bytes */
	bytes[1] = 5;
	bytes[2] = LOC_DEREF;
	bytes[3] = 3;
	expect_refused(_metadata, self, loc, bytes, 4, "bad dereference size");
}

TEST(unterminated_expression_refused)
{
	/* a location subsection that ends inside an operand */
	static const uint8_t loc[] = { LOC_END_OF_EXPR, LOC_REGISTER_OFFSET, 5, 1, 2 };
	struct ink_blob b = { .loc = loc, .loc_len = sizeof(loc) };
	struct ink_err err = { 0 };

	EXPECT_NE(0, ink_loc_check(&b, 1, &err));
	EXPECT_STREQ("bad or unterminated location operator", err.msg);
	/* and one that never ends within LOC_MAX_EXPR_LEN */
	{
		uint8_t long_loc[1 + 2 * LOC_MAX_EXPR_LEN];
		uint32_t i;

		long_loc[0] = LOC_END_OF_EXPR;
		for (i = 1; i + 1 < sizeof(long_loc); i += 2) {
			long_loc[i] = LOC_UNSIGNED_CONST_1;
			long_loc[i + 1] = 1;
		}
		long_loc[sizeof(long_loc) - 1] = LOC_END_OF_EXPR;
		b.loc = long_loc;
		b.loc_len = sizeof(long_loc);
		EXPECT_NE(0, ink_loc_check(&b, 1, &err));
	}
}

TEST(stack_rules)
{
	struct ink_err err = { 0 };
	struct ink_blob b = { 0 };
	/* two values left: not one result */
	static const uint8_t two[] = { 0, LOC_UNSIGNED_CONST_1, 1, LOC_UNSIGNED_CONST_1, 2, 0 };
	/* pieces: low 4 bytes of rax, high 4 of rdx */
	static const uint8_t pieces[] = { 0, LOC_REGISTER, 0, LOC_PIECE, 4, LOC_REGISTER, 1,
					  LOC_PIECE, 4, 0 };
	/* pieces over 8 bytes */
	static const uint8_t wide[] = { 0, LOC_REGISTER, 0, LOC_PIECE, 8, LOC_REGISTER, 1,
					LOC_PIECE, 4, 0 };

	b.loc = two;
	b.loc_len = sizeof(two);
	EXPECT_NE(0, ink_loc_check(&b, 1, &err));
	b.loc = pieces;
	b.loc_len = sizeof(pieces);
	EXPECT_EQ(0, ink_loc_check(&b, 1, &err));
	b.loc = wide;
	b.loc_len = sizeof(wide);
	EXPECT_NE(0, ink_loc_check(&b, 1, &err));
	EXPECT_STREQ("pieces exceed 8 bytes", err.msg);
}

TEST(arithmetic_rules)
{
	struct ink_err err = { 0 };
	struct ink_blob b = { 0 };
	/* (rsi & 0xff) << 3, sign-extended from 32 bits, minus rdi */
	static const uint8_t ok[] = { 0, LOC_REGISTER, 4, LOC_UNSIGNED_CONST_1, 0xff, LOC_AND,
				      LOC_SHL, 3, LOC_SHL, 32, LOC_SHRA, 32, LOC_REGISTER, 5,
				      LOC_SUB, LOC_NOT, LOC_NEG, 0 };
	/* a binary operator needs two values */
	static const uint8_t one[] = { 0, LOC_REGISTER, 4, LOC_ADD, 0 };
	/* shift counts are 0-63 */
	static const uint8_t shift[] = { 0, LOC_REGISTER, 4, LOC_SHR, 64, 0 };
	/* a unary operator needs a value */
	static const uint8_t none[] = { 0, LOC_NEG, 0 };

	b.loc = ok;
	b.loc_len = sizeof(ok);
	EXPECT_EQ(0, ink_loc_check(&b, 1, &err)) {
		TH_LOG("%s at %u", err.msg, err.off);
	}
	b.loc = one;
	b.loc_len = sizeof(one);
	EXPECT_NE(0, ink_loc_check(&b, 1, &err));
	EXPECT_STREQ("location stack underflow", err.msg);
	b.loc = shift;
	b.loc_len = sizeof(shift);
	EXPECT_NE(0, ink_loc_check(&b, 1, &err));
	EXPECT_STREQ("bad shift count", err.msg);
	b.loc = none;
	b.loc_len = sizeof(none);
	EXPECT_NE(0, ink_loc_check(&b, 1, &err));
	EXPECT_STREQ("location stack underflow", err.msg);
}

TEST_F(blob, extension_corruptions_refused)
{
	const struct ink_blob *b = &self->parsed;
	uint32_t ext = OFF(self, b->ext);
	uint8_t bytes[8];

	ASSERT_NE(NULL, b->ext);
	/* the last free flag, bit 7, is DEPTH: it needs ranges, an inlined copy, 1..255 */
	bytes[0] = 0x80;
	expect_refused(_metadata, self, ext, bytes, 1, "depth of an instance without ranges");
	bytes[0] = BTF_INLINE_EXT_DEPTH | BTF_INLINE_EXT_RANGES | BTF_INLINE_EXT_OUT_OF_LINE;
	expect_refused(_metadata, self, ext, bytes, 1, "depth of an out-of-line instance");
	bytes[0] = BTF_INLINE_EXT_DEPTH | BTF_INLINE_EXT_RANGES;
	bytes[1] = 1;		/* one range: at the entry, one byte */
	bytes[2] = 0;
	bytes[3] = 1;
	bytes[4] = 0;		/* depth 0 */
	expect_refused(_metadata, self, ext, bytes, 5, "bad inline depth");
	/* the rest of a split function is out of line by definition */
	bytes[0] = BTF_INLINE_EXT_SPLIT_PART;
	expect_refused(_metadata, self, ext, bytes, 1, "split part not out of line");
	/* ranges whose count never ends */
	bytes[0] = BTF_INLINE_EXT_RANGES;
	memset(bytes + 1, 0xff, 6);
	expect_refused(_metadata, self, ext, bytes, 7, "bad number of ranges");
	/* a moved pc before the caller's start */
	bytes[0] = BTF_INLINE_EXT_MOVED_PC;
	bytes[1] = 0xff;
	bytes[2] = 0xff;
	bytes[3] = 0xff;
	bytes[4] = 0xff;
	bytes[5] = 0x0f;
	expect_refused(_metadata, self, ext, bytes, 6, "bad moved probe pc");
}

/*
 * The target's one MERGED record (tgt_merged(v, shift, scale), two calls,
 * v and shift ambiguous), and the offsets in the blob of its extension
 * record and of its end: the last four bytes are the MERGED fields.
 */
static bool merged_record(FIXTURE_DATA(blob) *self, struct ink_instance *in,
			  uint32_t *ext_start, uint32_t *ext_end)
{
	uint32_t n = 0, base = OFF(self, self->parsed.ext), start = 0;
	struct ink_instance_iter it;
	struct ink_instance cur;

	ink_instance_iter_init(&it, &self->parsed);
	for (;;) {
		start = it.ext_off;
		if (!ink_instance_next(&it, &cur))
			break;
		if (!(cur.flags & BTF_INLINE_EXT_MERGED))
			continue;
		*in = cur;
		*ext_start = base + start;
		*ext_end = base + it.ext_off;
		n++;
	}
	return n == 1;
}

TEST_F(blob, merged_record_corruptions_refused)
{
	struct ink_instance in;
	uint32_t start, end, at;
	uint8_t bytes[4];

	ASSERT_TRUE(merged_record(self, &in, &start, &end));
	ASSERT_EQ(3, in.nr_parms);
	EXPECT_EQ(2, in.merged_calls);
	EXPECT_EQ(2, in.nr_ambiguous);
	EXPECT_TRUE(ink_parm_ambiguous(&in, 0));
	EXPECT_TRUE(ink_parm_ambiguous(&in, 1));
	EXPECT_FALSE(ink_parm_ambiguous(&in, 2));
	EXPECT_EQ(0, ink_instance_parm(&in, 0));
	EXPECT_EQ(0, ink_instance_parm(&in, 1));
	EXPECT_NE(0, ink_instance_parm(&in, 2));
	at = end - 4;
	/* as generated: 2 calls, 2 ambiguous parameters, 0 and 1 */
	ASSERT_EQ(0, memcmp(self->data + at, "\x02\x02\x00\x01", 4));
	memcpy(bytes, "\x01\x02\x00\x01", 4);
	expect_refused(_metadata, self, at, bytes, 4, "bad number of merged calls");
	memcpy(bytes, "\x02\x04\x00\x01", 4);
	expect_refused(_metadata, self, at, bytes, 4, "bad number of ambiguous parameters");
	memcpy(bytes, "\x02\x02\x00\x03", 4);
	expect_refused(_metadata, self, at, bytes, 4, "bad ambiguous parameter index");
	memcpy(bytes, "\x02\x02\x01\x00", 4);
	expect_refused(_metadata, self, at, bytes, 4, "bad ambiguous parameter index");
	/* scale has a location: it cannot be the ambiguous one */
	memcpy(bytes, "\x02\x02\x00\x02", 4);
	expect_refused(_metadata, self, at, bytes, 4, "ambiguous parameter has a location");
	/* a function's own copy is one call */
	bytes[0] = self->data[start] | BTF_INLINE_EXT_OUT_OF_LINE;
	expect_refused(_metadata, self, start, bytes, 1, "merged instance out of line");
}

/*
 * The EXITS fields: the generated records read back (a blob with exits has
 * them in increasing order, inside their caller, of known kinds), then
 * one crafted fault per rule, refused with its message at its byte.
 */
TEST_F(blob, exits_read_back)
{
	struct ink_instance_iter it;
	struct ink_instance in;
	uint32_t with = 0, total = 0;

	ink_instance_iter_init(&it, &self->parsed);
	while (ink_instance_next(&it, &in)) {
		struct ink_exit_iter e;
		int32_t off, prev = 0;
		uint32_t n = 0;
		uint8_t kind;

		if (!(in.flags & BTF_INLINE_EXT_EXITS)) {
			EXPECT_EQ(0, in.nr_exits);
			continue;
		}
		EXPECT_FALSE(in.flags & BTF_INLINE_EXT_OUT_OF_LINE);
		ink_exit_iter_init(&e, &in);
		while (ink_exit_next(&e, &off, &kind)) {
			uint32_t size = ink_symbol_size(&self->parsed.syms[
				ink_blob_symbol(&self->parsed, in.caller_id)]);
			struct ink_range_iter r;
			bool in_range = false;
			int32_t start;
			uint32_t len;

			EXPECT_TRUE(!n || off > prev);
			/* inside the caller, or inside one of its own ranges (NAME.cold) */
			ink_range_iter_init(&r, &in);
			while (ink_range_next(&r, &start, &len))
				in_range |= off >= start && (int64_t)off < (int64_t)start + len;
			EXPECT_TRUE((off >= 0 && (uint32_t)off < size) || in_range);
			EXPECT_LE(BTF_INLINE_EXIT_LAND, kind);
			EXPECT_GE(BTF_INLINE_EXIT_LEAVE_INDIRECT, kind);
			prev = off;
			n++;
		}
		EXPECT_EQ(in.nr_exits, n);
		EXPECT_LT(0, n);
		with++;
		total += n;
	}
	/* the target's tgt_exits.c alone has six copies with exits */
	EXPECT_LE(6, with);
	TH_LOG("%u records with %u exits", with, total);
}

TEST_F(blob, exits_corruptions_refused)
{
	struct exits_craft c[EXITS_CRAFT_MAX];
	int n = exits_crafts(&self->parsed, c), i;

	ASSERT_EQ(EXITS_CRAFTS, n) {
		TH_LOG("no record with two exits or more in a caller under 128 bytes");
	}
	for (i = 0; i < n; i++) {
		uint8_t *copy = copy_of(self->data, self->len);
		struct ink_err err = { 0 };

		memcpy(copy + c[i].at, c[i].bytes, c[i].len);
		memcpy(copy + c[i].at2, c[i].bytes2, c[i].len2);
		if (!c[i].msg) {
			/* an exit outside the caller, inside one of its own ranges */
			EXPECT_EQ(0, host_validate(copy, self->len, &self->vmlinux, &err)) {
				TH_LOG("%s: refused: %s at byte %u", c[i].what, err.msg, err.off);
			}
			free(copy);
			continue;
		}
		EXPECT_NE(0, host_validate(copy, self->len, &self->vmlinux, &err)) {
			TH_LOG("%s: accepted", c[i].what);
		}
		EXPECT_STREQ(c[i].msg, err.msg ? err.msg : "(none)") {
			TH_LOG("%s", c[i].what);
		}
		EXPECT_EQ(c[i].msg_at, err.off) {
			TH_LOG("%s: at byte %u, not %u", c[i].what, err.off, c[i].msg_at);
		}
		free(copy);
	}
}

/*
 * The NO_PROBE records (tgt_noprobe.c): read back as generated (ranges,
 * no parameters, no other flag, the entry pc), then one crafted fault per
 * rule, refused with its message at its byte.
 */
TEST_F(blob, no_probe_read_back)
{
	const struct ink_blob *b = &self->parsed;
	struct ink_instance_iter it;
	struct ink_instance in;
	uint32_t n = 0;

	ink_instance_iter_init(&it, b);
	while (ink_instance_next(&it, &in)) {
		if (!(in.flags & BTF_INLINE_EXT_NO_PROBE))
			continue;
		EXPECT_EQ(BTF_INLINE_EXT_NO_PROBE | BTF_INLINE_EXT_RANGES, in.flags);
		EXPECT_EQ(0, in.nr_parms);
		EXPECT_LT(0, in.nr_ranges);
		EXPECT_EQ(in.entry_offset, in.caller_offset);
		EXPECT_EQ(0, in.nr_exits);
		n++;
	}
	/* tgt_noprobe.c: noinstr, NOKPROBE_SYMBOL() callers; tgt_sites.c: a jump label */
	EXPECT_LE(3, n);
	TH_LOG("%u NO_PROBE records", n);
}

TEST_F(blob, no_probe_corruptions_refused)
{
	struct exits_craft c[NO_PROBE_CRAFTS];
	int n = no_probe_crafts(&self->parsed, c), i;

	ASSERT_EQ(NO_PROBE_CRAFTS, n) {
		TH_LOG("no NO_PROBE record, or no inlined record with parameters");
	}
	for (i = 0; i < n; i++) {
		uint8_t *copy = copy_of(self->data, self->len);
		struct ink_err err = { 0 };

		memcpy(copy + c[i].at, c[i].bytes, c[i].len);
		EXPECT_NE(0, host_validate(copy, self->len, &self->vmlinux, &err)) {
			TH_LOG("%s: accepted", c[i].what);
		}
		EXPECT_STREQ(c[i].msg, err.msg ? err.msg : "(none)") {
			TH_LOG("%s", c[i].what);
		}
		EXPECT_EQ(c[i].msg_at, err.off) {
			TH_LOG("%s: at byte %u, not %u", c[i].what, err.off, c[i].msg_at);
		}
		free(copy);
	}
}

TEST_HARNESS_MAIN
