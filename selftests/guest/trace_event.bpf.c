// SPDX-License-Identifier: GPL-2.0
/*
 * libbpf programs on inkprobe events, written with uapi/inkprobe_bpf.h
 * only: each hit of three definitions of trace_event_test.c, with its
 * decoded arguments, into a ring buffer.
 */
#include <linux/types.h>
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

#include "../../uapi/inkprobe_bpf.h"

/* p:tgt/tgt_mix tgt_mix reg konst obj weight=obj->weight */
struct tgt_mix {
	struct inkprobe_event h;
	__u64 reg;
	__s32 konst;
	__u64 obj;
	__u32 weight;
};

/* p:part/tgt_part tgt_part a1 a2 a3 a4 a5 a6 a7 */
struct tgt_part {
	struct inkprobe_event h;
	__u64 a[7];
};

/* p:str/tgt_strings tgt_strings name=l->name:string note=l->note:string s:string */
struct tgt_strings {
	struct inkprobe_event h;
	__u32 name;
	__u32 note;
	__u32 s;
};

/* One hit, as trace_event_test.c reads it. */
struct hit {
	__u64 ip;
	__u32 event;			/* 0 tgt_mix, 1 tgt_part, 2 tgt_strings */
	__u32 missing;			/* __optimized_out | __fault */
	__s64 v[7];
	char str[3][32];
};

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 1 << 16);
} hits SEC(".maps");

static struct hit *new_hit(const struct inkprobe_event *h, __u32 event)
{
	struct hit *out = bpf_ringbuf_reserve(&hits, sizeof(*out), 0);

	if (!out)
		return NULL;
	__builtin_memset(out, 0, sizeof(*out));
	out->ip = h->__probe_ip;
	out->event = event;
	out->missing = h->__optimized_out | h->__fault;
	return out;
}

SEC("tracepoint/tgt/tgt_mix")
int mix(struct tgt_mix *ctx)
{
	struct hit *out = new_hit(&ctx->h, 0);

	if (!out)
		return 0;
	out->v[0] = ctx->reg;
	out->v[1] = ctx->konst;
	out->v[2] = ctx->obj;
	out->v[3] = ctx->weight;
	bpf_ringbuf_submit(out, 0);
	return 0;
}

SEC("tracepoint/part/tgt_part")
int part(struct tgt_part *ctx)
{
	struct hit *out = new_hit(&ctx->h, 1);
	int i;

	if (!out)
		return 0;
	for (i = 0; i < 7; i++)
		out->v[i] = ctx->a[i];
	bpf_ringbuf_submit(out, 0);
	return 0;
}

SEC("tracepoint/str/tgt_strings")
int strings(struct tgt_strings *ctx)
{
	struct hit *out = new_hit(&ctx->h, 2);

	if (!out)
		return 0;
	bpf_probe_read_kernel_str(out->str[0], sizeof(out->str[0]), INKPROBE_STR(ctx, ctx->name));
	bpf_probe_read_kernel_str(out->str[1], sizeof(out->str[1]), INKPROBE_STR(ctx, ctx->note));
	bpf_probe_read_kernel_str(out->str[2], sizeof(out->str[2]), INKPROBE_STR(ctx, ctx->s));
	bpf_ringbuf_submit(out, 0);
	return 0;
}

char LICENSE[] SEC("license") = "GPL";
