// SPDX-License-Identifier: GPL-2.0
/*
 * The one validated open of a blob (blob_open.h): parse, the target's BTF,
 * the split BTF indexed on it, the type check.
 */
#ifdef __KERNEL__
#include <linux/mm.h>
#include <linux/slab.h>
#define ink_alloc_array(n, size)	kvmalloc_array(n, size, GFP_KERNEL)
#define ink_free(p)			kvfree(p)
#else
#include <stdlib.h>
#define ink_alloc_array(n, size)	calloc(n, size)
#define ink_free(p)			free(p)
#endif

#include "blob_open.h"

static int out_of_memory(struct ink_err *err)
{
	ink_fail(err, "out of memory", 0);
	return -ENOMEM;
}

int ink_btf_load(struct ink_btf *btf, const void *data, u32 len, const struct ink_btf *base,
		 struct ink_err *err)
{
	u32 *offs;
	int ret = ink_btf_open(btf, data, len, base, err);

	if (ret)
		return ret;
	offs = ink_alloc_array(btf->nr_types + 1, sizeof(*offs));
	if (!offs)
		return out_of_memory(err);
	ret = ink_btf_index(btf, offs, err);
	if (ret)
		ink_free(offs);
	return ret;
}

void ink_btf_unload(struct ink_btf *btf)
{
	ink_free(btf->offs);
	btf->offs = NULL;
}

static void phase(const struct ink_open_env *env, enum ink_open_phase p, bool done)
{
	if (env->phase)
		env->phase(env->arg, p, done);
}

static int failed(struct ink_err *err, enum ink_open_phase p, int ret)
{
	if (err)
		err->phase = p;
	return ret;
}

int ink_blob_open(struct ink_blob *b, struct ink_btf *btf, const void *data, u32 len,
		  const struct ink_open_env *env, struct ink_err *err)
{
	const struct ink_btf *base = env->base;
	const void *split;
	void *copy = NULL;
	int ret;

	memset(btf, 0, sizeof(*btf));
	phase(env, INK_OPEN_PARSE, false);
	ret = ink_blob_parse(b, data, len, err);
	phase(env, INK_OPEN_PARSE, true);
	if (ret)
		return failed(err, INK_OPEN_PARSE, ret);
	if (env->target_btf) {
		ret = env->target_btf(env->arg, b, &base, err);
		if (ret)
			return failed(err, INK_OPEN_TARGET, ret);
	}
#ifdef __KERNEL__
	split = b->btf;		/* 8-aligned in the kvmalloc'd blob */
#else
	copy = malloc(b->btf_len ? b->btf_len : 1);
	if (!copy)
		return failed(err, INK_OPEN_BTF, out_of_memory(err));
	memcpy(copy, b->btf, b->btf_len);
	split = copy;
#endif
	phase(env, INK_OPEN_BTF, false);
	ret = ink_btf_load(btf, split, b->btf_len, base, err);
	phase(env, INK_OPEN_BTF, true);
	if (ret) {
		ink_free(copy);
		return failed(err, INK_OPEN_BTF, ret);
	}
	btf->copy = copy;
	phase(env, INK_OPEN_CHECK, false);
	ret = ink_blob_check_btf(b, btf, err);
	phase(env, INK_OPEN_CHECK, true);
	if (ret) {
		ink_blob_close(btf);
		return failed(err, INK_OPEN_CHECK, ret);
	}
	return 0;
}

void ink_blob_close(struct ink_btf *btf)
{
	ink_btf_unload(btf);
	ink_free(btf->copy);
	btf->copy = NULL;
}
