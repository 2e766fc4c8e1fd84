// SPDX-License-Identifier: GPL-2.0
/*
 * The exits of every inlined instance (libZydis decodes): the pcs where a
 * probe sees each call of the copy end exactly once
 * (Documentation/generating.rst, "Exits"; the blob's EXITS,
 * Documentation/blob-format.rst).
 *
 * The caller (its symbol and its NAME.cold part; NAME too for a NAME.cold
 * caller) is decoded from each symbol's start into a graph of
 * instructions: the next instruction, a branch's target, a jump label's
 * other way, the fixup of an instruction that may fault (__ex_table:
 * where it resumes); none after a ret, a jmp out
 * of the caller, a ud2, a BUG(), an int3 or a call of a function DWARF
 * says never returns; an indirect jmp may go wherever the module's data
 * points into the caller (jump tables).  For each instance, its copy is
 * the straight line from its entry pc to its probe pc, and what the entry
 * pc reaches (not through itself again: that is the next call) that is
 * the instance's code or leads back to it or to that straight line: GCC
 * interleaves the caller's instructions with the copy's, and hoists some
 * of the copy's above its entry pc (those run before the call's entry
 * event: not part of it).  Nothing may enter the copy but through its
 * entry pc, and the copy may not jump back to it.  Every edge from the
 * copy to outside it is a way out: where control lands, L, is the exit
 * (LAND) when every predecessor of L is in the copy (a fixup's faulting
 * instructions too), an exit may be at L (the caller's symbol, or one of
 * the instance's ranges in the same section), kprobes accept it and no
 * indirect jmp of the copy may go there;
 * otherwise each leaving instruction is: LEAVE when every execution of
 * it leaves (a jmp, an instruction whose only successor is L), LEAVE_JCC
 * for a conditional branch taken to L.  A ret or a jmp out of the caller
 * (a tail call, the return thunk) is LEAVE; an indirect jmp LEAVE_INDIRECT,
 * whatever its targets.  So after an exit the copy cannot be reached but
 * through its entry pc again: each call passes exactly one exit, or none
 * when it never returns.
 *
 * An instance gets no exits when one cannot be placed exactly (enum
 * exit_fail, counted for gen --stats): a call or a conditional branch
 * whose fall-through leaves to a shared pc (no instruction of the
 * instance leaves on every execution there), a fault to a fixup that is
 * no LAND or unknown, code of the copy entered other than through its
 * entry, an undecodable or unknown instruction, a range outside the
 * caller's decoded code, an exit that would be outside the caller's
 * symbol and its own ranges (or in a module's other section) or where
 * kprobes refuse.  A MERGED record gets none: its exits would be one call's.
 *
 * vmlinux is built with -fno-jump-tables (x86's Makefile, for retpolines
 * and IBT): an indirect jmp there is a tail call.  A module's jump tables
 * are relocations in its data (gen.data_refs): their targets are never
 * LAND pcs.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gen.h"
#include "x86_decoder.h"
#include "lower_bound.h"

const char *const exit_fail_names[NR_EXIT_FAILS] = {
	[EXIT_OK] = "with exits",
	[EXIT_NEVER_RETURNS] = "never returns (no exit)",
	[EXIT_NO_RANGES] = "no ranges (--no-ranges)",
	[EXIT_MERGED] = "merged record",
	[EXIT_OTHER_SYMBOL] = "a range in another symbol (.cold)",
	[EXIT_NOT_BOUNDARY] = "a range off an instruction boundary",
	[EXIT_UNDECODABLE] = "an undecodable instruction",
	[EXIT_UNKNOWN_INSN] = "an instruction with unknown successors",
	[EXIT_FAULT] = "an instruction that may fault to a fixup",
	[EXIT_ENTERED] = "its code entered not through its entry",
	[EXIT_ENTRY_LOOP] = "it jumps back to its own entry",
	[EXIT_SITE] = "a jump label or static call leaves",
	[EXIT_CALL_RETURNS_OUT] = "a call returns to a shared pc outside",
	[EXIT_JCC_FALLS_OUT] = "a branch falls through to a shared pc outside",
	[EXIT_REFUSED] = "a leaving instruction kprobes refuse",
	[EXIT_TOO_MANY] = "too many exits",
};

static const struct gen *sort_gen;

enum insn_type {
	I_PLAIN,	/* goes on with the next instruction */
	I_JCC,		/* the next one, or its target */
	I_JMP,		/* its target */
	I_JMP_OUT,	/* out of the module: a tail call, the return thunk */
	I_JMP_IND,	/* an indirect jump: through a register, a retpoline thunk */
	I_RET,
	I_CALL,		/* returns to the next instruction */
	I_STOP,		/* never goes on: ud2, BUG(), int3, a noreturn call */
	I_JUMP_LABEL,	/* the next instruction, or the label's target */
	I_SITE_OUT,	/* a static tail call */
	I_WARN,		/* a WARN's ud2 at a site kprobes refuse: goes on */
	I_FAULT,	/* may fault to a fixup */
	I_UNKNOWN,
	I_UNDECODABLE,
};

struct insn {
	uint64_t pc, target;	/* target: I_JCC, I_JMP, I_JUMP_LABEL; I_FAULT: its fixup */
	uint32_t len;
	uint8_t type;
};

/*
 * The caller as a graph: a node per instruction of its symbol and of its
 * NAME.cold part, decoded from each symbol's start, with its successors
 * and predecessors.
 */
#define NO_NODE		UINT32_MAX

