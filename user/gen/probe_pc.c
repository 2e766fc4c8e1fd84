// SPDX-License-Identifier: GPL-2.0
/*
 * Where a probe may move from an instance's entry pc (libZydis decodes).
 *
 * A later pc is as good as the entry pc only if every execution of the
 * instance passes it, once.  That holds along straight-line code from the
 * entry pc: no instruction before the chosen pc may branch, call, return,
 * trap or be patched at run time, and no jump from anywhere may land
 * between the entry pc and the chosen pc.  So the walk stops
 *   - at a branch, call, return, interrupt, system instruction or NOP (a
 *     NOP may be a jump label or an alternative's padding, patched to a
 *     jump at run time);
 *   - before a direct branch target of the function (any of its ranges,
 *     .cold parts included) or of the kernel's replacement code;
 *   - before any address of a jump label, alternative, or exception-table
 *     entry (an instruction that may fault and resume elsewhere), or its
 *     target (gen_symbols.c collects them);
 *   - at the end of the caller symbol, or at the caller's limit.
 * The probe pc is always an instruction boundary: the walk decodes from the
 * entry pc, which is one.
 *
 * And kprobes must accept it.  register_kprobe() refuses (kernel/kprobes.c,
 * check_kprobe_address_safe(); arch/x86/kernel/kprobes/core.c,
 * arch_prepare_kprobe()) a pc inside a jump label's 2 or 5 bytes, inside a
 * static call's 5, on a BUG/WARN ud2, in blacklisted text (gen_symbols.c
 * skips those symbols), off an instruction boundary as decoded from the
 * symbol's start (can_probe()), and on an instruction it cannot copy or
 * emulate (__copy_instruction(), prepare_emulation()).  pc_refused() says
 * which; gen_walk.c moves the probe past a site where execution surely
 * goes on after it, or drops the instance.
 */
#include <dwarf.h>
#include <gelf.h>
#include <stdlib.h>
#include <string.h>

#include "gen.h"
#include "x86_decoder.h"
#include "lower_bound.h"

void probe_pc_init(struct worker *w)
{
	ZydisDecoder *d = xmalloc(sizeof(*d));

	x86_decoder_init(d, true);
	w->decoder = d;
}

void probe_pc_fini(struct worker *w)
{
	free(w->decoder);
	free(w->targets.v);
	free(w->branches);
	free(w->franges);
	w->decoder = NULL;
	memset(&w->targets, 0, sizeof(w->targets));
	w->branches = NULL;
	w->franges = NULL;
	w->nr_branches = w->cap_branches = w->nr_franges = w->cap_franges = 0;
	w->targets_of = 0;
}

static bool decode(struct worker *w, const uint8_t *code, size_t len,
		   ZydisDecodedInstruction *in)
{
	return x86_decode(w->decoder, code, len, in);
}

/* Does execution possibly not continue with the next instruction? */
static bool ends_straight_line(const ZydisDecodedInstruction *in)
{
	switch (in->meta.category) {
	case ZYDIS_CATEGORY_COND_BR:
	case ZYDIS_CATEGORY_UNCOND_BR:
	case ZYDIS_CATEGORY_CALL:
	case ZYDIS_CATEGORY_RET:
	case ZYDIS_CATEGORY_INTERRUPT:
	case ZYDIS_CATEGORY_SYSCALL:
	case ZYDIS_CATEGORY_SYSRET:
	case ZYDIS_CATEGORY_SYSTEM:
	case ZYDIS_CATEGORY_NOP:
	case ZYDIS_CATEGORY_WIDENOP:
		return true;
	default:
		break;
	}
	switch (in->mnemonic) {
	case ZYDIS_MNEMONIC_UD0:
	case ZYDIS_MNEMONIC_UD1:
	case ZYDIS_MNEMONIC_UD2:
	case ZYDIS_MNEMONIC_HLT:
	case ZYDIS_MNEMONIC_XBEGIN:
	case ZYDIS_MNEMONIC_XABORT:
		return true;
	default:
		return false;
	}
}

/*
 * Where the relative instruction @in at @at goes: false if it is not
 * relative or goes out of the module's text.  In a module, a displacement
 * the loader fills in (the file holds 0) goes where its relocation says.
 */
