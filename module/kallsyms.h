/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kallsyms.c: what kallsyms and a module's tables say of kernel code;
 * for blob_store.c, build_id.c, refusal.c and probe_attach.c.
 */
#ifndef _INKPROBE_KALLSYMS_H
#define _INKPROBE_KALLSYMS_H

#include <linux/types.h>

struct module;

/*
 * What sprint_symbol() says of @addr: the symbol's name (KSYM_NAME_LEN),
 * @addr's offset in it, its size, and in @mod (MODULE_NAME_LEN, may be
 * NULL) its module, "" for vmlinux; false when no symbol holds @addr.
 */
bool ink_kallsyms_at(unsigned long addr, char *name, unsigned long *off, unsigned long *size,
		     char *mod);
/* A module's memory of one kind, on every supported kernel. */
enum ink_mod_mem { INK_MOD_TEXT, INK_MOD_INIT_TEXT, INK_MOD_RODATA };
void ink_module_mem(const struct module *mod, enum ink_mod_mem which, const u8 **base,
		    size_t *size);
/* The runtime address of the @dup_index-th symbol called @name in @mod, or 0. */
unsigned long ink_module_symbol(struct module *mod, const char *name, u32 dup_index);
/* Has @mod's symbol table a symbol called @name at @addr? */
bool ink_module_symbol_at(struct module *mod, const char *name, unsigned long addr);

#endif /* _INKPROBE_KALLSYMS_H */
