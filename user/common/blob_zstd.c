// SPDX-License-Identifier: GPL-2.0
/*
 * Compressed blobs with libzstd.  gen writes one frame, single-threaded so
 * that the bytes are the same run to run; readers take exactly one frame
 * and check it as module/blob_zstd.c does, so that the tool refuses what
 * the kernel refuses, with the same words.
 */
#define ZSTD_STATIC_LINKING_ONLY	/* ZSTD_getFrameHeader(), as the kernel's */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zstd.h>
#include <zstd_errors.h>

#include "blob_zstd.h"
#include "util.h"
#include "../../uapi/inkprobe.h"

bool blob_is_zstd(const void *data, size_t len)
{
	uint32_t magic;

	if (len < sizeof(magic))
		return false;
	memcpy(&magic, data, sizeof(magic));
	return magic == ZSTD_MAGICNUMBER;
}

void *blob_zstd_compress(const void *blob, size_t len, size_t *out_len)
{
	ZSTD_CCtx *cctx = ZSTD_createCCtx();
	size_t cap = ZSTD_compressBound(len), n;
	void *out = xmalloc(cap);

	if (!cctx)
		die("zstd: out of memory");
	n = ZSTD_CCtx_setParameter(cctx, ZSTD_c_compressionLevel, BLOB_ZSTD_LEVEL);
	if (!ZSTD_isError(n))
		n = ZSTD_CCtx_setParameter(cctx, ZSTD_c_contentSizeFlag, 1);
	if (!ZSTD_isError(n))
		n = ZSTD_CCtx_setParameter(cctx, ZSTD_c_checksumFlag, 1);
	if (!ZSTD_isError(n))	/* one thread: the same bytes every run */
		n = ZSTD_CCtx_setParameter(cctx, ZSTD_c_nbWorkers, 0);
	if (!ZSTD_isError(n))
		n = ZSTD_compress2(cctx, out, cap, blob, len);
	if (ZSTD_isError(n))
		die("zstd: %s", ZSTD_getErrorName(n));
	ZSTD_freeCCtx(cctx);
	*out_len = n;
	return out;
}

uint8_t *blob_zstd_decompress(const uint8_t *data, uint32_t len, uint32_t *out_len,
			      char *why, size_t why_len)
{
	const size_t min_len = sizeof(struct inkprobe_blob_header);
	ZSTD_frameHeader fh;
	size_t n, frame_len;
	uint8_t *out;

	n = ZSTD_getFrameHeader(&fh, data, len);
	if (ZSTD_isError(n)) {
		snprintf(why, why_len, "zstd frame: %s", ZSTD_getErrorName(n));
		return NULL;
	}
	if (n > 0) {
		snprintf(why, why_len, "zstd frame truncated (%u bytes)", len);
		return NULL;
	}
	if (fh.frameType != ZSTD_frame) {
		snprintf(why, why_len, "not one zstd frame");
		return NULL;
	}
	if (fh.frameContentSize == ZSTD_CONTENTSIZE_UNKNOWN) {
		snprintf(why, why_len, "zstd frame without a content size");
		return NULL;
	}
	if (fh.frameContentSize < min_len || fh.frameContentSize > INKPROBE_BLOB_MAX_LEN) {
		snprintf(why, why_len, "zstd frame content size %llu out of range (%zu to %u bytes)",
			 fh.frameContentSize, min_len, INKPROBE_BLOB_MAX_LEN);
		return NULL;
	}
	frame_len = ZSTD_findFrameCompressedSize(data, len);
	if (ZSTD_isError(frame_len)) {
		if (ZSTD_getErrorCode(frame_len) == ZSTD_error_srcSize_wrong) {
			if (len >= ZSTD_COMPRESSBOUND(fh.frameContentSize))
				goto too_long;
			snprintf(why, why_len, "zstd frame truncated (%u bytes)", len);
		} else {
			snprintf(why, why_len, "zstd frame: %s", ZSTD_getErrorName(frame_len));
		}
		return NULL;
	}
	if (frame_len > ZSTD_COMPRESSBOUND(fh.frameContentSize))
		goto too_long;
	if (frame_len < len) {
		snprintf(why, why_len, "data after the zstd frame");
		return NULL;
	}
	out = xmalloc(fh.frameContentSize);
	n = ZSTD_decompress(out, fh.frameContentSize, data, frame_len);
	if (ZSTD_isError(n) || n != fh.frameContentSize) {
		if (ZSTD_isError(n))
			snprintf(why, why_len, "zstd frame: %s", ZSTD_getErrorName(n));
		else
			snprintf(why, why_len, "zstd frame content is %zu bytes, its header says %llu",
				 n, fh.frameContentSize);
		free(out);
		return NULL;
	}
	*out_len = (uint32_t)n;
	return out;
too_long:
	snprintf(why, why_len, "zstd frame longer than its content size allows (%zu bytes)",
		 (size_t)ZSTD_COMPRESSBOUND(fh.frameContentSize));
	return NULL;
}
