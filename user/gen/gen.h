/* SPDX-License-Identifier: GPL-2.0 */
/*
 * inkprobe gen: DWARF (libdw) + BTF (libbpf) of one target -> blob.
 *
 *   gen_pipeline.c one run's target: open, its special text, close
 *   gen_symbols.c the target's ELF symbols, unprobeable text, patched text
 *   gen_walk.c    the walk over every CU (worker threads): instances
 *   callee.c      a callee's name, parameters and type keys from DWARF
 *   probe_pc.c    the probe pc: where the most parameters are available
 *   loc_encode.c  one parameter's DWARF location at a pc -> expression
 *   gen_btf.c     callee/caller BTF ids in a split BTF on the target's BTF
 *   gen_base.c    a module's --base-btf: the one it was built against?
 *   debug_file.c  a stripped binary's debug file; a module's base BTF
 *   instance_exits.c each inlined copy's exits, from its code
 *   blob_writer.c the container, .BTF.inline and SYMBOLS sections
 *   x86_decoder.c libZydis, opened at the first decoder (x86_decoder.h)
 */
#ifndef _INKPROBE_GEN_H
#define _INKPROBE_GEN_H

#include <elfutils/libdw.h>
#include <elfutils/libdwfl.h>
#include <gelf.h>
#include <stdbool.h>
#include <stdint.h>

#include "../common/build_id.h"
#include "../common/util.h"
#include "../../uapi/inkprobe.h"

/* Coverage classes of a parameter at its instance's probe pc (gen --stats). */
enum loc_class {
	LOC_CLASS_LITERAL,	/* constant */
	LOC_CLASS_REGISTER,	/* register, or memory at register+offset */
	LOC_CLASS_ARITHMETIC,	/* computed value: register+offset, other math */
	LOC_CLASS_COMPOSITE,	/* pieces */
	LOC_CLASS_STACK,	/* frame base (CFA) relative */
	LOC_CLASS_ADDRESS,	/* absolute address, relocated at load */
	LOC_CLASS_EMPTY,
	NR_LOC_CLASSES,
};

/* Why a parameter got the empty expression. */
enum loc_empty_reason {
	EMPTY_NOT_LISTED,	/* the instance has no DIE for the parameter */
	EMPTY_NO_LOCATION,	/* no location covers the probe pc */
	EMPTY_ENTRY_VALUE,	/* DW_OP_entry_value: value at function entry */
	EMPTY_IMPLICIT_POINTER,	/* pointer to an optimized-out object */
	EMPTY_PARAMETER_REF,	/* DW_OP_GNU_parameter_ref: the caller's argument */
	EMPTY_REGISTER,		/* not a general-purpose register (xmm, ...) */
	EMPTY_AGGREGATE,	/* in memory but not 1/2/4/8 bytes */
	EMPTY_ARITHMETIC,	/* arithmetic with no exact encoding */
	EMPTY_PIECES,		/* pieces with a missing part or > 8 bytes */
	EMPTY_FRAME_BASE,	/* frame base not reducible to a register */
	EMPTY_NO_SYMBOL,	/* address outside any symbol */
	EMPTY_TOO_LONG,		/* more than LOC_MAX_EXPR_LEN bytes or stack depth */
	EMPTY_OTHER,		/* any other operator */
	EMPTY_AMBIGUOUS,	/* merged calls with different locations */
	NR_EMPTY_REASONS,
};

/* Why an instance got no record. */
enum skip_reason {
	SKIP_NONE,
	SKIP_INIT,		/* .init/.exit text: gone after boot */
	SKIP_NOINSTR,		/* .noinstr.text */
	SKIP_ENTRY,		/* .entry.text */
	SKIP_KPROBES,		/* .kprobes.text */
	SKIP_BLACKLIST,		/* NOKPROBE_SYMBOL(): _kprobe_blacklist */
	SKIP_NO_SYMBOL,		/* probe pc outside any symbol */
	SKIP_DUP_INDEX,		/* more than 255 earlier symbols of its name */
	SKIP_BLACKLIST_PIECE,	/* NAME.suffix (.part.N, .cold...) of a blacklisted NAME */
	/* the probe pc is refused, and no later pc will do (probe_pc.c) */
	SKIP_JUMP_LABEL,	/* on a jump label site (__jump_table) */
	SKIP_STATIC_CALL,	/* on a static call site (.static_call_sites) */
	SKIP_BUG,		/* on a BUG/WARN ud2 (__bug_table) */
	SKIP_NOT_BOUNDARY,	/* not an instruction boundary from the symbol's start */
	SKIP_UNCOPYABLE,	/* an instruction kprobes cannot copy or emulate */
	NR_SKIP_REASONS,
};

