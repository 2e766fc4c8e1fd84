// SPDX-License-Identifier: GPL-2.0
/*
 * inkprobe: inline-aware kprobes.
 *
 * Every file lives in /sys/kernel/debug/inkprobe/ (Documentation/control.rst):
 *   blob         write a blob: loads or replaces the blob of its target
 *   blobs        list loaded blobs; "-NAME" unloads one
 *   probes       kprobe_events-style definitions
 *   events/GROUP/EVENT/enable
 *   trace_pipe   events, consumed as they are read
 *   stats        hits, written and lost per event
 *   error_log    the last errors, in the tracing error_log format
 *   stack        write a thread ID, read its kernel stack
 */
#include <linux/capability.h>
#include <linux/debugfs.h>
#include <linux/fs.h>
#include <linux/module.h>

#include "inkprobe.h"

DEFINE_MUTEX(ink_mutex);
struct dentry *ink_debugfs_dir;

/* Every file is root-only by mode; opening also needs CAP_SYS_ADMIN. */
int ink_open_admin(struct inode *inode, struct file *file)
{
	if (!capable(CAP_SYS_ADMIN))
		return -EPERM;
	return 0;
}

static int __init inkprobe_init(void)
{
	int ret;

	ink_debugfs_dir = debugfs_create_dir("inkprobe", NULL);
	if (IS_ERR(ink_debugfs_dir))
		return PTR_ERR(ink_debugfs_dir);
	ret = ink_ring_init();
	if (ret)
		goto err_dir;
	ret = ink_error_log_init(ink_debugfs_dir);
	if (!ret)
		ret = ink_blob_store_init(ink_debugfs_dir);
	if (ret)
		goto err_ring;
	ret = ink_probes_init(ink_debugfs_dir);
	if (ret)
		goto err_store;
	ret = ink_trace_output_init(ink_debugfs_dir);
	if (!ret)
		ret = ink_stack_init(ink_debugfs_dir);
	if (ret)
		goto err_probes;
	return 0;

err_probes:
	ink_probes_exit();
err_store:
	ink_blob_store_exit();
err_ring:
	ink_ring_exit();
err_dir:
	debugfs_remove_recursive(ink_debugfs_dir);
	ink_error_log_exit();
	return ret;
}

static void __exit inkprobe_exit(void)
{
	/* Open files pin the module, so nobody is inside a file operation. */
	ink_probes_exit();		/* unregisters every kprobe, removes events/ */
	debugfs_remove_recursive(ink_debugfs_dir);
	ink_blob_store_exit();
	ink_ring_exit();
	ink_kernel_btf_exit();
	ink_error_log_exit();
}

module_init(inkprobe_init);
module_exit(inkprobe_exit);
MODULE_LICENSE("GPL");
MODULE_AUTHOR("inkprobe developers");
MODULE_DESCRIPTION("Inline-aware kprobes with argument decoding and ORC stack traces");
