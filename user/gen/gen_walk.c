// SPDX-License-Identifier: GPL-2.0
/*
 * The walk over every CU: each DW_TAG_inlined_subroutine with code (nested
 * ones included) and each concrete out-of-line function becomes an
 * instance, with its probe pc (probe_pc.c) and its parameters' locations
 * there (loc_encode.c).
 *
 * vmlinux: worker threads take CUs in turn, each through its own libelf
 * and libdw handles (libdw is not thread-safe), renewed every few CUs so
 * libdw's caches stay small.  Each CU's results go to its own gen_part and
 * are merged in CU order afterwards, so the output does not depend on the
 * scheduling.  A module (libdwfl relocates its DWARF) is walked by one
 * thread through libdwfl's handle.
 */
#include <dwarf.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "gen.h"
#include "../../lib/blob.h"

#define CUS_PER_HANDLE	256	/* libdw handles live this many CUs */
#define MOVE_WINDOW	256	/* bytes after the entry pc a probe may move */
#define MOVE_INSNS	64
#define MAX_CANDIDATES	16

void gen_params_push(struct gen_params *p, uint32_t loc, uint8_t cls, uint8_t why,
		     uint8_t elsewhere)
{
	if (p->len == p->cap) {
		p->cap = p->cap ? 2 * p->cap : 1024;
		p->loc = xrealloc(p->loc, p->cap * sizeof(*p->loc));
		p->cls = xrealloc(p->cls, p->cap);
		p->why = xrealloc(p->why, p->cap);
		p->elsewhere = xrealloc(p->elsewhere, p->cap);
	}
	p->loc[p->len] = loc;
	p->cls[p->len] = cls;
	p->why[p->len] = why;
	p->elsewhere[p->len] = elsewhere;
	p->len++;
}

void gen_params_free(struct gen_params *p)
{
	free(p->loc);
	free(p->cls);
	free(p->why);
	free(p->elsewhere);
	memset(p, 0, sizeof(*p));
}

/* The function a DIE is in: for frame bases and entry values. */
struct func {
	Dwarf_Die die;
	Dwarf_Addr entry;	/* 0: unknown */
};

/* One instance's parameter locations at one pc, before choosing. */
struct encoded {
	struct buf bytes;
	uint32_t *off;
	uint8_t *cls, *why;
	uint32_t avail, cap;
};

static void encoded_reserve(struct encoded *e, uint32_t n)
{
	if (n <= e->cap)
		return;
	e->cap = n;
	e->off = xrealloc(e->off, n * sizeof(*e->off));
	e->cls = xrealloc(e->cls, n);
	e->why = xrealloc(e->why, n);
}

/* The root abstract origin of an instance, following abstract_origin links. */
static bool root_origin(Dwarf_Die *die, Dwarf_Die *origin)
{
	Dwarf_Attribute a;
	int n;

	*origin = *die;
	for (n = 0; n < 8; n++) {
		if (!dwarf_attr(origin, DW_AT_abstract_origin, &a))
			return true;
		if (!dwarf_formref_die(&a, origin))
			return false;
	}
	return false;
}

/* The instance's concrete parameter DIE for the origin's parameter @pdie. */
static bool concrete_param(Dwarf_Die *inst, uint64_t pdie, bool self, Dwarf_Die *out)
{
	Dwarf_Die child, o;

	if (dwarf_child(inst, &child))
		return false;
	do {
		if (dwarf_tag(&child) != DW_TAG_formal_parameter)
			continue;
		if (self ? dwarf_dieoffset(&child) == pdie :
		    root_origin(&child, &o) && dwarf_dieoffset(&o) == pdie) {
			*out = child;
			return true;
		}
	} while (dwarf_siblingof(&child, &child) == 0);
	return false;
}

struct inst_ctx {
	struct worker *w;
	Dwarf_Die *die;
	struct func *func;
	const struct gen_callee *callee;
	bool self;
	Dwarf_Die param[64];	/* concrete parameter DIEs, the first 64 */
	bool has_param[64];
};

