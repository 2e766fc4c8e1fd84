/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A small, validating BTF reader for the kernel module (which cannot reach the
 * kernel's own struct btf) and for the tests and fuzzer that check it.  It
 * reads a base BTF and split BTFs stacked on it, never allocates, and rejects
 * anything out of bounds.  Userspace code that only *produces* BTF uses libbpf.
 */
#ifndef _INKPROBE_BTF_LITE_H
#define _INKPROBE_BTF_LITE_H

#include "compat.h"

#define INK_BTF_MAX_CHAIN	8	/* modifiers/typedefs followed in a row */

struct ink_btf {
	const struct ink_btf *base;	/* NULL for a base BTF */
	const u8 *types;		/* type subsection */
	const char *strs;		/* string subsection */
	u32 types_len;
	u32 strs_len;
	u32 start_id;			/* id of the first type defined here */
	u32 start_str;			/* string offset of strs[0] */
	u32 nr_types;			/* types defined here */
	u32 *offs;			/* offs[i]: offset of type start_id + i */
	void *copy;			/* the copy of the data it reads that
					 * ink_blob_open() made, or NULL
					 */
};

/*
 * ink_btf_open() checks the header and every type record's size and kind and
 * counts the types; the caller then provides btf->nr_types u32s to
 * ink_btf_index(), which records where each type is and checks that every
 * name and type reference is in range.  Only then may the accessors be used.
 * @data must stay valid and 4-byte aligned while @btf is used.
 */
int ink_btf_open(struct ink_btf *btf, const void *data, u32 len,
		 const struct ink_btf *base, struct ink_err *err);
int ink_btf_index(struct ink_btf *btf, u32 *offs, struct ink_err *err);

static inline u32 ink_btf_end_id(const struct ink_btf *btf)
{
	return btf->start_id + btf->nr_types;
}

/* The type with this id, or NULL for void or an id out of range. */
const struct btf_type *ink_btf_type(const struct ink_btf *btf, u32 id);
/* The string at this offset ("" when out of range). */
const char *ink_btf_str(const struct ink_btf *btf, u32 off);
const char *ink_btf_name(const struct ink_btf *btf, u32 id);

static inline u32 ink_btf_kind(const struct btf_type *t)
{
	return BTF_INFO_KIND(t->info);
}

static inline u32 ink_btf_vlen(const struct btf_type *t)
{
	return BTF_INFO_VLEN(t->info);
}

/* Follow typedef/const/volatile/restrict/type_tag; *idp becomes the result's id. */
const struct btf_type *ink_btf_skip_mods(const struct ink_btf *btf, u32 *idp);
/* Size in bytes of a type (0 for void, functions and unknown sizes). */
u32 ink_btf_size(const struct ink_btf *btf, u32 id);
/*
 * Find member @name in struct/union @id (looking into anonymous members).
 * On success *bit_off is its offset in bits and *type_id its type.
 */
int ink_btf_member(const struct ink_btf *btf, u32 id, const char *name,
		   u32 *bit_off, u32 *type_id);
/* First type of @kind named @name, searching this BTF then its bases; 0 if none. */
u32 ink_btf_find(const struct ink_btf *btf, const char *name, u32 kind);

/* How a value of a type prints by default (kprobe_events' u/s/x types). */
struct ink_scalar {
	u8 size;		/* bytes: 1, 2, 4 or 8; 0 if not printable as a scalar */
	bool is_signed;
	bool is_hex;		/* pointers, aggregates, unknown types */
};
void ink_btf_scalar(const struct ink_btf *btf, u32 id, struct ink_scalar *s);

/* For a FUNC: its FUNC_PROTO (or NULL). */
const struct btf_type *ink_btf_func_proto(const struct ink_btf *btf, u32 func_id);
static inline const struct btf_param *ink_btf_params(const struct btf_type *proto)
{
	return (const struct btf_param *)(proto + 1);
}

#endif /* _INKPROBE_BTF_LITE_H */
