// SPDX-License-Identifier: GPL-2.0
/*
 * Events: the "probes" file, where they are defined and removed in
 * kprobe_events' grammar (probe_parse.c, Documentation/control.rst),
 * "stats", and their probes leaving and coming back with a
 * target's module.
 *
 * Opening "probes" with O_TRUNC (">") removes every event first; ">>"
 * appends.  Grammar and argument errors refuse a definition as a whole;
 * kprobes may still refuse single instances (probe_attach.c).
 *
 * Each event is a trace event (trace_event.c), the only way to its hits:
 * added once its probes are placed, removed before them, and not at all
 * while in use (EBUSY).
 */
#include <linux/debugfs.h>
#include <linux/delay.h>
#include <linux/fs.h>
#include <linux/module.h>
#include <linux/percpu.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/uaccess.h>

#include "inkprobe.h"
#include "blob_store.h"
#include "consumers.h"
#include "debugfs_files.h"
#include "error_log.h"
#include "exit_probe.h"
#include "fetch.h"
#include "probe.h"
#include "probe_event.h"
#include "probe_site.h"
#include "timed_calls.h"
#include "trace_event.h"

static unsigned int max_probes = 4096;
module_param(max_probes, uint, 0444);
MODULE_PARM_DESC(max_probes, "most instances one definition may attach to");

LIST_HEAD(ink_events);

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
	kvfree(ev->work);
	kvfree(ev->kps);
	free_percpu(ev->stats);
	ink_timed_calls_free(ev->calls);
	kfree(ev->target_text);
	kfree(ev);
}