/* The pc after ftrace's call at @f's entry, or 0 (struct loc_ctx). */
static Dwarf_Addr fentry_end(const struct gen *g, const struct func *f)
{
	if (!f->entry || addr_set_next(&g->fentry, f->entry) != f->entry)
		return 0;
	return f->entry + FENTRY_CALL_LEN;
}

/* All parameters' locations at @pc into @e. */
static void encode_at(struct inst_ctx *ic, uint64_t pc, struct encoded *e)
{
	const struct gen_callee *c = ic->callee;
	struct loc_ctx ctx = { .w = ic->w, .subprogram = &ic->func->die, .pc = pc,
			       .func_entry = ic->func->entry,
			       .fentry_end = fentry_end(ic->w->g, ic->func) };
	struct buf expr = { 0 };
	uint32_t i;

	encoded_reserve(e, c->nr_params);
	e->bytes.len = 0;
	e->avail = 0;
	for (i = 0; i < c->nr_params; i++) {
		enum loc_empty_reason why = EMPTY_NO_LOCATION;
		Dwarf_Die param, *pp = NULL;
		enum loc_class cls;

		if (i < 64)
			pp = ic->has_param[i] ? &ic->param[i] : NULL;
		else if (concrete_param(ic->die, c->params[i].die, ic->self, &param))
			pp = &param;
		cls = loc_encode(&ctx, pp, &c->params[i], &expr, &why);
		e->off[i] = (uint32_t)e->bytes.len;
		buf_add(&e->bytes, expr.data, expr.len);
		e->cls[i] = (uint8_t)cls;
		e->why[i] = (uint8_t)why;
		if (cls != LOC_CLASS_EMPTY)
			e->avail++;
	}
	buf_free(&expr);
}

static void prepare_params(struct inst_ctx *ic)
{
	const struct gen_callee *c = ic->callee;
	uint32_t i;

	for (i = 0; i < c->nr_params && i < 64; i++)
		ic->has_param[i] = concrete_param(ic->die, c->params[i].die, ic->self,
						  &ic->param[i]);
}

/* A worker's buffers, reused for every instance. */
struct scratch {
	struct encoded enc, tmp;
	struct inst_ctx ic;
};

static void encoded_free(struct encoded *e)
{
	buf_free(&e->bytes);
	free(e->off);
	free(e->cls);
	free(e->why);
}

static int u64_cmp(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return (x > y) - (x < y);
}

/*
 * The probe pc: among the pcs straight-line code reaches from the entry pc
 * where a location list entry starts, the one with the most parameters
 * available; the entry pc wins ties.  @e holds the locations at the entry
 * pc and gets those at the chosen pc.
 */
static uint64_t choose_pc(struct inst_ctx *ic, long sym, uint64_t entry, uint64_t limit,
			  struct encoded *e, struct encoded *tmp)
{
	const struct gen_callee *c = ic->callee;
	uint64_t cand[MAX_CANDIDATES], pcs[MOVE_INSNS], best = entry, last, step;
	size_t nc = 0, np, i, j;

	for (i = 0; i < c->nr_params && i < 64 && nc < MAX_CANDIDATES; i++)
		if (e->cls[i] == LOC_CLASS_EMPTY && ic->has_param[i])
			nc += loc_starts(&ic->param[i], entry, limit, cand + nc,
					 MAX_CANDIDATES - nc);
	if (!nc)
		return entry;
	qsort(cand, nc, sizeof(*cand), u64_cmp);
	last = cand[nc - 1];
	np = straight_line(ic->w, &ic->func->die, sym, entry, last, pcs, MOVE_INSNS);
	for (i = 0, j = 1; i < nc; i++) {
		if (i && cand[i] == cand[i - 1])
			continue;
		while (j < np && pcs[j] < cand[i])
			j++;
		if (j == np)
			break;
		if (pcs[j] != cand[i])
			continue;	/* not reachable, or not an instruction boundary */
		if (pc_refused(ic->w, sym, cand[i], &step))
			continue;
		encode_at(ic, cand[i], tmp);
		if (tmp->avail > e->avail) {
			struct encoded t = *e;

			*e = *tmp;
			*tmp = t;
			best = cand[i];
			if (e->avail == c->nr_params)
				break;
		}
	}
	return best;
}

