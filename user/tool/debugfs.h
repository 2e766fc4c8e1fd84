/* SPDX-License-Identifier: GPL-2.0 */
/*
 * inkprobe.ko's control files (Documentation/control.rst): opening them
 * with a diagnosis when that fails, one-write commands, and failures told
 * with the kernel's reason from error_log and what to do about it.
 *
 * The directory is /sys/kernel/debug/inkprobe, or $INKPROBE_DEBUGFS_DIR.
 */
#ifndef _INKPROBE_USER_DEBUGFS_H
#define _INKPROBE_USER_DEBUGFS_H

#include <stddef.h>

/* What to do when a command fails with @err (0 ends a list). */
struct ctl_hint {
	int err;
	const char *text;
};

/* The path of control file @name (a static buffer, valid until the next call). */
const char *ctl_path(const char *name);

/*
 * Opens control file @name.  On failure prints why (not root, debugfs not
 * mounted, inkprobe.ko not loaded, a module without that file) and exits 1.
 */
int ctl_open(const char *name, int flags);

/* The whole control file, NUL-terminated (malloc'd); exits 1 on failure. */
char *ctl_read(const char *name);

/*
 * The blob of @target (vmlinux or a module's name) as inkprobe.ko holds it,
 * raw, read back through "loaded_blob" (malloc'd, *@len bytes); NULL with
 * errno set if the module has none (ENOENT) or another failure.  Exits 1
 * when the file cannot be opened, as ctl_open() does.
 */
unsigned char *ctl_read_blob(const char *target, size_t *len);

/* Copies control file @name to stdout; returns the exit status. */
int ctl_cat(const char *name);

/*
 * The newest error_log entry with its lines (malloc'd), or NULL.  Taken
 * before a command, it tells the command's own entry from older ones.
 */
char *ctl_errlog_newest(void);

/*
 * A failed command: prints "inkprobe: @what: REASON" where REASON is the
 * error_log entry newer than @mark (with its Command line and caret) or
 * strerror(@err), then the text of @hints for @err.  Returns 1.
 */
int ctl_fail(const char *mark, int err, const char *what, const struct ctl_hint *hints);

/* Writes @len bytes to control file @name in one write(), closes it: 0 or errno. */
int ctl_write(const char *name, int flags, const void *buf, size_t len);

/*
 * Writes @len bytes to control file @name in one write() and closes it;
 * on failure reports it as ctl_fail() does.  Returns the exit status.
 */
int ctl_command(const char *name, int flags, const void *buf, size_t len, const char *what,
		const struct ctl_hint *hints);

#endif /* _INKPROBE_USER_DEBUGFS_H */
