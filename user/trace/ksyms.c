// SPDX-License-Identifier: GPL-2.0
/*
 * /proc/kallsyms, sorted by address.  Sizes as the kernel's %pS computes
 * them: to the next symbol (of any type) of vmlinux, or of the same module;
 * a module's last text symbol before a non-text one ends where the module's
 * text ends, which /proc/kallsyms does not say: no size then.
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ksyms.h"
#include "../common/util.h"

struct ksym {
	uint64_t addr;
	const char *name;
	const char *module;	/* NULL: vmlinux */
	uint32_t prev;		/* the symbol of that name and module before it, or NONE */
	int dup_index;
	bool text;
};

#define NONE	UINT32_MAX

struct ksyms {
	struct ksym *syms;	/* in the file's order */
	size_t nr;
	uint32_t *by_addr;	/* syms indices by address, then file order */
	uint32_t *names;	/* hash of module and name: the last such symbol, or NONE */
	size_t nr_names;	/* slots: a power of two */
	char *text;		/* the file, its names cut out in place */
	char **modules;		/* distinct module names */
	size_t nr_modules;
};

void ksyms_free(struct ksyms *k)
{
	size_t i;

	if (!k)
		return;
	for (i = 0; i < k->nr_modules; i++)
		free(k->modules[i]);
	free(k->modules);
	free(k->syms);
	free(k->by_addr);
	free(k->names);
	free(k->text);
	free(k);
}

static int cmp_addr(const void *a, const void *b, void *ctx)
{
	const struct ksym *syms = ctx;
	uint32_t i = *(const uint32_t *)a, j = *(const uint32_t *)b;

	if (syms[i].addr != syms[j].addr)
		return syms[i].addr < syms[j].addr ? -1 : 1;
	return (i > j) - (i < j);
}

/* One pointer per module name, so that modules compare by pointer. */
static const char *module_of(struct ksyms *k, const char *name)
{
	size_t i;

	for (i = k->nr_modules; i-- > 0;)
		if (!strcmp(k->modules[i], name))
			return k->modules[i];
	k->modules = realloc(k->modules, (k->nr_modules + 1) * sizeof(*k->modules));
	if (!k->modules)
		return NULL;
	k->modules[k->nr_modules] = strdup(name);
	return k->modules[k->nr_modules++];
}

/* FNV-1a of @name, mixed with its module's pointer. */
static size_t name_hash(const char *module, const char *name)
{
	uint64_t h = 0xcbf29ce484222325ULL ^ (uint64_t)(uintptr_t)module;

	for (; *name; name++)
		h = (h ^ (unsigned char)*name) * 0x100000001b3ULL;
	return (size_t)(h ^ h >> 29);
}

/* The slot of @module's @name in k->names: its symbol's, or the empty one to take. */
static uint32_t *name_slot(const struct ksyms *k, const char *module, const char *name)
{
	size_t i = name_hash(module, name) & (k->nr_names - 1);

	for (;; i = (i + 1) & (k->nr_names - 1)) {
		const struct ksym *s;

		if (k->names[i] == NONE)
			return &k->names[i];
		s = &k->syms[k->names[i]];
		if (s->module == module && !strcmp(s->name, name))
			return &k->names[i];
	}
}

/*
 * Each symbol's duplicate index (the symbols of its name in its module
 * before it in the file) and the one before it.
 */
static int index_names(struct ksyms *k)
{
	size_t i;

	for (k->nr_names = 1024; k->nr_names < 2 * k->nr; k->nr_names *= 2)
		;
	k->names = malloc(k->nr_names * sizeof(*k->names));
	if (!k->names)
		return -1;
	memset(k->names, 0xff, k->nr_names * sizeof(*k->names));
	for (i = 0; i < k->nr; i++) {
		struct ksym *s = &k->syms[i];
		uint32_t *slot = name_slot(k, s->module, s->name);

		s->prev = *slot;
		s->dup_index = *slot == NONE ? 0 : k->syms[*slot].dup_index + 1;
		*slot = (uint32_t)i;
	}
	return 0;
}

/*
 * k->by_addr: the file is sorted by address but for its tail (modules,
 * BPF programs): sort the tail alone and merge the two.
 */
static int index_addrs(struct ksyms *k)
{
	uint32_t *tail, *out = malloc(k->nr * sizeof(*out));
	size_t i, sorted, a, b, n = 0;

	if (!out)
		return -1;
	for (i = 0; i < k->nr; i++)
		out[i] = (uint32_t)i;
	for (sorted = 1; sorted < k->nr && k->syms[sorted - 1].addr <= k->syms[sorted].addr;
	     sorted++)
		;
	if (sorted >= k->nr) {
		k->by_addr = out;
		return 0;
	}
	tail = out + sorted;
	qsort_r(tail, k->nr - sorted, sizeof(*tail), cmp_addr, k->syms);
	k->by_addr = malloc(k->nr * sizeof(*k->by_addr));
	if (!k->by_addr) {
		free(out);
		return -1;
	}
	/* the head's indices are the smaller: it goes first among equal addresses */
	for (a = 0, b = 0; a < sorted || b < k->nr - sorted;) {
		if (b == k->nr - sorted ||
		    (a < sorted && k->syms[out[a]].addr <= k->syms[tail[b]].addr))
			k->by_addr[n++] = out[a++];
		else
			k->by_addr[n++] = tail[b++];
	}
	free(out);
	return 0;
}

