// SPDX-License-Identifier: GPL-2.0
/*
 * The kprobes of an r event: one per exit of each inlined copy, as the
 * blob's EXITS lists them (Documentation/blob-format.rst, "Exits"), and a
 * kretprobe at each out-of-line copy.  A LAND or LEAVE exit is taken at
 * every hit; a LEAVE_JCC exit when its branch is taken, which the flags
 * before it tell; a LEAVE_INDIRECT exit when its target register points
 * outside the copy.  Those two are decoded from kprobes' copy of the
 * original instruction (not the text, which may hold another probe's int3
 * or jump).
 *
 * An instance takes part only with every one of its exits placed: else a
 * call could leave by an exit that is not there and its entry would never
 * be matched.  Its placed exits are then removed ("dropped" in stats).
 */
#include <linux/kprobes.h>
#include <linux/ptrace.h>
#include <linux/string.h>
#include <linux/uaccess.h>

#include <asm/nospec-branch.h>

#include "blob_store.h"
#include "error_log.h"
#include "exit_probe.h"
#include "kallsyms.h"
#include "probe_event.h"
#include "../lib/blob.h"
#include "../uapi/inkprobe.h"

#define INSN_MAX	16

const char *ink_exit_kind_name(u8 kind)
{
	switch (kind) {
	case BTF_INLINE_EXIT_LAND:
		return "LAND";
	case BTF_INLINE_EXIT_LEAVE:
		return "LEAVE";
	case BTF_INLINE_EXIT_LEAVE_JCC:
		return "LEAVE_JCC";
	case BTF_INLINE_EXIT_LEAVE_INDIRECT:
		return "LEAVE_INDIRECT";
	case INK_EXIT_RETURN:
		return "RETURN";
	default:
		return "?";
	}
}

/* pt_regs offsets (in longs) of the registers by ModRM number, 0-15 */
static const u8 modrm_reg[16] = {
	offsetof(struct pt_regs, ax) / 8, offsetof(struct pt_regs, cx) / 8,
	offsetof(struct pt_regs, dx) / 8, offsetof(struct pt_regs, bx) / 8,
	offsetof(struct pt_regs, sp) / 8, offsetof(struct pt_regs, bp) / 8,
	offsetof(struct pt_regs, si) / 8, offsetof(struct pt_regs, di) / 8,
	offsetof(struct pt_regs, r8) / 8, offsetof(struct pt_regs, r9) / 8,
	offsetof(struct pt_regs, r10) / 8, offsetof(struct pt_regs, r11) / 8,
	offsetof(struct pt_regs, r12) / 8, offsetof(struct pt_regs, r13) / 8,
	offsetof(struct pt_regs, r14) / 8, offsetof(struct pt_regs, r15) / 8,
};

static const char *const reg_names[16] = {
	"rax", "rcx", "rdx", "rbx", "rsp", "rbp", "rsi", "rdi",
	"r8", "r9", "r10", "r11", "r12", "r13", "r14", "r15",
};

/* The branch hints GCC may put before a jump (cs, ds). */
static unsigned int skip_hints(const u8 *b, unsigned int n)
{
	unsigned int i = 0;

	while (i < n && (b[i] == 0x2e || b[i] == 0x3e))
		i++;
	return i;
}

/* jcc rel8 (70-7f) or jcc rel32 (0f 80-8f): its condition, or -1. */
static int decode_jcc(const u8 *b, unsigned int n)
{
	unsigned int i = skip_hints(b, n);

	if (i < n && b[i] >= 0x70 && b[i] <= 0x7f)
		return b[i] & 0xf;
	if (i + 1 < n && b[i] == 0x0f && b[i + 1] >= 0x80 && b[i + 1] <= 0x8f)
		return b[i + 1] & 0xf;
	return -1;
}

#if defined(CONFIG_RETPOLINE) || defined(CONFIG_MITIGATION_RETPOLINE)
/*
 * asm/nospec-branch.h: exported for modules, the first of the array, one
 * thunk per register in ModRM order
 */
#define THUNKS		((unsigned long)&__x86_indirect_thunk_rax)
#else
#define THUNKS		0UL
#endif
#define THUNK_SIZE	32	/* RETPOLINE_THUNK_SIZE, as apply_retpolines() reads them */

/*
 * The register a jump to @addr jumps through: a retpoline thunk, found as
 * the kernel's alternatives do (its place in the array); else by name, any
 * *_thunk_REG (the aliases of the array's symbols make names ambiguous
 * there).  REG's ModRM number, or -1.
 */
static int thunk_register(unsigned long addr)
{
	char name[KSYM_NAME_LEN];
	unsigned long off, size;
	const char *reg;
	unsigned int i;

	if (THUNKS && addr >= THUNKS && addr < THUNKS + 16 * THUNK_SIZE &&
	    !((addr - THUNKS) % THUNK_SIZE))
		return (addr - THUNKS) / THUNK_SIZE;
	if (!ink_kallsyms_at(addr, name, &off, &size, NULL) || off)
		return -1;
	reg = strstr(name, "_thunk_");
	if (!reg)
		return -1;
	reg += strlen("_thunk_");
	for (i = 0; i < ARRAY_SIZE(reg_names); i++)
		if (!strcmp(reg, reg_names[i]))
			return i;
	return -1;
}

