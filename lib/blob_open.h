/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The one way to a usable blob, for inkprobe.ko, the tool, the fuzzer, the
 * bench and the tests alike: its structure parsed (ink_blob_parse()), the
 * BTF it stacks on chosen for its target, its split BTF opened and indexed
 * on that BTF, and its types checked (ink_blob_check_btf()).
 */
#ifndef _INKPROBE_BLOB_OPEN_H
#define _INKPROBE_BLOB_OPEN_H

#include "blob.h"
#include "btf_lite.h"

/*
 * ink_btf_open() and ink_btf_index() on an index of its own: 0, or -errno
 * (-ENOMEM: "out of memory" in @err).  ink_btf_unload() frees the index.
 */
int ink_btf_load(struct ink_btf *btf, const void *data, u32 len, const struct ink_btf *base,
		 struct ink_err *err);
void ink_btf_unload(struct ink_btf *btf);

/* The phases of ink_blob_open(), in order; err->phase says which one failed. */
enum ink_open_phase {
	INK_OPEN_PARSE,		/* ink_blob_parse(): structure */
	INK_OPEN_TARGET,	/* the caller's target_btf(): the BTF to stack on */
	INK_OPEN_BTF,		/* ink_btf_load() of the blob's split BTF */
	INK_OPEN_CHECK,		/* ink_blob_check_btf(): types */
};

struct ink_open_env {
	/* the BTF the blob's split BTF stacks on (vmlinux's), if fixed */
	const struct ink_btf *base;
	/*
	 * Else the BTF for this parsed blob's target, in *@base: 0, or -errno
	 * (the blob is refused; the hook says why, in @err or elsewhere).
	 */
	int (*target_btf)(void *arg, const struct ink_blob *b, const struct ink_btf **base,
			  struct ink_err *err);
	/*
	 * Called before (@done false) and after (@done true) the parse, BTF and
	 * check phases, for the bench to count each; may be NULL.
	 */
	void (*phase)(void *arg, enum ink_open_phase phase, bool done);
	void *arg;
};

/*
 * Opens the blob in @data, which must stay while @b is used: 0 with @b and
 * @btf usable, or -errno with err->phase the phase that failed, nothing
 * left allocated and @b as far as it was parsed.  Close with
 * ink_blob_close().  The module reads the split BTF where it is in the
 * blob (kvmalloc'd: the BTF is 8-byte aligned); userspace reads a copy of
 * exactly its size, so that any buffer will do and ASan sees a read past
 * its end.
 */
int ink_blob_open(struct ink_blob *b, struct ink_btf *btf, const void *data, u32 len,
		  const struct ink_open_env *env, struct ink_err *err);
void ink_blob_close(struct ink_btf *btf);

#endif /* _INKPROBE_BLOB_OPEN_H */