/* Is every parameter available in @was also available in @now? */
static bool keeps(const struct encoded *was, const struct encoded *now, uint32_t n)
{
	uint32_t i;

	for (i = 0; i < n; i++)
		if (was->cls[i] != LOC_CLASS_EMPTY && now->cls[i] == LOC_CLASS_EMPTY)
			return false;
	return true;
}

/*
 * kprobes refuse a probe at the entry pc @pc (*@why says why).  Where
 * execution surely goes on after the refused site (a static call that
 * returns, a WARN) or both ways of a jump label meet again right after it
 * (jump_label_rejoin()), the probe may go to the first pc from there that
 * every execution through @pc reaches exactly once -- straight-line code
 * from the site's end, which is no branch target but of the jump label's
 * own way back -- up to @limit (or the first pc after the instance's
 * range), that kprobes accept and where every parameter available at @pc
 * still is.  @e holds the locations at @pc and gets those at the new pc.
 * Returns the new pc, or 0 (*@why unchanged) if there is none.
 */
static uint64_t move_off_refused(struct inst_ctx *ic, long sym, uint64_t pc, uint64_t limit,
				 struct encoded *e, struct encoded *tmp, enum skip_reason *why,
				 bool *rejoined)
{
	const struct gen *g = ic->w->g;
	const struct gen_sym *s = &g->syms[sym];
	uint64_t pcs[MOVE_INSNS], step, next, at = pc;
	size_t np, i, hops;

	*rejoined = false;
	for (hops = 0; hops < 8; hops++) {
		const struct gen_site *site = gen_site_at(g, at);
		bool rejoin = false;

		pc_refused(ic->w, sym, at, &step);
		if (!step && site && site->addr == at && site->kind == SITE_JUMP_LABEL) {
			step = jump_label_rejoin(ic->w, &ic->func->die, site);
			rejoin = step != 0;
		}
		if (!step || step > limit + 1 || step - s->addr >= s->size ||
		    (!rejoin && branch_target(ic->w, &ic->func->die, step)))
			return 0;
		np = straight_line(ic->w, &ic->func->die, sym, step, limit, pcs, MOVE_INSNS);
		for (i = 0; i < np; i++) {
			if (pc_refused(ic->w, sym, pcs[i], &next))
				continue;
			encode_at(ic, pcs[i], tmp);
			if (keeps(e, tmp, ic->callee->nr_params)) {
				struct encoded t = *e;

				*e = *tmp;
				*tmp = t;
				*why = SKIP_NONE;
				*rejoined |= rejoin;
				return pcs[i];
			}
		}
		/* the site's end is a site of its own: step over that one too */
		if (!pc_refused(ic->w, sym, step, &next))
			return 0;
		*rejoined |= rejoin;
		at = step;
	}
	return 0;
}

/*
 * The coverage ceiling (gen --stats) of parameter @i, empty at the probe
 * pc: ELSEWHERE_LOCATED if a location list entry (or a single location)
 * covers some pc of the instance's @ranges, ELSEWHERE_DECODABLE if one
 * also decodes there, else 0.
 */
static uint8_t decodable_elsewhere(struct inst_ctx *ic, uint32_t i, const struct gen_range *ranges,
				   size_t nr)
{
	struct loc_ctx ctx = { .w = ic->w, .subprogram = &ic->func->die,
			       .func_entry = ic->func->entry,
			       .fentry_end = fentry_end(ic->w->g, ic->func) };
	Dwarf_Addr base, start, end;
	enum loc_empty_reason why;
	struct buf expr = { 0 };
	Dwarf_Attribute a;
	ptrdiff_t off = 0;
	Dwarf_Op *ops;
	uint8_t found = 0;
	size_t nops, r;

	if (i >= 64 || !ic->has_param[i] || !dwarf_attr(&ic->param[i], DW_AT_location, &a))
		return 0;
	while (found != ELSEWHERE_DECODABLE &&
	       (off = dwarf_getlocations(&a, off, &base, &start, &end, &ops, &nops)) > 0) {
		for (r = 0; r < nr && found != ELSEWHERE_DECODABLE; r++) {
			uint64_t lo = start > ranges[r].start ? start : ranges[r].start;

			if (start == end ? start < ranges[r].start || start >= ranges[r].end :
			    lo >= (end < ranges[r].end ? end : ranges[r].end))
				continue;
			found = ELSEWHERE_LOCATED;
			ctx.pc = lo;
			if (loc_encode(&ctx, &ic->param[i], &ic->callee->params[i], &expr,
				       &why) != LOC_CLASS_EMPTY)
				found = ELSEWHERE_DECODABLE;
		}
	}
	buf_free(&expr);
	return found;
}

