// SPDX-License-Identifier: GPL-2.0
/*
 * One parameter's DWARF location at one pc -> a .BTF.inline location
 * expression.  Register arithmetic with constants is folded; anything that
 * cannot be said exactly becomes the empty expression, with a reason.
 * Never a wrong expression: when in doubt, empty.
 */
#include <dwarf.h>
#include <stdlib.h>
#include <string.h>

#include "gen.h"
#include "../../uapi/inkprobe.h"
#include "../../lib/blob.h"

const char *const loc_class_names[NR_LOC_CLASSES] = {
	[LOC_CLASS_LITERAL]	= "literal",
	[LOC_CLASS_REGISTER]	= "register",
	[LOC_CLASS_ARITHMETIC]	= "arithmetic",
	[LOC_CLASS_COMPOSITE]	= "composite",
	[LOC_CLASS_STACK]	= "stack",
	[LOC_CLASS_ADDRESS]	= "address",
	[LOC_CLASS_EMPTY]	= "empty",
};

const char *const loc_empty_names[NR_EMPTY_REASONS] = {
	[EMPTY_NOT_LISTED]	 = "not in the instance's DWARF (optimized out)",
	[EMPTY_NO_LOCATION]	 = "no location at the probe pc",
	[EMPTY_ENTRY_VALUE]	 = "entry value (caller's register at entry)",
	[EMPTY_IMPLICIT_POINTER] = "implicit pointer (object optimized out)",
	[EMPTY_PARAMETER_REF]	 = "GNU_parameter_ref (value only at the call site)",
	[EMPTY_REGISTER]	 = "not a general-purpose register",
	[EMPTY_AGGREGATE]	 = "aggregate not 1/2/4/8 bytes",
	[EMPTY_ARITHMETIC]	 = "arithmetic without exact encoding",
	[EMPTY_PIECES]		 = "pieces missing or wider than 8 bytes",
	[EMPTY_FRAME_BASE]	 = "frame base not register-relative",
	[EMPTY_NO_SYMBOL]	 = "address outside any symbol",
	[EMPTY_TOO_LONG]	 = "expression too long or too deep",
	[EMPTY_OTHER]		 = "other operator",
	[EMPTY_AMBIGUOUS]	 = "ambiguous: merged calls differ",
};

const char *const skip_names[NR_SKIP_REASONS] = {
	[SKIP_INIT]		= "init/exit or non-text section",
	[SKIP_NOINSTR]		= ".noinstr.text",
	[SKIP_ENTRY]		= ".entry.text",
	[SKIP_KPROBES]		= ".kprobes.text",
	[SKIP_BLACKLIST]	= "NOKPROBE_SYMBOL (_kprobe_blacklist)",
	[SKIP_NO_SYMBOL]	= "outside any symbol",
	[SKIP_DUP_INDEX]	= "more than 255 symbols of one name",
	[SKIP_BLACKLIST_PIECE]	= "NAME.suffix piece of a blacklisted NAME",
	[SKIP_JUMP_LABEL]	= "on a jump label site, no later pc",
	[SKIP_STATIC_CALL]	= "on a static call site, no later pc",
	[SKIP_BUG]		= "on a BUG/WARN ud2, no later pc",
	[SKIP_NOT_BOUNDARY]	= "not on an instruction boundary",
	[SKIP_UNCOPYABLE]	= "on an instruction kprobes cannot copy",
};

#define EXPR_MAX	(LOC_MAX_EXPR_LEN - 1)	/* without the terminator */

enum sval_kind { SV_CONST, SV_REGOFF, SV_SYMADDR, SV_CODE };

/*
 * A symbolic stack value: a constant, register + offset or symbol + offset
 * while it stays that simple (so offsets fold), else the code computing it.
 */
