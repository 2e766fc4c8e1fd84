// SPDX-License-Identifier: GPL-2.0
/*
 * The location operators' table (lib/loc_op.c), against the format's own
 * description: Documentation/blob-format.rst's table of operators (ID,
 * name, operand bytes, stack effect) is read and every row compared with
 * the table the validator, the module, gen and dump use.  Then encoding
 * against decoding, the shortest constant at each boundary, and the
 * arithmetic, with values worked out by hand.
 */
#include <stdint.h>

#include "kselftest_harness.h"
#include "host_test.h"

/* Bytes of an operands column: "s8", "u8 register, s64 offset", "u32 ..., s32 off", "--". */
static unsigned int operand_bytes(const char *col)
{
	unsigned int n = 0;
	const char *p;

	for (p = col; *p; p++) {
		if ((*p != 's' && *p != 'u') || (p > col && p[-1] != ' '))
			continue;
		if (!strncmp(p + 1, "8", 1) && (p[2] == ' ' || p[2] == ',' || !p[2]))
			n += 1;
		else if (!strncmp(p + 1, "16", 2))
			n += 2;
		else if (!strncmp(p + 1, "32", 2))
			n += 4;
		else if (!strncmp(p + 1, "64", 2))
			n += 8;
	}
	return n;
}

/* Values popped and pushed, from the effect column's words. */
static void stack_effect(const char *col, unsigned int *pops, unsigned int *pushes)
{
	const char *p;

	*pops = 0;
	*pushes = 0;
	for (p = col; (p = strstr(p, "pop")); p += 3)
		(*pops)++;
	for (p = col; (p = strstr(p, "push")); p += 4)
		(*pushes)++;
}

static void effect_is(struct __test_metadata *_metadata, const char *name, int want, int got)
{
	EXPECT_EQ(want, got) TH_LOG("%s: effect %d, the spec says %d", name, got, want);
}

TEST(table_is_the_documented_one)
{
	char path[1024], line[512];
	unsigned int rows = 0, seen[LOC_OP_MAX] = { 0 };
	int in_table = 0;
	FILE *f;

	snprintf(path, sizeof(path), "%s/Documentation/blob-format.rst",
		 host_env("INKPROBE_TOP", "."));
	f = fopen(path, "r");
	ASSERT_NE(NULL, f) TH_LOG("cannot read %s", path);
	while (fgets(line, sizeof(line), f)) {
		char name[64], operands[64], effect[512];
		unsigned int id, pops, pushes;
		const struct ink_loc_op_info *info;

		if (!strncmp(line, "ID  operator", 12)) {
			in_table = 1;
			continue;
		}
		if (!in_table)
			continue;
		if (sscanf(line, "%u %63s", &id, name) != 2) {
			if (rows && !strncmp(line, "==", 2))
				break;	/* the table's last line */
			continue;	/* its rules, or an effect's second line */
		}
		/* columns: ID at 0, operator at 4, operands at 26, effect at 55 */
		ASSERT_LT(55, strlen(line)) TH_LOG("%s", line);
		snprintf(operands, sizeof(operands), "%.29s", line + 26);
		snprintf(effect, sizeof(effect), "%s", line + 55);
		ASSERT_LT(id, LOC_OP_MAX) TH_LOG("%s", line);
		info = &ink_loc_ops[id];
		seen[id]++;
		rows++;
		ASSERT_NE(NULL, info->name) TH_LOG("operator %u", id);
		EXPECT_EQ(0, strncmp(name, "LOC_", 4));
		EXPECT_STREQ(name + 4, info->name);
		EXPECT_EQ(operand_bytes(operands), ink_loc_operand_len[info->operand]) {
			TH_LOG("%s: operands '%s'", name, operands);
		}
		EXPECT_EQ(1 + operand_bytes(operands), ink_loc_op_len(id));
		stack_effect(effect, &pops, &pushes);
		EXPECT_EQ(pops, info->pops) TH_LOG("%s: %s", name, effect);
		EXPECT_EQ(pushes, info->pushes) TH_LOG("%s: %s", name, effect);
		/* the effect the table gives, from the words of the spec: one per row */
		if (strstr(effect, "the result is the top"))
			effect_is(_metadata, name, INK_EFF_END, info->effect);
		else if (strstr(effect, "memory"))
			effect_is(_metadata, name, INK_EFF_DEREF, info->effect);
		else if (strstr(effect, "low bytes"))
			effect_is(_metadata, name, INK_EFF_PIECE, info->effect);
		else if (strstr(effect, "register"))
			effect_is(_metadata, name, INK_EFF_REG, info->effect);
		else if (strstr(effect, "symbol"))
			effect_is(_metadata, name, INK_EFF_SYM, info->effect);
		else if (!strncmp(effect, "push,", 5) || !strncmp(effect, "push\n", 5))
			effect_is(_metadata, name, INK_EFF_CONST, info->effect);
		else if (pops == 2 && pushes == 1)
			effect_is(_metadata, name, INK_EFF_BINARY, info->effect);
		else if (pops == 1 && pushes == 1 && strstr(effect, "pop a, push"))
			effect_is(_metadata, name, INK_EFF_UNARY, info->effect);
		else
			effect_is(_metadata, name, -1, info->effect);	/* not understood */
	}
	fclose(f);
	EXPECT_EQ(LOC_OP_MAX, rows);
	for (rows = 0; rows < LOC_OP_MAX; rows++)
		EXPECT_EQ(1, seen[rows]) TH_LOG("operator %u listed %u times", rows, seen[rows]);
}