struct node {
	uint64_t pc;
	uint64_t succ_pc[2];	/* UINT64_MAX: none */
	uint32_t succ[2];	/* node indices, NO_NODE: not an instruction of the caller */
	uint32_t len;
	uint8_t type;		/* enum insn_type */
	uint8_t nr_succ;
	uint32_t sym;		/* its symbol: the caller's, NAME.cold's, or NAME's for a NAME.cold */
	bool start;		/* the start of a symbol entered from elsewhere (not a .cold one) */
	bool foreign;		/* entered from elsewhere: a fixup, replacement code, a start */
};

struct caller {
	long sym;
	bool partial;		/* a symbol's decoding stopped before its end */
	struct node *nodes;	/* by pc */
	size_t nr, cap;
	uint32_t *ind;		/* where an indirect jump of it may go (a module's jump tables) */
	size_t nr_ind, cap_ind;
	uint32_t *pred_at;	/* predecessors of node i: pred[pred_at[i] .. pred_at[i + 1]) */
	uint32_t *pred;
	size_t cap_pred_at, cap_pred;
};

/* Per-instance marks, by node: the epoch they were set in. */
struct marks {
	uint32_t *inst, *fwd, *bwd, *noland;
	size_t cap;
	uint32_t epoch;
	uint32_t *queue;
	uint32_t *inst_list;	/* the instance's nodes, head included */
	size_t nr_inst;
	uint32_t *list;		/* the copy's nodes */
	size_t nr_list;
};

struct exits_ctx {
	struct gen *g;
	struct worker w;	/* probe_pc.c's decoder, for pc_refused() */
	struct caller c;
	struct marks m;
	uint32_t head_lo, head_hi;	/* the current instance's entry .. probe pc nodes */
	const uint32_t *by_name;	/* the text symbols (g->nr_text), by name */
	const struct gen_inst *cur;	/* the current instance */
	struct gen_exit *tmp;	/* the current instance's */
	size_t nr_tmp, cap_tmp;
	bool cold, fault;	/* its copy has code in another symbol, may fault */
	size_t nr_fault_lands;	/* its LAND exits reached from a fault */
};

static bool decode(struct exits_ctx *x, const uint8_t *code, size_t len,
		   ZydisDecodedInstruction *in)
{
	return x86_decode(x->w.decoder, code, len, in);
}

/* Does a function of this name (a clone: its name up to the first '.') never return? */
static bool noreturn_name(const struct gen *g, const char *name)
{
	const char *dot = name ? strchr(name, '.') : NULL;
	uint32_t v;

	if (!name)
		return false;
	return hmap_get(&g->noreturn, name, dot ? (size_t)(dot - name) : strlen(name), &v);
}

static bool thunk_name(const char *name)
{
	return name && (!strncmp(name, "__x86_indirect_thunk_", 21) ||
			!strncmp(name, "__x86_indirect_jump_thunk_", 26));
}

/*
 * Where the relative instruction @in at @at goes, as probe_pc.c's
 * rel_target(); when it leaves the module, *@dst is UINT64_MAX and
 * *@name its symbol's name.
 */
static bool target_of(const struct gen *g, const ZydisDecodedInstruction *in, uint64_t at,
		      uint64_t *dst, const char **name)
{
	const struct gen_reloc *r;
	long s;

	*name = NULL;
	if (!in->raw.imm[0].is_relative)
		return false;
	r = g->nr_relocs ? gen_reloc_at(g, at + in->raw.imm[0].offset) : NULL;
	if (r && r->sa == UINT64_MAX) {
		*dst = UINT64_MAX;
		*name = r->name;
		return true;
	}
	if (r)
		*dst = r->sa + (in->length - in->raw.imm[0].offset);
	else
		*dst = at + in->length + (uint64_t)in->raw.imm[0].value.s;
	s = gen_sym_at(g, *dst, false);
	if (s >= 0 && g->syms[s].addr == *dst)
		*name = g->syms[s].name;
	return true;
}

/*
 * The fixup where the instruction at @pc resumes when it faults: its
 * exception-table entry's, or 0 when it has none known or several.
 */
static uint64_t fixup_of(const struct gen *g, uint64_t pc)
{
	size_t lo = LOWER_BOUND(g->ex, g->nr_ex, insn, pc);

	if (lo >= g->nr_ex || g->ex[lo].insn != pc ||
	    (lo + 1 < g->nr_ex && g->ex[lo + 1].insn == pc))
		return 0;
	return g->ex[lo].fixup;
}

/* The instruction at @pc of symbol @sym (whose code ends at @end). */
static void classify(struct exits_ctx *x, const struct gen_sym *s, uint64_t pc,
		     struct insn *out)
{
	const struct gen *g = x->g;
	const struct gen_site *site = gen_site_at(g, pc);
	ZydisDecodedInstruction in;
	const char *name;
	uint64_t end;

