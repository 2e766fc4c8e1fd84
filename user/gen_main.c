// SPDX-License-Identifier: GPL-2.0
/*
 * inkprobe gen [--base-btf FILE] [--stats] [-o BLOB] VMLINUX|MODULE.ko
 *
 * Collects instances (gen_dwarf.c), keeps the out-of-line copies a probe
 * needs, gives every callee and caller its BTF id (gen_btf.c), merges
 * instances of one callee at one address, and writes the blob.
 */
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "gen.h"
#include "../uapi/inkprobe.h"

static const char gen_usage[] =
	"usage: inkprobe gen [--base-btf FILE] [--stats] [-o BLOB] VMLINUX|MODULE.ko\n"
	"\n"
	"Writes the inline-instance blob of a vmlinux or module that has DWARF\n"
	"(Debian: the linux-image-*-dbg vmlinux; a module build's own .ko).\n"
	"\n"
	"  -o, --output BLOB   where to write (default: <target>.inkb)\n"
	"  --base-btf FILE     for a module: the vmlinux BTF it was built against\n"
	"                      (a vmlinux ELF, or a copy of /sys/kernel/btf/vmlinux)\n"
	"  --stats             print the parameter coverage table\n";

static const struct gen *sort_gen;

static int inst_name_cmp(const void *a, const void *b)
{
	const struct gen_inst *x = a, *y = b;
	const struct gen *g = sort_gen;
	const struct gen_callee *cx = &g->callees[x->callee], *cy = &g->callees[y->callee];
	int c = strcmp(cx->name, cy->name);

	if (c)
		return c;
	if (cx->die != cy->die)
		return cx->die < cy->die ? -1 : 1;
	if (g->syms[x->sym].addr != g->syms[y->sym].addr)
		return g->syms[x->sym].addr < g->syms[y->sym].addr ? -1 : 1;
	if (x->pc != y->pc)
		return x->pc < y->pc ? -1 : 1;
	return (x->flags > y->flags) - (x->flags < y->flags);
}

static int inst_id_cmp(const void *a, const void *b)
{
	const struct gen_inst *x = a, *y = b;
	const struct gen *g = sort_gen;
	uint32_t ix = g->callees[x->callee].btf_id, iy = g->callees[y->callee].btf_id;

	if (ix != iy)
		return ix < iy ? -1 : 1;
	if (g->syms[x->sym].addr != g->syms[y->sym].addr)
		return g->syms[x->sym].addr < g->syms[y->sym].addr ? -1 : 1;
	if (x->pc != y->pc)
		return x->pc < y->pc ? -1 : 1;
	return (x->flags > y->flags) - (x->flags < y->flags);
}

static void free_inst(struct gen_inst *in)
{
	free(in->ranges);
	free(in->loc);
	free(in->cls);
	free(in->why);
}

static uint32_t available(const struct gen_inst *in)
{
	uint32_t i, n = 0;

	for (i = 0; i < in->nr_params; i++)
		n += in->cls[i] != LOC_CLASS_EMPTY;
	return n;
}

/*
 * Out-of-line copies get a record when a probe by name needs one beyond
 * what kprobes give: the function is also inlined somewhere, or the copy is
 * a clone (.isra/.constprop/.part: its own calling convention), or other
 * functions share its name.
 */
static void keep_out_of_line(struct gen *g)
{
	struct hmap inlined = { 0 }, names = { 0 };
	size_t i, n = 0;
	uint32_t v;

	for (i = 0; i < g->nr_insts; i++) {
		const char *name = g->callees[g->insts[i].callee].name;

		if (!(g->insts[i].flags & BTF_INLINE_EXT_OUT_OF_LINE))
			hmap_put(&inlined, name, strlen(name), 1);
	}
	for (i = 0; i < g->nr_text; i++) {
		const char *name = g->syms[g->text_idx[i]].name;

		v = 0;
		hmap_get(&names, name, strlen(name), &v);
		hmap_put(&names, name, strlen(name), v + 1);
	}
	for (i = 0; i < g->nr_insts; i++) {
		struct gen_inst *in = &g->insts[i];
		const char *sym = g->syms[in->sym].name;
		const char *callee = g->callees[in->callee].name;
		bool keep = true;

		if (in->flags & BTF_INLINE_EXT_OUT_OF_LINE) {
			v = 0;
			hmap_get(&names, sym, strlen(sym), &v);
			keep = hmap_get(&inlined, callee, strlen(callee), &v) ||
			       strchr(sym, '.') || v > 1;
		}
		if (keep)
			g->insts[n++] = *in;
		else
			free_inst(in);
	}
	g->nr_insts = n;
	hmap_free(&inlined);
	hmap_free(&names);
}

/* Instances of one callee at one address become one record. */
static void merge_same_address(struct gen *g)
{
	size_t i, n = 0;

	for (i = 0; i < g->nr_insts; i++) {
		struct gen_inst *in = &g->insts[i];

		if (n) {
			struct gen_inst *prev = &g->insts[n - 1];

			if (g->callees[prev->callee].btf_id == g->callees[in->callee].btf_id &&
			    prev->sym == in->sym && prev->pc == in->pc) {
				if (available(in) > available(prev)) {
					struct gen_inst t = *prev;

					*prev = *in;
					*in = t;
				}
				free_inst(in);
				g->stats.merged++;
				continue;
			}
		}
		g->insts[n++] = *in;
	}
	g->nr_insts = n;
}

