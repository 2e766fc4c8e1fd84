// SPDX-License-Identifier: GPL-2.0
/*
 * What every control file in /sys/kernel/debug/inkprobe/ shares: the
 * directory, the lock of the control paths, the permission check at
 * open(), the seq_file boilerplate, the buffer a file written in
 * pieces grows, and the answer a file written then read keeps.  Every other file of the module
 * may use this one; it uses none of them.
 */
#include <linux/capability.h>
#include <linux/debugfs.h>
#include <linux/fs.h>
#include <linux/mm.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/uaccess.h>

#include "debugfs_files.h"

DEFINE_MUTEX(ink_mutex);
struct dentry *ink_debugfs_dir;

/* Every file is root-only by mode; opening also needs CAP_SYS_ADMIN. */
int ink_open_admin(struct inode *inode, struct file *file)
{
	if (!capable(CAP_SYS_ADMIN))
		return -EPERM;
	return 0;
}

int ink_single_open_admin(struct inode *inode, struct file *file,
			  int (*show)(struct seq_file *m, void *v))
{
	int ret = ink_open_admin(inode, file);

	return ret ? ret : single_open(file, show, NULL);
}

int ink_simple_open_admin(struct inode *inode, struct file *file)
{
	int ret = ink_open_admin(inode, file);

	return ret ? ret : simple_open(inode, file);
}

int ink_grow(u8 **buf, size_t *cap, size_t have, size_t need, size_t limit)
{
	size_t n;
	u8 *nbuf;

	if (need <= *cap)
		return 0;
	n = min(max3(need, 2 * *cap, (size_t)PAGE_SIZE), limit);
	nbuf = kvmalloc(n, GFP_KERNEL | __GFP_NOWARN);
	if (!nbuf)
		return -ENOMEM;
	if (have)
		memcpy(nbuf, *buf, have);
	kvfree(*buf);
	*buf = nbuf;
	*cap = n;
	return 0;
}

int ink_debugfs_init(void)
{
	ink_debugfs_dir = debugfs_create_dir("inkprobe", NULL);
	return PTR_ERR_OR_ZERO(ink_debugfs_dir);
}

void ink_debugfs_exit(void)
{
	debugfs_remove_recursive(ink_debugfs_dir);
	ink_debugfs_dir = NULL;
}

int ink_answer_open(struct inode *inode, struct file *file, size_t cap)
{
	int ret = ink_open_admin(inode, file);
	struct ink_answer *a;

	if (ret)
		return ret;
	a = kvzalloc(struct_size(a, text, cap), GFP_KERNEL);
	if (!a)
		return -ENOMEM;
	mutex_init(&a->lock);
	a->cap = cap;
	file->private_data = a;
	return nonseekable_open(inode, file);
}

ssize_t ink_answer_read(struct file *file, char __user *ubuf, size_t count, loff_t *ppos)
{
	struct ink_answer *a = file->private_data;
	ssize_t ret;
	size_t n;

	mutex_lock(&a->lock);
	n = min(count, a->len - a->pos);
	ret = copy_to_user(ubuf, a->text + a->pos, n) ? -EFAULT : n;
	if (ret > 0)
		a->pos += n;
	mutex_unlock(&a->lock);
	return ret;
}

int ink_answer_release(struct inode *inode, struct file *file)
{
	struct ink_answer *a = file->private_data;

	mutex_destroy(&a->lock);
	kvfree(a);
	return 0;
}