	memset(out, 0, sizeof(*out));
	out->pc = pc;
	out->len = 1;
	if (site) {
		out->len = site->len;
		if (site->addr != pc) {
			out->type = I_UNDECODABLE;
		} else if (site->kind == SITE_JUMP_LABEL) {
			out->type = I_JUMP_LABEL;
			out->target = site->target;
		} else if (site->kind == SITE_STATIC_CALL) {
			out->type = site->resume ? I_CALL : I_SITE_OUT;
		} else {
			/* a BUG()'s or WARN()'s ud2: its table entry covers its first byte */
			out->type = site->resume ? I_WARN : I_STOP;
			out->len = site->resume;
			if (!out->len && s->code && pc >= s->addr && pc < s->addr + s->size &&
			    decode(x, s->code + (pc - s->addr), s->addr + s->size - pc, &in))
				out->len = in.length;
			if (!out->len)
				out->type = I_UNDECODABLE;
		}
		return;
	}
	end = gen_rewritten_end(g, pc);
	if (end) {
		/* as probe_pc.c: the patched code goes on after it */
		out->len = (uint32_t)(end - pc);
		out->type = I_PLAIN;
		return;
	}
	if (!s->code || pc < s->addr || pc >= s->addr + s->size ||
	    !decode(x, s->code + (pc - s->addr), s->addr + s->size - pc, &in)) {
		out->type = I_UNDECODABLE;
		return;
	}
	out->len = in.length;
	if (addr_set_next(&g->ex_insns, pc) == pc) {
		out->type = I_FAULT;
		out->target = fixup_of(g, pc);
		return;
	}
	switch (in.meta.category) {
	case ZYDIS_CATEGORY_COND_BR:
		out->type = target_of(g, &in, pc, &out->target, &name) &&
			    out->target != UINT64_MAX ? I_JCC : I_UNKNOWN;
		return;
	case ZYDIS_CATEGORY_UNCOND_BR:
		if (target_of(g, &in, pc, &out->target, &name)) {
			if (thunk_name(name))
				out->type = I_JMP_IND;
			else
				out->type = out->target == UINT64_MAX ? I_JMP_OUT : I_JMP;
		} else {
			/* jmp *%reg (ff /4, a register); through memory kprobes refuse */
			out->type = in.opcode == 0xff && in.raw.modrm.reg == 4 &&
				    in.raw.modrm.mod == 3 ? I_JMP_IND : I_UNKNOWN;
		}
		return;
	case ZYDIS_CATEGORY_CALL:
		if (target_of(g, &in, pc, &out->target, &name) && noreturn_name(g, name))
			out->type = I_STOP;
		else
			out->type = I_CALL;
		out->target = 0;
		return;
	case ZYDIS_CATEGORY_RET:
		out->type = in.mnemonic == ZYDIS_MNEMONIC_RET ? I_RET : I_UNKNOWN;
		return;
	case ZYDIS_CATEGORY_INTERRUPT:
		/* int3: a trap, or padding after a ret or jmp (-mharden-sls) */
		out->type = in.mnemonic == ZYDIS_MNEMONIC_INT3 ? I_STOP : I_UNKNOWN;
		return;
	case ZYDIS_CATEGORY_SYSCALL:
	case ZYDIS_CATEGORY_SYSRET:
		out->type = I_UNKNOWN;
		return;
	default:
		break;
	}
	switch (in.mnemonic) {
	case ZYDIS_MNEMONIC_UD0:
	case ZYDIS_MNEMONIC_UD1:
	case ZYDIS_MNEMONIC_UD2:
		out->type = I_STOP;
		break;
	case ZYDIS_MNEMONIC_HLT:
	case ZYDIS_MNEMONIC_IRET:
	case ZYDIS_MNEMONIC_IRETD:
	case ZYDIS_MNEMONIC_IRETQ:
	case ZYDIS_MNEMONIC_SYSEXIT:
	case ZYDIS_MNEMONIC_XBEGIN:
	case ZYDIS_MNEMONIC_XABORT:
		out->type = I_UNKNOWN;
		break;
	default:
		out->type = I_PLAIN;
		break;
	}
}

static void scan_symbol(struct exits_ctx *x, long sym, bool cold)
{
	const struct gen_sym *s = &x->g->syms[sym];
	struct caller *c = &x->c;
	uint64_t pc = s->addr;
	struct insn in;

	while (s->code && pc < s->addr + s->size) {
		struct node *n;

		classify(x, s, pc, &in);
		if (in.type == I_UNDECODABLE) {
			/*
			 * as decode_boundaries(): nothing known after it, so
			 * neither are the predecessors of anything before it
			 */
			x->c.partial = true;
			break;
		}
		n = VEC_PUSH(c->nodes, c->nr, c->cap);
		memset(n, 0, sizeof(*n));
		n->pc = pc;
		n->len = in.len;
		n->type = in.type;
		n->sym = (uint32_t)sym;
		n->start = pc == s->addr && !cold;
		n->succ_pc[0] = n->succ_pc[1] = UINT64_MAX;
		switch (in.type) {
		case I_JCC:
		case I_JUMP_LABEL:
			n->succ_pc[n->nr_succ++] = pc + in.len;
			if (in.target)
				n->succ_pc[n->nr_succ++] = in.target;
			break;
		case I_JMP:
			n->succ_pc[n->nr_succ++] = in.target;
			break;
		case I_FAULT:
			/* and its fixup when it faults: none known is EXIT_FAULT */
			n->succ_pc[n->nr_succ++] = pc + in.len;
			if (in.target)
				n->succ_pc[n->nr_succ++] = in.target;
			break;
		case I_PLAIN:
		case I_CALL:
		case I_WARN:
			n->succ_pc[n->nr_succ++] = pc + in.len;
			break;
		default:
			break;
		}
		pc += in.len;
	}
}

static int name_cmp(const void *a, const void *b)
{
	return strcmp(sort_gen->syms[*(const uint32_t *)a].name,
		      sort_gen->syms[*(const uint32_t *)b].name);
}

/* The text symbols, by name (exits_ctx.by_name): a caller's NAME.cold, a NAME.cold's NAME. */
static uint32_t *text_by_name(const struct gen *g)
{
	uint32_t *by_name = xcalloc(g->nr_text + 1, sizeof(*by_name));
	size_t i;

	for (i = 0; i < g->nr_text; i++)
		by_name[i] = g->text_idx[i];
	if (g->nr_text)
		qsort(by_name, g->nr_text, sizeof(*by_name), name_cmp);
	return by_name;
}