/* Unregisters, removes from the list, frees. */
static void event_delete(struct ink_event *ev)
{
	ink_probes_disarm(ev, NULL);
	list_del(&ev->list);
	event_free(ev);
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

static unsigned int events_using(const struct ink_target *t, char *buf, size_t n)
{
	return list_events(buf, n, NULL, t);
}

/*
 * p[:[GRP/]EVENT] TARGET [FETCHARG...] [stacktrace] [strict], and
 * r[:[GRP/]EVENT] TARGET ...: a kprobe at each exit of each instance.
 */
static int define_event(struct ink_words *w)
{
	struct target_spec *ts;	/* two symbol names: too big for the stack */
	struct ink_event *ev;
	unsigned int count, i;
	bool ambiguous;
	int ret;

	ts = kmalloc(sizeof(*ts), GFP_KERNEL);
	ev = kzalloc(sizeof(*ev), GFP_KERNEL);
	if (!ts || !ev) {
		kfree(ts);
		kfree(ev);
		return -ENOMEM;
	}
	ev->is_return = w->word[0][0] == 'r';
	ret = ink_parse_define(w, ts, ev);
	if (ret)
		goto fail;
	if (find_event(ev->group, ev->name)) {
		ink_log_set_index(INK_WORD_EVENT);
		ink_log_err(0, "event %s/%s already exists", ev->group, ev->name);
		ret = -EEXIST;
		goto fail;
	}
	ink_log_set_index(INK_WORD_EVENT);
	ret = ink_tev_name_free(ev->group, ev->name);
	if (ret)
		goto fail;
	ret = ink_parse_fetchargs(w, ev);
	if (ret)
		goto fail;
	for (i = 0; i < ev->nr_args; i++) {
		ink_log_set_index(INK_WORD_ARGS + i);
		ret = ink_tev_check_name(ev->args[i].name);
		if (ret)
			goto fail;
	}

	ink_log_set_index(INK_WORD_TARGET);
	ink_match_count(ts, ev, &count, &ambiguous);
	if (!count && ev->nr_skipped) {
		ink_log_err(0, "none of the %u instances of this target has known exits (out of line, or its exits cannot all be placed: gen --stats says why)",
			    ev->nr_skipped);
		ret = -ENOENT;
		goto fail;
	}
	if (!count && ev->nr_no_probe) {
		ink_log_err(0, "none of the %u instances of this target may be probed (in noinstr, entry or NOKPROBE code, or at a pc kprobes refuse: their records keep ranges for stacks only)",
			    ev->nr_no_probe);
		ret = -ENOENT;
		goto fail;
	}
	if (!count) {
		ink_log_err(0, ts->has_off || *ts->caller ?
			    "no instance of this target in the loaded blobs" :
			    "no instance of this function in the loaded blobs (a function never inlined has none: probe it with kprobe_events)");
		ret = -ENOENT;
		goto fail;
	}
	if (ts->has_off && ambiguous) {
		ink_log_err(0, "several inlined functions start here: use FUNC@CALLER+OFF");
		ret = -EINVAL;
		goto fail;
	}
	if (count > max_probes) {
		ink_log_err(0, "%u instances, more than max_probes=%u", count, max_probes);
		ret = -E2BIG;
		goto fail;
	}
	ev->probes = kvcalloc(count, sizeof(*ev->probes), GFP_KERNEL);
	ev->work = kvcalloc(count, sizeof(*ev->work), GFP_KERNEL);
	ev->kps = kvcalloc(count, sizeof(*ev->kps), GFP_KERNEL);
	ev->stats = alloc_percpu(struct ink_event_stats);
	ev->target_text = kstrdup(w->word[INK_WORD_TARGET], GFP_KERNEL);
	if (!ev->probes || !ev->work || !ev->kps || !ev->stats || !ev->target_text) {
		ret = -ENOMEM;
		goto fail;
	}
	ret = ink_match_fill(ts, ev);
	if (ret)
		goto fail;
	ret = ink_tev_alloc(ev);	/* the arguments have their types now */
	if (ret)
		goto fail;
	if (ev->paired) {
		ev->calls = ink_timed_calls_alloc(ink_tev_entry_size(ev));
		if (!ev->calls) {
			ret = -ENOMEM;
			goto fail;
		}
	}

	ink_log_set_index(INK_WORD_TARGET);
	ret = ink_probes_arm(ev, NULL);
	if (ret)
		goto fail;
	ink_log_set_index(INK_WORD_EVENT);
	ret = ink_tev_add(ev);
	if (ret) {
		ink_probes_disarm(ev, NULL);
		goto fail;
	}
	list_add_tail(&ev->list, &ink_events);
	kfree(ts);
	return 0;
fail:
	event_free(ev);
	kfree(ts);
	return ret;
}

/* -:[GRP/]EVENT */
static int remove_event(struct ink_words *w)
{
	char *group, *name, names[128];
	struct ink_event *ev;
	int ret;

	ret = ink_parse_remove(w, &group, &name);
	if (ret)
		return ret;
	/* kprobe_events removes every match of -:EVENT; one at a time here */
	if (!group && list_events(names, sizeof(names), name, NULL) > 1) {
		ink_log_err(2, "events in several groups are named %s: %s: give GRP/%s", name,
			    names, name);
		return -EINVAL;
	}
	ev = find_event(group, name);
	if (!ev) {
		ink_log_err(2, "no such event");	/* under the name, after "-:" */
		return -ENOENT;
	}
	ret = ink_tev_remove(&ev, 1);	/* EBUSY while in use */
	if (!ret)
		event_delete(ev);
	return ret;
}

/* One line of the probes file, in its log context; @w: room for its words. */
static int run_command(char *line, struct ink_words *w)
{
	int ret;

	ret = ink_parse_words(line, w);
	if (ret > 0)
		ret = ink_parse_kind(w);
	if (ret == 'p' || ret == 'r')
		ret = define_event(w);
	else if (ret == '-')
		ret = remove_event(w);
	ink_log_clear();
	return ret;
}

/* Every event, or none while one is in use (-EBUSY, logged as @what). */
static int delete_all(const char *what)
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
	ink_log_init(what, NULL, 0);
	ret = ink_tev_remove(evs, n);
	ink_log_clear();
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
	struct ink_words *w;	/* a command's copy: too big for the stack */
	int ret = 0;

	if (count > 64 * 1024)
		return -E2BIG;
	w = kmalloc(sizeof(*w), GFP_KERNEL);
	if (!w)
		return -ENOMEM;
	buf = memdup_user_nul(ubuf, count);
	if (IS_ERR(buf)) {
		kfree(w);
		return PTR_ERR(buf);
	}
	mutex_lock(&ink_mutex);
	for (line = buf; line && !ret; line = next) {
		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		ret = run_command(line, w);
	}
	mutex_unlock(&ink_mutex);
	kfree(buf);
	kfree(w);
	return ret ? ret : count;
}

static int probes_show(struct seq_file *m, void *v)
{
	struct ink_event *ev;
	unsigned int i;

	mutex_lock(&ink_mutex);
	list_for_each_entry(ev, &ink_events, list) {
		seq_printf(m, "%c:%s/%s %s", ev->is_return ? 'r' : 'p', ev->group, ev->name,
			   ev->target_text);
		for (i = 0; i < ev->nr_args; i++)
			seq_printf(m, " %s", ev->args[i].text);
		seq_printf(m, "%s%s\n", ev->stacktrace ? " stacktrace" : "",
			   ev->strict ? " strict" : "");
	}
	mutex_unlock(&ink_mutex);
	return 0;
}

