/* SPDX-License-Identifier: GPL-2.0 */
/* refusal.c: why kprobes refused an address, for probe_attach.c. */
#ifndef _INKPROBE_REFUSAL_H
#define _INKPROBE_REFUSAL_H

#include <linux/types.h>

struct module;

/*
 * Why register_kprobe() refused @addr with @err, as exactly as the module
 * can tell: @mod's own tables for a module's text, else what the errno and
 * the instruction there say.
 */
void ink_refusal_reason(char *buf, size_t n, struct module *mod, unsigned long addr, int err);

#endif /* _INKPROBE_REFUSAL_H */