static bool rel_target(const struct gen *g, const ZydisDecodedInstruction *in, uint64_t at,
		       uint64_t *dst)
{
	const struct gen_reloc *r;

	if (!in->raw.imm[0].is_relative)
		return false;
	r = g->nr_relocs ? gen_reloc_at(g, at + in->raw.imm[0].offset) : NULL;
	if (!r) {
		*dst = at + in->length + (uint64_t)in->raw.imm[0].value.s;
		return true;
	}
	if (r->sa == UINT64_MAX)
		return false;
	*dst = r->sa + (in->length - in->raw.imm[0].offset);
	return true;
}

/* Adds the targets of @code's direct branches to @out, with @pairs their pairs. */
static void scan_branches(struct worker *w, const uint8_t *code, size_t len, uint64_t addr,
			  struct addr_set *out, bool pairs)
{
	ZydisDecodedInstruction in;
	size_t pos = 0;
	uint64_t dst;

	while (pos < len) {
		if (!decode(w, code + pos, len - pos, &in)) {
			pos++;
			continue;
		}
		if (rel_target(w->g, &in, addr + pos, &dst)) {
			addr_set_add(out, dst);
			if (pairs)
				*VEC_PUSH(w->branches, w->nr_branches, w->cap_branches) =
					(struct gen_branch){ addr + pos, dst };
		}
		pos += in.length;
	}
}

/* Jumps in replacement code land in the original text: those are targets too. */
void replacement_targets(struct worker *w, Elf *elf)
{
	static const char *const names[] = { ".altinstr_replacement", ".altinstr_aux" };
	struct gen *g = w->g;
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;
	size_t i;

	while ((scn = elf_nextscn(elf, scn))) {
		const char *nm = gen_scn_name(elf, scn, &sh);
		Elf_Data *d;

		for (i = 0; i < 2 && strcmp(nm, names[i]); i++)
			;
		if (i == 2 || sh.sh_type != SHT_PROGBITS)
			continue;
		d = elf_getdata(scn, NULL);
		if (d && d->d_buf)
			scan_branches(w, d->d_buf, d->d_size, sh.sh_addr, &g->repl_targets, false);
	}
	for (i = 0; i < g->repl_targets.len; i++)
		addr_set_add(&g->special, g->repl_targets.v[i]);
}

static int branch_cmp(const void *a, const void *b)
{
	const struct gen_branch *x = a, *y = b;

	if (x->dst != y->dst)
		return (x->dst > y->dst) - (x->dst < y->dst);
	return (x->src > y->src) - (x->src < y->src);
}

/*
 * The direct branch targets of the function @subprogram (all its ranges),
 * and its branches and ranges for jump_label_rejoin().
 */
static void function_targets(struct worker *w, Dwarf_Die *subprogram)
{
	const struct gen *g = w->g;
	Dwarf_Addr base, start, end;
	Dwarf_Off off = dwarf_dieoffset(subprogram);
	ptrdiff_t it = 0;

	if (w->targets_of == off)
		return;
	w->targets.len = 0;
	w->nr_branches = 0;
	w->nr_franges = 0;
	w->targets_of = off;
	while ((it = dwarf_ranges(subprogram, it, &base, &start, &end)) > 0) {
		long s = gen_sym_at(g, start, false);
		const struct gen_sym *sym;
		uint64_t stop;

		if (s < 0 || end <= start)
			continue;
		sym = &g->syms[s];
		if (!sym->code)
			continue;
		stop = end < sym->addr + sym->size ? end : sym->addr + sym->size;
		*VEC_PUSH(w->franges, w->nr_franges, w->cap_franges) =
			(struct gen_range){ start, stop };
		scan_branches(w, sym->code + (start - sym->addr), stop - start, start,
			      &w->targets, true);
	}
	addr_set_sort(&w->targets);
	if (w->nr_branches)
		qsort(w->branches, w->nr_branches, sizeof(*w->branches), branch_cmp);
}

bool branch_target(struct worker *w, Dwarf_Die *subprogram, uint64_t pc)
{
	function_targets(w, subprogram);
	return addr_set_next(&w->targets, pc) == pc || addr_set_next(&w->g->special, pc) == pc;
}

/* The first region of @g->rewritten that ends after @addr. */
static size_t rewritten_from(const struct gen *g, uint64_t addr)
{
	size_t lo = LOWER_BOUND(g->rewritten, g->nr_rewritten, start, addr);

	while (lo > 0 && g->rewritten[lo - 1].end > addr)
		lo--;
	return lo;
}

/*
 * As can_probe() decodes what runs: from the symbol's start, over code
 * rewritten at boot in one step (its first byte and its end are
 * boundaries, what is between depends on the CPU), and past an
 * undecodable instruction nothing.
 */
