// SPDX-License-Identifier: GPL-2.0
/*
 * The "probes" file: definitions in kprobe_events' grammar
 * (Documentation/control.rst), one kprobe per instance, and the handler.
 *
 *   p[:[GRP/]EVENT] TARGET [FETCHARG...] [stacktrace] [strict]   define
 *   -:[GRP/]EVENT                          remove
 *   TARGET: [MOD:]FUNC | [MOD:]FUNC@CALLER | [MOD:]CALLER+OFF | [MOD:]FUNC@CALLER+OFF
 *
 * Opening with O_TRUNC (">") removes every event first; ">>" appends.
 * Grammar and argument errors refuse a definition as a whole.  kprobes may
 * still refuse single instances: the definition attaches to the others,
 * each refusal in error_log and counted (stats: refused=N), unless it
 * says "strict" (all or nothing) or every instance is refused.
 */
#include <linux/ctype.h>
#include <linux/debugfs.h>
#include <linux/delay.h>
#include <linux/fs.h>
#include <linux/kprobes.h>
#include <linux/module.h>
#include <linux/percpu.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/trace_clock.h>
#include <linux/uaccess.h>

#include <asm/text-patching.h>

#include "inkprobe.h"

static unsigned int max_probes = 4096;
module_param(max_probes, uint, 0444);
MODULE_PARM_DESC(max_probes, "most instances one definition may attach to");

LIST_HEAD(ink_events);
static u32 next_event_id = 1;
static struct dentry *events_dir;

struct ink_group {
	struct list_head list;
	char name[INK_NAME_LEN];
	struct dentry *dir;
	unsigned int users;
};
static LIST_HEAD(groups);

/* ------------------------------------------------------------------ */
/* Handler                                                             */

static int ink_pre_handler(struct kprobe *kp, struct pt_regs *regs)
{
	struct ink_probe *p = container_of(kp, struct ink_probe, kp);
	struct ink_event *ev = p->ev;
	struct ink_record *r;
	unsigned int i;
	u8 *state;
	u64 *args;

	if (ev->tev)
		ink_tev_hit(p, regs);	/* ftrace, perf, BPF */
	if (!READ_ONCE(ev->enabled))
		return 0;
	this_cpu_inc(ev->stats->hits);
	r = ink_ring_reserve(ev->rec_max);
	if (!r) {
		this_cpu_inc(ev->stats->lost);
		return 0;
	}
	r->ts = trace_clock_local();
	r->event_id = ev->id;
	r->probe_idx = p - ev->probes;
	r->pid = current->pid;
	memcpy(r->comm, current->comm, TASK_COMM_LEN);
	r->comm[TASK_COMM_LEN - 1] = '\0';
	r->nr_args = ev->nr_args;
	r->nr_strs = ev->nr_strs;
	r->nr_frames = 0;
	args = ink_rec_args(r);
	state = ink_rec_arg_state(r);
	for (i = 0; i < ev->nr_args; i++) {
		const struct ink_fetch *f = &ev->args[i];

		state[i] = ink_fetch_eval(p, i, regs, &args[i],
					  ink_fetch_is_str(f) ? ink_rec_str(r, f->str_slot) : NULL);
	}
	if (ev->stacktrace) {
		u8 flags[INK_MAX_FRAMES];

		r->nr_frames = ink_stack_capture(ink_rec_frames(r), flags, regs,
						 (unsigned long)kp->addr);
		memcpy(ink_rec_frame_flags(r), flags, r->nr_frames);
	}
	r->len = ink_rec_len(r->nr_args, r->nr_strs, r->nr_frames);
	ink_ring_commit(r);
	this_cpu_inc(ev->stats->written);
	return 0;
}
NOKPROBE_SYMBOL(ink_pre_handler);

/* ------------------------------------------------------------------ */
/* Registration                                                        */

static unsigned long probe_addr(const struct ink_probe *p)
{
	return p->target->sym_addr[p->sym] + p->caller_offset;
}

static const char *caller_name(const struct ink_probe *p)
{
	return ink_btf_name(&p->target->btf, p->target->blob.syms[p->sym].btf_id);
}