/* Skipped for a reason of kprobes': the code stays, only probes may not go there. */
static bool kprobes_refuse(enum skip_reason why)
{
	switch (why) {
	case SKIP_NOINSTR:
	case SKIP_ENTRY:
	case SKIP_KPROBES:
	case SKIP_BLACKLIST:
	case SKIP_BLACKLIST_PIECE:
	case SKIP_JUMP_LABEL:
	case SKIP_STATIC_CALL:
	case SKIP_BUG:
	case SKIP_NOT_BOUNDARY:
	case SKIP_UNCOPYABLE:
		return true;
	default:
		return false;
	}
}

/*
 * An inlined copy skipped because kprobes refuse its code (@why): counted
 * as skipped, and kept as a NO_PROBE record with its ranges (from
 * @first_range) alone when ranges are written, so that stacks and profiles
 * name it.  Its pc is its entry; it has no parameters and no exits.
 */
static void skip_instance(struct worker *w, long ci, long s, uint64_t entry, size_t first_range,
			  int depth, enum skip_reason why)
{
	bool inlined = depth > 0;
	struct gen_part *out = w->out;
	struct gen_inst in = { 0 };

	out->stats.skipped[why]++;
	if (!inlined || !w->g->want_ranges || !kprobes_refuse(why)) {
		out->nr_ranges = first_range;
		return;
	}
	in.callee = (uint32_t)ci;
	in.sym = (uint32_t)s;
	in.pc = entry;
	in.entry_pc = entry;
	in.flags = BTF_INLINE_EXT_NO_PROBE;
	in.depth = (uint8_t)(depth > 255 ? 255 : depth);
	in.param = (uint32_t)out->params.len;
	in.range = (uint32_t)first_range;
	in.nr_ranges = (uint16_t)(out->nr_ranges - first_range);
	out->stats.no_probe++;
	*VEC_PUSH(out->insts, out->nr_insts, out->cap_insts) = in;
}

/*
 * @depth: an inlined copy's inline depth in its caller (1: in the caller's
 * own code, 2: inside a copy of depth 1, ...), 0 for a function's own copy.
 */
