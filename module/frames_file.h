/* SPDX-License-Identifier: GPL-2.0 */
/*
 * frames_file.c: "frames", code addresses to symbols and inline frames;
 * for main.c.
 */
#ifndef _INKPROBE_FRAMES_FILE_H
#define _INKPROBE_FRAMES_FILE_H

struct dentry;

void ink_frames_file_init(struct dentry *dir);

#endif /* _INKPROBE_FRAMES_FILE_H */
