/* SPDX-License-Identifier: GPL-2.0 */
/*
 * An independent model of what inkprobe.ko says about a raw blob, for the
 * tests that feed it malformed ones (malformed_test, compressed_test): a
 * second reading of Documentation/blob-format.rst ("Refusals" lists every
 * message, the field it names and the order of the checks) and of the
 * kernel's BTF format, written apart from lib/blob.c and lib/btf_lite.c and
 * sharing no code or header with them, so that a bug of the validator the
 * module links shows as a disagreement instead of hiding in the oracle.
 */
#ifndef _INKPROBE_BLOB_MODEL_H
#define _INKPROBE_BLOB_MODEL_H

#include <stddef.h>
#include <stdint.h>

/* The running kernel's vmlinux BTF, as the blob's BTF is split on it. */
struct model_base {
	uint32_t nr_types;	/* ids 1 .. nr_types */
	uint32_t strs_len;
	uint32_t len, crc;	/* of the whole file: what TARGET must say */
	const uint8_t *types;
	uint32_t *offs;		/* offs[id - 1]: the type's offset in @types */
	const char *strs;
};

/* Reads @data (@len bytes: /sys/kernel/btf/vmlinux); 0 or -1. */
int model_base_open(struct model_base *base, const uint8_t *data, size_t len);

/*
 * What the kernel says when the first @len bytes of a raw blob arrive:
 * "" while every header field complete among them is valid (it waits for
 * more), else "invalid blob: MSG at byte N".
 */
const char *model_prefix(const uint8_t *data, size_t len);

/*
 * What the kernel says about a raw blob of exactly @len bytes that its
 * header frames (blob_len == @len): "" when the validator accepts it and
 * it is for the running kernel's build of vmlinux BTF; else the exact
 * error_log message ("invalid blob: ...", "invalid blob BTF: ...", or that
 * the blob was generated for another kernel build).
 */
const char *model_verdict(const uint8_t *data, size_t len, const struct model_base *base);

/* Where the parts of a blob the model accepts are (offsets in the blob). */
struct model_layout {
	uint32_t target, symbols, nr_syms, btf, btf_len, inl, inst, inst_len, loc, loc_len;
	uint32_t ext, ext_len;
};

/* The layout of a blob model_verdict() accepts; 0 or -1. */
int model_layout(const uint8_t *data, size_t len, struct model_layout *l);

#endif /* _INKPROBE_BLOB_MODEL_H */
