/* SPDX-License-Identifier: GPL-2.0 */
/* site_spec.c: the "sites" file, for main.c. */
#ifndef _INKPROBE_SITE_SPEC_H
#define _INKPROBE_SITE_SPEC_H

struct dentry;

/* The "sites" file: each instance's argument specs, for BPF programs. */
void ink_site_spec_init(struct dentry *dir);

#endif /* _INKPROBE_SITE_SPEC_H */
