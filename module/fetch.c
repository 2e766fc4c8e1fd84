// SPDX-License-Identifier: GPL-2.0
/*
 * Fetch arguments: [NAME=]EXPR[:TYPE]
 *   EXPR  PARAM | PARAM->FIELD[{->|.}FIELD...] | $argN | $comm | $retval |
 *         $duration
 *         ("->" reads the pointer before it, "." names a member in place)
 *   TYPE  u8 u16 u32 u64 s8 s16 s32 s64 x8 x16 x32 x64 string
 *
 * Parsing is syntax only; compilation resolves a parameter and its fields
 * in each instance's BTF, since instances of one name may differ.
 * Evaluation runs in the kprobe handler: no allocation, no locks, every
 * memory read through copy_from_kernel_nofault().
 */
#include <linux/ctype.h>
#include <linux/kprobes.h>
#include <linux/slab.h>
#include <linux/uaccess.h>

#include "inkprobe.h"
#include "blob_store.h"
#include "error_log.h"
#include "fetch.h"
#include "probe_event.h"
#include "../lib/blob.h"
#include "../lib/btf_lite.h"
#include "../lib/loc_op.h"

/*
 * The types, as trace_probe.c's fetch types: name, field and print fmt.
 * Hex is a way of printing: its field is unsigned, as kprobe_events has it.
 * A string's field is the kernel's __string (char is signed).
 */
#define INK_INT_TYPE(k, bits, sgn, fty, pfmt, ofmt) \
	{ #k #bits, (bits) / 8, sgn, false, fty #bits, pfmt, "REC->%s", " %s=" ofmt }

static const struct ink_type ink_types[] = {
	INK_INT_TYPE(u, 8, false, "u", "%u", "%llu"),
	INK_INT_TYPE(u, 16, false, "u", "%u", "%llu"),
	INK_INT_TYPE(u, 32, false, "u", "%u", "%llu"),
	INK_INT_TYPE(u, 64, false, "u", "%llu", "%llu"),
	INK_INT_TYPE(s, 8, true, "s", "%d", "%lld"),
	INK_INT_TYPE(s, 16, true, "s", "%d", "%lld"),
	INK_INT_TYPE(s, 32, true, "s", "%d", "%lld"),
	INK_INT_TYPE(s, 64, true, "s", "%lld", "%lld"),
	INK_INT_TYPE(x, 8, false, "u", "0x%x", "0x%llx"),
	INK_INT_TYPE(x, 16, false, "u", "0x%x", "0x%llx"),
	INK_INT_TYPE(x, 32, false, "u", "0x%x", "0x%llx"),
	INK_INT_TYPE(x, 64, false, "u", "0x%llx", "0x%llx"),
	{ "string", sizeof(u32), true, true, "__data_loc char[]", "\\\"%s\\\"", "__get_str(%s)",
	  " %s=\"%s\"" },
};

const struct ink_type *ink_type_by_name(const char *name)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(ink_types); i++)
		if (!strcmp(name, ink_types[i].name))
			return &ink_types[i];
	return NULL;
}

const struct ink_type *ink_type_scalar(unsigned int size, bool is_signed, bool is_hex)
{
	char kind = is_hex ? 'x' : is_signed ? 's' : 'u';	/* as the names start */
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(ink_types); i++)
		if (!ink_types[i].is_string && ink_types[i].name[0] == kind &&
		    ink_types[i].size == size)
			return &ink_types[i];
	return NULL;
}

static bool ident(const char *s, size_t n)
{
	size_t i;

	if (!n || n >= INK_NAME_LEN || !(isalpha(s[0]) || s[0] == '_'))
		return false;
	for (i = 1; i < n; i++)
		if (!(isalnum(s[i]) || s[i] == '_'))
			return false;
	return true;
}

