/* SPDX-License-Identifier: GPL-2.0 */
/* blob_zstd.c: a compressed blob's zstd frame, for blob_upload.c. */
#ifndef _INKPROBE_BLOB_ZSTD_H
#define _INKPROBE_BLOB_ZSTD_H

#include <linux/types.h>

/* A zstd frame being written to "blob" (Documentation/blob-format.rst). */
struct ink_zstd_upload {
	u8 head[18];		/* ZSTD_FRAMEHEADERSIZE_MAX: bytes until the header is read */
	u8 *buf;		/* then the whole frame so far, kvmalloc'd */
	size_t cap;		/* of buf */
	size_t have;		/* bytes received */
	size_t bound;		/* ZSTD_COMPRESSBOUND(content_size); 0 until the header is read */
	u64 content_size;
	size_t max_len;		/* the largest content accepted (blob_max_kb) */
};

/* Do these 4 bytes start a zstd frame? */
bool ink_zstd_magic(const void *first4);
/* A frame that starts with those 4 bytes, its content at most @max_len bytes. */
void ink_zstd_begin(struct ink_zstd_upload *z, const void *first4, size_t max_len);
/*
 * Takes all @count bytes, or fails: -errno, the reason in error_log.  Once
 * the frame is complete, *@blob is its content (kvmalloc'd, @len bytes),
 * else NULL.
 */
int ink_zstd_write(struct ink_zstd_upload *z, const char __user *ubuf, size_t count,
		   void **blob, u32 *len);
/* close() before the frame was complete: logs it, returns -EINVAL. */
int ink_zstd_flush(struct ink_zstd_upload *z);
void ink_zstd_free(struct ink_zstd_upload *z);

#endif /* _INKPROBE_BLOB_ZSTD_H */