/* Instance @p is not placed, for @err (-ENOEXEC: its caller did not resolve): say why. */
static void refuse(struct ink_probe *p, int err, const char *cmd, unsigned int pos)
{
	char why[160], name[KSYM_NAME_LEN];
	unsigned long off, size;

	p->refused = err;
	if (err == -ENOEXEC) {
		/* what kallsyms has where the blob says the caller is, if known */
		const struct inkprobe_symbol *s = &p->target->blob.syms[p->sym];
		unsigned long at = p->target->is_module ? 0 :
				   (unsigned long)&sprint_symbol + s->addr;

		if (at && ink_kallsyms_at(at, name, &off, &size, NULL))
			ink_error_log(cmd, pos,
				      "%s+0x%x: caller %s in %s does not match kallsyms (it has %s+0x%lx/0x%lx there): refused",
				      caller_name(p), p->caller_offset, caller_name(p),
				      p->target->name, name, off, size);
		else
			ink_error_log(cmd, pos,
				      "%s+0x%x: caller %s in %s does not match kallsyms: refused",
				      caller_name(p), p->caller_offset, caller_name(p),
				      p->target->name);
		return;
	}
	ink_refusal_reason(why, sizeof(why), p->target->mod, probe_addr(p), err);
	ink_error_log(cmd, pos, "kprobe at 0x%lx (%s+0x%x) refused: %s", probe_addr(p),
		      caller_name(p), p->caller_offset, why);
}

/*
 * Registers each of kps[0..n) with @flags (0 or KPROBE_FLAG_DISABLED);
 * the refused ones are logged and marked.  kps[] keeps the registered
 * ones, first; returns how many.
 */
static unsigned int register_each(struct kprobe **kps, unsigned int n, u32 flags,
				  const char *cmd, unsigned int pos)
{
	unsigned int i, ok = 0;
	int ret;

	for (i = 0; i < n; i++) {
		struct ink_probe *p = container_of(kps[i], struct ink_probe, kp);

		memset(&p->kp, 0, sizeof(p->kp));
		p->kp.addr = (kprobe_opcode_t *)probe_addr(p);
		p->kp.pre_handler = ink_pre_handler;
		p->kp.flags = flags;
		ret = register_kprobe(&p->kp);
		if (ret)
			refuse(p, ret, cmd, pos);
		else
			kps[ok++] = kps[i];
	}
	return ok;
}

/*
 * The site only kprobes_switched_on() probes; nothing calls it.  notrace:
 * no ftrace call at its start, so the kprobe there is an int3.
 */
static noinline notrace void switch_probe_site(void)
{
	barrier();
}

static int switch_probe_pre(struct kprobe *kp, struct pt_regs *regs)
{
	return 0;
}
NOKPROBE_SYMBOL(switch_probe_pre);

static void switch_probe_post(struct kprobe *kp, struct pt_regs *regs, unsigned long flags)
{
}
NOKPROBE_SYMBOL(switch_probe_post);

/*
 * kprobes' global switch, debug/kprobes/enabled: kprobes_all_disarmed is
 * not exported, and the debugfs file cannot be read from the kernel.  A
 * kprobe registered enabled is armed (its int3 written) only while the
 * switch is on.  The post handler keeps it from being optimized: its int3
 * stays until it is unregistered.  Unknown (kprobes refuse the site): off.
 */
static bool kprobes_switched_on(void)
{
	struct kprobe kp = {
		.addr = (kprobe_opcode_t *)switch_probe_site,
		.pre_handler = switch_probe_pre,
		.post_handler = switch_probe_post,
	};
	u8 insn = 0;

	if (register_kprobe(&kp))
		return false;
	/* kp.addr: past an endbr64, where kprobes put the int3 */
	if (copy_from_kernel_nofault(&insn, kp.addr, 1))
		insn = 0;
	unregister_kprobe(&kp);
	return insn == INT3_INSN_OPCODE;
}

/*
 * Registers the probes of @ev on live targets (only @only if set): those
 * kprobes accept; each refused one is logged and marked.  Fails when
 * nothing could be placed, or when one was refused and @ev is strict:
 * then none stays registered.
 *
 * They are registered disabled and enabled in a second pass, as
 * kprobe_events does: a kprobe registered enabled is queued for jump
 * optimization at once, and the optimizer holds kprobe_mutex across
 * synchronize_rcu_tasks() while the next register_kprobe() waits for it.
 * Enabled in one quick pass, the optimizer runs once for all of them.
 *
 * But while kprobes are switched off, enable_kprobe() does not enable an
 * optimizable kprobe for good (only the kprobe, not the aggregate kprobes
 * made for it), and switching kprobes on does not arm it.  The probes are
 * then registered enabled: they are armed when kprobes are switched on.
 */
