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

struct ksym {
	uint64_t addr;
	const char *name;
	const char *module;	/* NULL: vmlinux */
	unsigned int order;	/* in the file */
	int dup_index;
	bool text;
};

struct ksyms {
	struct ksym *syms;
	size_t nr;
	struct ksym *by_name;	/* by module, name, order */
	char **strings;		/* names and modules, to free */
	size_t nr_strings;
	char **modules;		/* distinct module names */
	size_t nr_modules;
};

void ksyms_free(struct ksyms *k)
{
	size_t i;

	if (!k)
		return;
	for (i = 0; i < k->nr_strings; i++)
		free(k->strings[i]);
	for (i = 0; i < k->nr_modules; i++)
		free(k->modules[i]);
	free(k->strings);
	free(k->modules);
	free(k->syms);
	free(k->by_name);
	free(k);
}

static int cmp_addr(const void *a, const void *b)
{
	const struct ksym *x = a, *y = b;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	return (x->order > y->order) - (x->order < y->order);
}

static int cmp_module_name(const void *a, const void *b)
{
	const struct ksym *x = a, *y = b;
	int c;

	if (x->module != y->module)
		return x->module < y->module ? -1 : 1;
	c = strcmp(x->name, y->name);
	return c ? c : (x->order > y->order) - (x->order < y->order);
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

struct ksyms *ksyms_load(void)
{
	const char *path = getenv("INKPROBE_KALLSYMS");
	struct ksyms *k = calloc(1, sizeof(*k));
	size_t cap = 0, scap = 0, i;
	char line[1024], *name, *mod, type;
	unsigned long long addr;
	bool any = false;
	FILE *fp;

	if (!k)
		return NULL;
	fp = fopen(path && *path ? path : "/proc/kallsyms", "r");
	if (!fp) {
		free(k);
		return NULL;
	}
	while (fgets(line, sizeof(line), fp)) {
		struct ksym *s;
		char *sp, *end;

		line[strcspn(line, "\n")] = '\0';
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
		if (k->nr_strings == scap) {
			char **p;

			scap = scap ? 2 * scap : 65536;
			p = realloc(k->strings, scap * sizeof(*p));
			if (!p)
				goto fail;
			k->strings = p;
		}
		s = &k->syms[k->nr];
		s->addr = addr;
		s->name = k->strings[k->nr_strings] = strdup(name);
		if (!s->name)
			goto fail;
		k->nr_strings++;
		s->module = mod ? module_of(k, mod) : NULL;
		if (mod && !s->module)
			goto fail;
		s->order = (unsigned int)k->nr;
		s->text = strchr("tTwW", type) != NULL;
		k->nr++;
		any |= addr != 0;
	}
	fclose(fp);
	fp = NULL;
	if (!any)
		goto fail;
	/* the duplicate index: earlier symbols of the name in the same module */
	qsort(k->syms, k->nr, sizeof(*k->syms), cmp_module_name);
	for (i = 0; i < k->nr; i++) {
		struct ksym *s = &k->syms[i];

		s->dup_index = i && s[-1].module == s->module && !strcmp(s[-1].name, s->name) ?
			s[-1].dup_index + 1 : 0;
	}
	k->by_name = malloc(k->nr * sizeof(*k->by_name));
	if (!k->by_name)
		goto fail;
	memcpy(k->by_name, k->syms, k->nr * sizeof(*k->by_name));
	qsort(k->syms, k->nr, sizeof(*k->syms), cmp_addr);
	return k;
fail:
	if (fp)
		fclose(fp);
	ksyms_free(k);
	return NULL;
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

		if (k->syms[mid].addr <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	/* the last text symbol at or below @addr (kallsyms names the first at an address) */
	for (i = lo; i-- > 0;) {
		if (!k->syms[i].text)
			continue;
		while (i && k->syms[i - 1].addr == k->syms[i].addr && k->syms[i - 1].text)
			i--;
		break;
	}
	if (i == (size_t)-1 || !k->syms[i].text)
		return false;
	s = &k->syms[i];
	out->name = s->name;
	out->start = s->addr;
	out->module = s->module;
	out->module_known = true;
	out->dup_index = s->dup_index;
	for (j = i + 1; j < k->nr; j++) {
		const struct ksym *n = &k->syms[j];

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
	struct ksym key = { .name = name };
	size_t lo = 0, hi, i;

	if (!k || !k->by_name)
		return 0;
	if (module) {
		for (i = 0; i < k->nr_modules && strcmp(k->modules[i], module); i++)
			;
		if (i == k->nr_modules)
			return 0;
		key.module = k->modules[i];
	}
	key.order = 0;
	hi = k->nr;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (cmp_module_name(&k->by_name[mid], &key) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (i = lo; i < k->nr && k->by_name[i].module == key.module &&
	     !strcmp(k->by_name[i].name, name); i++)
		if (k->by_name[i].dup_index == dup_index)
			return k->by_name[i].addr;
	return 0;
}
