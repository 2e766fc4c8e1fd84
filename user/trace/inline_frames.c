// SPDX-License-Identifier: GPL-2.0
/*
 * Inline frames from the blobs at hand: the look-up module/inline_map.c
 * makes (lib/inline_chain.c), keyed by symbol name and offset instead of
 * runtime addresses.  Per blob: its caller symbols sorted by name, each with
 * the group of instances inlined into it.
 */
#include <bpf/btf.h>
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <zlib.h>

#include "inline_frames.h"
#include "../common/blob_zstd.h"
#include "../common/build_id.h"
#include "../common/util.h"
#include "../../lib/blob.h"
#include "../../lib/btf_lite.h"
#include "../../lib/inline_chain.h"

struct caller {
	const char *name;
	u32 sym;		/* SYMBOLS index */
	const struct ink_chain_group *g;	/* its instances */
};

struct runtime {
	uint64_t addr;
	const char *name;	/* the caller's, and its SYMBOLS index: aliases in name order */
	u32 sym;
	u32 caller;		/* index in blob.callers */
};

struct blob {
	uint8_t *data;
	struct ink_blob b;
	void *raw[2];
	struct ink_btf btf[2];		/* vmlinux, then the blob's split BTF */
	char target[INKPROBE_TARGET_NAME_LEN];
	bool vmlinux;
	struct caller *callers;		/* SYMBOLS order (the groups') */
	struct caller *by_name;		/* sorted by name, then SYMBOLS index; once needed */
	u32 nr_callers;
	struct ink_chain_group *groups;	/* SYMBOLS order */
	struct ink_chain_ref *refs;
	struct runtime *runtime;	/* by address, once known (ink_frames_set_symbols) */
	u32 nr_runtime;
	bool runtime_done;
};

struct ink_frames {
	struct blob **blobs;
	unsigned int nr;
	ink_addr_of_fn addr_of;
	ink_sym_at_fn sym_at;
	void *addr_ctx;
};

void ink_frames_set_symbols(struct ink_frames *f, ink_addr_of_fn addr_of, ink_sym_at_fn sym_at,
			    void *ctx)
{
	f->addr_of = addr_of;
	f->sym_at = sym_at;
	f->addr_ctx = ctx;
}

struct ink_frames *ink_frames_new(void)
{
	return calloc(1, sizeof(struct ink_frames));
}

static void blob_free(struct blob *bl)
{
	int i;

	if (!bl)
		return;
	for (i = 0; i < 2; i++) {
		free(bl->btf[i].offs);
		free(bl->raw[i]);
	}
	free(bl->callers);
	free(bl->by_name);
	free(bl->groups);
	free(bl->refs);
	free(bl->runtime);
	free(bl->data);
	free(bl);
}

void ink_frames_free(struct ink_frames *f)
{
	unsigned int i;

	if (!f)
		return;
	for (i = 0; i < f->nr; i++)
		blob_free(f->blobs[i]);
	free(f->blobs);
	free(f);
}

unsigned int ink_frames_count(const struct ink_frames *f)
{
	return f ? f->nr : 0;
}

static int fail(char *why, size_t n, const char *fmt, const char *a, const char *b)
{
	snprintf(why, n, fmt, a, b);
	return -1;
}

/* Does @path start with raw BTF's magic (0xeb9f, little-endian)? */
static bool is_raw_btf(const char *path)
{
	unsigned char magic[2];
	FILE *fp = fopen(path, "rb");
	bool raw;

	if (!fp)
		return false;
	raw = fread(magic, 1, 2, fp) == 2 && magic[0] == 0x9f && magic[1] == 0xeb;
	fclose(fp);
	return raw;
}

/*
 * The raw BTF of @path (an ELF file or raw BTF), copied; NULL with @why.
 * Raw BTF (/sys/kernel/btf/vmlinux) is read as it is: ink_btf_open()
 * checks it, and the caller its length and CRC against the blob's; libbpf's
 * own parse of every type cost 0.16 s of a profile's 2.5 s in a TCG guest.
 */
