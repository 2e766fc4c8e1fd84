// SPDX-License-Identifier: GPL-2.0
/*
 * gen --base-btf: is the vmlinux BTF given the one the module was built
 * against?  A module's .BTF is split BTF: its type ids and string offsets
 * below the base's counts point into the base, and libbpf accepts any base
 * they fit in.  Another build's base gives wrong names and types without an
 * error, so gen refuses it:
 *
 *   - release: the module's vermagic release against the vmlinux's
 *     linux_banner (its symbol, or the first banner in .rodata), when the
 *     base is a vmlinux ELF file;
 *   - strings: every base string offset the module uses starts a string;
 *   - kinds: every type the module refers to has a kind that fits the
 *     reference (a FUNC's type is a FUNC_PROTO, a member's or variable's
 *     type is a data type, a DATASEC lists VARs), and every member of the
 *     module's structs fits in its struct.
 *
 * What it cannot see: a base of the same release whose differences leave
 * every offset, id and kind the module uses in place (a type renamed to a
 * name of the same length that sorts the same).
 */
#include <bpf/btf.h>
#include <fcntl.h>
#include <gelf.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "gen.h"

#define BANNER	"Linux version "

/* The bytes of symbol @name (its section's data) in ELF @path, or NULL. */
static char *elf_symbol_text(const char *path, const char *name, size_t max)
{
	Elf_Scn *scn = NULL;
	char *out = NULL;
	GElf_Shdr sh;
	Elf *elf;
	int fd = open(path, O_RDONLY);

	if (fd < 0)
		return NULL;
	elf_version(EV_CURRENT);
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	while (elf && !out && (scn = elf_nextscn(elf, scn))) {
		Elf_Data *d = elf_getdata(scn, NULL);
		size_t i, n;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_SYMTAB || !d)
			continue;
		n = sh.sh_size / sh.sh_entsize;
		for (i = 0; i < n && !out; i++) {
			GElf_Sym s;
			GElf_Shdr ts;
			Elf_Scn *tscn;
			Elf_Data *td;
			const char *sn;

			if (!gelf_getsym(d, (int)i, &s) || s.st_shndx == SHN_UNDEF ||
			    s.st_shndx >= SHN_LORESERVE)
				continue;
			sn = elf_strptr(elf, sh.sh_link, s.st_name);
			if (!sn || strcmp(sn, name))
				continue;
			tscn = elf_getscn(elf, s.st_shndx);
			td = tscn ? elf_getdata(tscn, NULL) : NULL;
			if (!td || !gelf_getshdr(tscn, &ts) || ts.sh_type == SHT_NOBITS ||
			    s.st_value < ts.sh_addr || s.st_value - ts.sh_addr >= td->d_size)
				break;
			n = td->d_size - (s.st_value - ts.sh_addr);
			out = strndup((const char *)td->d_buf + (s.st_value - ts.sh_addr),
				      n < max ? n : max);
		}
	}
	if (elf)
		elf_end(elf);
	close(fd);
	return out;
}

/*
 * The value of "@key=" in ELF @path's .modinfo, or with @key NULL the text
 * after the first "Linux version " in .rodata (a vmlinux without symbols
 * has linux_banner there); NULL if absent.
 */