/* Why an inlined instance got no exits (instance_exits.c, gen --stats). */
enum exit_fail {
	EXIT_OK,
	EXIT_NEVER_RETURNS,	/* no path leaves it: nothing to list */
	EXIT_NO_RANGES,		/* --no-ranges */
	EXIT_MERGED,		/* a MERGED record: the exits of which call? */
	EXIT_OTHER_SYMBOL,	/* a range outside the caller's symbol (NAME.cold) */
	EXIT_NOT_BOUNDARY,	/* a range not on an instruction boundary */
	EXIT_UNDECODABLE,	/* an instruction Zydis cannot decode */
	EXIT_UNKNOWN_INSN,	/* an instruction whose successors are unknown */
	EXIT_FAULT,		/* an instruction that may fault to a fixup */
	EXIT_ENTERED,		/* code of the copy entered other than through its entry */
	EXIT_ENTRY_LOOP,	/* the copy jumps back to its own entry */
	EXIT_SITE,		/* a jump label without target, a static tail call */
	EXIT_CALL_RETURNS_OUT,	/* a call returning to a shared pc outside */
	EXIT_JCC_FALLS_OUT,	/* a branch falling through to a shared pc outside */
	EXIT_REFUSED,		/* a leaving instruction kprobes refuse */
	EXIT_TOO_MANY,		/* more than BTF_INLINE_EXT_MAX_EXITS */
	NR_EXIT_FAILS,
};

/* An exit of an inlined instance: a DWARF address and a BTF_INLINE_EXIT_*. */
struct gen_exit {
	uint64_t pc;
	uint8_t kind;
};

/* An exception-table entry: the instruction that may fault, its fixup (0: unknown). */
struct gen_ex {
	uint64_t insn, fixup;
};

/*
 * A site check_kprobe_address_safe() refuses a probe in: [addr, addr + len).
 * resume: where execution always goes on after it, from addr (a static
 * call that returns: 5, a WARN's ud2: 2), so a probe may step over the
 * site; 0 if it may not (a jump label, a tail call, a BUG).
 */
enum site_kind { SITE_JUMP_LABEL, SITE_STATIC_CALL, SITE_BUG };

struct gen_site {
	uint64_t addr;
	uint64_t target;	/* a jump label's other way, 0 if unknown */
	uint8_t len;
	uint8_t kind;		/* enum site_kind */
	uint8_t resume;
};

/* A direct branch of a function: from the instruction at src to dst. */
struct gen_branch {
	uint64_t src, dst;
};

struct gen_sym {
	char *name;
	uint64_t addr;		/* in libdwfl's address space (DWARF addresses) */
	uint64_t st_value;	/* as in the file (section offset for modules) */
	uint64_t size;
	const uint8_t *code;	/* text: the bytes at addr in the file */
	uint32_t dup_index;	/* earlier symbols with this name, symtab order */
	uint32_t btf_id;	/* FUNC/VAR naming it, once assigned */
	uint64_t bound_bit;	/* text: its first byte's bit in gen.bounds, or UINT64_MAX */
	uint8_t skip;		/* enum skip_reason for text */
	bool data;
	bool percpu;		/* a per-CPU variable: its "address" is an offset */
	bool used;		/* referenced by an instance or an address */
};

/* What the walk needs of an origin's formal parameter, read once. */
struct param_info {
	uint64_t die;		/* the DW_TAG_formal_parameter */
	uint32_t size;		/* its type's size in bytes, 0 if unknown */
	bool is_signed;		/* a signed integer type (for constants) */
};

/*
 * A callee: the abstract origin of instances.  desc holds, packed:
 * name\0, return type key, then per parameter name\0 and type key, each
 * type key a u16 length and that many bytes (see callee.c).
 */
struct gen_callee {
	uint64_t die;		/* abstract origin DIE (global offset) */
	uint8_t *desc;
	uint32_t desc_len;
	struct param_info *params;	/* the origin's formal parameters (the walk's) */
	uint32_t nr_params;
	uint32_t btf_id;
};

static inline const char *callee_name(const struct gen_callee *c)
{
	return (const char *)c->desc;
}

