/* SPDX-License-Identifier: GPL-2.0 */
/* build_id.c: a blob's build ID against the running target's, for blob_store.c. */
#ifndef _INKPROBE_BUILD_ID_H
#define _INKPROBE_BUILD_ID_H

struct inkprobe_target;
struct module;

/* 0 when the running kernel has @tgt's build ID; -ENOEXEC, or -errno (logged). */
int ink_vmlinux_build_id_check(const struct inkprobe_target *tgt);
/* 0 when the module @mod has @tgt's build ID, else -ENOEXEC. */
int ink_module_build_id_check(struct module *mod, const struct inkprobe_target *tgt);

#endif /* _INKPROBE_BUILD_ID_H */
