// SPDX-License-Identifier: GPL-2.0
/*
 * The samples of a profile, kept as they came (their kernel callchains),
 * expanded into frames when printed.
 */
#include <linux/perf_event.h>
#include <stdlib.h>
#include <string.h>

#include "profile_report.h"
#include "../common/util.h"

/* The most kernel callchain entries of a sample kept (perf's default max stack is 127). */
#define PROFILE_MAX_CHAIN	512

struct kept {
	uint32_t pid, tid, cpu;
	uint64_t time, period;
	const char *comm;	/* interned */
	size_t first;		/* in profile.ips */
	uint32_t nr;
};

/* One frame of an expanded sample. */
struct frame {
	const char *name;	/* NULL: no symbol */
	bool inlined;
	uint64_t ip;		/* the callchain entry it comes from */
	uint64_t off;		/* from the symbol's start */
	const char *module;	/* NULL: vmlinux */
};

/* The frames of one callchain entry, as looked up once. */
struct span {
	size_t first;		/* in entry_cache.frames */
	uint32_t n;
};

/*
 * (callchain address, exact) -> u32, open addressing on the address: a
 * profile looks up every entry of every sample, and struct hmap's byte-wise
 * hash of a 16-byte key was the tool's own costliest function in a profile
 * run in a TCG guest.
 */
struct entry_slot {
	uint64_t ip;
	uint32_t val;
	bool exact, used;
};

struct entry_index {
	struct entry_slot *slots;
	size_t cap, len;	/* cap: a power of two */
};

/* @ip, @exact's slot: its own, else the empty one it would take. */
static size_t slot_of(const struct entry_index *x, uint64_t ip, bool exact)
{
	size_t i = (size_t)(((ip ^ exact) * 0x9e3779b97f4a7c15ULL) >> 32) & (x->cap - 1);

	while (x->slots[i].used && (x->slots[i].ip != ip || x->slots[i].exact != exact))
		i = (i + 1) & (x->cap - 1);
	return i;
}

static bool index_get(const struct entry_index *x, uint64_t ip, bool exact, uint32_t *val)
{
	size_t i;

	if (!x->cap)
		return false;
	i = slot_of(x, ip, exact);
	if (!x->slots[i].used)
		return false;
	*val = x->slots[i].val;
	return true;
}

static void index_put(struct entry_index *x, uint64_t ip, bool exact, uint32_t val)
{
	size_t i;

	if ((x->len + 1) * 2 > x->cap) {
		struct entry_index n = { .cap = x->cap ? 2 * x->cap : 1024, .len = x->len };

		n.slots = xcalloc(n.cap, sizeof(*n.slots));
		for (i = 0; i < x->cap; i++)
			if (x->slots[i].used)
				n.slots[slot_of(&n, x->slots[i].ip, x->slots[i].exact)] = x->slots[i];
		free(x->slots);
		*x = n;
	}
	i = slot_of(x, ip, exact);
	if (!x->slots[i].used) {
		x->slots[i] = (struct entry_slot){ .ip = ip, .exact = exact, .used = true };
		x->len++;
	}
	x->slots[i].val = val;
}

/* Every entry's frames by (address, exact): samples repeat addresses. */
struct entry_cache {
	struct entry_index index;	/* -> index in spans */
	struct span *spans;
	size_t nr_spans, cap_spans;
	struct frame *frames;
	size_t nr_frames, cap_frames;
};

struct profile {
	struct entry_cache *cache;
	struct ksyms *ksyms;
	const struct ink_frames *frames;
	profile_lookup_fn lookup;
	void *lookup_ctx;
	struct kept *samples;
	size_t nr, cap;
	uint64_t *ips;
	size_t nr_ips, cap_ips;
	uint32_t *span_of;	/* each of ips' span in cache->spans + 1, by profile_resolve() */
	size_t nr_span_of;
	struct str_pool comms;
};


/* The tool's own look-up: @k's symbols, @f's blobs. */
static int local_lookup(void *ctx, struct profile_entry *e, size_t n, char *why, size_t why_len)
{
	const struct profile *p = ctx;
	size_t i;

	(void)why;
	(void)why_len;
	for (i = 0; i < n; i++) {
		/* a return address's symbol is its call's, as its inline frames are */
		uint64_t at = e[i].exact ? e[i].ip : e[i].ip - 1;
		bool known = ksyms_lookup(p->ksyms, at, &e[i].sym) && e[i].sym.name;

		if (!known)
			e[i].sym.name = NULL;
		e[i].nr_inline = known ? ink_frames_at(p->frames, &e[i].sym, e[i].ip, false,
						       e[i].exact, e[i].inlined,
						       INK_INLINE_DEPTH) : 0;
	}
	return 0;
}