static void *read_btf(const char *path, u32 *len, char *why, size_t why_len)
{
	struct btf *btf;
	const void *raw;
	void *copy;
	size_t n;

	if (is_raw_btf(path)) {
		copy = read_whole_file(path, &n, UINT32_MAX);
		if (copy) {
			*len = (u32)n;
			return copy;
		}
	}
	btf = btf__parse(path, NULL);
	if (!btf) {
		fail(why, why_len, "%s: no BTF%s", path, "");
		return NULL;
	}
	raw = btf__raw_data(btf, len);
	copy = raw ? malloc(*len) : NULL;
	if (copy)
		memcpy(copy, raw, *len);
	else
		fail(why, why_len, "%s: cannot read its BTF%s", path, "");
	btf__free(btf);
	return copy;
}

static int open_btf(struct blob *bl, int i, void *raw, u32 len, char *why, size_t why_len)
{
	struct ink_err err = { 0 };
	u32 *offs;

	bl->raw[i] = raw;
	if (ink_btf_open(&bl->btf[i], raw, len, i ? &bl->btf[0] : NULL, &err))
		return fail(why, why_len, "bad BTF: %s%s", err.msg, "");
	offs = calloc(bl->btf[i].nr_types + 1, sizeof(*offs));
	if (!offs)
		return fail(why, why_len, "out of memory%s%s", "", "");
	if (ink_btf_index(&bl->btf[i], offs, &err)) {
		free(offs);
		return fail(why, why_len, "bad BTF: %s%s", err.msg, "");
	}
	return 0;
}

/* Is @bl the running kernel's or a loaded module's build? */
static int check_build(const struct blob *bl, char *why, size_t why_len)
{
	const struct inkprobe_target *t = bl->b.target;
	struct build_id want = { .len = t->build_id_len }, got;
	char reason[160];
	int ret;

	memcpy(want.id, t->build_id, want.len);
	ret = bl->vmlinux ? build_id_of_kernel(&got, reason, sizeof(reason)) :
			    build_id_of_module(bl->target, &got, reason, sizeof(reason));
	if (ret)
		return fail(why, why_len, "%s%s", reason, "");
	if (!build_id_eq(&want, &got))
		return fail(why, why_len, "blob for %s: build ID differs from the %s", bl->target,
			    bl->vmlinux ? "running kernel" : "loaded module");
	return 0;
}

static int cmp_caller(const void *a, const void *b)
{
	const struct caller *x = a, *y = b;
	int c = strcmp(x->name, y->name);

	return c ? c : (x->sym > y->sym) - (x->sym < y->sym);
}

/* Instances inlined into each caller symbol. */
static int index_blob(struct blob *bl)
{
	const struct ink_blob *b = &bl->b;
	struct ink_chain_ref *all;
	u32 *per_sym, *sym_of, n, c;
	int ret = -1;

	/* one walk of the instances, not two: 0.4 s of a profile's 2.5 s in a TCG guest */
	per_sym = calloc(b->nr_syms + 1, sizeof(*per_sym));
	all = malloc((b->nr_instances + 1) * sizeof(*all));
	sym_of = malloc((b->nr_instances + 1) * sizeof(*sym_of));
	if (!per_sym || !all || !sym_of)
		goto out;
	n = ink_chain_collect(b, 0, NULL, NULL, per_sym, &bl->nr_callers, all, sym_of);
	bl->callers = calloc(bl->nr_callers + 1, sizeof(*bl->callers));
	bl->groups = calloc(bl->nr_callers + 1, sizeof(*bl->groups));
	bl->refs = calloc(n + 1, sizeof(*bl->refs));
	if (!bl->callers || !bl->groups || !bl->refs)
		goto out;
	ink_chain_layout(b, per_sym, all, sym_of, n, bl->groups, bl->refs);
	for (c = 0; c < bl->nr_callers; c++)
		bl->callers[c] = (struct caller){
			.name = ink_btf_name(&bl->btf[1], b->syms[bl->groups[c].sym].btf_id),
			.sym = bl->groups[c].sym, .g = &bl->groups[c],
		};
	ret = 0;
out:
	free(per_sym);
	free(all);
	free(sym_of);
	return ret;
}

