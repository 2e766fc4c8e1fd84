/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * inkprobe blob format, shared by the kernel module and the userspace tool.
 *
 * A blob describes the inlined (and out-of-line) instances of functions in one
 * target: "vmlinux" or one module.  Everything is little-endian; no field is
 * aligned unless stated, readers use unaligned loads.  The layout is described
 * byte by byte in Documentation/blob-format.rst.
 *
 *   blob header | section table | sections (each 8-byte aligned)
 *
 * Sections:
 *   TARGET      struct inkprobe_target: which build the blob belongs to
 *   BTF         BTF split on the vmlinux BTF (/sys/kernel/btf/vmlinux):
 *               for vmlinux, new types only; for a module, the module's own
 *               BTF followed by new types.  Adds FUNC/FUNC_PROTO for fully
 *               inlined callees and one FUNC per caller symbol
 *   BTF_INLINE  the .BTF.inline section of the BTF inline proposal
 *               (struct btf_inline_header, instances, location expressions),
 *               plus a versioned extension subsection
 *   SYMBOLS     struct inkprobe_symbol[]: where each caller symbol is (12 bytes each)
 *
 * A blob file (and what is written to /sys/kernel/debug/inkprobe/blob) is a
 * raw blob, or exactly one zstd frame (RFC 8878) with Frame_Content_Size of
 * at most INKPROBE_BLOB_MAX_LEN, whose content is a raw blob; nothing before
 * or after it ("Compressed blobs" in Documentation/blob-format.rst).
 * inkprobe gen writes the frame, with a content checksum, unless --raw.
 */
#ifndef _UAPI_INKPROBE_H
#define _UAPI_INKPROBE_H

#include <linux/types.h>

/* ------------------------------------------------------------------ */
/* Container                                                           */

#define INKPROBE_BLOB_MAGIC	0x424b4e49	/* "INKB" read as a LE u32 */
#define INKPROBE_BLOB_VERSION	1
#define INKPROBE_BLOB_MAX_LEN	(256U << 20)	/* refused above this */
#define INKPROBE_SECTION_ALIGN	8

struct inkprobe_blob_header {
	__u32 magic;
	__u16 version;
	__u16 hdr_len;		/* sizeof(struct inkprobe_blob_header) */
	__u32 blob_len;		/* whole blob, header included */
	__u32 nr_sections;	/* entries in the table after the header */
};

struct inkprobe_blob_section {
	__u32 type;		/* enum inkprobe_section_type */
	__u32 offset;		/* from the start of the blob, 8-aligned */
	__u32 length;
	__u32 flags;		/* must be 0 */
};

enum inkprobe_section_type {
	INKPROBE_SEC_TARGET	= 1,
	INKPROBE_SEC_BTF	= 2,
	INKPROBE_SEC_BTF_INLINE	= 3,
	INKPROBE_SEC_SYMBOLS	= 4,
	INKPROBE_SEC_MAX,
};

/* ------------------------------------------------------------------ */
/* TARGET                                                              */

#define INKPROBE_TARGET_NAME_LEN	56	/* == MODULE_NAME_LEN */
#define INKPROBE_BUILD_ID_MAX		20
/* vmlinux blobs: the link-time address of this symbol gives the KASLR slide */
#define INKPROBE_VMLINUX_ANCHOR		"sprint_symbol"

struct inkprobe_target {
	char  name[INKPROBE_TARGET_NAME_LEN];	/* "vmlinux" or module name */
	__u8  build_id[INKPROBE_BUILD_ID_MAX];	/* GNU build ID of the target */
	__u32 build_id_len;
	__u32 btf_len;		/* length of the target's own BTF */
	__u32 btf_crc;		/* CRC-32 (IEEE 802.3, as zlib) of it */
	__u32 vmlinux_btf_len;	/* modules: the vmlinux BTF it is split on */
	__u32 vmlinux_btf_crc;	/* vmlinux: same as btf_len/btf_crc */
	__u32 flags;		/* must be 0 */
	__u64 anchor_addr;	/* vmlinux: link address of the anchor; modules: 0 */
};

/* ------------------------------------------------------------------ */
/* SYMBOLS                                                             */

/*
 * One per caller symbol (and per symbol a LOC_SYMBOL_ADDR refers to), sorted
 * by btf_id, 12 bytes.  The symbol's name is the name of BTF type btf_id: a
 * FUNC for text, a VAR for data (the kind tells which).  For vmlinux, a
 * caller with a unique name that the vmlinux BTF has a FUNC for uses that
 * FUNC's id; clones, .cold parts and duplicate static names get new FUNCs.
 *
 * addr: vmlinux: link-time address minus TARGET's anchor_addr;
 *       module: st_value (offset in its section).
 * size_dup: bits 0-23 the symbol's size (st_size, saturated at 2^24 - 1: a
 *       lower bound), bits 24-31 dup_index: earlier symbols of the same name
 *       in the target's symbol table order, so static functions sharing a
 *       name stay apart.
 */
