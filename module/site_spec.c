// SPDX-License-Identifier: GPL-2.0
/*
 * The "sites" file: each instance of each event with its arguments as a
 * BPF program at that instance reads them itself (uapi/inkprobe_site.h,
 * user/site/inkprobe_attach.c), from the same compiled arguments as the
 * handler's (fetch.c).
 */
#include <linux/build_bug.h>
#include <linux/debugfs.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/seq_file.h>
#include <linux/string.h>

#include "inkprobe.h"
#include "blob_store.h"
#include "debugfs_files.h"
#include "exit_probe.h"
#include "fetch.h"
#include "probe_event.h"
#include "site_spec.h"
#include "../lib/btf_lite.h"
#include "../lib/loc_op.h"
#include "../uapi/inkprobe_site.h"

/*
 * Argument @i of @p as a BPF program reads it itself (uapi/inkprobe_site.h):
 * a base, an optional read at it and the reads of "->", or no value, or a
 * location or type those steps cannot express.
 */
static void ink_fetch_spec(const struct ink_probe *p, unsigned int i, struct inkprobe_arg_spec *s)
{
	const struct ink_fetch *f = &p->ev->args[i];
	const struct ink_probe_arg *a = &p->args[i];
	struct ink_loc_op op[3];
	unsigned int k;
	u32 n, at = 0;

	BUILD_BUG_ON(INK_MAX_FIELDS > INKPROBE_SITE_MAX_READS);
	BUILD_BUG_ON(INK_MAX_ARGS > INKPROBE_SITE_MAX_ARGS);
	memset(s, 0, sizeof(*s));
	s->reg = INKPROBE_NO_REG;
	s->size = f->type->size;
	s->is_signed = f->type->is_signed;
	s->nr_reads = f->nr_reads;
	memcpy(s->field_off, a->field_off, sizeof(a->field_off));
	s->kind = INKPROBE_ARG_UNSUPPORTED;
	/* an r event's parameters are its call's entry's: not readable at an exit */
	if (f->type->is_string || f->duration || (p->ev->entry_args & BIT(i)))
		return;
	if (f->retval) {	/* %ax at an out-of-line copy's return, else none */
		s->kind = a->base_reg ? INKPROBE_ARG_VALUE : INKPROBE_ARG_NONE;
		s->reg = a->base_reg ? 0 : INKPROBE_NO_REG;
		return;
	}
	if (!a->loc) {
		s->kind = INKPROBE_ARG_NONE;
		return;
	}
	/* a base, at most one read at it, the end: nothing else is a spec */
	for (k = 0; k < ARRAY_SIZE(op); k++, at += n) {
		n = ink_loc_decode(a->loc + at, LOC_MAX_EXPR_LEN - at, &op[k]);
		if (!n)
			return;
		if (op[k].op == LOC_END_OF_EXPR)
			break;
	}
	if (k == 0 || k == ARRAY_SIZE(op))
		return;
	if (k == 2) {
		if (ink_loc_ops[op[1].op].effect != INK_EFF_DEREF)
			return;
		s->loc_size = op[1].size;
	}
	switch (ink_loc_ops[op[0].op].effect) {
	case INK_EFF_REG:
		s->reg = op[0].reg;
		s->val = op[0].val;
		break;
	case INK_EFF_CONST:
		s->val = op[0].val;
		break;
	case INK_EFF_SYM:
		if (!p->target->sym_addr[op[0].sym]) {	/* as eval_loc(): no value */
			s->kind = INKPROBE_ARG_NONE;
			return;
		}
		s->val = p->target->sym_addr[op[0].sym] + op[0].val;
		break;
	default:
		return;
	}
	s->kind = INKPROBE_ARG_VALUE;
}

/* ------------------------------------------------------------------ */
/* sites: each instance's argument specs, for BPF programs of its own  */

static void spec_show(struct seq_file *m, const struct ink_fetch *f,
		      const struct inkprobe_arg_spec *s)
{
	unsigned int j;

	seq_printf(m, " %s=", f->name);
	if (s->kind == INKPROBE_ARG_NONE) {
		seq_puts(m, "-");
		return;
	}
	if (s->kind != INKPROBE_ARG_VALUE) {
		seq_puts(m, "?");
		return;
	}
	seq_printf(m, "%c%u:", s->is_signed ? 's' : 'u', 8 * s->size);
	if (s->loc_size)
		seq_printf(m, "m%u@", s->loc_size);
	if (s->reg == INKPROBE_NO_REG)
		seq_printf(m, "c%lld", s->val);
	else
		seq_printf(m, "r%u%+lld", s->reg, s->val);
	for (j = 0; j < s->nr_reads; j++)
		seq_printf(m, ":%+d", s->field_off[j]);
}

/*
 * GRP/EVENT INDEX ADDRESS CALLER+0xOFF inlined|out-of-line live|off
 * NAME=SPEC... (Documentation/trace-events.rst); ADDRESS is 0 when off.
 * An r event's kprobe: "instance=I exit=E KIND" before its arguments.
 */
static int sites_show(struct seq_file *m, void *v)
{
	struct inkprobe_arg_spec spec;
	struct ink_event *ev;
	unsigned int i, j;

	mutex_lock(&ink_mutex);
	list_for_each_entry(ev, &ink_events, list) {
		for (i = 0; i < ev->nr_probes; i++) {
			const struct ink_probe *p = &ev->probes[i];

			if (p->exit_kind == INK_EXIT_ENTRY)	/* times calls, no record */
				continue;
			seq_printf(m, "%s/%s %u 0x%lx %s%s0x%x %s %s", ev->group, ev->name, i,
				   p->registered ? p->addr : 0UL,
				   ink_target_sym_name(p->target, p->sym),
				   ink_off_sign(p->caller_offset), ink_off_abs(p->caller_offset),
				   p->out_of_line ? "out-of-line" : "inlined",
				   p->registered ? "live" : "off");
			if (p->exit_kind)
				seq_printf(m, " instance=%u exit=%u %s", p->instance, p->exit,
					   ink_exit_kind_name(p->exit_kind));
			for (j = 0; j < ev->nr_args; j++) {
				ink_fetch_spec(p, j, &spec);
				spec_show(m, &ev->args[j], &spec);
			}
			seq_putc(m, '\n');
		}
	}
	mutex_unlock(&ink_mutex);
	return 0;
}

INK_DEFINE_SHOW_FOPS(sites);

void ink_site_spec_init(struct dentry *dir)
{
	debugfs_create_file("sites", 0400, dir, NULL, &sites_fops);
}
