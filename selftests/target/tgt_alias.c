// SPDX-License-Identifier: GPL-2.0
/*
 * A function with two names: tgt_named_b() and its alias tgt_named_a(),
 * one address and size, holding an inlined copy of tgt_aliased().  gen
 * names the caller tgt_named_a (the first name in address and name
 * order); kallsyms names the address tgt_named_b (the first in the
 * module's symbol table: local symbols come before global ones).
 */
#include <linux/compiler.h>
#include <linux/kernel.h>

#include "tgt.h"

static unsigned long tgt_aliased_calls;

static __always_inline u64 tgt_aliased(u64 v, u32 k)
{
	WRITE_ONCE(tgt_aliased_calls, tgt_aliased_calls + 1);	/* code of its own */
	return v * k + 1;
}

static TGT_CALLER u64 tgt_named_b(u64 x)
{
	tgt_expect("tgt_aliased tgt_named_a v=%llu k=%u", x, 5);
	return tgt_aliased(x, 5);
}

u64 tgt_named_a(u64 x) __alias(tgt_named_b);

u64 tgt_run_alias(u64 a)
{
	return tgt_named_a(a);
}
