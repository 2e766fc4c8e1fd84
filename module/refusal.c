// SPDX-License-Identifier: GPL-2.0
/*
 * Why kprobes refused an address: register_kprobe() answers -EINVAL alike
 * for a jump-label, static-call or BUG site, the kprobe blacklist and
 * memory that is not text (kernel/kprobes.c, check_kprobe_address_safe()),
 * and none of those checks is exported.
 *
 * For a module target the same rules are applied here to the module's own
 * tables, in the kernel's order: text, blacklist (NOKPROBE_SYMBOL(),
 * __kprobes and noinstr text, and NAME.suffix pieces of a blacklisted
 * NAME), jump labels, static calls, BUG sites.  For vmlinux the kernel's
 * tables are out of reach: the reason says what the errno means and what
 * the instruction there is (Documentation/control.rst, "Partial attach").
 *
 * Memory of the probed module is read with copy_from_kernel_nofault(): it
 * is the module's, not ours (it stays while ink_mutex is held: the module
 * notifier takes it before the module goes).
 */
#include <linux/bug.h>
#include <linux/jump_label.h>
#include <linux/kallsyms.h>
#include <linux/module.h>
#include <linux/static_call_types.h>
#include <linux/uaccess.h>

#include "kallsyms.h"
#include "refusal.h"

static bool within(unsigned long addr, const void *base, unsigned long size)
{
	return base && addr >= (unsigned long)base && addr - (unsigned long)base < size;
}

static bool module_text(const struct module *mod, unsigned long addr)
{
	const u8 *base, *init;
	size_t size, init_size;

	ink_module_mem(mod, INK_MOD_TEXT, &base, &size);
	ink_module_mem(mod, INK_MOD_INIT_TEXT, &init, &init_size);
	return within(addr, base, size) || within(addr, init, init_size);
}

/* kallsyms' symbol containing @addr: its start and size; false if none. */
static bool kallsyms_symbol(unsigned long addr, unsigned long *start, unsigned long *size,
			    char *name)
{
	unsigned long off;

	if (!ink_kallsyms_at(addr, name, &off, size, NULL))
		return false;
	*start = addr - off;
	return true;
}

/* Inside a function of the module's kprobe blacklist? (NOKPROBE_SYMBOL()) */
static bool blacklisted_function(const struct module *mod, unsigned long addr)
{
	unsigned long entry, start, size;
	char name[KSYM_NAME_LEN];
	unsigned int i;

	for (i = 0; i < mod->num_kprobe_blacklist; i++) {
		if (copy_from_kernel_nofault(&entry, &mod->kprobe_blacklist[i], sizeof(entry)))
			continue;
		if (kallsyms_symbol(entry, &start, &size, name) && start == entry &&
		    addr >= entry && addr - entry < size)
			return true;
	}
	return false;
}

static bool blacklisted(struct module *mod, unsigned long addr)
{
	char name[KSYM_NAME_LEN], *dot;
	unsigned long start, size, base;

	if (within(addr, mod->kprobes_text_start, mod->kprobes_text_size) ||
	    within(addr, mod->noinstr_text_start, mod->noinstr_text_size) ||
	    blacklisted_function(mod, addr))
		return true;
	/* NAME.cold, NAME.part.0...: blacklisted when NAME is */
	if (!kallsyms_symbol(addr, &start, &size, name))
		return false;
	dot = strchr(name, '.');
	if (!dot)
		return false;
	*dot = '\0';
	base = ink_module_symbol(mod, name, 0);
	return base && blacklisted_function(mod, base);
}

static bool jump_label_site(const struct module *mod, unsigned long addr)
{
#ifdef CONFIG_JUMP_LABEL
	bool coming = mod->state == MODULE_STATE_COMING;
	unsigned int i;

	for (i = 0; i < mod->num_jump_entries; i++) {
		const struct jump_entry *at = &mod->jump_entries[i];
		struct jump_entry e;
		unsigned long code;
		u8 insn[2];

		if (copy_from_kernel_nofault(&e, at, sizeof(e)))
			continue;
		if (!coming && (e.key & 2UL))	/* in init text: gone */
			continue;
		code = (unsigned long)&at->code + e.code;
		if (addr < code || copy_from_kernel_nofault(insn, (void *)code, sizeof(insn)))
			continue;
		/* a jmp8 or a 2-byte nop, else a jmp32 or a 5-byte nop */
		if (addr - code < (insn[0] == 0xeb || (insn[0] == 0x66 && insn[1] == 0x90) ? 2 : 5))
			return true;
	}
#endif
	return false;
}

