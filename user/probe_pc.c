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

void branch_targets(struct worker *w, const uint8_t *code, size_t len, uint64_t addr,
		    struct addr_set *out)
{
	ZydisDecodedInstruction in;
	size_t pos = 0;

	while (pos < len) {
		if (!decode(w, code + pos, len - pos, &in)) {
			pos++;
			continue;
		}
		if (in.raw.imm[0].is_relative)
			addr_set_add(out, addr + pos + in.length + (uint64_t)in.raw.imm[0].value.s);
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
