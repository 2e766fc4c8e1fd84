// SPDX-License-Identifier: GPL-2.0
/*
 * A kprobe program at every instance (site_test.c), written with
 * uapi/inkprobe_site.bpf.h only: each hit, with what inkprobe_site_arg()
 * gives for its first eight arguments, into a ring buffer.
 */
#include <linux/types.h>
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

#include "../../uapi/inkprobe_site.bpf.h"

/* One hit, as site_test.c reads it. */
struct hit {
	__u64 func_ip;			/* the kprobe's address, from its pt_regs */
	__u64 spec_ip;			/* the address the spec says */
	__u32 nr_args;
	__s32 ret[8];
	__s64 v[8];
};

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 1 << 16);
} hits SEC(".maps");

SEC("kprobe")
int site(struct pt_regs *ctx)
{
	const struct inkprobe_site_spec *s = inkprobe_site(ctx);
	struct hit *h = bpf_ringbuf_reserve(&hits, sizeof(*h), 0);
	int i;

	if (!h)
		return 0;
	__builtin_memset(h, 0, sizeof(*h));
	/* x86-64 kprobes hand over ip just past the int3 (or where it would be) */
	h->func_ip = ((const __u64 *)ctx)[16] - 1;
	h->spec_ip = s ? s->ip : 0;
	h->nr_args = s ? s->nr_args : 0;
	for (i = 0; i < 8; i++)
		h->ret[i] = inkprobe_site_arg(ctx, s, i, &h->v[i]);
	bpf_ringbuf_submit(h, 0);
	return 0;
}

char LICENSE[] SEC("license") = "GPL";