int ink_frames_add(struct ink_frames *f, const char *path, const char *vmlinux_btf,
		   bool check, char *why, size_t why_len)
{
	struct blob *bl = calloc(1, sizeof(*bl)), **blobs;
	struct ink_err err = { 0 };
	char sysfs[160], reason[160];
	uint32_t raw_len;
	size_t len;
	void *raw;
	u32 blen;

	if (!bl)
		return fail(why, why_len, "out of memory%s%s", "", "");
	bl->data = read_whole_file(path, &len, INKPROBE_BLOB_MAX_LEN + (1 << 20));
	if (!bl->data) {
		fail(why, why_len, "%s: %s", path, strerror(errno));
		goto out;
	}
	if (blob_is_zstd(bl->data, len)) {
		uint8_t *d = blob_zstd_decompress(bl->data, (uint32_t)len, &raw_len, reason,
						  sizeof(reason));

		if (!d) {
			fail(why, why_len, "%s: invalid blob: %s", path, reason);
			goto out;
		}
		free(bl->data);
		bl->data = d;
		len = raw_len;
	}
	if (ink_blob_parse(&bl->b, bl->data, (u32)len, &err)) {
		fail(why, why_len, "%s: invalid blob: %s", path, err.msg);
		goto out;
	}
	memcpy(bl->target, bl->b.target->name, sizeof(bl->target));
	bl->target[sizeof(bl->target) - 1] = '\0';
	bl->vmlinux = !strcmp(bl->target, "vmlinux");
	if (check && check_build(bl, why, why_len))
		goto out;
	raw = read_btf(vmlinux_btf ? vmlinux_btf : "/sys/kernel/btf/vmlinux", &blen, why,
		       why_len);
	if (!raw)
		goto out;
	if (blen != bl->b.target->vmlinux_btf_len ||
	    (u32)crc32(0, raw, blen) != bl->b.target->vmlinux_btf_crc) {
		free(raw);
		fail(why, why_len, "%s: made on another vmlinux BTF than %s", path,
		     vmlinux_btf ? vmlinux_btf : "the running kernel's");
		goto out;
	}
	if (open_btf(bl, 0, raw, blen, why, why_len))
		goto out;
	if (check && !bl->vmlinux) {
		/* the loaded module's BTF must be the one the blob carries */
		snprintf(sysfs, sizeof(sysfs), "%s/kernel/btf/%s", sysfs_root(), bl->target);
		raw = read_whole_file(sysfs, &len, 64 << 20);
		if (!raw || len != bl->b.target->btf_len ||
		    (u32)crc32(0, raw, (u32)len) != bl->b.target->btf_crc) {
			free(raw);
			fail(why, why_len, "blob for %s: module BTF differs from the blob's%s",
			     bl->target, "");
			goto out;
		}
		free(raw);
	}
	raw = malloc(bl->b.btf_len + 1);
	if (!raw) {
		fail(why, why_len, "out of memory%s%s", "", "");
		goto out;
	}
	memcpy(raw, bl->b.btf, bl->b.btf_len);
	if (open_btf(bl, 1, raw, bl->b.btf_len, why, why_len))
		goto out;
	if (ink_blob_check_btf(&bl->b, &bl->btf[1], &err)) {
		fail(why, why_len, "%s: invalid blob: %s", path, err.msg);
		goto out;
	}
	if (index_blob(bl)) {
		fail(why, why_len, "out of memory%s%s", "", "");
		goto out;
	}
	blobs = realloc(f->blobs, (f->nr + 1) * sizeof(*blobs));
	if (!blobs) {
		fail(why, why_len, "out of memory%s%s", "", "");
		goto out;
	}
	f->blobs = blobs;
	f->blobs[f->nr++] = bl;
	return 0;
out:
	blob_free(bl);
	return -1;
}