/* Each operator encoded, then decoded: the same operator, operands and length. */
TEST(encode_is_decode_inverted)
{
	static const struct ink_loc_op ops[] = {
		{ .op = LOC_END_OF_EXPR },
		{ .op = LOC_SIGNED_CONST_1, .val = -128 },
		{ .op = LOC_SIGNED_CONST_2, .val = -32768 },
		{ .op = LOC_SIGNED_CONST_4, .val = INT32_MIN },
		{ .op = LOC_SIGNED_CONST_8, .val = INT64_MIN },
		{ .op = LOC_UNSIGNED_CONST_1, .val = 255 },
		{ .op = LOC_UNSIGNED_CONST_2, .val = 65535 },
		{ .op = LOC_UNSIGNED_CONST_4, .val = 4294967295LL },
		{ .op = LOC_UNSIGNED_CONST_8, .val = -1 },	/* u64 max, as s64 */
		{ .op = LOC_REGISTER, .reg = 15 },
		{ .op = LOC_REGISTER_OFFSET, .reg = 7, .val = -0x123456789LL },
		{ .op = LOC_DEREF, .size = 4 },
		{ .op = LOC_SYMBOL_ADDR, .sym = 0x01020304, .val = -8 },
		{ .op = LOC_PIECE, .size = 2 },
		{ .op = LOC_ADD }, { .op = LOC_SUB }, { .op = LOC_MUL }, { .op = LOC_AND },
		{ .op = LOC_OR }, { .op = LOC_XOR }, { .op = LOC_NEG }, { .op = LOC_NOT },
		{ .op = LOC_SHL, .val = 63 }, { .op = LOC_SHR, .val = 1 }, { .op = LOC_SHRA, .val = 5 },
	};
	/* what the format says a few of them are, byte for byte */
	static const uint8_t regoff[] = { LOC_REGISTER_OFFSET, 7, 0x77, 0x98, 0xba, 0xdc, 0xfe,
					  0xff, 0xff, 0xff };	/* -0x123456789 */
	static const uint8_t sym[] = { LOC_SYMBOL_ADDR, 4, 3, 2, 1, 0xf8, 0xff, 0xff, 0xff };
	uint8_t bytes[16];
	unsigned int i, seen = 0;

	for (i = 0; i < sizeof(ops) / sizeof(ops[0]); i++) {
		struct ink_loc_op back;
		uint32_t n;

		memset(bytes, 0xee, sizeof(bytes));
		n = ink_loc_encode(bytes, &ops[i]);
		EXPECT_EQ(ink_loc_op_len(ops[i].op), n) TH_LOG("%s", ink_loc_ops[ops[i].op].name);
		EXPECT_EQ(0xee, bytes[n]);	/* nothing written past it */
		EXPECT_EQ(n, ink_loc_decode(bytes, n, &back));
		EXPECT_EQ(0, ink_loc_decode(bytes, n - 1, &back));	/* truncated */
		EXPECT_EQ(n, ink_loc_decode(bytes, n, &back));
		EXPECT_EQ(ops[i].op, back.op);
		EXPECT_EQ(ops[i].reg, back.reg);
		EXPECT_EQ(ops[i].size, back.size);
		EXPECT_EQ(ops[i].sym, back.sym);
		EXPECT_EQ(ops[i].val, back.val) TH_LOG("%s", ink_loc_ops[ops[i].op].name);
		seen |= 1U << ops[i].op;
	}
	EXPECT_EQ((1U << LOC_OP_MAX) - 1, seen);	/* every operator */
	EXPECT_EQ(sizeof(regoff), ink_loc_encode(bytes, &ops[10]));
	EXPECT_EQ(0, memcmp(regoff, bytes, sizeof(regoff)));
	EXPECT_EQ(sizeof(sym), ink_loc_encode(bytes, &ops[12]));
	EXPECT_EQ(0, memcmp(sym, bytes, sizeof(sym)));
	bytes[0] = LOC_OP_MAX;
	EXPECT_EQ(0, ink_loc_decode(bytes, sizeof(bytes), &(struct ink_loc_op){ 0 }));
}

