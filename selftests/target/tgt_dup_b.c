// SPDX-License-Identifier: GPL-2.0
/* One of two static functions named tgt_dup (the other: tgt_dup_a.c). */
#include <linux/compiler.h>

#include "tgt.h"

static noinline u64 tgt_dup(u64 x)
{
	return (x ^ 0x77) + 5;
}

u64 tgt_dup_call_b(u64 x)
{
	tgt_expect("tgt_dup tgt_dup x=%llu", x);
	return tgt_dup(x);
}

u64 tgt_run_dups(u64 a)
{
	return tgt_dup_call_a(a) + tgt_dup_call_b(a + 1);
}
