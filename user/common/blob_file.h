/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A blob read from a file and validated by the shared validator, with its
 * BTF on the vmlinux BTF (from the running kernel or from a file) for names.
 */
#ifndef _INKPROBE_BLOB_FILE_H
#define _INKPROBE_BLOB_FILE_H

#include <stdint.h>

#include "../../lib/blob.h"
#include "../../lib/blob_open.h"
#include "../../lib/btf_lite.h"
#include "build_id.h"

struct blob_file {
	uint8_t *data;
	uint32_t len;
	struct ink_blob blob;
	void *vmlinux_raw;
	struct ink_btf vmlinux;		/* the target's vmlinux BTF */
	struct ink_btf btf;		/* the blob's, on it */
};

/*
 * Reads @path, raw or compressed (read_blob()), and opens the blob
 * (ink_blob_open()).  The
 * target's BTF comes from @vmlinux_btf and @module_btf when given (ELF files
 * or raw BTF), else from /sys/kernel/btf.
 * Dies with the validator's message on a bad blob or mismatched BTF.
 */
void blob_file_open(struct blob_file *bf, const char *path, const char *vmlinux_btf,
		    const char *module_btf);
/*
 * The same for a raw blob already read: @data (malloc'd, @len bytes) is
 * the blob_file's from then on; @what names it in messages.
 */
void blob_file_open_data(struct blob_file *bf, uint8_t *data, uint32_t len, const char *what,
			 const char *vmlinux_btf, const char *module_btf);
void blob_file_close(struct blob_file *bf);

static inline const struct ink_btf *blob_file_btf(const struct blob_file *bf)
{
	return &bf->btf;
}

/* Reads a whole file; dies on error. */
uint8_t *read_file(const char *path, uint32_t *len);
/*
 * Reads a blob file, raw or compressed: the raw blob.  Dies on error, and
 * on a compressed blob the kernel would refuse, saying why.
 */
uint8_t *read_blob(const char *path, uint32_t *len);

/* What a blob says of its target. */
struct blob_target {
	char name[INKPROBE_TARGET_NAME_LEN];
	struct build_id id;
};

/* blob_peek()'s refusals */
enum { BLOB_PEEK_BAD_FRAME = 1, BLOB_PEEK_BAD_BLOB };

/*
 * The target of the blob in @data, raw or compressed, its structure checked
 * (ink_blob_parse(): enough to name it, not to use it): 0; else
 * BLOB_PEEK_BAD_FRAME, a zstd frame the kernel would refuse (@why says
 * why), or BLOB_PEEK_BAD_BLOB, not a valid blob (@err says why).
 */
int blob_peek(const uint8_t *data, uint32_t len, struct blob_target *t, char *why,
	      size_t why_len, struct ink_err *err);

#endif /* _INKPROBE_BLOB_FILE_H */