/* Scans every text symbol named @name (@len bytes), but @skip. */
static void scan_named(struct exits_ctx *x, const char *name, size_t len, long skip, bool cold)
{
	const struct gen *g = x->g;
	size_t lo = 0, hi = g->nr_text;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const char *m = g->syms[x->by_name[mid]].name;

		/* names with this prefix are together in strcmp() order */
		if (strncmp(m, name, len) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (; lo < g->nr_text; lo++) {
		const char *m = g->syms[x->by_name[lo]].name;

		if (strncmp(m, name, len))
			break;
		if (!m[len] && x->by_name[lo] != (uint32_t)skip)
			scan_symbol(x, x->by_name[lo], cold);
	}
}

static int node_cmp(const void *a, const void *b)
{
	const struct node *x = a, *y = b;

	return (x->pc > y->pc) - (x->pc < y->pc);
}

/* The node of the instruction at @pc, or NO_NODE. */
static uint32_t node_at(const struct caller *c, uint64_t pc)
{
	size_t lo = LOWER_BOUND(c->nodes, c->nr, pc, pc);

	return lo < c->nr && c->nodes[lo].pc == pc ? (uint32_t)lo : NO_NODE;
}

/*
 * Is @pc the fixup of an exception-table entry whose instruction is not
 * one of the caller's, faulting to @pc (an edge the graph lacks)?
 */
static bool fixup_foreign(const struct exits_ctx *x, uint64_t pc)
{
	const struct gen *g = x->g;
	size_t lo = LOWER_BOUND(g->ex_by_fixup, g->nr_ex, fixup, pc);

	for (; lo < g->nr_ex && g->ex_by_fixup[lo].fixup == pc; lo++) {
		uint32_t f = node_at(&x->c, g->ex_by_fixup[lo].insn);
		const struct node *n = f == NO_NODE ? NULL : &x->c.nodes[f];

		if (!n || n->type != I_FAULT || n->nr_succ != 2 || n->succ_pc[1] != pc)
			return true;
	}
	return false;
}

/* Calls @fn(@arg, node) for each successor node of node @i. */
#define FOR_EACH_SUCC(c, i, j, s)						\
	for (j = 0; (s = succ_of(c, i, j)) != NO_NODE || j < nr_succ_of(c, i); j++) \
		if (s != NO_NODE)

static size_t nr_succ_of(const struct caller *c, uint32_t i)
{
	return c->nodes[i].type == I_JMP_IND ? c->nr_ind : c->nodes[i].nr_succ;
}

static uint32_t succ_of(const struct caller *c, uint32_t i, size_t j)
{
	if (j >= nr_succ_of(c, i))
		return NO_NODE;
	return c->nodes[i].type == I_JMP_IND ? c->ind[j] : c->nodes[i].succ[j];
}

static void caller_load(struct exits_ctx *x, long sym)
{
	const struct gen *g = x->g;
	const struct gen_sym *s = &g->syms[sym];
	struct caller *c = &x->c;
	size_t i, j, len = strlen(s->name), nr_pred = 0;
	bool cold = len > 5 && !strcmp(s->name + len - 5, ".cold");

	if (c->sym == sym)
		return;
	c->sym = sym;
	c->nr = c->nr_ind = 0;
	c->partial = false;
	scan_symbol(x, sym, cold);
	if (cold) {
		/* NAME.cold jumps back into NAME: every text symbol of that name */
		scan_named(x, s->name, len - 5, sym, false);
	} else {
		char *name = xmalloc(len + 6);

		/* and NAME's .cold part, entered only from NAME */
		memcpy(name, s->name, len);
		memcpy(name + len, ".cold", 6);
		scan_named(x, name, len + 5, sym, true);
		free(name);
	}
	if (c->nr)
		qsort(c->nodes, c->nr, sizeof(*c->nodes), node_cmp);
	for (i = 0; i < c->nr; i++) {
		struct node *n = &c->nodes[i];

		for (j = 0; j < n->nr_succ; j++)
			n->succ[j] = node_at(c, n->succ_pc[j]);
		n->foreign = n->start || fixup_foreign(x, n->pc) ||
			     addr_set_next(&g->repl_targets, n->pc) == n->pc;
		/* a module's jump tables: where its indirect jumps may land */
		if (addr_set_next(&g->data_refs, n->pc) == n->pc && n->pc != s->addr)
			*VEC_PUSH(c->ind, c->nr_ind, c->cap_ind) = (uint32_t)i;
	}
	/* predecessors, counted then placed */
	if (c->cap_pred_at < c->nr + 1) {
		c->cap_pred_at = c->nr + 1;
		c->pred_at = xrealloc(c->pred_at, c->cap_pred_at * sizeof(*c->pred_at));
	}
	memset(c->pred_at, 0, (c->nr + 1) * sizeof(*c->pred_at));
	for (i = 0; i < c->nr; i++) {
		uint32_t t;

		FOR_EACH_SUCC(c, (uint32_t)i, j, t) {
			c->pred_at[t + 1]++;
			nr_pred++;
		}
	}
	for (i = 0; i < c->nr; i++)
		c->pred_at[i + 1] += c->pred_at[i];
	if (c->cap_pred < nr_pred + 1) {
		c->cap_pred = nr_pred + 1;
		c->pred = xrealloc(c->pred, c->cap_pred * sizeof(*c->pred));
	}
	{
		uint32_t *fill = xcalloc(c->nr + 1, sizeof(*fill));

		for (i = 0; i < c->nr; i++) {
			uint32_t t;

			FOR_EACH_SUCC(c, (uint32_t)i, j, t)
				c->pred[c->pred_at[t] + fill[t]++] = (uint32_t)i;
		}
		free(fill);
	}
	if (x->m.cap < c->nr) {
		x->m.cap = c->nr;
		x->m.inst = xrealloc(x->m.inst, c->nr * sizeof(uint32_t));
		x->m.fwd = xrealloc(x->m.fwd, c->nr * sizeof(uint32_t));
		x->m.bwd = xrealloc(x->m.bwd, c->nr * sizeof(uint32_t));
		x->m.noland = xrealloc(x->m.noland, c->nr * sizeof(uint32_t));
		x->m.queue = xrealloc(x->m.queue, c->nr * sizeof(uint32_t));
		x->m.inst_list = xrealloc(x->m.inst_list, c->nr * sizeof(uint32_t));
		x->m.list = xrealloc(x->m.list, c->nr * sizeof(uint32_t));
	}
	/* a new caller: no mark of an earlier one holds */
	memset(x->m.inst, 0, c->nr * sizeof(uint32_t));
	memset(x->m.fwd, 0, c->nr * sizeof(uint32_t));
	memset(x->m.bwd, 0, c->nr * sizeof(uint32_t));
	memset(x->m.noland, 0, c->nr * sizeof(uint32_t));
	x->m.epoch = 0;
}

/* Is node @i in the straight line from the entry pc to the probe pc? */
static bool in_head(const struct exits_ctx *x, uint32_t i)
{
	return i >= x->head_lo && i <= x->head_hi;
}

/*
 * Is node @i in the extended copy: the straight line from its entry pc to
 * its probe pc, and what is reached from there (not through the entry
 * again: that is the next call) and is the instance's code or leads back
 * to it?  The instance's code that only runs before its entry (hoisted
 * above it) is not: it is no part of a call that has begun.
 */
static bool in_copy(const struct exits_ctx *x, uint32_t i)
{
	return in_head(x, i) || x->m.fwd[i] == x->m.epoch;
}

/*
 * The copy, into m->list: first what reaches the instance's nodes
 * backwards (bwd), then what the entry's node @entry reaches through them
 * (fwd: a node neither the instance's nor in bwd is outside the copy, and
 * so is all that follows it).  Never through @entry: past it, control is
 * in another call.  A node reached from the entry through nodes that all
 * lead to the instance's code is in the copy, and only such a node.
 */
static void reach(struct exits_ctx *x, uint32_t entry)
{
	const struct caller *c = &x->c;
	struct marks *m = &x->m;
	size_t head = 0, tail = 0, i, j;
	uint32_t t;

	for (i = 0; i < m->nr_inst; i++) {
		t = m->inst_list[i];
		if (t != entry && m->bwd[t] != m->epoch) {
			m->bwd[t] = m->epoch;
			m->queue[tail++] = t;
		}
	}
	while (head < tail) {
		uint32_t n = m->queue[head++];

		for (j = c->pred_at[n]; j < c->pred_at[n + 1]; j++) {
			t = c->pred[j];
			if (t == entry || m->bwd[t] == m->epoch)
				continue;
			m->bwd[t] = m->epoch;
			m->queue[tail++] = t;
		}
	}
	m->fwd[entry] = m->epoch;
	m->list[0] = entry;
	m->nr_list = 1;
	for (head = 0; head < m->nr_list; head++) {
		uint32_t n = m->list[head];

		FOR_EACH_SUCC(c, n, j, t) {
			if (t == entry || m->fwd[t] == m->epoch ||
			    (m->inst[t] != m->epoch && m->bwd[t] != m->epoch))
				continue;
			m->fwd[t] = m->epoch;
			m->list[m->nr_list++] = t;
		}
	}
}

/* A way out: from node @src to @dst (UINT64_MAX: no pc to land on). */
struct edge {
	uint32_t src;
	uint64_t dst;
	bool taken;	/* a branch's target, not its fall-through */
	bool fault;	/* a faulting instruction's way to its fixup */
};

static int edge_cmp(const void *a, const void *b)
{
	const struct edge *x = a, *y = b;

	if (x->dst != y->dst)
		return (x->dst > y->dst) - (x->dst < y->dst);
	return (x->src > y->src) - (x->src < y->src);
}

static int exit_cmp(const void *a, const void *b)
{
	const struct gen_exit *x = a, *y = b;

	return (x->pc > y->pc) - (x->pc < y->pc);
}

/*
 * May an exit be at @pc (a node's)?  Inside the caller's symbol, or, in
 * another symbol (NAME.cold, or NAME for a NAME.cold caller), inside one
 * of the instance's own ranges: the blob's rule (blob-format.rst, "Exits").
 */
static bool exit_placeable(const struct exits_ctx *x, uint64_t pc)
{
	const struct gen_sym *s = &x->g->syms[x->c.sym];
	const struct gen_range *r = &x->g->ranges[x->cur->range];
	uint32_t n = node_at(&x->c, pc);
	const struct gen_sym *o;
	size_t k;

	if (pc >= s->addr && pc < s->addr + s->size)
		return true;
	/*
	 * A module's NAME.cold is in .text.unlikely, which the module loader
	 * places: its distance from NAME is not known here.  vmlinux is linked.
	 */
	o = n == NO_NODE ? NULL : &x->g->syms[x->c.nodes[n].sym];
	if (!o || o->addr - o->st_value != s->addr - s->st_value)
		return false;
	for (k = 0; k < x->cur->nr_ranges; k++)
		if (pc >= r[k].start && pc < r[k].end)
			return true;
	return false;
}

static enum exit_fail add_exit(struct exits_ctx *x, uint64_t pc, uint8_t kind)
{
	uint32_t n = node_at(&x->c, pc);
	uint64_t step;
	size_t i;

	if (n == NO_NODE || !exit_placeable(x, pc))
		return EXIT_OTHER_SYMBOL;
	if (pc_refused(&x->w, x->c.nodes[n].sym, pc, &step) != SKIP_NONE)
		return EXIT_REFUSED;
	for (i = 0; i < x->nr_tmp; i++)
		if (x->tmp[i].pc == pc)
			return x->tmp[i].kind == kind ? EXIT_OK : EXIT_UNKNOWN_INSN;
	*VEC_PUSH(x->tmp, x->nr_tmp, x->cap_tmp) = (struct gen_exit){ pc, kind };
	return EXIT_OK;
}

/* May control land at @pc, outside the copy, only from inside it? */
static bool land_ok(struct exits_ctx *x, uint64_t pc)
{
	const struct caller *c = &x->c;
	uint32_t n = pc == UINT64_MAX ? NO_NODE : node_at(c, pc);
	size_t j;

	if (n == NO_NODE || !exit_placeable(x, pc) || c->nodes[n].foreign ||
	    x->m.noland[n] == x->m.epoch)
		return false;
	for (j = c->pred_at[n]; j < c->pred_at[n + 1]; j++)
		if (!in_copy(x, c->pred[j]))
			return false;
	return true;
}

/* The leaving instruction of @e as the exit, when its landing pc cannot be. */
static enum exit_fail leave_exit(struct exits_ctx *x, const struct edge *e)
{
	const struct node *n = &x->c.nodes[e->src];

	switch (n->type) {
	case I_JMP:
	case I_JMP_OUT:
	case I_RET:
	case I_PLAIN:
		return add_exit(x, n->pc, BTF_INLINE_EXIT_LEAVE);
	case I_JCC:
		return e->taken ? add_exit(x, n->pc, BTF_INLINE_EXIT_LEAVE_JCC) :
				  EXIT_JCC_FALLS_OUT;
	case I_CALL:
		return EXIT_CALL_RETURNS_OUT;
	case I_WARN:
		return EXIT_REFUSED;
	case I_FAULT:
		/* it leaves on one way only: which, its handler cannot tell */
		return EXIT_FAULT;
	default:
		return EXIT_SITE;
	}
}

/* Why a node of the copy makes its exits unknown, or EXIT_OK. */
static enum exit_fail node_fail(const struct node *n)
{
	switch (n->type) {
	case I_UNKNOWN:
		return EXIT_UNKNOWN_INSN;
	case I_FAULT:
		return n->nr_succ == 2 ? EXIT_OK : EXIT_FAULT;
	case I_SITE_OUT:
		return EXIT_SITE;
	case I_JUMP_LABEL:
		return n->nr_succ == 2 ? EXIT_OK : EXIT_SITE;
	default:
		return EXIT_OK;
	}
}

/* The instance's nodes marked; the entry's node, or NO_NODE with *why. */
static uint32_t mark_instance(struct exits_ctx *x, const struct gen_inst *in,
			      enum exit_fail *why)
{
	const struct gen *g = x->g;
	const struct gen_range *r = &g->ranges[in->range];
	const struct caller *c = &x->c;
	uint32_t entry, i;
	size_t k;

	for (k = 0; k < in->nr_ranges; k++) {
		i = node_at(c, r[k].start);
		if (i == NO_NODE) {
			/* inside an instruction, or where nothing of the caller was decoded */
			for (i = 0; i < c->nr && c->nodes[i].pc < r[k].start; i++)
				;
			*why = i && c->nodes[i - 1].pc + c->nodes[i - 1].len > r[k].start ?
			       EXIT_NOT_BOUNDARY : EXIT_OTHER_SYMBOL;
			return NO_NODE;
		}
		/* every byte of the range decoded, one instruction after the other */
		for (; i < c->nr && c->nodes[i].pc < r[k].end; i++) {
			if (c->nodes[i].pc + c->nodes[i].len < r[k].end &&
			    (i + 1 == c->nr ||
			     c->nodes[i + 1].pc != c->nodes[i].pc + c->nodes[i].len)) {
				*why = EXIT_UNDECODABLE;
				return NO_NODE;
			}
			if (x->m.inst[i] != x->m.epoch)
				x->m.inst_list[x->m.nr_inst++] = i;
			x->m.inst[i] = x->m.epoch;
		}
	}
	/* the entry pc, and the straight line from it to the probe pc */
	entry = node_at(c, in->entry_pc);
	if (entry == NO_NODE) {
		*why = EXIT_NOT_BOUNDARY;
		return NO_NODE;
	}
	x->head_lo = x->head_hi = entry;
	for (i = entry; i < c->nr && c->nodes[i].pc <= in->pc; i++) {
		if (x->m.inst[i] != x->m.epoch)
			x->m.inst_list[x->m.nr_inst++] = i;
		x->m.inst[i] = x->m.epoch;
		x->head_hi = i;
	}
	return entry;
}

/* The exits of instance @in, into x->tmp; why none when they cannot all be placed. */
static enum exit_fail instance_exits(struct exits_ctx *x, const struct gen_inst *in)
{
	struct caller *c = &x->c;
	struct marks *m = &x->m;
	struct edge *edges = NULL;
	size_t nr_edges = 0, cap_edges = 0, i, j, k;
	enum exit_fail why = EXIT_OK;
	uint32_t entry, t;

	x->nr_tmp = 0;
	x->cold = x->fault = false;
	x->nr_fault_lands = 0;
	x->cur = in;
	caller_load(x, in->sym);
	if (++m->epoch == 0) {	/* wrapped: clear the marks */
		memset(m->inst, 0, c->nr * sizeof(uint32_t));
		memset(m->fwd, 0, c->nr * sizeof(uint32_t));
		memset(m->bwd, 0, c->nr * sizeof(uint32_t));
		memset(m->noland, 0, c->nr * sizeof(uint32_t));
		m->epoch = 1;
	}
	m->nr_inst = 0;
	entry = mark_instance(x, in, &why);
	if (entry == NO_NODE)
		return why;
	/* code not decoded may jump into the copy or to where it lands */
	if (c->partial)
		return EXIT_UNDECODABLE;
	/* code between the copy's parts: reached from it, and leading back into it */
	reach(x, entry);
	for (k = 0; k < m->nr_list && why == EXIT_OK; k++) {
		const struct node *n = &c->nodes[i = m->list[k]];

		why = node_fail(n);
		/* nothing enters the copy but through its entry */
		if (why == EXIT_OK && !in_head(x, (uint32_t)i) && n->foreign)
			why = EXIT_ENTERED;
		for (j = c->pred_at[i]; why == EXIT_OK && j < c->pred_at[i + 1]; j++) {
			bool head = in_head(x, (uint32_t)i);

			if (i == entry && in_copy(x, c->pred[j]))
				why = EXIT_ENTRY_LOOP;
			else if (!head && !in_copy(x, c->pred[j]))
				why = EXIT_ENTERED;
		}
	}
	/* the ways out */
	for (k = 0; k < m->nr_list && why == EXIT_OK; k++) {
		const struct node *n = &c->nodes[i = m->list[k]];

		switch (n->type) {
		case I_JMP_IND:
			/* it decides, from its register: its targets land nowhere */
			FOR_EACH_SUCC(c, (uint32_t)i, j, t)
				if (!in_copy(x, t))
					m->noland[t] = m->epoch;
			why = add_exit(x, n->pc, BTF_INLINE_EXIT_LEAVE_INDIRECT);
			continue;
		case I_RET:
		case I_JMP_OUT:
			*VEC_PUSH(edges, nr_edges, cap_edges) =
				(struct edge){ (uint32_t)i, UINT64_MAX, true, false };
			continue;
		default:
			break;
		}
		x->cold |= n->sym != (uint32_t)x->c.sym;
		x->fault |= n->type == I_FAULT;
		for (j = 0; j < n->nr_succ; j++)
			if (n->succ[j] == NO_NODE || !in_copy(x, n->succ[j]))
				*VEC_PUSH(edges, nr_edges, cap_edges) = (struct edge){
					(uint32_t)i, n->succ_pc[j],
					n->type != I_PLAIN && n->type != I_CALL && j == 1,
					n->type == I_FAULT && j == 1 };
		if (n->type == I_JMP && nr_edges && edges[nr_edges - 1].src == i)
			edges[nr_edges - 1].taken = true;
	}
	if (why == EXIT_OK && nr_edges)
		qsort(edges, nr_edges, sizeof(*edges), edge_cmp);
	for (i = 0; i < nr_edges && why == EXIT_OK; i = j) {
		for (j = i + 1; j < nr_edges && edges[j].dst == edges[i].dst; j++)
			;
		if (land_ok(x, edges[i].dst)) {
			why = add_exit(x, edges[i].dst, BTF_INLINE_EXIT_LAND);
			for (k = i; k < j; k++)
				if (edges[k].fault) {
					x->nr_fault_lands++;
					break;
				}
			continue;
		}
		for (; i < j && why == EXIT_OK; i++)
			why = leave_exit(x, &edges[i]);
	}
	free(edges);
	if (why != EXIT_OK)
		return why;
	if (!x->nr_tmp)
		return EXIT_NEVER_RETURNS;
	if (x->nr_tmp > BTF_INLINE_EXT_MAX_EXITS)
		return EXIT_TOO_MANY;
	qsort(x->tmp, x->nr_tmp, sizeof(*x->tmp), exit_cmp);
	return EXIT_OK;
}

static int by_caller(const void *a, const void *b)
{
	const struct gen_inst *x = &sort_gen->insts[*(const uint32_t *)a];
	const struct gen_inst *y = &sort_gen->insts[*(const uint32_t *)b];

	if (x->sym != y->sym)
		return x->sym < y->sym ? -1 : 1;
	return (*(const uint32_t *)a > *(const uint32_t *)b) -
	       (*(const uint32_t *)a < *(const uint32_t *)b);
}

/* One instance's outcome, as a worker found it; merged in order by gen_exits(). */
struct exits_found {
	uint32_t first;			/* its exits in its worker's */
	uint32_t nr_fault_lands;
	uint16_t nr;
	uint8_t why;			/* enum exit_fail */
	uint8_t worker;
	bool cold, fault;
};

/* What the workers share: the instances by caller, taken a chunk at a time. */
struct exits_job {
	struct gen *g;
	uint32_t *order;		/* instance indices, one caller's together */
	uint32_t *chunk;		/* chunk i: order[chunk[i]] .. order[chunk[i + 1] - 1] */
	size_t nr_chunks;
	atomic_size_t next;
	uint32_t *by_name;		/* text_by_name()'s, read by every worker */
	struct exits_found *found;	/* by position in order */
};

struct exits_worker {
	struct exits_job *job;
	struct exits_ctx x;
	struct gen_exit *exits;		/* the exits it found, in its instances' order */
	size_t nr_exits, cap_exits;
	uint8_t id;
};

/* A chunk's instances at least; it ends where a caller's do: each caller is decoded once. */
#define EXITS_CHUNK 256

static void find_exits(struct exits_worker *wk, size_t k)
{
	struct exits_ctx *x = &wk->x;
	const struct gen_inst *in = &x->g->insts[wk->job->order[k]];
	struct exits_found *f = &wk->job->found[k];
	enum exit_fail why;
	size_t i;

	if (in->flags & BTF_INLINE_EXT_MERGED)
		why = EXIT_MERGED;
	else if (!in->nr_ranges)
		why = EXIT_NO_RANGES;
	else
		why = instance_exits(x, in);
	*f = (struct exits_found){ .why = (uint8_t)why, .worker = wk->id };
	if (why != EXIT_OK)
		return;
	f->first = (uint32_t)wk->nr_exits;
	f->nr = (uint16_t)x->nr_tmp;
	f->cold = x->cold;
	f->fault = x->fault;
	f->nr_fault_lands = (uint32_t)x->nr_fault_lands;
	for (i = 0; i < x->nr_tmp; i++)
		*VEC_PUSH(wk->exits, wk->nr_exits, wk->cap_exits) = x->tmp[i];
}

static void *exits_worker_main(void *arg)
{
	struct exits_worker *wk = arg;
	struct exits_job *job = wk->job;
	size_t c, k;

	while ((c = atomic_fetch_add(&job->next, 1)) < job->nr_chunks)
		for (k = job->chunk[c]; k < job->chunk[c + 1]; k++)
			find_exits(wk, k);
	return NULL;
}

static void exits_worker_init(struct exits_worker *wk, struct exits_job *job, int id)
{
	*wk = (struct exits_worker){
		.job = job, .id = (uint8_t)id,
		.x = { .g = job->g, .w = { .g = job->g }, .c = { .sym = -1 },
		       .by_name = job->by_name },
	};
	probe_pc_init(&wk->x.w);
}

static void exits_worker_fini(struct exits_worker *wk)
{
	struct exits_ctx *x = &wk->x;

	probe_pc_fini(&x->w);
	free(x->c.nodes);
	free(x->c.ind);
	free(x->c.pred_at);
	free(x->c.pred);
	free(x->m.inst);
	free(x->m.fwd);
	free(x->m.bwd);
	free(x->m.noland);
	free(x->m.queue);
	free(x->m.inst_list);
	free(x->m.list);
	free(x->tmp);
	free(wk->exits);
}

/* The instances that can have exits, one caller's together, cut into chunks. */
static size_t exits_order(struct exits_job *job)
{
	const struct gen *g = job->g;
	uint32_t *order = xcalloc(g->nr_insts + 1, sizeof(*order));
	size_t i, n = 0, start = 0, cap = 0;

	for (i = 0; i < g->nr_insts; i++)
		if (!(g->insts[i].flags & (BTF_INLINE_EXT_OUT_OF_LINE | BTF_INLINE_EXT_NO_PROBE)))
			order[n++] = (uint32_t)i;
	qsort(order, n, sizeof(*order), by_caller);
	*VEC_PUSH(job->chunk, job->nr_chunks, cap) = 0;
	for (i = 1; i <= n; i++) {
		if (i < n && (i - start < EXITS_CHUNK ||
			      g->insts[order[i]].sym == g->insts[order[i - 1]].sym))
			continue;
		*VEC_PUSH(job->chunk, job->nr_chunks, cap) = (uint32_t)i;
		start = i;
	}
	job->nr_chunks--;	/* chunk[] holds each chunk's start and the end */
	job->order = order;
	return n;
}

/*
 * Every instance's exits, found by g->jobs workers (each with its own
 * decoder and caller graph) and written in one order whatever the number
 * of workers: the blob is the same bytes with -j 1.
 */
void gen_exits(struct gen *g)
{
	struct exits_job job = { .g = g };
	struct exits_worker *wks;
	pthread_t *tids;
	size_t n, k, i;
	int nr_wk, t;

	sort_gen = g;		/* name_cmp(), by_caller() */
	job.by_name = text_by_name(g);
	n = exits_order(&job);
	job.found = xcalloc(n + 1, sizeof(*job.found));
	/* -j is for a vmlinux (gen --help): a module's few instances take one */
	nr_wk = g->is_module || g->jobs < 1 ? 1 : g->jobs > UINT8_MAX ? UINT8_MAX : g->jobs;
	if ((size_t)nr_wk > job.nr_chunks)
		nr_wk = job.nr_chunks ? (int)job.nr_chunks : 1;
	wks = xcalloc((size_t)nr_wk, sizeof(*wks));
	for (t = 0; t < nr_wk; t++)
		exits_worker_init(&wks[t], &job, t);
	if (nr_wk == 1) {
		exits_worker_main(&wks[0]);
	} else {
		tids = xcalloc((size_t)nr_wk, sizeof(*tids));
		for (t = 0; t < nr_wk; t++)
			if (pthread_create(&tids[t], NULL, exits_worker_main, &wks[t]))
				die("cannot start a thread");
		for (t = 0; t < nr_wk; t++)
			pthread_join(tids[t], NULL);
		free(tids);
	}
	for (k = 0; k < n; k++) {
		struct gen_inst *in = &g->insts[job.order[k]];
		const struct exits_found *f = &job.found[k];
		const struct gen_sym *s = &g->syms[in->sym];
		const struct gen_exit *e;

		g->stats.exit_fails[f->why]++;
		if (f->why != EXIT_OK && g->verbose_exits)
			fprintf(stderr, "inkprobe gen: no exits: %s in %s+0x%llx: %s\n",
				callee_name(&g->callees[in->callee]), s->name,
				(unsigned long long)(in->pc - s->addr), exit_fail_names[f->why]);
		if (f->why != EXIT_OK)
			continue;
		e = wks[f->worker].exits + f->first;
		in->flags |= BTF_INLINE_EXT_EXITS;
		in->exit = (uint32_t)g->nr_exits;
		in->nr_exits = f->nr;
		for (i = 0; i < f->nr; i++) {
			*VEC_PUSH(g->exits, g->nr_exits, g->cap_exits) = e[i];
			g->stats.exits[e[i].kind]++;
			g->stats.cold_exits += e[i].pc < s->addr || e[i].pc >= s->addr + s->size;
		}
		g->stats.cold_insts += f->cold;
		g->stats.fault_insts += f->fault;
		g->stats.fault_exits += f->nr_fault_lands;
	}
	for (t = 0; t < nr_wk; t++)
		exits_worker_fini(&wks[t]);
	free(wks);
	free(job.by_name);
	free(job.found);
	free(job.chunk);
	free(job.order);
}