int ink_fetch_parse(struct ink_fetch *f, const char *arg)
{
	const char *expr = arg, *eq, *colon, *end, *p;

	memset(f, 0, sizeof(*f));
	eq = strchr(arg, '=');
	if (eq) {
		if (!ident(arg, eq - arg)) {
			ink_log_err(0, "bad argument name");
			return -EINVAL;
		}
		memcpy(f->name, arg, eq - arg);
		expr = eq + 1;
	}
	colon = strrchr(expr, ':');
	end = colon ? colon : expr + strlen(expr);
	if (colon) {
		f->type = ink_type_by_name(colon + 1);
		if (!f->type) {
			ink_log_err(colon + 1 - arg, "unknown type");
			return -EINVAL;
		}
		f->typed = true;
	}

	if (end - expr == 5 && !strncmp(expr, "$comm", 5)) {
		if (f->typed && !f->type->is_string) {
			ink_log_err(colon + 1 - arg, "$comm is a string");
			return -EINVAL;
		}
		f->comm = true;
		f->type = ink_type_by_name("string");
		if (!*f->name)
			strscpy(f->name, "comm", sizeof(f->name));
		goto done;
	}
	if (end - expr == 7 && !strncmp(expr, "$retval", 7)) {
		if (f->typed && f->type->is_string) {
			ink_log_err(colon + 1 - arg, "$retval is not a string");
			return -EINVAL;
		}
		f->retval = true;
		if (!*f->name)
			strscpy(f->name, "retval", sizeof(f->name));
		goto done;
	}
	if (end - expr == 9 && !strncmp(expr, "$duration", 9)) {
		if (f->typed && strcmp(f->type->name, "u64")) {
			ink_log_err(colon + 1 - arg, "$duration is u64 nanoseconds");
			return -EINVAL;
		}
		f->duration = true;
		f->type = ink_type_by_name("u64");
		if (!*f->name)
			strscpy(f->name, "duration", sizeof(f->name));
		goto done;
	}
	if (end - expr > 4 && !strncmp(expr, "$arg", 4)) {
		int n = 0;

		for (p = expr + 4; p < end && isdigit(*p) && n < 1000; p++)
			n = n * 10 + (*p - '0');
		if (p != end || n < 1) {
			ink_log_err(expr - arg, "bad $argN");
			return -EINVAL;
		}
		f->argn = n;
		p = end;
	} else {
		for (p = expr; p < end && !(p[0] == '-' && p[1] == '>') && *p != '.'; p++)
			;
		if (!ident(expr, p - expr)) {
			ink_log_err(expr - arg,
				    expr[0] == '%' || expr[0] == '@' || expr[0] == '+' ?
				    "registers and addresses are not arguments here: name a parameter" :
				    "bad argument: expected a parameter name, $argN or $comm");
			return -EINVAL;
		}
		memcpy(f->param, expr, p - expr);
	}
	while (p < end) {
		bool arrow = p[0] == '-' && p[1] == '>';
		const char *q = p + (arrow ? 2 : 1);

		if (!arrow && (p[0] != '.' || !f->nr_fields)) {
			ink_log_err(p - arg, "expected ->FIELD");
			return -EINVAL;
		}
		for (p = q; p < end && !(p[0] == '-' && p[1] == '>') && *p != '.'; p++)
			;
		if (f->nr_fields == INK_MAX_FIELDS) {
			ink_log_err(q - arg, "at most %d fields", INK_MAX_FIELDS);
			return -E2BIG;
		}
		if (!ident(q, p - q)) {
			ink_log_err(q - arg, "bad field name");
			return -EINVAL;
		}
		f->arrow[f->nr_fields] = arrow;
		f->nr_reads += arrow;
		memcpy(f->field[f->nr_fields++], q, p - q);
	}
	if (!*f->name) {
		if (f->nr_fields)
			strscpy(f->name, f->field[f->nr_fields - 1], sizeof(f->name));
		else if (f->argn)
			snprintf(f->name, sizeof(f->name), "arg%d", f->argn);
		else
			strscpy(f->name, f->param, sizeof(f->name));
	}
done:
	f->text = kstrdup(arg, GFP_KERNEL);
	return f->text ? 0 : -ENOMEM;
}

void ink_fetch_free(struct ink_fetch *f)
{
	kfree(f->text);
	f->text = NULL;
}

/* pt_regs offsets of DWARF registers 0-15 (x86-64 numbering) */
static const u8 dwarf_reg_off[16] = {
	offsetof(struct pt_regs, ax), offsetof(struct pt_regs, dx),
	offsetof(struct pt_regs, cx), offsetof(struct pt_regs, bx),
	offsetof(struct pt_regs, si), offsetof(struct pt_regs, di),
	offsetof(struct pt_regs, bp), offsetof(struct pt_regs, sp),
	offsetof(struct pt_regs, r8), offsetof(struct pt_regs, r9),
	offsetof(struct pt_regs, r10), offsetof(struct pt_regs, r11),
	offsetof(struct pt_regs, r12), offsetof(struct pt_regs, r13),
	offsetof(struct pt_regs, r14), offsetof(struct pt_regs, r15),
};

