/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Location expression operators (uapi/inkprobe.h, enum btf_inline_loc_op;
 * Documentation/blob-format.rst, "Location expressions"): one table of
 * what each operator is, and the decoding, encoding and arithmetic that
 * follow from it.  The validator (blob.c), the module's interpreter
 * (module/fetch.c), the encoder (user/gen/loc_encode.c) and dump
 * (user/tool/dump.c) all read it; none keeps a list of operators of its own.
 */
#ifndef _INKPROBE_LOC_OP_H
#define _INKPROBE_LOC_OP_H

#include "compat.h"
#include "../uapi/inkprobe.h"

/* The bytes after an operator's tag, and where ink_loc_decode() puts them. */
enum ink_loc_operand {
	INK_OPND_NONE,
	INK_OPND_S8,		/* val, sign-extended */
	INK_OPND_S16,
	INK_OPND_S32,
	INK_OPND_S64,
	INK_OPND_U8,		/* val, zero-extended */
	INK_OPND_U16,
	INK_OPND_U32,
	INK_OPND_U64,
	INK_OPND_REG,		/* u8 DWARF register: reg */
	INK_OPND_REG_OFF,	/* u8 DWARF register, s64 offset: reg, val */
	INK_OPND_SIZE,		/* u8 access size, 1, 2, 4 or 8: size */
	INK_OPND_SHIFT,		/* u8 shift count, 0-63: val */
	INK_OPND_SYM_OFF,	/* u32 SYMBOLS index, s32 offset: sym, val */
	INK_OPND_MAX,
};

/* What an operator does. */
enum ink_loc_effect {
	INK_EFF_END,		/* ends the expression */
	INK_EFF_CONST,		/* pushes val */
	INK_EFF_REG,		/* pushes register reg, plus val */
	INK_EFF_SYM,		/* pushes the runtime address of symbol sym, plus val */
	INK_EFF_DEREF,		/* the top becomes the size bytes of memory at it */
	INK_EFF_BINARY,		/* pops b, pops a, pushes a OP b: ink_loc_binary() */
	INK_EFF_UNARY,		/* the top a becomes OP a (shifts: by val): ink_loc_unary() */
	INK_EFF_PIECE,		/* pops the only value: its low size bytes are the next piece */
};

struct ink_loc_op_info {
	const char *name;	/* as uapi/inkprobe.h names it, without LOC_ */
	const char *sym;	/* BINARY and UNARY: the operator in dump's C-like notation */
	u8 operand;		/* enum ink_loc_operand */
	u8 effect;		/* enum ink_loc_effect */
	u8 pops;		/* values it takes from the stack */
	u8 pushes;		/* values it puts on the stack */
};

/* Indexed by operator (every one below LOC_OP_MAX is defined). */
extern const struct ink_loc_op_info ink_loc_ops[LOC_OP_MAX];
/* Bytes of each kind of operand. */
extern const u8 ink_loc_operand_len[INK_OPND_MAX];

/* One decoded operator. */
struct ink_loc_op {
	u8 op;
	u8 reg;			/* INK_OPND_REG, INK_OPND_REG_OFF */
	u8 size;		/* INK_OPND_SIZE */
	u32 sym;		/* INK_OPND_SYM_OFF: index into SYMBOLS */
	s64 val;		/* constants, offsets, shift counts */
};

/* The encoded length of operator @op (tag and operands); @op below LOC_OP_MAX. */
static inline u32 ink_loc_op_len(u8 op)
{
	return 1 + ink_loc_operand_len[ink_loc_ops[op].operand];
}

/*
 * Decode the operator at @p with @avail bytes left.  Returns its encoded
 * length, or 0 if it is unknown or truncated.  Operand values are not checked.
 */
u32 ink_loc_decode(const u8 *p, u32 avail, struct ink_loc_op *op);

/*
 * Encode @op at @p (room for ink_loc_op_len(op->op) bytes): the inverse of
 * ink_loc_decode().  Returns the length.
 */
u32 ink_loc_encode(u8 *p, const struct ink_loc_op *op);

/* The shortest constant operator that pushes @v: signed when @v < 0. */
u8 ink_loc_const_op(s64 v);

/* a OP b for a binary operator (two's complement, wrapping, as evaluated). */
static __always_inline u64 ink_loc_binary(u8 op, u64 a, u64 b)
{
	switch (op) {
	case LOC_ADD:
		return a + b;
	case LOC_SUB:
		return a - b;
	case LOC_MUL:
		return a * b;
	case LOC_AND:
		return a & b;
	case LOC_OR:
		return a | b;
	default:	/* LOC_XOR */
		return a ^ b;
	}
}

/* OP a for a unary operator; @n: the shift count (0-63, validated). */
static __always_inline u64 ink_loc_unary(u8 op, u64 a, u64 n)
{
	switch (op) {
	case LOC_NEG:
		return -a;
	case LOC_NOT:
		return ~a;
	case LOC_SHL:
		return a << n;
	case LOC_SHR:
		return a >> n;
	default:	/* LOC_SHRA */
		return (u64)((s64)a >> n);
	}
}

#endif /* _INKPROBE_LOC_OP_H */