static void finalize(struct gen *g)
{
	size_t i;

	keep_out_of_line(g);
	sort_gen = g;
	qsort(g->insts, g->nr_insts, sizeof(*g->insts), inst_name_cmp);
	for (i = 0; i < g->nr_insts; i++) {
		struct gen_callee *c = &g->callees[g->insts[i].callee];

		if (!c->btf_id)
			c->btf_id = gen_btf_callee(g, c);
	}
	qsort(g->insts, g->nr_insts, sizeof(*g->insts), inst_id_cmp);
	merge_same_address(g);
	for (i = 0; i < g->nr_insts; i++)
		g->syms[g->insts[i].sym].used = true;
	/* symbol FUNC/VARs last, in address order: SYMBOLS is sorted by id */
	for (i = 0; i < g->nr_syms; i++)
		if (g->syms[i].used)
			gen_btf_symbol(g, &g->syms[i]);
}

static void print_stats(struct gen *g, FILE *f)
{
	uint64_t total = 0, cum = 0;
	size_t i, j;

	memset(g->stats.params, 0, sizeof(g->stats.params));
	memset(g->stats.empty, 0, sizeof(g->stats.empty));
	g->stats.inlined = g->stats.out_of_line = 0;
	for (i = 0; i < g->nr_insts; i++) {
		const struct gen_inst *in = &g->insts[i];

		if (in->flags & BTF_INLINE_EXT_OUT_OF_LINE)
			g->stats.out_of_line++;
		else
			g->stats.inlined++;
		for (j = 0; j < in->nr_params; j++) {
			g->stats.params[in->cls[j]]++;
			if (in->cls[j] == LOC_CLASS_EMPTY)
				g->stats.empty[in->why[j]]++;
			total++;
		}
	}
	fprintf(f, "%s: %zu records (%llu inlined, %llu out-of-line), %llu merged, "
		"%llu skipped (%llu in init/exit code, %llu outside symbols)\n",
		g->target_name, g->nr_insts, (unsigned long long)g->stats.inlined,
		(unsigned long long)g->stats.out_of_line, (unsigned long long)g->stats.merged,
		(unsigned long long)(g->stats.skipped_init + g->stats.skipped_no_symbol),
		(unsigned long long)g->stats.skipped_init,
		(unsigned long long)g->stats.skipped_no_symbol);
	fprintf(f, "%-18s %12s %8s %12s %8s\n", "Op. Category", "Count", "%", "Cumulative", "%");
	fprintf(f, "--------------------------------------------------------------\n");
	for (i = 0; i < NR_LOC_CLASSES; i++) {
		uint64_t c = g->stats.params[i];

		if (i != LOC_CLASS_EMPTY)
			cum += c;
		fprintf(f, "%-18s %12llu %7.2f%%", loc_class_names[i], (unsigned long long)c,
			total ? 100.0 * (double)c / (double)total : 0.0);
		if (i != LOC_CLASS_EMPTY)
			fprintf(f, " %12llu %7.2f%%", (unsigned long long)cum,
				total ? 100.0 * (double)cum / (double)total : 0.0);
		fputc('\n', f);
	}
	fprintf(f, "%-18s %12llu\n", "parameters", (unsigned long long)total);
	fprintf(f, "empty, by reason:\n");
	for (i = 0; i < NR_EMPTY_REASONS; i++)
		if (g->stats.empty[i])
			fprintf(f, "  %-44s %10llu\n", loc_empty_names[i],
				(unsigned long long)g->stats.empty[i]);
}

int cmd_gen(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "base-btf", required_argument, NULL, 'b' },
		{ "stats", no_argument, NULL, 's' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	struct gen g = { 0 };
	const char *out = NULL;
	char def_out[96];
	bool stats = false;
	int c;

	while ((c = getopt_long(argc, argv, "o:h", opts, NULL)) != -1) {
		switch (c) {
		case 'o':
			out = optarg;
			break;
		case 'b':
			g.base_btf_path = optarg;
			break;
		case 's':
			stats = true;
			break;
		case 'h':
			fputs(gen_usage, stdout);
			return 0;
		default:
			fputs(gen_usage, stderr);
			return 2;
		}
	}
	if (optind + 1 != argc) {
		fputs(gen_usage, stderr);
		return 2;
	}
	g.path = argv[optind];
	gen_open(&g);
	gen_btf_open(&g);
	gen_collect(&g);
	finalize(&g);
	if (!out) {
		snprintf(def_out, sizeof(def_out), "%s.inkb", g.target_name);
		out = def_out;
	}
	gen_write_blob(&g, out);
	if (stats)
		print_stats(&g, stdout);
	gen_btf_close(&g);
	gen_close(&g);
	return 0;
}
