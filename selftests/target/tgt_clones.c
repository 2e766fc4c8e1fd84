// SPDX-License-Identifier: GPL-2.0
/*
 * Functions GCC copies: one inlined into two callers and also kept out of
 * line (its address is taken), and clones with their own calling
 * convention (.constprop, .isra).  Expected lines name a clone's caller as
 * "<function>.*": the suffix is the compiler's choice.
 */
#include <linux/compiler.h>
#include <linux/kernel.h>

#include "tgt.h"

/*
 * Partially inlined: inlined into tgt_part_caller_a() and _b(), and called
 * out of line through a pointer.  Seven parameters: out of line, @a7 is
 * passed on the stack (a frame-base location at the function's entry).
 */
static inline u64 tgt_part(u64 a1, u64 a2, u64 a3, u64 a4, u64 a5, u64 a6, u64 a7)
{
	return a1 + 2 * a2 + 3 * a3 + 4 * a4 + 5 * a5 + 6 * a6 + 7 * a7;
}

/* volatile: the call must stay indirect, so the out-of-line copy runs */
static u64 (*volatile tgt_part_ptr)(u64, u64, u64, u64, u64, u64, u64) = tgt_part;

#define PART_ARGS(x)	x, x + 1, x + 2, x + 3, x + 4, x + 5, x + 6
#define PART_FMT	"a1=%llu a2=%llu a3=%llu a4=%llu a5=%llu a6=%llu a7=%llu"

static TGT_CALLER u64 tgt_part_caller_a(u64 x)
{
	tgt_expect("tgt_part %s " PART_FMT, __func__, PART_ARGS(x));
	return tgt_part(PART_ARGS(x));
}

static TGT_CALLER u64 tgt_part_caller_b(u64 x)
{
	tgt_expect("tgt_part %s " PART_FMT, __func__, PART_ARGS(x * 3));
	return tgt_part(PART_ARGS(x * 3));
}

/* n calls per copy; the expected log keeps 16 lines per copy */
u64 tgt_run_partial(unsigned int n)
{
	u64 s = 0;
	unsigned int i;

	for (i = 0; i < n; i++) {
		s += tgt_part_caller_a(i + 100);
		s += tgt_part_caller_b(i + 200);
		tgt_expect("tgt_part tgt_part " PART_FMT, PART_ARGS((u64)i + 300));
		s += tgt_part_ptr(PART_ARGS((u64)i + 300));
	}
	return s;
}

/* .constprop: every caller passes mode 3, so GCC drops the parameter */
static noinline u64 tgt_cp(u64 x, int mode)
{
	return x * mode + (mode << 4);
}

/* .isra: only o->weight is used, so GCC passes it by value */
static noinline u64 tgt_sra(const struct tgt_obj *o, u64 x)
{
	return (u64)o->weight * x;
}

u64 tgt_run_clones(u64 a)
{
	struct tgt_obj o = { .cookie = a, .weight = (u32)(a >> 3) };

	tgt_expect("tgt_cp tgt_cp.* x=%llu mode=3", a);
	tgt_expect("tgt_sra tgt_sra.* o=(optimized out) x=%llu", a + 1);
	return tgt_cp(a, 3) + tgt_sra(&o, a + 1);
}
