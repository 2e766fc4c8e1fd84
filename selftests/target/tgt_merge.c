// SPDX-License-Identifier: GPL-2.0
/*
 * Two inlined calls of tgt_merged() at one probe address: the caller's two
 * calls compute independent values, GCC interleaves their instructions, and
 * both calls start at the first one, where gen merges them into one record.
 * @scale is 7 in both calls; @shift is 12 in one and 13 in the other, so the
 * record cannot print it: it is ambiguous, (optimized out).
 */
#include <linux/compiler.h>
#include <linux/kernel.h>

#include "tgt.h"

static __always_inline u64 tgt_merged(u64 v, u32 shift, u32 scale)
{
	return (v >> shift) * scale;
}

static noinline u64 tgt_merge_sink(u64 x, u64 y)
{
	return x * 3 + y;
}

static TGT_CALLER u64 tgt_merge_caller(u64 a, u64 b)
{
	tgt_expect("tgt_merged %s v=(optimized out) shift=(optimized out) scale=7", __func__);
	return tgt_merge_sink(tgt_merged(a, 12, 7), tgt_merged(a + b, 13, 7));
}

u64 tgt_run_merge(u64 a)
{
	return tgt_merge_caller(a, a + 1);
}
