// SPDX-License-Identifier: GPL-2.0
/*
 * Which instances of a target a name names: per target, built on the first
 * definition that needs it, the instances ordered by the name of their
 * callee and, apart, of their caller.  A definition then decodes only the
 * instances of its function, not every instance of a vmlinux blob (some
 * 300,000: seconds per definition under emulation).  The index only
 * narrows the search: probe_match.c still decides each instance.  Control
 * path only, under ink_mutex.
 */
#include <linux/slab.h>
#include <linux/sort.h>
#include <linux/string.h>

#include "blob_store.h"
#include "name_index.h"
#include "../lib/blob.h"
#include "../lib/btf_lite.h"

/* Where instance number i starts (ink_instance_at()): the iterator's state before it. */
struct inst_pos {
	u32 inst_off;
	u32 ext_off;
};

/* The instances whose name (a pointer into the BTF strings) is @name. */
struct name_run {
	const char *name;
	u32 first, count;	/* in order[] */
};

struct name_key {
	u32 *order;		/* instance numbers, by name pointer, then number */
	struct name_run *runs;	/* sorted by the name's text */
	u32 nr_runs;
};

struct ink_name_index {
	struct inst_pos *pos;
	u32 nr;
	struct name_key key[INK_NAME_KEYS];
};

static void *index_alloc(size_t n, size_t size)
{
	return kvmalloc_array(max_t(size_t, n, 1), size, GFP_KERNEL | __GFP_NOWARN);
}

static void free_index(struct ink_name_index *x)
{
	int k;

	if (!x)
		return;
	for (k = 0; k < INK_NAME_KEYS; k++) {
		kvfree(x->key[k].order);
		kvfree(x->key[k].runs);
	}
	kvfree(x->pos);
	kfree(x);
}

void ink_name_index_free(struct ink_target *t)
{
	free_index(t->name_index);
	t->name_index = NULL;
}

static int cmp_by_name_ptr(const void *a, const void *b, const void *priv)
{
	const char *const *names = priv;
	u32 x = *(const u32 *)a, y = *(const u32 *)b;

	if (names[x] != names[y])
		return names[x] < names[y] ? -1 : 1;
	return x < y ? -1 : x > y;
}

static int cmp_run(const void *a, const void *b)
{
	const struct name_run *x = a, *y = b;

	return strcmp(x->name, y->name);
}

/* @key's order and runs, from each instance's name in @names. */
static int build_key(struct name_key *key, const char **names, u32 nr)
{
	u32 i, r;

	key->order = index_alloc(nr, sizeof(*key->order));
	if (!key->order)
		return -ENOMEM;
	for (i = 0; i < nr; i++)
		key->order[i] = i;
	sort_r(key->order, nr, sizeof(*key->order), cmp_by_name_ptr, NULL, names);
	for (i = 0, r = 0; i < nr; i++)
		r += !i || names[key->order[i]] != names[key->order[i - 1]];
	key->runs = index_alloc(r, sizeof(*key->runs));
	if (!key->runs)
		return -ENOMEM;
	for (i = 0, r = 0; i < nr; i++) {
		if (i && names[key->order[i]] == names[key->order[i - 1]]) {
			key->runs[r - 1].count++;
			continue;
		}
		key->runs[r].name = names[key->order[i]];
		key->runs[r].first = i;
		key->runs[r++].count = 1;
	}
	key->nr_runs = r;
	sort(key->runs, r, sizeof(*key->runs), cmp_run, NULL);
	return 0;
}

static struct ink_name_index *build(const struct ink_target *t)
{
	const struct ink_blob *b = &t->blob;
	struct ink_instance_iter it, before;
	struct ink_instance in;
	struct ink_name_index *x;
	const char **names[INK_NAME_KEYS] = { };
	int k, ret = -ENOMEM;
	u32 i;

	x = kzalloc(sizeof(*x), GFP_KERNEL | __GFP_NOWARN);
	if (!x)
		return NULL;
	x->nr = b->nr_instances;
	x->pos = index_alloc(x->nr, sizeof(*x->pos));
	for (k = 0; k < INK_NAME_KEYS; k++)
		names[k] = index_alloc(x->nr, sizeof(*names[k]));
	if (!x->pos || !names[INK_NAME_CALLEE] || !names[INK_NAME_CALLER])
		goto out;
	ink_instance_iter_init(&it, b);
	for (i = 0, before = it; i < x->nr && ink_instance_next(&it, &in); i++, before = it) {
		x->pos[i].inst_off = before.inst_off;
		x->pos[i].ext_off = before.ext_off;
		names[INK_NAME_CALLEE][i] = ink_btf_name(&t->btf, in.callee_id);
		names[INK_NAME_CALLER][i] = ink_btf_name(&t->btf, in.caller_id);
	}
	x->nr = i;
	for (k = 0, ret = 0; k < INK_NAME_KEYS && !ret; k++)
		ret = build_key(&x->key[k], names[k], x->nr);
out:
	for (k = 0; k < INK_NAME_KEYS; k++)
		kvfree(names[k]);
	if (ret) {
		free_index(x);
		return NULL;
	}
	return x;
}

int ink_name_index_find(struct ink_target *t, enum ink_name_key which, const char *name,
			struct ink_name_span *span)
{
	const struct name_key *key;
	u32 lo = 0, hi;

	if (!t->name_index)
		t->name_index = build(t);
	if (!t->name_index)
		return -ENOMEM;
	key = &t->name_index->key[which];
	/* the first run whose name is not below @name */
	hi = key->nr_runs;
	while (lo < hi) {
		u32 mid = lo + (hi - lo) / 2;

		if (strcmp(key->runs[mid].name, name) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	span->index = t->name_index;
	span->order = key->order;
	span->first = 0;
	span->count = 0;
	if (lo == key->nr_runs || strcmp(key->runs[lo].name, name))
		return 0;
	/* the same text at two places in the strings: not in blob order */
	if (lo + 1 < key->nr_runs && !strcmp(key->runs[lo + 1].name, name))
		return -EMLINK;
	span->first = key->runs[lo].first;
	span->count = key->runs[lo].count;
	return 0;
}

void ink_name_span_get(const struct ink_target *t, const struct ink_name_span *span, u32 i,
		       struct ink_instance *in)
{
	u32 n = span->order[span->first + i];

	ink_instance_at(&t->blob, span->index->pos[n].inst_off, span->index->pos[n].ext_off, n, in);
}