static int arm(struct ink_event *ev, struct ink_target *only, const char *cmd,
	       unsigned int pos)
{
	unsigned int i, k, n = 0, tried = 0;
	int ret, first = 0;
	bool on;

	for (i = 0; i < ev->nr_probes; i++) {
		struct ink_probe *p = &ev->probes[i];

		if (p->registered || !p->target->live || (only && p->target != only))
			continue;
		tried++;
		p->refused = 0;
		if (!p->target->sym_addr[p->sym])
			refuse(p, -ENOEXEC, cmd, pos);
		else
			ev->kps[n++] = &p->kp;
	}
	if (!tried)
		return 0;
	on = kprobes_switched_on();
	if (ev->strict && n < tried)
		n = 0;
	else
		n = register_each(ev->kps, n, on ? KPROBE_FLAG_DISABLED : 0, cmd, pos);
	for (i = 0, k = 0; on && i < n; i++) {
		ret = enable_kprobe(ev->kps[i]);
		if (!ret) {
			ev->kps[k++] = ev->kps[i];
			continue;
		}
		ink_error_log(cmd, pos, "kprobe at %pS refused: cannot be armed (%d)",
			      ev->kps[i]->addr, ret);
		unregister_kprobe(ev->kps[i]);
		container_of(ev->kps[i], struct ink_probe, kp)->refused = ret;
	}
	if (on)
		n = k;
	if (n && on && !kprobes_switched_on()) {
		/* switched off meanwhile */
		unregister_kprobes(ev->kps, n);
		n = register_each(ev->kps, n, 0, cmd, pos);
	}
	if (n && n < tried && ev->strict) {
		unregister_kprobes(ev->kps, n);
		n = 0;
	}
	for (i = 0; i < n; i++)
		container_of(ev->kps[i], struct ink_probe, kp)->registered = true;
	if (n)
		return 0;
	/* nothing placed: the first refusal's errno */
	for (i = 0, k = 0; i < ev->nr_probes; i++) {
		const struct ink_probe *p = &ev->probes[i];

		if (p->refused && (!only || p->target == only)) {
			first = first ?: p->refused;
			k++;
		}
	}
	if (ev->strict && k < tried)
		ink_error_log(cmd, pos, "strict: %u of %u instances refused: none attached", k,
			      tried);
	else
		ink_error_log(cmd, pos, "no instance could be attached: %u of %u refused", k,
			      tried);
	return first ?: -EINVAL;
}

static void disarm(struct ink_event *ev, struct ink_target *only)
{
	unsigned int i, n = 0;

	for (i = 0; i < ev->nr_probes; i++) {
		struct ink_probe *p = &ev->probes[i];

		if (only && p->target != only)
			continue;
		p->refused = 0;		/* tried again when its target comes back */
		if (p->registered)
			ev->kps[n++] = &p->kp;
	}
	if (n)
		unregister_kprobes(ev->kps, n);	/* waits for running handlers */
	for (i = 0; i < n; i++)
		container_of(ev->kps[i], struct ink_probe, kp)->registered = false;
}

void ink_probes_target_gone(struct ink_target *t)
{
	struct ink_event *ev;

	list_for_each_entry(ev, &ink_events, list)
		disarm(ev, t);
}

void ink_probes_target_back(struct ink_target *t)
{
	struct ink_event *ev;
	char what[2 * INK_NAME_LEN + 2];

	list_for_each_entry(ev, &ink_events, list) {
		snprintf(what, sizeof(what), "%s/%s", ev->group, ev->name);
		arm(ev, t, what, 0);
	}
}

struct ink_event *ink_event_by_id(u32 id)
{
	struct ink_event *ev;

	list_for_each_entry(ev, &ink_events, list)
		if (ev->id == id)
			return ev;
	return NULL;
}

/* ------------------------------------------------------------------ */
/* events/GROUP/EVENT/enable                                           */

static ssize_t enable_read(struct file *file, char __user *ubuf, size_t count,
			   loff_t *ppos)
{
	struct ink_event *ev = file->private_data;
	char buf[3] = { READ_ONCE(ev->enabled) ? '1' : '0', '\n', 0 };

	return simple_read_from_buffer(ubuf, count, ppos, buf, 2);
}

static ssize_t enable_write(struct file *file, const char __user *ubuf, size_t count,
			    loff_t *ppos)
{
	struct ink_event *ev = file->private_data;
	bool on;
	int ret = kstrtobool_from_user(ubuf, count, &on);

	if (ret)
		return ret;
	WRITE_ONCE(ev->enabled, on);
	return count;
}

static int enable_open(struct inode *inode, struct file *file)
{
	int ret = ink_open_admin(inode, file);

	return ret ? ret : simple_open(inode, file);
}

static const struct file_operations enable_fops = {
	.owner = THIS_MODULE,
	.open = enable_open,
	.read = enable_read,
	.write = enable_write,
	.llseek = default_llseek,
};

static struct ink_group *group_get(const char *name)
{
	struct ink_group *g;

	list_for_each_entry(g, &groups, list)
		if (!strcmp(g->name, name))
			goto found;
	g = kzalloc(sizeof(*g), GFP_KERNEL);
	if (!g)
		return NULL;
	strscpy(g->name, name, sizeof(g->name));
	g->dir = debugfs_create_dir(name, events_dir);
	list_add_tail(&g->list, &groups);
found:
	g->users++;
	return g;
}

