// SPDX-License-Identifier: GPL-2.0
/*
 * The BTF side of inkprobe gen (libbpf).  The blob's BTF is always split
 * on the vmlinux BTF: for vmlinux it starts empty, for a module it is the
 * module's own .BTF (split on the vmlinux BTF given with --base-btf),
 * extended in place.  libbpf cannot stack a split BTF on a split BTF, and
 * the kernel then needs only /sys/kernel/btf/vmlinux as the base.  It adds
 *   - FUNC + FUNC_PROTO for callees the target's BTF lacks (fully inlined
 *     functions) or describes differently (a static function of the same
 *     name with other parameters); a FUNC_PROTO already in the target's BTF,
 *     or added before, is used again;
 *   - one FUNC per caller symbol the target's BTF cannot name: clones
 *     ("foo.isra.0", "foo.cold") and static functions sharing a name, typed
 *     like the function they come from (a caller whose name is unique and
 *     has one FUNC in the target's BTF is named by that FUNC);
 *   - one VAR per data symbol a location expression addresses.
 * Types come as type keys (callee.c), so no DWARF is read here.
 */
#include <bpf/btf.h>
#include <dwarf.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "debug_file.h"
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
	struct hmap type_memo;		/* type key -> BTF id */
	struct hmap proto_memo;		/* return id + (name, type id)... -> FUNC_PROTO id */
	struct hmap sig_memo;		/* name + FUNC_PROTO id -> FUNC id */
	uint32_t first_own;		/* the target's first own type id */
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
		/* libbpf leaves a name offset out of range to its reader */
		const char *name = btf__name_by_offset(b->target, t->name_off) ?: "";
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
		case BTF_KIND_FUNC_PROTO:
			break;		/* indexed on first use */
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
		struct elf_file_info info;
		char why[256];

		/*
		 * kbuild of 7.2 gives an out-of-tree module a distilled base
		 * (.BTF.base) its .BTF is split on; the kernel relocates it
		 * onto vmlinux's BTF at load.  gen cannot relocate it yet.
		 */
		if (elf_file_inspect(g->path, &info, why, sizeof(why)) && info.has_btf_base)
			die("%s: its .BTF is split on a distilled base (.BTF.base), which gen does "
			    "not relocate onto vmlinux's BTF: build the module with "
			    "RESOLVE_BTFIDS_FLAGS= (no --distill_base)", g->path);
		if (!g->base_btf_path) {
			g->base_btf_path = g->found_base_btf = base_btf_find(g->elf_path, g->sysroot);
			g->base_btf_what = "base BTF found by release";
			warnx("%s: base BTF %s (found by release)", g->path, g->base_btf_path);
		}
		btf_file_check(g->base_btf_path, g->base_btf_what);
		b->vmlinux = btf__parse(g->base_btf_path, NULL);
		if (!b->vmlinux)
			die("%s: no BTF: %s", g->base_btf_path, strerror(errno));
		b->target = btf__parse_elf_split(g->elf_path, b->vmlinux);
		if (!b->target)
			die("%s: no usable .BTF split on %s (built against another vmlinux?): %s",
			    g->path, g->base_btf_path, strerror(errno));
		gen_check_base(g->path, g->base_btf_path, g->base_btf_what, b->vmlinux, b->target);
		b->vmlinux_crc = raw_crc(b->vmlinux, &b->vmlinux_len);
	} else {
		b->target = btf__parse_elf(g->elf_path, NULL);
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
	b->first_own = g->is_module ? btf__type_cnt(b->vmlinux) : 1;
	index_target(b);
}

static int check(int id, const char *what)
{
	if (id < 0)
		die("libbpf: cannot add %s: %s", what, strerror(-id));
	return id;
}

/* Key of a FUNC_PROTO: return type id, then per parameter name\0 + type id. */
static void proto_key(struct buf *k, uint32_t ret, char **names, const uint32_t *types,
		      uint32_t n)
{
	uint32_t i;

	k->len = 0;
	buf_add_u32(k, ret);
	for (i = 0; i < n; i++) {
		buf_add(k, names[i], strlen(names[i]) + 1);
		buf_add_u32(k, types[i]);
	}
}

