/* SPDX-License-Identifier: GPL-2.0 */
/*
 * debugfs_files.c: the control directory, ink_mutex, permissions, open
 * helpers; for every file with a control file or a control path.
 */
#ifndef _INKPROBE_DEBUGFS_FILES_H
#define _INKPROBE_DEBUGFS_FILES_H

#include <linux/fs.h>
#include <linux/mutex.h>
#include <linux/types.h>

struct dentry;
struct seq_file;

extern struct mutex ink_mutex;
extern struct dentry *ink_debugfs_dir;

int ink_debugfs_init(void);
void ink_debugfs_exit(void);
/* The permission check every open() starts with. */
int ink_open_admin(struct inode *inode, struct file *file);
/* ink_open_admin(), then single_open() with @show, or simple_open(). */
int ink_single_open_admin(struct inode *inode, struct file *file,
			  int (*show)(struct seq_file *m, void *v));
int ink_simple_open_admin(struct inode *inode, struct file *file);
/*
 * Makes room for @need bytes in *@buf (kvmalloc'd, *@cap bytes, the first
 * @have in use): doubling, at least a page, never beyond @limit.
 */
int ink_grow(u8 **buf, size_t *cap, size_t have, size_t need, size_t limit);

/*
 * What a file written then read ("stack", "frames") keeps per open file:
 * the answer to its writes, and how much of it was read.
 */
struct ink_answer {
	struct mutex lock;	/* one write or read of the open file at a time */
	size_t len, pos;	/* the answer's length, what of it was read */
	size_t cap;
	char text[];
};
/* ink_open_admin(), then an empty answer of @cap bytes as the file's private_data. */
int ink_answer_open(struct inode *inode, struct file *file, size_t cap);
/* Reads what of the answer was not read yet. */
ssize_t ink_answer_read(struct file *file, char __user *ubuf, size_t count, loff_t *ppos);
int ink_answer_release(struct inode *inode, struct file *file);

/* Opened for writing with O_TRUNC (">"): the file is to be emptied first. */
static inline bool ink_open_truncates(const struct file *file)
{
	return (file->f_mode & FMODE_WRITE) && (file->f_flags & O_TRUNC);
}

/* A read-only seq_file NAME_fops for NAME_show(), opened by admins only. */
#define INK_DEFINE_SHOW_FOPS(__name)					\
static int __name##_open(struct inode *inode, struct file *file)	\
{									\
	return ink_single_open_admin(inode, file, __name##_show);	\
}									\
									\
static const struct file_operations __name##_fops = {			\
	.owner = THIS_MODULE,						\
	.open = __name##_open,						\
	.read = seq_read,						\
	.llseek = seq_lseek,						\
	.release = single_release,					\
}

#endif /* _INKPROBE_DEBUGFS_FILES_H */
