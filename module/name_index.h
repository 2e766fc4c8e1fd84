/* SPDX-License-Identifier: GPL-2.0 */
/*
 * name_index.c: which instances of a target a name names; for
 * blob_store.c and probe_match.c.
 */
#ifndef _INKPROBE_NAME_INDEX_H
#define _INKPROBE_NAME_INDEX_H

#include <linux/types.h>

struct ink_instance;
struct ink_name_index;
struct ink_target;

enum ink_name_key {
	INK_NAME_CALLEE,
	INK_NAME_CALLER,
	INK_NAME_KEYS
};

/* Instances of one name, in blob order: read them with ink_name_span_get(). */
struct ink_name_span {
	const struct ink_name_index *index;
	const u32 *order;
	u32 first, count;
};

/*
 * The instances of @t whose callee (or caller) is named @name into @span,
 * none if no instance is (ink_mutex held; the index is built on first use).
 * -ENOMEM (no room for the index) or -EMLINK (the name's text is at two
 * places of the blob's strings): the caller must look at every instance.
 */
int ink_name_index_find(struct ink_target *t, enum ink_name_key which, const char *name,
			struct ink_name_span *span);
/* Instance @i of @span (i < span->count). */
void ink_name_span_get(const struct ink_target *t, const struct ink_name_span *span, u32 i,
		       struct ink_instance *in);
void ink_name_index_free(struct ink_target *t);

#endif /* _INKPROBE_NAME_INDEX_H */