struct ksyms *ksyms_load(void)
{
	const char *path = getenv("INKPROBE_KALLSYMS");
	struct ksyms *k = calloc(1, sizeof(*k));
	char *line, *next, *name, *mod, type, *text;
	size_t cap = 0, len;
	unsigned long long addr;
	bool any = false;

	if (!k)
		return NULL;
	/* one buffer, read in large pieces: each read of /proc/kallsyms is a system call */
	text = (char *)read_whole_file(path && *path ? path : "/proc/kallsyms", &len,
				       (size_t)1 << 30);
	if (!text)
		goto fail;
	k->text = realloc(text, len + 1);
	if (!k->text) {
		free(text);
		goto fail;
	}
	k->text[len] = '\0';
	for (line = k->text; *line; line = next) {
		struct ksym *s;
		char *sp, *end;

		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		else
			next = line + strlen(line);
		addr = strtoull(line, &end, 16);
		if (end == line || end[0] != ' ' || !end[1] || end[2] != ' ')
			continue;
		type = end[1];
		name = end + 3;
		mod = NULL;
		sp = strchr(name, '\t');
		if (sp) {
			*sp = '\0';
			mod = sp + 1;
			if (*mod == '[')
				mod++;
			mod[strcspn(mod, "]")] = '\0';
		}
		if (type == 'U' || type == 'u' || !*name)
			continue;
		if (k->nr == cap) {
			cap = cap ? 2 * cap : 65536;
			s = realloc(k->syms, cap * sizeof(*s));
			if (!s)
				goto fail;
			k->syms = s;
		}
		s = &k->syms[k->nr];
		s->addr = addr;
		s->name = name;
		s->module = mod ? module_of(k, mod) : NULL;
		if (mod && !s->module)
			goto fail;
		s->text = strchr("tTwW", type) != NULL;
		k->nr++;
		any |= addr != 0;
	}
	if (!any || k->nr >= NONE || index_names(k) || index_addrs(k))
		goto fail;
	return k;
fail:
	ksyms_free(k);
	return NULL;
}

/* The @i-th symbol by address. */
static const struct ksym *nth(const struct ksyms *k, size_t i)
{
	return &k->syms[k->by_addr[i]];
}

bool ksyms_lookup(struct ksyms *k, uint64_t addr, struct ink_sym *out)
{
	size_t lo = 0, hi, i, j;
	const struct ksym *s;

	memset(out, 0, sizeof(*out));
	out->dup_index = -1;
	if (!k || !k->nr)
		return false;
	hi = k->nr;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (nth(k, mid)->addr <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	/* the last text symbol at or below @addr (kallsyms names the first at an address) */
	for (i = lo; i-- > 0;) {
		if (!nth(k, i)->text)
			continue;
		while (i && nth(k, i - 1)->addr == nth(k, i)->addr && nth(k, i - 1)->text)
			i--;
		break;
	}
	if (i == (size_t)-1 || !nth(k, i)->text)
		return false;
	s = nth(k, i);
	out->name = s->name;
	out->start = s->addr;
	out->module = s->module;
	out->module_known = true;
	out->dup_index = s->dup_index;
	for (j = i + 1; j < k->nr; j++) {
		const struct ksym *n = nth(k, j);

		if (n->module != s->module || n->addr == s->addr)
			continue;
		if (s->module && !n->text)
			break;	/* the module's text may end before it */
		out->size = n->addr - s->addr;
		break;
	}
	/* beyond the symbol, as far as anybody knows: not this symbol */
	if (out->size && addr >= s->addr + out->size)
		return memset(out, 0, sizeof(*out)), out->dup_index = -1, false;
	return true;
}

uint64_t ksyms_addr_of(const struct ksyms *k, const char *module, const char *name,
		       int dup_index)
{
	uint32_t i;
	size_t m;

	if (!k || !k->nr)
		return 0;
	if (module) {
		for (m = 0; m < k->nr_modules && strcmp(k->modules[m], module); m++)
			;
		if (m == k->nr_modules)
			return 0;
		module = k->modules[m];
	}
	for (i = *name_slot(k, module, name); i != NONE; i = k->syms[i].prev)
		if (k->syms[i].dup_index == dup_index)
			return k->syms[i].addr;
	return 0;
}