struct gen_range {
	uint64_t start, end;	/* DWARF addresses, end exclusive */
};

struct gen_inst {
	uint32_t callee;	/* index in gen.callees (worker: in its CU's) */
	uint32_t sym;		/* caller: index in gen.syms */
	uint64_t pc;		/* probe pc */
	uint64_t entry_pc;
	uint32_t param;		/* first parameter in the params arrays */
	uint32_t range;		/* first range in the ranges array */
	uint16_t nr_params;
	uint16_t nr_ranges;
	uint16_t flags;		/* BTF_INLINE_EXT_* */
	uint8_t depth;		/* inlined: its inline depth in the caller (DEPTH) */
	uint32_t merged_calls;	/* MERGED: inlined calls sharing the record */
	uint32_t exit;		/* EXITS: first exit in gen.exits */
	uint16_t nr_exits;
};

/* An empty parameter at other pcs of its instance (gen --stats' ceiling). */
#define ELSEWHERE_LOCATED	1	/* a location covers one */
#define ELSEWHERE_DECODABLE	2	/* and decodes there */

/* Parameters of instances, as parallel arrays. */
struct gen_params {
	uint32_t *loc;		/* offset in the location table (0: empty) */
	uint8_t *cls;		/* enum loc_class */
	uint8_t *why;		/* enum loc_empty_reason, for empty ones */
	uint8_t *elsewhere;	/* empty: ELSEWHERE_* at other pcs of the instance */
	size_t len, cap;
};

struct gen_stats {
	uint64_t params[NR_LOC_CLASSES];
	uint64_t empty[NR_EMPTY_REASONS];
	uint64_t skipped[NR_SKIP_REASONS];
	uint64_t inlined, out_of_line, merged, nested, no_code, split_parts;
	uint64_t no_probe;	/* NO_PROBE records: skipped inlined copies kept for their ranges */
	uint64_t depths;	/* DEPTH records: nested copies with the same entry and code */
	uint64_t moved_pc, moved_gain, entry_value_at_entry;
	uint64_t moved_refused;	/* probe pcs moved off a site kprobes refuse */
	uint64_t rejoined;	/* of those, past a jump label whose branch comes back */
	uint64_t merged_groups, ambiguous;	/* MERGED records, parameters made empty */
	uint64_t located, decodable;	/* empty ones: ELSEWHERE_* (the ceilings) */
	uint64_t decodable_by[NR_EMPTY_REASONS];	/* ELSEWHERE_DECODABLE, by reason */
	uint64_t exit_fails[NR_EXIT_FAILS];	/* inlined instances, by exit_fail */
	uint64_t exits[BTF_INLINE_EXIT_KIND_MAX + 1];	/* exits written, by kind */
	/* instances with exits whose copy has code in another symbol (NAME.cold),
	 * and their exits there; whose copy may fault, and their LAND exits at fixups */
	uint64_t cold_insts, cold_exits, fault_insts, fault_exits;
};

/* What one CU (or a batch of them) contributed, before merging. */
struct gen_part {
	struct gen_callee *callees;
	size_t nr_callees, cap_callees;
	struct gen_inst *insts;
	size_t nr_insts, cap_insts;
	struct gen_params params;
	struct gen_range *ranges;
	size_t nr_ranges, cap_ranges;
	struct hmap noreturn;	/* names of functions DWARF says never return */
	struct buf loc;		/* local location table; starts empty-expr */
	struct hmap loc_map;
	struct hmap callee_map;	/* DIE offset -> local index */
	struct hmap type_keys;	/* type DIE offset -> offset in keys */
	struct buf keys;
	struct gen_stats stats;
};

/*
 * A module's branch displacement the loader fills in: the file holds 0
 * there.  Where the rel32 field is; where it leads: S + A + 4 for a
 * displacement at the end of its instruction, UINT64_MAX when outside the
 * module's text (an external function, a thunk).
 */
struct gen_reloc {
	uint64_t at;
	uint64_t sa;		/* S + A, or UINT64_MAX */
	const char *name;	/* the symbol's name when sa is UINT64_MAX (libdwfl's) */
};

/* Sorted addresses of text the kernel patches or enters from elsewhere. */
struct addr_set {
	uint64_t *v;
	size_t len, cap;
};

