// SPDX-License-Identifier: GPL-2.0
/*
 * error_log: the last errors of the control files, in the format of the
 * kernel's tracing error_log:
 *
 *   [  123.456789] inkprobe: error: Unknown function
 *     Command: p:tgt/x nosuchfn a
 *                      ^
 *
 * Opening it for writing with O_TRUNC ("echo > error_log") clears it.
 *
 * A command of the probes file logs through its log context, as
 * trace_probe_log does for kprobe_events: ink_log_init() when the command
 * starts, ink_log_set_index() as parsing moves from word to word, and
 * ink_log_err() with an offset in that word puts the caret under it.
 */
#include <linux/debugfs.h>
#include <linux/fs.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/sched/clock.h>

#include "debugfs_files.h"
#include "error_log.h"

#define ERR_LOG_MAX	16
#define ERR_MSG_LEN	256
#define ERR_CMD_LEN	256

struct err_entry {
	u64 ts;
	unsigned int pos;
	char msg[ERR_MSG_LEN];
	char cmd[ERR_CMD_LEN];
};

static DEFINE_MUTEX(err_lock);
static struct err_entry *err_log;	/* ring of ERR_LOG_MAX */
static unsigned int err_next, err_count;

static __printf(3, 0) void error_vlog(const char *cmd, unsigned int pos, const char *fmt,
				      va_list ap)
{
	struct err_entry *e;

	mutex_lock(&err_lock);
	if (!err_log)
		goto out;
	e = &err_log[err_next];
	err_next = (err_next + 1) % ERR_LOG_MAX;
	if (err_count < ERR_LOG_MAX)
		err_count++;
	e->ts = local_clock();	/* as tracefs' error_log: printk's clock */
	vsnprintf(e->msg, sizeof(e->msg), fmt, ap);
	strscpy(e->cmd, cmd ? cmd : "", sizeof(e->cmd));
	strreplace(e->cmd, '\n', ' ');
	e->pos = min_t(unsigned int, pos, strlen(e->cmd));
out:
	mutex_unlock(&err_lock);
}

void ink_error_log(const char *cmd, unsigned int pos, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	error_vlog(cmd, pos, fmt, ap);
	va_end(ap);
}

/*
 * The command being run: its text, where each of its words starts, and
 * the word being parsed.  ink_mutex serializes commands.
 */
static struct {
	const char *cmd;
	const unsigned int *word;
	unsigned int nr_words;
	int index;
} cmd_log;

void ink_log_init(const char *cmd, const unsigned int *word, unsigned int nr_words)
{
	lockdep_assert_held(&ink_mutex);
	cmd_log.cmd = cmd;
	cmd_log.word = word;
	cmd_log.nr_words = nr_words;
	cmd_log.index = INK_LOG_LINE;
}

void ink_log_clear(void)
{
	lockdep_assert_held(&ink_mutex);
	memset(&cmd_log, 0, sizeof(cmd_log));
}

void ink_log_set_index(int index)
{
	lockdep_assert_held(&ink_mutex);
	cmd_log.index = index;
}

void ink_log_err(unsigned int offset, const char *fmt, ...)
{
	unsigned int pos = offset;
	va_list ap;

	lockdep_assert_held(&ink_mutex);
	if (cmd_log.index >= (int)cmd_log.nr_words)
		pos = cmd_log.cmd ? strlen(cmd_log.cmd) : 0;	/* past the last word */
	else if (cmd_log.index >= 0)
		pos += cmd_log.word[cmd_log.index];
	va_start(ap, fmt);
	error_vlog(cmd_log.cmd, pos, fmt, ap);
	va_end(ap);
}

static int error_log_show(struct seq_file *m, void *v)
{
	unsigned int i;

	mutex_lock(&err_lock);
	for (i = 0; i < err_count; i++) {
		const struct err_entry *e =
			&err_log[(err_next + ERR_LOG_MAX - err_count + i) % ERR_LOG_MAX];
		u64 sec = e->ts;
		u32 nsec = do_div(sec, NSEC_PER_SEC);

		seq_printf(m, "[%5llu.%06u] inkprobe: error: %s\n", sec, nsec / 1000, e->msg);
		seq_printf(m, "  Command: %s\n", e->cmd);
		seq_printf(m, "%*s^\n", (int)(sizeof("  Command: ") - 1 + e->pos), "");
	}
	mutex_unlock(&err_lock);
	return 0;
}

/* The seq_file first: an open that fails must not have cleared the log. */
static int error_log_open(struct inode *inode, struct file *file)
{
	int ret = ink_open_admin(inode, file);

	if (ret)
		return ret;
	if (file->f_mode & FMODE_READ) {
		ret = single_open(file, error_log_show, NULL);
		if (ret)
			return ret;
	}
	if (ink_open_truncates(file)) {
		mutex_lock(&err_lock);
		err_count = 0;
		err_next = 0;
		mutex_unlock(&err_lock);
	}
	return 0;
}

static ssize_t error_log_write(struct file *file, const char __user *buf, size_t count,
			       loff_t *ppos)
{
	return count;	/* clearing happens at open with O_TRUNC */
}

static int error_log_release(struct inode *inode, struct file *file)
{
	if (!(file->f_mode & FMODE_READ))
		return 0;
	return single_release(inode, file);
}

static const struct file_operations error_log_fops = {
	.owner = THIS_MODULE,
	.open = error_log_open,
	.read = seq_read,
	.llseek = seq_lseek,
	.write = error_log_write,
	.release = error_log_release,
};

int ink_error_log_init(struct dentry *dir)
{
	err_log = kcalloc(ERR_LOG_MAX, sizeof(*err_log), GFP_KERNEL);
	if (!err_log)
		return -ENOMEM;
	debugfs_create_file("error_log", 0600, dir, NULL, &error_log_fops);
	return 0;
}

void ink_error_log_exit(void)
{
	kfree(err_log);
	err_log = NULL;
}
