/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * BPF at every instance, the USDT model (Documentation/trace-events.rst,
 * "BPF programs at every instance"): what a BPF program needs to read one
 * argument of one instance itself, from struct pt_regs and memory.
 *
 * inkprobe.ko writes these specs as text, one line per instance, to
 * /sys/kernel/debug/inkprobe/sites; user/site/inkprobe_attach.c parses them
 * into the spec map of uapi/inkprobe_site.bpf.h and attaches a kprobe
 * program at each instance with the map index as its BPF cookie.
 *
 * An argument's value, as the trace event has it:
 *
 *	v = (reg == INKPROBE_NO_REG ? 0 : register reg) + val
 *	if (loc_size)			the value is in memory at v
 *		v = loc_size bytes at v, zero-extended
 *	for each of the nr_reads reads ("->" of the definition)
 *		v = 8 bytes at v + field_off[j] (the last read: size bytes)
 *	v = its low size bytes, sign-extended when is_signed
 */
#ifndef _UAPI_INKPROBE_SITE_H
#define _UAPI_INKPROBE_SITE_H

#include <linux/types.h>

#define INKPROBE_SITE_MAX_ARGS	16	/* as a definition has */
#define INKPROBE_SITE_MAX_READS	8	/* "->" per argument */
#define INKPROBE_NO_REG		0xff	/* no register: val is the base */

enum inkprobe_arg_kind {
	INKPROBE_ARG_NONE,		/* no value here: (optimized out) */
	INKPROBE_ARG_VALUE,		/* the steps above give the value */
	INKPROBE_ARG_UNSUPPORTED,	/* a location or type the steps cannot
					 * express (arithmetic, pieces, strings,
					 * $comm): the trace event has it
					 */
};

struct inkprobe_arg_spec {
	__s64 val;			/* added to the register, or the base */
	__u8 kind;			/* enum inkprobe_arg_kind */
	__u8 reg;			/* DWARF register (x86-64: 0 ax ... 15 r15) or NO_REG */
	__u8 loc_size;			/* 0, or 1, 2, 4, 8: the value is in memory */
	__u8 nr_reads;			/* 0 to INKPROBE_SITE_MAX_READS */
	__u8 size;			/* 1, 2, 4 or 8 bytes */
	__u8 is_signed;
	__u8 __pad[2];
	__s32 field_off[INKPROBE_SITE_MAX_READS];
};

/* What inkprobe_arg() returns, negated, when it gives no value */
#define INKPROBE_ENOENT		2	/* no such argument */
#define INKPROBE_ESRCH		3	/* not attached by inkprobe_site_attach() */
#define INKPROBE_EFAULT		14	/* a read failed: (fault) */
#define INKPROBE_ENODATA	61	/* no value here: (optimized out) */
#define INKPROBE_EOPNOTSUPP	95	/* INKPROBE_ARG_UNSUPPORTED */

/* One instance: the value of the spec map at its BPF cookie. */
struct inkprobe_site_spec {
	__u64 ip;			/* the instance's probe address */
	__u32 nr_args;
	__u32 in_use;			/* a slot taken by inkprobe_site_attach() */
	struct inkprobe_arg_spec args[INKPROBE_SITE_MAX_ARGS];
};

/*
 * A copy of the program made for one spec (inkprobe_site_attach_obj() in
 * user/site/inkprobe_attach.h): the variable inkprobe_site_const of its
 * .rodata, which the kernel freezes, so that the verifier knows every
 * field and keeps only the instructions of this spec's reads.  In the
 * object as compiled it is all zero (spec.in_use 0): the cookie path.
 *
 * op[i] says how argument i reads in the fewest instructions, its high
 * four bits an enum inkprobe_arg_op, its low four the DWARF register;
 * INKPROBE_OP_SPEC reads by spec.args[i], as the cookie path does.
 */
enum inkprobe_arg_op {
	INKPROBE_OP_SPEC,		/* by spec.args[i] */
	INKPROBE_OP_REG,		/* the register (8 bytes) */
	INKPROBE_OP_REG_U32,		/* its low 4 bytes */
	INKPROBE_OP_REG_S32,		/* its low 4 bytes, sign-extended */
	INKPROBE_OP_REG_OFF,		/* the register + off[i] (8 bytes) */
	INKPROBE_OP_CONST,		/* off[i] */
	INKPROBE_OP_LOAD_REG,		/* 1 << n bytes at the register + off[i], */
					/* zero-extended: LOAD_REG + n, n 0 to 3 */
	INKPROBE_OP_LOAD_ABS = INKPROBE_OP_LOAD_REG + 4,	/* the same at off[i] */
	INKPROBE_OP_END = INKPROBE_OP_LOAD_ABS + 4,
};

struct inkprobe_site_const {
	struct inkprobe_site_spec spec;	/* ip 0: the copy serves every instance */
					/* with these args; in_use 1 */
	__s64 off[INKPROBE_SITE_MAX_ARGS];
	__u8 op[INKPROBE_SITE_MAX_ARGS];
};

#endif /* _UAPI_INKPROBE_SITE_H */
