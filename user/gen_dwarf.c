// SPDX-License-Identifier: GPL-2.0
/*
 * The DWARF side of inkprobe gen: the target's symbols, and one walk over
 * every CU that turns each DW_TAG_inlined_subroutine with code (nested ones
 * included) and each concrete out-of-line function into an instance with
 * its parameters' locations at the probe pc.
 *
 * libdwfl opens the file, so a module's relocations are applied; every
 * address here is a DWARF address of that layout.
 */
#include <dwarf.h>
#include <fcntl.h>
#include <gelf.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "gen.h"
#include "../uapi/inkprobe.h"

static const Dwfl_Callbacks offline_callbacks = {
	.find_debuginfo = dwfl_standard_find_debuginfo,
	.section_address = dwfl_offline_section_address,
};

static int sym_cmp(const void *a, const void *b)
{
	const struct gen_sym *x = a, *y = b;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	if (x->size != y->size)
		return x->size > y->size ? -1 : 1;
	return strcmp(x->name, y->name);
}

static bool has_prefix(const char *s, const char *p)
{
	return !strncmp(s, p, strlen(p));
}

static void load_symbols(struct gen *g)
{
	struct hmap seen = { 0 };
	int n = dwfl_module_getsymtab(g->mod), i;
	size_t shstrndx;
	GElf_Addr ebias;
	Elf *elf = dwfl_module_getelf(g->mod, &ebias);

	if (n <= 0)
		die("%s: no symbol table", g->path);
	if (elf_getshdrstrndx(elf, &shstrndx))
		die("%s: no section names", g->path);
	for (i = 1; i < n; i++) {
		GElf_Sym sym;
		GElf_Addr addr;
		GElf_Word shndx;
		Elf *selfp;
		Dwarf_Addr sbias;
		const char *name = dwfl_module_getsym_info(g->mod, i, &sym, &addr, &shndx,
							   &selfp, &sbias);
		int type = GELF_ST_TYPE(sym.st_info);
		const char *sec = "";
		struct gen_sym *s;
		uint32_t dup = 0;
		GElf_Shdr shdr;
		Elf_Scn *scn;

		if (!name || !*name || !sym.st_size || shndx == SHN_UNDEF)
			continue;
		if (type != STT_FUNC && type != STT_OBJECT)
			continue;
		if (has_prefix(name, "__pfx_") || has_prefix(name, "__cfi_"))
			continue;
		scn = shndx < SHN_LORESERVE ? elf_getscn(selfp, shndx) : NULL;
		if (scn && gelf_getshdr(scn, &shdr))
			sec = elf_strptr(selfp, shstrndx, shdr.sh_name) ?: "";
		hmap_get(&seen, name, strlen(name), &dup);
		hmap_put(&seen, name, strlen(name), dup + 1);

		s = VEC_PUSH(g->syms, g->nr_syms, g->cap_syms);
		memset(s, 0, sizeof(*s));
		s->name = xstrdup(name);
		s->addr = addr - g->bias;
		s->st_value = sym.st_value;
		s->size = sym.st_size;
		s->dup_index = dup;
		s->data = type == STT_OBJECT;
		s->probeable = !s->data && !has_prefix(sec, ".init") &&
			       !has_prefix(sec, ".exit") && (shdr.sh_flags & SHF_EXECINSTR);
		if (!strcmp(name, INKPROBE_VMLINUX_ANCHOR) && !g->is_module)
			g->anchor_addr = sym.st_value;
	}
	hmap_free(&seen);
	qsort(g->syms, g->nr_syms, sizeof(*g->syms), sym_cmp);
	g->text_idx = xcalloc(g->nr_syms, sizeof(uint32_t));
	g->data_idx = xcalloc(g->nr_syms, sizeof(uint32_t));
	for (i = 0; i < (int)g->nr_syms; i++) {
		if (g->syms[i].data)
			g->data_idx[g->nr_data++] = (uint32_t)i;
		else
			g->text_idx[g->nr_text++] = (uint32_t)i;
	}
	if (!g->is_module && !g->anchor_addr)
		die("%s: no symbol %s (needed to relocate for KASLR)", g->path,
		    INKPROBE_VMLINUX_ANCHOR);
}