/* The target's FUNC_PROTOs, so identical new ones are not added again. */
static void index_protos(struct gen_btf *b)
{
	uint32_t n = btf__type_cnt(b->target), id, i;
	struct buf k = { 0 };
	char *names[256];
	uint32_t types[256];

	for (id = n - 1; id > 0; id--) {
		const struct btf_type *t = btf__type_by_id(b->target, id);
		const struct btf_param *p = btf_params(t);

		if (btf_kind(t) != BTF_KIND_FUNC_PROTO || btf_vlen(t) > 256)
			continue;
		for (i = 0; i < btf_vlen(t); i++) {
			names[i] = (char *)(btf__name_by_offset(b->target, p[i].name_off) ?: "");
			types[i] = p[i].type;
		}
		proto_key(&k, t->type, names, types, btf_vlen(t));
		hmap_put(&b->proto_memo, k.data, k.len, id);
	}
	buf_free(&k);
}

static uint32_t ref_type(struct gen_btf *b, uint32_t kind, uint32_t ref)
{
	uint8_t key[8];
	uint32_t id;

	ref_key(key, kind, ref);
	if (hmap_get(&b->refs, key, sizeof(key), &id))
		return id;
	switch (kind) {
	case BTF_KIND_PTR:
		id = (uint32_t)check(btf__add_ptr(b->split, (int)ref), "pointer");
		break;
	case BTF_KIND_CONST:
		id = (uint32_t)check(btf__add_const(b->split, (int)ref), "const");
		break;
	case BTF_KIND_VOLATILE:
		id = (uint32_t)check(btf__add_volatile(b->split, (int)ref), "volatile");
		break;
	default:
		id = (uint32_t)check(btf__add_restrict(b->split, (int)ref), "restrict");
		break;
	}
	hmap_put(&b->refs, key, sizeof(key), id);
	return id;
}

/* Skips one type in a key (see callee.c for the grammar). */
static const uint8_t *skip_key(const uint8_t *p, const uint8_t *end)
{
	while (p < end) {
		switch (*p++) {
		case 'P':
		case 'C':
		case 'V':
		case 'R':
			continue;
		case 'T':
			p += strnlen((const char *)p, (size_t)(end - p)) + 1;
			continue;
		case 'I':
			return p + strnlen((const char *)p, (size_t)(end - p)) + 3;
		case 'S':
		case 'U':
		case 'E':
			return p + strnlen((const char *)p, (size_t)(end - p)) + 1;
		default:
			return p;
		}
	}
	return p;
}

/* One type of a key as a BTF id of the target's BTF, added to the split if absent. */
static uint32_t map_key(struct gen_btf *b, const uint8_t **pp, const uint8_t *end)
{
	const uint8_t *p = *pp;
	const char *name;
	uint32_t id = 0, inner;
	uint8_t step;

	if (p >= end)
		return 0;
	step = *p++;
	name = (const char *)p;
	switch (step) {
	case 'P':
	case 'C':
	case 'V':
	case 'R':
		inner = map_key(b, &p, end);
		id = ref_type(b, step == 'P' ? BTF_KIND_PTR : step == 'C' ? BTF_KIND_CONST :
			      step == 'V' ? BTF_KIND_VOLATILE : BTF_KIND_RESTRICT, inner);
		break;
	case 'T':
		p += strlen(name) + 1;
		id = get_named(b, BTF_KIND_TYPEDEF, name);
		if (id) {
			p = skip_key(p, end);
		} else {
			inner = map_key(b, &p, end);
			id = (uint32_t)check(btf__add_typedef(b->split, name, (int)inner),
					     "typedef");
			put_named(b, BTF_KIND_TYPEDEF, name, id);
		}
		break;
	case 'I': {
		uint8_t size, enc;

		p += strlen(name) + 1;
		size = p[0];
		enc = p[1];
		p += 2;
		id = get_named(b, BTF_KIND_INT, name);
		if (!id)
			id = get_named(b, BTF_KIND_FLOAT, name);
		if (!id && enc != DW_ATE_float) {
			int e = enc == DW_ATE_signed || enc == DW_ATE_signed_char ? BTF_INT_SIGNED :
				enc == DW_ATE_boolean ? BTF_INT_BOOL : 0;

			id = (uint32_t)check(btf__add_int(b->split, name, size, e), "int");
			put_named(b, BTF_KIND_INT, name, id);
		}
		break;
	}
	case 'S':
	case 'U':
		p += strlen(name) + 1;
		id = get_named(b, step == 'U' ? BTF_KIND_UNION : BTF_KIND_STRUCT, name);
		if (!id) {
			id = (uint32_t)check(btf__add_fwd(b->split, name, step == 'U' ?
							  BTF_FWD_UNION : BTF_FWD_STRUCT),
					     "forward declaration");
			put_named(b, step == 'U' ? BTF_KIND_UNION : BTF_KIND_STRUCT, name, id);
		}
		break;
	case 'E':
		p += strlen(name) + 1;
		id = get_named(b, BTF_KIND_ENUM, name);
		if (!id)
			id = get_named(b, BTF_KIND_ENUM64, name);
		break;
	default:
		break;
	}
	*pp = p;
	return id;
}

