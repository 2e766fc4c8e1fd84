// SPDX-License-Identifier: GPL-2.0
/*
 * inkprobe gen [--base-btf FILE] [--debug-file FILE] [--sysroot DIR] [--stats]
 *              [--no-ranges] [--verbose-exits] [--raw] [-j N] [-o BLOB]
 *              VMLINUX|MODULE.ko | --build-id HEX | --running-kernel | --module NAME
 *
 * Collects instances (gen_dwarf.c), keeps the out-of-line copies a probe
 * needs, gives every callee and caller its BTF id (gen_btf.c), merges
 * instances of one callee at one address, finds each inlined instance's
 * exits (instance_exits.c), and writes the blob (blob_writer.c: a zstd
 * frame around it unless --raw).
 */
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../common/blob_zstd.h"
#include "gen.h"
#include "../../uapi/inkprobe.h"

static const char gen_usage[] =
	"usage: inkprobe gen [--base-btf FILE] [--debug-file FILE] [--sysroot DIR] [--stats]\n"
	"                    [--no-ranges] [--verbose-exits] [--raw] [-j N] [-o BLOB]\n"
	"                    VMLINUX|MODULE.ko\n"
	"\n"
	"Writes the inline-instance blob of a vmlinux or module, compressed with\n"
	"zstd.  The DWARF comes from the file itself, or from its separate debug\n"
	"file: --debug-file, else found by build ID, .gnu_debuglink or kernel\n"
	"release under /usr/lib/debug (Documentation/debug-files.rst).\n"
	"\n"
	"  -o, --output BLOB   where to write (default: <target>.inkb)\n"
	"  --base-btf FILE     for a module: the vmlinux BTF it was built against\n"
	"                      (a vmlinux ELF, or a copy of /sys/kernel/btf/vmlinux);\n"
	"                      default: found by the module's release\n"
	"  --debug-file FILE   the DWARF of a stripped VMLINUX or MODULE.ko\n"
	"                      (an only-keep-debug file, or the unstripped file)\n"
	"  --sysroot DIR       look for debug files and vmlinux under DIR, not /\n"
	"  --stats             print the parameter coverage table and section sizes\n"
	"  --no-ranges         leave out instances' address ranges (smaller blob)\n"
	"                      and so their exits\n"
	"  --verbose-exits     say why each inlined instance without exits has none\n"
	"  --raw               write the blob uncompressed\n"
	"  -j, --jobs N        worker threads for a vmlinux (default: CPUs, at most 8)\n"
	"\n"
	"Or the DWARF by build ID from the debuginfod servers in DEBUGINFOD_URLS,\n"
	"instead of VMLINUX|MODULE.ko (Documentation/debuginfod.rst):\n"
	"  --build-id HEX      the vmlinux or module of this GNU build ID\n"
	"  --running-kernel    this machine's kernel (/sys/kernel/notes)\n"
	"  --module NAME       the loaded module NAME (/sys/module/NAME/notes);\n"
	"                      --base-btf defaults to /sys/kernel/btf/vmlinux\n";

static const struct gen *sort_gen;

/* Callees by name, then DIE offset: the order their BTF ids are given in. */
static int callee_cmp(const void *a, const void *b)
{
	const struct gen_callee *x = &sort_gen->callees[*(const uint32_t *)a];
	const struct gen_callee *y = &sort_gen->callees[*(const uint32_t *)b];
	int c = strcmp(callee_name(x), callee_name(y));

	if (c)
		return c;
	return (x->die > y->die) - (x->die < y->die);
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
	if (x->flags != y->flags)
		return x->flags < y->flags ? -1 : 1;
	/* NO_PROBE records are not merged: their ranges order them */
	if (x->nr_ranges && y->nr_ranges &&
	    g->ranges[x->range].start != g->ranges[y->range].start)
		return g->ranges[x->range].start < g->ranges[y->range].start ? -1 : 1;
	return (x->nr_ranges > y->nr_ranges) - (x->nr_ranges < y->nr_ranges);
}