struct sval {
	enum sval_kind kind;
	uint8_t reg;
	uint8_t depth;		/* SV_CODE: stack slots its code needs */
	int64_t off;		/* CONST value, REGOFF/SYMADDR offset */
	uint32_t sym;
	uint32_t len;
	uint8_t bytes[EXPR_MAX];	/* SV_CODE */
};

struct xlate {
	const struct loc_ctx *ctx;
	struct sval st[LOC_MAX_STACK];
	int sp;
	struct buf *out;
	uint32_t piece_bytes;
	int npieces;
	bool fb, sym, arith;
	enum loc_empty_reason why;
};

/* Append operator @op, encoded as lib/loc_op.c's table says. */
static void emit_op(struct buf *b, struct ink_loc_op op)
{
	uint8_t bytes[16];

	buf_add(b, bytes, ink_loc_encode(bytes, &op));
}

/* Append the ops that push @v. */
static void emit_sval(struct buf *b, const struct sval *v)
{
	switch (v->kind) {
	case SV_CONST:
		emit_op(b, (struct ink_loc_op){ .op = ink_loc_const_op(v->off), .val = v->off });
		break;
	case SV_REGOFF:
		emit_op(b, (struct ink_loc_op){ .op = v->off ? LOC_REGISTER_OFFSET : LOC_REGISTER,
						.reg = v->reg, .val = v->off });
		break;
	case SV_SYMADDR:
		emit_op(b, (struct ink_loc_op){ .op = LOC_SYMBOL_ADDR, .sym = v->sym,
						.val = v->off });
		break;
	case SV_CODE:
		buf_add(b, v->bytes, v->len);
		break;
	}
}

static uint8_t sval_depth(const struct sval *v)
{
	return v->kind == SV_CODE ? v->depth : 1;
}

static bool fail(struct xlate *x, enum loc_empty_reason why)
{
	x->why = why;
	return false;
}

/*
 * @v becomes the code of: @a (may be NULL), @b (may be NULL), then the
 * operator bytes @ops.
 */
static bool make_code(struct xlate *x, struct sval *v, const struct sval *a,
		      const struct sval *b, const uint8_t *ops, size_t n)
{
	struct buf code = { 0 };
	unsigned int depth = 1;
	bool ok;

	if (a) {
		emit_sval(&code, a);
		depth = sval_depth(a);
	}
	if (b) {
		emit_sval(&code, b);
		if (sval_depth(b) + (a ? 1U : 0U) > depth)
			depth = sval_depth(b) + (a ? 1U : 0U);
	}
	buf_add(&code, ops, n);
	ok = code.len <= EXPR_MAX && depth <= LOC_MAX_STACK;
	if (ok) {
		memcpy(v->bytes, code.data, code.len);
		v->len = (uint32_t)code.len;
		v->depth = (uint8_t)depth;
		v->kind = SV_CODE;
	}
	buf_free(&code);
	return ok ? true : fail(x, EMPTY_TOO_LONG);
}

static bool push(struct xlate *x, struct sval v)
{
	if (x->sp >= LOC_MAX_STACK)
		return fail(x, EMPTY_TOO_LONG);
	x->st[x->sp++] = v;
	return true;
}

static bool push_regoff(struct xlate *x, uint64_t reg, int64_t off)
{
	struct sval v = { .kind = SV_REGOFF, .off = off };

	if (reg > LOC_MAX_REGISTER)
		return fail(x, EMPTY_REGISTER);
	v.reg = (uint8_t)reg;
	return push(x, v);
}

static bool push_const(struct xlate *x, int64_t c)
{
	struct sval v = { .kind = SV_CONST, .off = c };

	return push(x, v);
}

