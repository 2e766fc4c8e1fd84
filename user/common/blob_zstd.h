/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Compressed blobs: one zstd frame around a raw blob
 * (Documentation/blob-format.rst, "Compressed blobs"), with libzstd.
 */
#ifndef _INKPROBE_BLOB_ZSTD_H
#define _INKPROBE_BLOB_ZSTD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* zstd's level for the frames gen writes. */
#define BLOB_ZSTD_LEVEL	3

/* Does @data start with the zstd frame magic (0xfd2fb528)? */
bool blob_is_zstd(const void *data, size_t len);

/*
 * The frame gen writes around @len bytes of raw blob: level 3, one thread,
 * content size and checksum.  malloc'd; dies on failure.
 */
void *blob_zstd_compress(const void *blob, size_t len, size_t *out_len);

/*
 * The raw blob inside the frame @data of @len bytes (malloc'd), or NULL
 * with the reason in @why.  Refuses what inkprobe.ko refuses: a frame
 * without a content size, content size out of range, a frame longer than
 * ZSTD_COMPRESSBOUND(content size), a cut-short frame, data after it, any
 * zstd error.
 */
uint8_t *blob_zstd_decompress(const uint8_t *data, uint32_t len, uint32_t *out_len,
			      char *why, size_t why_len);

#endif /* _INKPROBE_BLOB_ZSTD_H */