/*
 * An indirect jmp at @addr: jmp *%reg (ff /4, mod 3), after an lfence as
 * retpolines are patched on some CPUs, or a jmp to a thunk that jumps
 * through a register (the retpoline thunks, __x86_indirect_thunk_REG).
 * Its register's ModRM number, or -1 (a jmp through memory, say).
 */
static int decode_indirect(const u8 *b, unsigned int n, unsigned long addr)
{
	unsigned int i = skip_hints(b, n);
	int rex_b = 0;
	s32 rel;

	if (i + 3 <= n && b[i] == 0x0f && b[i + 1] == 0xae && b[i + 2] == 0xe8)
		i += 3;		/* lfence */
	if (i < n && b[i] == 0xe9 && i + 5 <= n) {
		memcpy(&rel, b + i + 1, sizeof(rel));
		return thunk_register(addr + i + 5 + rel);
	}
	if (i < n && (b[i] & 0xf0) == 0x40) {	/* REX */
		rex_b = b[i] & 1;
		i++;
	}
	if (i + 2 <= n && b[i] == 0xff && (b[i + 1] & 0xf8) == 0xe0)
		return (b[i + 1] & 7) | rex_b << 3;
	return -1;
}

int ink_exit_decode(struct ink_probe *p, const struct kprobe *kp)
{
	u8 b[INSN_MAX];
	int v = -1;

	if (p->exit_kind != BTF_INLINE_EXIT_LEAVE_JCC &&
	    p->exit_kind != BTF_INLINE_EXIT_LEAVE_INDIRECT)
		return 0;
	/* x86 kprobes keep the original instruction in their slot */
	if (!kp->ainsn.insn || copy_from_kernel_nofault(b, kp->ainsn.insn, sizeof(b)))
		goto refused;
	if (p->exit_kind == BTF_INLINE_EXIT_LEAVE_JCC)
		v = decode_jcc(b, sizeof(b));
	else
		v = decode_indirect(b, sizeof(b), p->addr);
	if (v < 0)
		goto refused;
	p->exit_test = p->exit_kind == BTF_INLINE_EXIT_LEAVE_JCC ? v : modrm_reg[v];
	return 0;
refused:
	ink_log_err(0, "exit at %pS (%s) refused: %*ph is not a jump inkprobe can follow",
		    (void *)p->addr, ink_exit_kind_name(p->exit_kind), 8, b);
	return -EOPNOTSUPP;
}

/* Condition @cc (the low nibble of a jcc's opcode) on @flags. */
static bool cc_holds(u8 cc, unsigned long flags)
{
	bool cf = flags & X86_EFLAGS_CF, pf = flags & X86_EFLAGS_PF;
	bool zf = flags & X86_EFLAGS_ZF, sf = flags & X86_EFLAGS_SF;
	bool of = flags & X86_EFLAGS_OF;
	bool v;

	switch (cc >> 1) {
	case 0:
		v = of;			/* jo */
		break;
	case 1:
		v = cf;			/* jb */
		break;
	case 2:
		v = zf;			/* je */
		break;
	case 3:
		v = cf || zf;		/* jbe */
		break;
	case 4:
		v = sf;			/* js */
		break;
	case 5:
		v = pf;			/* jp */
		break;
	case 6:
		v = sf != of;		/* jl */
		break;
	default:
		v = zf || sf != of;	/* jle */
		break;
	}
	return (cc & 1) ? !v : v;	/* odd: the negation */
}

/* Is @addr inside @p's instance (its ranges)? */
static bool in_copy(const struct ink_probe *p, unsigned long addr)
{
	struct ink_instance in = {
		.ranges = p->ranges, .ranges_len = p->ranges_len, .nr_ranges = p->nr_ranges,
	};
	s64 at = (s64)(addr - p->target->sym_addr[p->sym]);
	struct ink_range_iter it;
	s32 start;
	u32 len;

	ink_range_iter_init(&it, &in);
	while (ink_range_next(&it, &start, &len))
		if (at >= start && at < (s64)start + len)
			return true;
	return false;
}

bool ink_exit_leaves(const struct ink_probe *p, struct pt_regs *regs)
{
	if (p->exit_kind == BTF_INLINE_EXIT_LEAVE_JCC)
		return cc_holds(p->exit_test, regs->flags);
	return !in_copy(p, ((unsigned long *)regs)[p->exit_test]);
}
NOKPROBE_SYMBOL(ink_exit_leaves);

/* Probes of one instance are consecutive in ev->probes (probe_match.c). */
void ink_exit_settle(struct ink_event *ev)
{
	unsigned int j, k, first, placed;

	for (first = 0; first < ev->nr_probes; first = j) {
		struct ink_probe *p = &ev->probes[first];

		placed = 0;
		for (j = first; j < ev->nr_probes && ev->probes[j].instance == p->instance &&
		     ev->probes[j].target == p->target; j++)
			placed += !ev->probes[j].refused;
		if (placed == j - first)
			continue;
		/* its placed exits go: this instance takes no part */
		for (k = first; k < j; k++) {
			struct ink_probe *q = &ev->probes[k];

			if (q->refused)
				continue;
			q->refused = -ECANCELED;
		}
		if (placed)
			ink_log_err(0, "instance %u (%s+0x%x): %u of its %u kprobes (exits, and its entry for $duration) refused, the other %u removed: no r event for it",
				    p->instance, ink_target_sym_name(p->target, p->sym), p->entry_offset, j - first - placed,
				    j - first, placed);
	}
}
