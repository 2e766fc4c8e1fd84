/* SPDX-License-Identifier: GPL-2.0 */
/* blob_upload.c: the "blob" file, for main.c. */
#ifndef _INKPROBE_BLOB_UPLOAD_H
#define _INKPROBE_BLOB_UPLOAD_H

struct dentry;

/* The "blob" file: a blob written in pieces, raw or compressed, to ink_blob_load(). */
void ink_blob_upload_init(struct dentry *dir);

#endif /* _INKPROBE_BLOB_UPLOAD_H */