/*
 * Most locations are one register (plus an offset) or one constant: those
 * are resolved here, once, rather than decoded at every hit.
 */
static void classify_loc(struct ink_probe_arg *a)
{
	struct ink_loc_op op, end;
	u32 n = ink_loc_decode(a->loc, LOC_MAX_EXPR_LEN, &op);

	if (!n || !ink_loc_decode(a->loc + n, LOC_MAX_EXPR_LEN - n, &end) ||
	    end.op != LOC_END_OF_EXPR)
		return;
	switch (ink_loc_ops[op.op].effect) {
	case INK_EFF_REG:
		a->base_reg = true;
		a->reg_off = dwarf_reg_off[op.reg & 15];	/* validated: 0-15 */
		a->val = op.val;
		break;
	case INK_EFF_CONST:
		a->base_const = true;
		a->val = op.val;
		break;
	}
}

/* How a hit takes argument @f of this instance (ink_fetch()). */
static u8 fetch_op(const struct ink_fetch *f, const struct ink_probe_arg *a)
{
	if (f->comm)
		return INK_OP_COMM;
	if (f->retval)
		return a->base_reg ? INK_OP_REG : INK_OP_NONE;
	if (!a->loc)
		return INK_OP_NONE;
	if (f->type->is_string)
		return INK_OP_EVAL;
	if (a->base_reg && !f->nr_reads)
		return INK_OP_REG;
	if (a->base_const && !f->nr_reads)
		return INK_OP_CONST;
	if (a->base_reg && f->nr_reads == 1)
		return INK_OP_REG_MEM;
	return INK_OP_EVAL;
}

/*
 * Where :string finds the characters of type @id: in place (an array of
 * char), or where it points (a pointer to char); typedefs, const and
 * volatile aside.  -EINVAL for anything else.
 */
static int string_source(const struct ink_btf *btf, u32 id, bool *in_place)
{
	const struct btf_type *t = ink_btf_skip_mods(btf, &id);
	u32 kind = t ? ink_btf_kind(t) : 0;

	if (kind == BTF_KIND_PTR)
		id = t->type;
	else if (kind == BTF_KIND_ARRAY)
		id = ((const struct btf_array *)(t + 1))->type;
	else
		return -EINVAL;
	*in_place = kind == BTF_KIND_ARRAY;
	t = ink_btf_skip_mods(btf, &id);
	if (!t || ink_btf_kind(t) != BTF_KIND_INT || ink_btf_size(btf, id) != 1 ||
	    (BTF_INT_ENCODING(*(const u32 *)(t + 1)) & BTF_INT_BOOL))
		return -EINVAL;
	return 0;
}

