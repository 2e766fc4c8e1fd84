/* SPDX-License-Identifier: GPL-2.0 */
/*
 * zstd frames for the tests of compressed blobs, on the host and in the
 * guest (the guest sees the host's libzstd): libzstd for the well-formed
 * ones, and a little surgery on frame headers and blocks (RFC 8878,
 * 3.1.1) for the others.  Every function returns a malloc'd frame.
 */
#ifndef _INKPROBE_ZSTD_CRAFT_H
#define _INKPROBE_ZSTD_CRAFT_H

#define ZSTD_STATIC_LINKING_ONLY	/* ZSTD_getFrameHeader() */
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <zstd.h>

#define CRAFT_SKIPPABLE_MAGIC	0x184d2a50U

static inline void craft_le(uint8_t *p, uint64_t v, int n)
{
	int i;

	for (i = 0; i < n; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

/* @len bytes compressed at level 3 with a checksum, with or without the content size. */
static inline uint8_t *craft_compress(const void *data, size_t len, bool content_size,
				      size_t *out_len)
{
	ZSTD_CCtx *c = ZSTD_createCCtx();
	size_t cap = ZSTD_compressBound(len), n;
	uint8_t *out = malloc(cap);

	ZSTD_CCtx_setParameter(c, ZSTD_c_compressionLevel, 3);
	ZSTD_CCtx_setParameter(c, ZSTD_c_checksumFlag, 1);
	ZSTD_CCtx_setParameter(c, ZSTD_c_contentSizeFlag, content_size);
	n = ZSTD_compress2(c, out, cap, data, len);
	ZSTD_freeCCtx(c);
	if (ZSTD_isError(n)) {
		free(out);
		return NULL;
	}
	*out_len = n;
	return out;
}

/*
 * Like craft_compress() with the content size, but one block (or more) per
 * @chunk bytes: the encoder is flushed after each.
 */
static inline uint8_t *craft_compress_blocks(const void *data, size_t len, size_t chunk,
					     size_t *out_len)
{
	ZSTD_CCtx *c = ZSTD_createCCtx();
	size_t cap = ZSTD_compressBound(len) + 8 * (len / chunk + 1), done = 0, r;
	ZSTD_outBuffer out = { malloc(cap), cap, 0 };
	ZSTD_inBuffer in;

	ZSTD_CCtx_setParameter(c, ZSTD_c_compressionLevel, 3);
	ZSTD_CCtx_setParameter(c, ZSTD_c_checksumFlag, 1);
	ZSTD_CCtx_setPledgedSrcSize(c, len);
	do {
		size_t n = len - done < chunk ? len - done : chunk;

		in = (ZSTD_inBuffer){ (const uint8_t *)data + done, n, 0 };
		done += n;
		do {
			r = ZSTD_compressStream2(c, &out, &in, done < len ? ZSTD_e_flush : ZSTD_e_end);
		} while (!ZSTD_isError(r) && r);
	} while (!ZSTD_isError(r) && done < len);
	ZSTD_freeCCtx(c);
	if (ZSTD_isError(r)) {
		free(out.dst);
		return NULL;
	}
	*out_len = out.pos;
	return out.dst;
}

/* The frame with Frame_Content_Size rewritten as @fcs, in an 8-byte field. */
static inline uint8_t *craft_content_size(const uint8_t *f, size_t len, uint64_t fcs,
					  size_t *out_len)
{
	static const uint8_t did_size[4] = { 0, 1, 2, 4 };
	ZSTD_frameHeader fh;
	uint8_t fhd, *out;
	size_t p = 5;

	if (ZSTD_getFrameHeader(&fh, f, len) != 0)
		return NULL;
	fhd = f[4];
	out = malloc(len + 8);
	memcpy(out, f, 4);
	out[4] = (uint8_t)(3 << 6 | (fhd & 0x3f));	/* FCS_Field_Size 8 */
	if (!(fhd & 0x20))				/* Window_Descriptor */
		out[p++] = f[5];
	memcpy(out + p, f + p, did_size[fhd & 3]);	/* Dictionary_ID */
	p += did_size[fhd & 3];
	craft_le(out + p, fcs, 8);
	p += 8;
	memcpy(out + p, f + fh.headerSize, len - fh.headerSize);
	*out_len = p + len - fh.headerSize;
	return out;
}

/*
 * Offsets of the frame's block headers (at most @max), and of its checksum
 * in *@checksum (0: none).
 */
static inline int craft_blocks(const uint8_t *f, size_t len, size_t *offs, int max,
			       size_t *checksum)
{
	ZSTD_frameHeader fh;
	size_t p;
	int n = 0;

	*checksum = 0;
	if (ZSTD_getFrameHeader(&fh, f, len) != 0)
		return 0;
	for (p = fh.headerSize; p + 3 <= len && n < max;) {
		uint32_t h = f[p] | f[p + 1] << 8 | f[p + 2] << 16;

		offs[n++] = p;
		p += 3 + (((h >> 1) & 3) == 1 ? 1 : h >> 3);	/* RLE: one byte */
		if (h & 1)
			break;
	}
	if (fh.checksumFlag && p + 4 == len)
		*checksum = p;
	return n;
}

/*
 * A valid frame of @len bytes that is longer than ZSTD_COMPRESSBOUND(@len):
 * one Raw_Block per byte, 4 bytes each.
 */
static inline uint8_t *craft_too_long(const uint8_t *data, size_t len, size_t *out_len)
{
	uint8_t *out = malloc(13 + 4 * len), *p = out;
	size_t i;

	craft_le(p, ZSTD_MAGICNUMBER, 4);
	p[4] = 3 << 6 | 1 << 5;		/* FCS 8 bytes, single segment, no checksum */
	craft_le(p + 5, len, 8);
	p += 13;
	for (i = 0; i < len; i++, p += 4) {
		craft_le(p, 1 << 3 | (i + 1 == len), 3);	/* Raw_Block, size 1 */
		p[3] = data[i];
	}
	*out_len = (size_t)(p - out);
	return out;
}

/* A skippable frame of @len bytes of payload. */
static inline uint8_t *craft_skippable(size_t len, size_t *out_len)
{
	uint8_t *out = calloc(1, 8 + len);

	craft_le(out, CRAFT_SKIPPABLE_MAGIC, 4);
	craft_le(out + 4, len, 4);
	*out_len = 8 + len;
	return out;
}

/* @a then @b. */
static inline uint8_t *craft_cat(const uint8_t *a, size_t alen, const uint8_t *b, size_t blen,
				 size_t *out_len)
{
	uint8_t *out = malloc(alen + blen + 1);

	memcpy(out, a, alen);
	memcpy(out + alen, b, blen);
	*out_len = alen + blen;
	return out;
}

#endif /* _INKPROBE_ZSTD_CRAFT_H */