void decode_boundaries(struct worker *w)
{
	struct gen *g = w->g;
	uint64_t bits = 0;
	size_t i;

	for (i = 0; i < g->nr_text; i++) {
		struct gen_sym *s = &g->syms[g->text_idx[i]];

		s->bound_bit = UINT64_MAX;
		if (!s->code || s->skip)
			continue;
		s->bound_bit = bits;
		bits += s->size;
	}
	g->bounds = xcalloc(bits / 8 + 1, 1);
	for (i = 0; i < g->nr_text; i++) {
		const struct gen_sym *s = &g->syms[g->text_idx[i]];
		size_t r = rewritten_from(g, s->addr);
		ZydisDecodedInstruction in;
		uint64_t pos = 0;

		if (s->bound_bit == UINT64_MAX)
			continue;
		while (pos < s->size) {
			uint64_t bit = s->bound_bit + pos, at = s->addr + pos;

			g->bounds[bit / 8] |= (uint8_t)(1U << (bit % 8));
			while (r < g->nr_rewritten && g->rewritten[r].end <= at)
				r++;
			if (r < g->nr_rewritten && g->rewritten[r].start == at &&
			    g->rewritten[r].end > at) {
				pos = g->rewritten[r].end - s->addr;
				continue;
			}
			if (!decode(w, s->code + pos, s->size - pos, &in))
				break;
			pos += in.length;
		}
	}
}

/*
 * What __copy_instruction() and prepare_emulation() refuse: an undecodable
 * instruction, a forced-emulation prefix (ud2 then "xen" or "kvm"), int3,
 * iret, far calls and jumps, indirect calls and jumps through memory or
 * with another address size, VM extensions (0f 01 /0, register form), and
 * what masks exceptions (mov to %ss, pop %ss).  Code rewritten at boot is
 * not the file's: its first instruction is left to the module's check.
 * (VEX and EVEX instructions are taken to be copyable.)
 */
static bool uncopyable(struct worker *w, const struct gen_sym *s, uint64_t pc)
{
	const uint8_t *p = s->code + (pc - s->addr);
	size_t len = s->addr + s->size - pc;
	ZydisDecodedInstruction in;

	if (addr_set_next(&w->g->patched, pc) == pc)
		return false;
	if (len >= 5 && p[0] == 0x0f && p[1] == 0x0b &&
	    (!memcmp(p + 2, "xen", 3) || !memcmp(p + 2, "kvm", 3)))
		return true;
	if (!decode(w, p, len, &in))
		return true;
	if (in.encoding != ZYDIS_INSTRUCTION_ENCODING_LEGACY)
		return false;
	if (in.opcode_map == ZYDIS_OPCODE_MAP_0F)
		return in.opcode == 0x01 && in.raw.modrm.reg == 0 && in.raw.modrm.mod == 3;
	if (in.opcode_map != ZYDIS_OPCODE_MAP_DEFAULT)
		return false;
	switch (in.opcode) {
	case 0xcc:		/* int3 */
	case 0xcf:		/* iret */
	case 0x9a:		/* far call absolute */
	case 0xea:		/* far jmp absolute */
	case 0x17:		/* pop %ss */
		return true;
	case 0x8e:		/* mov to a segment register: %ss */
		return in.raw.modrm.reg == 2;
	case 0xff:
		switch (in.raw.modrm.reg) {
		case 3:		/* far call */
		case 5:		/* far jmp */
			return true;
		case 2:		/* call, indirect */
		case 4:		/* jmp, indirect */
			return in.raw.modrm.mod != 3 || in.address_width != 64;
		default:
			return false;
		}
	default:
		return false;
	}
}

enum skip_reason pc_refused(struct worker *w, long sym, uint64_t pc, uint64_t *step)
{
	static const uint8_t site_why[] = {
		[SITE_JUMP_LABEL] = SKIP_JUMP_LABEL,
		[SITE_STATIC_CALL] = SKIP_STATIC_CALL,
		[SITE_BUG] = SKIP_BUG,
	};
	const struct gen *g = w->g;
	const struct gen_site *site = gen_site_at(g, pc);
	const struct gen_sym *s = &g->syms[sym];

	*step = 0;
	if (site) {
		if (pc == site->addr && site->resume)
			*step = pc + site->resume;
		return site_why[site->kind];
	}
	if (!gen_boundary(g, sym, pc))
		return SKIP_NOT_BOUNDARY;
	if (s->code && pc - s->addr < s->size && uncopyable(w, s, pc))
		return SKIP_UNCOPYABLE;
	return SKIP_NONE;
}

