// SPDX-License-Identifier: GPL-2.0
/*
 * A lean, timed workload for benchmarks: tgt_bench_caller() with
 * tgt_bench_mix() inlined, called N times in a loop ("bench N"), and an
 * empty kprobe on it for the cost of a bare probe ("kprobe OFF" toggles
 * one at tgt_bench_caller+OFF).
 */
#include <linux/compiler.h>
#include <linux/kprobes.h>
#include <linux/ktime.h>

#include "tgt.h"

static __always_inline u64 tgt_bench_mix(u64 reg, int konst, const struct tgt_obj *obj)
{
	return (reg * 5 + konst) ^ READ_ONCE(obj->weight);
}

static TGT_CALLER u64 tgt_bench_caller(u64 x, const struct tgt_obj *o)
{
	return tgt_bench_mix(x, 9, o) + 3;
}

u64 tgt_run_bench(unsigned long n)
{
	struct tgt_obj o = { .cookie = n, .weight = 77 };
	u64 t0, t1, s = 0;
	unsigned long i;

	t0 = ktime_get_ns();
	for (i = 0; i < n; i++)
		s += tgt_bench_caller(i, &o);
	t1 = ktime_get_ns();
	tgt_expect("bench calls=%lu ns=%llu", n, t1 - t0);
	return s;
}

static int empty_pre(struct kprobe *p, struct pt_regs *regs)
{
	return 0;
}

static struct kprobe empty_kp = { .symbol_name = "tgt_bench_caller", .pre_handler = empty_pre };
static bool empty_armed;

int tgt_toggle_empty_kprobe(unsigned int off)
{
	int ret = 0;

	if (empty_armed) {
		unregister_kprobe(&empty_kp);
		empty_armed = false;
		tgt_expect("kprobe removed");
		return 0;
	}
	memset(&empty_kp, 0, sizeof(empty_kp));
	empty_kp.symbol_name = "tgt_bench_caller";
	empty_kp.offset = off;
	empty_kp.pre_handler = empty_pre;
	ret = register_kprobe(&empty_kp);
	empty_armed = !ret;
	tgt_expect("kprobe %s at tgt_bench_caller+0x%x", ret ? "refused" : "placed", off);
	return ret;
}

void tgt_bench_exit(void)
{
	if (empty_armed)
		unregister_kprobe(&empty_kp);
	empty_armed = false;
}