static void group_put(const char *name)
{
	struct ink_group *g;

	list_for_each_entry(g, &groups, list) {
		if (strcmp(g->name, name))
			continue;
		if (--g->users == 0) {
			debugfs_remove_recursive(g->dir);
			list_del(&g->list);
			kfree(g);
		}
		return;
	}
}

/* ------------------------------------------------------------------ */
/* Events                                                              */

static void event_free(struct ink_event *ev)
{
	unsigned int i;

	for (i = 0; i < ev->nr_probes; i++)
		if (ev->probes[i].target)
			ev->probes[i].target->users--;
	for (i = 0; i < ev->nr_args; i++)
		ink_fetch_free(&ev->args[i]);
	ink_tev_free(ev);
	kvfree(ev->probes);
	kvfree(ev->kps);
	free_percpu(ev->stats);
	kfree(ev->target_text);
	kfree(ev);
}

/* Unregisters, removes from the list and from debugfs, frees. */
static void event_delete(struct ink_event *ev)
{
	disarm(ev, NULL);
	list_del(&ev->list);
	debugfs_remove_recursive(ev->dir);
	group_put(ev->group);
	event_free(ev);
}

static bool valid_name(const char *s)
{
	size_t i, n = strlen(s);

	if (!n || n >= INK_NAME_LEN || !(isalpha(s[0]) || s[0] == '_'))
		return false;
	for (i = 1; i < n; i++)
		if (!(isalnum(s[i]) || s[i] == '_'))
			return false;
	return true;
}

static struct ink_event *find_event(const char *group, const char *name)
{
	struct ink_event *ev;

	list_for_each_entry(ev, &ink_events, list)
		if ((!group || !strcmp(ev->group, group)) && !strcmp(ev->name, name))
			return ev;
	return NULL;
}

static bool event_uses(const struct ink_event *ev, const struct ink_target *t)
{
	unsigned int i;

	for (i = 0; i < ev->nr_probes; i++)
		if (ev->probes[i].target == t)
			return true;
	return false;
}

/*
 * "GRP/EVENT, GRP/EVENT and N more" into @buf: the events named @name
 * (@t NULL; any group) or using blob @t; returns how many.
 */
static unsigned int list_events(char *buf, size_t n, const char *name, const struct ink_target *t)
{
	unsigned int count = 0, shown = 0;
	struct ink_event *ev;
	size_t len = 0, add;

	buf[0] = '\0';
	list_for_each_entry(ev, &ink_events, list) {
		if (t ? !event_uses(ev, t) : strcmp(ev->name, name))
			continue;
		count++;
		/* room for this one and for " and NNNN more" */
		add = strlen(ev->group) + strlen(ev->name) + (shown ? 3 : 1);
		if (shown == count - 1 && len + add + 16 < n) {
			len += scnprintf(buf + len, n - len, "%s%s/%s", shown ? ", " : "",
					 ev->group, ev->name);
			shown++;
		}
	}
	if (count > shown)
		scnprintf(buf + len, n - len, " and %u more", count - shown);
	return count;
}

unsigned int ink_events_using(const struct ink_target *t, char *buf, size_t n)
{
	return list_events(buf, n, NULL, t);
}

/* TARGET: [MOD:]FUNC | [MOD:]FUNC@CALLER | [MOD:]CALLER+OFF | [MOD:]FUNC@CALLER+OFF */
struct target_spec {
	char mod[INKPROBE_TARGET_NAME_LEN];
	char func[KSYM_NAME_LEN];
	char caller[KSYM_NAME_LEN];
	bool has_off;
	u32 off;
};

static int parse_target(struct target_spec *ts, const char *cmd, unsigned int pos,
			const char *text)
{
	char buf[KSYM_NAME_LEN + INKPROBE_TARGET_NAME_LEN + 24], *s, *c;
	unsigned long long off;

	memset(ts, 0, sizeof(*ts));
	if (strscpy(buf, text, sizeof(buf)) < 0)
		goto too_long;
	s = buf;
	c = strchr(s, ':');
	if (c) {
		*c = '\0';
		if (strscpy(ts->mod, s, sizeof(ts->mod)) < 0 || !*ts->mod)
			goto bad;
		s = c + 1;
	}
	c = strchr(s, '+');
	if (c) {
		*c = '\0';
		if (kstrtoull(c + 1, 0, &off) || off > U32_MAX) {
			ink_error_log(cmd, pos + (c + 1 - buf), "bad offset");
			return -EINVAL;
		}
		ts->has_off = true;
		ts->off = off;
		c = strchr(s, '@');	/* FUNC@CALLER+OFF: one function's instance */
		if (c) {
			*c = '\0';
			if (strscpy(ts->func, s, sizeof(ts->func)) < 0)
				goto too_long;
			s = c + 1;
			if (!*ts->func)
				goto bad;
		}
		if (strscpy(ts->caller, s, sizeof(ts->caller)) < 0)
			goto too_long;
		if (!*ts->caller)
			goto bad;
		return 0;
	}
	c = strchr(s, '@');
	if (c) {
		*c = '\0';
		if (strscpy(ts->caller, c + 1, sizeof(ts->caller)) < 0)
			goto too_long;
		if (!*ts->caller)
			goto bad;
	}
	if (strscpy(ts->func, s, sizeof(ts->func)) < 0)
		goto too_long;
	if (!*ts->func)
		goto bad;
	return 0;
too_long:
	ink_error_log(cmd, pos, "target name too long");
	return -E2BIG;
bad:
	ink_error_log(cmd, pos, "bad target: expected [MOD:]FUNC, FUNC@CALLER, CALLER+OFF or FUNC@CALLER+OFF");
	return -EINVAL;
}

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

