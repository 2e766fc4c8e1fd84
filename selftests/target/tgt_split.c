// SPDX-License-Identifier: GPL-2.0
/*
 * Functions GCC splits (partial inlining, -fpartial-inlining at -O2): a
 * cheap head that may return early, and the rest in a function of its own,
 * NAME.part.N.  Each call must be seen once, where it enters the function.
 *
 * tgt_uncharge(): the rest is inlined back into every copy of the head,
 * and DWARF describes it as a copy of tgt_uncharge() nested in the copy,
 * "called" from its own first line.  Two inlined copies and the
 * out-of-line copy (its address is taken), like sk_mem_uncharge().
 *
 * tgt_split(): the rest stays out of line, tgt_split.part.0, called from
 * the head inlined into three callers.
 */
#include <linux/compiler.h>
#include <linux/kernel.h>

#include "tgt.h"

struct tgt_acct {
	u32 on;
	s64 fwd;
	s64 limit;
};

/* Opaque to the compiler: keeps the rest of each function big. */
static TGT_CALLER void tgt_note(s64 v)
{
	asm volatile("" : : "r"(v) : "memory");
}

static inline void tgt_uncharge(struct tgt_acct *a, int size)
{
	if (!a->on)
		return;
	a->fwd += size;
	if (a->fwd > a->limit) {
		tgt_note(a->fwd);
		tgt_note(a->fwd - a->limit);
		a->fwd = a->limit;
	}
}

/* volatile: the call stays indirect, so the out-of-line copy runs */
static void (*volatile tgt_uncharge_ptr)(struct tgt_acct *, int) = tgt_uncharge;

static TGT_CALLER void tgt_uncharge_caller_a(struct tgt_acct *a, int size)
{
	tgt_expect("tgt_uncharge %s a=0x%px size=%d", __func__, a, size);
	tgt_uncharge(a, size);
	tgt_note(1);
}

static TGT_CALLER void tgt_uncharge_caller_b(struct tgt_acct *a, int size)
{
	tgt_note(2);
	tgt_expect("tgt_uncharge %s a=0x%px size=%d", __func__, a, size * 2);
	tgt_uncharge(a, size * 2);
	tgt_note(3);
}

static int tgt_split(const struct tgt_acct *a, s64 x)
{
	int i;

	if (likely(!a->on))
		return 0;
	for (i = 0; i < 4; i++) {
		tgt_note(x + i);
		tgt_note(a->fwd * i);
		tgt_note(x ^ i);
		tgt_note(a->limit + i);
		tgt_note(x - i);
		tgt_note(a->fwd + x * i);
		tgt_note(x | i);
		tgt_note(a->limit - i);
	}
	for (i = 0; i < 3; i++) {
		tgt_note(x * i + 7);
		tgt_note(a->fwd ^ x);
		tgt_note(x & i);
		tgt_note(a->limit * x);
	}
	return 1;
}

static TGT_CALLER int tgt_split_caller_a(const struct tgt_acct *a, s64 x)
{
	tgt_expect("tgt_split %s a=0x%px x=%lld", __func__, a, x);
	return tgt_split(a, x) + 1;
}

static TGT_CALLER int tgt_split_caller_b(const struct tgt_acct *a, s64 x)
{
	tgt_expect("tgt_split %s a=0x%px x=%lld", __func__, a, x * 3);
	return tgt_split(a, x * 3) + 2;
}

static TGT_CALLER int tgt_split_caller_c(const struct tgt_acct *a, s64 x)
{
	tgt_expect("tgt_split %s a=0x%px x=%lld", __func__, a, x * 5);
	return tgt_split(a, x * 5) + 3;
}

/*
 * Every copy once with the function's rest taken (on) and once without:
 * twelve calls, each recorded once.
 */
u64 tgt_run_split(s64 x)
{
	struct tgt_acct a = { .fwd = 0, .limit = 100 };
	u64 s = 0;
	int on;

	for (on = 1; on >= 0; on--) {
		a.on = on;
		tgt_uncharge_caller_a(&a, (int)x);
		tgt_uncharge_caller_b(&a, (int)x + 1);
		tgt_expect("tgt_uncharge tgt_uncharge a=0x%px size=%d", &a, (int)x + 2);
		tgt_uncharge_ptr(&a, (int)x + 2);
		s += tgt_split_caller_a(&a, x);
		s += tgt_split_caller_b(&a, x);
		s += tgt_split_caller_c(&a, x);
	}
	return s + a.fwd;
}
