// SPDX-License-Identifier: GPL-2.0
/*
 * The location operators' table, and decoding and encoding one operator
 * from it.  See loc_op.h and Documentation/blob-format.rst.
 */
#include "loc_op.h"

#define OP(_op, _operand, _effect, _pops, _pushes, _sym)		\
	[LOC_##_op] = { .name = #_op, .sym = _sym, .operand = INK_OPND_##_operand, \
			.effect = INK_EFF_##_effect, .pops = _pops, .pushes = _pushes }

const struct ink_loc_op_info ink_loc_ops[LOC_OP_MAX] = {
	OP(END_OF_EXPR,		NONE,		END,	0, 0, NULL),
	OP(SIGNED_CONST_1,	S8,		CONST,	0, 1, NULL),
	OP(SIGNED_CONST_2,	S16,		CONST,	0, 1, NULL),
	OP(SIGNED_CONST_4,	S32,		CONST,	0, 1, NULL),
	OP(SIGNED_CONST_8,	S64,		CONST,	0, 1, NULL),
	OP(UNSIGNED_CONST_1,	U8,		CONST,	0, 1, NULL),
	OP(UNSIGNED_CONST_2,	U16,		CONST,	0, 1, NULL),
	OP(UNSIGNED_CONST_4,	U32,		CONST,	0, 1, NULL),
	OP(UNSIGNED_CONST_8,	U64,		CONST,	0, 1, NULL),
	OP(REGISTER,		REG,		REG,	0, 1, NULL),
	OP(REGISTER_OFFSET,	REG_OFF,	REG,	0, 1, NULL),
	OP(DEREF,		SIZE,		DEREF,	1, 1, NULL),
	OP(SYMBOL_ADDR,		SYM_OFF,	SYM,	0, 1, NULL),
	OP(PIECE,		SIZE,		PIECE,	1, 0, NULL),
	OP(ADD,			NONE,		BINARY,	2, 1, "+"),
	OP(SUB,			NONE,		BINARY,	2, 1, "-"),
	OP(MUL,			NONE,		BINARY,	2, 1, "*"),
	OP(AND,			NONE,		BINARY,	2, 1, "&"),
	OP(OR,			NONE,		BINARY,	2, 1, "|"),
	OP(XOR,			NONE,		BINARY,	2, 1, "^"),
	OP(NEG,			NONE,		UNARY,	1, 1, "-"),
	OP(NOT,			NONE,		UNARY,	1, 1, "~"),
	OP(SHL,			SHIFT,		UNARY,	1, 1, "<<"),
	OP(SHR,			SHIFT,		UNARY,	1, 1, ">>"),
	OP(SHRA,		SHIFT,		UNARY,	1, 1, ">>s"),
};

const u8 ink_loc_operand_len[INK_OPND_MAX] = {
	[INK_OPND_NONE]		= 0,
	[INK_OPND_S8]		= 1,
	[INK_OPND_S16]		= 2,
	[INK_OPND_S32]		= 4,
	[INK_OPND_S64]		= 8,
	[INK_OPND_U8]		= 1,
	[INK_OPND_U16]		= 2,
	[INK_OPND_U32]		= 4,
	[INK_OPND_U64]		= 8,
	[INK_OPND_REG]		= 1,
	[INK_OPND_REG_OFF]	= 9,
	[INK_OPND_SIZE]		= 1,
	[INK_OPND_SHIFT]	= 1,
	[INK_OPND_SYM_OFF]	= 8,
};

u32 ink_loc_decode(const u8 *p, u32 avail, struct ink_loc_op *op)
{
	const u8 *a = p + 1;
	u32 n;

	if (!avail || p[0] >= LOC_OP_MAX || !ink_loc_ops[p[0]].name)
		return 0;
	n = ink_loc_op_len(p[0]);
	if (n > avail)
		return 0;
	memset(op, 0, sizeof(*op));
	op->op = p[0];
	switch (ink_loc_ops[op->op].operand) {
	case INK_OPND_S8:
		op->val = (s8)a[0];
		break;
	case INK_OPND_S16:
		op->val = (s16)ink_get16(a);
		break;
	case INK_OPND_S32:
		op->val = (s32)ink_get32(a);
		break;
	case INK_OPND_S64:
	case INK_OPND_U64:
		op->val = (s64)ink_get64(a);
		break;
	case INK_OPND_U8:
	case INK_OPND_SHIFT:
		op->val = a[0];
		break;
	case INK_OPND_U16:
		op->val = ink_get16(a);
		break;
	case INK_OPND_U32:
		op->val = ink_get32(a);
		break;
	case INK_OPND_REG:
		op->reg = a[0];
		break;
	case INK_OPND_REG_OFF:
		op->reg = a[0];
		op->val = (s64)ink_get64(a + 1);
		break;
	case INK_OPND_SIZE:
		op->size = a[0];
		break;
	case INK_OPND_SYM_OFF:
		op->sym = ink_get32(a);
		op->val = (s32)ink_get32(a + 4);
		break;
	default:
		break;
	}
	return n;
}

/* Little-endian stores (the host is little-endian: compat.h). */
static void put_le(u8 *p, u64 v, u32 bytes)
{
	memcpy(p, &v, bytes);
}

u32 ink_loc_encode(u8 *p, const struct ink_loc_op *op)
{
	u8 operand = ink_loc_ops[op->op].operand;

	p[0] = op->op;
	switch (operand) {
	case INK_OPND_REG:
		p[1] = op->reg;
		break;
	case INK_OPND_REG_OFF:
		p[1] = op->reg;
		put_le(p + 2, (u64)op->val, 8);
		break;
	case INK_OPND_SIZE:
		p[1] = op->size;
		break;
	case INK_OPND_SYM_OFF:
		put_le(p + 1, op->sym, 4);
		put_le(p + 5, (u64)op->val, 4);
		break;
	default:	/* constants and shift counts: val, in the operand's bytes */
		put_le(p + 1, (u64)op->val, ink_loc_operand_len[operand]);
		break;
	}
	return ink_loc_op_len(op->op);
}

u8 ink_loc_const_op(s64 v)
{
	u32 bits, best_bits = 65;
	u8 op, best = LOC_END_OF_EXPR;

	for (op = 0; op < LOC_OP_MAX; op++) {
		const struct ink_loc_op_info *i = &ink_loc_ops[op];
		bool is_signed = i->operand >= INK_OPND_S8 && i->operand <= INK_OPND_S64;

		if (i->effect != INK_EFF_CONST || is_signed != (v < 0))
			continue;
		bits = 8 * ink_loc_operand_len[i->operand];
		if (bits < 64 && (is_signed ? v < -((s64)1 << (bits - 1)) : (u64)v >> bits))
			continue;	/* does not fit */
		if (bits < best_bits) {
			best = op;
			best_bits = bits;
		}
	}
	return best;
}
