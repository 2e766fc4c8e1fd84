// SPDX-License-Identifier: GPL-2.0
/*
 * Which instances of the loaded blobs a TARGET names (probe.h, struct
 * target_spec), and an event's probes made from them.
 */
#include <linux/string.h>

#include "blob_store.h"
#include "error_log.h"
#include "exit_probe.h"
#include "fetch.h"
#include "name_index.h"
#include "probe.h"
#include "probe_event.h"
#include "../lib/blob.h"
#include "../lib/btf_lite.h"

/* "foo" matches symbols "foo" and its clones/parts "foo.isra.0", "foo.cold" */
static bool caller_matches(const char *sym, const char *want)
{
	size_t n = strlen(want);

	return !strncmp(sym, want, n) && (sym[n] == '\0' || sym[n] == '.');
}

static bool instance_matches(const struct ink_target *t, const struct ink_instance *in,
			     const struct target_spec *ts)
{
	const char *callee = ink_btf_name(&t->btf, in->callee_id);
	const char *caller = ink_btf_name(&t->btf, in->caller_id);

	if (ts->has_off)
		return in->caller_offset == ts->off && !strcmp(caller, ts->caller) &&
		       (!*ts->func || !strcmp(callee, ts->func));
	if (strcmp(callee, ts->func))
		return false;
	/*
	 * The rest of a split function (NAME.part.N) is entered only from a
	 * copy of its head, which is probed: only named exactly is it probed
	 * too, else each call would be seen twice.
	 */
	if (in->flags & BTF_INLINE_EXT_SPLIT_PART)
		return !strcmp(caller, ts->caller);
	return !*ts->caller || caller_matches(caller, ts->caller);
}

typedef int (*match_fn)(struct ink_target *t, const struct ink_instance *in, void *arg);

/*
 * The instances of @t that @ts may name, through the name index: its
 * function's (its caller's, for CALLER+OFF alone).  False when the index
 * cannot tell: then every instance is looked at.
 */
static bool narrow(struct ink_target *t, const struct target_spec *ts,
		   struct ink_name_span *span)
{
	if (*ts->func)
		return !ink_name_index_find(t, INK_NAME_CALLEE, ts->func, span);
	if (ts->has_off)
		return !ink_name_index_find(t, INK_NAME_CALLER, ts->caller, span);
	return false;
}

/* Walks matching instances, in blob order; @fn returns nonzero to stop. */
static int walk_matches(const struct target_spec *ts, match_fn fn, void *arg)
{
	struct ink_instance_iter it;
	struct ink_name_span span;
	struct ink_instance in;
	struct ink_target *t;
	u32 i;
	int ret;

	list_for_each_entry(t, &ink_targets, list) {
		if (*ts->mod && strcmp(ts->mod, t->name))
			continue;
		if (narrow(t, ts, &span)) {
			for (i = 0; i < span.count; i++) {
				ink_name_span_get(t, &span, i, &in);
				if (!instance_matches(t, &in, ts))
					continue;
				ret = fn(t, &in, arg);
				if (ret)
					return ret;
			}
			continue;
		}
		ink_instance_iter_init(&it, &t->blob);
		while (ink_instance_next(&it, &in)) {
			if (!instance_matches(t, &in, ts))
				continue;
			ret = fn(t, &in, arg);
			if (ret)
				return ret;
		}
	}
	return 0;
}

struct match_ctx {
	struct ink_event *ev;
	bool exits;			/* an r event: a probe per exit */
	bool paired;			/* and at each entry too ($duration, arguments) */
	unsigned int count;		/* probes */
	unsigned int instances;		/* instances matched */
	unsigned int skipped;		/* r: of them, those without known exits */
	unsigned int no_probe;		/* NO_PROBE records named: never probed */
	const char *callee;		/* CALLER+OFF: the one function there */
	bool ambiguous;
};

static int count_match(struct ink_target *t, const struct ink_instance *in, void *arg)
{
	struct match_ctx *m = arg;
	const char *callee = ink_btf_name(&t->btf, in->callee_id);

	/* code kprobes refuse (noinstr, entry, NOKPROBE...): ranges for stacks only */
	if (in->flags & BTF_INLINE_EXT_NO_PROBE) {
		m->no_probe++;
		return 0;
	}
	if (m->callee && strcmp(m->callee, callee))
		m->ambiguous = true;
	m->callee = callee;
	m->instances++;
	if (!m->exits || (in->flags & BTF_INLINE_EXT_OUT_OF_LINE))
		m->count++;
	else if (in->nr_exits)
		m->count += in->nr_exits + m->paired;
	else
		m->skipped++;
	return 0;
}