struct profile *profile_new_lookup(profile_lookup_fn fn, void *ctx)
{
	struct profile *p = calloc(1, sizeof(*p));

	if (!p)
		return NULL;
	p->cache = calloc(1, sizeof(*p->cache));
	if (!p->cache) {
		free(p);
		return NULL;
	}
	p->lookup = fn;
	p->lookup_ctx = ctx;
	return p;
}

struct profile *profile_new(struct ksyms *k, const struct ink_frames *f)
{
	struct profile *p = profile_new_lookup(local_lookup, NULL);

	if (!p)
		return NULL;
	p->lookup_ctx = p;
	p->ksyms = k;
	p->frames = f;
	return p;
}

void profile_free(struct profile *p)
{
	if (!p)
		return;
	str_pool_free(&p->comms);
	free(p->cache->index.slots);
	free(p->cache->spans);
	free(p->cache->frames);
	free(p->cache);
	free(p->samples);
	free(p->ips);
	free(p->span_of);
	free(p);
}

uint32_t profile_kernel_chain(const uint64_t *chain, uint32_t nr, uint64_t *out, uint32_t max)
{
	enum { UNKNOWN, KERNEL, OTHER } ctx = UNKNOWN;
	uint32_t i, n = 0;

	for (i = 0; i < nr; i++) {
		uint64_t a = chain[i];

		if (a >= (uint64_t)PERF_CONTEXT_MAX) {
			ctx = a == (uint64_t)PERF_CONTEXT_KERNEL ? KERNEL : OTHER;
			continue;
		}
		/* before any marker: kernel addresses are the upper half */
		if (ctx == OTHER || (ctx == UNKNOWN && !(a >> 63)))
			continue;
		if (n < max)
			out[n++] = a;
	}
	return n;
}

bool profile_add(struct profile *p, const struct perf_sample *s)
{
	uint64_t ips[PROFILE_MAX_CHAIN];
	uint32_t n = profile_kernel_chain(s->chain, s->nr, ips, PROFILE_MAX_CHAIN), i;
	const char *comm = s->comm ? s->comm : "[unknown]";
	struct kept *k;

	if (!n)
		return false;
	k = VEC_PUSH(p->samples, p->nr, p->cap);
	*k = (struct kept){
		.pid = s->pid, .tid = s->tid, .cpu = s->cpu, .time = s->time,
		.period = s->period, .comm = str_pool_intern(&p->comms, comm, strlen(comm)),
		.first = p->nr_ips, .nr = n,
	};
	for (i = 0; i < n; i++)
		*VEC_PUSH(p->ips, p->nr_ips, p->cap_ips) = ips[i];
	return true;
}

uint64_t profile_samples(const struct profile *p)
{
	return p->nr;
}

/* Caches looked-up entry @e's frames: its inline frames, then its symbol. */
static const struct span *cache_entry(const struct profile *p, const struct profile_entry *e)
{
	struct entry_cache *c = p->cache;
	bool known = e->sym.name != NULL;
	struct span *sp;
	uint32_t j;

	sp = VEC_PUSH(c->spans, c->nr_spans, c->cap_spans);
	sp->first = c->nr_frames;
	sp->n = e->nr_inline + 1;
	for (j = 0; j < e->nr_inline; j++)
		*VEC_PUSH(c->frames, c->nr_frames, c->cap_frames) = (struct frame){
			.name = e->inlined[j], .inlined = true, .ip = e->ip,
			.off = e->ip - e->sym.start, .module = e->sym.module,
		};
	*VEC_PUSH(c->frames, c->nr_frames, c->cap_frames) = (struct frame){
		.name = known ? e->sym.name : NULL, .ip = e->ip,
		.off = known ? e->ip - e->sym.start : 0, .module = known ? e->sym.module : NULL,
	};
	index_put(&c->index, e->ip, e->exact, (uint32_t)(c->nr_spans - 1));
	return sp;
}

/*
 * The frames of callchain entry @ip, innermost first: looked up once (all
 * of a profile's at once by profile_resolve(), else here one by one).
 */
static const struct span *entry_frames(const struct profile *p, uint64_t ip, bool exact)
{
	struct profile_entry e = { .ip = ip, .exact = exact };
	char why[256];
	uint32_t idx;

	if (index_get(&p->cache->index, ip, exact, &idx))
		return &p->cache->spans[idx];
	if (p->lookup(p->lookup_ctx, &e, 1, why, sizeof(why))) {
		e.sym.name = NULL;
		e.nr_inline = 0;
	}
	return cache_entry(p, &e);
}

