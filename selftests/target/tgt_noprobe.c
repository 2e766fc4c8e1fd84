// SPDX-License-Identifier: GPL-2.0
/*
 * Inlined copies in code kprobes refuse: tgt_np_helper() inlined into a
 * noinstr function (.noinstr.text), into a NOKPROBE_SYMBOL() function and
 * into a plain one; tgt_np_only() inlined into the noinstr function alone.
 * gen keeps the refused copies as NO_PROBE records, their ranges only (for
 * stacks); a definition attaches to the plain copy of tgt_np_helper() and
 * is refused for tgt_np_only().  Only the plain copy records a line.
 */
#include <linux/compiler.h>
#include <linux/kprobes.h>

#include "tgt.h"

static unsigned long tgt_np_calls, tgt_np_only_calls;

static __always_inline u64 tgt_np_helper(u64 v)
{
	WRITE_ONCE(tgt_np_calls, tgt_np_calls + 1);	/* code of its own */
	return v * 5 + 3;
}

static __always_inline u64 tgt_np_only(u64 v)
{
	WRITE_ONCE(tgt_np_only_calls, tgt_np_only_calls + v);
	return v ^ 0x55;
}

/* no call out of .noinstr.text (objtool): inlined code alone */
static noinstr __attribute__((__noipa__)) u64 tgt_np_noinstr(u64 x)
{
	return tgt_np_helper(x) + tgt_np_only(x + 1);
}

static TGT_CALLER u64 tgt_np_nokprobe(u64 x)
{
	return tgt_np_helper(x + 2);
}
NOKPROBE_SYMBOL(tgt_np_nokprobe);

static TGT_CALLER u64 tgt_np_plain(u64 x)
{
	tgt_expect("tgt_np_helper %s v=%llu", __func__, x + 3);
	return tgt_np_helper(x + 3);
}

u64 tgt_run_noprobe(u64 a)
{
	return tgt_np_noinstr(a) + tgt_np_nokprobe(a) + tgt_np_plain(a);
}
