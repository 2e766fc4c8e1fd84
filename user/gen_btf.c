// SPDX-License-Identifier: GPL-2.0
/*
 * The BTF side of inkprobe gen (libbpf).  The blob's BTF is always split
 * on the vmlinux BTF: for vmlinux it starts empty, for a module it is the
 * module's own .BTF (split on the vmlinux BTF given with --base-btf),
 * extended in place.  libbpf cannot stack a split BTF on a split BTF, and
 * the kernel then needs only /sys/kernel/btf/vmlinux as the base.  It adds
 *   - FUNC + FUNC_PROTO for callees the target's BTF lacks (fully inlined
 *     functions) or describes differently (a static function of the same
 *     name with other parameters),
 *   - one FUNC per caller symbol, named exactly as the symbol
 *     ("foo", "foo.isra.0", "foo.cold"), typed like the function it is from,
 *   - one VAR per data symbol a location expression addresses.
 */
#include <bpf/btf.h>
#include <dwarf.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "gen.h"

struct gen_btf {
	struct btf *vmlinux;		/* base of a module's BTF */
	struct btf *target;		/* vmlinux's or the module's BTF */
	struct btf *split;		/* the blob's: new, or the module's extended */
	uint32_t target_len, target_crc, vmlinux_len, vmlinux_crc;
	struct hmap named;		/* kind byte + name -> first id */
	struct hmap refs;		/* kind + referenced id -> id (ptr, cv) */
	struct hmap func_head;		/* name -> first FUNC id */
	uint32_t *func_next;		/* FUNC id -> next FUNC id of that name */
	uint32_t nr_target_types;
	struct hmap type_memo;		/* DWARF DIE offset -> BTF id */
	struct hmap sig_memo;		/* callee signature -> FUNC id */
	int empty_proto;
};

static uint32_t raw_crc(const struct btf *btf, uint32_t *len)
{
	const void *raw = btf__raw_data(btf, len);

	if (!raw)
		die("cannot serialize BTF");
	return (uint32_t)crc32(0, raw, *len);
}

#define NAMED_KEY_MAX	512

/* Key for the named index: kind byte + name; 0 when the name is too long. */
static size_t named_key(uint8_t key[NAMED_KEY_MAX], uint8_t kind, const char *name)
{
	size_t n = strlen(name);

	if (n + 1 > NAMED_KEY_MAX)
		return 0;
	key[0] = kind;
	memcpy(key + 1, name, n);
	return n + 1;
}

/* Record a type added to the split BTF, unless the name is known already. */
static void put_named(struct gen_btf *b, uint8_t kind, const char *name, uint32_t id)
{
	uint8_t key[NAMED_KEY_MAX];
	size_t n = named_key(key, kind, name);
	uint32_t old;

	if (n && !hmap_get(&b->named, key, n, &old))
		hmap_put(&b->named, key, n, id);
}

static uint32_t get_named(struct gen_btf *b, uint8_t kind, const char *name)
{
	uint8_t key[NAMED_KEY_MAX];
	size_t n = named_key(key, kind, name);
	uint32_t id;

	return n && hmap_get(&b->named, key, n, &id) ? id : 0;
}

static void ref_key(uint8_t key[8], uint32_t kind, uint32_t ref)
{
	memcpy(key, &kind, 4);
	memcpy(key + 4, &ref, 4);
}

static void index_target(struct gen_btf *b)
{
	uint32_t n = btf__type_cnt(b->target), id;

	b->nr_target_types = n;
	b->func_next = xcalloc(n, sizeof(uint32_t));
	for (id = n - 1; id > 0; id--) {	/* backwards: lowest id wins */
		const struct btf_type *t = btf__type_by_id(b->target, id);
		const char *name = btf__name_by_offset(b->target, t->name_off);
		uint32_t kind = btf_kind(t);
		uint8_t key[8];

		switch (kind) {
		case BTF_KIND_PTR:
		case BTF_KIND_CONST:
		case BTF_KIND_VOLATILE:
		case BTF_KIND_RESTRICT:
			ref_key(key, kind, t->type);
			hmap_put(&b->refs, key, sizeof(key), id);
			break;
		case BTF_KIND_FUNC: {
			uint32_t head = 0;

			hmap_get(&b->func_head, name, strlen(name), &head);
			b->func_next[id] = head;
			hmap_put(&b->func_head, name, strlen(name), id);
			break;
		}
		default: {
			uint8_t nk[NAMED_KEY_MAX];
			size_t len = name && *name ? named_key(nk, (uint8_t)kind, name) : 0;

			if (len)
				hmap_put(&b->named, nk, len, id);
			break;
		}
		}
	}
}

