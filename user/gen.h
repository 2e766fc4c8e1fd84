/* SPDX-License-Identifier: GPL-2.0 */
/*
 * inkprobe gen: DWARF (libdw) + BTF (libbpf) of one target -> blob.
 *
 *   gen_dwarf.c   symbols and the walk over every CU: instances, parameters
 *   loc_encode.c  one parameter's DWARF location at a pc -> location expression
 *   gen_btf.c     callee/caller BTF ids in a split BTF on the target's BTF
 *   blob_writer.c the container, .BTF.inline and SYMBOLS sections
 */
#ifndef _INKPROBE_GEN_H
#define _INKPROBE_GEN_H

#include <elfutils/libdw.h>
#include <elfutils/libdwfl.h>
#include <stdbool.h>
#include <stdint.h>

#include "util.h"
#include "../uapi/inkprobe.h"

/* Coverage classes of a parameter at its instance's probe pc (gen --stats). */
enum loc_class {
	LOC_CLASS_LITERAL,	/* constant */
	LOC_CLASS_REGISTER,	/* register, or memory at register+offset */
	LOC_CLASS_ARITHMETIC,	/* computed value: register+offset, folded math */
	LOC_CLASS_COMPOSITE,	/* pieces */
	LOC_CLASS_STACK,	/* frame base (CFA) relative */
	LOC_CLASS_ADDRESS,	/* absolute address, relocated at load */
	LOC_CLASS_EMPTY,
	NR_LOC_CLASSES,
};

/* Why a parameter got the empty expression. */
enum loc_empty_reason {
	EMPTY_NO_LOCATION,	/* no DW_AT_location / not covered at the pc */
	EMPTY_ENTRY_VALUE,	/* DW_OP_entry_value: value at function entry */
	EMPTY_IMPLICIT_POINTER,	/* pointer to an optimized-out object */
	EMPTY_REGISTER,		/* not a general-purpose register (xmm, ...) */
	EMPTY_AGGREGATE,	/* in memory but not 1/2/4/8 bytes */
	EMPTY_ARITHMETIC,	/* arithmetic with no exact encoding */
	EMPTY_PIECES,		/* pieces with a missing part or > 8 bytes */
	EMPTY_FRAME_BASE,	/* frame base not reducible to a register */
	EMPTY_NO_SYMBOL,	/* address outside any symbol */
	EMPTY_OTHER,		/* any other operator */
	NR_EMPTY_REASONS,
};

struct gen_sym {
	char *name;
	uint64_t addr;		/* in libdwfl's address space */
	uint64_t st_value;	/* as in the file (section offset for modules) */
	uint64_t size;
	uint32_t dup_index;	/* earlier symbols with this name, symtab order */
	bool data;
	bool probeable;		/* text outside init/exit sections */
	bool used;		/* referenced by an instance or an address */
	uint32_t btf_id;	/* FUNC/VAR in the split BTF, once assigned */
};

struct gen_callee {
	uint64_t die;		/* abstract origin DIE (global offset) */
	char *name;
	uint32_t nr_params;
	uint64_t *param_die;	/* the origin's formal parameters, in order */
	uint32_t btf_id;
};

struct gen_range {
	uint64_t start, end;	/* DWARF addresses, end exclusive */
};

struct gen_inst {
	uint32_t callee;	/* index in gen.callees */
	uint32_t sym;		/* caller: index in gen.syms */
	uint64_t pc;		/* probe pc */
	uint64_t entry_pc;
	uint16_t flags;		/* BTF_INLINE_EXT_* */
	uint32_t nr_ranges;
	struct gen_range *ranges;
	uint32_t nr_params;
	uint32_t *loc;		/* offsets in gen.loc */
	uint8_t *cls;		/* enum loc_class */
	uint8_t *why;		/* enum loc_empty_reason, for empty ones */
	bool keep;		/* out-of-line copies: worth a record */
};

struct gen_stats {
	uint64_t params[NR_LOC_CLASSES];
	uint64_t empty[NR_EMPTY_REASONS];
	uint64_t inlined, out_of_line, merged, nested;
	uint64_t skipped_no_symbol, skipped_init, skipped_no_code;
	uint64_t moved_pc;
};

struct gen {
	const char *path;
	const char *base_btf_path;
	bool is_module;
	char target_name[INKPROBE_TARGET_NAME_LEN];
	uint8_t build_id[20];
	uint32_t build_id_len;
	uint64_t anchor_addr;

	Dwfl *dwfl;
	Dwfl_Module *mod;
	Dwarf *dw;
	Dwarf_Addr bias;
	Dwarf_CFI *cfi;
	Dwarf_Addr cfi_bias;

	struct gen_sym *syms;	/* sorted by address */
	size_t nr_syms, cap_syms;
	uint32_t *text_idx;	/* indices of text symbols, by address */
	size_t nr_text;
	uint32_t *data_idx;	/* indices of data symbols, by address */
	size_t nr_data;

	struct gen_callee *callees;
	size_t nr_callees, cap_callees;
	struct hmap callee_map;	/* DIE offset -> index */

	struct gen_inst *insts;
	size_t nr_insts, cap_insts;

	struct buf loc;		/* location subsection, starts with the empty expr */
	struct hmap loc_map;	/* expression bytes -> offset */

	struct gen_stats stats;
	struct gen_btf *btf;
};

/* gen_dwarf.c */
void gen_open(struct gen *g);
void gen_collect(struct gen *g);
void gen_close(struct gen *g);
/* Index of the text symbol containing DWARF address @addr, or -1. */
long gen_sym_at(const struct gen *g, uint64_t addr, bool data);

/* loc_encode.c */
struct loc_ctx {
	struct gen *g;
	Dwarf_Die *subprogram;	/* the concrete function holding the pc */
	Dwarf_Addr pc;		/* DWARF address */
};
/*
 * Encode parameter @param (a concrete DW_TAG_formal_parameter, or NULL when
 * the instance does not list it) with type @type at the context's pc.
 * Returns the class; *out gets the expression (terminated), or stays empty
 * with *why set for LOC_CLASS_EMPTY.
 */
enum loc_class loc_encode(const struct loc_ctx *ctx, Dwarf_Die *param, Dwarf_Die *type,
			  struct buf *out, enum loc_empty_reason *why);
/* Offset of @expr in the location subsection, adding it if new. */
uint32_t loc_intern(struct gen *g, const struct buf *expr);
extern const char *const loc_class_names[NR_LOC_CLASSES];
extern const char *const loc_empty_names[NR_EMPTY_REASONS];

/* gen_btf.c */
void gen_btf_open(struct gen *g);
uint32_t gen_btf_callee(struct gen *g, struct gen_callee *c);
uint32_t gen_btf_symbol(struct gen *g, struct gen_sym *s);
/* The split BTF's raw bytes. */
const void *gen_btf_raw(struct gen *g, uint32_t *len);
void gen_btf_target_info(struct gen *g, uint32_t *btf_len, uint32_t *btf_crc,
			 uint32_t *vmlinux_len, uint32_t *vmlinux_crc);
void gen_btf_close(struct gen *g);

/* blob_writer.c */
void gen_write_blob(struct gen *g, const char *out_path);

/* gen_main.c */
int cmd_gen(int argc, char **argv);

#endif /* _INKPROBE_GEN_H */