/* Is anything in @set inside (lo, hi]? */
static bool hits(const struct addr_set *set, uint64_t lo, uint64_t hi)
{
	return addr_set_next(set, lo + 1) <= hi;
}

size_t straight_line(struct worker *w, Dwarf_Die *subprogram, long sym, uint64_t entry,
		     uint64_t limit, uint64_t *pcs, size_t max)
{
	const struct gen *g = w->g;
	const struct gen_sym *s = &g->syms[sym];
	uint64_t pc = entry, sym_end = s->addr + s->size;
	ZydisDecodedInstruction in;
	size_t n = 0;

	pcs[n++] = entry;
	if (g->no_moves || !s->code || !subprogram || addr_set_next(&g->special, entry) == entry)
		return n;
	function_targets(w, subprogram);
	while (n < max) {
		uint64_t next;

		if (!decode(w, s->code + (pc - s->addr), sym_end - pc, &in) ||
		    ends_straight_line(&in))
			break;
		next = pc + in.length;
		if (next > limit || next >= sym_end || hits(&g->special, pc, next) ||
		    hits(&w->targets, pc, next))
			break;
		pcs[n++] = next;
		pc = next;
	}
	return n;
}

/*
 * Where a jump label at the entry pc may let the probe go: its two ways
 * must meet again at the instruction after it, N, before anything else.
 * A path walk from the jump's target (at most REJOIN_INSNS instructions,
 * REJOIN_PATHS paths open at once): a conditional branch or another jump
 * label opens a second path, a call (a static call, a WARN) goes on after
 * it, a BUG or other ud2 ends its path (it never comes back); a return,
 * an indirect jump, leaving the function's code, jumping back into the
 * site, an instruction that may fault to a fixup, or too long a walk
 * fails.  Every path must end at N.  Then nothing else may enter the
 * walked code or N: no direct branch of the function from outside it, no
 * other jump label, exception fixup or replacement-code jump, no
 * instruction falling through into it from outside (inside one symbol:
 * objtool rejects falling off a function's end), and N must be no special
 * address.  So every execution through the entry pc passes N once.
 */
#define REJOIN_INSNS	256
#define REJOIN_PATHS	16

static bool in_function(const struct worker *w, uint64_t pc)
{
	size_t i;

	for (i = 0; i < w->nr_franges; i++)
		if (pc >= w->franges[i].start && pc < w->franges[i].end)
			return true;
	return false;
}

static bool among(const uint64_t *v, size_t n, uint64_t a)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (v[i] == a)
			return true;
	return false;
}

/* The first of the @n branches (sorted by dst) going to @dst, or @n. */
static size_t first_to(const struct gen_branch *b, size_t n, uint64_t dst)
{
	return LOWER_BOUND(b, n, dst, dst);
}

/* Does anything but the walked code (@seen) and @site branch to @pc? */
static bool entered_from_outside(const struct worker *w, const uint64_t *seen, size_t nr_seen,
				 uint64_t site, uint64_t pc)
{
	const struct gen *g = w->g;
	size_t i;

	for (i = first_to(w->branches, w->nr_branches, pc);
	     i < w->nr_branches && w->branches[i].dst == pc; i++)
		if (w->branches[i].src != site && !among(seen, nr_seen, w->branches[i].src))
			return true;
	for (i = first_to(g->jl_branches, g->nr_jl_branches, pc);
	     i < g->nr_jl_branches && g->jl_branches[i].dst == pc; i++)
		if (g->jl_branches[i].src != site && !among(seen, nr_seen, g->jl_branches[i].src))
			return true;
	return addr_set_next(&g->ex_fixups, pc) == pc || addr_set_next(&g->repl_targets, pc) == pc;
}

