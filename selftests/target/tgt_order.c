// SPDX-License-Identifier: GPL-2.0
/*
 * Inlined copies whose events share pcs, for the order of exit and entry
 * events at one pc (issue 23; Documentation/exit-probes.rst, "Order at
 * one pc").  Every access is a READ_ONCE()/WRITE_ONCE() of its own
 * variable, which GCC keeps in source order, so:
 *
 *   tgt_or_outer() ends with its copy of tgt_or_inner(): the two copies
 *                  leave by one pc;
 *   tgt_or_caller() calls tgt_or_outer() twice in a row: the first call's
 *                  exit pc is the second's entry pc, and then calls
 *                  tgt_or_wrap(), which starts with its copy of
 *                  tgt_or_inner(): the two copies enter at one pc, the
 *                  exit pc of the second tgt_or_outer() call.
 *
 * "order A" lists, one line each, every entry and exit in the order the
 * calls start and end:
 *
 *	enter|exit <callee> <caller> call=N
 */
#include <linux/compiler.h>

#include "tgt.h"

static u64 tgt_or_a, tgt_or_b, tgt_or_c, tgt_or_done;
static unsigned int tgt_or_calls;

static __always_inline void tgt_or_inner(void)
{
	WRITE_ONCE(tgt_or_b, READ_ONCE(tgt_or_b) + 1);
}

static __always_inline void tgt_or_outer(void)
{
	WRITE_ONCE(tgt_or_a, READ_ONCE(tgt_or_a) + 1);
	tgt_or_inner();
}

static __always_inline void tgt_or_wrap(void)
{
	tgt_or_inner();
	WRITE_ONCE(tgt_or_c, READ_ONCE(tgt_or_c) + 1);
}

static TGT_CALLER void tgt_or_caller(void)
{
	tgt_or_outer();
	tgt_or_outer();
	tgt_or_wrap();
	WRITE_ONCE(tgt_or_done, 1);
}

/* One call of @outer, with its call of tgt_or_inner() inside, listed in order. */
static void tgt_or_expect(const char *outer)
{
	unsigned int n = ++tgt_or_calls;

	tgt_expect("enter %s tgt_or_caller call=%u", outer, n);
	tgt_expect("enter tgt_or_inner tgt_or_caller call=%u", n);
	tgt_expect("exit tgt_or_inner tgt_or_caller call=%u", n);
	tgt_expect("exit %s tgt_or_caller call=%u", outer, n);
}

u64 tgt_run_order(u64 a)
{
	tgt_or_calls = 0;
	WRITE_ONCE(tgt_or_a, a);
	tgt_or_caller();
	tgt_or_expect("tgt_or_outer");
	tgt_or_expect("tgt_or_outer");
	tgt_or_expect("tgt_or_wrap");
	return READ_ONCE(tgt_or_a) + READ_ONCE(tgt_or_b) + READ_ONCE(tgt_or_c);
}
