/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kernel_btf.c: the running kernel's BTF, from /sys/kernel/btf/vmlinux;
 * for blob_store.c, build_id.c and main.c.
 */
#ifndef _INKPROBE_KERNEL_BTF_H
#define _INKPROBE_KERNEL_BTF_H

#include <linux/types.h>

struct ink_btf;

/* A whole sysfs file in a vmalloc'd buffer; returns its length or -errno. */
ssize_t ink_read_sysfs(const char *path, size_t max, void **buf);
/* The vmlinux BTF, loaded on first use; ERR_PTR(-errno) on failure (error logged). */
const struct ink_btf *ink_vmlinux_btf(u32 *len, u32 *crc);
/* CRC-32 (IEEE, as zlib) and length of /sys/kernel/btf/<name>. */
int ink_sysfs_btf_crc(const char *name, u32 *len, u32 *crc);
void ink_kernel_btf_exit(void);

#endif /* _INKPROBE_KERNEL_BTF_H */
