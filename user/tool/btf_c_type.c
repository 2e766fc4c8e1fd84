// SPDX-License-Identifier: GPL-2.0
/*
 * BTF types as C declarations.  A declaration is built from the name
 * outwards, as C reads it: a pointer prefixes "*" to the declarator, an
 * array or a function appends "[N]" or "(params)", and a pointer to an
 * array or a function wraps the declarator in parentheses first.  A
 * qualifier of a pointer follows the "*" ("char *const p"); of anything
 * else, it precedes the type ("const struct tgt_obj").
 */
#include <stdio.h>
#include <string.h>

#include "btf_c_type.h"

#define DECL_MAX	512
#define DEPTH_MAX	32
#define TYPES_MAX	1024	/* types rendered per declaration: a bound on crafted BTF */

struct render {
	const struct ink_btf *btf;
	int left;		/* of TYPES_MAX */
};

static void decl(struct render *r, u32 id, const char *d, char *out, size_t n, int depth);

/* @base followed by declarator @d, if any. */
static void with(const char *base, const char *d, char *out, size_t n)
{
	snprintf(out, n, "%s%s%s", base, *d ? " " : "", d);
}

/* The type @id stands for once type tags are skipped. */
static const struct btf_type *untagged(const struct ink_btf *btf, u32 id)
{
	const struct btf_type *t = ink_btf_type(btf, id);
	int i;

	for (i = 0; t && ink_btf_kind(t) == BTF_KIND_TYPE_TAG && i < DEPTH_MAX; i++)
		t = ink_btf_type(btf, t->type);
	return t;
}

/* Appends @s to the string in @out (@n bytes), as much as fits. */
static void append(char *out, size_t n, const char *s)
{
	size_t len = strlen(out), add = strlen(s);

	if (add > n - 1 - len)
		add = n - 1 - len;
	memcpy(out + len, s, add);
	out[len + add] = '\0';
}

static void params(struct render *r, const struct btf_type *t, char *out, size_t n, int depth)
{
	const struct btf_param *p = (const struct btf_param *)(t + 1);
	u32 i, vlen = ink_btf_vlen(t);

	snprintf(out, n, "(%s", vlen ? "" : "void");
	for (i = 0; i < vlen; i++) {
		char one[DECL_MAX];

		if (i == vlen - 1 && !p[i].type)
			snprintf(one, sizeof(one), "...");
		else
			decl(r, p[i].type, "", one, sizeof(one), depth + 1);
		if (i)
			append(out, n, ", ");
		append(out, n, one);
	}
	append(out, n, ")");
}

static void decl(struct render *r, u32 id, const char *d, char *out, size_t n, int depth)
{
	const struct ink_btf *btf = r->btf;
	const struct btf_type *t = ink_btf_type(btf, id), *to;
	const char *name, *q;
	char inner[DECL_MAX], base[DECL_MAX];

	if (depth > DEPTH_MAX || --r->left < 0) {
		with("?", d, out, n);
		return;
	}
	if (!t) {
		with("void", d, out, n);
		return;
	}
	name = ink_btf_str(btf, t->name_off);
	switch (ink_btf_kind(t)) {
	case BTF_KIND_INT:
	case BTF_KIND_FLOAT:
	case BTF_KIND_TYPEDEF:
		with(*name ? name : "?", d, out, n);
		break;
	case BTF_KIND_STRUCT:
	case BTF_KIND_UNION:
	case BTF_KIND_ENUM:
	case BTF_KIND_ENUM64:
	case BTF_KIND_FWD:
		q = ink_btf_kind(t) == BTF_KIND_UNION ||
		    (ink_btf_kind(t) == BTF_KIND_FWD && BTF_INFO_KFLAG(t->info)) ? "union" :
		    ink_btf_kind(t) == BTF_KIND_STRUCT || ink_btf_kind(t) == BTF_KIND_FWD ?
		    "struct" : "enum";
		snprintf(base, sizeof(base), "%s %s", q, *name ? name : "{...}");
		with(base, d, out, n);
		break;
	case BTF_KIND_PTR:
		to = untagged(btf, t->type);
		if (to && (ink_btf_kind(to) == BTF_KIND_ARRAY ||
			   ink_btf_kind(to) == BTF_KIND_FUNC_PROTO))
			snprintf(inner, sizeof(inner), "(*%s)", d);
		else
			snprintf(inner, sizeof(inner), "*%s", d);
		decl(r, t->type, inner, out, n, depth + 1);
		break;
	case BTF_KIND_CONST:
	case BTF_KIND_VOLATILE:
	case BTF_KIND_RESTRICT:
		q = ink_btf_kind(t) == BTF_KIND_CONST ? "const" :
		    ink_btf_kind(t) == BTF_KIND_VOLATILE ? "volatile" : "restrict";
		to = untagged(btf, t->type);
		if (to && ink_btf_kind(to) == BTF_KIND_PTR) {
			with(q, d, inner, sizeof(inner));
			decl(r, t->type, inner, out, n, depth + 1);
		} else {
			decl(r, t->type, d, inner, sizeof(inner), depth + 1);
			snprintf(out, n, "%s %s", q, inner);
		}
		break;
	case BTF_KIND_ARRAY: {
		const struct btf_array *a = (const struct btf_array *)(t + 1);

		snprintf(inner, sizeof(inner), "%s[%u]", d, a->nelems);
		decl(r, a->type, inner, out, n, depth + 1);
		break;
	}
	case BTF_KIND_FUNC_PROTO: {
		char p[DECL_MAX];

		params(r, t, p, sizeof(p), depth);
		snprintf(inner, sizeof(inner), "%s%s", d, p);
		decl(r, t->type, inner, out, n, depth + 1);
		break;
	}
	case BTF_KIND_FUNC:
		decl(r, t->type, *d ? d : name, out, n, depth + 1);
		break;
	case BTF_KIND_TYPE_TAG:
	case BTF_KIND_VAR:
	case BTF_KIND_DECL_TAG:
		decl(r, t->type, d, out, n, depth + 1);
		break;
	default:
		with("?", d, out, n);
		break;
	}
}

void btf_c_decl(const struct ink_btf *btf, u32 id, const char *name, char *out, size_t n)
{
	struct render r = { .btf = btf, .left = TYPES_MAX };

	decl(&r, id, name ? name : "", out, n, 0);
}