static uint32_t available(const struct gen *g, const struct gen_inst *in)
{
	uint32_t i, n = 0;

	for (i = 0; i < in->nr_params; i++)
		n += g->params.cls[in->param + i] != LOC_CLASS_EMPTY;
	return n;
}

/*
 * Out-of-line copies get a record when a probe by name needs one beyond
 * what kprobes give: the function is also inlined somewhere, or the copy is
 * a clone (.isra/.constprop/.part: its own calling convention), or other
 * functions share its name.  A .part copy is marked: attach-all leaves it
 * out, since every call reaches a copy of the head first.
 */
static void keep_out_of_line(struct gen *g)
{
	struct hmap inlined = { 0 }, names = { 0 };
	size_t i, n = 0;
	uint32_t v;

	for (i = 0; i < g->nr_insts; i++) {
		const char *name = callee_name(&g->callees[g->insts[i].callee]);

		/* a NO_PROBE copy takes no probe: it needs no out-of-line record */
		if (!(g->insts[i].flags & (BTF_INLINE_EXT_OUT_OF_LINE | BTF_INLINE_EXT_NO_PROBE)))
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
		const char *callee = callee_name(&g->callees[in->callee]);
		bool keep = true;

		if (in->flags & BTF_INLINE_EXT_OUT_OF_LINE) {
			v = 0;
			hmap_get(&names, sym, strlen(sym), &v);
			keep = hmap_get(&inlined, callee, strlen(callee), &v) ||
			       strchr(sym, '.') || v > 1;
			/* GCC names the rest of a split function NAME.part.N */
			if (strstr(sym, ".part."))
				in->flags |= BTF_INLINE_EXT_SPLIT_PART;
		}
		if (keep)
			g->insts[n++] = *in;
	}
	g->nr_insts = n;
	hmap_free(&inlined);
	hmap_free(&names);
}

static bool same_address(const struct gen *g, const struct gen_inst *a, const struct gen_inst *b)
{
	/* NO_PROBE records have no probe pc to share: each keeps its ranges */
	return g->callees[a->callee].btf_id == g->callees[b->callee].btf_id &&
	       a->sym == b->sym && a->pc == b->pc &&
	       !((a->flags | b->flags) & BTF_INLINE_EXT_NO_PROBE);
}

/*
 * @nr instances of one callee at one address (@group) become @rep, the one
 * with the most parameters available.  A parameter keeps its location only
 * where every call has the same expression (interned: the same offset);
 * otherwise the value at the pc may be another call's, and it is empty.
 */
static void merge_group(struct gen *g, struct gen_inst *rep, const struct gen_inst *group,
			size_t nr)
{
	size_t i, j;

	g->stats.merged += nr - 1;
	g->stats.merged_groups++;
	if (!(rep->flags & BTF_INLINE_EXT_OUT_OF_LINE)) {
		rep->flags |= BTF_INLINE_EXT_MERGED;
		rep->merged_calls = (uint32_t)nr;
	}
	for (j = 0; j < rep->nr_params; j++) {
		uint32_t p = rep->param + (uint32_t)j;

		for (i = 0; i < nr; i++)
			if (j >= group[i].nr_params ||
			    g->params.loc[group[i].param + j] != g->params.loc[p])
				break;
		if (i == nr)
			continue;
		/* for the ceiling: the record's own call had a location */
		if (g->params.cls[p] != LOC_CLASS_EMPTY)
			g->params.elsewhere[p] = ELSEWHERE_DECODABLE;
		g->params.loc[p] = 0;
		g->params.cls[p] = LOC_CLASS_EMPTY;
		g->params.why[p] = EMPTY_AMBIGUOUS;
		g->stats.ambiguous++;
	}
}

