// SPDX-License-Identifier: GPL-2.0
/*
 * One inlined function per way of leaving an inlined copy, for exit probes
 * (issue 23; Documentation/generating.rst, "Exits").  Each is
 * __always_inline and called from one TGT_CALLER, so each has exactly one
 * inlined copy:
 *
 *   tgt_ex_early()   an early return
 *   tgt_ex_loop()    a loop left by a break, or by its condition
 *   tgt_ex_goto()    goto out to a shared epilogue
 *   tgt_ex_switch()  a switch GCC compiles to a jump table (this file is
 *                    built with -fjump-tables, which the kernel turns off)
 *   tgt_ex_tail()    a tail call: the caller's result is the callee's
 *   tgt_ex_never()   two paths that never return (a call of a noreturn
 *                    function, a BUG()): they have no exit
 *   tgt_ex_fault()   a read that may fault (__get_kernel_nofault(): an
 *                    exception-table entry whose fixup is the label at
 *                    the copy's end, so the fault path leaves the copy
 *                    there, at the pc its other path falls through to)
 *   tgt_ex_cold()    an unlikely() path calling a __cold function, which
 *                    GCC moves into tgt_ex_cold_caller.cold (where it
 *                    partitions hot and cold code): the cold part jumps
 *                    back into the caller, outside the copy
 *
 * Each call notes the path it took (tgt_ex_note()); "exits A" runs every
 * copy on inputs that take every path but the ones that never return, and
 * lists them in call order in the expected file, one line per call:
 *
 *	<callee> <caller> path=<path> a0=<arg> a1=<arg>
 *
 * so a test can check that each call had one entry and one exit, at the
 * exit its path leaves by, and its arguments (the caller's a0 and a1: the
 * copy's are those, but tgt_ex_tail's v is a0 ^ 5).
 */
#include <linux/bug.h>
#include <linux/compiler.h>
#include <linux/errno.h>
#include <linux/kernel.h>
#include <linux/uaccess.h>
#include <linux/vmalloc.h>

#include "tgt.h"

static u64 tgt_ex_sink;
static const char *tgt_ex_path;

/* The path the current call takes; a call, so it stays inside the copy. */
static TGT_CALLER void tgt_ex_note(const char *path)
{
	WRITE_ONCE(tgt_ex_path, path);
}

static __always_inline u64 tgt_ex_early(u64 v)
{
	if (v & 1) {
		tgt_ex_note("early");
		return v * 3;
	}
	WRITE_ONCE(tgt_ex_sink, v);
	tgt_ex_note("late");
	return READ_ONCE(tgt_ex_sink) ^ (v >> 2);
}

static __always_inline u64 tgt_ex_loop(u64 v, unsigned int n)
{
	unsigned int i;
	u64 acc = v;

	for (i = 0; i < n; i++) {
		acc = acc * 31 + i;
		/* one step at a time: no unrolling, no vectors */
		OPTIMIZER_HIDE_VAR(acc);
		if (acc & 0x100) {
			tgt_ex_note("break");
			break;
		}
	}
	if (i == n)
		tgt_ex_note("done");
	return acc;
}

static __always_inline int tgt_ex_goto(u64 v)
{
	int ret;

	if (v < 10) {
		tgt_ex_note("small");
		ret = -EINVAL;
		goto out;
	}
	WRITE_ONCE(tgt_ex_sink, v);
	if (v > 1000) {
		tgt_ex_note("big");
		ret = -ERANGE;
		goto out;
	}
	tgt_ex_note("ok");
	ret = v & 7;
out:
	WRITE_ONCE(tgt_ex_sink, tgt_ex_sink + ret);
	return ret;
}

static __always_inline u64 tgt_ex_switch(unsigned int sel, u64 v)
{
	switch (sel) {
	case 0:
		tgt_ex_note("case0");
		return v + 1;
	case 1:
		tgt_ex_note("case1");
		return v * 3;
	case 2:
		tgt_ex_note("case2");
		return v ^ 0x55;
	case 3:
		tgt_ex_note("case3");
		return v << 2;
	case 4:
		tgt_ex_note("case4");
		return v - 7;
	case 5:
		tgt_ex_note("case5");
		return v | 0x100;
	case 6:
		tgt_ex_note("case6");
		return v >> 3;
	default:
		tgt_ex_note("default");
		return 0;
	}
}

static TGT_CALLER u64 tgt_ex_tail_target(u64 x)
{
	return x * 7 + READ_ONCE(tgt_ex_sink);
}

static __always_inline u64 tgt_ex_tail(u64 v)
{
	WRITE_ONCE(tgt_ex_sink, v);
	tgt_ex_note("tail");
	return tgt_ex_tail_target(v + 1);
}

static noinline __noreturn void tgt_ex_stop(u64 v)
{
	panic("inkprobe_target: tgt_ex_stop(%llu) was called", v);
}

static __always_inline u64 tgt_ex_never(u64 v)
{
	if (unlikely(v == 0xdead0001))
		tgt_ex_stop(v);
	BUG_ON(v == 0xdead0002);
	tgt_ex_note("normal");
	return v + 11;
}

/*
 * Reads *@p into *@out, or leaves *@out when that faults: the fixup is
 * the label, after the copy's last instruction, so the fault path leaves
 * the copy where the other one does.  "fault" is the path until the read
 * succeeds.  The caller disables page faults around it.
 */
