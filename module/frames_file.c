// SPDX-License-Identifier: GPL-2.0
/*
 * "frames": write code addresses, read each one's symbol and inline frames
 * (Documentation/control.rst).  The look-up a stack trace's frames get
 * (stack.c), for addresses that come from elsewhere: a profile's sampled
 * callchains (inkprobe profile), from the blobs the module has loaded and
 * already indexed, so that a tool need not read, check and index them again.
 *
 * One line in per address, "ADDR" (an instruction) or "ADDR r" (a return
 * address: its symbol and inline frames are its call's, at ADDR - 1, and
 * its OFF still ADDR's, up to SIZE, as %pB prints it); one line out,
 *
 *	ADDR KIND NAME+0xOFF/0xSIZE MODULE INLINED...
 *
 * KIND "i" or "r", MODULE "vmlinux" or the module's name, "? ?" for an
 * address no symbol holds, the inlined functions innermost first.  Answers
 * wait in the open file until read, after those not read yet (a shell's
 * printf may write its lines one by one); a write answers as many whole
 * lines as there is room for and returns how many bytes they were.  A
 * write that cannot index a live target's blob fails (ENOMEM) rather than
 * answer without that target's inline frames.
 */
#include <linux/debugfs.h>
#include <linux/fs.h>
#include <linux/kallsyms.h>
#include <linux/module.h>
#include <linux/seq_buf.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "inkprobe.h"
#include "blob_store.h"
#include "debugfs_files.h"
#include "error_log.h"
#include "frames_file.h"
#include "inline_map.h"
#include "kallsyms.h"
#include "stack.h"

#define FRAMES_IN_MAX	(64 * 1024)	/* bytes of addresses one write takes */
#define FRAMES_OUT_MAX	(256 * 1024)	/* bytes of answers waiting to be read */

/* An answer's symbol, read by ink_kallsyms_at() */
struct frames_sym {
	char name[KSYM_NAME_LEN];
	char mod[MODULE_NAME_LEN];
};

/*
 * One line of addresses, "ADDR" or "ADDR r" (@line: NUL-terminated, no
 * newline), answered into @sb; false for a line that is not one.
 */
static bool answer_line(struct frames_sym *sym, struct seq_buf *sb, char *line)
{
	const char *names[INK_MAX_INLINE_DEPTH];
	char *kind = strim(line), *word = strsep(&kind, " \t");
	unsigned long addr, at, off, size;
	unsigned int n, i;
	bool ret_addr;

	if (kind)
		kind = skip_spaces(kind);
	if (!*word || kstrtoul(word, 16, &addr) || (kind && *kind && strcmp(kind, "r")))
		return false;
	ret_addr = kind && *kind;
	seq_buf_printf(sb, "%lx %c ", addr, ret_addr ? 'r' : 'i');
	/*
	 * A return address belongs to its call, the instruction before it:
	 * its symbol too (%pB's rule), or a call that never returns at the
	 * end of a function would be charged to the next one.
	 */
	at = ret_addr ? addr - 1 : addr;
	if (!ink_kallsyms_at(at, sym->name, &off, &size, sym->mod)) {
		seq_buf_printf(sb, "? ?\n");
		return true;
	}
	seq_buf_printf(sb, "%s+0x%lx/0x%lx %s", sym->name, off + (addr - at), size,
		       *sym->mod ? sym->mod : "vmlinux");
	n = ink_code_inline_frames(at, names, ARRAY_SIZE(names));
	for (i = 0; i < n; i++)
		seq_buf_printf(sb, " %s", names[i]);
	seq_buf_printf(sb, "\n");
	return true;
}

static int frames_open(struct inode *inode, struct file *file)
{
	return ink_answer_open(inode, file, FRAMES_OUT_MAX);
}

static ssize_t frames_write(struct file *file, const char __user *ubuf, size_t count,
			    loff_t *ppos)
{
	struct ink_answer *a = file->private_data;
	size_t take = min_t(size_t, count, FRAMES_IN_MAX), done = 0;
	struct frames_sym *sym;
	struct ink_target *t;
	struct seq_buf sb;
	ssize_t ret;
	char *in;

	if (!count)
		return -EINVAL;
	sym = kmalloc(sizeof(*sym), GFP_KERNEL);
	if (!sym)
		return -ENOMEM;
	in = memdup_user_nul(ubuf, take);
	if (IS_ERR(in)) {
		kfree(sym);
		return PTR_ERR(in);
	}
	mutex_lock(&a->lock);
	if (a->pos == a->len)
		a->len = a->pos = 0;	/* every answer read: start over */
	seq_buf_init(&sb, a->text + a->len, a->cap - a->len);
	mutex_lock(&ink_frames_mutex);
	/* every live target's map, or no answer: never one without its inline frames */
	list_for_each_entry(t, &ink_targets, list) {
		if (ink_inline_map_build(t)) {
			ink_error_log(t->name, 0, "out of memory for the inline frames of %s",
				      t->name);
			ret = -ENOMEM;
			goto out;
		}
	}
	while (done < take) {
		char *line = in + done, *nl = strchr(line, '\n');
		size_t used = seq_buf_used(&sb), len;

		/* the write's last line may end without a newline, not one cut short */
		if (!nl && take < count)
			break;
		len = nl ? nl - line + 1 : take - done;
		if (nl)
			*nl = '\0';
		if (strlen(line) != len - !!nl || !answer_line(sym, &sb, line)) {
			ink_error_log(line, 0,
				      "expected a code address in hex, then \"r\" for a return address");
			ret = -EINVAL;
			goto out;
		}
		if (seq_buf_has_overflowed(&sb)) {
			sb.len = used;	/* no room for this line's answer */
			break;
		}
		done += len;
	}
	a->len += seq_buf_used(&sb);
	ret = done;
	if (!done && a->len > a->pos) {
		ink_error_log(in, 0, "no room for more answers: read those waiting first");
		ret = -ENOSPC;
	} else if (!done) {
		/* a line longer than a write takes, or one whose answer never fits */
		ink_error_log(in, 0, "a line of more than %d bytes, or an answer of more than %d",
			      FRAMES_IN_MAX, FRAMES_OUT_MAX);
		ret = -E2BIG;
	}
out:
	mutex_unlock(&ink_frames_mutex);
	mutex_unlock(&a->lock);
	kfree(in);
	kfree(sym);
	return ret;
}

static const struct file_operations frames_fops = {
	.owner = THIS_MODULE,
	.open = frames_open,
	.write = frames_write,
	.read = ink_answer_read,
	.release = ink_answer_release,
};

void ink_frames_file_init(struct dentry *dir)
{
	debugfs_create_file("frames", 0600, dir, NULL, &frames_fops);
}