static uint32_t map_type_key(struct gen_btf *b, const uint8_t *key, uint16_t len)
{
	const uint8_t *p = key;
	uint32_t id;

	if (!len)
		return 0;
	if (hmap_get(&b->type_memo, key, len, &id))
		return id;
	id = map_key(b, &p, key + len);
	hmap_put(&b->type_memo, key, len, id);
	return id;
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
	const char *name = callee_name(c);
	char **names = xcalloc(c->nr_params + 1, sizeof(char *));
	uint32_t *types = xcalloc(c->nr_params + 1, sizeof(uint32_t));
	struct buf sig = { 0 };
	struct desc_iter it;
	const uint8_t *key;
	uint32_t id = 0, i, ret, proto;
	uint16_t len;

	if (!b->proto_memo.len)
		index_protos(b);
	desc_iter_init(&it, c);
	desc_key(&it, &key, &len);
	ret = map_type_key(b, key, len);
	for (i = 0; i < c->nr_params; i++) {
		names[i] = (char *)desc_name(&it);
		desc_key(&it, &key, &len);
		types[i] = map_type_key(b, key, len);
	}

	/* the target's own FUNC when its parameters are the same */
	if (hmap_get(&b->func_head, name, strlen(name), &id)) {
		for (; id; id = b->func_next[id])
			if (func_matches(b, id, names, c->nr_params))
				goto out;
	}

	proto_key(&sig, ret, names, types, c->nr_params);
	if (!hmap_get(&b->proto_memo, sig.data, sig.len, &proto)) {
		proto = (uint32_t)check(btf__add_func_proto(b->split, (int)ret),
					"function prototype");
		for (i = 0; i < c->nr_params; i++)
			check(btf__add_func_param(b->split, names[i], (int)types[i]), "parameter");
		hmap_put(&b->proto_memo, sig.data, sig.len, proto);
	}
	sig.len = 0;
	buf_add(&sig, name, strlen(name) + 1);
	buf_add_u32(&sig, proto);
	if (hmap_get(&b->sig_memo, sig.data, sig.len, &id))
		goto out;
	id = (uint32_t)check(btf__add_func(b->split, name, BTF_FUNC_STATIC, (int)proto),
			     "function");
	hmap_put(&b->sig_memo, sig.data, sig.len, id);
out:
	buf_free(&sig);
	free(names);
	free(types);
	return id;
}

bool gen_btf_struct(struct gen *g, const char *name, uint32_t *size,
		    const char *const *members, uint32_t *offs, int n)
{
	struct btf *btf = g->btf->target;
	int id = btf__find_by_name_kind(btf, name, BTF_KIND_STRUCT);
	const struct btf_type *t;
	const struct btf_member *m;
	int i, j;

	if (id <= 0)
		return false;
	t = btf__type_by_id(btf, (uint32_t)id);
	m = btf_members(t);
	*size = t->size;
	for (i = 0; i < n; i++) {
		for (j = 0; j < btf_vlen(t); j++)
			if (!strcmp(btf__name_by_offset(btf, m[j].name_off) ?: "", members[i]))
				break;
		if (j == btf_vlen(t) || btf_member_bit_offset(t, (uint32_t)j) % 8)
			return false;
		offs[i] = btf_member_bit_offset(t, (uint32_t)j) / 8;
	}
	return true;
}

uint32_t gen_btf_symbol(struct gen *g, struct gen_sym *s, bool unique_name)
{
	struct gen_btf *b = g->btf;
	char base[512];
	uint32_t fid = 0;
	int proto;

	if (s->btf_id)
		return s->btf_id;
	/* a unique name the target's BTF has exactly one FUNC of */
	if (!s->data && unique_name &&
	    hmap_get(&b->func_head, s->name, strlen(s->name), &fid) &&
	    fid >= b->first_own && !b->func_next[fid]) {
		s->btf_id = fid;
		return fid;
	}
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
	hmap_free(&b->proto_memo);
	free(b->func_next);
	free(b);
	g->btf = NULL;
}