static void add_instance(struct worker *w, Dwarf_Die *die, struct func *f, int depth)
{
	bool inlined = depth > 0;
	struct scratch *sc = w->scratch;
	struct gen_part *out = w->out;
	struct inst_ctx *ic = &sc->ic;
	struct encoded *enc = &sc->enc;
	struct gen_inst in = { 0 };
	Dwarf_Addr base, start, end, entry, limit = 0;
	enum skip_reason why;
	ptrdiff_t off = 0;
	Dwarf_Die origin;
	size_t first_range = out->nr_ranges;
	uint32_t i, avail0;
	long ci, s;

	if (!root_origin(die, &origin))
		return;
	ci = callee_index(w, &origin);
	if (ci < 0)
		return;
	/* code ranges, empty ones dropped */
	while ((off = dwarf_ranges(die, off, &base, &start, &end)) > 0) {
		struct gen_range *r;

		if (end <= start)
			continue;
		r = VEC_PUSH(out->ranges, out->nr_ranges, out->cap_ranges);
		r->start = start;
		r->end = end;
	}
	if (out->nr_ranges == first_range) {
		out->stats.no_code++;
		return;
	}
	if (dwarf_entrypc(die, &entry))
		entry = out->ranges[first_range].start;
	s = gen_sym_at(w->g, entry, false);
	if (s < 0) {
		out->stats.skipped[SKIP_NO_SYMBOL]++;
		out->nr_ranges = first_range;
		return;
	}
	if (w->g->syms[s].skip) {
		skip_instance(w, ci, s, entry, first_range, depth, w->g->syms[s].skip);
		return;
	}
	for (i = first_range; i < out->nr_ranges; i++)
		if (entry >= out->ranges[i].start && entry < out->ranges[i].end)
			limit = out->ranges[i].end - 1;
	if (limit > entry + MOVE_WINDOW)
		limit = entry + MOVE_WINDOW;

	ic->w = w;
	ic->die = die;
	ic->func = f;
	ic->callee = &out->callees[ci];
	ic->self = !inlined && dwarf_dieoffset(&origin) == dwarf_dieoffset(die);
	prepare_params(ic);
	encode_at(ic, entry, enc);
	avail0 = enc->avail;
	in.pc = entry;
	why = pc_refused(w, s, entry, &start);
	if (why != SKIP_NONE) {
		bool rejoined;

		in.pc = move_off_refused(ic, s, entry, limit, enc, &sc->tmp, &why, &rejoined);
		if (!in.pc) {
			skip_instance(w, ci, s, entry, first_range, depth, why);
			return;
		}
		out->stats.moved_refused++;
		out->stats.rejoined += rejoined;
	}
	if (enc->avail < ic->callee->nr_params && limit > in.pc)
		in.pc = choose_pc(ic, s, in.pc, limit, enc, &sc->tmp);
	if (in.pc != entry) {
		in.flags |= BTF_INLINE_EXT_MOVED_PC;
		out->stats.moved_pc++;
		out->stats.moved_gain += enc->avail - avail0;
	}
	in.callee = (uint32_t)ci;
	in.sym = (uint32_t)s;
	in.entry_pc = entry;
	in.flags |= inlined ? 0 : BTF_INLINE_EXT_OUT_OF_LINE;
	in.depth = (uint8_t)(depth > 255 ? 255 : depth);
	in.nr_params = (uint16_t)ic->callee->nr_params;
	in.param = (uint32_t)out->params.len;
	in.range = (uint32_t)first_range;
	in.nr_ranges = (uint16_t)(out->nr_ranges - first_range);
	if (!w->g->want_ranges) {
		in.nr_ranges = 0;
		out->nr_ranges = first_range;
	}
	for (i = 0; i < in.nr_params; i++) {
		const uint8_t *e = enc->bytes.data + enc->off[i];
		size_t len = enc->cls[i] == LOC_CLASS_EMPTY ? 0 : loc_expr_len(e);

		gen_params_push(&out->params, loc_intern(&out->loc, &out->loc_map, e, len),
				enc->cls[i], enc->why[i],
				enc->cls[i] != LOC_CLASS_EMPTY ? 0 :
				decodable_elsewhere(ic, i, out->ranges + first_range,
						    out->nr_ranges - first_range));
	}
	if (depth > 1)
		out->stats.nested++;
	*VEC_PUSH(out->insts, out->nr_insts, out->cap_insts) = in;
}

static bool has_code(Dwarf_Die *die)
{
	return dwarf_hasattr(die, DW_AT_low_pc) || dwarf_hasattr(die, DW_AT_ranges);
}

/* The DIE offset of an instance's root abstract origin; 0 if unknown. */
static uint64_t origin_offset(Dwarf_Die *die)
{
	Dwarf_Die origin;

	return root_origin(die, &origin) ? dwarf_dieoffset(&origin) : 0;
}

/*
 * GCC's partial inlining splits a function F into its head and F.part.N,
 * the rest; when the rest is inlined back into a copy of F, DWARF describes
 * it as an instance of F inside that copy, "called" from F's own first
 * line.  It is not a call: every pass through it went through the
 * enclosing copy's entry.  An instance of F nested in F and called from
 * elsewhere in F is real recursion.  Files are compared by their number in
 * the CU's file table (the names would cost the CU's whole line program):
 * an origin in another CU never matches.
 */