static char *section_text(const char *path, const char *key)
{
	Elf_Scn *scn = NULL;
	char *out = NULL;
	size_t shstrndx;
	GElf_Shdr sh;
	Elf *elf;
	int fd = open(path, O_RDONLY);

	if (fd < 0)
		return NULL;
	elf_version(EV_CURRENT);
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (elf && elf_getshdrstrndx(elf, &shstrndx))
		shstrndx = 0;
	while (elf && shstrndx && !out && (scn = elf_nextscn(elf, scn))) {
		Elf_Data *d = elf_getdata(scn, NULL);
		const char *p, *end, *sn;
		size_t klen;

		if (!gelf_getshdr(scn, &sh) || !d || sh.sh_type == SHT_NOBITS)
			continue;
		sn = elf_strptr(elf, shstrndx, sh.sh_name);
		if (!sn || strcmp(sn, key ? ".modinfo" : ".rodata"))
			continue;
		p = d->d_buf;
		end = p + d->d_size;
		if (!key) {
			p = memmem(p, d->d_size, BANNER, strlen(BANNER));
			if (p)
				out = strndup(p + strlen(BANNER), end - p - strlen(BANNER));
			break;
		}
		klen = strlen(key);
		for (; p < end && !out; p += strnlen(p, end - p) + 1)
			if ((size_t)(end - p) > klen && !strncmp(p, key, klen) && p[klen] == '=')
				out = strndup(p + klen + 1, end - p - klen - 1);
	}
	if (elf)
		elf_end(elf);
	close(fd);
	return out;
}

/* The first space-separated word of @s (in place). */
static char *first_word(char *s)
{
	s[strcspn(s, " ")] = '\0';
	return s;
}

char *gen_module_release(const char *module)
{
	char *vermagic = section_text(module, "vermagic");

	return vermagic ? first_word(vermagic) : NULL;
}

char *gen_vmlinux_release(const char *vmlinux)
{
	char *banner = elf_symbol_text(vmlinux, "linux_banner", 256), *release;

	if (banner && !strncmp(banner, BANNER, strlen(BANNER))) {
		release = strdup(banner + strlen(BANNER));
		free(banner);
	} else {
		free(banner);
		release = section_text(vmlinux, NULL);
	}
	return release ? first_word(release) : NULL;
}

static void check_release(const char *module, const char *base, const char *what)
{
	char *mod_rel = gen_module_release(module);
	char *base_rel = gen_vmlinux_release(base);

	if (mod_rel && base_rel && strcmp(mod_rel, base_rel))
		die("%s was built for %s, but the %s %s is %s: give the "
		    "vmlinux (or its BTF) the module was built against",
		    module, mod_rel, what, base, base_rel);
	free(mod_rel);
	free(base_rel);
}

struct base_check {
	const struct btf *btf;		/* the module's, on the base */
	const char *strs;		/* the base's strings */
	uint32_t str_len;
	uint32_t nr_base;		/* the base's types, void included */
	const char *bad;		/* what was wrong, first */
	uint32_t bad_id;
};

static void fail(struct base_check *c, uint32_t id, const char *what)
{
	if (!c->bad) {
		c->bad = what;
		c->bad_id = id;
	}
}

static void check_str(struct base_check *c, uint32_t id, uint32_t off)
{
	if (off && off < c->str_len && c->strs[off - 1])
		fail(c, id, "a name in the middle of a base string");
}

enum ref_need { NEED_ANY, NEED_DATA, NEED_PROTO, NEED_VAR };

static void check_ref(struct base_check *c, uint32_t id, uint32_t ref, enum ref_need need)
{
	const struct btf_type *t;
	int kind;

	if (!ref) {
		if (need == NEED_PROTO || need == NEED_VAR)
			fail(c, id, "void where a type is needed");
		return;
	}
	t = btf__type_by_id(c->btf, ref);
	if (!t) {
		fail(c, id, "a type id out of range");
		return;
	}
	kind = btf_kind(t);
	switch (need) {
	case NEED_ANY:
		break;
	case NEED_DATA:
		if (kind == BTF_KIND_FUNC || kind == BTF_KIND_FUNC_PROTO || kind == BTF_KIND_VAR ||
		    kind == BTF_KIND_DATASEC || kind == BTF_KIND_DECL_TAG)
			fail(c, id, "a member, variable or element of no data type");
		break;
	case NEED_PROTO:
		if (kind != BTF_KIND_FUNC_PROTO)
			fail(c, id, "a FUNC whose type is no FUNC_PROTO");
		break;
	case NEED_VAR:
		if (kind != BTF_KIND_VAR)
			fail(c, id, "a DATASEC entry that is no VAR");
		break;
	}
}

