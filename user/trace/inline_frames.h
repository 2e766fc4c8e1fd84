/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Inline frames in userspace: which inlined functions of a target hold a
 * code address, from the blobs at hand (Documentation/trace-events.rst,
 * "Inline-expanded stacks").  The same lookup as module/inline_map.c, keyed
 * by what a symbol table says of the address -- the symbol's name, and the
 * address's offset in it -- so that it works with /proc/kallsyms
 * (inkprobe trace) and with the kallsyms a trace.dat or perf.data keeps
 * (the libtraceevent plugin) alike, whatever the KASLR slide.
 *
 * A blob is used only for the build it was made for: its target's build ID
 * must be the running kernel's or the loaded module's (sysfs), and its
 * vmlinux BTF (for the names) the running kernel's.
 *
 * Nothing here exits the process: the plugin runs inside trace-cmd and perf.
 */
#ifndef _INKPROBE_USER_INLINE_FRAMES_H
#define _INKPROBE_USER_INLINE_FRAMES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* What a symbol table says of an address. */
struct ink_sym {
	const char *name;	/* NULL: no symbol */
	uint64_t start;		/* the symbol's address */
	uint64_t size;		/* 0: not known */
	const char *module;	/* NULL: vmlinux, or not known (see below) */
	bool module_known;	/* false: @module is not known (libtraceevent) */
	int dup_index;		/* earlier symbols of this name in its module, -1: not known */
};

/* The most inline frames one address gets (as the module's INK_MAX_INLINE_DEPTH). */
#define INK_INLINE_DEPTH	16

struct ink_frames;

/* An empty set of blobs; NULL when out of memory. */
struct ink_frames *ink_frames_new(void);
void ink_frames_free(struct ink_frames *f);

/*
 * Adds the blob file @path (raw or compressed).  @vmlinux_btf: the vmlinux
 * BTF its names are read on (an ELF file or raw BTF), NULL for the running
 * kernel's; @check_build: refuse a blob that is not for the running kernel
 * or a loaded module (by build ID).  0, or -1 with the reason in @why.
 */
int ink_frames_add(struct ink_frames *f, const char *path, const char *vmlinux_btf,
		   bool check_build, char *why, size_t why_len);

/*
 * Adds every blob named by @list: files and directories (their *.inkb),
 * separated by ':' -- $INKPROBE_BLOBS.  Blobs that cannot be used are
 * skipped; @warn (if not NULL) is called with each reason.  Returns how many
 * were added.
 */
unsigned int ink_frames_add_list(struct ink_frames *f, const char *list,
				 void (*warn)(const char *path, const char *why));

/*
 * The symbol table (/proc/kallsyms), both callbacks with @ctx:
 * - @addr_of: the address of the @dup_index-th symbol @name of @module
 *   (NULL: vmlinux), 0 if none.  With it, an address's caller is found by
 *   its address, as the module finds it: aliases and symbols of one name
 *   are told apart.  Without it (libtraceevent's kallsyms), by name.
 * - @sym_at (may be NULL): the symbol at @addr (ksyms_lookup()).  With it,
 *   a caller counts only where the module's blob store would resolve it --
 *   a symbol starts at its address, at least as long as the blob says, and
 *   for vmlinux named as one of the blob's symbols there -- so that both
 *   look-ups name the same frames.
 */
typedef uint64_t (*ink_addr_of_fn)(void *ctx, const char *module, const char *name,
				   int dup_index);
typedef bool (*ink_sym_at_fn)(void *ctx, uint64_t addr, struct ink_sym *out);
void ink_frames_set_symbols(struct ink_frames *f, ink_addr_of_fn addr_of, ink_sym_at_fn sym_at,
			    void *ctx);

/* How many blobs @f holds. */
unsigned int ink_frames_count(const struct ink_frames *f);

/*
 * The inline frames at @addr, which @sym says is in its symbol, innermost
 * first, into @names (static strings of the blobs): how many.
 *   site:   @addr is a probe site: the instance probed there and those
 *           around it, as the module prints a stacktrace event's first frame;
 *   exact:  @addr is an instruction (an interrupted one), else a return
 *           address, looked up at its call instruction (@addr - 1).
 */
unsigned int ink_frames_at(const struct ink_frames *f, const struct ink_sym *sym, uint64_t addr,
			   bool site, bool exact, const char **names, unsigned int max);

#endif /* _INKPROBE_USER_INLINE_FRAMES_H */
