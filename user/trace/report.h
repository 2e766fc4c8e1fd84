/* SPDX-License-Identifier: GPL-2.0 */
/*
 * `inkprobe trace --input`: a file `inkprobe trace --output` recorded
 * (trace_file.h), printed as `inkprobe trace` would have printed the same
 * records (stream.h), its reads and losses where they were.  The event
 * formats come from the file; symbols and inline frames from the machine it
 * runs on (@ctx: /proc/kallsyms or $INKPROBE_KALLSYMS, the blobs).
 */
#ifndef _INKPROBE_USER_REPORT_H
#define _INKPROBE_USER_REPORT_H

#include <stdbool.h>
#include <stdio.h>

#include "record.h"

struct ink_report_opts {
	bool json;
	unsigned long long count;	/* stop after this many events; 0: no limit */
	struct ink_rec_ctx ctx;
	int out_fd;
};

/* Prints the records of @f (named @name in messages); the exit status: 0, or 1 after a message. */
int ink_report(FILE *f, const char *name, const struct ink_report_opts *o);

#endif /* _INKPROBE_USER_REPORT_H */