static bool split_part(Dwarf_Die *die)
{
	Dwarf_Word call_line, call_file, decl_line, decl_file;
	Dwarf_Die origin, cu, origin_cu;
	Dwarf_Attribute a;

	if (!dwarf_attr(die, DW_AT_call_line, &a) || dwarf_formudata(&a, &call_line) ||
	    !dwarf_attr(die, DW_AT_call_file, &a) || dwarf_formudata(&a, &call_file) ||
	    !root_origin(die, &origin) ||
	    !dwarf_attr(&origin, DW_AT_decl_line, &a) || dwarf_formudata(&a, &decl_line) ||
	    !dwarf_attr(&origin, DW_AT_decl_file, &a) || dwarf_formudata(&a, &decl_file))
		return false;
	return call_line == decl_line && call_file == decl_file &&
	       dwarf_diecu(die, &cu, NULL, NULL) && dwarf_diecu(&origin, &origin_cu, NULL, NULL) &&
	       dwarf_dieoffset(&cu) == dwarf_dieoffset(&origin_cu);
}

/*
 * @encl: the root origin of the nearest enclosing function or inlined
 * instance, for split parts.
 */
static void walk(struct worker *w, Dwarf_Die *parent, struct func *f, int inl, int depth,
		 uint64_t encl)
{
	struct func sub;
	Dwarf_Die die;
	uint64_t o;

	if (depth > 256 || dwarf_child(parent, &die))
		return;
	do {
		switch (dwarf_tag(&die)) {
		case DW_TAG_subprogram:
			/* a call of it is no exit (instance_exits.c) */
			if (dwarf_hasattr(&die, DW_AT_noreturn) && dwarf_diename(&die))
				hmap_put(&w->out->noreturn, dwarf_diename(&die),
					 strlen(dwarf_diename(&die)), 1);
			if (!has_code(&die))
				break;
			sub.die = die;
			if (dwarf_entrypc(&die, &sub.entry))
				sub.entry = 0;
			add_instance(w, &die, &sub, 0);
			walk(w, &die, &sub, 0, depth + 1, origin_offset(&die));
			break;
		case DW_TAG_inlined_subroutine:
			o = origin_offset(&die);
			if (f && o && o == encl && split_part(&die))
				w->out->stats.split_parts++;
			else if (f)
				add_instance(w, &die, f, inl + 1);
			walk(w, &die, f, inl + 1, depth + 1, o);
			break;
		case DW_TAG_lexical_block:
			walk(w, &die, f, inl, depth + 1, encl);
			break;
		default:
			break;
		}
	} while (dwarf_siblingof(&die, &die) == 0);
}

struct shared {
	struct gen *g;
	uint64_t *cu_die;	/* CU DIE offsets, in file order */
	size_t nr_cu;
	struct gen_part *parts;
	bool *finished;		/* parts[i] is complete */
	size_t merged;		/* parts before this one are merged */
	atomic_size_t next;
	pthread_mutex_t lock;
	size_t done;
	int shown;
	bool own_handles;
};

static void merge_part(struct gen *g, struct gen_part *p);

/* CU @i is walked: merge what can be merged, in CU order, and show progress. */
static void cu_done(struct shared *sh, size_t i)
{
	int pct;

	pthread_mutex_lock(&sh->lock);
	sh->finished[i] = true;
	while (sh->merged < sh->nr_cu && sh->finished[sh->merged])
		merge_part(sh->g, &sh->parts[sh->merged++]);
	sh->done++;
	pct = (int)(100 * sh->done / sh->nr_cu);
	if (sh->g->progress && pct != sh->shown) {
		sh->shown = pct;
		fprintf(stderr, "\rinkprobe gen: %s: %zu/%zu CUs (%d%%)", sh->g->target_name,
			sh->done, sh->nr_cu, pct);
	}
	pthread_mutex_unlock(&sh->lock);
}

