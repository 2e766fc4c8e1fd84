/* SPDX-License-Identifier: GPL-2.0 */
/*
 * blob_store.c: the targets, for what uses them: the probes, fetch.c,
 * site_spec.c, stack.c, inline_map.c, name_index.c, blob_upload.c,
 * module_notify.c and main.c.
 */
#ifndef _INKPROBE_BLOB_STORE_H
#define _INKPROBE_BLOB_STORE_H

#include <linux/list.h>
#include <linux/types.h>

#include "../lib/blob.h"
#include "../lib/btf_lite.h"

struct dentry;
struct ink_inline_map;
struct ink_name_index;
struct module;

struct ink_target {
	struct list_head list;
	char name[INKPROBE_TARGET_NAME_LEN];
	void *data;			/* the blob, kvmalloc'd, immutable */
	u32 len;
	struct ink_blob blob;
	struct ink_btf btf;		/* blob BTF on the vmlinux BTF */
	bool is_module;
	bool live;			/* symbols resolved: probes can attach */
	struct module *mod;		/* a module target while live */
	unsigned long *sym_addr;	/* runtime address of each SYMBOLS entry */
	u32 nr_unresolved;		/* symbols that did not match kallsyms */
	unsigned int users;		/* probes placed from this blob */
	struct ink_inline_map *inline_map;	/* built on first use (inline_map.c) */
	struct ink_name_index *name_index;	/* built on first use (name_index.c) */
};

extern struct list_head ink_targets;

/* The name of symbol @sym of @t's blob (a caller), from its BTF. */
static inline const char *ink_target_sym_name(const struct ink_target *t, u32 sym)
{
	return ink_btf_name(&t->btf, t->blob.syms[sym].btf_id);
}

int ink_blob_store_init(struct dentry *dir);
void ink_blob_store_exit(void);
/*
 * Validates and installs a complete blob, kvmalloc'd (owned by the store
 * from then on), from the file @what: 0 or -errno, the reason logged.
 */
int ink_blob_load(void *data, u32 len, const char *what);
/* @mod comes (live again, its probes back) or goes (they leave): its target follows. */
void ink_target_module(struct module *mod, bool coming);

/*
 * What the blob store asks of the users of its targets, the probes, which
 * register these (ink_mutex held in each).  blob_store.c does not call
 * into probe_*.c otherwise: the dependency points from probes to blobs.
 */
struct ink_target_ops {
	/* @t's module is going: its probes leave, until back() */
	void (*gone)(struct ink_target *t);
	/* @t's module came (back) and @t is live again */
	void (*back)(struct ink_target *t);
	/* "GRP/EVENT, ... and N more" into @buf: what uses @t; how many */
	unsigned int (*users)(const struct ink_target *t, char *buf, size_t n);
};

/* @ops, or NULL: no user any more. */
void ink_target_ops_register(const struct ink_target_ops *ops);

struct ink_target *ink_target_find(const char *name);

#endif /* _INKPROBE_BLOB_STORE_H */