static __always_inline void tgt_ex_fault(const u64 *p, u64 *out)
{
	tgt_ex_note("fault");
	__get_kernel_nofault(out, p, u64, fault);
	tgt_ex_note("read");
fault:
	return;
}

static noinline __cold void tgt_ex_cold_warn(u64 v)
{
	pr_warn("inkprobe_target: tgt_ex_cold(%llu)\n", v);
}

static __always_inline u64 tgt_ex_cold(u64 v)
{
	if (unlikely(v == 0xc01d)) {
		tgt_ex_cold_warn(v);
		WRITE_ONCE(tgt_ex_sink, v * 5);
		tgt_ex_note("cold");
		return READ_ONCE(tgt_ex_sink) + 1;
	}
	tgt_ex_note("hot");
	return v + 3;
}

static TGT_CALLER u64 tgt_ex_early_caller(u64 v)
{
	u64 r = tgt_ex_early(v);

	WRITE_ONCE(tgt_ex_sink, r);
	return r + 5;
}

static TGT_CALLER u64 tgt_ex_loop_caller(u64 v, unsigned int n)
{
	return tgt_ex_loop(v, n) * 9;
}

static TGT_CALLER int tgt_ex_goto_caller(u64 v)
{
	return tgt_ex_goto(v) + 2;
}

static TGT_CALLER u64 tgt_ex_switch_caller(unsigned int sel, u64 v)
{
	return tgt_ex_switch(sel, v) + 13;
}

static TGT_CALLER u64 tgt_ex_tail_caller(u64 v)
{
	return tgt_ex_tail(v ^ 5);
}

static TGT_CALLER u64 tgt_ex_never_caller(u64 v)
{
	return tgt_ex_never(v) * 3;
}

/* @addr: a u64 as TGT_EX_CALL() lists the arguments */
static TGT_CALLER u64 tgt_ex_fault_caller(u64 addr)
{
	u64 v = 17;

	pagefault_disable();
	tgt_ex_fault((const u64 *)addr, &v);
	pagefault_enable();
	return v * 5;
}

static TGT_CALLER u64 tgt_ex_cold_caller(u64 v)
{
	return tgt_ex_cold(v) * 7;
}

/*
 * Calls @caller (the copy of @callee in it) and lists the path it took and
 * the caller's arguments (one or two; a1 is 0 with one).
 */
#define TGT_EX_CALL(callee, caller, ...) ({				\
	u64 __a[] = { __VA_ARGS__ };					\
	u64 __r;							\
	WRITE_ONCE(tgt_ex_path, "none");				\
	__r = (u64)caller(__VA_ARGS__);					\
	tgt_expect("%s %s path=%s a0=%llu a1=%llu", #callee, #caller,	\
		   READ_ONCE(tgt_ex_path), __a[0],			\
		   ARRAY_SIZE(__a) > 1 ? __a[ARRAY_SIZE(__a) - 1] : 0);	\
	__r;								\
})

u64 tgt_run_exits(u64 a)
{
	/* a page whose guard page (unmapped: vmalloc's) is the fault's */
	u64 *page = vmalloc(PAGE_SIZE);
	u64 r = 0;
	unsigned int i;

	if (!page)
		return 0;	/* no call listed: the test fails on the count */
	/* a: the low bit chooses the early return */
	r += TGT_EX_CALL(tgt_ex_early, tgt_ex_early_caller, a | 1);
	r += TGT_EX_CALL(tgt_ex_early, tgt_ex_early_caller, a & ~1ULL);
	/* 0x100 is set after one step (break), never in zero steps (done) */
	r += TGT_EX_CALL(tgt_ex_loop, tgt_ex_loop_caller, 0x100 / 31 + 1, 4);
	r += TGT_EX_CALL(tgt_ex_loop, tgt_ex_loop_caller, a, 0);
	r += TGT_EX_CALL(tgt_ex_goto, tgt_ex_goto_caller, 3);
	r += TGT_EX_CALL(tgt_ex_goto, tgt_ex_goto_caller, 5000);
	r += TGT_EX_CALL(tgt_ex_goto, tgt_ex_goto_caller, 500);
	for (i = 0; i <= 7; i++)
		r += TGT_EX_CALL(tgt_ex_switch, tgt_ex_switch_caller, i, a);
	r += TGT_EX_CALL(tgt_ex_tail, tgt_ex_tail_caller, a);
	r += TGT_EX_CALL(tgt_ex_never, tgt_ex_never_caller, a & 0xffff);
	/*
	 * a readable u64, then the guard page after a vmalloc()ed one: a
	 * kernel address never mapped, so the read faults to its fixup (a
	 * user address would be an oops: SMAP, copy_from_kernel_nofault())
	 */
	r += TGT_EX_CALL(tgt_ex_fault, tgt_ex_fault_caller, (u64)&tgt_ex_sink);
	r += TGT_EX_CALL(tgt_ex_fault, tgt_ex_fault_caller,
			 (u64)(page + PAGE_SIZE / sizeof(u64)));
	vfree(page);
	r += TGT_EX_CALL(tgt_ex_cold, tgt_ex_cold_caller, 0xc01d);
	r += TGT_EX_CALL(tgt_ex_cold, tgt_ex_cold_caller, a);
	return r;
}