/* Instances of one callee at one address become one record. */
static void merge_same_address(struct gen *g)
{
	size_t i, j, best, n = 0;
	struct gen_inst rep;

	for (i = 0; i < g->nr_insts; i = j) {
		best = i;
		for (j = i + 1; j < g->nr_insts && same_address(g, &g->insts[i], &g->insts[j]); j++)
			if (available(g, &g->insts[j]) > available(g, &g->insts[best]))
				best = j;
		rep = g->insts[best];
		if (j - i > 1)
			merge_group(g, &rep, &g->insts[i], j - i);
		g->insts[n++] = rep;
	}
	g->nr_insts = n;
}

/* An inlined copy with ranges: (caller, entry, code size) order. */
static uint64_t code_size(const struct gen *g, const struct gen_inst *in)
{
	uint64_t n = 0;
	uint32_t j;

	for (j = 0; j < in->nr_ranges; j++)
		n += g->ranges[in->range + j].end - g->ranges[in->range + j].start;
	return n;
}

static int tie_cmp(const void *a, const void *b)
{
	const struct gen_inst *x = &sort_gen->insts[*(const uint32_t *)a];
	const struct gen_inst *y = &sort_gen->insts[*(const uint32_t *)b];
	uint64_t sx, sy;

	if (x->sym != y->sym)
		return x->sym < y->sym ? -1 : 1;
	if (x->entry_pc != y->entry_pc)
		return x->entry_pc < y->entry_pc ? -1 : 1;
	sx = code_size(sort_gen, x);
	sy = code_size(sort_gen, y);
	return (sx > sy) - (sx < sy);
}

/*
 * The look-up (lib/inline_chain.c) orders the copies holding an address by
 * their code size, then their entry: nested copies with the same of both
 * (one's code is all the other's) need their depth, BTF_INLINE_EXT_DEPTH.
 * Only those carry it, to keep the blob small.
 */
static void mark_depths(struct gen *g)
{
	uint32_t *idx = xcalloc(g->nr_insts + 1, sizeof(uint32_t));
	size_t i, j, k, n = 0;

	for (i = 0; i < g->nr_insts; i++)
		if (g->insts[i].nr_ranges && g->insts[i].depth &&
		    !(g->insts[i].flags & BTF_INLINE_EXT_OUT_OF_LINE))
			idx[n++] = (uint32_t)i;
	sort_gen = g;
	qsort(idx, n, sizeof(*idx), tie_cmp);
	for (i = 0; i < n; i = j) {
		for (j = i + 1; j < n && !tie_cmp(&idx[i], &idx[j]); j++)
			;
		for (k = i; j - i > 1 && k < j; k++) {
			g->insts[idx[k]].flags |= BTF_INLINE_EXT_DEPTH;
			g->stats.depths++;
		}
	}
	free(idx);
}

static void finalize(struct gen *g)
{
	struct hmap names = { 0 }, descs = { 0 };
	uint32_t v;
	size_t i;

	bool *used = xcalloc(g->nr_callees + 1, sizeof(bool));
	uint32_t *order = xcalloc(g->nr_callees + 1, sizeof(uint32_t));
	size_t n = 0;

	keep_out_of_line(g);
	sort_gen = g;
	for (i = 0; i < g->nr_insts; i++)
		used[g->insts[i].callee] = true;
	for (i = 0; i < g->nr_callees; i++)
		if (used[i])
			order[n++] = (uint32_t)i;
	qsort(order, n, sizeof(*order), callee_cmp);
	/* one function's copies in many CUs have the same descriptor */
	for (i = 0; i < n; i++) {
		struct gen_callee *c = &g->callees[order[i]];

		if (!hmap_get(&descs, c->desc, c->desc_len, &v)) {
			v = gen_btf_callee(g, c);
			hmap_put(&descs, c->desc, c->desc_len, v);
		}
		c->btf_id = v;
	}
	hmap_free(&descs);
	free(order);
	free(used);
	if (g->nr_insts)	/* none: g->insts is NULL */
		qsort(g->insts, g->nr_insts, sizeof(*g->insts), inst_id_cmp);
	merge_same_address(g);
	mark_depths(g);
	for (i = 0; i < g->nr_insts; i++)
		g->syms[g->insts[i].sym].used = true;
	/* symbol FUNC/VARs last, in address order */
	for (i = 0; i < g->nr_text; i++) {
		const char *name = g->syms[g->text_idx[i]].name;

		v = 0;
		hmap_get(&names, name, strlen(name), &v);
		hmap_put(&names, name, strlen(name), v + 1);
	}
	for (i = 0; i < g->nr_syms; i++) {
		struct gen_sym *s = &g->syms[i];

		v = 0;
		if (!s->used)
			continue;
		hmap_get(&names, s->name, strlen(s->name), &v);
		gen_btf_symbol(g, s, v == 1);
	}
	hmap_free(&names);
}

