// SPDX-License-Identifier: GPL-2.0
/*
 * trace_pipe: records, oldest first across CPUs, in ftrace's line format
 *
 *   <comm>-<pid> [<cpu>] <sec>.<usec>: <group>:<event>: (<caller>+0x<off>) name=value ...
 *
 * followed, for stacktrace events, by " => frame" lines (stack.c).  An
 * event and its stack are one unit: a read returns whole units.
 * Reading consumes.  A read blocks until at least one line is available
 * (unless O_NONBLOCK), then returns what is there; poll() works.
 */
#include <linux/debugfs.h>
#include <linux/fs.h>
#include <linux/poll.h>
#include <linux/seq_buf.h>
#include <linux/slab.h>
#include <linux/uaccess.h>

#include "inkprobe.h"

#define LINE_MAX	8192	/* an event line and its stack */

struct pipe_reader {
	size_t len, pos;
	char line[LINE_MAX];
};

static DEFINE_MUTEX(reader_mutex);

/* "..." with '"', '\\' and bytes outside printable ASCII escaped (\", \\, \xNN). */
static size_t format_string(char *buf, size_t n, const char *name, const char *s)
{
	size_t len = scnprintf(buf, n, " %s=\"", name);

	for (; *s && len + 6 < n; s++) {
		unsigned char c = *s;

		if (c == '"' || c == '\\')
			len += scnprintf(buf + len, n - len, "\\%c", c);
		else if (c < 0x20 || c >= 0x7f)
			len += scnprintf(buf + len, n - len, "\\x%02x", c);
		else
			buf[len++] = c;
	}
	return len + scnprintf(buf + len, n - len, "\"");
}

static size_t format_value(char *buf, size_t n, const struct ink_fetch *f,
			   struct ink_record *rec, unsigned int i)
{
	u64 v = ink_rec_args(rec)[i];
	unsigned int shift = 64 - 8 * f->size;

	switch (ink_rec_arg_state(rec)[i]) {
	case INK_ARG_FAULT:
		return scnprintf(buf, n, " %s=(fault)", f->name);
	case INK_ARG_UNAVAILABLE:
		return scnprintf(buf, n, " %s=(optimized out)", f->name);
	default:
		break;
	}
	switch (f->type) {
	case INK_T_STRING:
	case INK_T_COMM:
		return format_string(buf, n, f->name, ink_rec_str(rec, f->str_slot));
	case INK_T_S:
		return scnprintf(buf, n, " %s=%lld", f->name, (s64)(v << shift) >> shift);
	case INK_T_U:
		return scnprintf(buf, n, " %s=%llu", f->name, (v << shift) >> shift);
	default:
		return scnprintf(buf, n, " %s=0x%llx", f->name, (v << shift) >> shift);
	}
}

/* One line for @rec; 0 if its event is gone. ink_mutex held. */
static size_t format_record(char *buf, size_t n, struct ink_record *rec, int cpu)
{
	const struct ink_event *ev = ink_event_by_id(rec->event_id);
	const struct ink_probe *p;
	/* as ftrace prints it: microseconds, rounded (ns2usecs()) */
	u64 sec = div_u64(rec->ts + 500, NSEC_PER_USEC);
	u32 usec = do_div(sec, USEC_PER_SEC);
	size_t len;
	unsigned int i;

	if (!ev || rec->probe_idx >= ev->nr_probes)
		return 0;
	p = &ev->probes[rec->probe_idx];
	len = scnprintf(buf, n, "%16s-%-7d [%03d] %5llu.%06u: %s:%s: (%s+0x%x)",
			rec->comm, rec->pid, cpu, sec, usec, ev->group, ev->name,
			ink_btf_name(&p->target->btf, p->target->blob.syms[p->sym].btf_id),
			p->caller_offset);
	for (i = 0; i < rec->nr_args && i < ev->nr_args; i++)
		len += format_value(buf + len, n - len, &ev->args[i], rec, i);
	len += scnprintf(buf + len, n - len, "\n");
	if (rec->nr_frames) {
		struct seq_buf sb;

		seq_buf_init(&sb, buf + len, n - len);
		ink_stack_format(&sb, p, ink_rec_frames(rec), ink_rec_frame_flags(rec),
				 rec->nr_frames);
		len += seq_buf_used(&sb);
	}
	return len;
}

