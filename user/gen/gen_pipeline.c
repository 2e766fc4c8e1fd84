// SPDX-License-Identifier: GPL-2.0
/*
 * One gen run's target, from open to close: the file vetted and opened with
 * libdwfl (a compressed module decompressed, a stripped binary's debug file
 * found: debug_file.c), its build ID and symbols (gen_symbols.c); then the
 * text kprobes refuse and the kernel patches, from the tables gen_symbols.c
 * reads and what probe_pc.c decodes; and at the end everything freed.
 * gen_main.c runs the steps between: the BTF, the walk, the blob.
 */
#include <gelf.h>
#include <stdlib.h>
#include <string.h>

#include "../common/decompress.h"
#include "debug_file.h"
#include "gen.h"
#include "../../uapi/inkprobe.h"

/* DWARF from the binary, or from the debug file debug_file.c found */
static const Dwfl_Callbacks offline_callbacks = {
	.find_debuginfo = debug_file_dwfl_find,
	.section_address = dwfl_offline_section_address,
};

void gen_open(struct gen *g)
{
	const unsigned char *bits;
	GElf_Addr vaddr, ebias;
	GElf_Ehdr ehdr;
	struct elf_file_info info;
	char why[256];
	Elf *elf;
	int n;

	/* a compressed module is read decompressed; messages name the file */
	g->elf_path = decompressed_path(g->path);
	/* what libdwfl and libbpf would trust blindly */
	if (!elf_file_inspect(g->elf_path, &info, why, sizeof(why)))
		die("%s: %s", g->path, why);
	if (info.only_keep_debug)
		die("%s is an only-keep-debug file (its code has no bytes): pass the stripped "
		    "binary, and this file with --debug-file", g->path);
	if (info.type == ET_REL && !info.has_symtab)
		die("%s: no symbol table (a module always has one: stripped with --strip-all?)",
		    g->path);
	if (info.type != ET_REL && info.type != ET_EXEC)
		die("%s: neither a vmlinux nor a module (ELF type %u)", g->path, info.type);
	g->debug_path = debug_file_find(g->path, g->elf_path, &info, g->debug_file, g->sysroot);
	if (g->debug_path)
		warnx("%s: DWARF from %s", g->path, g->debug_path);
	debug_file_use(g->debug_path);
	g->dwarf_path = g->debug_path ? g->debug_path : g->elf_path;

	g->dwfl = dwfl_begin(&offline_callbacks);
	if (!g->dwfl)
		die("libdwfl: %s", dwfl_errmsg(-1));
	g->mod = dwfl_report_offline(g->dwfl, "target", g->elf_path, -1);
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
	gen_read_symbols(g, elf);
	buf_add_u8(&g->loc, LOC_END_OF_EXPR);	/* offset 0: the empty expression */
}

void gen_special(struct gen *g)
{
	struct worker w = { .g = g };
	GElf_Addr ebias;
	Elf *elf = dwfl_module_getelf(g->mod, &ebias);

	probe_pc_init(&w);
	gen_read_tables(g, elf);
	if (!g->is_module)
		replacement_targets(&w, elf);
	decode_boundaries(&w);
	probe_pc_fini(&w);
	gen_sort_tables(g);
}

void gen_close(struct gen *g)
{
	size_t i;

	for (i = 0; i < g->nr_callees; i++)
		free(g->callees[i].desc);
	free(g->callees);
	free(g->insts);
	free(g->ranges);
	free(g->exits);
	hmap_free(&g->noreturn);
	free(g->data_refs.v);
	gen_params_free(&g->params);
	for (i = 0; i < g->nr_syms; i++)
		free(g->syms[i].name);
	free(g->syms);
	free(g->text_idx);
	free(g->data_idx);
	free(g->special.v);
	free(g->sites);
	free(g->patched.v);
	free(g->rewritten);
	free(g->ex_fixups.v);
	free(g->ex_insns.v);
	free(g->ex);
	free(g->ex_by_fixup);
	free(g->repl_targets.v);
	free(g->fentry.v);
	free(g->jl_branches);
	free(g->bounds);
	free(g->relocs);
	free(g->image);
	hmap_free(&g->callee_map);
	hmap_free(&g->loc_map);
	buf_free(&g->loc);
	if (g->dwfl)
		dwfl_end(g->dwfl);
	free(g->debug_path);
	free(g->elf_path);
	free(g->found_base_btf);
}
