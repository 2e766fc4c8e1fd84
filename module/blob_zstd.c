// SPDX-License-Identifier: GPL-2.0
/*
 * Compressed blobs: exactly one zstd frame around a raw blob
 * (Documentation/blob-format.rst, "Compressed blobs").
 *
 * blob_upload.c's blob_write() hands over every byte from a zstd magic on.
 * The frame header gives the content size, so the frame's length is bounded
 * by ZSTD_COMPRESSBOUND(content size) before anything is kept; the
 * compressed bytes are kept in a buffer grown as they arrive, never beyond
 * that bound, until zstd_find_frame_compressed_size() finds the frame
 * complete.  It is then decompressed in one call, with the kernel's zstd,
 * into a buffer of the content size, which blob_write() hands to
 * ink_blob_load() as a raw blob.
 */
#include <linux/kernel.h>
#include <linux/mm.h>
#include <linux/slab.h>
#include <linux/uaccess.h>
#include <linux/zstd.h>

#include "blob_zstd.h"
#include "debugfs_files.h"
#include "error_log.h"
#include "../uapi/inkprobe.h"

#define ZSTD_MIN_CONTENT	sizeof(struct inkprobe_blob_header)

bool ink_zstd_magic(const void *first4)
{
	__le32 magic;

	memcpy(&magic, first4, sizeof(magic));
	return le32_to_cpu(magic) == ZSTD_MAGICNUMBER;
}

void ink_zstd_begin(struct ink_zstd_upload *z, const void *first4, size_t max_len)
{
	memset(z, 0, sizeof(*z));
	memcpy(z->head, first4, 4);
	z->have = 4;
	z->max_len = max_len;
}

/* The frame header from head[]: 0 when it needs more bytes, 1 when read, or -errno. */
static int read_header(struct ink_zstd_upload *z)
{
	zstd_frame_header fh;
	size_t ret;

	BUILD_BUG_ON(sizeof(z->head) != ZSTD_FRAMEHEADERSIZE_MAX);
	ret = zstd_get_frame_header(&fh, z->head, z->have);
	if (zstd_is_error(ret)) {
		ink_error_log("blob", 0, "invalid blob: zstd frame: %s", zstd_get_error_name(ret));
		return -EINVAL;
	}
	if (ret > 0) {
		if (z->have < sizeof(z->head))
			return 0;
		/* cannot happen: no frame header is longer */
		ink_error_log("blob", 0, "invalid blob: zstd frame header too long");
		return -EINVAL;
	}
	if (fh.frameType != ZSTD_frame) {
		ink_error_log("blob", 0, "invalid blob: not one zstd frame");
		return -EINVAL;
	}
	if (fh.frameContentSize == ZSTD_CONTENTSIZE_UNKNOWN) {
		ink_error_log("blob", 0, "invalid blob: zstd frame without a content size");
		return -EINVAL;
	}
	if (fh.frameContentSize < ZSTD_MIN_CONTENT || fh.frameContentSize > INKPROBE_BLOB_MAX_LEN) {
		ink_error_log("blob", 0,
			      "invalid blob: zstd frame content size %llu out of range (%zu to %u bytes)",
			      fh.frameContentSize, ZSTD_MIN_CONTENT, INKPROBE_BLOB_MAX_LEN);
		return -EINVAL;
	}
	if (fh.frameContentSize > z->max_len) {
		/* refused before a byte more is kept, let alone decompressed */
		ink_error_log("blob", 0,
			      "invalid blob: zstd frame content size %llu, more than blob_max_kb=%zu (module parameter)",
			      fh.frameContentSize, z->max_len >> 10);
		return -EFBIG;
	}
	z->content_size = fh.frameContentSize;
	z->bound = ZSTD_COMPRESSBOUND(z->content_size);
	return 1;
}

/* Makes room for @need bytes (at most z->bound), doubling: the frame's length is not known. */
static int grow(struct ink_zstd_upload *z, size_t need)
{
	bool first = !z->buf;
	int ret = ink_grow(&z->buf, &z->cap, first ? 0 : z->have, need, z->bound);

	if (!ret && first)
		memcpy(z->buf, z->head, z->have);
	return ret;
}

/* The complete frame in z->buf, decompressed into *@blob (kvmalloc'd). */
static int decompress(struct ink_zstd_upload *z, void **blob, u32 *len)
{
	size_t wksp_size = zstd_dctx_workspace_bound(), ret;
	void *out, *wksp;
	zstd_dctx *dctx;

	out = kvmalloc(z->content_size, GFP_KERNEL | __GFP_NOWARN);
	wksp = kvmalloc(wksp_size, GFP_KERNEL);
	dctx = wksp ? zstd_init_dctx(wksp, wksp_size) : NULL;
	if (!out || !dctx) {
		kvfree(wksp);
		kvfree(out);
		return -ENOMEM;
	}
	ret = zstd_decompress_dctx(dctx, out, z->content_size, z->buf, z->have);
	kvfree(wksp);
	kvfree(z->buf);		/* not needed any more: free it before blob_load() */
	z->buf = NULL;
	z->cap = 0;
	if (zstd_is_error(ret)) {
		ink_error_log("blob", 0, "invalid blob: zstd frame: %s", zstd_get_error_name(ret));
		kvfree(out);
		return -EINVAL;
	}
	if (ret != z->content_size) {	/* zstd checks it too */
		ink_error_log("blob", 0,
			      "invalid blob: zstd frame content is %zu bytes, its header says %llu",
			      ret, z->content_size);
		kvfree(out);
		return -EINVAL;
	}
	*blob = out;
	*len = ret;
	return 0;
}

int ink_zstd_write(struct ink_zstd_upload *z, const char __user *ubuf, size_t count,
		   void **blob, u32 *len)
{
	size_t done = 0, n, size;
	int ret;

	*blob = NULL;
	/* the header first, into head[]: it bounds everything else */
	while (!z->bound && done < count) {
		n = min(count - done, sizeof(z->head) - z->have);
		if (copy_from_user(z->head + z->have, ubuf + done, n))
			return -EFAULT;
		z->have += n;
		done += n;
		ret = read_header(z);
		if (ret < 0)
			return ret;
	}
	if (!z->bound)
		return 0;

	n = min(count - done, z->bound - z->have);
	ret = grow(z, z->have + n);
	if (ret)
		return ret;
	if (copy_from_user(z->buf + z->have, ubuf + done, n))
		return -EFAULT;
	z->have += n;
	done += n;

	size = zstd_find_frame_compressed_size(z->buf, z->have);
	if (zstd_is_error(size)) {
		if (zstd_get_error_code(size) != ZSTD_error_srcSize_wrong) {
			ink_error_log("blob", 0, "invalid blob: zstd frame: %s",
				      zstd_get_error_name(size));
			return -EINVAL;
		}
		if (z->have < z->bound)
			return 0;	/* incomplete: wait for more */
		ink_error_log("blob", 0,
			      "invalid blob: zstd frame longer than its content size allows (%zu bytes)",
			      z->bound);
		return -EINVAL;
	}
	if (size != z->have || done < count) {
		ink_error_log("blob", 0, "invalid blob: data after the zstd frame");
		return -EINVAL;
	}
	return decompress(z, blob, len);
}

int ink_zstd_flush(struct ink_zstd_upload *z)
{
	ink_error_log("blob", 0, "invalid blob: zstd frame truncated (%zu bytes)", z->have);
	return -EINVAL;
}

void ink_zstd_free(struct ink_zstd_upload *z)
{
	kvfree(z->buf);
	z->buf = NULL;
}