static void *worker_main(void *arg)
{
	struct shared *sh = arg;
	struct gen *g = sh->g;
	struct worker w = { .g = g };
	size_t in_handle = 0, i, map_len = 0;
	Dwarf *cfi_dw = NULL;	/* lives on: the CFI caches what it parsed */
	Elf *elf = NULL;
	char *map = NULL;
	int fd = -1;
	struct scratch *sc = xcalloc(1, sizeof(*sc));

	w.scratch = sc;
	probe_pc_init(&w);
	if (sh->own_handles) {
		fd = open(g->dwarf_path, O_RDONLY);
		elf = fd >= 0 ? elf_begin(fd, ELF_C_READ_MMAP, NULL) : NULL;
		if (!elf)
			die("%s: cannot open: %s", g->dwarf_path, elf_errmsg(-1));
		map = elf_rawfile(elf, &map_len);
		cfi_dw = dwarf_begin_elf(elf, DWARF_C_READ, NULL);
		w.cfi = cfi_dw ? dwarf_getcfi(cfi_dw) : NULL;
		w.cfi_bias = 0;
	} else {
		w.dw = g->dw;
		w.cfi = g->cfi;
		w.cfi_bias = g->cfi_bias;
	}
	while ((i = atomic_fetch_add(&sh->next, 1)) < sh->nr_cu) {
		Dwarf_Die cu;

		if (sh->own_handles && (!w.dw || in_handle == CUS_PER_HANDLE)) {
			if (w.dw)
				dwarf_end(w.dw);
			w.dw = dwarf_begin_elf(elf, DWARF_C_READ, NULL);
			if (!w.dw)
				die("%s: %s", g->path, dwarf_errmsg(-1));
			w.targets_of = 0;
			in_handle = 0;
		}
		w.out = &sh->parts[i];
		buf_add_u8(&w.out->loc, LOC_END_OF_EXPR);
		/*
		 * Rust's CUs (CONFIG_RUST, 7.2) have no C types for BTF ("()"
		 * is a base type of size 0) and no C functions to probe: pahole
		 * leaves them out too (--lang_exclude=rust).
		 */
		if (dwarf_offdie(w.dw, sh->cu_die[i], &cu) && dwarf_srclang(&cu) != DW_LANG_Rust) {
			/* a new handle read every CU header before this one */
			if (!in_handle && map)
				madvise(map, map_len, MADV_DONTNEED);
			walk(&w, &cu, NULL, 0, 0, 0);
		}
		in_handle++;
		hmap_free(&w.out->loc_map);
		hmap_free(&w.out->callee_map);
		hmap_free(&w.out->type_keys);
		buf_free(&w.out->keys);
		cu_done(sh, i);
	}
	probe_pc_fini(&w);
	encoded_free(&sc->enc);
	encoded_free(&sc->tmp);
	free(sc);
	if (sh->own_handles) {
		if (w.dw)
			dwarf_end(w.dw);
		if (cfi_dw)
			dwarf_end(cfi_dw);
		elf_end(elf);
		close(fd);
	}
	return NULL;
}

static void add_stats(struct gen_stats *to, const struct gen_stats *from)
{
	const uint64_t *f = (const uint64_t *)from;
	uint64_t *t = (uint64_t *)to;
	size_t i;

	for (i = 0; i < sizeof(*to) / sizeof(uint64_t); i++)
		t[i] += f[i];
}

/* Interns an expression into the blob's table, marking symbols it addresses. */
static uint32_t intern_global(struct gen *g, const uint8_t *e)
{
	size_t len = loc_expr_len(e), pos = 0, before = g->loc.len;
	struct ink_loc_op op;
	uint32_t off = loc_intern(&g->loc, &g->loc_map, e, len), n;

	if (g->loc.len == before)
		return off;
	while ((n = ink_loc_decode(e + pos, (uint32_t)(len - pos), &op)) && op.op) {
		if (op.op == LOC_SYMBOL_ADDR)
			g->syms[op.sym].used = true;
		pos += n;
	}
	return off;
}