/*
 * Formats the oldest record into the reader's line; false if there is none.
 * The record is not consumed: that happens once its line is copied.
 */
static bool peek_line(struct pipe_reader *pr, int *cpu)
{
	struct ink_record *rec;

	for (;;) {
		rec = ink_ring_peek(cpu);
		if (!rec)
			return false;
		mutex_lock(&ink_mutex);
		pr->len = format_record(pr->line, sizeof(pr->line), rec, *cpu);
		mutex_unlock(&ink_mutex);
		pr->pos = 0;
		if (pr->len)
			return true;
		ink_ring_consume(*cpu);		/* its event is gone */
	}
}

/*
 * Whole lines only, so that closing the file never loses a consumed event;
 * a buffer smaller than one line gets that line in pieces, kept per file.
 */
static ssize_t trace_pipe_read(struct file *file, char __user *ubuf, size_t count,
			       loff_t *ppos)
{
	struct pipe_reader *pr = file->private_data;
	ssize_t done = 0;
	int cpu, ret;

	if (!count)
		return 0;
	if (mutex_lock_interruptible(&reader_mutex))
		return -ERESTARTSYS;
	while (done < count) {
		size_t n;

		if (pr->pos < pr->len) {	/* the rest of a line cut earlier */
			n = min(count - done, pr->len - pr->pos);
			if (copy_to_user(ubuf + done, pr->line + pr->pos, n))
				break;
			pr->pos += n;
			done += n;
			continue;
		}
		if (!peek_line(pr, &cpu)) {
			pr->len = 0;
			if (done)
				break;
			if (file->f_flags & O_NONBLOCK) {
				done = -EAGAIN;
				break;
			}
			mutex_unlock(&reader_mutex);
			/* woken by the first record after this (the timeout is a safety net) */
			ret = wait_event_interruptible_timeout(ink_ring_wait, !ink_ring_empty(),
							       HZ / 10);
			if (ret < 0)
				return -ERESTARTSYS;
			if (mutex_lock_interruptible(&reader_mutex))
				return -ERESTARTSYS;
			continue;
		}
		if (pr->len > count - done) {
			if (done) {		/* for the next read */
				pr->len = 0;
				break;
			}
			ink_ring_consume(cpu);	/* pieces, from pr->line */
			continue;
		}
		if (copy_to_user(ubuf + done, pr->line, pr->len)) {
			pr->len = 0;
			break;
		}
		ink_ring_consume(cpu);
		done += pr->len;
		pr->pos = pr->len = 0;
	}
	mutex_unlock(&reader_mutex);
	return done ? done : -EFAULT;	/* 0 only when a copy failed */
}

static __poll_t trace_pipe_poll(struct file *file, struct poll_table_struct *wait)
{
	struct pipe_reader *pr = file->private_data;

	poll_wait(file, &ink_ring_wait, wait);
	return (pr->pos < pr->len || !ink_ring_empty()) ? EPOLLIN | EPOLLRDNORM : 0;
}

static int trace_pipe_open(struct inode *inode, struct file *file)
{
	int ret = ink_open_admin(inode, file);

	if (ret)
		return ret;
	file->private_data = kzalloc(sizeof(struct pipe_reader), GFP_KERNEL);
	if (!file->private_data)
		return -ENOMEM;
	return nonseekable_open(inode, file);
}

static int trace_pipe_release(struct inode *inode, struct file *file)
{
	kfree(file->private_data);
	return 0;
}

static const struct file_operations trace_pipe_fops = {
	.owner = THIS_MODULE,
	.open = trace_pipe_open,
	.read = trace_pipe_read,
	.poll = trace_pipe_poll,
	.release = trace_pipe_release,
};

int ink_trace_output_init(struct dentry *dir)
{
	debugfs_create_file("trace_pipe", 0400, dir, NULL, &trace_pipe_fops);
	return 0;
}