static double pct(uint64_t part, uint64_t total)
{
	return total ? 100.0 * (double)part / (double)total : 0.0;
}

/*
 * Parameters decodable at the probe pc against those located (or decodable)
 * at some pc of their instance: how far moving the probe could go.
 */
static void print_ceiling(FILE *f, const char *what, uint64_t at_pc, uint64_t ceiling,
			  uint64_t total)
{
	fprintf(f, "ceiling, %-9s somewhere in the instance: %10llu %6.2f%%; decodable at the "
		"probe pc: %6.2f%% of it\n", what, (unsigned long long)ceiling, pct(ceiling, total),
		pct(at_pc, ceiling));
}

static void print_stats(struct gen *g, FILE *f)
{
	uint64_t total = 0, cum = 0, skipped = 0;
	size_t i, j;

	memset(g->stats.params, 0, sizeof(g->stats.params));
	memset(g->stats.empty, 0, sizeof(g->stats.empty));
	g->stats.located = g->stats.decodable = 0;
	memset(g->stats.decodable_by, 0, sizeof(g->stats.decodable_by));
	g->stats.inlined = g->stats.out_of_line = 0;
	for (i = 0; i < g->nr_insts; i++) {
		const struct gen_inst *in = &g->insts[i];

		if (in->flags & BTF_INLINE_EXT_NO_PROBE)
			continue;
		if (in->flags & BTF_INLINE_EXT_OUT_OF_LINE)
			g->stats.out_of_line++;
		else
			g->stats.inlined++;
		for (j = 0; j < in->nr_params; j++) {
			uint8_t cls = g->params.cls[in->param + j];

			g->stats.params[cls]++;
			if (cls == LOC_CLASS_EMPTY)
				g->stats.empty[g->params.why[in->param + j]]++;
			g->stats.located += g->params.elsewhere[in->param + j] >= ELSEWHERE_LOCATED;
			if (g->params.elsewhere[in->param + j] == ELSEWHERE_DECODABLE) {
				g->stats.decodable++;
				g->stats.decodable_by[g->params.why[in->param + j]]++;
			}
			total++;
		}
	}
	for (i = 0; i < NR_SKIP_REASONS; i++)
		skipped += g->stats.skipped[i];
	fprintf(f, "%s: %zu records (%llu inlined, %llu out-of-line), %llu merged, "
		"%llu probe pcs moved (+%llu parameters)\n",
		g->target_name, (size_t)(g->stats.inlined + g->stats.out_of_line),
		(unsigned long long)g->stats.inlined,
		(unsigned long long)g->stats.out_of_line, (unsigned long long)g->stats.merged,
		(unsigned long long)g->stats.moved_pc, (unsigned long long)g->stats.moved_gain);
	fprintf(f, "probe pcs moved off sites kprobes refuse: %llu (%llu past a jump label "
		"whose ways meet again)\n", (unsigned long long)g->stats.moved_refused,
		(unsigned long long)g->stats.rejoined);
	fprintf(f, "merged records: %llu (%llu parameters ambiguous: the calls' locations "
		"differ)\n", (unsigned long long)g->stats.merged_groups,
		(unsigned long long)g->stats.ambiguous);
	fprintf(f, "skipped instances: %llu (and %llu inlined instances without code: "
		"only empty ranges; %llu split parts inside a copy of their own function)\n",
		(unsigned long long)skipped, (unsigned long long)g->stats.no_code,
		(unsigned long long)g->stats.split_parts);
	for (i = 0; i < NR_SKIP_REASONS; i++)
		if (g->stats.skipped[i])
			fprintf(f, "  %-44s %10llu\n", skip_names[i],
				(unsigned long long)g->stats.skipped[i]);
	fprintf(f, "ranges-only records (NO_PROBE: skipped inlined copies in code kprobes refuse, "
		"kept for stacks): %llu\n", (unsigned long long)g->stats.no_probe);
	fprintf(f, "depth records (DEPTH: nested copies with the same entry and code size): "
		"%llu\n", (unsigned long long)g->stats.depths);
	fprintf(f, "exits: %llu inlined instances with exits (%llu LAND, %llu LEAVE, %llu LEAVE_JCC, "
		"%llu LEAVE_INDIRECT), %llu without\n",
		(unsigned long long)g->stats.exit_fails[EXIT_OK],
		(unsigned long long)g->stats.exits[BTF_INLINE_EXIT_LAND],
		(unsigned long long)g->stats.exits[BTF_INLINE_EXIT_LEAVE],
		(unsigned long long)g->stats.exits[BTF_INLINE_EXIT_LEAVE_JCC],
		(unsigned long long)g->stats.exits[BTF_INLINE_EXIT_LEAVE_INDIRECT],
		(unsigned long long)(g->stats.inlined - g->stats.exit_fails[EXIT_OK]));
	fprintf(f, "  of them %llu with code in NAME.cold (%llu exits outside the caller's "
		"symbol), %llu with an instruction that may fault (%llu LAND exits at a fixup)\n",
		(unsigned long long)g->stats.cold_insts, (unsigned long long)g->stats.cold_exits,
		(unsigned long long)g->stats.fault_insts, (unsigned long long)g->stats.fault_exits);
	for (i = EXIT_OK + 1; i < NR_EXIT_FAILS; i++)
		if (g->stats.exit_fails[i])
			fprintf(f, "  %-44s %10llu\n", exit_fail_names[i],
				(unsigned long long)g->stats.exit_fails[i]);
	fprintf(f, "%-18s %12s %8s %12s %8s\n", "Op. Category", "Count", "%", "Cumulative", "%");
	fprintf(f, "--------------------------------------------------------------\n");
	for (i = 0; i < NR_LOC_CLASSES; i++) {
		uint64_t c = g->stats.params[i];

		if (i != LOC_CLASS_EMPTY)
			cum += c;
		fprintf(f, "%-18s %12llu %7.2f%%", loc_class_names[i], (unsigned long long)c,
			pct(c, total));
		if (i != LOC_CLASS_EMPTY)
			fprintf(f, " %12llu %7.2f%%", (unsigned long long)cum, pct(cum, total));
		fputc('\n', f);
	}
	fprintf(f, "%-18s %12llu\n", "parameters", (unsigned long long)total);
	print_ceiling(f, "located", cum, cum + g->stats.located, total);
	print_ceiling(f, "decodable", cum, cum + g->stats.decodable, total);
	fprintf(f, "empty, by reason:\n");
	for (i = 0; i < NR_EMPTY_REASONS; i++)
		if (g->stats.empty[i])
			fprintf(f, "  %-48s %10llu %6.2f%%\n", loc_empty_names[i],
				(unsigned long long)g->stats.empty[i],
				pct(g->stats.empty[i], total));
	fprintf(f, "empty at the probe pc, decodable elsewhere in the instance, by reason:\n");
	for (i = 0; i < NR_EMPTY_REASONS; i++)
		if (g->stats.decodable_by[i])
			fprintf(f, "  %-48s %10llu %6.2f%%\n", loc_empty_names[i],
				(unsigned long long)g->stats.decodable_by[i],
				pct(g->stats.decodable_by[i], total));
	fprintf(f, "blob: %zu bytes: TARGET %zu, SYMBOLS %zu, BTF %zu, BTF_INLINE %zu "
		"(instances %zu, locations %zu, extension %zu)\n",
		g->blob_len, g->sec_len[INKPROBE_SEC_TARGET], g->sec_len[INKPROBE_SEC_SYMBOLS],
		g->sec_len[INKPROBE_SEC_BTF], g->sec_len[INKPROBE_SEC_BTF_INLINE],
		g->inst_len, g->loc.len, g->ext_len);
	if (g->raw)
		fprintf(f, "file: %zu bytes (raw blob)\n", g->file_len);
	else
		fprintf(f, "file: %zu bytes (zstd level %d: %.1f%% of the blob)\n", g->file_len,
			BLOB_ZSTD_LEVEL, pct(g->file_len, g->blob_len));
}

