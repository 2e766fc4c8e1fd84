// SPDX-License-Identifier: GPL-2.0
/*
 * Sites for the tests of time and safety (trace_time_test):
 *
 *   notrace A   tgt_nt() inlined into a notrace caller and into a traced
 *               one: ftrace cannot trace the first, as kprobe_events says
 *   nested N M  N calls of tgt_nt_traced(), then M calls of
 *               tgt_nest_outer() under a kprobe of this module whose
 *               handler calls tgt_nt_traced(): a probe in there hits
 *               inside another kprobe's handler, and kprobes skip it
 *               (counted in the probe's nmissed), as in an NMI that
 *               interrupts a handler
 */
#include <linux/compiler.h>
#include <linux/kprobes.h>

#include "tgt.h"

static u64 tgt_nt_sink;

static __always_inline u64 tgt_nt(u64 v, u32 k)
{
	return (v ^ READ_ONCE(tgt_nt_sink)) * 3 + k;
}

static TGT_CALLER notrace u64 tgt_nt_notraced(u64 x)
{
	return tgt_nt(x, 5) + 1;
}

static TGT_CALLER u64 tgt_nt_traced(u64 x)
{
	return tgt_nt(x, 6) + 2;
}

u64 tgt_run_notrace(u64 a)
{
	u64 s = tgt_nt_notraced(a);

	tgt_expect("tgt_nt tgt_nt_notraced v=%llu k=5", a);
	s += tgt_nt_traced(a + 1);
	tgt_expect("tgt_nt tgt_nt_traced v=%llu k=6", a + 1);
	return s;
}

static TGT_CALLER u64 tgt_nest_outer(u64 x)
{
	return x + 1;
}

static int nest_pre(struct kprobe *kp, struct pt_regs *regs)
{
	WRITE_ONCE(tgt_nt_sink, 0);
	tgt_nt_traced(1000);
	return 0;
}

int tgt_run_nested(u64 n, u64 m)
{
	struct kprobe kp = { .symbol_name = "tgt_nest_outer", .pre_handler = nest_pre };
	u64 i;
	int ret;

	WRITE_ONCE(tgt_nt_sink, 0);
	for (i = 0; i < n; i++) {
		tgt_nt_traced(i);
		tgt_expect("tgt_nt tgt_nt_traced v=%llu k=6", i);
	}
	ret = register_kprobe(&kp);
	if (ret)
		return ret;
	for (i = 0; i < m; i++)
		tgt_nest_outer(i);
	unregister_kprobe(&kp);
	return 0;
}