int ink_fetch_compile(struct ink_fetch *f, struct ink_probe_arg *a, const struct ink_target *t,
		      const struct ink_instance *in, bool first)
{
	const struct ink_btf *btf = &t->btf;
	const struct btf_type *proto = ink_btf_func_proto(btf, in->callee_id);
	const struct btf_param *params;
	const char *func = ink_btf_name(btf, in->callee_id);
	const struct ink_type *type;
	struct ink_scalar sc;
	u32 type_id, idx, j, off;
	int r;

	memset(a, 0, sizeof(*a));
	if (f->comm) {
		a->op = INK_OP_COMM;
		return 0;
	}
	if (f->duration) {	/* the hit's, not the instance's: fill() writes it */
		a->op = INK_OP_DURATION;
		a->size = f->type->size;
		return 0;
	}
	params = ink_btf_params(proto);
	if (f->retval) {
		/*
		 * In %ax when an out-of-line copy returns (its kretprobe); an
		 * inlined copy's exits have no location for it in the blob.
		 */
		type_id = proto->type;
		if (!type_id) {
			ink_log_err(0, "%s returns void: no $retval", func);
			return -EINVAL;
		}
		if (in->flags & BTF_INLINE_EXT_OUT_OF_LINE) {
			a->base_reg = true;
			a->reg_off = offsetof(struct pt_regs, ax);
		}
		goto typed;
	}
	if (f->argn) {
		idx = f->argn - 1;
		if (idx >= in->nr_parms) {
			ink_log_err(0, "%s has %u parameters", func, in->nr_parms);
			return -ENOENT;
		}
	} else {
		for (idx = 0; idx < in->nr_parms; idx++)
			if (!strcmp(ink_btf_str(btf, params[idx].name_off), f->param))
				break;
		if (idx == in->nr_parms) {
			ink_log_err(0, "%s has no parameter '%s'", func, f->param);
			return -ENOENT;
		}
	}
	off = ink_instance_parm(in, idx);
	a->loc = t->blob.loc + off;
	if (*a->loc == LOC_END_OF_EXPR)
		a->loc = NULL;
	else
		classify_loc(a);

	/* one memory read per "->": its offset sums the members up to the next */
	type_id = params[idx].type;
	for (j = 0, r = -1; j < f->nr_fields; j++) {
		const struct btf_type *pt = ink_btf_skip_mods(btf, &type_id);
		u32 bit_off, member_type, kind = pt ? ink_btf_kind(pt) : 0;

		if (f->arrow[j] && kind != BTF_KIND_PTR) {
			ink_log_err(0, "'%s' is not a pointer to a struct",
				    j ? f->field[j - 1] : f->param);
			return -EINVAL;
		}
		if (!f->arrow[j] && kind != BTF_KIND_STRUCT && kind != BTF_KIND_UNION) {
			ink_log_err(0, "'%s' is not a struct: use ->", f->field[j - 1]);
			return -EINVAL;
		}
		if (f->arrow[j]) {
			type_id = pt->type;
			a->field_off[++r] = 0;
		}
		if (ink_btf_member(btf, type_id, f->field[j], &bit_off, &member_type)) {
			ink_log_err(0, "no field '%s' in %s", f->field[j],
				    ink_btf_name(btf, type_id));
			return -ENOENT;
		}
		if (bit_off % 8) {
			ink_log_err(0, "'%s' is a bitfield", f->field[j]);
			return -EOPNOTSUPP;
		}
		a->field_off[r] += bit_off / 8;
		type_id = member_type;
	}

	if (f->typed && f->type->is_string) {
		/* an array is read where it is: its last "->" reads no pointer */
		if (string_source(btf, type_id, &a->in_place) || (a->in_place && !f->nr_reads)) {
			ink_log_err(strrchr(f->text, ':') + 1 - f->text,
				    "'%s' is not a pointer to or an array of char: not a string",
				    f->name);
			return -EINVAL;
		}
		goto out;
	}
typed:
	if (f->typed)
		goto out;
	ink_btf_scalar(btf, type_id, &sc);
	type = sc.size ? ink_type_scalar(sc.size, sc.is_signed, sc.is_hex) : NULL;
	if (!type) {
		ink_log_err(0, "'%s' is not a scalar: give a :TYPE", f->name);
		return -EINVAL;
	}
	if (first) {
		f->type = type;
	} else if (f->type != type) {
		ink_log_err(0, "instances disagree on the type of '%s': give a :TYPE", f->name);
		return -EINVAL;
	}
out:
	a->size = f->type->size;
	a->op = fetch_op(f, a);
	return 0;
}

/* ------------------------------------------------------------------ */
/* Handler side                                                        */

static unsigned long reg_at(const struct pt_regs *regs, u8 off)
{
	return *(const unsigned long *)((const char *)regs + off);
}
NOKPROBE_SYMBOL(reg_at);

static unsigned long dwarf_reg(const struct pt_regs *regs, u8 r)
{
	return reg_at(regs, dwarf_reg_off[r & 15]);
}
NOKPROBE_SYMBOL(dwarf_reg);

static bool read_mem(u64 *val, unsigned long addr, u8 size)
{
	u64 v = 0;

	if (copy_from_kernel_nofault(&v, (const void *)addr, size))
		return false;
	*val = v;	/* little-endian: zero-extended */
	return true;
}
NOKPROBE_SYMBOL(read_mem);

