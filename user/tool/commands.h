/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The commands that drive inkprobe.ko through its control files.  Each
 * returns the exit status: 0, 1 on a runtime error, 2 on a usage error.
 */
#ifndef _INKPROBE_USER_COMMANDS_H
#define _INKPROBE_USER_COMMANDS_H

#include <stdbool.h>
#include <stddef.h>

/* cmd_load.c */
int cmd_load(int argc, char **argv);
/* Whether inkprobe.ko has a blob for @target (vmlinux or a module). */
bool blob_loaded(const char *target);
/*
 * Loads the blob file @path unless a blob of its target and build ID is
 * loaded already: *@loaded says whether it was loaded now, @target (@n
 * bytes) gets its target.  Returns the exit status.
 */
int load_blob_file(const char *path, char *target, size_t n, bool *loaded);
/*
 * The same for the blob of the running kernel (@module NULL) or of the
 * loaded module @module, fetched by build ID as 'inkprobe load' does
 * (DEBUGINFOD_URLS), its status line on stderr.
 */
int load_running_blob(const char *module, char *target, size_t n, bool *loaded);

/* cmd_control.c */
int cmd_unload(int argc, char **argv);
int cmd_add(int argc, char **argv);
int cmd_del(int argc, char **argv);
int cmd_list(int argc, char **argv);
int cmd_stats(int argc, char **argv);
/* cmd_publish.c */
int cmd_publish(int argc, char **argv);

/* cmd_trace.c */
int cmd_trace(int argc, char **argv);

/* cmd_latency.c */
int cmd_latency(int argc, char **argv);

/* cmd_funcs.c */
int cmd_funcs(int argc, char **argv);
int cmd_vars(int argc, char **argv);

/* cmd_profile.c */
int cmd_profile(int argc, char **argv);

/* cmd_stack.c */
int cmd_stack(int argc, char **argv);

/*
 * For commands whose options are --help (-h) and at most one flag, --@flag
 * (NULL: none), which sets *@set: parses them, leaving optind on the first
 * operand.  Returns -1 to go on, else the exit status: 0 after printing
 * @usage for --help, 2 after printing it on a bad option or when there are
 * fewer than @min or more than @max operands.
 */
int parse_simple_args(int argc, char **argv, const char *usage, const char *flag, bool *set,
		      int min, int max);

#endif /* _INKPROBE_USER_COMMANDS_H */