static bool has_suffix(const char *s, const char *suffix)
{
	size_t n = strlen(s), m = strlen(suffix);

	return n >= m && !strcmp(s + n - m, suffix);
}

unsigned int ink_frames_add_list(struct ink_frames *f, const char *list,
				 void (*warn)(const char *path, const char *why))
{
	char *copy = list ? strdup(list) : NULL, *save = NULL, *path, why[256], file[4096];
	unsigned int added = 0;
	struct dirent *de;
	struct stat st;
	DIR *d;

	for (path = copy ? strtok_r(copy, ":", &save) : NULL; path;
	     path = strtok_r(NULL, ":", &save)) {
		if (stat(path, &st) || !S_ISDIR(st.st_mode)) {
			if (!ink_frames_add(f, path, NULL, true, why, sizeof(why)))
				added++;
			else if (warn)
				warn(path, why);
			continue;
		}
		d = opendir(path);
		while (d && (de = readdir(d))) {
			if (!has_suffix(de->d_name, ".inkb"))
				continue;
			snprintf(file, sizeof(file), "%s/%s", path, de->d_name);
			if (!ink_frames_add(f, file, NULL, true, why, sizeof(why)))
				added++;
			else if (warn)
				warn(file, why);
		}
		if (d)
			closedir(d);
	}
	free(copy);
	return added;
}

/* ------------------------------------------------------------------ */
/* Look-up                                                              */

/*
 * bl->by_name, made the first time a look-up goes by name (without
 * runtime addresses): sorting the 6.1 vmlinux's callers by name was 5 % of
 * a profile's time, which looks callers up by address.  False if out of
 * memory.
 */
static bool sort_by_name(struct blob *bl)
{
	if (bl->by_name)
		return true;
	bl->by_name = malloc((bl->nr_callers + 1) * sizeof(*bl->by_name));
	if (!bl->by_name)
		return false;
	memcpy(bl->by_name, bl->callers, bl->nr_callers * sizeof(*bl->by_name));
	qsort(bl->by_name, bl->nr_callers, sizeof(*bl->by_name), cmp_caller);
	return true;
}

/* The callers of @bl named @name: [*lo, *hi). */
static void callers_named(const struct blob *bl, const char *name, u32 *lo, u32 *hi)
{
	u32 l = 0, h = bl->nr_callers;

	while (l < h) {
		u32 mid = l + (h - l) / 2;

		if (strcmp(bl->by_name[mid].name, name) < 0)
			l = mid + 1;
		else
			h = mid;
	}
	*lo = l;
	while (l < bl->nr_callers && !strcmp(bl->by_name[l].name, name))
		l++;
	*hi = l;
}

/*
 * The caller @sym names in @bl: one, or NULL when @bl has none or cannot
 * tell which (several of that name, and the duplicate index not known).
 */
static const struct caller *caller_of(const struct blob *bl, const struct ink_sym *sym)
{
	const struct caller *found = NULL;
	u32 lo, hi, i;

	callers_named(bl, sym->name, &lo, &hi);
	for (i = lo; i < hi; i++) {
		const struct inkprobe_symbol *s = &bl->b.syms[bl->by_name[i].sym];

		if (sym->dup_index >= 0 && !bl->vmlinux &&
		    ink_symbol_dup(s) != (u32)sym->dup_index)
			continue;
		if (sym->size && ink_symbol_size(s) != INKPROBE_SYM_SIZE_MAX &&
		    ink_symbol_size(s) > sym->size)
			continue;	/* does not fit where the symbol table says */
		if (found)
			return NULL;
		found = &bl->by_name[i];
	}
	return found;
}

/*
 * Every caller symbol at the address of @c (vmlinux aliases: instance records
 * name one member of the group), into @out; how many.
 */