static bool static_call_site(const struct module *mod, unsigned long addr)
{
#ifdef CONFIG_HAVE_STATIC_CALL_INLINE
	bool coming = mod->state == MODULE_STATE_COMING;
	int i;

	for (i = 0; i < mod->num_static_call_sites; i++) {
		const struct static_call_site *at = &mod->static_call_sites[i];
		struct static_call_site s;
		unsigned long site, key;

		if (copy_from_kernel_nofault(&s, at, sizeof(s)))
			continue;
		site = (long)&at->addr + s.addr;
		key = (long)&at->key + s.key;
		if (!coming && (key & STATIC_CALL_SITE_INIT))
			continue;
		if (addr >= site && addr - site < 5)	/* a call or jmp, or its nop */
			return true;
	}
#endif
	return false;
}

static bool bug_site(const struct module *mod, unsigned long addr)
{
#ifdef CONFIG_GENERIC_BUG
	unsigned int i;

	for (i = 0; i < mod->num_bugs; i++) {
		const struct bug_entry *at = &mod->bug_table[i];
		struct bug_entry b;

		if (copy_from_kernel_nofault(&b, at, sizeof(b)))
			continue;
#ifdef CONFIG_GENERIC_BUG_RELATIVE_POINTERS
		if ((unsigned long)&at->bug_addr_disp + b.bug_addr_disp == addr)
#else
		if (b.bug_addr == addr)
#endif
			return true;
	}
#endif
	return false;
}

/* -EINVAL in module @mod: the first of the kernel's rules that applies. */
static const char *module_reason(struct module *mod, unsigned long addr)
{
	if (!module_text(mod, addr))
		return "not text";
	if (blacklisted(mod, addr))
		return "in the kprobe blacklist (NOKPROBE_SYMBOL, __kprobes or noinstr text)";
	if (jump_label_site(mod, addr))
		return "a jump label site";
	if (static_call_site(mod, addr))
		return "a static call site";
	if (bug_site(mod, addr))
		return "a BUG/WARN site";
	return "none of the module's jump label, static call, BUG or blacklist tables names it";
}

static const char *errno_name(int err)
{
	switch (err) {
	case -EINVAL:
		return "EINVAL";
	case -EILSEQ:
		return "EILSEQ";
	case -ENOENT:
		return "ENOENT";
	case -EBUSY:
		return "EBUSY";
	case -EEXIST:
		return "EEXIST";
	case -ENOMEM:
		return "ENOMEM";
	default:
		return NULL;
	}
}

void ink_refusal_reason(char *buf, size_t n, struct module *mod, unsigned long addr, int err)
{
	const char *name = errno_name(err), *why;
	u8 insn[2];

	switch (err) {
	case -EILSEQ:
		why = "not on an instruction boundary";
		break;
	case -ENOENT:
		why = "init text, freed";
		break;
	case -EBUSY:
	case -EEXIST:
		why = "busy: another ftrace user or kprobe owner";
		break;
	case -ENOMEM:
		why = "out of memory";
		break;
	case -EINVAL:
		if (mod) {
			why = module_reason(mod, addr);
		} else if (!copy_from_kernel_nofault(insn, (void *)addr, sizeof(insn)) &&
			   insn[0] == 0x0f && insn[1] == 0x0b) {
			why = "a BUG/WARN site (the instruction there is ud2)";
		} else {
			why = "a jump label, static call or BUG site, in the kprobe blacklist, or not text: the kernel does not tell modules which";
		}
		break;
	default:
		why = "kprobes refused it";
		break;
	}
	if (name)
		snprintf(buf, n, "%s (%s)", why, name);
	else
		snprintf(buf, n, "%s (%d)", why, err);
}
