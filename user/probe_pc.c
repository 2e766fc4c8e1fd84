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
#include <Zydis/Zydis.h>
#include <dwarf.h>
#include <stdlib.h>
#include <string.h>

#include "gen.h"

void probe_pc_init(struct worker *w)
{
	ZydisDecoder *d = xmalloc(sizeof(*d));

	if (ZYAN_FAILED(ZydisDecoderInit(d, ZYDIS_MACHINE_MODE_LONG_64, ZYDIS_STACK_WIDTH_64)) ||
	    ZYAN_FAILED(ZydisDecoderEnableMode(d, ZYDIS_DECODER_MODE_MINIMAL, ZYAN_TRUE)))
		die("libZydis: cannot make an x86-64 decoder");
	w->decoder = d;
}

void probe_pc_fini(struct worker *w)
{
	free(w->decoder);
	free(w->targets.v);
	w->decoder = NULL;
	memset(&w->targets, 0, sizeof(w->targets));
	w->targets_of = 0;
}

static bool decode(struct worker *w, const uint8_t *code, size_t len,
		   ZydisDecodedInstruction *in)
{
	ZydisDecoderContext ctx;

	return ZYAN_SUCCESS(ZydisDecoderDecodeInstruction(w->decoder, &ctx, code, len, in));
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
 * In a module, a displacement the loader fills in (the file holds 0) goes
 * where its relocation says, or out of the module's text.
 */
void branch_targets(struct worker *w, const uint8_t *code, size_t len, uint64_t addr,
		    struct addr_set *out)
{
	const struct gen *g = w->g;
	ZydisDecodedInstruction in;
	size_t pos = 0;

	while (pos < len) {
		const struct gen_reloc *r;

		if (!decode(w, code + pos, len - pos, &in)) {
			pos++;
			continue;
		}
		if (in.raw.imm[0].is_relative) {
			r = g->nr_relocs ? gen_reloc_at(g, addr + pos + in.raw.imm[0].offset) : NULL;
			if (!r)
				addr_set_add(out, addr + pos + in.length +
					     (uint64_t)in.raw.imm[0].value.s);
			else if (r->sa != UINT64_MAX)
				addr_set_add(out, r->sa + (in.length - in.raw.imm[0].offset));
		}
		pos += in.length;
	}
}

/* The direct branch targets of the function @subprogram (all its ranges). */
static void function_targets(struct worker *w, Dwarf_Die *subprogram)
{
	const struct gen *g = w->g;
	Dwarf_Addr base, start, end;
	Dwarf_Off off = dwarf_dieoffset(subprogram);
	ptrdiff_t it = 0;

	if (w->targets_of == off)
		return;
	w->targets.len = 0;
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
		branch_targets(w, sym->code + (start - sym->addr), stop - start, start,
			       &w->targets);
	}
	addr_set_sort(&w->targets);
}

bool branch_target(struct worker *w, Dwarf_Die *subprogram, uint64_t pc)
{
	function_targets(w, subprogram);
	return addr_set_next(&w->targets, pc) == pc || addr_set_next(&w->g->special, pc) == pc;
}

/* The first region of @g->rewritten that ends after @addr. */
static size_t rewritten_from(const struct gen *g, uint64_t addr)
{
	size_t lo = 0, hi = g->nr_rewritten;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (g->rewritten[mid].start < addr)
			lo = mid + 1;
		else
			hi = mid;
	}
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