static unsigned int alias_group(const struct blob *bl, const struct caller *c,
				const struct caller **out, unsigned int max)
{
	s32 addr = bl->b.syms[c->sym].addr;
	unsigned int n = 0;
	u32 i;

	out[n++] = c;
	if (!bl->vmlinux)
		return n;
	for (i = 0; i < bl->nr_callers && n < max; i++)
		if (&bl->by_name[i] != c && bl->b.syms[bl->by_name[i].sym].addr == addr)
			out[n++] = &bl->by_name[i];
	return n;
}

static int cmp_runtime(const void *a, const void *b)
{
	const struct runtime *x = a, *y = b;
	int c;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	c = strcmp(x->name, y->name);
	return c ? c : (x->sym > y->sym) - (x->sym < y->sym);
}

/*
 * Whether one of @bl's symbols at blob address @addr (vmlinux: aliases) is
 * named @name; @by_addr: every symbol's index, sorted by address.
 */
static bool named_at(const struct blob *bl, const u32 *by_addr, s32 addr, const char *name)
{
	u32 lo = 0, hi = bl->b.nr_syms;

	while (lo < hi) {
		u32 mid = lo + (hi - lo) / 2;

		if (bl->b.syms[by_addr[mid]].addr < addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (; lo < bl->b.nr_syms && bl->b.syms[by_addr[lo]].addr == addr; lo++)
		if (!strcmp(ink_btf_name(&bl->btf[1], bl->b.syms[by_addr[lo]].btf_id), name))
			return true;
	return false;
}

static int cmp_sym_addr(const void *a, const void *b, void *ctx)
{
	const struct inkprobe_symbol *syms = ctx;
	s32 x = syms[*(const u32 *)a].addr, y = syms[*(const u32 *)b].addr;

	return (x > y) - (x < y);
}

/*
 * Whether the caller of symbol @s at @a is one the module's blob store
 * resolves (module/blob_store.c): the symbol table has a symbol starting
 * at @a, in @bl's target, at least as long as @s (a size not known
 * passes), for vmlinux named as one of the blob's symbols at that address.
 */
static bool resolves(const struct ink_frames *f, const struct blob *bl, const u32 *by_addr,
		     const struct inkprobe_symbol *s, uint64_t a)
{
	struct ink_sym k;

	if (!f->sym_at)
		return true;
	if (!f->sym_at(f->addr_ctx, a, &k) || k.start != a ||
	    strcmp(k.module ? k.module : "vmlinux", bl->target) ||
	    (k.size && k.size < ink_symbol_size(s)))
		return false;
	return !bl->vmlinux || (by_addr && named_at(bl, by_addr, s->addr, k.name));
}

/*
 * Each caller's address, as the module computes it: vmlinux, the anchor's
 * address (sprint_symbol) plus the symbol's offset from it; a module, the
 * dup_index-th symbol of its name in the module.  Callers the module
 * would not resolve are left out (resolves()).
 */
static void runtime_index(const struct ink_frames *f, struct blob *bl)
{
	uint64_t anchor = 0;
	u32 i, *by_addr = NULL;

	bl->runtime_done = true;
	bl->runtime = calloc(bl->nr_callers + 1, sizeof(*bl->runtime));
	if (!bl->runtime)
		return;
	if (bl->vmlinux) {
		anchor = f->addr_of(f->addr_ctx, NULL, "sprint_symbol", 0);
		if (!anchor)
			return;
		by_addr = f->sym_at ? malloc((bl->b.nr_syms + 1) * sizeof(*by_addr)) : NULL;
		for (i = 0; by_addr && i < bl->b.nr_syms; i++)
			by_addr[i] = i;
		if (by_addr)
			qsort_r(by_addr, bl->b.nr_syms, sizeof(*by_addr), cmp_sym_addr,
				(void *)bl->b.syms);
	}
	for (i = 0; i < bl->nr_callers; i++) {
		const struct inkprobe_symbol *s = &bl->b.syms[bl->callers[i].sym];
		uint64_t a = bl->vmlinux ? anchor + (int64_t)s->addr :
			f->addr_of(f->addr_ctx, bl->target, bl->callers[i].name,
				   (int)ink_symbol_dup(s));

		if (a && resolves(f, bl, by_addr, s, a))
			bl->runtime[bl->nr_runtime++] = (struct runtime){
				a, bl->callers[i].name, bl->callers[i].sym, i,
			};
	}
	free(by_addr);
	qsort(bl->runtime, bl->nr_runtime, sizeof(*bl->runtime), cmp_runtime);
}

/* The callers of @bl at address @addr (aliases), into @out; how many. */
static unsigned int callers_at(const struct ink_frames *f, struct blob *bl, uint64_t addr,
			       const struct caller **out, unsigned int max)
{
	u32 lo = 0, hi;
	unsigned int n = 0;

	if (!bl->runtime_done)
		runtime_index(f, bl);
	hi = bl->nr_runtime;
	while (lo < hi) {
		u32 mid = lo + (hi - lo) / 2;

		if (bl->runtime[mid].addr < addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (; lo < bl->nr_runtime && bl->runtime[lo].addr == addr && n < max; lo++)
		out[n++] = &bl->callers[bl->runtime[lo].caller];
	return n;
}

/* The blob and caller @sym is in; false if none (or not one). */
static bool find_caller(const struct ink_frames *f, const struct ink_sym *sym,
			const struct blob **blp, const struct caller **clp)
{
	const struct caller *c;
	unsigned int i, n = 0;

	for (i = 0; i < f->nr; i++) {
		struct blob *bl = f->blobs[i];

		if (sym->module_known &&
		    strcmp(bl->target, sym->module ? sym->module : "vmlinux"))
			continue;
		if (!sort_by_name(bl))
			continue;
		c = caller_of(bl, sym);
		if (!c)
			continue;
		*blp = bl;
		*clp = c;
		n++;
	}
	return n == 1;
}

#define MAX_ALIASES	8

unsigned int ink_frames_at(const struct ink_frames *f, const struct ink_sym *sym, uint64_t addr,
			   bool site, bool exact, const char **names, unsigned int max)
{
	const struct caller *cs[MAX_ALIASES], *c;
	const struct ink_chain_group *gs[MAX_ALIASES];
	/* the module's room (INK_MAX_INLINE_DEPTH): the same copies kept where more hold @addr */
	struct ink_chain_hit hits[INK_INLINE_DEPTH], p;
	const struct blob *bl;
	unsigned int nc, n, i;
	s64 off, first;

	if (!f || !f->nr || !sym || !sym->name || !max)
		return 0;
	if (f->addr_of && sym->module_known) {
		const char *target = sym->module ? sym->module : "vmlinux";

		for (i = 0, nc = 0; i < f->nr && !nc; i++)
			if (!strcmp(f->blobs[i]->target, target))
				nc = callers_at(f, f->blobs[i], sym->start, cs, MAX_ALIASES);
		if (!nc)
			return 0;
		bl = f->blobs[i - 1];
	} else {
		if (!find_caller(f, sym, &bl, &c))
			return 0;
		nc = alias_group(bl, c, cs, MAX_ALIASES);
	}
	for (i = 0; i < nc; i++)
		gs[i] = cs[i]->g;
	/* a return address belongs to its call instruction: look before it */
	off = (s64)(addr - sym->start) - (site || exact ? 0 : 1);
	if (site) {
		/* the module's ink_inline_site_frames(), the probed instance found by its pc */
		if (!ink_chain_probed(&bl->b, bl->refs, gs, nc, off, &p, &first))
			return 0;
		return ink_chain_site(&bl->b, &bl->btf[1], bl->refs, gs, nc, &p, first, hits,
				      sizeof(hits) / sizeof(hits[0]), names, max);
	}
	n = ink_chain_lookup(&bl->b, bl->refs, gs, nc, off, hits, sizeof(hits) / sizeof(hits[0]));
	return ink_chain_names(&bl->btf[1], hits, n, names, max);
}
