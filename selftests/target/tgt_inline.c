// SPDX-License-Identifier: GPL-2.0
/*
 * Inlined functions with known arguments: tgt_mix() in two callers, and one
 * function per location class of the blob format.  Each caller records
 * what it passes before the inlined copy runs.
 */
#include <linux/compiler.h>
#include <linux/kernel.h>

#include "tgt.h"

/*
 * tgt_mix() is inlined into tgt_caller_a() and tgt_caller_b().  At each
 * inlined copy, @reg is in a register, @konst is a constant of the call
 * site, and @obj is a pointer the probe reads through (obj->weight).
 */
static __always_inline u64 tgt_mix(u64 reg, int konst, const struct tgt_obj *obj)
{
	return (reg * 3 + konst) ^ READ_ONCE(obj->weight);
}

static TGT_CALLER u64 tgt_caller_a(u64 x, const struct tgt_obj *o)
{
	tgt_expect("tgt_mix %s reg=%llu konst=%d obj=0x%px weight=%u", __func__,
		   x, 7, o, o->weight);
	return tgt_mix(x, 7, o) + 1;
}

static TGT_CALLER u64 tgt_caller_b(u64 x, const struct tgt_obj *o)
{
	u64 y = x ^ 0x5a5a;

	tgt_expect("tgt_mix %s reg=%llu konst=%d obj=0x%px weight=%u", __func__,
		   y, -11, o, o->weight);
	return tgt_mix(y, -11, o) + 2;
}

u64 tgt_run_mix(u64 a, u64 b, u32 w)
{
	struct tgt_obj obj_a = { .cookie = a, .weight = w, .inner = { w, w ^ 0x1234 } };
	struct tgt_obj obj_b = { .cookie = b, .weight = w + 1, .inner = { w, w ^ 0x4321 } };

	return tgt_caller_a(a, &obj_a) + tgt_caller_b(b, &obj_b);
}

/* ---- one location class each ---- */

/* register + offset as a value: @field is &o->weight, never materialized */
static __always_inline u32 tgt_loc_regoff(const u32 *field)
{
	return READ_ONCE(*field) * 5;
}

static TGT_CALLER u64 tgt_loc_regoff_caller(const struct tgt_obj *o)
{
	tgt_expect("tgt_loc_regoff %s field=0x%px", __func__, &o->weight);
	return tgt_loc_regoff(&o->weight);
}

/* memory at a register + offset: @n is o->weight, read where it is */
static __always_inline u64 tgt_loc_mem(u32 n, u64 salt)
{
	return salt * 13 + n;
}

static TGT_CALLER u64 tgt_loc_mem_caller(const struct tgt_obj *o, u64 salt)
{
	tgt_expect("tgt_loc_mem %s n=%u salt=%llu", __func__, o->weight, salt);
	return tgt_loc_mem(o->weight, salt);
}

/* frame base: the address of @spilled escapes, so it lives on the stack */
static __always_inline u64 tgt_loc_stack(u64 spilled)
{
	u64 *p = &spilled;

	asm volatile("" : : "r"(p) : "memory");
	return READ_ONCE(*p) + 1;
}

static TGT_CALLER u64 tgt_loc_stack_caller(u64 x)
{
	tgt_expect("tgt_loc_stack %s spilled=%llu", __func__, x);
	return tgt_loc_stack(x);
}

/* an absolute address: @g is a global of this module, relocated at load */
static struct tgt_obj tgt_global_obj = { .cookie = 0xc0ffee, .weight = 1234 };

static __always_inline u64 tgt_loc_global(const struct tgt_obj *g, u64 by)
{
	return READ_ONCE(g->weight) + by;
}

static TGT_CALLER u64 tgt_loc_global_caller(u64 by)
{
	tgt_expect("tgt_loc_global %s g=0x%px weight=%u by=%llu", __func__,
		   &tgt_global_obj, tgt_global_obj.weight, by);
	return tgt_loc_global(&tgt_global_obj, by);
}

/*
 * @unused is never used, yet GCC still says how to compute it (x * 7):
 * an arithmetic location
 */
static __always_inline u64 tgt_loc_unused(u64 used, u64 unused)
{
	return used * 2;
}

static TGT_CALLER u64 tgt_loc_unused_caller(u64 x)
{
	tgt_expect("tgt_loc_unused %s used=%llu unused=%llu", __func__, x, x * 7);
	return tgt_loc_unused(x, x * 7);
}

/*
 * optimized out: @p points to a local that only exists in registers
 * (DW_OP_implicit_pointer), so the pointer itself has no value.  A plain
 * read: through READ_ONCE() GCC 16 keeps the local on the stack.
 */
static unsigned long tgt_implicit_calls;

static __always_inline u32 tgt_loc_implicit(const u32 *p)
{
	WRITE_ONCE(tgt_implicit_calls, tgt_implicit_calls + 1);	/* code of its own */
	return *p * 3;
}

static TGT_CALLER u64 tgt_loc_implicit_caller(u64 x)
{
	u32 local = (u32)x * 5;

	tgt_expect("tgt_loc_implicit %s p=(optimized out)", __func__);
	return tgt_loc_implicit(&local);
}

/* pieces: a small struct by value, split into two registers */
struct tgt_pair {
	u32 lo;
	u32 hi;
};

static __always_inline u64 tgt_loc_pair(struct tgt_pair p)
{
	return (u64)p.lo * 3 + p.hi;
}

static TGT_CALLER u64 tgt_loc_pair_caller(u32 lo, u32 hi)
{
	struct tgt_pair p = { .lo = lo, .hi = hi };

	tgt_expect("tgt_loc_pair %s p=0x%llx", __func__, ((u64)hi << 32) | lo);
	return tgt_loc_pair(p);
}

/*
 * A pointer that points nowhere: @o is read only on a path never taken, so
 * a probe that reads o->weight faults.
 */
static __always_inline u64 tgt_fault(const struct tgt_obj *o, u64 x)
{
	if (unlikely(x == U64_MAX))
		return READ_ONCE(o->weight);
	return x * 3;
}

static TGT_CALLER u64 tgt_fault_caller(u64 x)
{
	tgt_expect("tgt_fault %s o=0x10 weight=(fault) x=%llu", __func__, x);
	return tgt_fault((const struct tgt_obj *)0x10, x);
}

u64 tgt_run_fault(u64 a)
{
	return tgt_fault_caller(a);
}

u64 tgt_run_locations(u64 a, u64 b)
{
	struct tgt_obj o = { .cookie = a, .weight = (u32)b };

	return tgt_loc_regoff_caller(&o) + tgt_loc_mem_caller(&o, a) +
	       tgt_loc_stack_caller(a) + tgt_loc_global_caller(b) +
	       tgt_loc_unused_caller(a) + tgt_loc_implicit_caller(a) +
	       tgt_loc_pair_caller((u32)a, (u32)b);
}
