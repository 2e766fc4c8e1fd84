/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A profile's look-up done by inkprobe.ko: its "frames" file
 * (Documentation/control.rst) takes code addresses and answers each one's
 * symbol and inline frames, from the kernel's symbols and the blobs the
 * module has loaded and indexed.  The tool then needs neither
 * /proc/kallsyms nor a blob of its own: no reading, checking or indexing
 * them per run (Documentation/profile.rst, "Where the frames come from").
 */
#ifndef _INKPROBE_USER_KERNEL_FRAMES_H
#define _INKPROBE_USER_KERNEL_FRAMES_H

#include <stddef.h>

#include "profile_report.h"

struct kernel_frames;

/* Opens the frames file at @path; NULL (errno set) if it cannot be. */
struct kernel_frames *kernel_frames_open(const char *path);
/* Closes it; the names it gave are freed. */
void kernel_frames_free(struct kernel_frames *k);
/* A profile_lookup_fn: @ctx is a struct kernel_frames. */
int kernel_frames_lookup(void *ctx, struct profile_entry *e, size_t n, char *why,
			 size_t why_len);

#endif /* _INKPROBE_USER_KERNEL_FRAMES_H */