struct gen {
	const char *path;	/* the binary: code, symbols, BTF */
	char *elf_path;		/* path, or its decompressed bytes (.ko.xz...) */
	const char *base_btf_path;
	const char *base_btf_what;	/* "--base-btf", or how it was found */
	const char *debug_file;	/* --debug-file */
	const char *sysroot;	/* --sysroot */
	char *debug_path;	/* the separate debug file in use, or NULL */
	const char *dwarf_path;	/* the file holding the DWARF */
	char *found_base_btf;	/* a module's base BTF found by release */
	bool is_module;
	bool want_ranges;	/* write address ranges (default) */
	bool raw;		/* write the raw blob, not a zstd frame around it */
	bool progress;		/* stderr is a terminal */
	bool no_moves;		/* patched text unknown: probe at entry pcs */
	bool verbose_exits;	/* --verbose-exits: why each inlined instance has none */
	int jobs;
	char target_name[INKPROBE_TARGET_NAME_LEN];
	uint8_t build_id[20];
	uint32_t build_id_len;
	uint64_t anchor_addr;	/* link address of the anchor (vmlinux) */

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
	/* addresses where straight-line code may not be assumed (probe_pc.c) */
	struct addr_set special;
	/* sites kprobes refuse, sorted by address */
	struct gen_site *sites;
	size_t nr_sites, cap_sites;
	/* where the kernel rewrites instructions at boot (alternatives, paravirt) */
	struct addr_set patched;
	struct gen_range *rewritten;	/* the same, with their lengths, by address */
	size_t nr_rewritten, cap_rewritten;
	/* where control may arrive from elsewhere: exception fixups, jumps of
	 * replacement code; instructions that may fault to a fixup */
	struct addr_set ex_fixups, repl_targets, ex_insns;
	/* the exception table's entries, by instruction and by fixup */
	struct gen_ex *ex, *ex_by_fixup;
	size_t nr_ex, cap_ex;
	/*
	 * ftrace's call sites (__mcount_loc): the 5-byte call of __fentry__ at
	 * a traced function's first byte, which keeps every register
	 */
	struct addr_set fentry;
	/* the jump labels as branches from their code to their target, by target */
	struct gen_branch *jl_branches;
	size_t nr_jl_branches;
	/* text: a bit per byte, set on instruction boundaries (gen_sym.bound_bit) */
	uint8_t *bounds;
	/* a module: PC-relative relocations in its text, by address */
	struct gen_reloc *relocs;
	size_t nr_relocs, cap_relocs;
	/* a module: text addresses its data holds (jump tables, function pointers) */
	struct addr_set data_refs;
	/* vmlinux: the sections KASLR moves as one */
	struct gen_range *image;
	size_t nr_image, cap_image;

	struct gen_callee *callees;
	size_t nr_callees, cap_callees;
	struct hmap callee_map;	/* DIE offset -> index */

	struct gen_inst *insts;
	size_t nr_insts, cap_insts;
	struct gen_params params;
	struct gen_range *ranges;
	size_t nr_ranges, cap_ranges;
	struct gen_exit *exits;	/* inlined instances' exits (instance_exits.c) */
	size_t nr_exits, cap_exits;
	struct hmap noreturn;	/* names of functions DWARF says never return */

	struct buf loc;		/* location subsection, starts with the empty expr */
	struct hmap loc_map;	/* expression bytes -> offset */

	struct gen_stats stats;
	struct gen_btf *btf;
	size_t blob_len;	/* the raw blob */
	size_t file_len;	/* what was written: the zstd frame, or the raw blob */
	size_t sec_len[INKPROBE_SEC_MAX];
	size_t inst_len, ext_len;
};

/* gen_fetch.c: the target by build ID, through debuginfod */
enum { GEN_FETCH_NONE, GEN_FETCH_BUILD_ID, GEN_FETCH_KERNEL, GEN_FETCH_MODULE };
struct gen_fetch {
	int how;		/* GEN_FETCH_* */
	const char *arg;	/* the build ID's hex, or the module's name */
	struct build_id id;
	char what[128];		/* for messages */
};
/* The fetched DWARF file's path; for --module, the base BTF defaults to this kernel's. */
const char *gen_fetch(struct gen_fetch *f, struct gen *g);
/* After gen_open(): dies unless the file has the build ID asked for. */
void gen_fetch_check(const struct gen_fetch *f, const struct gen *g);

/*
 * gen_pipeline.c: one run's target, from open to close.  gen_open() opens
 * the file (its DWARF, build ID and symbols); gen_special() reads the text
 * kprobes refuse and the kernel patches (needs the target's BTF open);
 * gen_close() frees all.
 */
