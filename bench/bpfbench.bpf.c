// SPDX-License-Identifier: GPL-2.0
/*
 * make bench: two BPF programs that read the arguments of tgt_bench_mix()
 * inlined at tgt_bench_caller+0x5 and do the same with them.
 *
 *   decoded  BPF_PROG_TYPE_TRACEPOINT on inkprobe's event b/mix (the
 *            record of uapi/inkprobe_bpf.h: inkprobe decoded the values)
 *   by_hand  BPF_PROG_TYPE_KPROBE at the same address, reading what
 *            kprobe_events' bench probe reads: reg=%di konst=9 obj=%si
 *            weight=+8(%si)
 *   per_site BPF_PROG_TYPE_KPROBE at the same address, attached by
 *            inkprobe_site_attach() (user/site/): it reads the arguments
 *            itself, from b/mix's spec (uapi/inkprobe_site.bpf.h)
 *
 * Both add the values to the same counters: the sums of two runs of the
 * same calls must be equal, and equal to what the calls passed.
 */
#include <linux/types.h>
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

#include "../uapi/inkprobe_bpf.h"
#include "../uapi/inkprobe_site.bpf.h"

/* p:b/mix tgt_bench_mix reg konst obj weight=obj->weight */
struct b_mix {
	struct inkprobe_event h;
	__u64 reg;
	__s32 konst;
	__u64 obj;
	__u32 weight;
};

/* x86-64's struct pt_regs, as the kernel lays it out */
struct x86_regs {
	__u64 r15, r14, r13, r12, bp, bx, r11, r10, r9, r8;
	__u64 ax, cx, dx, si, di, orig_ax, ip, cs, flags, sp, ss;
};

/* read by bpfbench after the run; one set for whichever program ran */
struct {
	__u64 hits, sum, missing;
} acc;

static __always_inline void account(__u64 reg, __s32 konst, __u32 weight)
{
	__sync_fetch_and_add(&acc.hits, 1);
	__sync_fetch_and_add(&acc.sum, reg + konst + weight);
}

SEC("tracepoint/b/mix")
int decoded(struct b_mix *ctx)
{
	if (ctx->h.__optimized_out | ctx->h.__fault)
		__sync_fetch_and_add(&acc.missing, 1);
	account(ctx->reg, ctx->konst, ctx->weight);
	return 0;
}

SEC("kprobe")
int by_hand(struct x86_regs *ctx)
{
	__u32 weight = 0;

	if (bpf_probe_read_kernel(&weight, sizeof(weight), (void *)(ctx->si + 8)))
		__sync_fetch_and_add(&acc.missing, 1);
	account(ctx->di, 9, weight);
	return 0;
}

SEC("kprobe")
int per_site(void *ctx)
{
	const struct inkprobe_site_spec *s = inkprobe_site(ctx);
	__s64 reg, konst, weight;

	/* p:b/mix tgt_bench_mix reg konst obj weight=obj->weight */
	if (inkprobe_site_arg(ctx, s, 0, &reg) | inkprobe_site_arg(ctx, s, 1, &konst) |
	    inkprobe_site_arg(ctx, s, 3, &weight))
		__sync_fetch_and_add(&acc.missing, 1);
	account(reg, konst, weight);
	return 0;
}

char LICENSE[] SEC("license") = "GPL";