/* Moves a CU's part into the gen, in CU order. */
static void merge_part(struct gen *g, struct gen_part *p)
{
	uint32_t *remap = xcalloc(p->nr_callees + 1, sizeof(uint32_t));
	uint32_t *loc_remap = xcalloc(p->loc.len + 1, sizeof(uint32_t));
	size_t i, k;

	for (i = 0; i < p->nr_callees; i++) {
		struct gen_callee *c = &p->callees[i];
		uint32_t idx;

		if (hmap_get(&g->callee_map, &c->die, sizeof(c->die), &idx)) {
			free(c->desc);
		} else {
			idx = (uint32_t)g->nr_callees;
			*VEC_PUSH(g->callees, g->nr_callees, g->cap_callees) = *c;
			g->callees[idx].params = NULL;
			hmap_put(&g->callee_map, &c->die, sizeof(c->die), idx);
		}
		free(c->params);
		remap[i] = idx;
	}
	for (i = 0; i < p->nr_insts; i++) {
		struct gen_inst in = p->insts[i];

		in.callee = remap[in.callee];
		in.param = (uint32_t)g->params.len;
		for (k = 0; k < in.nr_params; k++) {
			uint32_t lo = p->params.loc[p->insts[i].param + k];

			if (lo && !loc_remap[lo])
				loc_remap[lo] = intern_global(g, p->loc.data + lo);
			gen_params_push(&g->params, loc_remap[lo],
					p->params.cls[p->insts[i].param + k],
					p->params.why[p->insts[i].param + k],
					p->params.elsewhere[p->insts[i].param + k]);
		}
		in.range = (uint32_t)g->nr_ranges;
		for (k = 0; k < in.nr_ranges; k++)
			*VEC_PUSH(g->ranges, g->nr_ranges, g->cap_ranges) =
				p->ranges[p->insts[i].range + k];
		*VEC_PUSH(g->insts, g->nr_insts, g->cap_insts) = in;
	}
	for (i = 0; i < p->noreturn.cap; i++)
		if (p->noreturn.slots[i].key)
			hmap_put(&g->noreturn, p->noreturn.slots[i].key,
				 p->noreturn.slots[i].key_len, 1);
	hmap_free(&p->noreturn);
	add_stats(&g->stats, &p->stats);
	free(remap);
	free(loc_remap);
	free(p->callees);
	free(p->insts);
	free(p->ranges);
	gen_params_free(&p->params);
	buf_free(&p->loc);
	memset(p, 0, sizeof(*p));
}

/*
 * The kernel maps file pages around each one touched (fault-around), so
 * reading 2,000 CU headers maps most of .debug_info.  The pages stay in
 * the page cache; only this process's view of them is dropped.
 */
static void release_file_pages(struct gen *g)
{
	Elf *elf = dwarf_getelf(g->dw);
	size_t len = 0;
	char *map = elf ? elf_rawfile(elf, &len) : NULL;

	if (map && !g->is_module)
		madvise(map, len, MADV_DONTNEED);
}

void gen_collect(struct gen *g)
{
	struct shared sh = { .g = g, .shown = -1 };
	Dwarf_Off off = 0, next;
	size_t hsize, cap = 0;
	pthread_t *tids;
	int n, t;

	while (dwarf_nextcu(g->dw, off, &next, &hsize, NULL, NULL, NULL) == 0) {
		*VEC_PUSH(sh.cu_die, sh.nr_cu, cap) = off + hsize;
		off = next;
	}
	if (!sh.nr_cu)
		die("%s: no compilation units in its DWARF", g->path);
	sh.parts = xcalloc(sh.nr_cu, sizeof(*sh.parts));
	sh.finished = xcalloc(sh.nr_cu, sizeof(*sh.finished));
	release_file_pages(g);
	pthread_mutex_init(&sh.lock, NULL);
	sh.own_handles = !g->is_module && !g->bias;
	n = sh.own_handles ? g->jobs : 1;
	if (n <= 1) {
		worker_main(&sh);
	} else {
		tids = xcalloc((size_t)n, sizeof(*tids));
		for (t = 0; t < n; t++)
			if (pthread_create(&tids[t], NULL, worker_main, &sh))
				die("cannot start a thread");
		for (t = 0; t < n; t++)
			pthread_join(tids[t], NULL);
		free(tids);
	}
	if (g->progress)
		fputc('\n', stderr);
	if (sh.merged != sh.nr_cu)
		die("internal error: %zu of %zu CUs merged", sh.merged, sh.nr_cu);
	pthread_mutex_destroy(&sh.lock);
	free(sh.finished);
	free(sh.parts);
	free(sh.cu_die);
}
