// SPDX-License-Identifier: GPL-2.0
/*
 * inkprobe: inline-aware kprobes.
 *
 * Every file lives in /sys/kernel/debug/inkprobe/ (Documentation/control.rst):
 *   blob         write a blob: loads or replaces the blob of its target
 *   blobs        list loaded blobs; "-NAME" unloads one
 *   probes       kprobe_events-style definitions, each a trace event
 *                (/sys/kernel/tracing/events/GROUP/EVENT)
 *   stats        hits, and written and lost per consumer, per event
 *   sites        each instance's argument specs, for BPF programs
 *   error_log    the last errors, in the tracing error_log format
 *   stack        write a thread ID, read its kernel stack
 *   frames       write code addresses, read their symbols and inline frames
 */
#include <linux/module.h>

#include "blob_store.h"
#include "blob_upload.h"
#include "debugfs_files.h"
#include "error_log.h"
#include "frames_file.h"
#include "kernel_btf.h"
#include "module_notify.h"
#include "probe_event.h"
#include "site_spec.h"
#include "stack.h"

static int __init inkprobe_init(void)
{
	int ret;

	ret = ink_debugfs_init();
	if (ret)
		return ret;
	ret = ink_error_log_init(ink_debugfs_dir);
	if (!ret)
		ret = ink_blob_store_init(ink_debugfs_dir);
	if (!ret)
		ret = ink_module_notify_init();
	if (ret)
		goto err_dir;
	ink_blob_upload_init(ink_debugfs_dir);
	ret = ink_probes_init(ink_debugfs_dir);
	if (ret)
		goto err_store;
	ink_site_spec_init(ink_debugfs_dir);
	ret = ink_stack_init(ink_debugfs_dir);
	if (ret)
		goto err_probes;
	ink_frames_file_init(ink_debugfs_dir);
	return 0;

err_probes:
	ink_probes_exit();
err_store:
	ink_module_notify_exit();
	ink_blob_store_exit();
err_dir:
	ink_debugfs_exit();
	ink_error_log_exit();
	return ret;
}

static void __exit inkprobe_exit(void)
{
	/* Open files pin the module, so nobody is inside a file operation. */
	ink_probes_exit();		/* unregisters every kprobe, removes events/ */
	ink_debugfs_exit();
	ink_module_notify_exit();
	ink_blob_store_exit();
	ink_kernel_btf_exit();
	ink_error_log_exit();
}

module_init(inkprobe_init);
module_exit(inkprobe_exit);
MODULE_LICENSE("GPL");
MODULE_AUTHOR("inkprobe developers");
MODULE_DESCRIPTION("Inline-aware kprobes with argument decoding and ORC stack traces");