/* Evaluates a validated location expression. */
static enum ink_arg_state eval_loc(const u8 *e, const struct pt_regs *regs,
				   const unsigned long *sym_addr, u64 *out)
{
	u64 st[LOC_MAX_STACK], acc = 0;
	unsigned int sp = 0, bytes = 0, steps;
	struct ink_loc_op op;
	u32 n;

	for (steps = 0; steps < LOC_MAX_EXPR_LEN; steps++) {
		n = ink_loc_decode(e, LOC_MAX_EXPR_LEN, &op);
		e += n;
		switch (ink_loc_ops[op.op].effect) {
		case INK_EFF_END:
			*out = bytes ? acc : st[0];
			return INK_ARG_OK;
		case INK_EFF_CONST:
			st[sp++] = op.val;
			break;
		case INK_EFF_REG:	/* val: 0 for LOC_REGISTER */
			st[sp++] = dwarf_reg(regs, op.reg) + op.val;
			break;
		case INK_EFF_SYM:
			if (!sym_addr[op.sym])	/* did not match kallsyms */
				return INK_ARG_UNAVAILABLE;
			st[sp++] = sym_addr[op.sym] + op.val;
			break;
		case INK_EFF_DEREF:
			if (!read_mem(&st[sp - 1], st[sp - 1], op.size))
				return INK_ARG_FAULT;
			break;
		case INK_EFF_PIECE:
			if (op.size < 8)
				st[sp - 1] &= (1ULL << (8 * op.size)) - 1;
			acc |= st[--sp] << (8 * bytes);
			bytes += op.size;
			break;
		case INK_EFF_BINARY:
			sp--;
			st[sp - 1] = ink_loc_binary(op.op, st[sp - 1], st[sp]);
			break;
		case INK_EFF_UNARY:	/* shift counts 0-63: checked by the validator */
			st[sp - 1] = ink_loc_unary(op.op, st[sp - 1], op.val);
			break;
		}
	}
	return INK_ARG_UNAVAILABLE;	/* not reached on a validated blob */
}
NOKPROBE_SYMBOL(eval_loc);

/* A NUL-terminated string at @addr, read a page at a time. */
static enum ink_arg_state read_string(char *dst, unsigned long addr)
{
	size_t have = 0;

	while (have < INK_STR_LEN - 1) {
		size_t chunk = min_t(size_t, INK_STR_LEN - 1 - have,
				     PAGE_SIZE - ((addr + have) & ~PAGE_MASK));

		if (copy_from_kernel_nofault(dst + have, (const void *)(addr + have), chunk)) {
			if (!have)
				return INK_ARG_FAULT;
			break;
		}
		if (memchr(dst + have, '\0', chunk))
			return INK_ARG_OK;
		have += chunk;
	}
	dst[have] = '\0';
	return INK_ARG_OK;
}
NOKPROBE_SYMBOL(read_string);

enum ink_arg_state ink_fetch_eval(const struct ink_probe *p, unsigned int i,
				  struct pt_regs *regs, void *field, char *str)
{
	const struct ink_fetch *f = &p->ev->args[i];
	const struct ink_probe_arg *a = &p->args[i];
	enum ink_arg_state ret;
	unsigned int j, reads = f->nr_reads;
	u64 v;

	if (a->op == INK_OP_COMM) {
		memcpy(str, current->comm, min(TASK_COMM_LEN, INK_STR_LEN));
		str[min(TASK_COMM_LEN, INK_STR_LEN) - 1] = '\0';
		return INK_ARG_OK;
	}
	if (!a->loc)
		return INK_ARG_UNAVAILABLE;
	if (a->base_reg) {
		v = reg_at(regs, a->reg_off) + a->val;
	} else if (a->base_const) {
		v = a->val;
	} else {
		ret = eval_loc(a->loc, regs, p->target->sym_addr, &v);
		if (ret != INK_ARG_OK)
			return ret;
	}
	/* the pointers on the way, then the value itself or the string's address */
	if (reads && !str)
		reads--;
	for (j = 0; j < reads; j++) {
		if (j + 1 == f->nr_reads && a->in_place) {
			v += a->field_off[j];	/* a char array: its address */
			break;
		}
		if (!read_mem(&v, v + a->field_off[j], sizeof(u64)))
			return INK_ARG_FAULT;
	}
	if (str)
		return read_string(str, v);
	if (reads < f->nr_reads) {
		/* the last "->": the value, straight into the record */
		if (copy_from_kernel_nofault(field, (const void *)(v + a->field_off[reads]),
					     a->size))
			return INK_ARG_FAULT;
		return INK_ARG_OK;
	}
	ink_store(field, v, a->size);
	return INK_ARG_OK;
}
NOKPROBE_SYMBOL(ink_fetch_eval);
