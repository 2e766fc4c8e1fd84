// SPDX-License-Identifier: GPL-2.0
/*
 * The ELF side of inkprobe gen (libdwfl, libelf): the target's symbols, the
 * text that kprobes refuse (init/exit, .noinstr.text, .entry.text,
 * .kprobes.text, NOKPROBE_SYMBOL()), and the text the kernel patches or
 * enters from elsewhere (jump labels, alternatives, exception fixups), which
 * probe_pc.c must not assume to be straight-line code.
 *
 * libdwfl opens the file, so a module's relocations are applied; every
 * address here is a DWARF address of that layout.
 */
#include <dwarf.h>
#include <gelf.h>
#include <stdlib.h>
#include <string.h>

#include "debug_file.h"
#include "gen.h"
#include "../uapi/inkprobe.h"

/* DWARF from the binary, or from the debug file debug_file.c found */
static const Dwfl_Callbacks offline_callbacks = {
	.find_debuginfo = debug_file_dwfl_find,
	.section_address = dwfl_offline_section_address,
};

/* vmlinux: linker symbols bounding what we need (size 0, so not in syms) */
enum marker {
	M_NOINSTR_START, M_NOINSTR_END, M_ENTRY_START, M_ENTRY_END,
	M_KPROBES_START, M_KPROBES_END, M_BLACKLIST_START, M_BLACKLIST_END,
	M_JUMP_START, M_JUMP_END, M_EX_START, M_EX_END, M_ALT_START, M_ALT_END,
	NR_MARKERS,
};

static const char *const marker_names[NR_MARKERS] = {
	"__noinstr_text_start", "__noinstr_text_end",
	"__entry_text_start", "__entry_text_end",
	"__kprobes_text_start", "__kprobes_text_end",
	"__start_kprobe_blacklist", "__stop_kprobe_blacklist",
	"__start___jump_table", "__stop___jump_table",
	"__start___ex_table", "__stop___ex_table",
	"__alt_instructions", "__alt_instructions_end",
};