int profile_resolve(struct profile *p, char *why, size_t why_len)
{
	size_t nr = 0, cap = 0, base = p->cache->nr_spans, i;
	uint32_t *span_of = xcalloc(p->nr_ips ? p->nr_ips : 1, sizeof(*span_of));
	struct profile_entry *todo = NULL;
	struct entry_index seen = { 0 };
	uint32_t k, idx;
	int ret;

	/* each entry's span: cached already, or the next of todo's */
	for (i = 0; i < p->nr; i++) {
		const struct kept *s = &p->samples[i];

		for (k = 0; k < s->nr; k++) {
			uint64_t ip = p->ips[s->first + k];

			if (index_get(&p->cache->index, ip, k == 0, &idx)) {
				span_of[s->first + k] = idx + 1;
				continue;
			}
			if (!index_get(&seen, ip, k == 0, &idx)) {
				idx = (uint32_t)nr;
				index_put(&seen, ip, k == 0, idx);
				*VEC_PUSH(todo, nr, cap) = (struct profile_entry){
					.ip = ip, .exact = k == 0,
				};
			}
			span_of[s->first + k] = (uint32_t)(base + idx + 1);
		}
	}
	ret = nr ? p->lookup(p->lookup_ctx, todo, nr, why, why_len) : 0;
	/* cached in todo's order: todo[i] is span base + i */
	for (i = 0; !ret && i < nr; i++)
		cache_entry(p, &todo[i]);
	if (!ret) {
		free(p->span_of);
		p->span_of = span_of;
		p->nr_span_of = p->nr_ips;
	} else {
		free(span_of);
	}
	free(seen.slots);
	free(todo);
	return ret;
}

/*
 * Sample @k's frames, innermost first: their indices in p->cache->frames
 * into @out (room for every entry's depth + 1).
 */
static size_t expand(const struct profile *p, const struct kept *k, uint32_t *out)
{
	size_t n = 0;
	uint32_t i, q;

	for (i = 0; i < k->nr; i++) {
		/* entry 0 was interrupted there; the others are return addresses */
		size_t at = k->first + i;
		const struct span *sp = at < p->nr_span_of ?
			&p->cache->spans[p->span_of[at] - 1] :
			entry_frames(p, p->ips[at], i == 0);

		for (q = sp->first; q < sp->first + sp->n; q++)
			out[n++] = q;
	}
	return n;
}

static uint32_t *frames_for(const struct profile *p)
{
	uint32_t max = 1;
	size_t i;

	for (i = 0; i < p->nr; i++)
		if (p->samples[i].nr > max)
			max = p->samples[i].nr;
	return xcalloc((size_t)max * (INK_INLINE_DEPTH + 1), sizeof(uint32_t));
}

/* ---- the report ---- */

struct row {
	char *name;		/* with " [inlined]" */
	uint64_t self, total;
	size_t last;		/* the last sample counted in total, + 1 */
};

static int cmp_row(const void *a, const void *b)
{
	const struct row *x = a, *y = b;

	if (x->self != y->self)
		return x->self < y->self ? 1 : -1;
	if (x->total != y->total)
		return x->total < y->total ? 1 : -1;
	return strcmp(x->name, y->name);
}

static void row_name(const struct frame *fr, char *buf, size_t n)
{
	snprintf(buf, n, "%s%s", fr->name ? fr->name : "[unknown]",
		 fr->inlined ? " [inlined]" : "");
}

/*
 * The row of cached frame @q (p->cache->frames), found by its name once:
 * samples repeat their frames, and naming and hashing each again cost a
 * tenth of a profile's time in a TCG guest.  @row_of: each cached frame's
 * row + 1, 0 while not known.
 */
static uint32_t row_of_frame(const struct profile *p, size_t q, uint32_t **row_of, size_t *cap,
			     struct hmap *index, struct row **rows, size_t *nr_rows,
			     size_t *cap_rows)
{
	char name[512];
	uint32_t r;

	if (*cap < p->cache->nr_frames) {
		size_t old = *cap;

		*cap = 2 * p->cache->nr_frames;
		*row_of = xrealloc(*row_of, *cap * sizeof(**row_of));
		memset(*row_of + old, 0, (*cap - old) * sizeof(**row_of));
	}
	if ((*row_of)[q])
		return (*row_of)[q] - 1;
	row_name(&p->cache->frames[q], name, sizeof(name));
	if (!hmap_get(index, name, strlen(name), &r)) {
		*VEC_PUSH(*rows, *nr_rows, *cap_rows) = (struct row){ .name = xstrdup(name) };
		r = (uint32_t)(*nr_rows - 1);
		hmap_put(index, name, strlen(name), r);
	}
	(*row_of)[q] = r + 1;
	return r;
}