long gen_sym_at(const struct gen *g, uint64_t addr, bool data)
{
	const uint32_t *idx = data ? g->data_idx : g->text_idx;
	size_t lo = 0, hi = data ? g->nr_data : g->nr_text, k;
	long best = -1;

	/* lo: the first symbol starting above addr */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (g->syms[idx[mid]].addr <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	/* the containing symbol with the highest start; the first on a tie */
	for (k = lo; k > 0 && lo - k < 16; k--) {
		const struct gen_sym *s = &g->syms[idx[k - 1]];

		if (best >= 0 && s->addr != g->syms[best].addr)
			break;
		if (addr - s->addr < s->size)
			best = idx[k - 1];
	}
	return best;
}

static void read_module_name(struct gen *g, Elf *elf)
{
	const char *base = strrchr(g->path, '/');
	size_t shstrndx, i;
	Elf_Scn *scn = NULL;
	char *dot;

	/* .modinfo holds "name=<module>" */
	if (!elf_getshdrstrndx(elf, &shstrndx)) {
		while ((scn = elf_nextscn(elf, scn))) {
			GElf_Shdr sh;
			Elf_Data *d;
			const char *nm;

			if (!gelf_getshdr(scn, &sh))
				continue;
			nm = elf_strptr(elf, shstrndx, sh.sh_name);
			if (!nm || strcmp(nm, ".modinfo"))
				continue;
			d = elf_getdata(scn, NULL);
			for (i = 0; d && i < d->d_size; i += strlen((char *)d->d_buf + i) + 1) {
				const char *kv = (const char *)d->d_buf + i;

				if (memchr(kv, '\0', d->d_size - i) && has_prefix(kv, "name=") &&
				    strlen(kv + 5) < INKPROBE_TARGET_NAME_LEN) {
					strcpy(g->target_name, kv + 5);
					return;
				}
			}
		}
	}
	/* otherwise the file name, as kbuild names modules */
	base = base ? base + 1 : g->path;
	if (strlen(base) >= sizeof(g->target_name))
		die("%s: module name too long", g->path);
	strcpy(g->target_name, base);
	dot = strstr(g->target_name, ".ko");
	if (dot)
		*dot = '\0';
	for (dot = g->target_name; *dot; dot++)
		if (*dot == '-')
			*dot = '_';
}

void gen_open(struct gen *g)
{
	const unsigned char *bits;
	GElf_Addr vaddr, ebias;
	GElf_Ehdr ehdr;
	Elf *elf;
	int n;

	g->dwfl = dwfl_begin(&offline_callbacks);
	if (!g->dwfl)
		die("libdwfl: %s", dwfl_errmsg(-1));
	g->mod = dwfl_report_offline(g->dwfl, "target", g->path, -1);
	if (!g->mod)
		die("%s: %s", g->path, dwfl_errmsg(-1));
	dwfl_report_end(g->dwfl, NULL, NULL);
	elf = dwfl_module_getelf(g->mod, &ebias);
	if (!elf || !gelf_getehdr(elf, &ehdr))
		die("%s: not an ELF file", g->path);
	if (ehdr.e_machine != EM_X86_64)
		die("%s: not x86-64", g->path);
	g->is_module = ehdr.e_type == ET_REL;
	g->dw = dwfl_module_getdwarf(g->mod, &g->bias);
	if (!g->dw)
		die("%s: no DWARF (for vmlinux, use the -dbg package's file)", g->path);
	g->cfi = dwfl_module_dwarf_cfi(g->mod, &g->cfi_bias);

	n = dwfl_module_build_id(g->mod, &bits, &vaddr);
	if (n <= 0 || n > INKPROBE_BUILD_ID_MAX)
		die("%s: no GNU build ID", g->path);
	memcpy(g->build_id, bits, (size_t)n);
	g->build_id_len = (uint32_t)n;
	if (g->is_module)
		read_module_name(g, elf);
	else
		strcpy(g->target_name, "vmlinux");
	load_symbols(g);
	buf_add_u8(&g->loc, LOC_END_OF_EXPR);	/* offset 0: the empty expression */
}

/* The root abstract origin of an instance, following abstract_origin links. */
static bool root_origin(Dwarf_Die *die, Dwarf_Die *origin)
{
	Dwarf_Attribute a;
	int n;

	*origin = *die;
	for (n = 0; n < 8; n++) {
		if (!dwarf_attr(origin, DW_AT_abstract_origin, &a))
			return true;
		if (!dwarf_formref_die(&a, origin))
			return false;
	}
	return false;
}

static long callee_index(struct gen *g, Dwarf_Die *origin)
{
	Dwarf_Off off = dwarf_dieoffset(origin);
	struct gen_callee *c;
	Dwarf_Die child;
	const char *name;
	uint32_t idx;
	size_t cap = 0;

	if (hmap_get(&g->callee_map, &off, sizeof(off), &idx))
		return idx;
	name = dwarf_diename(origin);
	if (!name) {
		Dwarf_Attribute a;
		Dwarf_Die spec;

		/* a definition naming its declaration */
		if (dwarf_attr(origin, DW_AT_specification, &a) && dwarf_formref_die(&a, &spec))
			name = dwarf_diename(&spec);
	}
	if (!name)
		return -1;
	c = VEC_PUSH(g->callees, g->nr_callees, g->cap_callees);
	memset(c, 0, sizeof(*c));
	c->die = off;
	c->name = xstrdup(name);
	if (dwarf_child(origin, &child) == 0) {
		do {
			if (dwarf_tag(&child) == DW_TAG_formal_parameter)
				*VEC_PUSH(c->param_die, c->nr_params, cap) = dwarf_dieoffset(&child);
		} while (dwarf_siblingof(&child, &child) == 0);
	}
	idx = (uint32_t)(g->nr_callees - 1);
	hmap_put(&g->callee_map, &off, sizeof(off), idx);
	return idx;
}

/* The instance's concrete parameter DIE for the origin's parameter @pdie. */
static bool concrete_param(Dwarf_Die *inst, uint64_t pdie, bool self, Dwarf_Die *out)
{
	Dwarf_Die child, o;

	if (dwarf_child(inst, &child))
		return false;
	do {
		if (dwarf_tag(&child) != DW_TAG_formal_parameter)
			continue;
		if (self) {
			if (dwarf_dieoffset(&child) == pdie) {
				*out = child;
				return true;
			}
			continue;
		}
		if (root_origin(&child, &o) && dwarf_dieoffset(&o) == pdie) {
			*out = child;
			return true;
		}
	} while (dwarf_siblingof(&child, &child) == 0);
	return false;
}

/* The instance's code ranges (empty ranges dropped) and its entry pc. */
static bool instance_code(Dwarf_Die *die, struct gen_inst *in)
{
	Dwarf_Addr base, start, end, pc;
	ptrdiff_t off = 0;
	size_t cap = 0;

	while ((off = dwarf_ranges(die, off, &base, &start, &end)) > 0) {
		struct gen_range *r;

		if (end <= start)
			continue;
		r = VEC_PUSH(in->ranges, in->nr_ranges, cap);
		r->start = start;
		r->end = end;
	}
	if (!in->nr_ranges)
		return false;
	if (dwarf_entrypc(die, &pc))
		pc = in->ranges[0].start;
	in->entry_pc = pc;
	return true;
}

/* Locations of every parameter at @pc; returns how many are available. */
static uint32_t encode_params(struct gen *g, struct gen_inst *in, Dwarf_Die *die,
			      Dwarf_Die *subprogram, bool self, uint64_t pc)
{
	const struct gen_callee *c = &g->callees[in->callee];
	struct loc_ctx ctx = { .g = g, .subprogram = subprogram, .pc = pc };
	struct buf expr = { 0 };
	uint32_t i, avail = 0;

	for (i = 0; i < c->nr_params; i++) {
		Dwarf_Die param, abs_param, type, *pp = NULL, *tp = NULL;
		enum loc_empty_reason why = EMPTY_NO_LOCATION;
		Dwarf_Attribute a;
		enum loc_class cls;

		if (concrete_param(die, c->param_die[i], self, &param))
			pp = &param;
		if (dwarf_offdie(g->dw, c->param_die[i], &abs_param) &&
		    dwarf_attr_integrate(&abs_param, DW_AT_type, &a) && dwarf_formref_die(&a, &type))
			tp = &type;
		cls = loc_encode(&ctx, pp, tp, &expr, &why);
		in->loc[i] = loc_intern(g, &expr);
		in->cls[i] = (uint8_t)cls;
		in->why[i] = (uint8_t)why;
		if (cls != LOC_CLASS_EMPTY)
			avail++;
	}
	buf_free(&expr);
	return avail;
}

static void add_instance(struct gen *g, Dwarf_Die *die, Dwarf_Die *subprogram, bool inlined)
{
	struct gen_inst in = { 0 }, *slot;
	Dwarf_Die origin;
	long ci, s;
	bool self;

	if (!root_origin(die, &origin))
		return;
	self = !inlined && dwarf_dieoffset(&origin) == dwarf_dieoffset(die);
	ci = callee_index(g, &origin);
	if (ci < 0)
		return;
	if (!instance_code(die, &in)) {
		g->stats.skipped_no_code++;
		return;
	}
	s = gen_sym_at(g, in.entry_pc, false);
	if (s < 0) {
		g->stats.skipped_no_symbol++;
		free(in.ranges);
		return;
	}
	if (!g->syms[s].probeable) {
		g->stats.skipped_init++;
		free(in.ranges);
		return;
	}
	in.callee = (uint32_t)ci;
	in.sym = (uint32_t)s;
	in.nr_params = g->callees[ci].nr_params;
	in.loc = xcalloc(in.nr_params, sizeof(*in.loc));
	in.cls = xcalloc(in.nr_params, 1);
	in.why = xcalloc(in.nr_params, 1);
	in.pc = in.entry_pc;
	in.flags = inlined ? 0 : BTF_INLINE_EXT_OUT_OF_LINE;
	encode_params(g, &in, die, subprogram, self, in.pc);
	slot = VEC_PUSH(g->insts, g->nr_insts, g->cap_insts);
	*slot = in;
}

static bool has_code(Dwarf_Die *die)
{
	return dwarf_hasattr(die, DW_AT_low_pc) || dwarf_hasattr(die, DW_AT_ranges);
}

static void walk(struct gen *g, Dwarf_Die *parent, Dwarf_Die *subprogram, int depth)
{
	Dwarf_Die die;

	if (depth > 256 || dwarf_child(parent, &die))
		return;
	do {
		switch (dwarf_tag(&die)) {
		case DW_TAG_subprogram:
			if (!has_code(&die))
				break;
			add_instance(g, &die, &die, false);
			walk(g, &die, &die, depth + 1);
			break;
		case DW_TAG_inlined_subroutine:
			if (subprogram) {
				add_instance(g, &die, subprogram, true);
				if (depth > 1)
					g->stats.nested++;
			}
			walk(g, &die, subprogram, depth + 1);
			break;
		case DW_TAG_lexical_block:
			walk(g, &die, subprogram, depth + 1);
			break;
		default:
			break;
		}
	} while (dwarf_siblingof(&die, &die) == 0);
}

void gen_collect(struct gen *g)
{
	Dwarf_Off off = 0, next;
	size_t hsize;

	while (dwarf_nextcu(g->dw, off, &next, &hsize, NULL, NULL, NULL) == 0) {
		Dwarf_Die cu;

		if (dwarf_offdie(g->dw, off + hsize, &cu))
			walk(g, &cu, NULL, 0);
		off = next;
	}
}

void gen_close(struct gen *g)
{
	size_t i;

	for (i = 0; i < g->nr_insts; i++) {
		free(g->insts[i].ranges);
		free(g->insts[i].loc);
		free(g->insts[i].cls);
		free(g->insts[i].why);
	}
	free(g->insts);
	for (i = 0; i < g->nr_callees; i++) {
		free(g->callees[i].name);
		free(g->callees[i].param_die);
	}
	free(g->callees);
	for (i = 0; i < g->nr_syms; i++)
		free(g->syms[i].name);
	free(g->syms);
	free(g->text_idx);
	free(g->data_idx);
	hmap_free(&g->callee_map);
	hmap_free(&g->loc_map);
	buf_free(&g->loc);
	if (g->dwfl)
		dwfl_end(g->dwfl);
}