struct inkprobe_symbol {
	__u32 btf_id;
	__s32 addr;
	__u32 size_dup;
};

#define INKPROBE_SYM_SIZE_MAX		0xffffffU
#define INKPROBE_SYM_DUP_SHIFT		24
#define INKPROBE_SYM_DUP_MAX		0xffU

/* ------------------------------------------------------------------ */
/* .BTF.inline (BTF inline proposal, section ".BTF.inline")            */

#define BTF_INLINE_MAGIC	0xeb1e
#define BTF_INLINE_VERSION	1	/* seed records + extension subsection */

/*
 * Offsets are relative to the end of the header (hdr_len), as in BTF.
 * hdr_len >= 24 (the proposal's header); the extension fields exist when
 * hdr_len >= sizeof(struct btf_inline_header).
 */
struct btf_inline_header {
	__u16 magic;
	__u8  version;
	__u8  flags;		/* must be 0 */
	__u32 hdr_len;
	__u32 inline_info_off;
	__u32 inline_info_len;
	__u32 loc_off;
	__u32 loc_len;
	/* extension, not in the proposal */
	__u32 ext_off;		/* struct btf_inline_ext[], one per instance */
	__u32 ext_len;
};

#define BTF_INLINE_HDR_LEN_V0	24	/* the proposal's header alone */

/*
 * Instance record, exactly as proposed: 14 bytes followed by nr_parms u32
 * offsets into the location subsection, packed with no padding.
 *
 *	__u32 callee_id;	BTF FUNC of the inlined function
 *	__u32 caller_id;	BTF FUNC of the caller symbol (see SYMBOLS)
 *	__u32 caller_offset;	probe pc, from the caller symbol's start
 *	__u16 nr_parms;		== vlen of callee_id's FUNC_PROTO (0 if NO_PROBE)
 *	__u32 parm_location[nr_parms];
 */
#define BTF_INLINE_INSTANCE_LEN(nr_parms)	(14U + 4U * (nr_parms))

/*
 * Extension record, one per instance and in the same order, packed and
 * variable-length (LEB128 as in DWARF, at most 5 bytes each):
 *
 *	__u8 flags;			BTF_INLINE_EXT_* (SPLIT_PART needs OUT_OF_LINE)
 *	uleb128 moved;			if MOVED_PC: caller_offset - entry_offset (> 0)
 *	uleb128 nr_ranges;		if RANGES: then nr_ranges times
 *	  sleb128 start;		from entry_offset (first range) or from the
 *					end of the previous range, in bytes
 *	  uleb128 len;			> 0
 *	uleb128 nr_calls;		if MERGED: inlined calls sharing this record (>= 2)
 *	uleb128 nr_ambiguous;		if MERGED: then nr_ambiguous times
 *	  uleb128 parm;			a parameter whose calls had different
 *					locations: its parm_location is the empty
 *					expression; indices increase, < nr_parms
 *	uleb128 nr_exits;		if EXITS: 1..BTF_INLINE_EXT_MAX_EXITS, then
 *					nr_exits times
 *	  uleb128 offset;		the exit pc, from the caller's start, below
 *					its symbol's size; offsets increase
 *	  __u8 kind;			BTF_INLINE_EXIT_* in bits 0-2, bits 3-7 0
 *	__u8 depth;			if DEPTH: 1..255, the copy's inline depth
 *					in its caller (1: in the caller's own
 *					code, 2: inside a copy of depth 1, ...;
 *					clamped at 255)
 *
 * entry_offset is DW_AT_entry_pc (or the lowest pc) from the caller's start:
 * the probe pc (caller_offset) when MOVED_PC is clear.  Range starts are
 * offsets from the caller's start (a part may sit in foo.cold, before it).
 */
#define BTF_INLINE_EXT_OUT_OF_LINE	(1U << 0)	/* a function's own copy */
#define BTF_INLINE_EXT_MOVED_PC		(1U << 1)	/* probe pc != entry pc */
#define BTF_INLINE_EXT_RANGES		(1U << 2)	/* address ranges follow */
#define BTF_INLINE_EXT_SPLIT_PART	(1U << 3)	/* out of line, NAME.part.N: the rest
							 * of a function GCC split, entered
							 * only from a copy of its head
							 */