/* CFA at the context's pc as register + offset, from the CFI. */
static bool cfa_at(const struct loc_ctx *ctx, uint8_t *reg, int64_t *off)
{
	struct worker *w = ctx->w;
	Dwarf_Frame *frame = NULL;
	Dwarf_Op *ops;
	size_t nops;
	bool ok = false;

	if (!w->cfi ||
	    dwarf_cfi_addrframe(w->cfi, ctx->pc + w->g->bias - w->cfi_bias, &frame))
		return false;
	if (!dwarf_frame_cfa(frame, &ops, &nops) && nops == 1) {
		if (ops[0].atom == DW_OP_bregx && ops[0].number <= LOC_MAX_REGISTER) {
			*reg = (uint8_t)ops[0].number;
			*off = (int64_t)ops[0].number2;
			ok = true;
		} else if (ops[0].atom >= DW_OP_breg0 && ops[0].atom <= DW_OP_breg15) {
			*reg = ops[0].atom - DW_OP_breg0;
			*off = (int64_t)ops[0].number;
			ok = true;
		}
	}
	free(frame);
	return ok;
}

/* The enclosing function's frame base at the pc, as register + offset. */
static bool frame_base(struct xlate *x, uint8_t *reg, int64_t *off)
{
	const struct loc_ctx *ctx = x->ctx;
	Dwarf_Attribute attr;
	Dwarf_Op *ops;
	size_t len;

	if (!ctx->subprogram ||
	    !dwarf_attr_integrate(ctx->subprogram, DW_AT_frame_base, &attr) ||
	    dwarf_getlocation_addr(&attr, ctx->pc, &ops, &len, 1) != 1 || len != 1)
		return false;
	if (ops[0].atom == DW_OP_call_frame_cfa)
		return cfa_at(ctx, reg, off);
	if (ops[0].atom >= DW_OP_breg0 && ops[0].atom <= DW_OP_breg15) {
		*reg = ops[0].atom - DW_OP_breg0;
		*off = (int64_t)ops[0].number;
		return true;
	}
	return false;
}

static bool is_access_size(uint64_t n)
{
	return n == 1 || n == 2 || n == 4 || n == 8;
}

/* Top of stack, dereferenced with @size. */
static bool deref(struct xlate *x, uint64_t size)
{
	uint8_t ops[2];
	struct sval *t;

	if (!x->sp)
		return fail(x, EMPTY_OTHER);
	if (!is_access_size(size))
		return fail(x, EMPTY_AGGREGATE);
	t = &x->st[x->sp - 1];
	return make_code(x, t, t, NULL, ops,
			 ink_loc_encode(ops, &(struct ink_loc_op){ .op = LOC_DEREF,
								   .size = (uint8_t)size }));
}

/* Fold "top += c" where it stays simple; else emit an addition. */
static bool add_const(struct xlate *x, int64_t c)
{
	struct sval *t = &x->st[x->sp - 1];
	struct sval k = { .kind = SV_CONST, .off = c };
	uint8_t op = LOC_ADD;

	if (t->kind != SV_CODE) {
		t->off = (int64_t)((uint64_t)t->off + (uint64_t)c);
		if (t->kind != SV_CONST)
			x->arith = true;
		return true;
	}
	x->arith = true;
	return make_code(x, t, t, &k, &op, 1);
}