void gen_btf_open(struct gen *g)
{
	struct gen_btf *b = xcalloc(1, sizeof(*b));

	g->btf = b;
	if (g->is_module) {
		if (!g->base_btf_path)
			die("%s is a module: give the vmlinux BTF with --base-btf "
			    "(a vmlinux, or /sys/kernel/btf/vmlinux of the same build)", g->path);
		b->vmlinux = btf__parse(g->base_btf_path, NULL);
		if (!b->vmlinux)
			die("%s: no BTF: %s", g->base_btf_path, strerror(errno));
		b->target = btf__parse_elf_split(g->path, b->vmlinux);
		if (!b->target)
			die("%s: no usable .BTF split on %s (built against another vmlinux?): %s",
			    g->path, g->base_btf_path, strerror(errno));
		b->vmlinux_crc = raw_crc(b->vmlinux, &b->vmlinux_len);
	} else {
		b->target = btf__parse_elf(g->path, NULL);
		if (!b->target)
			die("%s: no .BTF section: %s", g->path, strerror(errno));
	}
	b->target_crc = raw_crc(b->target, &b->target_len);
	if (!g->is_module) {
		b->vmlinux_len = b->target_len;
		b->vmlinux_crc = b->target_crc;
	}
	if (g->is_module) {
		b->split = b->target;
	} else {
		b->split = btf__new_empty_split(b->target);
		if (!b->split)
			die("cannot create split BTF: %s", strerror(errno));
	}
	b->empty_proto = -1;
	index_target(b);
}

static int check(int id, const char *what)
{
	if (id < 0)
		die("libbpf: cannot add %s: %s", what, strerror(-id));
	return id;
}

static bool dwarf_type(Dwarf_Die *die, Dwarf_Die *out)
{
	Dwarf_Attribute a;

	return dwarf_attr_integrate(die, DW_AT_type, &a) && dwarf_formref_die(&a, out);
}

static int map_type(struct gen *g, Dwarf_Die *die, int depth);

static int map_ref(struct gen *g, Dwarf_Die *die, uint32_t kind, int depth)
{
	struct gen_btf *b = g->btf;
	Dwarf_Die inner;
	int ref = dwarf_type(die, &inner) ? map_type(g, &inner, depth + 1) : 0;
	uint8_t key[8];
	uint32_t id;

	ref_key(key, kind, (uint32_t)ref);
	if (hmap_get(&b->refs, key, sizeof(key), &id))
		return (int)id;
	switch (kind) {
	case BTF_KIND_PTR:
		id = (uint32_t)check(btf__add_ptr(b->split, ref), "pointer");
		break;
	case BTF_KIND_CONST:
		id = (uint32_t)check(btf__add_const(b->split, ref), "const");
		break;
	case BTF_KIND_VOLATILE:
		id = (uint32_t)check(btf__add_volatile(b->split, ref), "volatile");
		break;
	default:
		id = (uint32_t)check(btf__add_restrict(b->split, ref), "restrict");
		break;
	}
	hmap_put(&b->refs, key, sizeof(key), id);
	return (int)id;
}

