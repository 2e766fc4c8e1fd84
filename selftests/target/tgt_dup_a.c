// SPDX-License-Identifier: GPL-2.0
/* One of two static functions named tgt_dup (the other: tgt_dup_b.c). */
#include <linux/compiler.h>

#include "tgt.h"

static noinline u64 tgt_dup(u64 x)
{
	return x * 3 + 1;
}

u64 tgt_dup_call_a(u64 x)
{
	tgt_expect("tgt_dup tgt_dup x=%llu", x);
	return tgt_dup(x);
}