void profile_print_report(const struct profile *p, const struct profile_info *info,
			  unsigned int nr_blobs, FILE *out)
{
	uint32_t *fr = frames_for(p), *row_of = NULL;
	struct hmap index = { 0 };
	struct row *rows = NULL;
	size_t nr_rows = 0, cap = 0, cap_row_of = 0, i, j, n;
	double all = p->nr ? (double)p->nr : 1;

	for (i = 0; i < p->nr; i++) {
		n = expand(p, &p->samples[i], fr);
		for (j = 0; j < n; j++) {
			uint32_t r = row_of_frame(p, fr[j], &row_of, &cap_row_of, &index, &rows,
						  &nr_rows, &cap);

			rows[r].self += j == 0;
			if (rows[r].last != i + 1) {
				rows[r].last = i + 1;
				rows[r].total++;
			}
		}
	}
	qsort(rows, nr_rows, sizeof(*rows), cmp_row);
	fprintf(out, "# inkprobe profile: %llu samples, ", (unsigned long long)p->nr);
	if (info->hz)
		fprintf(out, "%u Hz ", info->hz);
	fprintf(out, "%s, %.1f s, %s; inline frames from %u blob%s%s\n", info->event,
		info->seconds, info->scope, nr_blobs, nr_blobs == 1 ? "" : "s",
		info->blobs_in_module ? " in inkprobe.ko" : "");
	fputs("#  self%  total%  samples  function\n", out);
	for (i = 0; i < nr_rows; i++) {
		fprintf(out, "%7.2f %7.2f %8llu  %s\n", 100.0 * (double)rows[i].self / all,
			100.0 * (double)rows[i].total / all, (unsigned long long)rows[i].self,
			rows[i].name);
		free(rows[i].name);
	}
	free(rows);
	free(row_of);
	free(fr);
	hmap_free(&index);
}

/* ---- folded stacks ---- */

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

void profile_print_folded(const struct profile *p, FILE *out)
{
	uint32_t *fr = frames_for(p);
	char **lines = xcalloc(p->nr + 1, sizeof(*lines));
	size_t i, j, n, count;

	for (i = 0; i < p->nr; i++) {
		struct buf b = { 0 };

		n = expand(p, &p->samples[i], fr);
		buf_add(&b, p->samples[i].comm, strlen(p->samples[i].comm));
		for (j = n; j-- > 0;) {
			const struct frame *f = &p->cache->frames[fr[j]];
			const char *name = f->name ? f->name : "[unknown]";

			buf_add(&b, ";", 1);
			buf_add(&b, name, strlen(name));
			if (f->inlined)
				buf_add(&b, "_[i]", 4);
		}
		buf_add(&b, "", 1);
		lines[i] = (char *)b.data;
	}
	qsort(lines, p->nr, sizeof(*lines), cmp_str);
	for (i = 0; i < p->nr; i = j) {
		for (j = i + 1, count = 1; j < p->nr && !strcmp(lines[i], lines[j]); j++)
			count++;
		fprintf(out, "%s %zu\n", lines[i], count);
	}
	for (i = 0; i < p->nr; i++)
		free(lines[i]);
	free(lines);
	free(fr);
}

/* ---- perf script ---- */

void profile_print_perf_script(const struct profile *p, FILE *out)
{
	uint32_t *fr = frames_for(p);
	size_t i, j, n;

	for (i = 0; i < p->nr; i++) {
		const struct kept *k = &p->samples[i];

		fprintf(out, "%s %u/%u [%03u] %llu.%06llu: %llu cpu-clock:\n", k->comm, k->pid,
			k->tid, k->cpu, (unsigned long long)(k->time / 1000000000ULL),
			(unsigned long long)(k->time % 1000000000ULL / 1000),
			(unsigned long long)k->period);
		n = expand(p, k, fr);
		for (j = 0; j < n; j++) {
			const struct frame *f = &p->cache->frames[fr[j]];

			if (!f->name)
				fprintf(out, "\t%016llx [unknown] ([unknown])\n",
					(unsigned long long)f->ip);
			else if (f->inlined)
				fprintf(out, "\t%016llx %s (inlined)\n", (unsigned long long)f->ip,
					f->name);
			else
				fprintf(out, "\t%016llx %s+0x%llx ([%s])\n",
					(unsigned long long)f->ip, f->name,
					(unsigned long long)f->off,
					f->module ? f->module : "kernel.kallsyms");
		}
		fputc('\n', out);
	}
	free(fr);
}