/* DWARF binary operator -> our operator, and its folding. */
static bool binop(struct xlate *x, uint8_t atom)
{
	struct sval a, b, r;
	uint8_t op;

	if (x->sp < 2)
		return fail(x, EMPTY_OTHER);
	b = x->st[--x->sp];
	a = x->st[x->sp - 1];
	if (atom == DW_OP_plus && b.kind == SV_CONST)
		return add_const(x, b.off);
	if (atom == DW_OP_plus && a.kind == SV_CONST) {
		x->st[x->sp - 1] = b;
		return add_const(x, a.off);
	}
	if (atom == DW_OP_minus && b.kind == SV_CONST)
		return add_const(x, (int64_t)(0 - (uint64_t)b.off));
	if (atom == DW_OP_shl || atom == DW_OP_shr || atom == DW_OP_shra) {
		uint8_t ops[2];

		if (b.kind != SV_CONST || b.off < 0 || b.off > 63)
			return fail(x, EMPTY_ARITHMETIC);
		op = atom == DW_OP_shl ? LOC_SHL : atom == DW_OP_shr ? LOC_SHR : LOC_SHRA;
		if (a.kind == SV_CONST) {
			a.off = (int64_t)ink_loc_unary(op, (uint64_t)a.off, (uint64_t)b.off);
			x->st[x->sp - 1] = a;
			return true;
		}
		x->arith = true;
		return make_code(x, &x->st[x->sp - 1], &a, NULL, ops,
				 ink_loc_encode(ops, &(struct ink_loc_op){ .op = op, .val = b.off }));
	}
	switch (atom) {
	case DW_OP_plus:
		op = LOC_ADD;
		break;
	case DW_OP_minus:
		op = LOC_SUB;
		break;
	case DW_OP_mul:
		op = LOC_MUL;
		break;
	case DW_OP_and:
		op = LOC_AND;
		break;
	case DW_OP_or:
		op = LOC_OR;
		break;
	case DW_OP_xor:
		op = LOC_XOR;
		break;
	default:
		return fail(x, EMPTY_ARITHMETIC);
	}
	if (a.kind == SV_CONST && b.kind == SV_CONST) {
		r = a;
		r.off = (int64_t)ink_loc_binary(op, (uint64_t)a.off, (uint64_t)b.off);
		x->st[x->sp - 1] = r;
		return true;
	}
	x->arith = true;
	return make_code(x, &x->st[x->sp - 1], &a, &b, &op, 1);
}

static bool unop(struct xlate *x, uint8_t atom)
{
	struct sval *t;
	uint8_t op = atom == DW_OP_neg ? LOC_NEG : LOC_NOT;

	if (!x->sp)
		return fail(x, EMPTY_OTHER);
	t = &x->st[x->sp - 1];
	if (t->kind == SV_CONST) {
		t->off = (int64_t)ink_loc_unary(op, (uint64_t)t->off, 0);
		return true;
	}
	x->arith = true;
	return make_code(x, t, t, NULL, &op, 1);
}

/* DW_OP_dup, drop, swap, over, pick, rot: moves of symbolic values. */
static bool stackop(struct xlate *x, const Dwarf_Op *op)
{
	struct sval t;

	switch (op->atom) {
	case DW_OP_dup:
		return x->sp ? push(x, x->st[x->sp - 1]) : fail(x, EMPTY_OTHER);
	case DW_OP_drop:
		if (!x->sp)
			return fail(x, EMPTY_OTHER);
		x->sp--;
		return true;
	case DW_OP_over:
		return x->sp >= 2 ? push(x, x->st[x->sp - 2]) : fail(x, EMPTY_OTHER);
	case DW_OP_pick:
		return op->number < (uint64_t)x->sp ?
		       push(x, x->st[x->sp - 1 - (int)op->number]) : fail(x, EMPTY_OTHER);
	case DW_OP_swap:
		if (x->sp < 2)
			return fail(x, EMPTY_OTHER);
		t = x->st[x->sp - 1];
		x->st[x->sp - 1] = x->st[x->sp - 2];
		x->st[x->sp - 2] = t;
		return true;
	default:	/* DW_OP_rot */
		if (x->sp < 3)
			return fail(x, EMPTY_OTHER);
		t = x->st[x->sp - 1];
		x->st[x->sp - 1] = x->st[x->sp - 2];
		x->st[x->sp - 2] = x->st[x->sp - 3];
		x->st[x->sp - 3] = t;
		return true;
	}
}