/* May the instruction before @pc, outside the walked code, fall through into it? */
static bool falls_into(struct worker *w, const uint64_t *seen, size_t nr_seen, uint64_t pc)
{
	const struct gen *g = w->g;
	long s = gen_sym_at(g, pc, false);
	const struct gen_sym *sym = s >= 0 ? &g->syms[s] : NULL;
	const struct gen_site *at;
	ZydisDecodedInstruction in;
	uint64_t b;

	if (!sym || pc == sym->addr)
		return false;
	for (b = pc - 1; b > sym->addr && pc - b < 16 && !gen_boundary(g, s, b); b--)
		;
	if (!gen_boundary(g, s, b))
		return true;	/* inside code rewritten at boot: anything */
	if (among(seen, nr_seen, b))
		return false;
	if (addr_set_next(&g->patched, b) == b)
		return true;	/* rewritten at boot: anything */
	at = gen_site_at(g, b);
	if (at && at->addr == b)
		return at->kind != SITE_BUG || at->resume;
	if (!decode(w, sym->code + (b - sym->addr), sym->size - (b - sym->addr), &in) ||
	    b + in.length != pc)
		return true;
	switch (in.meta.category) {
	case ZYDIS_CATEGORY_UNCOND_BR:
	case ZYDIS_CATEGORY_RET:
	case ZYDIS_CATEGORY_INTERRUPT:
		return false;
	default:
		return in.mnemonic != ZYDIS_MNEMONIC_UD2;
	}
}

uint64_t jump_label_rejoin(struct worker *w, Dwarf_Die *subprogram, const struct gen_site *site)
{
	const struct gen *g = w->g;
	uint64_t next = site->addr + site->len, open[REJOIN_PATHS], seen[REJOIN_INSNS] = { 0 };
	size_t nr_open = 0, nr_seen = 0, i;
	ZydisDecodedInstruction in;

	if (site->kind != SITE_JUMP_LABEL || !site->target || !subprogram ||
	    addr_set_next(&g->special, next) == next)
		return 0;
	function_targets(w, subprogram);
	open[nr_open++] = site->target;
	while (nr_open) {
		uint64_t pc = open[--nr_open], dst, end;

		for (;;) {
			const struct gen_site *at;
			const struct gen_sym *sym;
			long s;

			if (pc == next || among(seen, nr_seen, pc))
				break;
			if ((pc >= site->addr && pc < next) || nr_seen == REJOIN_INSNS ||
			    !in_function(w, pc))
				return 0;
			s = gen_sym_at(g, pc, false);
			sym = s >= 0 ? &g->syms[s] : NULL;
			if (!sym || !sym->code || !gen_boundary(g, s, pc) ||
			    addr_set_next(&g->ex_insns, pc) == pc)
				return 0;
			seen[nr_seen++] = pc;
			at = gen_site_at(g, pc);
			if (at && at->addr != pc)
				return 0;
			if (at && at->kind == SITE_JUMP_LABEL) {
				if (nr_open == REJOIN_PATHS || !at->target)
					return 0;
				open[nr_open++] = at->target;
				pc += at->len;
				continue;
			}
			if (at && !at->resume) {
				if (at->kind == SITE_BUG)
					break;		/* BUG(): never back */
				return 0;		/* a static tail call */
			}
			if (at) {
				pc += at->resume;
				continue;
			}
			end = gen_rewritten_end(g, pc);
			if (end) {
				pc = end;	/* as a call: the patched code goes on after it */
				continue;
			}
			if (!decode(w, sym->code + (pc - sym->addr), sym->size - (pc - sym->addr), &in))
				return 0;
			switch (in.meta.category) {
			case ZYDIS_CATEGORY_COND_BR:
				if (nr_open == REJOIN_PATHS || !rel_target(g, &in, pc, &dst))
					return 0;
				open[nr_open++] = dst;
				pc += in.length;
				continue;
			case ZYDIS_CATEGORY_UNCOND_BR:
				if (!rel_target(g, &in, pc, &dst))
					return 0;
				pc = dst;
				continue;
			case ZYDIS_CATEGORY_RET:
			case ZYDIS_CATEGORY_INTERRUPT:
			case ZYDIS_CATEGORY_SYSCALL:
			case ZYDIS_CATEGORY_SYSRET:
				return 0;
			default:
				break;
			}
			if (in.mnemonic == ZYDIS_MNEMONIC_UD0 || in.mnemonic == ZYDIS_MNEMONIC_UD1 ||
			    in.mnemonic == ZYDIS_MNEMONIC_UD2)
				break;
			if (in.mnemonic == ZYDIS_MNEMONIC_HLT || in.mnemonic == ZYDIS_MNEMONIC_XBEGIN ||
			    in.mnemonic == ZYDIS_MNEMONIC_XABORT)
				return 0;
			pc += in.length;
		}
	}
	if (entered_from_outside(w, seen, nr_seen, site->addr, next))
		return 0;
	for (i = 0; i < nr_seen; i++)
		if (entered_from_outside(w, seen, nr_seen, site->addr, seen[i]) ||
		    falls_into(w, seen, nr_seen, seen[i]))
			return 0;
	return next;
}
