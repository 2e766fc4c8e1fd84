/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * BPF programs at every instance of an inlined function, reading its
 * arguments themselves: the USDT model (Documentation/trace-events.rst,
 * "BPF programs at every instance").  For x86-64 kprobe programs:
 *
 *	#include <linux/bpf.h>
 *	#include <bpf/bpf_helpers.h>
 *	#include "inkprobe_site.bpf.h"
 *
 *	SEC("kprobe")
 *	int at_mix(struct pt_regs *ctx)
 *	{
 *		__s64 reg, weight;
 *
 *		if (inkprobe_arg(ctx, 0, &reg) || inkprobe_arg(ctx, 3, &weight))
 *			return 0;		(no value at this hit)
 *		...
 *	}
 *
 * and in user space user/site/inkprobe_attach.h puts the program at every
 * live instance of an inkprobe definition, each with its spec in the map
 * inkprobe_specs below: inkprobe_site_attach_obj() as a copy of the
 * program for each distinct spec, the spec in the copy's .rodata
 * (inkprobe_site_const below), which the verifier reads to keep only the
 * instructions that spec needs; inkprobe_site_attach() as the program
 * itself, which finds the spec in the map by its BPF cookie at each hit
 * (the cookie path).  The program is the same for both.  Argument i is
 * the definition's i-th FETCHARG, with the size and sign the trace event
 * gives it: an s32 argument comes sign-extended, a u16 zero-extended.
 *
 * inkprobe_arg() returns 0 with the value, or with *val = 0:
 *	-INKPROBE_ENODATA	no value here: the trace event's (optimized out)
 *	-INKPROBE_EFAULT	a memory read failed: the trace event's (fault)
 *	-INKPROBE_EOPNOTSUPP	a location or type a spec cannot express
 *				(arithmetic, pieces, strings, $comm): use the
 *				trace event for that argument
 *	-INKPROBE_ENOENT	no such argument
 *	-INKPROBE_ESRCH		the program was not attached by inkprobe_attach.h
 *
 * One map serves every site the object's programs are attached to;
 * define INKPROBE_MAX_SITES before the include for more than 256.
 */
#ifndef _INKPROBE_SITE_BPF_H
#define _INKPROBE_SITE_BPF_H

#include <linux/types.h>
#include <bpf/bpf_helpers.h>

#include "inkprobe_site.h"

#ifndef INKPROBE_MAX_SITES
#define INKPROBE_MAX_SITES	256
#endif

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, INKPROBE_MAX_SITES);
	__type(key, __u32);
	__type(value, struct inkprobe_site_spec);
} inkprobe_specs SEC(".maps");

/*
 * In a copy of the program made for one spec (inkprobe_site_attach_obj()),
 * that spec and how each argument reads (uapi/inkprobe_site.h); all zero in
 * the object as compiled.  Const, in .rodata, but not volatile as libbpf's
 * read-only variables usually are: it is read only through the asm of
 * inkprobe__const() and inkprobe_site_specialised(), which the compiler
 * cannot fold to those zeros (the same instructions either way).
 */
const struct inkprobe_site_const inkprobe_site_const;

/*
 * inkprobe_site_const, through a pointer the compiler cannot see through:
 * it would fold plain reads to the zeros the variable is compiled with,
 * and volatile ones could not be merged.  The verifier knows where it
 * points, reads the frozen values and drops the branches they rule out.
 */
static __always_inline const struct inkprobe_site_const *inkprobe__const(void)
{
	const struct inkprobe_site_const *c = (const struct inkprobe_site_const *)&inkprobe_site_const;

	asm("" : "+r"(c));
	return c;
}

/*
 * Whether this program is a copy made for one spec: a load the compiler
 * may merge with any other, since the value never changes (64 bits wide,
 * so that no test of it needs the upper half cleared first).
 */
static __always_inline __u64 inkprobe_site_specialised(void)
{
	__u64 v;

	asm("%0 = *(u32 *)(%1 + %2)" : "=r"(v) : "r"(&inkprobe_site_const),
	    "i"(__builtin_offsetof(struct inkprobe_site_const, spec.in_use)));
	return v;
}