/* Members of struct/union @id: names, data types, inside the struct. */
static void check_members(struct base_check *c, uint32_t id, const struct btf_type *t)
{
	const struct btf_member *m = btf_members(t);
	uint16_t i, n = btf_vlen(t);

	for (i = 0; i < n; i++, m++) {
		uint32_t bits = btf_member_bitfield_size(t, i);
		uint64_t end;
		__s64 size;

		check_str(c, id, m->name_off);
		check_ref(c, id, m->type, NEED_DATA);
		if (c->bad)
			return;
		size = btf__resolve_size(c->btf, m->type);
		if (size < 0) {
			fail(c, id, "a member of no size");
			return;
		}
		end = btf_member_bit_offset(t, i) + (bits ? bits : (uint64_t)size * 8);
		if (end > (uint64_t)t->size * 8)
			fail(c, id, "a member outside its struct");
	}
}

static void check_type(struct base_check *c, uint32_t id)
{
	const struct btf_type *t = btf__type_by_id(c->btf, id);
	uint16_t i, n = btf_vlen(t);

	check_str(c, id, t->name_off);
	switch (btf_kind(t)) {
	case BTF_KIND_PTR:
	case BTF_KIND_TYPEDEF:
		check_ref(c, id, t->type, NEED_ANY);
		break;
	case BTF_KIND_CONST:
	case BTF_KIND_VOLATILE:
	case BTF_KIND_RESTRICT:
	case BTF_KIND_TYPE_TAG:
	case BTF_KIND_DECL_TAG:
		check_ref(c, id, t->type, NEED_ANY);
		break;
	case BTF_KIND_FUNC:
		check_ref(c, id, t->type, NEED_PROTO);
		break;
	case BTF_KIND_VAR:
		check_ref(c, id, t->type, NEED_DATA);
		break;
	case BTF_KIND_ARRAY:
		check_ref(c, id, btf_array(t)->type, NEED_DATA);
		check_ref(c, id, btf_array(t)->index_type, NEED_DATA);
		break;
	case BTF_KIND_STRUCT:
	case BTF_KIND_UNION:
		check_members(c, id, t);
		break;
	case BTF_KIND_ENUM:
		for (i = 0; i < n; i++)
			check_str(c, id, btf_enum(t)[i].name_off);
		break;
	case BTF_KIND_ENUM64:
		for (i = 0; i < n; i++)
			check_str(c, id, btf_enum64(t)[i].name_off);
		break;
	case BTF_KIND_FUNC_PROTO:
		check_ref(c, id, t->type, NEED_ANY);
		for (i = 0; i < n; i++) {
			check_str(c, id, btf_params(t)[i].name_off);
			check_ref(c, id, btf_params(t)[i].type, NEED_ANY);
		}
		break;
	case BTF_KIND_DATASEC:
		for (i = 0; i < n; i++)
			check_ref(c, id, btf_var_secinfos(t)[i].type, NEED_VAR);
		break;
	default:
		break;
	}
}

void gen_check_base(const char *module, const char *base_path, const char *what,
		    const struct btf *base, const struct btf *mod)
{
	struct base_check c = { .btf = mod };
	const struct btf_header *h;
	const char *raw;
	uint32_t len, id, n = btf__type_cnt(mod);

	check_release(module, base_path, what);
	raw = btf__raw_data(base, &len);
	if (!raw)
		die("cannot serialize BTF");
	h = (const struct btf_header *)raw;
	c.strs = raw + h->hdr_len + h->str_off;
	c.str_len = h->str_len;
	c.nr_base = btf__type_cnt(base);
	for (id = c.nr_base; id < n && !c.bad; id++)
		check_type(&c, id);
	if (c.bad)
		die("%s's BTF does not fit the %s %s (%s, type %u): give the vmlinux "
		    "(or its BTF) the module was built against", module, what, base_path, c.bad,
		    c.bad_id);
}
