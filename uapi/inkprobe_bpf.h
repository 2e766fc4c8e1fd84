/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * For BPF programs on inkprobe's trace events (Documentation/trace-events.rst).
 *
 * A BPF_PROG_TYPE_TRACEPOINT program attached to an inkprobe event (libbpf:
 * SEC("tracepoint/GROUP/EVENT")) gets the event's record: struct
 * inkprobe_event, then one field per argument of the definition, in its
 * order, each aligned to its size -- what a C struct of these fields
 * gives:
 *
 *	p:tgt/tgt_mix tgt_mix reg konst obj weight=obj->weight
 *
 *	struct tgt_mix {
 *		struct inkprobe_event h;
 *		__u64 reg;		u64, u32, u16, u8; x64 ... x8 are unsigned
 *		__s32 konst;		s64, s32, s16, s8
 *		__u64 obj;
 *		__u32 weight;
 *	};
 *
 * A string argument (:string, $comm) is a __u32 (__data_loc char[]): its
 * characters are in the record, at INKPROBE_STR(ctx, field), at most
 * INKPROBE_STR_LEN(field) bytes with the NUL.  The format file
 * (/sys/kernel/tracing/events/GROUP/EVENT/format) gives every offset.
 *
 * A definition ending in "stacktrace" has struct inkprobe_stack after its
 * arguments, 4-byte aligned:
 *
 *	p:st/in tgt_stack_innermost v stacktrace
 *
 *	struct st_in {
 *		struct inkprobe_event h;
 *		__u64 v;
 *		struct inkprobe_stack s;
 *	};
 *
 * Its s.__nr_frames frames (unsigned long, the probe site first, then
 * the return addresses) are at INKPROBE_DYN(ctx, s.__stack), and so many
 * flag bytes at INKPROBE_DYN(ctx, s.__stack_flags).
 */
#ifndef _UAPI_INKPROBE_BPF_H
#define _UAPI_INKPROBE_BPF_H

#include <linux/types.h>

struct inkprobe_event {
	__u64 __regs;			/* the common fields; for BPF, the hit's struct pt_regs * */
	__u64 __probe_ip;		/* the address of the instance's probe */
	__u32 __optimized_out;		/* bit i: argument i has no value here */
	__u32 __fault;			/* bit i: reading argument i faulted */
};

/* Argument @i (from 0) of record @ev has a value; else its field is 0 or "". */
#define INKPROBE_HAS_VALUE(ev, i) \
	(!((((ev)->__optimized_out | (ev)->__fault) >> (i)) & 1))

/* The characters of a __data_loc char[] field @loc of the record at @ctx. */
#define INKPROBE_STR(ctx, loc)		((const char *)(ctx) + ((loc) & 0xffff))
#define INKPROBE_STR_LEN(loc)		((loc) >> 16)

/* Any __data_loc field: its bytes in the record at @ctx, and how many. */
#define INKPROBE_DYN(ctx, loc)		((const void *)((const char *)(ctx) + ((loc) & 0xffff)))
#define INKPROBE_DYN_LEN(loc)		((loc) >> 16)

struct inkprobe_stack {
	__u32 __stack;			/* __data_loc unsigned long[]: the frames */
	__u32 __stack_flags;		/* __data_loc __u8[]: INKPROBE_FRAME_*, per frame */
	__u32 __probe_idx;		/* the instance, by its index in the definition */
	__u32 __nr_frames;		/* how many frames (and flags) */
};

#define INKPROBE_FRAME_EXACT	1	/* the probe site or an interrupted instruction */
#define INKPROBE_FRAME_GUESS	2	/* found by a scan after an unwinder error ("? ") */

#endif /* _UAPI_INKPROBE_BPF_H */
