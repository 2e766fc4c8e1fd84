// SPDX-License-Identifier: GPL-2.0
/*
 * A validating BTF reader shared by inkprobe.ko and the userspace tool.
 * See btf_lite.h.
 */
#include "btf_lite.h"

/* Bytes that follow struct btf_type for a kind; -1 for an unknown kind. */
static long btf_extra_len(const struct btf_type *t)
{
	u32 vlen = ink_btf_vlen(t);

	switch (ink_btf_kind(t)) {
	case BTF_KIND_INT:
		return sizeof(u32);
	case BTF_KIND_PTR:
	case BTF_KIND_FWD:
	case BTF_KIND_TYPEDEF:
	case BTF_KIND_VOLATILE:
	case BTF_KIND_CONST:
	case BTF_KIND_RESTRICT:
	case BTF_KIND_FUNC:
	case BTF_KIND_FLOAT:
	case BTF_KIND_TYPE_TAG:
		return 0;
	case BTF_KIND_ARRAY:
		return sizeof(struct btf_array);
	case BTF_KIND_STRUCT:
	case BTF_KIND_UNION:
		return (long)vlen * sizeof(struct btf_member);
	case BTF_KIND_ENUM:
		return (long)vlen * sizeof(struct btf_enum);
	case BTF_KIND_ENUM64:
		return (long)vlen * sizeof(struct btf_enum64);
	case BTF_KIND_FUNC_PROTO:
		return (long)vlen * sizeof(struct btf_param);
	case BTF_KIND_VAR:
		return sizeof(struct btf_var);
	case BTF_KIND_DATASEC:
		return (long)vlen * sizeof(struct btf_var_secinfo);
	case BTF_KIND_DECL_TAG:
		return sizeof(struct btf_decl_tag);
	default:
		return -1;
	}
}

/*
 * The header's fields up to str_len, all that is read.  7.2's uapi header
 * adds layout_off and layout_len (a section describing each kind's size,
 * for readers that do not know a kind): BTF with a 24-byte header stays
 * valid, and the layout section is not needed for the kinds read here.
 */
#define INK_BTF_HDR_MIN (offsetof(struct btf_header, str_len) + sizeof(u32))

int ink_btf_open(struct ink_btf *btf, const void *data, u32 len,
		 const struct ink_btf *base, struct ink_err *err)
{
	const struct btf_header *hdr = data;
	const u8 *p = data;
	u64 t_end, s_end;
	u32 off, n = 0;

	memset(btf, 0, sizeof(*btf));
	if (len < INK_BTF_HDR_MIN)
		return ink_fail(err, "BTF shorter than its header", 0);
	if (hdr->magic != BTF_MAGIC)
		return ink_fail(err, "bad BTF magic", 0);
	if (hdr->version != BTF_VERSION || hdr->flags)
		return ink_fail(err, "unsupported BTF version or flags", 2);
	if (hdr->hdr_len < INK_BTF_HDR_MIN || hdr->hdr_len > len || hdr->hdr_len % 4)
		return ink_fail(err, "bad BTF header length", 4);
	t_end = (u64)hdr->hdr_len + hdr->type_off + hdr->type_len;
	s_end = (u64)hdr->hdr_len + hdr->str_off + hdr->str_len;
	if (t_end > len || s_end > len)
		return ink_fail(err, "BTF subsection out of bounds", 8);
	if (hdr->type_off % 4 || hdr->type_len % 4)
		return ink_fail(err, "BTF type subsection misaligned", 8);
	if (hdr->type_off + hdr->type_len > hdr->str_off &&
	    hdr->str_off + hdr->str_len > hdr->type_off)
		return ink_fail(err, "BTF subsections overlap", 8);
	if (!hdr->str_len || p[s_end - 1] != '\0')
		return ink_fail(err, "BTF strings not NUL-terminated", 16);
	if (hdr->str_len > BTF_MAX_NAME_OFFSET)
		return ink_fail(err, "BTF strings too long", 20);

	btf->base = base;
	btf->types = p + hdr->hdr_len + hdr->type_off;
	btf->types_len = hdr->type_len;
	btf->strs = (const char *)p + hdr->hdr_len + hdr->str_off;
	btf->strs_len = hdr->str_len;
	if (base) {
		btf->start_id = ink_btf_end_id(base);
		btf->start_str = base->start_str + base->strs_len;
	} else {
		btf->start_id = 1;
		if (btf->strs[0] != '\0')
			return ink_fail(err, "base BTF strings must start empty", 16);
	}

	for (off = 0; off < btf->types_len; n++) {
		const struct btf_type *t;
		long extra;

		if (btf->types_len - off < sizeof(*t))
			return ink_fail(err, "truncated BTF type", off);
		t = (const void *)(btf->types + off);
		extra = btf_extra_len(t);
		if (extra < 0)
			return ink_fail(err, "unknown BTF kind", off);
		if ((u64)btf->types_len - off - sizeof(*t) < (u64)extra)
			return ink_fail(err, "truncated BTF type data", off);
		off += sizeof(*t) + (u32)extra;
		if ((u64)btf->start_id + n + 1 > BTF_MAX_TYPE)
			return ink_fail(err, "too many BTF types", off);
	}
	btf->nr_types = n;
	return 0;
}

