/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The one blob validator, compiled into inkprobe.ko and into the userspace
 * tool, fuzzer and tests.  A blob is untrusted: nothing in it is used before
 * ink_blob_parse() (structure) and ink_blob_check_btf() (types) accept it,
 * which ink_blob_open() (blob_open.h), the one way to a usable blob, runs.
 * ink_blob_parse() alone is enough to read a blob's target.
 */
#ifndef _INKPROBE_BLOB_H
#define _INKPROBE_BLOB_H

#include "compat.h"
#include "btf_lite.h"
#include "loc_op.h"
#include "../uapi/inkprobe.h"

struct ink_blob {
	const u8 *data;
	u32 len;
	const struct inkprobe_target *target;
	const u8 *btf;			/* split BTF */
	u32 btf_len;
	const struct btf_inline_header *inl;
	const u8 *inst;			/* instance subsection */
	u32 inst_len;
	const u8 *loc;			/* location subsection */
	u32 loc_len;
	const u8 *ext;			/* extension subsection, or NULL */
	u32 ext_len;
	u32 nr_instances;
	const struct inkprobe_symbol *syms;
	u32 nr_syms;
};

/*
 * Check the expression at offset @off of the location subsection: known
 * operators, operands in range, a terminator within LOC_MAX_EXPR_LEN bytes,
 * and a stack that never underflows or overflows and ends with one value
 * (or only pieces).  The empty expression is valid: "unavailable".
 */
int ink_loc_check(const struct ink_blob *b, u32 off, struct ink_err *err);

/*
 * The first @len bytes of a blob, however few: every header field among
 * them complete (magic: its bytes so far) must be valid.  A writer can
 * refuse a blob as its first bytes arrive.
 */
int ink_blob_check_prefix(const void *data, u32 len, struct ink_err *err);

/*
 * The container header (magic, version, header and blob lengths, number of
 * sections): what a reader needs to know how long the blob is.  *blob_len
 * on success.
 */
int ink_blob_check_header(const void *data, u32 len, u32 *blob_len, struct ink_err *err);

/* Structure: container, sections, headers, every record and expression. */
int ink_blob_parse(struct ink_blob *b, const void *data, u32 len, struct ink_err *err);

/*
 * Types: @btf is the blob's split BTF, indexed, stacked on the target's BTF.
 * Every callee is a FUNC whose FUNC_PROTO has nr_parms parameters, every
 * caller a FUNC with a SYMBOLS entry, and every probe offset inside it.
 */
int ink_blob_check_btf(const struct ink_blob *b, const struct ink_btf *btf,
		       struct ink_err *err);

/* Walking instances (only on a parsed blob). */
struct ink_instance {
	u32 callee_id;
	u32 caller_id;
	u32 caller_offset;
	u16 nr_parms;
	const u8 *parm_loc;	/* nr_parms little-endian u32 offsets */
	/* from the extension record (entry_offset == caller_offset and no
	 * flags or ranges when there is none)
	 */
	u32 entry_offset;
	u16 flags;
	u16 nr_ranges;
	const u8 *ranges;	/* encoded: read them with ink_range_next() */
	u32 ranges_len;
	u32 merged_calls;	/* MERGED: calls sharing the record; else 0 */
	u16 nr_ambiguous;	/* MERGED: parameters made empty */
	const u8 *ambiguous;	/* encoded: test with ink_parm_ambiguous() */
	u16 nr_exits;		/* EXITS: the copy's exits; else 0 */
	const u8 *exits;	/* encoded: read them with ink_exit_next() */
	u32 exits_len;
	u8 depth;		/* DEPTH: inline depth in the caller; else 0 */
};

struct ink_instance_iter {
	const struct ink_blob *b;
	u32 inst_off;
	u32 ext_off;
	u32 index;
};

void ink_instance_iter_init(struct ink_instance_iter *it, const struct ink_blob *b);
/* Fills @in with the next instance; false at the end. */
bool ink_instance_next(struct ink_instance_iter *it, struct ink_instance *in);

/*
 * Instance number @index of @b again, from the iterator's state before it
 * in an earlier walk (its inst_off and ext_off): an index of instances
 * keeps those, not the instances.
 */
static inline bool ink_instance_at(const struct ink_blob *b, u32 inst_off, u32 ext_off, u32 index,
				   struct ink_instance *in)
{
	struct ink_instance_iter it = {
		.b = b, .inst_off = inst_off, .ext_off = ext_off, .index = index,
	};

	return ink_instance_next(&it, in);
}

static inline u32 ink_instance_parm(const struct ink_instance *in, u32 i)
{
	return ink_get32(in->parm_loc + 4 * i);
}

/*
 * Whether parameter @parm of a MERGED instance is empty because the calls
 * sharing the record had different locations for it.
 */
bool ink_parm_ambiguous(const struct ink_instance *in, u32 parm);

/* An instance's address ranges, from its caller's start. */
struct ink_range_iter {
	const u8 *p;
	u32 left;
	u32 nr;
	s64 pos;
};

void ink_range_iter_init(struct ink_range_iter *it, const struct ink_instance *in);
/* The next range of the instance; false after the last. */
bool ink_range_next(struct ink_range_iter *it, s32 *start, u32 *len);

/*
 * An inlined copy's exits (EXITS), in increasing order of offset: each an
 * offset from the caller's start (negative, or past the caller's end, in
 * one of the instance's ranges: a NAME.cold part) and a BTF_INLINE_EXIT_*
 * kind.  An
 * instance without EXITS has none: no exit of it is known.
 */
struct ink_exit_iter {
	const u8 *p;
	u32 left;
	u32 nr;
};

void ink_exit_iter_init(struct ink_exit_iter *it, const struct ink_instance *in);
/* The next exit of the instance; false after the last. */
bool ink_exit_next(struct ink_exit_iter *it, s32 *offset, u8 *kind);

static inline u32 ink_symbol_size(const struct inkprobe_symbol *s)
{
	return s->size_dup & INKPROBE_SYM_SIZE_MAX;
}

static inline u32 ink_symbol_dup(const struct inkprobe_symbol *s)
{
	return s->size_dup >> INKPROBE_SYM_DUP_SHIFT;
}

/* Index of the SYMBOLS entry for @btf_id, or -1. */
long ink_blob_symbol(const struct ink_blob *b, u32 btf_id);

#endif /* _INKPROBE_BLOB_H */