#define BTF_INLINE_EXT_MERGED		(1U << 4)	/* several inlined calls of the callee
							 * share this probe pc (not with
							 * OUT_OF_LINE)
							 */
#define BTF_INLINE_EXT_EXITS		(1U << 5)	/* an inlined copy's exits follow
							 * (not with OUT_OF_LINE)
							 */
#define BTF_INLINE_EXT_NO_PROBE		(1U << 6)	/* an inlined copy in code kprobes
							 * refuse (noinstr, entry, NOKPROBE,
							 * a refused pc): its ranges, for
							 * stacks and profiles; never probed.
							 * Needs RANGES; no parameters
							 * (nr_parms 0), not with any other
							 * flag but DEPTH
							 */
#define BTF_INLINE_EXT_DEPTH		(1U << 7)	/* an inlined copy's depth follows:
							 * written where copies in one
							 * caller have the same entry and
							 * code size, to order them
							 * (innermost first).  Needs RANGES,
							 * not with OUT_OF_LINE
							 */
#define BTF_INLINE_EXT_ALL		0xffU
#define BTF_INLINE_EXT_MAX_RANGES	4096
#define BTF_INLINE_EXT_MAX_EXITS	4096

/*
 * How control leaves an inlined copy at an exit (Documentation/blob-format.rst):
 * LAND: the exit pc is outside the copy, and every way into it comes from
 * inside the copy; the others are instructions inside it that may leave:
 * LEAVE always does (ret, a jmp out, a tail call, an instruction whose
 * only successor is outside), LEAVE_JCC when its branch is taken
 * (regs->flags tell), LEAVE_INDIRECT when its target (in its register) is
 * outside the copy.
 */
enum btf_inline_exit_kind {
	BTF_INLINE_EXIT_LAND		= 1,
	BTF_INLINE_EXIT_LEAVE		= 2,
	BTF_INLINE_EXIT_LEAVE_JCC	= 3,
	BTF_INLINE_EXIT_LEAVE_INDIRECT	= 4,
};
#define BTF_INLINE_EXIT_KIND_MASK	0x07U
#define BTF_INLINE_EXIT_KIND_MAX	BTF_INLINE_EXIT_LEAVE_INDIRECT

/* Location expression operators (a NUL-terminated byte string) */
enum btf_inline_loc_op {
	LOC_END_OF_EXPR		= 0,
	LOC_SIGNED_CONST_1	= 1,	/* s8 */
	LOC_SIGNED_CONST_2	= 2,	/* s16 */
	LOC_SIGNED_CONST_4	= 3,	/* s32 */
	LOC_SIGNED_CONST_8	= 4,	/* s64 */
	LOC_UNSIGNED_CONST_1	= 5,	/* u8 */
	LOC_UNSIGNED_CONST_2	= 6,	/* u16 */
	LOC_UNSIGNED_CONST_4	= 7,	/* u32 */
	LOC_UNSIGNED_CONST_8	= 8,	/* u64 */
	LOC_REGISTER		= 9,	/* u8 DWARF register */
	LOC_REGISTER_OFFSET	= 10,	/* u8 DWARF register, s64 offset */
	LOC_DEREF		= 11,	/* u8 size: 1, 2, 4 or 8 */
	/* extensions */
	LOC_SYMBOL_ADDR		= 12,	/* u32 SYMBOLS index, s32 offset: relocated */
	LOC_PIECE		= 13,	/* u8 size: move top of stack into the value */
	/* exact 64-bit arithmetic (two's complement, wrapping) */
	LOC_ADD			= 14,	/* pop b, pop a, push a + b */
	LOC_SUB			= 15,	/* a - b */
	LOC_MUL			= 16,	/* a * b, low 64 bits */
	LOC_AND			= 17,	/* a & b */
	LOC_OR			= 18,	/* a | b */
	LOC_XOR			= 19,	/* a ^ b */
	LOC_NEG			= 20,	/* pop a, push -a */
	LOC_NOT			= 21,	/* ~a */
	LOC_SHL			= 22,	/* u8 n (0-63): a << n */
	LOC_SHR			= 23,	/* u8 n (0-63): a >> n, logical */
	LOC_SHRA		= 24,	/* u8 n (0-63): a >> n, arithmetic */
	LOC_OP_MAX,
};

#define LOC_MAX_STACK		4
#define LOC_MAX_PIECES		8
#define LOC_MAX_EXPR_LEN	64	/* bytes, terminator included */
#define LOC_MAX_REGISTER	15	/* DWARF x86-64 rax..r15 */

#endif /* _UAPI_INKPROBE_H */