/* The seq_file first: an open that fails must not have removed the events. */
static int probes_open(struct inode *inode, struct file *file)
{
	int ret = ink_open_admin(inode, file);

	if (ret)
		return ret;
	ret = single_open(file, probes_show, NULL);
	if (ret || !ink_open_truncates(file))
		return ret;
	mutex_lock(&ink_mutex);
	ret = delete_all("> probes");
	mutex_unlock(&ink_mutex);
	if (ret)
		single_release(inode, file);
	return ret;
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
		struct ink_event_stats t = { 0 };
		unsigned int i, live = 0, refused = 0, in_notrace = 0, dropped = 0;
		u64 missed = 0;

		for_each_possible_cpu(cpu) {
			const struct ink_event_stats *s = per_cpu_ptr(ev->stats, cpu);

			t.hits += READ_ONCE(s->hits);
			t.ftrace_hits += READ_ONCE(s->ftrace_hits);
			t.ftrace_written += READ_ONCE(s->ftrace_written);
			t.ftrace_filtered += READ_ONCE(s->ftrace_filtered);
			t.ftrace_lost += READ_ONCE(s->ftrace_lost);
			t.perf_hits += READ_ONCE(s->perf_hits);
			t.perf_written += READ_ONCE(s->perf_written);
			t.perf_lost += READ_ONCE(s->perf_lost);
			t.untimed += READ_ONCE(s->untimed);
			t.unpaired += READ_ONCE(s->unpaired);
		}
		for (i = 0; i < ev->nr_probes; i++) {
			const struct ink_probe *p = &ev->probes[i];

			/* a kretprobe's returns lost for want of an instance too */
			if (p->exit_kind == INK_EXIT_RETURN)
				missed += p->rp.kp.nmissed + p->rp.nmissed;
			else if (p->registered)
				missed += ink_site_kprobe(p)->nmissed;
			live += ev->probes[i].registered;
			refused += ev->probes[i].refused && ev->probes[i].refused != -ECANCELED;
			dropped += ev->probes[i].refused == -ECANCELED;
			in_notrace += ev->probes[i].in_notrace;
		}
		seq_printf(m, "%s/%s probes=%u live=%u refused=%u notrace=%u hits=%llu missed=%llu ftrace_hits=%llu ftrace_written=%llu ftrace_filtered=%llu ftrace_lost=%llu perf_hits=%llu perf_written=%llu perf_lost=%llu",
			   ev->group, ev->name, ev->nr_probes, live, refused, in_notrace, t.hits,
			   missed, t.ftrace_hits, t.ftrace_written, t.ftrace_filtered,
			   t.ftrace_lost, t.perf_hits, t.perf_written, t.perf_lost);
		if (ev->is_return)
			seq_printf(m, " instances=%u noexits=%u dropped=%u", ev->nr_instances,
				   ev->nr_skipped, dropped);
		if (ev->paired)
			seq_printf(m, " untimed=%llu unpaired=%llu", t.untimed, t.unpaired);
		if (ev->nr_no_probe)
			seq_printf(m, " noprobe=%u", ev->nr_no_probe);
		seq_putc(m, '\n');
	}
	mutex_unlock(&ink_mutex);
	return 0;
}

INK_DEFINE_SHOW_FOPS(stats);

/* ------------------------------------------------------------------ */
/* What the blob store asks: a target's module leaves and comes back  */

static void target_gone(struct ink_target *t)
{
	struct ink_event *ev;

	list_for_each_entry(ev, &ink_events, list)
		ink_probes_disarm(ev, t);
}

static void target_back(struct ink_target *t)
{
	struct ink_event *ev;
	char what[2 * INK_NAME_LEN + 2];

	list_for_each_entry(ev, &ink_events, list) {
		/* errors name the event, as its command is long gone */
		snprintf(what, sizeof(what), "%s/%s", ev->group, ev->name);
		ink_log_init(what, NULL, 0);
		ink_probes_arm(ev, t);
		ink_log_clear();
	}
}

static const struct ink_target_ops target_ops = {
	.gone = target_gone,
	.back = target_back,
	.users = events_using,
};

int ink_probes_init(struct dentry *dir)
{
	ink_tev_init();
	debugfs_create_file("probes", 0600, dir, NULL, &probes_fops);
	debugfs_create_file("stats", 0400, dir, NULL, &stats_fops);
	ink_target_ops_register(&target_ops);
	return 0;
}

/*
 * A consumer of a trace event pins the module (consumers.c), so none is
 * left now.  What may still hold one is an event probe defined on it (or
 * an in-kernel user): the event cannot go before it, and neither can the
 * code its reg() runs.  Wait for it to be removed.
 */
void ink_probes_exit(void)
{
	struct ink_event *ev, *tmp;
	unsigned int tries = 0;

	mutex_lock(&ink_mutex);
	if (!delete_all("rmmod inkprobe"))
		goto out;
	/* one of them is held: the others go, that one when it can */
	ink_log_init("rmmod inkprobe", NULL, 0);
	list_for_each_entry_safe(ev, tmp, &ink_events, list) {
		int ret;

		while ((ret = ink_tev_remove(&ev, 1)) == -EBUSY || ret == -EAGAIN) {
			mutex_unlock(&ink_mutex);
			/* a perf event being opened holds it for a moment: say it after 5 s */
			if (++tries == 50)
				pr_warn("inkprobe: trace event %s:%s cannot be removed yet (%s): unloading waits\n",
					ev->group, ev->name, ret == -EBUSY ?
					"an event probe on it?" :
					"an enable_event trigger on inkprobe:__control?");
			msleep(100);
			mutex_lock(&ink_mutex);
		}
		event_delete(ev);
	}
	ink_log_clear();
out:
	mutex_unlock(&ink_mutex);
	ink_target_ops_register(NULL);
}