/* Walks matching instances; @fn returns nonzero to stop. */
static int walk_matches(const struct target_spec *ts, match_fn fn, void *arg)
{
	struct ink_instance_iter it;
	struct ink_instance in;
	struct ink_target *t;
	int ret;

	list_for_each_entry(t, &ink_targets, list) {
		if (*ts->mod && strcmp(ts->mod, t->name))
			continue;
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
	const char *cmd;
	unsigned int *arg_pos;
	unsigned int count;
	const char *callee;		/* CALLER+OFF: the one function there */
	const struct ink_target *callee_t;
	bool ambiguous;
};

static int count_match(struct ink_target *t, const struct ink_instance *in, void *arg)
{
	struct match_ctx *m = arg;
	const char *callee = ink_btf_name(&t->btf, in->callee_id);

	if (m->callee && strcmp(m->callee, callee))
		m->ambiguous = true;
	m->callee = callee;
	m->count++;
	return 0;
}

static int fill_match(struct ink_target *t, const struct ink_instance *in, void *arg)
{
	struct match_ctx *m = arg;
	struct ink_event *ev = m->ev;
	struct ink_probe *p = &ev->probes[m->count];
	unsigned int i;
	int ret;

	p->ev = ev;
	p->target = t;
	t->users++;
	p->sym = (u32)ink_blob_symbol(&t->blob, in->caller_id);
	p->caller_offset = in->caller_offset;
	p->callee_id = in->callee_id;
	p->entry_offset = in->entry_offset;
	p->out_of_line = in->flags & BTF_INLINE_EXT_OUT_OF_LINE;
	{
		struct ink_range_iter r;
		s32 start;
		u32 len;

		ink_range_iter_init(&r, in);
		while (ink_range_next(&r, &start, &len)) {
			if (!p->code_len)
				p->first_range = start;
			p->code_len += len;
		}
	}
	for (i = 0; i < ev->nr_args; i++) {
		ret = ink_fetch_compile(&ev->args[i], &p->args[i], m->cmd, m->arg_pos[i], t, in,
					m->count == 0);
		if (ret)
			return ret;
	}
	m->count++;
	return 0;
}

static int add_event_files(struct ink_event *ev)
{
	struct ink_group *g = group_get(ev->group);

	if (!g)
		return -ENOMEM;
	ev->dir = debugfs_create_dir(ev->name, g->dir);
	debugfs_create_file("enable", 0600, ev->dir, ev, &enable_fops);
	return 0;
}

#define MAX_TOKENS	(INK_MAX_ARGS + 3)

/* p[:[GRP/]EVENT] TARGET [FETCHARG...] */
static int define_event(const char *cmd, char **tok, unsigned int *tpos, int ntok)
{
	struct match_ctx m = { .cmd = cmd };
	struct target_spec ts;
	struct ink_event *ev;
	char *name, *slash;
	unsigned int i, j;
	int ret;

	if (ntok < 2) {
		ink_error_log(cmd, strlen(cmd), "missing target");
		return -EINVAL;
	}
	for (i = 2; i < ntok; i++) {
		if (strcmp(tok[i], "if"))
			continue;
		ink_error_log(cmd, tpos[i],
			      "filters are not supported on the definition line (kprobe_events takes them in events/GRP/EVENT/filter)");
		return -EINVAL;
	}
	if (ntok - 2 > INK_MAX_ARGS) {
		ink_error_log(cmd, tpos[2 + INK_MAX_ARGS], "too many arguments (at most %d)",
			      INK_MAX_ARGS);
		return -E2BIG;
	}
	ret = parse_target(&ts, cmd, tpos[1], tok[1]);
	if (ret)
		return ret;

	ev = kzalloc(sizeof(*ev), GFP_KERNEL);
	if (!ev)
		return -ENOMEM;
	strscpy(ev->group, INK_DEFAULT_GROUP, sizeof(ev->group));
	strscpy(ev->name, *ts.func ? ts.func : ts.caller, sizeof(ev->name));
	if (tok[0][1] == ':') {
		name = tok[0] + 2;
		slash = strchr(name, '/');
		if (slash) {
			*slash = '\0';
			if (!valid_name(name)) {
				ink_error_log(cmd, tpos[0] + 2, "bad group name");
				ret = -EINVAL;
				goto fail;
			}
			strscpy(ev->group, name, sizeof(ev->group));
			name = slash + 1;
		}
		if (!valid_name(name)) {
			ink_error_log(cmd, tpos[0] + (name - tok[0]), "bad event name");
			ret = -EINVAL;
			goto fail;
		}
		strscpy(ev->name, name, sizeof(ev->name));
	} else if (tok[0][1]) {
		ink_error_log(cmd, tpos[0] + 1, "expected p or p:[GRP/]EVENT");
		ret = -EINVAL;
		goto fail;
	}
	if (!valid_name(ev->name)) {
		ink_error_log(cmd, tpos[1], "cannot name an event after this target: give p:EVENT");
		ret = -EINVAL;
		goto fail;
	}
	if (find_event(ev->group, ev->name)) {
		ink_error_log(cmd, tpos[0], "event %s/%s already exists", ev->group, ev->name);
		ret = -EEXIST;
		goto fail;
	}
	ret = ink_tev_name_free(ev->group, ev->name, cmd, tpos[0]);
	if (ret)
		goto fail;

	/* options, the last words: "stacktrace", "strict" (a parameter of that name: x=strict) */
	for (; ntok > 2; ntok--) {
		if (!strcmp(tok[ntok - 1], "stacktrace") && !ev->stacktrace)
			ev->stacktrace = true;
		else if (!strcmp(tok[ntok - 1], "strict") && !ev->strict)
			ev->strict = true;
		else
			break;
	}
	ev->nr_args = ntok - 2;
	for (i = 0; i < ev->nr_args; i++) {
		ret = ink_fetch_parse(&ev->args[i], cmd, tpos[2 + i], tok[2 + i]);
		if (!ret)
			ret = ink_tev_check_name(ev->args[i].name, cmd, tpos[2 + i]);
		if (ret)
			goto fail;
		for (j = 0; j < i; j++) {
			if (strcmp(ev->args[j].name, ev->args[i].name))
				continue;
			ink_error_log(cmd, tpos[2 + i],
				      "argument %u is named '%s' too: give this one another NAME=",
				      j + 1, ev->args[i].name);
			ret = -EINVAL;
			goto fail;
		}
		if (ink_fetch_is_str(&ev->args[i])) {
			if (ev->nr_strs == INK_MAX_STR_ARGS) {
				ink_error_log(cmd, tpos[2 + i], "at most %d string arguments",
					      INK_MAX_STR_ARGS);
				ret = -E2BIG;
				goto fail;
			}
			ev->args[i].str_slot = ev->nr_strs++;
		}
	}
	ev->rec_max = ink_rec_len(ev->nr_args, ev->nr_strs, ev->stacktrace ? INK_MAX_FRAMES : 0);

	walk_matches(&ts, count_match, &m);
	if (!m.count) {
		ink_error_log(cmd, tpos[1], ts.has_off || *ts.caller ?
			      "no instance of this target in the loaded blobs" :
			      "no instance of this function in the loaded blobs (a function never inlined has none: probe it with kprobe_events)");
		ret = -ENOENT;
		goto fail;
	}
	if (ts.has_off && m.ambiguous) {
		ink_error_log(cmd, tpos[1], "several inlined functions start here: use FUNC@CALLER+OFF");
		ret = -EINVAL;
		goto fail;
	}
	if (m.count > max_probes) {
		ink_error_log(cmd, tpos[1], "%u instances, more than max_probes=%u", m.count,
			      max_probes);
		ret = -E2BIG;
		goto fail;
	}
	ev->probes = kvcalloc(m.count, sizeof(*ev->probes), GFP_KERNEL);
	ev->kps = kvcalloc(m.count, sizeof(*ev->kps), GFP_KERNEL);
	ev->stats = alloc_percpu(struct ink_event_stats);
	ev->target_text = kstrdup(tok[1], GFP_KERNEL);
	if (!ev->probes || !ev->kps || !ev->stats || !ev->target_text) {
		ret = -ENOMEM;
		goto fail;
	}
	m.ev = ev;
	m.count = 0;
	m.arg_pos = &tpos[2];
	ret = walk_matches(&ts, fill_match, &m);
	ev->nr_probes = m.count + (ret ? 1 : 0);	/* the failed one holds a target ref */
	if (ret)
		goto fail;
	ev->nr_probes = m.count;
	ret = ink_tev_alloc(ev);	/* the arguments have their types now */
	if (ret)
		goto fail;

	ev->id = next_event_id++;
	ev->enabled = true;
	ret = arm(ev, NULL, cmd, tpos[1]);
	if (ret)
		goto fail;
	ret = add_event_files(ev);
	if (ret) {
		disarm(ev, NULL);
		goto fail;
	}
	ret = ink_tev_add(ev, cmd, tpos[0]);
	if (ret) {
		debugfs_remove_recursive(ev->dir);
		group_put(ev->group);
		disarm(ev, NULL);
		goto fail;
	}
	list_add_tail(&ev->list, &ink_events);
	return 0;
fail:
	event_free(ev);
	return ret;
}

/* -:[GRP/]EVENT */
static int remove_event(const char *cmd, char **tok, unsigned int *tpos, int ntok)
{
	char *group = NULL, *name, *slash, names[128];
	struct ink_event *ev;
	int ret;

	if (tok[0][1] != ':' || !tok[0][2] || ntok > 1) {
		ink_error_log(cmd, tpos[0], "expected -:[GRP/]EVENT");
		return -EINVAL;
	}
	name = tok[0] + 2;
	slash = strchr(name, '/');
	if (slash) {
		*slash = '\0';
		group = name;
		name = slash + 1;
	}
	/* kprobe_events removes every match of -:EVENT; one at a time here */
	if (!group && list_events(names, sizeof(names), name, NULL) > 1) {
		ink_error_log(cmd, tpos[0] + 2, "events in several groups are named %s: %s: give GRP/%s",
			      name, names, name);
		return -EINVAL;
	}
	ev = find_event(group, name);
	if (!ev) {
		ink_error_log(cmd, tpos[0] + 2, "no such event");
		return -ENOENT;
	}
	ret = ink_tev_remove(&ev, 1, cmd, tpos[0]);	/* EBUSY while in use */
	if (!ret)
		event_delete(ev);
	return ret;
}

/* One line; '#' starts a comment. */
static int run_command(char *line)
{
	char cmd[INK_CMD_MAX];
	char *tok[MAX_TOKENS];
	unsigned int tpos[MAX_TOKENS];
	char *s, *hash;
	int ntok = 0;

	hash = strchr(line, '#');
	if (hash)
		*hash = '\0';
	strim(line);
	if (!*line)
		return 0;
	strscpy(cmd, line, sizeof(cmd));
	for (s = line; *s;) {
		while (isspace(*s))
			*s++ = '\0';
		if (!*s)
			break;
		if (ntok == MAX_TOKENS) {
			ink_error_log(cmd, s - line, "too many arguments (at most %d)",
				      INK_MAX_ARGS);
			return -E2BIG;
		}
		tpos[ntok] = s - line;
		tok[ntok++] = s;
		while (*s && !isspace(*s))
			s++;
	}
	switch (tok[0][0]) {
	case 'p':
		return define_event(cmd, tok, tpos, ntok);
	case '-':
		return remove_event(cmd, tok, tpos, ntok);
	case 'r':
		ink_error_log(cmd, 0, "return probes are not supported on inlined code");
		return -EOPNOTSUPP;
	default:
		ink_error_log(cmd, 0, "unknown command: expected p or -");
		return -EINVAL;
	}
}

/* Every event, or none while one is in use (-EBUSY, logged). */
static int delete_all(const char *cmd)
{
	struct ink_event *ev, *tmp, **evs;
	unsigned int n = 0;
	int ret;

	list_for_each_entry(ev, &ink_events, list)
		n++;
	if (!n)
		return 0;
	evs = kvmalloc_array(n, sizeof(*evs), GFP_KERNEL);
	if (!evs)
		return -ENOMEM;
	n = 0;
	list_for_each_entry(ev, &ink_events, list)
		evs[n++] = ev;
	ret = ink_tev_remove(evs, n, cmd, 0);
	kvfree(evs);
	if (ret)
		return ret;
	list_for_each_entry_safe(ev, tmp, &ink_events, list)
		event_delete(ev);
	return 0;
}

static ssize_t probes_write(struct file *file, const char __user *ubuf, size_t count,
			    loff_t *ppos)
{
	char *buf, *line, *next;
	int ret = 0;

	if (count > 64 * 1024)
		return -E2BIG;
	buf = memdup_user_nul(ubuf, count);
	if (IS_ERR(buf))
		return PTR_ERR(buf);
	mutex_lock(&ink_mutex);
	for (line = buf; line && !ret; line = next) {
		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		if (strlen(line) >= INK_CMD_MAX) {
			ink_error_log(line, 0, "command too long");
			ret = -E2BIG;
			break;
		}
		ret = run_command(line);
	}
	mutex_unlock(&ink_mutex);
	kfree(buf);
	return ret ? ret : count;
}

static int probes_show(struct seq_file *m, void *v)
{
	struct ink_event *ev;
	unsigned int i;

	mutex_lock(&ink_mutex);
	list_for_each_entry(ev, &ink_events, list) {
		seq_printf(m, "p:%s/%s %s", ev->group, ev->name, ev->target_text);
		for (i = 0; i < ev->nr_args; i++)
			seq_printf(m, " %s", ev->args[i].text);
		seq_printf(m, "%s%s\n", ev->stacktrace ? " stacktrace" : "",
			   ev->strict ? " strict" : "");
	}
	mutex_unlock(&ink_mutex);
	return 0;
}

static int probes_open(struct inode *inode, struct file *file)
{
	int ret = ink_open_admin(inode, file);

	if (ret)
		return ret;
	if ((file->f_mode & FMODE_WRITE) && (file->f_flags & O_TRUNC)) {
		mutex_lock(&ink_mutex);
		ret = delete_all("(truncate)");
		mutex_unlock(&ink_mutex);
		if (ret)
			return ret;
	}
	return single_open(file, probes_show, NULL);
}

static const struct file_operations probes_fops = {
	.owner = THIS_MODULE,
	.open = probes_open,
	.read = seq_read,
	.llseek = seq_lseek,
	.write = probes_write,
	.release = single_release,
};

/* ------------------------------------------------------------------ */
/* stats                                                               */

static int stats_show(struct seq_file *m, void *v)
{
	struct ink_event *ev;
	int cpu;

	mutex_lock(&ink_mutex);
	list_for_each_entry(ev, &ink_events, list) {
		u64 hits = 0, written = 0, lost = 0, missed = 0;
		unsigned int i, live = 0, refused = 0;

		for_each_possible_cpu(cpu) {
			const struct ink_event_stats *s = per_cpu_ptr(ev->stats, cpu);

			hits += READ_ONCE(s->hits);
			written += READ_ONCE(s->written);
			lost += READ_ONCE(s->lost);
		}
		for (i = 0; i < ev->nr_probes; i++) {
			missed += ev->probes[i].kp.nmissed;
			live += ev->probes[i].registered;
			refused += !!ev->probes[i].refused;
		}
		seq_printf(m, "%s/%s probes=%u live=%u hits=%llu written=%llu lost=%llu missed=%llu refused=%u %s\n",
			   ev->group, ev->name, ev->nr_probes, live, hits, written, lost, missed,
			   refused, ev->enabled ? "enabled" : "disabled");
	}
	mutex_unlock(&ink_mutex);
	return 0;
}

static int stats_open(struct inode *inode, struct file *file)
{
	int ret = ink_open_admin(inode, file);

	return ret ? ret : single_open(file, stats_show, NULL);
}

static const struct file_operations stats_fops = {
	.owner = THIS_MODULE,
	.open = stats_open,
	.read = seq_read,
	.llseek = seq_lseek,
	.release = single_release,
};

int ink_probes_init(struct dentry *dir)
{
	ink_tev_init();
	events_dir = debugfs_create_dir("events", dir);
	debugfs_create_file("probes", 0600, dir, NULL, &probes_fops);
	debugfs_create_file("stats", 0400, dir, NULL, &stats_fops);
	return 0;
}

/*
 * A consumer of a trace event pins the module (consumers.c), so none is
 * left now.  What still holds a reference is an event probe defined on
 * one of ours (or an in-kernel user): the event cannot go before it, and
 * neither can the code its reg() runs.  Wait for it to be removed.
 */
void ink_probes_exit(void)
{
	struct ink_event *ev, *tmp;
	bool said = false;

	mutex_lock(&ink_mutex);
	if (!delete_all("(module unload)"))
		goto out;
	/* one of them is held: the others go, that one when it can */
	list_for_each_entry_safe(ev, tmp, &ink_events, list) {
		int ret;

		while ((ret = ink_tev_remove(&ev, 1, "(module unload)", 0)) == -EBUSY ||
		       ret == -EAGAIN) {
			mutex_unlock(&ink_mutex);
			if (!said)
				pr_warn("inkprobe: trace event %s:%s cannot be removed yet (%s): unloading waits\n",
					ev->group, ev->name, ret == -EBUSY ?
					"an event probe on it?" :
					"an enable_event trigger on inkprobe:__control?");
			said = true;
			msleep(100);
			mutex_lock(&ink_mutex);
		}
		event_delete(ev);
	}
out:
	mutex_unlock(&ink_mutex);
}