static bool symaddr(struct xlate *x, uint64_t addr)
{
	struct gen *g = x->ctx->w->g;
	long s = gen_sym_at(g, addr, true);
	struct sval v = { .kind = SV_SYMADDR };

	if (s < 0)
		s = gen_sym_at(g, addr, false);
	if (s < 0)
		s = gen_sym_near(g, addr);
	if (s < 0)
		return fail(x, EMPTY_NO_SYMBOL);
	/* a per-CPU variable's "address" is its offset in the per-CPU area */
	if (g->syms[s].percpu)
		return push_const(x, (int64_t)addr);
	v.sym = (uint32_t)s;	/* gen.syms index: the writer renumbers it */
	v.off = (int64_t)(addr - g->syms[s].addr);
	x->sym = true;
	return push(x, v);
}

/*
 * DW_OP_entry_value(DW_OP_regN): regN as the function was entered.  At the
 * function's entry pc that is regN itself, and still after ftrace's call
 * there, which keeps every register.
 */
static bool entry_value(struct xlate *x, Dwarf_Attribute *attr, Dwarf_Op *op)
{
	Dwarf_Attribute sub;
	Dwarf_Op *ops;
	size_t n;
	unsigned int reg;

	if (!attr || !x->ctx->func_entry ||
	    (x->ctx->pc != x->ctx->func_entry && x->ctx->pc != x->ctx->fentry_end) ||
	    dwarf_getlocation_attr(attr, op, &sub) || dwarf_getlocation(&sub, &ops, &n) ||
	    n != 1)
		return fail(x, EMPTY_ENTRY_VALUE);
	if (ops[0].atom >= DW_OP_reg0 && ops[0].atom <= DW_OP_reg31)
		reg = ops[0].atom - DW_OP_reg0;
	else if (ops[0].atom == DW_OP_regx && ops[0].number < 32)
		reg = (unsigned int)ops[0].number;
	else
		return fail(x, EMPTY_ENTRY_VALUE);
	return push_regoff(x, reg, 0);
}

enum pending { PEND_NONE, PEND_REG, PEND_VALUE };

/* Emit the location described so far as a piece of @size bytes. */
static bool piece(struct xlate *x, enum pending *pend, uint8_t reg, struct sval *val,
		  uint64_t size)
{
	struct buf *o = x->out;

	if (!is_access_size(size) || x->piece_bytes + size > 8 ||
	    ++x->npieces > LOC_MAX_PIECES)
		return fail(x, EMPTY_PIECES);
	if (*pend == PEND_REG) {
		emit_op(o, (struct ink_loc_op){ .op = LOC_REGISTER, .reg = reg });
	} else if (*pend == PEND_VALUE) {
		emit_sval(o, val);
	} else if (x->sp == 1) {
		if (!deref(x, size))
			return false;
		emit_sval(o, &x->st[0]);
		x->sp = 0;
	} else {
		return fail(x, EMPTY_PIECES);	/* an optimized-out part */
	}
	emit_op(o, (struct ink_loc_op){ .op = LOC_PIECE, .size = (uint8_t)size });
	x->piece_bytes += (uint32_t)size;
	*pend = PEND_NONE;
	return true;
}