struct markers {
	uint64_t addr[NR_MARKERS];
	bool have[NR_MARKERS];
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

static const char *scn_name(Elf *elf, Elf_Scn *scn, GElf_Shdr *sh)
{
	size_t shstrndx;

	if (!scn || !gelf_getshdr(scn, sh) || elf_getshdrstrndx(elf, &shstrndx))
		return "";
	return elf_strptr(elf, shstrndx, sh->sh_name) ?: "";
}

/* Why kprobes refuse text in section @sec (modules name the sections). */
static uint8_t section_skip(const char *sec)
{
	if (has_prefix(sec, ".init") || has_prefix(sec, ".exit"))
		return SKIP_INIT;
	if (!strcmp(sec, ".noinstr.text"))
		return SKIP_NOINSTR;
	if (!strcmp(sec, ".entry.text"))
		return SKIP_ENTRY;
	if (!strcmp(sec, ".kprobes.text"))
		return SKIP_KPROBES;
	return SKIP_NONE;
}

/* vmlinux merges those sections into .text, between linker symbols. */
static uint8_t marker_skip(const struct markers *m, uint64_t addr)
{
	static const struct { enum marker lo, hi; uint8_t why; } areas[] = {
		{ M_NOINSTR_START, M_NOINSTR_END, SKIP_NOINSTR },
		{ M_ENTRY_START, M_ENTRY_END, SKIP_ENTRY },
		{ M_KPROBES_START, M_KPROBES_END, SKIP_KPROBES },
	};
	size_t i;

	for (i = 0; i < sizeof(areas) / sizeof(areas[0]); i++)
		if (m->have[areas[i].lo] && m->have[areas[i].hi] &&
		    addr >= m->addr[areas[i].lo] && addr < m->addr[areas[i].hi])
			return areas[i].why;
	return SKIP_NONE;
}

/*
 * The section of the binary @main named like section @scn of @selfp: a
 * binary without a symbol table gets its symbols from the debug file,
 * whose sections have no bytes.
 */
static Elf_Scn *binary_scn(Elf *main, Elf *selfp, Elf_Scn *scn, const char *name)
{
	Elf_Scn *m = NULL;
	GElf_Shdr sh, msh;

	if (!scn || selfp == main || !gelf_getshdr(scn, &sh))
		return scn;
	while ((m = elf_nextscn(main, m)))
		if (!strcmp(scn_name(main, m, &msh), name) && msh.sh_addr == sh.sh_addr &&
		    msh.sh_size == sh.sh_size)
			return m;
	return NULL;
}

static void load_symbols(struct gen *g, struct markers *m)
{
	struct hmap seen = { 0 };
	int n = dwfl_module_getsymtab(g->mod), i, k;
	GElf_Addr ebias;
	Elf *main_elf = dwfl_module_getelf(g->mod, &ebias);

	if (n <= 0)
		die("%s: no symbol table", g->path);
	for (i = 1; i < n; i++) {
		GElf_Sym sym;
		GElf_Addr addr;
		GElf_Word shndx;
		Elf *selfp;
		Dwarf_Addr sbias;
		const char *name = dwfl_module_getsym_info(g->mod, i, &sym, &addr, &shndx,
							   &selfp, &sbias);
		int type = GELF_ST_TYPE(sym.st_info);
		struct gen_sym *s;
		const char *sec;
		uint32_t dup = 0;
		GElf_Shdr shdr;
		Elf_Scn *scn;

		if (!name || !*name || shndx == SHN_UNDEF)
			continue;
		if (!g->is_module && !sym.st_size) {
			for (k = 0; k < NR_MARKERS; k++)
				if (!strcmp(name, marker_names[k])) {
					m->addr[k] = addr - g->bias;
					m->have[k] = true;
				}
		}
		if (!sym.st_size || (type != STT_FUNC && type != STT_OBJECT))
			continue;
		if (has_prefix(name, "__pfx_") || has_prefix(name, "__cfi_"))
			continue;
		scn = shndx < SHN_LORESERVE ? elf_getscn(selfp, shndx) : NULL;
		sec = scn_name(selfp, scn, &shdr);
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
		s->percpu = !strcmp(sec, ".data..percpu") && !g->is_module && !shdr.sh_addr;
		if (!s->data) {
			Elf_Scn *code = binary_scn(main_elf, selfp, scn, sec);
			Elf_Data *d = code ? elf_getdata(code, NULL) : NULL;
			uint64_t off = g->is_module ? sym.st_value : sym.st_value - shdr.sh_addr;

			if (!(shdr.sh_flags & SHF_EXECINSTR))
				s->skip = SKIP_INIT;	/* not text at all */
			else
				s->skip = section_skip(sec);
			if (d && d->d_buf && off <= d->d_size && sym.st_size <= d->d_size - off)
				s->code = (const uint8_t *)d->d_buf + off;
		}
		if (!strcmp(name, INKPROBE_VMLINUX_ANCHOR) && !g->is_module)
			g->anchor_addr = sym.st_value;
	}
	hmap_free(&seen);
	if (g->nr_syms)
		qsort(g->syms, g->nr_syms, sizeof(*g->syms), sym_cmp);
	g->text_idx = xcalloc(g->nr_syms, sizeof(uint32_t));
	g->data_idx = xcalloc(g->nr_syms, sizeof(uint32_t));
	for (i = 0; i < (int)g->nr_syms; i++) {
		struct gen_sym *s = &g->syms[i];

		if (s->data) {
			g->data_idx[g->nr_data++] = (uint32_t)i;
			continue;
		}
		g->text_idx[g->nr_text++] = (uint32_t)i;
		if (!s->skip && !g->is_module)
			s->skip = marker_skip(m, s->addr);
		if (!s->skip && s->dup_index > INKPROBE_SYM_DUP_MAX)
			s->skip = SKIP_DUP_INDEX;
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

long gen_sym_near(const struct gen *g, uint64_t addr)
{
	size_t lo = 0, hi = g->nr_syms, i;

	/* inside a section that moves with the kernel image? */
	for (i = 0; i < g->nr_image; i++)
		if (addr >= g->image[i].start && addr < g->image[i].end)
			break;
	if (i == g->nr_image)
		return -1;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (g->syms[mid].addr <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (; lo > 0; lo--) {
		const struct gen_sym *s = &g->syms[lo - 1];

		if (s->percpu)
			continue;
		return addr - s->addr <= INT32_MAX ? (long)(lo - 1) : -1;
	}
	return -1;
}

void addr_set_add(struct addr_set *s, uint64_t a)
{
	*VEC_PUSH(s->v, s->len, s->cap) = a;
}

static int u64_cmp(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return (x > y) - (x < y);
}

void addr_set_sort(struct addr_set *s)
{
	size_t i, n = 0;

	if (!s->len)
		return;
	qsort(s->v, s->len, sizeof(*s->v), u64_cmp);
	for (i = 0; i < s->len; i++)
		if (!n || s->v[n - 1] != s->v[i])
			s->v[n++] = s->v[i];
	s->len = n;
}

uint64_t addr_set_next(const struct addr_set *s, uint64_t a)
{
	size_t lo = 0, hi = s->len;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (s->v[mid] < a)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < s->len ? s->v[lo] : UINT64_MAX;
}

/* vmlinux: the file's bytes at link address [addr, addr + len), or NULL. */
static const uint8_t *vmlinux_bytes(Elf *elf, uint64_t addr, uint64_t len, GElf_Shdr *out)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;

	while ((scn = elf_nextscn(elf, scn))) {
		Elf_Data *d;

		if (!gelf_getshdr(scn, &sh) || !(sh.sh_flags & SHF_ALLOC) ||
		    sh.sh_type == SHT_NOBITS || addr < sh.sh_addr ||
		    addr - sh.sh_addr > sh.sh_size || len > sh.sh_size - (addr - sh.sh_addr))
			continue;
		d = elf_getdata(scn, NULL);
		if (!d || !d->d_buf || d->d_size != sh.sh_size)
			return NULL;
		if (out)
			*out = sh;
		return (const uint8_t *)d->d_buf + (addr - sh.sh_addr);
	}
	return NULL;
}

/*
 * vmlinux: the text addresses in a table of structs holding s32 offsets
 * relative to the field itself (jump_entry, exception_table_entry,
 * alt_instr), laid out as the target's BTF says.
 */
static void relative_table(struct gen *g, Elf *elf, const struct markers *m, enum marker lo,
			   const char *type, const char *const *fields, int nr_fields)
{
	uint32_t size, offs[2];
	const uint8_t *p;
	uint64_t len, i;
	int f;

	if (!m->have[lo] || !m->have[lo + 1] || m->addr[lo + 1] <= m->addr[lo])
		return;
	len = m->addr[lo + 1] - m->addr[lo];
	p = vmlinux_bytes(elf, m->addr[lo], len, NULL);
	if (!gen_btf_struct(g, type, &size, fields, offs, nr_fields) || !size || !p ||
	    len % size) {
		warnx("%s: cannot read the %s table: probes stay at entry pcs", g->path, type);
		g->no_moves = true;
		return;
	}
	for (i = 0; i < len; i += size)
		for (f = 0; f < nr_fields; f++) {
			int32_t rel;

			memcpy(&rel, p + i + offs[f], sizeof(rel));
			addr_set_add(&g->special, m->addr[lo] + i + offs[f] + (int64_t)rel);
		}
}

/* Marks the function at each address of NOKPROBE_SYMBOL()'s table. */
static void blacklist_addr(struct gen *g, uint64_t addr)
{
	long s = gen_sym_at(g, addr, false);

	if (s >= 0 && g->syms[s].addr == addr && !g->syms[s].skip)
		g->syms[s].skip = SKIP_BLACKLIST;
}

static void vmlinux_tables(struct gen *g, Elf *elf, const struct markers *m)
{
	static const char *const jump[] = { "code", "target" };
	static const char *const ex[] = { "insn", "fixup" };
	static const char *const alt[] = { "instr_offset" };
	const uint8_t *p;
	uint64_t i, len;

	relative_table(g, elf, m, M_JUMP_START, "jump_entry", jump, 2);
	relative_table(g, elf, m, M_EX_START, "exception_table_entry", ex, 2);
	relative_table(g, elf, m, M_ALT_START, "alt_instr", alt, 1);
	if (m->have[M_BLACKLIST_START] && m->have[M_BLACKLIST_END] &&
	    m->addr[M_BLACKLIST_END] > m->addr[M_BLACKLIST_START]) {
		len = m->addr[M_BLACKLIST_END] - m->addr[M_BLACKLIST_START];
		p = vmlinux_bytes(elf, m->addr[M_BLACKLIST_START], len, NULL);
		if (!p)
			die("%s: cannot read _kprobe_blacklist", g->path);
		for (i = 0; i + 8 <= len; i += 8) {
			uint64_t a;

			memcpy(&a, p + i, 8);
			blacklist_addr(g, a);
		}
	}
}

/* Jumps in replacement code land in the original text: those are targets too. */
static void replacement_code(struct gen *g, Elf *elf, struct worker *w)
{
	static const char *const names[] = { ".altinstr_replacement", ".altinstr_aux" };
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;

	while ((scn = elf_nextscn(elf, scn))) {
		const char *nm = scn_name(elf, scn, &sh);
		Elf_Data *d;
		size_t i;

		for (i = 0; i < 2 && strcmp(nm, names[i]); i++)
			;
		if (i == 2 || sh.sh_type != SHT_PROGBITS)
			continue;
		d = elf_getdata(scn, NULL);
		if (d && d->d_buf)
			branch_targets(w, d->d_buf, d->d_size, sh.sh_addr, &g->special);
	}
}

/*
 * A module: the same tables are sections, their addresses relocations;
 * every relocation into executable code is an address we must respect
 * (fields pointing into data, like jump_entry.key, are not).
 */
static void module_tables(struct gen *g, Elf *elf)
{
	static const char *const tables[] = {
		"__jump_table", "__ex_table", ".altinstructions", ".altinstr_replacement",
		".altinstr_aux", "_kprobe_blacklist",
	};
	enum { NR_TABLES = sizeof(tables) / sizeof(tables[0]) };
	Elf_Scn *scn = NULL;
	GElf_Shdr sh, tsh;

	while ((scn = elf_nextscn(elf, scn))) {
		const char *target;
		Elf_Data *d;
		size_t i, t;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_RELA)
			continue;
		target = scn_name(elf, elf_getscn(elf, sh.sh_info), &tsh);
		for (t = 0; t < NR_TABLES && strcmp(target, tables[t]); t++)
			;
		if (t == NR_TABLES)
			continue;
		d = elf_getdata(scn, NULL);
		for (i = 0; d && i < sh.sh_size / sizeof(GElf_Rela); i++) {
			GElf_Rela r;
			GElf_Sym sym;
			GElf_Addr addr;
			GElf_Word shndx;
			Elf *selfp;
			Dwarf_Addr sbias;
			GElf_Shdr ssh;
			uint64_t a;

			if (!gelf_getrela(d, (int)i, &r) ||
			    !dwfl_module_getsym_info(g->mod, (int)GELF_R_SYM(r.r_info), &sym, &addr,
						     &shndx, &selfp, &sbias))
				continue;
			if (shndx >= SHN_LORESERVE ||
			    !gelf_getshdr(elf_getscn(selfp, shndx), &ssh) ||
			    !(ssh.sh_flags & SHF_EXECINSTR))
				continue;
			a = addr - g->bias + (uint64_t)r.r_addend;
			if (!strcmp(target, "_kprobe_blacklist"))
				blacklist_addr(g, a);
			else
				addr_set_add(&g->special, a);
		}
	}
}

static void read_module_name(struct gen *g, Elf *elf)
{
	const char *base = strrchr(g->path, '/');
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;
	char *dot;
	size_t i;

	/* .modinfo holds "name=<module>" */
	while ((scn = elf_nextscn(elf, scn))) {
		Elf_Data *d;

		if (strcmp(scn_name(elf, scn, &sh), ".modinfo") || sh.sh_type == SHT_NOBITS)
			continue;
		d = elf_getdata(scn, NULL);
		for (i = 0; d && d->d_buf && i < d->d_size;
		     i += strnlen((char *)d->d_buf + i, d->d_size - i) + 1) {
			const char *kv = (const char *)d->d_buf + i;

			if (memchr(kv, '\0', d->d_size - i) && has_prefix(kv, "name=") &&
			    strlen(kv + 5) < INKPROBE_TARGET_NAME_LEN) {
				strcpy(g->target_name, kv + 5);
				return;
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

static struct markers markers;

/*
 * vmlinux: the allocated sections, all moved by one KASLR slide, except the
 * per-CPU area (its symbols are offsets).
 */
static void image_sections(struct gen *g, Elf *elf)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;

	while ((scn = elf_nextscn(elf, scn))) {
		const char *nm = scn_name(elf, scn, &sh);

		if (!(sh.sh_flags & SHF_ALLOC) || !sh.sh_size || !sh.sh_addr ||
		    !strcmp(nm, ".data..percpu"))
			continue;
		*VEC_PUSH(g->image, g->nr_image, g->cap_image) =
			(struct gen_range){ sh.sh_addr, sh.sh_addr + sh.sh_size };
	}
}

void gen_open(struct gen *g)
{
	const unsigned char *bits;
	GElf_Addr vaddr, ebias;
	GElf_Ehdr ehdr;
	struct elf_file_info info;
	char why[256];
	Elf *elf;
	int n;

	/* what libdwfl and libbpf would trust blindly */
	if (!elf_file_inspect(g->path, &info, why, sizeof(why)))
		die("%s: %s", g->path, why);
	if (info.only_keep_debug)
		die("%s is an only-keep-debug file (its code has no bytes): pass the stripped "
		    "binary, and this file with --debug-file", g->path);
	if (info.type == ET_REL && !info.has_symtab)
		die("%s: no symbol table (a module always has one: stripped with --strip-all?)",
		    g->path);
	if (info.type != ET_REL && info.type != ET_EXEC)
		die("%s: neither a vmlinux nor a module (ELF type %u)", g->path, info.type);
	g->debug_path = debug_file_find(g->path, &info, g->debug_file, g->sysroot);
	if (g->debug_path)
		warnx("%s: DWARF from %s", g->path, g->debug_path);
	debug_file_use(g->debug_path);
	g->dwarf_path = g->debug_path ? g->debug_path : g->path;

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
		die("%s: no usable DWARF in %s: %s", g->path, g->dwarf_path, dwfl_errmsg(-1));
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
	load_symbols(g, &markers);
	if (!g->is_module)
		image_sections(g, elf);
	buf_add_u8(&g->loc, LOC_END_OF_EXPR);	/* offset 0: the empty expression */
}

void gen_special(struct gen *g)
{
	struct worker w = { .g = g };
	GElf_Addr ebias;
	Elf *elf = dwfl_module_getelf(g->mod, &ebias);

	probe_pc_init(&w);
	if (g->is_module) {
		module_tables(g, elf);
	} else {
		vmlinux_tables(g, elf, &markers);
		replacement_code(g, elf, &w);
	}
	probe_pc_fini(&w);
	addr_set_sort(&g->special);
}

void gen_close(struct gen *g)
{
	size_t i;

	for (i = 0; i < g->nr_callees; i++)
		free(g->callees[i].desc);
	free(g->callees);
	free(g->insts);
	free(g->ranges);
	gen_params_free(&g->params);
	for (i = 0; i < g->nr_syms; i++)
		free(g->syms[i].name);
	free(g->syms);
	free(g->text_idx);
	free(g->data_idx);
	free(g->special.v);
	free(g->image);
	hmap_free(&g->callee_map);
	hmap_free(&g->loc_map);
	buf_free(&g->loc);
	if (g->dwfl)
		dwfl_end(g->dwfl);
	free(g->debug_path);
	free(g->found_base_btf);
}