static bool str_ok(const struct ink_btf *btf, u32 off)
{
	for (; btf; btf = btf->base)
		if (off >= btf->start_str)
			return off - btf->start_str < btf->strs_len;
	return false;
}

static bool id_ok(const struct ink_btf *btf, u32 id)
{
	return id < ink_btf_end_id(btf);
}

/* Checks one type's references; called once every id has an offset. */
static int check_type(const struct ink_btf *btf, const struct btf_type *t, u32 off,
		      struct ink_err *err)
{
	u32 i, vlen = ink_btf_vlen(t);
	u32 kind = ink_btf_kind(t);

	if (!str_ok(btf, t->name_off))
		return ink_fail(err, "BTF name offset out of range", off);
	switch (kind) {
	case BTF_KIND_PTR:
	case BTF_KIND_TYPEDEF:
	case BTF_KIND_VOLATILE:
	case BTF_KIND_CONST:
	case BTF_KIND_RESTRICT:
	case BTF_KIND_FUNC:
	case BTF_KIND_VAR:
	case BTF_KIND_TYPE_TAG:
	case BTF_KIND_DECL_TAG:
		if (!id_ok(btf, t->type))
			return ink_fail(err, "BTF type reference out of range", off);
		break;
	case BTF_KIND_FUNC_PROTO: {
		const struct btf_param *p = (const void *)(t + 1);

		if (!id_ok(btf, t->type))
			return ink_fail(err, "BTF return type out of range", off);
		for (i = 0; i < vlen; i++)
			if (!id_ok(btf, p[i].type) || !str_ok(btf, p[i].name_off))
				return ink_fail(err, "BTF parameter out of range", off);
		break;
	}
	case BTF_KIND_STRUCT:
	case BTF_KIND_UNION: {
		const struct btf_member *m = (const void *)(t + 1);

		for (i = 0; i < vlen; i++)
			if (!id_ok(btf, m[i].type) || !str_ok(btf, m[i].name_off))
				return ink_fail(err, "BTF member out of range", off);
		break;
	}
	case BTF_KIND_ARRAY: {
		const struct btf_array *a = (const void *)(t + 1);

		if (!id_ok(btf, a->type) || !id_ok(btf, a->index_type))
			return ink_fail(err, "BTF array type out of range", off);
		break;
	}
	case BTF_KIND_DATASEC: {
		const struct btf_var_secinfo *v = (const void *)(t + 1);

		for (i = 0; i < vlen; i++)
			if (!id_ok(btf, v[i].type))
				return ink_fail(err, "BTF datasec entry out of range", off);
		break;
	}
	case BTF_KIND_ENUM: {
		const struct btf_enum *e = (const void *)(t + 1);

		for (i = 0; i < vlen; i++)
			if (!str_ok(btf, e[i].name_off))
				return ink_fail(err, "BTF enumerator name out of range", off);
		break;
	}
	case BTF_KIND_ENUM64: {
		const struct btf_enum64 *e = (const void *)(t + 1);

		for (i = 0; i < vlen; i++)
			if (!str_ok(btf, e[i].name_off))
				return ink_fail(err, "BTF enumerator name out of range", off);
		break;
	}
	default:
		break;
	}
	return 0;
}

int ink_btf_index(struct ink_btf *btf, u32 *offs, struct ink_err *err)
{
	u32 i, off = 0;
	int ret;

	for (i = 0; i < btf->nr_types; i++) {
		const struct btf_type *t = (const void *)(btf->types + off);

		offs[i] = off;
		off += sizeof(*t) + (u32)btf_extra_len(t);
	}
	btf->offs = offs;
	for (i = 0; i < btf->nr_types; i++) {
		ret = check_type(btf, (const void *)(btf->types + offs[i]), offs[i], err);
		if (ret) {
			btf->offs = NULL;
			return ret;
		}
	}
	return 0;
}

const struct btf_type *ink_btf_type(const struct ink_btf *btf, u32 id)
{
	for (; btf; btf = btf->base) {
		if (id >= btf->start_id) {
			if (id - btf->start_id >= btf->nr_types || !btf->offs)
				return NULL;
			return (const void *)(btf->types + btf->offs[id - btf->start_id]);
		}
	}
	return NULL;
}

const char *ink_btf_str(const struct ink_btf *btf, u32 off)
{
	for (; btf; btf = btf->base)
		if (off >= btf->start_str)
			return off - btf->start_str < btf->strs_len ?
			       btf->strs + (off - btf->start_str) : "";
	return "";
}

const char *ink_btf_name(const struct ink_btf *btf, u32 id)
{
	const struct btf_type *t = ink_btf_type(btf, id);

	return t ? ink_btf_str(btf, t->name_off) : "";
}