static bool translate(struct xlate *x, Dwarf_Attribute *attr, Dwarf_Op *ops, size_t n,
		      uint64_t type_size)
{
	enum pending pend = PEND_NONE;
	struct sval val = { 0 };
	uint8_t reg = 0, fb_reg;
	int64_t fb_off;
	Dwarf_Block blk;
	size_t i;

	for (i = 0; i < n; i++) {
		Dwarf_Op *op = &ops[i];
		uint8_t a = op->atom;

		if (pend != PEND_NONE && a != DW_OP_piece)
			return fail(x, EMPTY_OTHER);
		if (a >= DW_OP_reg0 && a <= DW_OP_reg31) {
			if (a - DW_OP_reg0 > LOC_MAX_REGISTER)
				return fail(x, EMPTY_REGISTER);
			reg = a - DW_OP_reg0;
			pend = PEND_REG;
			continue;
		}
		if (a >= DW_OP_breg0 && a <= DW_OP_breg31) {
			if (!push_regoff(x, a - DW_OP_breg0, (int64_t)op->number))
				return false;
			continue;
		}
		if (a >= DW_OP_lit0 && a <= DW_OP_lit31) {
			if (!push_const(x, a - DW_OP_lit0))
				return false;
			continue;
		}
		switch (a) {
		case DW_OP_regx:
			if (op->number > LOC_MAX_REGISTER)
				return fail(x, EMPTY_REGISTER);
			reg = (uint8_t)op->number;
			pend = PEND_REG;
			break;
		case DW_OP_bregx:
			if (!push_regoff(x, op->number, (int64_t)op->number2))
				return false;
			break;
		case DW_OP_fbreg:
			if (!frame_base(x, &fb_reg, &fb_off))
				return fail(x, EMPTY_FRAME_BASE);
			x->fb = true;
			if (!push_regoff(x, fb_reg, fb_off + (int64_t)op->number))
				return false;
			break;
		case DW_OP_call_frame_cfa:
			if (!cfa_at(x->ctx, &fb_reg, &fb_off))
				return fail(x, EMPTY_FRAME_BASE);
			x->fb = true;
			if (!push_regoff(x, fb_reg, fb_off))
				return false;
			break;
		case DW_OP_const1u:
		case DW_OP_const2u:
		case DW_OP_const4u:
		case DW_OP_const8u:
		case DW_OP_constu:
		case DW_OP_const1s:
		case DW_OP_const2s:
		case DW_OP_const4s:
		case DW_OP_const8s:
		case DW_OP_consts:
			if (!push_const(x, (int64_t)op->number))
				return false;
			break;
		case DW_OP_addr:
			if (!symaddr(x, op->number))
				return false;
			break;
		case DW_OP_plus_uconst:
			if (!x->sp)
				return fail(x, EMPTY_OTHER);
			if (!add_const(x, (int64_t)op->number))
				return false;
			break;
		case DW_OP_plus:
		case DW_OP_minus:
		case DW_OP_mul:
		case DW_OP_and:
		case DW_OP_or:
		case DW_OP_xor:
		case DW_OP_shl:
		case DW_OP_shr:
		case DW_OP_shra:
			if (!binop(x, a))
				return false;
			break;
		case DW_OP_neg:
		case DW_OP_not:
			if (!unop(x, a))
				return false;
			break;
		case DW_OP_dup:
		case DW_OP_drop:
		case DW_OP_over:
		case DW_OP_pick:
		case DW_OP_swap:
		case DW_OP_rot:
			if (!stackop(x, op))
				return false;
			break;
		case DW_OP_nop:
			break;
		case DW_OP_deref:
			if (!deref(x, 8))
				return false;
			break;
		case DW_OP_deref_size:
			if (!deref(x, op->number))
				return false;
			break;
		case DW_OP_stack_value:
			if (x->sp != 1)
				return fail(x, EMPTY_OTHER);
			val = x->st[--x->sp];
			pend = PEND_VALUE;
			if (val.kind == SV_REGOFF && val.off)
				x->arith = true;
			break;
		case DW_OP_implicit_value:
			if (!attr || dwarf_getlocation_implicit_value(attr, op, &blk) ||
			    blk.length > 8 || !blk.length)
				return fail(x, EMPTY_AGGREGATE);
			memset(&val, 0, sizeof(val));
			val.kind = SV_CONST;
			memcpy(&val.off, blk.data, blk.length);
			pend = PEND_VALUE;
			break;
		case DW_OP_piece:
			if (!piece(x, &pend, reg, &val, op->number))
				return false;
			break;
		case DW_OP_entry_value:
		case DW_OP_GNU_entry_value:
			if (!entry_value(x, attr, op))
				return false;
			break;
		case DW_OP_implicit_pointer:
		case DW_OP_GNU_implicit_pointer:
			return fail(x, EMPTY_IMPLICIT_POINTER);
		case DW_OP_GNU_parameter_ref:
			return fail(x, EMPTY_PARAMETER_REF);
		case DW_OP_div:
		case DW_OP_mod:
		case DW_OP_abs:
		case DW_OP_convert:
		case DW_OP_GNU_convert:
		case DW_OP_reinterpret:
		case DW_OP_GNU_reinterpret:
		case DW_OP_eq:
		case DW_OP_ne:
		case DW_OP_lt:
		case DW_OP_gt:
		case DW_OP_le:
		case DW_OP_ge:
			return fail(x, EMPTY_ARITHMETIC);
		default:
			return fail(x, EMPTY_OTHER);
		}
	}

	if (x->npieces) {
		if (pend != PEND_NONE || x->sp)
			return fail(x, EMPTY_PIECES);
		return true;
	}
	if (pend == PEND_REG) {
		emit_op(x->out, (struct ink_loc_op){ .op = LOC_REGISTER, .reg = reg });
		return true;
	}
	if (pend == PEND_VALUE) {
		emit_sval(x->out, &val);
		return true;
	}
	if (x->sp != 1)
		return fail(x, n ? EMPTY_OTHER : EMPTY_NO_LOCATION);
	/* a memory location: the parameter is at the computed address */
	if (!deref(x, type_size))
		return false;
	emit_sval(x->out, &x->st[0]);
	return true;
}

