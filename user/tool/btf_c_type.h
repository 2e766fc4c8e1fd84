/* SPDX-License-Identifier: GPL-2.0 */
/* A BTF type as C (inkprobe vars): "const struct tgt_obj *obj". */
#ifndef _INKPROBE_BTF_C_TYPE_H
#define _INKPROBE_BTF_C_TYPE_H

#include <stddef.h>

#include "../../lib/btf_lite.h"

/*
 * The C declaration of @name as type @id of @btf into @out: "unsigned int
 * n", "const char *s", "char comm[16]", "ssize_t (*read)(struct file *,
 * char *, size_t, loff_t *)".  With @name NULL or "", the type alone
 * ("struct mm_struct *").  Type tags (__user) are left out; a chain deeper
 * than 32 types, or any type past the 1024th rendered, is "?".
 */
void btf_c_decl(const struct ink_btf *btf, u32 id, const char *name, char *out, size_t n);

#endif /* _INKPROBE_BTF_C_TYPE_H */