void gen_open(struct gen *g);
void gen_special(struct gen *g);
void gen_close(struct gen *g);

/* gen_symbols.c */
/* The target's name, its symbols (gen.syms), vmlinux's image sections. */
void gen_read_symbols(struct gen *g, Elf *elf);
/*
 * The tables of refused and patched text (NOKPROBE_SYMBOL()s, jump labels,
 * static calls, BUG sites, exception tables, alternatives, ftrace's call
 * sites; a module's relocations), for gen_special(); gen_sort_tables()
 * sorts them once every table and probe_pc.c added theirs.
 */
void gen_read_tables(struct gen *g, Elf *elf);
void gen_sort_tables(struct gen *g);
/* The name of section @scn, its header in *@sh; "" if none. */
const char *gen_scn_name(Elf *elf, Elf_Scn *scn, GElf_Shdr *sh);
/* Index of the text (or data) symbol containing DWARF address @addr, or -1. */
long gen_sym_at(const struct gen *g, uint64_t addr, bool data);
/*
 * vmlinux: a symbol to address @addr from when none contains it: the last
 * one before it, if @addr is inside the image KASLR moves as one and
 * within 2 GiB of it; else -1.
 */
long gen_sym_near(const struct gen *g, uint64_t addr);
void addr_set_add(struct addr_set *s, uint64_t a);
void gen_ex_add(struct gen *g, uint64_t insn, uint64_t fixup);
void addr_set_sort(struct addr_set *s);
/* The smallest element >= @a, or UINT64_MAX. */
uint64_t addr_set_next(const struct addr_set *s, uint64_t a);
/* A module's relocation of the rel32 field at @at, or NULL. */
const struct gen_reloc *gen_reloc_at(const struct gen *g, uint64_t at);
/* The refused site holding @addr, or NULL. */
const struct gen_site *gen_site_at(const struct gen *g, uint64_t addr);
/* The end of the code rewritten at boot that starts at @pc, or 0. */
uint64_t gen_rewritten_end(const struct gen *g, uint64_t pc);
/*
 * Is @addr an instruction boundary of text symbol @sym, decoding from its
 * start as kprobes do (can_probe()), outside code rewritten at boot?
 */
bool gen_boundary(const struct gen *g, long sym, uint64_t addr);

/* gen_walk.c */
void gen_collect(struct gen *g);
void gen_params_push(struct gen_params *p, uint32_t loc, uint8_t cls, uint8_t why,
		     uint8_t elsewhere);
void gen_params_free(struct gen_params *p);

/* per-worker state shared by the walk, probe_pc.c and loc_encode.c */
struct worker {
	struct gen *g;
	Dwarf *dw;
	Dwarf_CFI *cfi;
	Dwarf_Addr cfi_bias;
	struct gen_part *out;
	void *decoder;		/* probe_pc.c's instruction decoder */
	void *scratch;		/* gen_walk.c's per-instance buffers */
	/* branch targets inside the current subprogram (probe_pc.c) */
	uint64_t targets_of;	/* subprogram DIE offset, 0: none */
	struct addr_set targets;
	struct gen_branch *branches;	/* its direct branches, by dst */
	size_t nr_branches, cap_branches;
	struct gen_range *franges;	/* its code ranges */
	size_t nr_franges, cap_franges;
};

/* callee.c */
/* Index of the callee for abstract origin @origin in w->out, or -1. */
long callee_index(struct worker *w, Dwarf_Die *origin);
/*
 * Reads a callee's descriptor after its name: desc_key() for the return
 * type, then per parameter desc_name() and desc_key().
 */
struct desc_iter {
	const uint8_t *p, *end;
};
void desc_iter_init(struct desc_iter *it, const struct gen_callee *c);
const char *desc_name(struct desc_iter *it);
void desc_key(struct desc_iter *it, const uint8_t **key, uint16_t *len);

/* loc_encode.c */
struct loc_ctx {
	struct worker *w;
	Dwarf_Die *subprogram;	/* the concrete function holding the pc */
	Dwarf_Addr pc;		/* DWARF address */
	Dwarf_Addr func_entry;	/* the concrete function's entry pc, 0: unknown */
	Dwarf_Addr fentry_end;	/* func_entry is ftrace's call site: the pc after
				 * it, where registers are as at func_entry; 0: not
				 */
};
#define FENTRY_CALL_LEN	5	/* call __fentry__, or the NOP that replaces it */
/*
 * Encode parameter @param (a concrete DW_TAG_formal_parameter, or NULL when
 * the instance does not list it) of type size and sign @type at the pc.
 * Returns the class; *out gets the expression (terminated), or stays empty
 * with *why set for LOC_CLASS_EMPTY.
 */
