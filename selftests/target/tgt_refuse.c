// SPDX-License-Identifier: GPL-2.0
/*
 * tgt_refused() inlined into four callers, three of which also hold a site
 * kprobes refuse: a jump label (a static branch), a WARN (ud2, in the BUG
 * table) and a static call (preempt_enable() calls preempt_schedule()
 * through one on kernels with PREEMPT_DYNAMIC).  The tests move one instance's probe pc onto such a site
 * in a copy of the blob, to see the definition attach to the others.
 */
#include <linux/bug.h>
#include <linux/compiler.h>
#include <linux/jump_label.h>
#include <linux/kernel.h>
#include <linux/preempt.h>

#include "tgt.h"

static DEFINE_STATIC_KEY_FALSE(tgt_refuse_key);
static unsigned long tgt_refused_calls;

static __always_inline u64 tgt_refused(u64 v)
{
	WRITE_ONCE(tgt_refused_calls, tgt_refused_calls + 1);	/* code of its own */
	return v * 7;
}

static TGT_CALLER u64 tgt_refuse_plain(u64 x)
{
	tgt_expect("tgt_refused %s v=%llu", __func__, x);
	return tgt_refused(x);
}

static TGT_CALLER u64 tgt_refuse_jump(u64 x)
{
	if (static_branch_unlikely(&tgt_refuse_key))
		x ^= 1;
	tgt_expect("tgt_refused %s v=%llu", __func__, x);
	return tgt_refused(x);
}

static TGT_CALLER u64 tgt_refuse_warn(u64 x)
{
	WARN_ON(x == U64_MAX);		/* never: the tests pass other values */
	tgt_expect("tgt_refused %s v=%llu", __func__, x + 1);
	return tgt_refused(x + 1);
}

static TGT_CALLER u64 tgt_refuse_call(u64 x)
{
	u64 r;

	preempt_disable();
	tgt_expect("tgt_refused %s v=%llu", __func__, x + 2);
	r = tgt_refused(x + 2);
	preempt_enable();
	return r;
}

u64 tgt_run_refuse(u64 a)
{
	return tgt_refuse_plain(a) + tgt_refuse_jump(a) + tgt_refuse_warn(a) +
	       tgt_refuse_call(a);
}
