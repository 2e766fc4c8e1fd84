/* SPDX-License-Identifier: GPL-2.0 */
/*
 * error_log.c: error_log in the kernel's tracing format and a command's
 * log context; for every file that logs an error.
 */
#ifndef _INKPROBE_ERROR_LOG_H
#define _INKPROBE_ERROR_LOG_H

#include <linux/types.h>

struct dentry;

void ink_error_log(const char *cmd, unsigned int pos, const char *fmt, ...)
	__printf(3, 4);
/*
 * The log context of the command being run (ink_mutex held): @word[i] is
 * where word i starts in @cmd.  ink_log_err() logs with the caret @offset
 * bytes into the word of ink_log_set_index(); INK_LOG_LINE counts from the
 * start of the command, and an index past the last word points after it.
 */
#define INK_LOG_LINE	(-1)
void ink_log_init(const char *cmd, const unsigned int *word, unsigned int nr_words);
void ink_log_clear(void);
void ink_log_set_index(int index);
void ink_log_err(unsigned int offset, const char *fmt, ...) __printf(2, 3);
int ink_error_log_init(struct dentry *dir);
void ink_error_log_exit(void);

#endif /* _INKPROBE_ERROR_LOG_H */