/* A DWARF type as a BTF id of the target's BTF, added to the split if absent. */
static int map_type(struct gen *g, Dwarf_Die *die, int depth)
{
	struct gen_btf *b = g->btf;
	Dwarf_Off off = dwarf_dieoffset(die);
	const char *name = dwarf_diename(die);
	Dwarf_Attribute a;
	Dwarf_Word size = 0, enc = 0;
	Dwarf_Die inner;
	uint32_t id = 0;

	if (depth > 32)
		return 0;
	if (hmap_get(&b->type_memo, &off, sizeof(off), &id))
		return (int)id;
	switch (dwarf_tag(die)) {
	case DW_TAG_base_type:
		if (!name)
			break;
		id = get_named(b, BTF_KIND_INT, name);
		if (!id)
			id = get_named(b, BTF_KIND_FLOAT, name);
		if (!id && dwarf_attr(die, DW_AT_encoding, &a) && !dwarf_formudata(&a, &enc) &&
		    dwarf_aggregate_size(die, &size) == 0 && enc != DW_ATE_float) {
			int e = enc == DW_ATE_signed || enc == DW_ATE_signed_char ? BTF_INT_SIGNED :
				enc == DW_ATE_boolean ? BTF_INT_BOOL : 0;

			id = (uint32_t)check(btf__add_int(b->split, name, size, e), "int");
			put_named(b, BTF_KIND_INT, name, id);
		}
		break;
	case DW_TAG_pointer_type:
		id = (uint32_t)map_ref(g, die, BTF_KIND_PTR, depth);
		break;
	case DW_TAG_const_type:
		id = (uint32_t)map_ref(g, die, BTF_KIND_CONST, depth);
		break;
	case DW_TAG_volatile_type:
		id = (uint32_t)map_ref(g, die, BTF_KIND_VOLATILE, depth);
		break;
	case DW_TAG_restrict_type:
		id = (uint32_t)map_ref(g, die, BTF_KIND_RESTRICT, depth);
		break;
	case DW_TAG_typedef:
		if (!name)
			break;
		id = get_named(b, BTF_KIND_TYPEDEF, name);
		if (!id) {
			int ref = dwarf_type(die, &inner) ? map_type(g, &inner, depth + 1) : 0;

			id = (uint32_t)check(btf__add_typedef(b->split, name, ref), "typedef");
			put_named(b, BTF_KIND_TYPEDEF, name, id);
		}
		break;
	case DW_TAG_structure_type:
	case DW_TAG_union_type: {
		bool is_union = dwarf_tag(die) == DW_TAG_union_type;
		uint8_t kind = is_union ? BTF_KIND_UNION : BTF_KIND_STRUCT;

		if (!name)
			break;	/* anonymous: left untyped (void) */
		id = get_named(b, kind, name);
		if (!id) {
			id = (uint32_t)check(btf__add_fwd(b->split, name,
							  is_union ? BTF_FWD_UNION : BTF_FWD_STRUCT),
					     "forward declaration");
			put_named(b, kind, name, id);
		}
		break;
	}
	case DW_TAG_enumeration_type:
		if (name) {
			id = get_named(b, BTF_KIND_ENUM, name);
			if (!id)
				id = get_named(b, BTF_KIND_ENUM64, name);
		}
		break;
	default:
		break;	/* arrays, functions: untyped */
	}
	hmap_put(&b->type_memo, &off, sizeof(off), id);
	return (int)id;
}

/* Does the target's FUNC @id have exactly these parameter names? */
static bool func_matches(struct gen_btf *b, uint32_t id, char **names, uint32_t n)
{
	const struct btf_type *f = btf__type_by_id(b->target, id);
	const struct btf_type *p = btf__type_by_id(b->target, f->type);
	const struct btf_param *params;
	uint32_t i;

	if (!p || btf_kind(p) != BTF_KIND_FUNC_PROTO || btf_vlen(p) != n)
		return false;
	params = btf_params(p);
	for (i = 0; i < n; i++)
		if (strcmp(btf__name_by_offset(b->target, params[i].name_off) ?: "", names[i]))
			return false;
	return true;
}