const struct btf_type *ink_btf_skip_mods(const struct ink_btf *btf, u32 *idp)
{
	const struct btf_type *t = ink_btf_type(btf, *idp);
	int n;

	for (n = 0; t && n < INK_BTF_MAX_CHAIN; n++) {
		switch (ink_btf_kind(t)) {
		case BTF_KIND_TYPEDEF:
		case BTF_KIND_VOLATILE:
		case BTF_KIND_CONST:
		case BTF_KIND_RESTRICT:
		case BTF_KIND_TYPE_TAG:
			*idp = t->type;
			t = ink_btf_type(btf, *idp);
			break;
		default:
			return t;
		}
	}
	return n < INK_BTF_MAX_CHAIN ? t : NULL;
}

u32 ink_btf_size(const struct ink_btf *btf, u32 id)
{
	const struct btf_type *t = ink_btf_skip_mods(btf, &id);
	const struct btf_array *a;
	u64 sz;
	int n;

	for (n = 0; t && n < INK_BTF_MAX_CHAIN; n++) {
		switch (ink_btf_kind(t)) {
		case BTF_KIND_INT:
		case BTF_KIND_STRUCT:
		case BTF_KIND_UNION:
		case BTF_KIND_ENUM:
		case BTF_KIND_ENUM64:
		case BTF_KIND_FLOAT:
		case BTF_KIND_DATASEC:
			return t->size;
		case BTF_KIND_PTR:
			return sizeof(u64);
		case BTF_KIND_ARRAY:
			a = (const void *)(t + 1);
			sz = (u64)a->nelems * ink_btf_size(btf, a->type);
			return sz > 0xffffffffULL ? 0 : (u32)sz;
		default:
			return 0;
		}
	}
	return 0;
}

/* Depth-limited search through anonymous struct/union members. */
static int member_at(const struct ink_btf *btf, u32 id, const char *name,
		     u32 *bit_off, u32 *type_id, int depth)
{
	const struct btf_type *t = ink_btf_skip_mods(btf, &id);
	const struct btf_member *m;
	u32 i, vlen;

	if (!t || depth > INK_BTF_MAX_CHAIN)
		return -ENOENT;
	if (ink_btf_kind(t) != BTF_KIND_STRUCT && ink_btf_kind(t) != BTF_KIND_UNION)
		return -EINVAL;
	m = (const void *)(t + 1);
	vlen = ink_btf_vlen(t);
	for (i = 0; i < vlen; i++) {
		u32 moff = BTF_INFO_KFLAG(t->info) ? m[i].offset & 0xffffff : m[i].offset;

		if (!m[i].name_off) {
			u32 sub_off;

			if (!member_at(btf, m[i].type, name, &sub_off, type_id, depth + 1)) {
				*bit_off = moff + sub_off;
				return 0;
			}
			continue;
		}
		if (!strcmp(ink_btf_str(btf, m[i].name_off), name)) {
			*bit_off = moff;
			*type_id = m[i].type;
			return 0;
		}
	}
	return -ENOENT;
}

int ink_btf_member(const struct ink_btf *btf, u32 id, const char *name,
		   u32 *bit_off, u32 *type_id)
{
	return member_at(btf, id, name, bit_off, type_id, 0);
}

u32 ink_btf_find(const struct ink_btf *btf, const char *name, u32 kind)
{
	for (; btf; btf = btf->base) {
		u32 i;

		for (i = 0; i < btf->nr_types; i++) {
			const struct btf_type *t = (const void *)(btf->types + btf->offs[i]);

			if (ink_btf_kind(t) == kind &&
			    !strcmp(ink_btf_str(btf, t->name_off), name))
				return btf->start_id + i;
		}
	}
	return 0;
}

const struct btf_type *ink_btf_func_proto(const struct ink_btf *btf, u32 func_id)
{
	const struct btf_type *t = ink_btf_type(btf, func_id);

	if (!t || ink_btf_kind(t) != BTF_KIND_FUNC)
		return NULL;
	t = ink_btf_type(btf, t->type);
	if (!t || ink_btf_kind(t) != BTF_KIND_FUNC_PROTO)
		return NULL;
	return t;
}

void ink_btf_scalar(const struct ink_btf *btf, u32 id, struct ink_scalar *s)
{
	const struct btf_type *t;
	u32 size;

	s->size = 8;
	s->is_signed = false;
	s->is_hex = true;
	if (!id)
		return;			/* untyped: x64 */
	t = ink_btf_skip_mods(btf, &id);
	if (!t)
		return;
	size = ink_btf_size(btf, id);
	switch (ink_btf_kind(t)) {
	case BTF_KIND_INT: {
		u32 enc = BTF_INT_ENCODING(*(const u32 *)(t + 1));

		s->is_hex = false;
		s->is_signed = !!(enc & BTF_INT_SIGNED);
		break;
	}
	case BTF_KIND_ENUM:
	case BTF_KIND_ENUM64:
		s->is_hex = false;
		s->is_signed = BTF_INFO_KFLAG(t->info);
		break;
	case BTF_KIND_PTR:
		break;
	default:
		break;
	}
	s->size = (size == 1 || size == 2 || size == 4 || size == 8) ? (u8)size : 0;
}