int cmd_gen(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "base-btf", required_argument, NULL, 'b' },
		{ "debug-file", required_argument, NULL, 'd' },
		{ "sysroot", required_argument, NULL, 'S' },
		{ "stats", no_argument, NULL, 's' },
		{ "no-ranges", no_argument, NULL, 'R' },
		{ "verbose-exits", no_argument, NULL, 'E' },
		{ "raw", no_argument, NULL, 'r' },
		{ "jobs", required_argument, NULL, 'j' },
		{ "build-id", required_argument, NULL, GEN_FETCH_BUILD_ID },
		{ "running-kernel", no_argument, NULL, GEN_FETCH_KERNEL },
		{ "module", required_argument, NULL, GEN_FETCH_MODULE },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	struct gen_fetch fetch = { 0 };
	struct gen g = { 0 };
	const char *out = NULL;
	char def_out[96];
	bool stats = false;
	int c;

	g.want_ranges = true;
	g.base_btf_what = "--base-btf";
	g.progress = isatty(STDERR_FILENO);
	g.jobs = (int)sysconf(_SC_NPROCESSORS_ONLN);
	if (g.jobs > 8)
		g.jobs = 8;
	while ((c = getopt_long(argc, argv, "o:j:h", opts, NULL)) != -1) {
		switch (c) {
		case 'o':
			out = optarg;
			break;
		case 'b':
			g.base_btf_path = optarg;
			break;
		case 'd':
			g.debug_file = optarg;
			break;
		case 'S':
			g.sysroot = optarg;
			break;
		case 's':
			stats = true;
			break;
		case 'R':
			g.want_ranges = false;
			break;
		case 'E':
			g.verbose_exits = true;
			break;
		case 'r':
			g.raw = true;
			break;
		case 'j':
			g.jobs = atoi(optarg);
			if (g.jobs < 1 || g.jobs > 64)
				die("--jobs: 1 to 64");
			break;
		case GEN_FETCH_BUILD_ID:
		case GEN_FETCH_KERNEL:
		case GEN_FETCH_MODULE:
			if (fetch.how)
				goto usage;	/* one target only */
			fetch.how = c;
			fetch.arg = optarg;
			break;
		case 'h':
			fputs(gen_usage, stdout);
			return 0;
		default:
			goto usage;
		}
	}
	if (optind + !fetch.how != argc)
		goto usage;
	g.path = fetch.how ? gen_fetch(&fetch, &g) : argv[optind];
	gen_open(&g);
	if (fetch.how)
		gen_fetch_check(&fetch, &g);
	gen_btf_open(&g);
	gen_special(&g);
	gen_collect(&g);
	finalize(&g);
	gen_exits(&g);
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
usage:
	fputs(gen_usage, stderr);
	return 2;
}