uint32_t gen_btf_callee(struct gen *g, struct gen_callee *c)
{
	struct gen_btf *b = g->btf;
	char **names = xcalloc(c->nr_params, sizeof(char *));
	int *types = xcalloc(c->nr_params, sizeof(int));
	Dwarf_Die origin, pdie, t;
	struct buf sig = { 0 };
	uint32_t id = 0, i;
	int ret = 0, proto;

	if (!dwarf_offdie(g->dw, c->die, &origin))
		die("lost DIE %#llx", (unsigned long long)c->die);
	if (dwarf_type(&origin, &t))
		ret = map_type(g, &t, 0);
	for (i = 0; i < c->nr_params; i++) {
		names[i] = "";
		if (dwarf_offdie(g->dw, c->param_die[i], &pdie)) {
			names[i] = (char *)(dwarf_diename(&pdie) ?: "");
			if (dwarf_type(&pdie, &t))
				types[i] = map_type(g, &t, 0);
		}
	}

	/* the target's own FUNC when its parameters are the same */
	if (hmap_get(&b->func_head, c->name, strlen(c->name), &id)) {
		for (; id; id = b->func_next[id])
			if (func_matches(b, id, names, c->nr_params))
				goto out;
	}

	buf_add(&sig, c->name, strlen(c->name) + 1);
	buf_add(&sig, &ret, sizeof(ret));
	for (i = 0; i < c->nr_params; i++) {
		buf_add(&sig, names[i], strlen(names[i]) + 1);
		buf_add(&sig, &types[i], sizeof(types[i]));
	}
	if (hmap_get(&b->sig_memo, sig.data, sig.len, &id))
		goto out;
	proto = check(btf__add_func_proto(b->split, ret), "function prototype");
	for (i = 0; i < c->nr_params; i++)
		check(btf__add_func_param(b->split, names[i], types[i]), "parameter");
	id = (uint32_t)check(btf__add_func(b->split, c->name, BTF_FUNC_STATIC, proto), "function");
	hmap_put(&b->sig_memo, sig.data, sig.len, id);
out:
	buf_free(&sig);
	free(names);
	free(types);
	return id;
}

uint32_t gen_btf_symbol(struct gen *g, struct gen_sym *s)
{
	struct gen_btf *b = g->btf;
	char base[512];
	uint32_t fid = 0;
	int proto;

	if (s->btf_id)
		return s->btf_id;
	if (s->data) {
		s->btf_id = (uint32_t)check(btf__add_var(b->split, s->name, BTF_VAR_STATIC, 0),
					    "variable");
		return s->btf_id;
	}
	/* typed like the function it comes from: "foo" for "foo.isra.0" */
	snprintf(base, sizeof(base), "%s", s->name);
	base[strcspn(base, ".")] = '\0';
	if (hmap_get(&b->func_head, base, strlen(base), &fid)) {
		proto = (int)btf__type_by_id(b->target, fid)->type;
	} else {
		if (b->empty_proto < 0)
			b->empty_proto = check(btf__add_func_proto(b->split, 0), "prototype");
		proto = b->empty_proto;
	}
	s->btf_id = (uint32_t)check(btf__add_func(b->split, s->name, BTF_FUNC_STATIC, proto),
				    "function");
	return s->btf_id;
}

const void *gen_btf_raw(struct gen *g, uint32_t *len)
{
	const void *raw = btf__raw_data(g->btf->split, len);

	if (!raw)
		die("cannot serialize the split BTF");
	return raw;
}

void gen_btf_target_info(struct gen *g, uint32_t *btf_len, uint32_t *btf_crc,
			 uint32_t *vmlinux_len, uint32_t *vmlinux_crc)
{
	*btf_len = g->btf->target_len;
	*btf_crc = g->btf->target_crc;
	*vmlinux_len = g->btf->vmlinux_len;
	*vmlinux_crc = g->btf->vmlinux_crc;
}

void gen_btf_close(struct gen *g)
{
	struct gen_btf *b = g->btf;

	if (!b)
		return;
	if (b->split != b->target)
		btf__free(b->split);
	btf__free(b->target);
	btf__free(b->vmlinux);
	hmap_free(&b->named);
	hmap_free(&b->refs);
	hmap_free(&b->func_head);
	hmap_free(&b->type_memo);
	hmap_free(&b->sig_memo);
	free(b->func_next);
	free(b);
	g->btf = NULL;
}
