/* SPDX-License-Identifier: GPL-2.0 */
/*
 * /proc/kallsyms as a symbol table for the running kernel: an address's
 * symbol, its offset, its size as %pS prints it (to the next symbol of the
 * same module or of vmlinux), its module, and which of the symbols of that
 * name in the module it is (the blob's duplicate index).  Needs root (else
 * the addresses read 0).  $INKPROBE_KALLSYMS stands in for /proc/kallsyms.
 */
#ifndef _INKPROBE_USER_KSYMS_H
#define _INKPROBE_USER_KSYMS_H

#include <stdbool.h>
#include <stdint.h>

#include "inline_frames.h"

struct ksyms;

/* Reads the table; NULL when it cannot be read or has no addresses. */
struct ksyms *ksyms_load(void);
void ksyms_free(struct ksyms *k);
/* What the table says of @addr (text symbols only); false if nothing. */
bool ksyms_lookup(struct ksyms *k, uint64_t addr, struct ink_sym *out);
/*
 * The address of the @dup_index-th symbol @name of @module (NULL: vmlinux),
 * in the order /proc/kallsyms lists them; 0 if none.
 */
uint64_t ksyms_addr_of(const struct ksyms *k, const char *module, const char *name,
		       int dup_index);

#endif /* _INKPROBE_USER_KSYMS_H */