/*
 * @ev's next probe, on @in, at @offset of its caller; an r event's: exit
 * @exit of kind @kind (0: a p event's).
 */
static int fill_probe(struct match_ctx *m, struct ink_target *t, const struct ink_instance *in,
		      s32 offset, u8 kind, u16 exit)
{
	struct ink_event *ev = m->ev;
	struct ink_probe *p = &ev->probes[m->count];
	struct ink_range_iter r;
	unsigned int i;
	s32 start;
	u32 len;
	int ret;

	p->ev = ev;
	p->target = t;
	t->users++;
	p->sym = (u32)ink_blob_symbol(&t->blob, in->caller_id);
	p->caller_offset = offset;
	p->exit_kind = kind;
	p->exit = exit;
	p->callee_id = in->callee_id;
	p->entry_offset = in->entry_offset;
	p->depth = in->depth;
	p->out_of_line = in->flags & BTF_INLINE_EXT_OUT_OF_LINE;
	p->instance = m->instances;
	p->ranges = in->ranges;
	p->ranges_len = in->ranges_len;
	p->nr_ranges = in->nr_ranges;
	ink_range_iter_init(&r, in);
	while (ink_range_next(&r, &start, &len)) {
		if (!p->code_len)
			p->first_range = start;
		p->code_len += len;
	}
	for (i = 0; i < ev->nr_args; i++) {
		ink_log_set_index(INK_WORD_ARGS + i);
		ret = ink_fetch_compile(&ev->args[i], &p->args[i], t, in, m->count == 0);
		if (ret)
			return ret;
	}
	m->count++;
	return 0;
}

/*
 * A p event: a probe at the instance's probe pc.  An r event: a kretprobe
 * there for an out-of-line copy; for an inlined one, a probe at each of its
 * exits, consecutive (exit_probe.c relies on it), after one at its probe
 * pc that keeps the call's time and arguments if the event has $duration
 * or arguments (a paired event); or none when its
 * exits are not known.
 */
static int fill_match(struct ink_target *t, const struct ink_instance *in, void *arg)
{
	struct match_ctx *m = arg;
	struct ink_exit_iter it;
	s32 offset;
	u16 exit = 0;
	u8 kind;
	int ret = 0;

	if (in->flags & BTF_INLINE_EXT_NO_PROBE)	/* as count_match() */
		return 0;
	if (!m->exits) {
		ret = fill_probe(m, t, in, (s32)in->caller_offset, 0, 0);
	} else if (in->flags & BTF_INLINE_EXT_OUT_OF_LINE) {
		ret = fill_probe(m, t, in, (s32)in->caller_offset, INK_EXIT_RETURN, 0);
	} else if (!in->nr_exits) {
		m->skipped++;
	} else {
		if (m->paired)
			ret = fill_probe(m, t, in, (s32)in->caller_offset, INK_EXIT_ENTRY, 0);
		ink_exit_iter_init(&it, in);
		while (!ret && ink_exit_next(&it, &offset, &kind))
			ret = fill_probe(m, t, in, offset, kind, exit++);
	}
	m->instances++;
	return ret;
}

void ink_match_count(const struct target_spec *ts, struct ink_event *ev, unsigned int *count,
		     bool *ambiguous)
{
	struct match_ctx m = { .exits = ev->is_return, .paired = ev->paired };

	walk_matches(ts, count_match, &m);
	*count = m.count;
	*ambiguous = m.ambiguous;
	ev->nr_instances = m.instances;
	ev->nr_skipped = m.skipped;
	ev->nr_no_probe = m.no_probe;
}

int ink_match_fill(const struct target_spec *ts, struct ink_event *ev)
{
	struct match_ctx m = { .ev = ev, .exits = ev->is_return, .paired = ev->paired };
	int ret;

	ret = walk_matches(ts, fill_match, &m);
	ev->nr_probes = m.count + (ret ? 1 : 0);	/* the failed one holds a target ref */
	return ret;
}