/*
 * The spec of the instance of this hit, or NULL: in a copy made for one
 * spec, that spec (its ip 0: the copy serves every instance with it).
 */
static __always_inline const struct inkprobe_site_spec *inkprobe_site(void *ctx)
{
	__u32 id;

	if (inkprobe_site_specialised())
		return &inkprobe__const()->spec;
	id = bpf_get_attach_cookie(ctx);
	return bpf_map_lookup_elem(&inkprobe_specs, &id);
}

/*
 * struct pt_regs at a constant offset: one load each, as the verifier
 * wants context accesses (a switch of plain loads may be merged into one
 * load at a variable offset, which it refuses).
 */
#define __INKPROBE_REG(ctx, off) ({						\
	__u64 __v;								\
	asm volatile("%0 = *(u64 *)(%1 + " #off ")" : "=r"(__v) : "r"(ctx));	\
	__v;									\
})

/* DWARF register @reg (x86-64 numbering) of the kprobe's struct pt_regs */
static __always_inline __u64 inkprobe__reg(void *ctx, __u8 reg)
{
	switch (reg) {
	case 0: return __INKPROBE_REG(ctx, 80);		/* ax */
	case 1: return __INKPROBE_REG(ctx, 96);		/* dx */
	case 2: return __INKPROBE_REG(ctx, 88);		/* cx */
	case 3: return __INKPROBE_REG(ctx, 40);		/* bx */
	case 4: return __INKPROBE_REG(ctx, 104);	/* si */
	case 5: return __INKPROBE_REG(ctx, 112);	/* di */
	case 6: return __INKPROBE_REG(ctx, 32);		/* bp */
	case 7: return __INKPROBE_REG(ctx, 152);	/* sp */
	case 8: return __INKPROBE_REG(ctx, 72);		/* r8 */
	case 9: return __INKPROBE_REG(ctx, 64);
	case 10: return __INKPROBE_REG(ctx, 56);
	case 11: return __INKPROBE_REG(ctx, 48);
	case 12: return __INKPROBE_REG(ctx, 24);
	case 13: return __INKPROBE_REG(ctx, 16);
	case 14: return __INKPROBE_REG(ctx, 8);
	default: return __INKPROBE_REG(ctx, 0);		/* r15 */
	}
}

/* @size bytes (at most 8) at @addr, zero-extended; 0 or -INKPROBE_EFAULT */
static __always_inline int inkprobe__read(__u64 *v, __u64 addr, __u32 size)
{
	__u64 m = 0;

	if (size > 8 || bpf_probe_read_kernel(&m, size, (const void *)addr))
		return -INKPROBE_EFAULT;
	*v = m;
	return 0;
}

/* Argument @i by spec @s: the cookie path. */
static __always_inline int inkprobe__spec_arg(void *ctx, const struct inkprobe_site_spec *s,
					      __u32 i, __s64 *val)
{
	const struct inkprobe_arg_spec *a;
	__u32 j, sh;
	__u64 v;

	*val = 0;
	if (!s)
		return -INKPROBE_ESRCH;
	if (i >= INKPROBE_SITE_MAX_ARGS || i >= s->nr_args)
		return -INKPROBE_ENOENT;
	a = &s->args[i];
	if (a->kind == INKPROBE_ARG_NONE)
		return -INKPROBE_ENODATA;
	if (a->kind != INKPROBE_ARG_VALUE || !a->size || a->size > 8)
		return -INKPROBE_EOPNOTSUPP;
	v = a->val;
	if (a->reg != INKPROBE_NO_REG)
		v += inkprobe__reg(ctx, a->reg);
	if (a->loc_size && inkprobe__read(&v, v, a->loc_size))
		return -INKPROBE_EFAULT;
	for (j = 0; j < INKPROBE_SITE_MAX_READS && j < a->nr_reads; j++)
		if (inkprobe__read(&v, v + a->field_off[j], j + 1 == a->nr_reads ? a->size : 8))
			return -INKPROBE_EFAULT;
	sh = 64 - 8 * a->size;
	*val = a->is_signed ? (__s64)(v << sh) >> sh : (__s64)((v << sh) >> sh);
	return 0;
}

