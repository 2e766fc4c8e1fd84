// SPDX-License-Identifier: GPL-2.0
/*
 * A kprobe program at every instance (site_test.c), written with
 * uapi/inkprobe_site.bpf.h only: each hit, with what inkprobe_site_arg()
 * gives for its first eight arguments, into a ring buffer.  The same
 * program runs on the cookie path and as the copies made for each spec.
 */
#include <linux/types.h>
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

#include "../../uapi/inkprobe_site.bpf.h"

/* One hit, as site_test.c reads it. */
struct hit {
	__u64 func_ip;			/* the kprobe's address, from its pt_regs */
	__u64 spec_ip;			/* the address of the map's spec at the cookie */
	__u32 nr_args;
	__u32 copy;			/* 1 in a copy made for one spec */
	__u32 same;			/* the spec read by is the map's at the cookie */
	__s32 ret[8];
	__s64 v[8];
};

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 1 << 16);
} hits SEC(".maps");

/* Whether @a and @b read their arguments alike. */
static __always_inline __u32 same_args(const struct inkprobe_site_spec *a,
				       const struct inkprobe_site_spec *b)
{
	const __u64 *x = (const __u64 *)a->args, *y = (const __u64 *)b->args;
	__u32 k;

	if (a->nr_args != b->nr_args)
		return 0;
	for (k = 0; k < sizeof(a->args) / 8; k++)
		if (x[k] != y[k])
			return 0;
	return 1;
}

SEC("kprobe")
int site(struct pt_regs *ctx)
{
	const struct inkprobe_site_spec *s = inkprobe_site(ctx), *m;
	struct hit *h = bpf_ringbuf_reserve(&hits, sizeof(*h), 0);
	__u32 id = bpf_get_attach_cookie(ctx);
	int i;

	if (!h)
		return 0;
	__builtin_memset(h, 0, sizeof(*h));
	/* x86-64 kprobes hand over ip just past the int3 (or where it would be) */
	h->func_ip = ((const __u64 *)ctx)[16] - 1;
	/* every instance has its spec in the map, at its cookie, on both paths */
	m = bpf_map_lookup_elem(&inkprobe_specs, &id);
	h->spec_ip = m ? m->ip : 0;
	h->copy = inkprobe_site_specialised();
	h->same = m && s && same_args(m, s);
	h->nr_args = s ? s->nr_args : 0;
	for (i = 0; i < 8; i++)
		h->ret[i] = inkprobe_site_arg(ctx, s, i, &h->v[i]);
	bpf_ringbuf_submit(h, 0);
	return 0;
}

char LICENSE[] SEC("license") = "GPL";