static int64_t sign_extend(uint64_t v, uint64_t bytes)
{
	unsigned int shift;

	if (!bytes || bytes >= 8)
		return (int64_t)v;
	shift = (unsigned int)(64 - 8 * bytes);
	return (int64_t)(v << shift) >> shift;
}

static bool const_value(struct xlate *x, Dwarf_Attribute *attr, const struct param_info *type,
			uint64_t type_size)
{
	Dwarf_Word u;
	Dwarf_Sword s;
	Dwarf_Block blk;
	int64_t v;

	switch (dwarf_whatform(attr)) {
	case DW_FORM_sdata:
	case DW_FORM_implicit_const:
		if (dwarf_formsdata(attr, &s))
			return fail(x, EMPTY_OTHER);
		v = s;
		break;
	case DW_FORM_block1:
	case DW_FORM_block2:
	case DW_FORM_block4:
	case DW_FORM_block:
		if (dwarf_formblock(attr, &blk) || !blk.length || blk.length > 8)
			return fail(x, EMPTY_AGGREGATE);
		u = 0;
		memcpy(&u, blk.data, blk.length);
		v = type->is_signed ? sign_extend(u, blk.length) : (int64_t)u;
		break;
	default:
		if (dwarf_formudata(attr, &u))
			return fail(x, EMPTY_OTHER);
		v = type->is_signed ? sign_extend(u, type_size) : (int64_t)u;
		break;
	}
	emit_op(x->out, (struct ink_loc_op){ .op = ink_loc_const_op(v), .val = v });
	return true;
}

/*
 * The location expression of @attr that holds at the pc of @ctx.  GCC's
 * location views give zero-length entries [pc, pc): the variable's
 * location between views at that address.  No instruction runs between
 * views, so such an entry describes the machine state a probe at pc sees;
 * it is preferred, as it is what holds at an inlined copy's entry
 * (DW_AT_GNU_entry_view).
 *
 * GCC does not see ftrace's call: it is emitted at the function's first
 * byte after variable tracking, and GCC 16 gives a copy inlined right
 * after it locations only as views at the function's entry, before the
 * call.  The call keeps every register and the stack pointer, so at the
 * pc after it (fentry_end) the last such entry still holds, when no entry
 * covers that pc.
 */