/*
 * @size (1, 2, 4 or 8) bytes at @addr into *@val, zero-extended: 0 or
 * -INKPROBE_EFAULT.  Read into a variable of that size, so that the
 * compiler knows the bits above are zero.
 */
static __always_inline int inkprobe__load(__s64 *val, __u64 addr, __u32 size)
{
	__u8 b = 0;
	__u16 h = 0;
	__u32 w = 0;
	__u64 q = 0;
	long ret;

	switch (size) {
	case 1:
		ret = bpf_probe_read_kernel(&b, 1, (const void *)addr);
		*val = b;
		break;
	case 2:
		ret = bpf_probe_read_kernel(&h, 2, (const void *)addr);
		*val = h;
		break;
	case 4:
		ret = bpf_probe_read_kernel(&w, 4, (const void *)addr);
		*val = w;
		break;
	default:
		ret = bpf_probe_read_kernel(&q, 8, (const void *)addr);
		*val = q;
		break;
	}
	return ret ? -INKPROBE_EFAULT : 0;
}

/* Argument @i of a copy as the shape @how gives it from register value @r. */
static __always_inline int inkprobe__shape(const struct inkprobe_site_const *c, __u32 i,
					   __u32 how, __u64 r, __s64 *val)
{
	switch (how) {
	case INKPROBE_OP_REG:
		*val = r;
		return 0;
	case INKPROBE_OP_REG_U32:
		*val = (__u32)r;
		return 0;
	case INKPROBE_OP_REG_S32:
		*val = (__s32)r;
		return 0;
	case INKPROBE_OP_REG_OFF:
		*val = r + c->off[i];
		return 0;
	default:	/* LOAD_REG + n */
		return inkprobe__load(val, r + c->off[i], 1 << (how - INKPROBE_OP_LOAD_REG));
	}
}

/* A copy's argument @i of shape @how from register @r (inkprobe__const_arg()'s). */
#define __INKPROBE_SHAPE(how, r) inkprobe__shape(c, i, how, inkprobe__reg(ctx, r), val)

/*
 * Argument @i in a copy made for one spec, as op[i] says: one case per
 * shape and register, so that once the verifier knows op[i] nothing is
 * left but its load and the case's own instructions.
 */