/* The shortest constant operator, at each boundary. */
TEST(shortest_constant)
{
	static const struct {
		int64_t v;
		uint8_t op;
	} cases[] = {
		{ 0, LOC_UNSIGNED_CONST_1 }, { 255, LOC_UNSIGNED_CONST_1 },
		{ 256, LOC_UNSIGNED_CONST_2 }, { 65535, LOC_UNSIGNED_CONST_2 },
		{ 65536, LOC_UNSIGNED_CONST_4 }, { 4294967295LL, LOC_UNSIGNED_CONST_4 },
		{ 4294967296LL, LOC_UNSIGNED_CONST_8 }, { INT64_MAX, LOC_UNSIGNED_CONST_8 },
		{ -1, LOC_SIGNED_CONST_1 }, { -128, LOC_SIGNED_CONST_1 },
		{ -129, LOC_SIGNED_CONST_2 }, { -32768, LOC_SIGNED_CONST_2 },
		{ -32769, LOC_SIGNED_CONST_4 }, { INT32_MIN, LOC_SIGNED_CONST_4 },
		{ INT32_MIN - 1LL, LOC_SIGNED_CONST_8 }, { INT64_MIN, LOC_SIGNED_CONST_8 },
	};
	unsigned int i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		EXPECT_EQ(cases[i].op, ink_loc_const_op(cases[i].v)) {
			TH_LOG("%lld", (long long)cases[i].v);
		}
}

TEST(arithmetic)
{
	EXPECT_EQ(5ULL, ink_loc_binary(LOC_ADD, 2, 3));
	EXPECT_EQ(0ULL, ink_loc_binary(LOC_ADD, UINT64_MAX, 1));	/* wraps */
	EXPECT_EQ(UINT64_MAX, ink_loc_binary(LOC_SUB, 2, 3));
	EXPECT_EQ(0x8000000000000000ULL, ink_loc_binary(LOC_MUL, 0x4000000000000000ULL, 2));
	EXPECT_EQ(0ULL, ink_loc_binary(LOC_MUL, 0x8000000000000000ULL, 2));	/* low 64 bits */
	EXPECT_EQ(0x0aULL, ink_loc_binary(LOC_AND, 0x0f, 0xaa));
	EXPECT_EQ(0xafULL, ink_loc_binary(LOC_OR, 0x0f, 0xaa));
	EXPECT_EQ(0xa5ULL, ink_loc_binary(LOC_XOR, 0x0f, 0xaa));
	EXPECT_EQ(UINT64_MAX, ink_loc_unary(LOC_NEG, 1, 0));
	EXPECT_EQ(0xfffffffffffffff0ULL, ink_loc_unary(LOC_NOT, 0x0f, 0));
	EXPECT_EQ(0x8000000000000000ULL, ink_loc_unary(LOC_SHL, 1, 63));
	EXPECT_EQ(0x4000000000000000ULL, ink_loc_unary(LOC_SHR, 0x8000000000000000ULL, 1));
	EXPECT_EQ(0xc000000000000000ULL, ink_loc_unary(LOC_SHRA, 0x8000000000000000ULL, 1));
	EXPECT_EQ(1ULL, ink_loc_unary(LOC_SHRA, 0x4000000000000000ULL, 62));
}

TEST_HARNESS_MAIN
