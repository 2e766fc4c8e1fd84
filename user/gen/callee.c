// SPDX-License-Identifier: GPL-2.0
/*
 * Callees, read from DWARF by the walk's worker threads: an abstract
 * origin's name, its parameters and their types, as type keys that
 * gen_btf.c later maps to BTF ids (libbpf is not used by the workers).
 *
 * A type key spells a DWARF type as BTF would need it, one step a byte:
 *   'P' 'C' 'V' 'R'       pointer, const, volatile, restrict; the type follows
 *   'T' name\0            typedef; the type it names follows
 *   'I' name\0 size enc   base type (size and DW_ATE_* encoding, one byte each)
 *   'S' 'U' 'E' name\0    struct, union, enum, by name
 *   'v'                   void, or anything BTF gets no type for here
 *                         (anonymous aggregates, arrays, function types)
 */
#include <dwarf.h>
#include <stdlib.h>
#include <string.h>

#include "gen.h"

#define KEY_DEPTH	32

static bool dwarf_type(Dwarf_Die *die, Dwarf_Die *out)
{
	Dwarf_Attribute a;

	return dwarf_attr_integrate(die, DW_AT_type, &a) && dwarf_formref_die(&a, out);
}

static void add_name(struct buf *k, const char *name)
{
	buf_add(k, name, strlen(name) + 1);
}

static void type_key(Dwarf_Die *die, struct buf *k, int depth)
{
	static const struct { int tag; char step; } refs[] = {
		{ DW_TAG_pointer_type, 'P' }, { DW_TAG_const_type, 'C' },
		{ DW_TAG_volatile_type, 'V' }, { DW_TAG_restrict_type, 'R' },
	};
	const char *name;
	Dwarf_Attribute a;
	Dwarf_Word size, enc;
	Dwarf_Die inner;
	int tag;
	size_t i;

	if (!die || depth > KEY_DEPTH) {
		buf_add_u8(k, 'v');
		return;
	}
	tag = dwarf_tag(die);
	name = dwarf_diename(die);
	for (i = 0; i < sizeof(refs) / sizeof(refs[0]); i++) {
		if (tag == refs[i].tag) {
			buf_add_u8(k, (uint8_t)refs[i].step);
			type_key(dwarf_type(die, &inner) ? &inner : NULL, k, depth + 1);
			return;
		}
	}
	switch (name ? tag : 0) {
	case DW_TAG_base_type:
		if (dwarf_attr(die, DW_AT_encoding, &a) && !dwarf_formudata(&a, &enc) &&
		    !dwarf_aggregate_size(die, &size) && size < 256 && enc < 256) {
			buf_add_u8(k, 'I');
			add_name(k, name);
			buf_add_u8(k, (uint8_t)size);
			buf_add_u8(k, (uint8_t)enc);
			return;
		}
		break;
	case DW_TAG_typedef:
		buf_add_u8(k, 'T');
		add_name(k, name);
		type_key(dwarf_type(die, &inner) ? &inner : NULL, k, depth + 1);
		return;
	case DW_TAG_structure_type:
	case DW_TAG_union_type:
	case DW_TAG_enumeration_type:
		buf_add_u8(k, tag == DW_TAG_structure_type ? 'S' :
			   tag == DW_TAG_union_type ? 'U' : 'E');
		add_name(k, name);
		return;
	default:
		break;
	}
	buf_add_u8(k, 'v');
}

/* A signed integer type?  (@t has its typedefs and qualifiers peeled.) */
static bool type_is_signed(Dwarf_Die *t)
{
	Dwarf_Attribute a;
	Dwarf_Word enc;

	if (dwarf_tag(t) == DW_TAG_enumeration_type)
		return false;
	if (!dwarf_attr(t, DW_AT_encoding, &a) || dwarf_formudata(&a, &enc))
		return false;
	return enc == DW_ATE_signed || enc == DW_ATE_signed_char;
}

/*
 * Appends a u16-length-prefixed key for @die's type.  Keys are kept per
 * CU by type DIE: most parameters share a few types.
 */
static void add_key(struct gen_part *out, struct buf *desc, Dwarf_Die *die)
{
	struct buf k = { 0 };
	Dwarf_Die t;
	Dwarf_Off off = 0;
	uint32_t at;
	uint16_t len;

	if (dwarf_type(die, &t))
		off = dwarf_dieoffset(&t);
	if (!hmap_get(&out->type_keys, &off, sizeof(off), &at)) {
		type_key(off ? &t : NULL, &k, 0);
		len = k.len > 0xffff ? 0 : (uint16_t)k.len;
		at = (uint32_t)out->keys.len;
		buf_add_u16(&out->keys, len);
		buf_add(&out->keys, k.data, len);
		buf_free(&k);
		hmap_put(&out->type_keys, &off, sizeof(off), at);
	}
	memcpy(&len, out->keys.data + at, sizeof(len));
	buf_add(desc, out->keys.data + at, 2U + len);
}

long callee_index(struct worker *w, Dwarf_Die *origin)
{
	struct gen_part *out = w->out;
	Dwarf_Off off = dwarf_dieoffset(origin);
	struct buf desc = { 0 };
	struct gen_callee *c;
	Dwarf_Attribute a;
	Dwarf_Die child, spec;
	const char *name;
	uint32_t idx;
	size_t cap = 0;

	if (hmap_get(&out->callee_map, &off, sizeof(off), &idx))
		return idx;
	name = dwarf_diename(origin);
	/* a definition naming its declaration */
	if (!name && dwarf_attr(origin, DW_AT_specification, &a) && dwarf_formref_die(&a, &spec))
		name = dwarf_diename(&spec);
	if (!name)
		return -1;
	c = VEC_PUSH(out->callees, out->nr_callees, out->cap_callees);
	memset(c, 0, sizeof(*c));
	c->die = off;
	add_name(&desc, name);
	add_key(out, &desc, origin);
	if (dwarf_child(origin, &child) == 0) {
		do {
			if (dwarf_tag(&child) != DW_TAG_formal_parameter)
				continue;
			struct param_info *pi = VEC_PUSH(c->params, c->nr_params, cap);
			Dwarf_Die t, peeled;
			Dwarf_Word size = 0;

			memset(pi, 0, sizeof(*pi));
			pi->die = dwarf_dieoffset(&child);
			if (dwarf_type(&child, &t) && !dwarf_peel_type(&t, &peeled)) {
				if (!dwarf_aggregate_size(&peeled, &size) && size <= UINT32_MAX)
					pi->size = (uint32_t)size;
				pi->is_signed = type_is_signed(&peeled);
			}
			add_name(&desc, dwarf_diename(&child) ?: "");
			add_key(out, &desc, &child);
		} while (dwarf_siblingof(&child, &child) == 0);
	}
	c->desc = desc.data;
	c->desc_len = (uint32_t)desc.len;
	idx = (uint32_t)(out->nr_callees - 1);
	hmap_put(&out->callee_map, &off, sizeof(off), idx);
	return idx;
}

void desc_iter_init(struct desc_iter *it, const struct gen_callee *c)
{
	it->p = c->desc + strlen((const char *)c->desc) + 1;
	it->end = c->desc + c->desc_len;
}

const char *desc_name(struct desc_iter *it)
{
	const char *n = (const char *)it->p;

	it->p += strlen(n) + 1;
	return n;
}

void desc_key(struct desc_iter *it, const uint8_t **key, uint16_t *len)
{
	memcpy(len, it->p, sizeof(*len));
	*key = it->p + 2;
	it->p += 2 + *len;
}