static __always_inline int inkprobe__const_arg(void *ctx, __u32 i, __s64 *val)
{
	const struct inkprobe_site_const *c = inkprobe__const();

	if (i >= INKPROBE_SITE_MAX_ARGS) {
		*val = 0;
		return -INKPROBE_ENOENT;
	}
	switch (c->op[i]) {
	case INKPROBE_OP_REG << 4 | 0: return __INKPROBE_SHAPE(INKPROBE_OP_REG, 0);
	case INKPROBE_OP_REG << 4 | 1: return __INKPROBE_SHAPE(INKPROBE_OP_REG, 1);
	case INKPROBE_OP_REG << 4 | 2: return __INKPROBE_SHAPE(INKPROBE_OP_REG, 2);
	case INKPROBE_OP_REG << 4 | 3: return __INKPROBE_SHAPE(INKPROBE_OP_REG, 3);
	case INKPROBE_OP_REG << 4 | 4: return __INKPROBE_SHAPE(INKPROBE_OP_REG, 4);
	case INKPROBE_OP_REG << 4 | 5: return __INKPROBE_SHAPE(INKPROBE_OP_REG, 5);
	case INKPROBE_OP_REG << 4 | 6: return __INKPROBE_SHAPE(INKPROBE_OP_REG, 6);
	case INKPROBE_OP_REG << 4 | 7: return __INKPROBE_SHAPE(INKPROBE_OP_REG, 7);
	case INKPROBE_OP_REG << 4 | 8: return __INKPROBE_SHAPE(INKPROBE_OP_REG, 8);
	case INKPROBE_OP_REG << 4 | 9: return __INKPROBE_SHAPE(INKPROBE_OP_REG, 9);
	case INKPROBE_OP_REG << 4 | 10: return __INKPROBE_SHAPE(INKPROBE_OP_REG, 10);
	case INKPROBE_OP_REG << 4 | 11: return __INKPROBE_SHAPE(INKPROBE_OP_REG, 11);
	case INKPROBE_OP_REG << 4 | 12: return __INKPROBE_SHAPE(INKPROBE_OP_REG, 12);
	case INKPROBE_OP_REG << 4 | 13: return __INKPROBE_SHAPE(INKPROBE_OP_REG, 13);
	case INKPROBE_OP_REG << 4 | 14: return __INKPROBE_SHAPE(INKPROBE_OP_REG, 14);
	case INKPROBE_OP_REG << 4 | 15: return __INKPROBE_SHAPE(INKPROBE_OP_REG, 15);
	case INKPROBE_OP_REG_U32 << 4 | 0: return __INKPROBE_SHAPE(INKPROBE_OP_REG_U32, 0);
	case INKPROBE_OP_REG_U32 << 4 | 1: return __INKPROBE_SHAPE(INKPROBE_OP_REG_U32, 1);
	case INKPROBE_OP_REG_U32 << 4 | 2: return __INKPROBE_SHAPE(INKPROBE_OP_REG_U32, 2);
	case INKPROBE_OP_REG_U32 << 4 | 3: return __INKPROBE_SHAPE(INKPROBE_OP_REG_U32, 3);
	case INKPROBE_OP_REG_U32 << 4 | 4: return __INKPROBE_SHAPE(INKPROBE_OP_REG_U32, 4);
	case INKPROBE_OP_REG_U32 << 4 | 5: return __INKPROBE_SHAPE(INKPROBE_OP_REG_U32, 5);
	case INKPROBE_OP_REG_U32 << 4 | 6: return __INKPROBE_SHAPE(INKPROBE_OP_REG_U32, 6);
	case INKPROBE_OP_REG_U32 << 4 | 7: return __INKPROBE_SHAPE(INKPROBE_OP_REG_U32, 7);
	case INKPROBE_OP_REG_U32 << 4 | 8: return __INKPROBE_SHAPE(INKPROBE_OP_REG_U32, 8);
	case INKPROBE_OP_REG_U32 << 4 | 9: return __INKPROBE_SHAPE(INKPROBE_OP_REG_U32, 9);
	case INKPROBE_OP_REG_U32 << 4 | 10: return __INKPROBE_SHAPE(INKPROBE_OP_REG_U32, 10);
	case INKPROBE_OP_REG_U32 << 4 | 11: return __INKPROBE_SHAPE(INKPROBE_OP_REG_U32, 11);
	case INKPROBE_OP_REG_U32 << 4 | 12: return __INKPROBE_SHAPE(INKPROBE_OP_REG_U32, 12);
	case INKPROBE_OP_REG_U32 << 4 | 13: return __INKPROBE_SHAPE(INKPROBE_OP_REG_U32, 13);
	case INKPROBE_OP_REG_U32 << 4 | 14: return __INKPROBE_SHAPE(INKPROBE_OP_REG_U32, 14);
	case INKPROBE_OP_REG_U32 << 4 | 15: return __INKPROBE_SHAPE(INKPROBE_OP_REG_U32, 15);
	case INKPROBE_OP_REG_S32 << 4 | 0: return __INKPROBE_SHAPE(INKPROBE_OP_REG_S32, 0);
	case INKPROBE_OP_REG_S32 << 4 | 1: return __INKPROBE_SHAPE(INKPROBE_OP_REG_S32, 1);
	case INKPROBE_OP_REG_S32 << 4 | 2: return __INKPROBE_SHAPE(INKPROBE_OP_REG_S32, 2);
	case INKPROBE_OP_REG_S32 << 4 | 3: return __INKPROBE_SHAPE(INKPROBE_OP_REG_S32, 3);
	case INKPROBE_OP_REG_S32 << 4 | 4: return __INKPROBE_SHAPE(INKPROBE_OP_REG_S32, 4);
	case INKPROBE_OP_REG_S32 << 4 | 5: return __INKPROBE_SHAPE(INKPROBE_OP_REG_S32, 5);
	case INKPROBE_OP_REG_S32 << 4 | 6: return __INKPROBE_SHAPE(INKPROBE_OP_REG_S32, 6);
	case INKPROBE_OP_REG_S32 << 4 | 7: return __INKPROBE_SHAPE(INKPROBE_OP_REG_S32, 7);
	case INKPROBE_OP_REG_S32 << 4 | 8: return __INKPROBE_SHAPE(INKPROBE_OP_REG_S32, 8);
	case INKPROBE_OP_REG_S32 << 4 | 9: return __INKPROBE_SHAPE(INKPROBE_OP_REG_S32, 9);
	case INKPROBE_OP_REG_S32 << 4 | 10: return __INKPROBE_SHAPE(INKPROBE_OP_REG_S32, 10);
	case INKPROBE_OP_REG_S32 << 4 | 11: return __INKPROBE_SHAPE(INKPROBE_OP_REG_S32, 11);
	case INKPROBE_OP_REG_S32 << 4 | 12: return __INKPROBE_SHAPE(INKPROBE_OP_REG_S32, 12);
	case INKPROBE_OP_REG_S32 << 4 | 13: return __INKPROBE_SHAPE(INKPROBE_OP_REG_S32, 13);
	case INKPROBE_OP_REG_S32 << 4 | 14: return __INKPROBE_SHAPE(INKPROBE_OP_REG_S32, 14);
	case INKPROBE_OP_REG_S32 << 4 | 15: return __INKPROBE_SHAPE(INKPROBE_OP_REG_S32, 15);
	case INKPROBE_OP_REG_OFF << 4 | 0: return __INKPROBE_SHAPE(INKPROBE_OP_REG_OFF, 0);
	case INKPROBE_OP_REG_OFF << 4 | 1: return __INKPROBE_SHAPE(INKPROBE_OP_REG_OFF, 1);
	case INKPROBE_OP_REG_OFF << 4 | 2: return __INKPROBE_SHAPE(INKPROBE_OP_REG_OFF, 2);
	case INKPROBE_OP_REG_OFF << 4 | 3: return __INKPROBE_SHAPE(INKPROBE_OP_REG_OFF, 3);
	case INKPROBE_OP_REG_OFF << 4 | 4: return __INKPROBE_SHAPE(INKPROBE_OP_REG_OFF, 4);
	case INKPROBE_OP_REG_OFF << 4 | 5: return __INKPROBE_SHAPE(INKPROBE_OP_REG_OFF, 5);
	case INKPROBE_OP_REG_OFF << 4 | 6: return __INKPROBE_SHAPE(INKPROBE_OP_REG_OFF, 6);
	case INKPROBE_OP_REG_OFF << 4 | 7: return __INKPROBE_SHAPE(INKPROBE_OP_REG_OFF, 7);
	case INKPROBE_OP_REG_OFF << 4 | 8: return __INKPROBE_SHAPE(INKPROBE_OP_REG_OFF, 8);
	case INKPROBE_OP_REG_OFF << 4 | 9: return __INKPROBE_SHAPE(INKPROBE_OP_REG_OFF, 9);
	case INKPROBE_OP_REG_OFF << 4 | 10: return __INKPROBE_SHAPE(INKPROBE_OP_REG_OFF, 10);
	case INKPROBE_OP_REG_OFF << 4 | 11: return __INKPROBE_SHAPE(INKPROBE_OP_REG_OFF, 11);
	case INKPROBE_OP_REG_OFF << 4 | 12: return __INKPROBE_SHAPE(INKPROBE_OP_REG_OFF, 12);
	case INKPROBE_OP_REG_OFF << 4 | 13: return __INKPROBE_SHAPE(INKPROBE_OP_REG_OFF, 13);
	case INKPROBE_OP_REG_OFF << 4 | 14: return __INKPROBE_SHAPE(INKPROBE_OP_REG_OFF, 14);
	case INKPROBE_OP_REG_OFF << 4 | 15: return __INKPROBE_SHAPE(INKPROBE_OP_REG_OFF, 15);
	case INKPROBE_OP_LOAD_REG << 4 | 0: return __INKPROBE_SHAPE(INKPROBE_OP_LOAD_REG, 0);
	case INKPROBE_OP_LOAD_REG << 4 | 1: return __INKPROBE_SHAPE(INKPROBE_OP_LOAD_REG, 1);
	case INKPROBE_OP_LOAD_REG << 4 | 2: return __INKPROBE_SHAPE(INKPROBE_OP_LOAD_REG, 2);
	case INKPROBE_OP_LOAD_REG << 4 | 3: return __INKPROBE_SHAPE(INKPROBE_OP_LOAD_REG, 3);
	case INKPROBE_OP_LOAD_REG << 4 | 4: return __INKPROBE_SHAPE(INKPROBE_OP_LOAD_REG, 4);
	case INKPROBE_OP_LOAD_REG << 4 | 5: return __INKPROBE_SHAPE(INKPROBE_OP_LOAD_REG, 5);
	case INKPROBE_OP_LOAD_REG << 4 | 6: return __INKPROBE_SHAPE(INKPROBE_OP_LOAD_REG, 6);
	case INKPROBE_OP_LOAD_REG << 4 | 7: return __INKPROBE_SHAPE(INKPROBE_OP_LOAD_REG, 7);
	case INKPROBE_OP_LOAD_REG << 4 | 8: return __INKPROBE_SHAPE(INKPROBE_OP_LOAD_REG, 8);
	case INKPROBE_OP_LOAD_REG << 4 | 9: return __INKPROBE_SHAPE(INKPROBE_OP_LOAD_REG, 9);
	case INKPROBE_OP_LOAD_REG << 4 | 10: return __INKPROBE_SHAPE(INKPROBE_OP_LOAD_REG, 10);
	case INKPROBE_OP_LOAD_REG << 4 | 11: return __INKPROBE_SHAPE(INKPROBE_OP_LOAD_REG, 11);
	case INKPROBE_OP_LOAD_REG << 4 | 12: return __INKPROBE_SHAPE(INKPROBE_OP_LOAD_REG, 12);
	case INKPROBE_OP_LOAD_REG << 4 | 13: return __INKPROBE_SHAPE(INKPROBE_OP_LOAD_REG, 13);
	case INKPROBE_OP_LOAD_REG << 4 | 14: return __INKPROBE_SHAPE(INKPROBE_OP_LOAD_REG, 14);
	case INKPROBE_OP_LOAD_REG << 4 | 15: return __INKPROBE_SHAPE(INKPROBE_OP_LOAD_REG, 15);
	case (INKPROBE_OP_LOAD_REG + 1) << 4 | 0: return __INKPROBE_SHAPE(INKPROBE_OP_LOAD_REG + 1, 0);
	case (INKPROBE_OP_LOAD_REG + 1) << 4 | 1: return __INKPROBE_SHAPE(INKPROBE_OP_LOAD_REG + 1, 1);
	case (INKPROBE_OP_LOAD_REG + 1) << 4 | 2: return __INKPROBE_SHAPE(INKPROBE_OP_LOAD_REG + 1, 2);
	case (INKPROBE_OP_LOAD_REG + 1) << 4 | 3: return __INKPROBE_SHAPE(INKPROBE_OP_LOAD_REG + 1, 3);
	case (INKPROBE_OP_LOAD_REG + 1) << 4 | 4: return __INKPROBE_SHAPE(INKPROBE_OP_LOAD_REG + 1, 4);
	case (INKPROBE_OP_LOAD_REG + 1) << 4 | 5: return __INKPROBE_SHAPE(INKPROBE_OP_LOAD_REG + 1, 5);
	case (INKPROBE_OP_LOAD_REG + 1) << 4 | 6: return __INKPROBE_SHAPE(INKPROBE_OP_LOAD_REG + 1, 6);
	case (INKPROBE_OP_LOAD_REG + 1) << 4 | 7: return __INKPROBE_SHAPE(INKPROBE_OP_LOAD_REG + 1, 7);
	case (INKPROBE_OP_LOAD_REG + 1) << 4 | 8: return __INKPROBE_SHAPE(INKPROBE_OP_LOAD_REG + 1, 8);
	case (INKPROBE_OP_LOAD_REG + 1) << 4 | 9: return __INKPROBE_SHAPE(INKPROBE_OP_LOAD_REG + 1, 9);
	case (INKPROBE_OP_LOAD_REG + 1) << 4 | 10: return __INKPROBE_SHAPE(INKPROBE_OP_LOAD_REG + 1, 10);
	case (INKPROBE_OP_LOAD_REG + 1) << 4 | 11: return __INKPROBE_SHAPE(INKPROBE_OP_LOAD_REG + 1, 11);
	case (INKPROBE_OP_LOAD_REG + 1) << 4 | 12: return __INKPROBE_SHAPE(INKPROBE_OP_LOAD_REG + 1, 12);
	case (INKPROBE_OP_LOAD_REG + 1) << 4 | 13: return __INKPROBE_SHAPE(INKPROBE_OP_LOAD_REG + 1, 13);
	case (INKPROBE_OP_LOAD_REG + 1) << 4 | 14: return __INKPROBE_SHAPE(INKPROBE_OP_LOAD_REG + 1, 14);
	case (INKPROBE_OP_LOAD_REG + 1) << 4 | 15: return __INKPROBE_SHAPE(INKPROBE_OP_LOAD_REG + 1, 15);
	case (INKPROBE_OP_LOAD_REG + 2) << 4 | 0: return __INKPROBE_SHAPE(INKPROBE_OP_LOAD_REG + 2, 0);
	case (INKPROBE_OP_LOAD_REG + 2) << 4 | 1: return __INKPROBE_SHAPE(INKPROBE_OP_LOAD_REG + 2, 1);
	case (INKPROBE_OP_LOAD_REG + 2) << 4 | 2: return __INKPROBE_SHAPE(INKPROBE_OP_LOAD_REG + 2, 2);
	case (INKPROBE_OP_LOAD_REG + 2) << 4 | 3: return __INKPROBE_SHAPE(INKPROBE_OP_LOAD_REG + 2, 3);
	case (INKPROBE_OP_LOAD_REG + 2) << 4 | 4: return __INKPROBE_SHAPE(INKPROBE_OP_LOAD_REG + 2, 4);
	case (INKPROBE_OP_LOAD_REG + 2) << 4 | 5: return __INKPROBE_SHAPE(INKPROBE_OP_LOAD_REG + 2, 5);
	case (INKPROBE_OP_LOAD_REG + 2) << 4 | 6: return __INKPROBE_SHAPE(INKPROBE_OP_LOAD_REG + 2, 6);
	case (INKPROBE_OP_LOAD_REG + 2) << 4 | 7: return __INKPROBE_SHAPE(INKPROBE_OP_LOAD_REG + 2, 7);
	case (INKPROBE_OP_LOAD_REG + 2) << 4 | 8: return __INKPROBE_SHAPE(INKPROBE_OP_LOAD_REG + 2, 8);
	case (INKPROBE_OP_LOAD_REG + 2) << 4 | 9: return __INKPROBE_SHAPE(INKPROBE_OP_LOAD_REG + 2, 9);
	case (INKPROBE_OP_LOAD_REG + 2) << 4 | 10: return __INKPROBE_SHAPE(INKPROBE_OP_LOAD_REG + 2, 10);
	case (INKPROBE_OP_LOAD_REG + 2) << 4 | 11: return __INKPROBE_SHAPE(INKPROBE_OP_LOAD_REG + 2, 11);
	case (INKPROBE_OP_LOAD_REG + 2) << 4 | 12: return __INKPROBE_SHAPE(INKPROBE_OP_LOAD_REG + 2, 12);
	case (INKPROBE_OP_LOAD_REG + 2) << 4 | 13: return __INKPROBE_SHAPE(INKPROBE_OP_LOAD_REG + 2, 13);
	case (INKPROBE_OP_LOAD_REG + 2) << 4 | 14: return __INKPROBE_SHAPE(INKPROBE_OP_LOAD_REG + 2, 14);
	case (INKPROBE_OP_LOAD_REG + 2) << 4 | 15: return __INKPROBE_SHAPE(INKPROBE_OP_LOAD_REG + 2, 15);
	case (INKPROBE_OP_LOAD_REG + 3) << 4 | 0: return __INKPROBE_SHAPE(INKPROBE_OP_LOAD_REG + 3, 0);
	case (INKPROBE_OP_LOAD_REG + 3) << 4 | 1: return __INKPROBE_SHAPE(INKPROBE_OP_LOAD_REG + 3, 1);
	case (INKPROBE_OP_LOAD_REG + 3) << 4 | 2: return __INKPROBE_SHAPE(INKPROBE_OP_LOAD_REG + 3, 2);
	case (INKPROBE_OP_LOAD_REG + 3) << 4 | 3: return __INKPROBE_SHAPE(INKPROBE_OP_LOAD_REG + 3, 3);
	case (INKPROBE_OP_LOAD_REG + 3) << 4 | 4: return __INKPROBE_SHAPE(INKPROBE_OP_LOAD_REG + 3, 4);
	case (INKPROBE_OP_LOAD_REG + 3) << 4 | 5: return __INKPROBE_SHAPE(INKPROBE_OP_LOAD_REG + 3, 5);
	case (INKPROBE_OP_LOAD_REG + 3) << 4 | 6: return __INKPROBE_SHAPE(INKPROBE_OP_LOAD_REG + 3, 6);
	case (INKPROBE_OP_LOAD_REG + 3) << 4 | 7: return __INKPROBE_SHAPE(INKPROBE_OP_LOAD_REG + 3, 7);
	case (INKPROBE_OP_LOAD_REG + 3) << 4 | 8: return __INKPROBE_SHAPE(INKPROBE_OP_LOAD_REG + 3, 8);
	case (INKPROBE_OP_LOAD_REG + 3) << 4 | 9: return __INKPROBE_SHAPE(INKPROBE_OP_LOAD_REG + 3, 9);
	case (INKPROBE_OP_LOAD_REG + 3) << 4 | 10: return __INKPROBE_SHAPE(INKPROBE_OP_LOAD_REG + 3, 10);
	case (INKPROBE_OP_LOAD_REG + 3) << 4 | 11: return __INKPROBE_SHAPE(INKPROBE_OP_LOAD_REG + 3, 11);
	case (INKPROBE_OP_LOAD_REG + 3) << 4 | 12: return __INKPROBE_SHAPE(INKPROBE_OP_LOAD_REG + 3, 12);
	case (INKPROBE_OP_LOAD_REG + 3) << 4 | 13: return __INKPROBE_SHAPE(INKPROBE_OP_LOAD_REG + 3, 13);
	case (INKPROBE_OP_LOAD_REG + 3) << 4 | 14: return __INKPROBE_SHAPE(INKPROBE_OP_LOAD_REG + 3, 14);
	case (INKPROBE_OP_LOAD_REG + 3) << 4 | 15: return __INKPROBE_SHAPE(INKPROBE_OP_LOAD_REG + 3, 15);
	case INKPROBE_OP_CONST << 4:
		*val = c->off[i];
		return 0;
	case INKPROBE_OP_LOAD_ABS << 4:
		return inkprobe__load(val, c->off[i], 1);
	case (INKPROBE_OP_LOAD_ABS + 1) << 4:
		return inkprobe__load(val, c->off[i], 2);
	case (INKPROBE_OP_LOAD_ABS + 2) << 4:
		return inkprobe__load(val, c->off[i], 4);
	case (INKPROBE_OP_LOAD_ABS + 3) << 4:
		return inkprobe__load(val, c->off[i], 8);
	default:
		return inkprobe__spec_arg(ctx, &c->spec, i, val);
	}
}

#undef __INKPROBE_SHAPE

/*
 * Argument @i of the hit at instance @s (inkprobe_site()) into *@val.  In
 * a copy made for one spec, by that spec (which is @s's).
 */
static __always_inline int inkprobe_site_arg(void *ctx, const struct inkprobe_site_spec *s,
					     __u32 i, __s64 *val)
{
	if (inkprobe_site_specialised())
		return inkprobe__const_arg(ctx, i, val);
	return inkprobe__spec_arg(ctx, s, i, val);
}

/* Argument @i of this hit into *@val: inkprobe_site_arg() at inkprobe_site(). */
static __always_inline int inkprobe_arg(void *ctx, __u32 i, __s64 *val)
{
	if (inkprobe_site_specialised())
		return inkprobe__const_arg(ctx, i, val);
	return inkprobe__spec_arg(ctx, inkprobe_site(ctx), i, val);
}

#endif /* _INKPROBE_SITE_BPF_H */