static bool location_at(Dwarf_Attribute *attr, const struct loc_ctx *ctx, Dwarf_Op **ops,
			size_t *len)
{
	Dwarf_Addr base, start, end, prev = 0, pc = ctx->pc;
	Dwarf_Op *e, *before = NULL;
	size_t elen, before_len = 0;
	ptrdiff_t off = 0;
	bool found = false;

	while ((off = dwarf_getlocations(attr, off, &base, &start, &end, &e, &elen)) > 0) {
		if (start == end && start == pc) {
			*ops = e;
			*len = elen;
			return true;
		}
		if (!found && start <= pc && pc < end) {
			*ops = e;
			*len = elen;
			found = true;
		}
		if (ctx->fentry_end && pc == ctx->fentry_end && start == end &&
		    start == ctx->func_entry) {
			before = e;
			before_len = elen;
		}
		/* GCC sorts its lists: once past pc in a sorted list, nothing more holds */
		if (start > pc && start >= prev)
			break;
		prev = start;
	}
	if (!found && before) {
		*ops = before;
		*len = before_len;
		found = true;
	}
	return found;
}

size_t loc_starts(Dwarf_Die *param, uint64_t lo, uint64_t hi, uint64_t *out, size_t max)
{
	Dwarf_Addr base, start, end;
	Dwarf_Attribute attr;
	Dwarf_Op *e;
	size_t elen, n = 0;
	ptrdiff_t off = 0;

	if (!param || !dwarf_attr(param, DW_AT_location, &attr))
		return 0;
	while (n < max && (off = dwarf_getlocations(&attr, off, &base, &start, &end, &e,
						    &elen)) > 0)
		if (start > lo && start <= hi)
			out[n++] = start;
	return n;
}

enum loc_class loc_encode(const struct loc_ctx *ctx, Dwarf_Die *param,
			  const struct param_info *type, struct buf *out,
			  enum loc_empty_reason *why)
{
	struct xlate x = { .ctx = ctx, .out = out, .why = EMPTY_NO_LOCATION };
	Dwarf_Attribute attr;
	Dwarf_Word type_size = type->size;
	Dwarf_Op *ops = NULL;
	size_t len = 0;
	bool ok = false;
	bool literal = false;

	out->len = 0;
	if (!param) {
		x.why = EMPTY_NOT_LISTED;
	} else if (dwarf_attr_integrate(param, DW_AT_const_value, &attr)) {
		ok = const_value(&x, &attr, type, type_size);
		literal = ok;
	} else if (dwarf_attr(param, DW_AT_location, &attr)) {
		if (location_at(&attr, ctx, &ops, &len))
			ok = translate(&x, &attr, ops, len, type_size);
	}
	if (ok && out->len + 1 > LOC_MAX_EXPR_LEN) {
		ok = false;
		x.why = EMPTY_TOO_LONG;
	}
	if (!ok) {
		out->len = 0;
		*why = x.why;
		return LOC_CLASS_EMPTY;
	}
	buf_add_u8(out, LOC_END_OF_EXPR);
	if (x.npieces)
		return LOC_CLASS_COMPOSITE;
	if (x.sym)
		return LOC_CLASS_ADDRESS;
	if (x.fb)
		return LOC_CLASS_STACK;
	if (x.arith)
		return LOC_CLASS_ARITHMETIC;
	if (literal || ink_loc_ops[out->data[0]].effect == INK_EFF_CONST)
		return LOC_CLASS_LITERAL;
	return LOC_CLASS_REGISTER;
}

uint32_t loc_intern(struct buf *table, struct hmap *map, const uint8_t *expr, size_t len)
{
	uint32_t off;

	if (!len || expr[0] == LOC_END_OF_EXPR)
		return 0;
	if (hmap_get(map, expr, len, &off))
		return off;
	off = (uint32_t)table->len;
	buf_add(table, expr, len);
	hmap_put(map, expr, len, off);
	return off;
}

size_t loc_expr_len(const uint8_t *p)
{
	struct ink_loc_op op;
	size_t pos = 0;
	uint32_t n;

	while ((n = ink_loc_decode(p + pos, LOC_MAX_EXPR_LEN, &op)) && op.op != LOC_END_OF_EXPR)
		pos += n;
	return pos + 1;
}