enum loc_class loc_encode(const struct loc_ctx *ctx, Dwarf_Die *param,
			  const struct param_info *type, struct buf *out,
			  enum loc_empty_reason *why);
/* The start addresses of @param's location list entries in (lo, hi]. */
size_t loc_starts(Dwarf_Die *param, uint64_t lo, uint64_t hi, uint64_t *out, size_t max);
/* Offset of @expr in a location table, adding it if new. */
uint32_t loc_intern(struct buf *table, struct hmap *map, const uint8_t *expr, size_t len);
/* Length of the (validated) expression at @p, terminator included. */
size_t loc_expr_len(const uint8_t *p);
extern const char *const loc_class_names[NR_LOC_CLASSES];
extern const char *const loc_empty_names[NR_EMPTY_REASONS];
extern const char *const skip_names[NR_SKIP_REASONS];

/* probe_pc.c */
void probe_pc_init(struct worker *w);
void probe_pc_fini(struct worker *w);
/*
 * Instruction boundaries reachable from @entry by straight-line code that
 * every execution through @entry passes exactly once, up to @limit and
 * inside symbol @sym: @pcs gets them (entry first); returns how many.
 */
/* The direct branches of replacement code: gen.repl_targets, and gen.special. */
void replacement_targets(struct worker *w, Elf *elf);
size_t straight_line(struct worker *w, Dwarf_Die *subprogram, long sym, uint64_t entry,
		     uint64_t limit, uint64_t *pcs, size_t max);
/* Is @pc a direct branch target of @subprogram's function or patched text? */
bool branch_target(struct worker *w, Dwarf_Die *subprogram, uint64_t pc);
/*
 * Would kprobes refuse a probe at @pc of symbol @sym?  SKIP_NONE if not,
 * else why; *@step: where execution surely continues after the refused
 * site (a static call that returns, a WARN), 0 if unknown.
 */
enum skip_reason pc_refused(struct worker *w, long sym, uint64_t pc, uint64_t *step);
/*
 * A jump label at the entry pc: where both its ways meet again, the
 * instruction after it, if every path from its target comes back there
 * (and nothing else enters that code); 0 if not.
 */
uint64_t jump_label_rejoin(struct worker *w, Dwarf_Die *subprogram, const struct gen_site *site);
/* Decodes every text symbol, for gen_boundary() (gen_special() calls it). */
void decode_boundaries(struct worker *w);

/* gen_btf.c */
void gen_btf_open(struct gen *g);
uint32_t gen_btf_callee(struct gen *g, struct gen_callee *c);
uint32_t gen_btf_symbol(struct gen *g, struct gen_sym *s, bool unique_name);
/* The split BTF's raw bytes. */
const void *gen_btf_raw(struct gen *g, uint32_t *len);
void gen_btf_target_info(struct gen *g, uint32_t *btf_len, uint32_t *btf_crc,
			 uint32_t *vmlinux_len, uint32_t *vmlinux_crc);
/* Offsets and sizes of a struct's members in the target's BTF (for tables). */
bool gen_btf_struct(struct gen *g, const char *name, uint32_t *size,
		    const char *const *members, uint32_t *offs, int n);
void gen_btf_close(struct gen *g);

/*
 * gen_base.c: refuse a base BTF the module was not built against (@what
 * names where it came from in the message).
 */
struct btf;
void gen_check_base(const char *module, const char *base_path, const char *what,
		    const struct btf *base, const struct btf *mod);
/* The release a module was built for (vermagic), or a vmlinux is; malloc'd or NULL. */
char *gen_module_release(const char *module);
char *gen_vmlinux_release(const char *vmlinux);

/* instance_exits.c: every final inlined instance's exits (after finalize()) */
void gen_exits(struct gen *g);
extern const char *const exit_fail_names[NR_EXIT_FAILS];

/* blob_writer.c */
void gen_write_blob(struct gen *g, const char *out_path);

/* gen_main.c */
int cmd_gen(int argc, char **argv);

#endif /* _INKPROBE_GEN_H */
