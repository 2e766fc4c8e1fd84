// SPDX-License-Identifier: GPL-2.0
/*
 * What kallsyms and a module's own tables say of kernel code: the symbol
 * holding an address, a module's memory, a module's symbols by name.  The
 * blob store resolves a blob's symbols with them, refusal.c and the
 * kprobes' placement name what they find with them.
 */
#include <linux/kallsyms.h>
#include <linux/module.h>

#include "kallsyms.h"

void ink_module_mem(const struct module *mod, enum ink_mod_mem which, const u8 **base,
		    size_t *size)
{
	/* one source for every supported kernel: module memory changed in 6.4 */
#ifdef for_each_mod_mem_type
	static const enum mod_mem_type types[] = {
		[INK_MOD_TEXT] = MOD_TEXT, [INK_MOD_INIT_TEXT] = MOD_INIT_TEXT,
		[INK_MOD_RODATA] = MOD_RODATA,
	};

	*base = mod->mem[types[which]].base;
	*size = mod->mem[types[which]].size;
#else
	const struct module_layout *l = which == INK_MOD_INIT_TEXT ? &mod->init_layout :
					&mod->core_layout;

	*base = l->base;
	*size = which == INK_MOD_RODATA ? l->ro_size - l->text_size : l->text_size;
	if (which == INK_MOD_RODATA)
		*base += l->text_size;
#endif
}

bool ink_kallsyms_at(unsigned long addr, char *name, unsigned long *off, unsigned long *size,
		     char *mod)
{
	char sym[KSYM_SYMBOL_LEN], *plus, *slash, *space, *end;

	sprint_symbol(sym, addr);	/* "NAME+0xOFF/0xSIZE [MOD]", or the address alone */
	plus = strstr(sym, "+0x");
	slash = plus ? strchr(plus, '/') : NULL;
	if (!slash || plus == sym || plus - sym >= KSYM_NAME_LEN)
		return false;
	*slash = '\0';
	space = strchr(slash + 1, ' ');
	if (space)
		*space = '\0';
	if (kstrtoul(plus + 1, 16, off) || kstrtoul(slash + 1, 16, size))
		return false;
	memcpy(name, sym, plus - sym);
	name[plus - sym] = '\0';
	if (mod) {
		end = space ? strchr(space + 1, ']') : NULL;
		if (space && (space[1] != '[' || !end || end - space - 2 >= MODULE_NAME_LEN))
			return false;
		if (space)
			snprintf(mod, MODULE_NAME_LEN, "%.*s", (int)(end - space - 2), space + 2);
		else
			*mod = '\0';
	}
	return true;
}

unsigned long ink_module_symbol(struct module *mod, const char *name, u32 dup_index)
{
	struct mod_kallsyms *ks;
	unsigned long addr = 0;
	unsigned int i;

	preempt_disable();
	ks = rcu_dereference_sched(mod->kallsyms);
	for (i = 0; ks && i < ks->num_symtab; i++) {
		const Elf_Sym *s = &ks->symtab[i];

		if (s->st_shndx == SHN_UNDEF || strcmp(ks->strtab + s->st_name, name))
			continue;
		if (dup_index-- == 0) {
			addr = s->st_value;
			break;
		}
	}
	preempt_enable();
	return addr;
}

bool ink_module_symbol_at(struct module *mod, const char *name, unsigned long addr)
{
	struct mod_kallsyms *ks;
	unsigned int i;
	bool found = false;

	preempt_disable();
	ks = rcu_dereference_sched(mod->kallsyms);
	for (i = 0; ks && i < ks->num_symtab && !found; i++) {
		const Elf_Sym *s = &ks->symtab[i];

		found = s->st_shndx != SHN_UNDEF && s->st_value == addr &&
			!strcmp(ks->strtab + s->st_name, name);
	}
	preempt_enable();
	return found;
}
