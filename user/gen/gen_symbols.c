// SPDX-License-Identifier: GPL-2.0
/*
 * The ELF side of inkprobe gen (libdwfl, libelf): the target's symbols, the
 * text that kprobes refuse (init/exit, .noinstr.text, .entry.text,
 * .kprobes.text, NOKPROBE_SYMBOL() and the NAME.suffix pieces of such a
 * NAME), the sites inside text they refuse (jump labels, static calls,
 * BUG/WARN ud2s: check_kprobe_address_safe()), and the text the kernel
 * patches or enters from elsewhere (jump labels, alternatives, paravirt
 * calls, exception fixups), which probe_pc.c must not assume to be
 * straight-line code.
 *
 * gen_pipeline.c opens the file with libdwfl, so a module's relocations are
 * applied; every address here is a DWARF address of that layout.
 */
#include <dwarf.h>
#include <fcntl.h>
#include <gelf.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>


#include "gen.h"
#include "x86_decoder.h"
#include "lower_bound.h"
#include "../../uapi/inkprobe.h"

/* vmlinux: linker symbols bounding what we need (size 0, so not in syms) */
enum marker {
	M_NOINSTR_START, M_NOINSTR_END, M_ENTRY_START, M_ENTRY_END,
	M_KPROBES_START, M_KPROBES_END, M_BLACKLIST_START, M_BLACKLIST_END,
	M_JUMP_START, M_JUMP_END, M_EX_START, M_EX_END, M_ALT_START, M_ALT_END,
	M_SCALL_START, M_SCALL_END, M_BUG_START, M_BUG_END, M_PARA_START, M_PARA_END,
	M_MCOUNT_START, M_MCOUNT_END,
	NR_MARKERS,
};

static const char *const marker_names[NR_MARKERS] = {
	"__noinstr_text_start", "__noinstr_text_end",
	"__entry_text_start", "__entry_text_end",
	"__kprobes_text_start", "__kprobes_text_end",
	"__start_kprobe_blacklist", "__stop_kprobe_blacklist",
	"__start___jump_table", "__stop___jump_table",
	"__start___ex_table", "__stop___ex_table",
	"__alt_instructions", "__alt_instructions_end",
	"__start_static_call_sites", "__stop_static_call_sites",
	"__start___bug_table", "__stop___bug_table",
	"__parainstructions", "__parainstructions_end",
	"__start_mcount_loc", "__stop_mcount_loc",
};

struct markers {
	uint64_t addr[NR_MARKERS];
	bool have[NR_MARKERS];
};

static int sym_cmp(const void *a, const void *b)
{
	const struct gen_sym *x = a, *y = b;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	if (x->size != y->size)
		return x->size > y->size ? -1 : 1;
	return strcmp(x->name, y->name);
}

static bool has_prefix(const char *s, const char *p)
{
	return !strncmp(s, p, strlen(p));
}

const char *gen_scn_name(Elf *elf, Elf_Scn *scn, GElf_Shdr *sh)
{
	size_t shstrndx;

	if (!scn || !gelf_getshdr(scn, sh) || elf_getshdrstrndx(elf, &shstrndx))
		return "";
	return elf_strptr(elf, shstrndx, sh->sh_name) ?: "";
}

/* Why kprobes refuse text in section @sec (modules name the sections). */
static uint8_t section_skip(const char *sec)
{
	if (has_prefix(sec, ".init") || has_prefix(sec, ".exit"))
		return SKIP_INIT;
	if (!strcmp(sec, ".noinstr.text"))
		return SKIP_NOINSTR;
	if (!strcmp(sec, ".entry.text"))
		return SKIP_ENTRY;
	if (!strcmp(sec, ".kprobes.text"))
		return SKIP_KPROBES;
	return SKIP_NONE;
}

/* vmlinux merges those sections into .text, between linker symbols. */
static uint8_t marker_skip(const struct markers *m, uint64_t addr)
{
	static const struct { enum marker lo, hi; uint8_t why; } areas[] = {
		{ M_NOINSTR_START, M_NOINSTR_END, SKIP_NOINSTR },
		{ M_ENTRY_START, M_ENTRY_END, SKIP_ENTRY },
		{ M_KPROBES_START, M_KPROBES_END, SKIP_KPROBES },
	};
	size_t i;

	for (i = 0; i < sizeof(areas) / sizeof(areas[0]); i++)
		if (m->have[areas[i].lo] && m->have[areas[i].hi] &&
		    addr >= m->addr[areas[i].lo] && addr < m->addr[areas[i].hi])
			return areas[i].why;
	return SKIP_NONE;
}

/*
 * The section of the binary @main named like section @scn of @selfp: a
 * binary without a symbol table gets its symbols from the debug file,
 * whose sections have no bytes.
 */
static Elf_Scn *binary_scn(Elf *main, Elf *selfp, Elf_Scn *scn, const char *name)
{
	Elf_Scn *m = NULL;
	GElf_Shdr sh, msh;

	if (!scn || selfp == main || !gelf_getshdr(scn, &sh))
		return scn;
	while ((m = elf_nextscn(main, m)))
		if (!strcmp(gen_scn_name(main, m, &msh), name) && msh.sh_addr == sh.sh_addr &&
		    msh.sh_size == sh.sh_size)
			return m;
	return NULL;
}

static void load_symbols(struct gen *g, struct markers *m)
{
	struct hmap seen = { 0 };
	int n = dwfl_module_getsymtab(g->mod), i, k;
	GElf_Addr ebias;
	Elf *main_elf = dwfl_module_getelf(g->mod, &ebias);

	if (n <= 0)
		die("%s: no symbol table", g->path);
	for (i = 1; i < n; i++) {
		GElf_Sym sym;
		GElf_Addr addr;
		GElf_Word shndx;
		Elf *selfp;
		Dwarf_Addr sbias;
		const char *name = dwfl_module_getsym_info(g->mod, i, &sym, &addr, &shndx,
							   &selfp, &sbias);
		int type = GELF_ST_TYPE(sym.st_info);
		struct gen_sym *s;
		const char *sec;
		uint32_t dup = 0;
		GElf_Shdr shdr;
		Elf_Scn *scn;

		if (!name || !*name || shndx == SHN_UNDEF)
			continue;
		if (!g->is_module && !sym.st_size) {
			for (k = 0; k < NR_MARKERS; k++)
				if (!strcmp(name, marker_names[k])) {
					m->addr[k] = addr - g->bias;
					m->have[k] = true;
				}
		}
		if (!sym.st_size || (type != STT_FUNC && type != STT_OBJECT))
			continue;
		if (has_prefix(name, "__pfx_") || has_prefix(name, "__cfi_"))
			continue;
		scn = shndx < SHN_LORESERVE ? elf_getscn(selfp, shndx) : NULL;
		sec = gen_scn_name(selfp, scn, &shdr);
		hmap_get(&seen, name, strlen(name), &dup);
		hmap_put(&seen, name, strlen(name), dup + 1);

		s = VEC_PUSH(g->syms, g->nr_syms, g->cap_syms);
		memset(s, 0, sizeof(*s));
		s->bound_bit = UINT64_MAX;
		s->name = xstrdup(name);
		s->addr = addr - g->bias;
		s->st_value = sym.st_value;
		s->size = sym.st_size;
		s->dup_index = dup;
		s->data = type == STT_OBJECT;
		s->percpu = !strcmp(sec, ".data..percpu") && !g->is_module && !shdr.sh_addr;
		if (!s->data) {
			Elf_Scn *code = binary_scn(main_elf, selfp, scn, sec);
			Elf_Data *d = code ? elf_getdata(code, NULL) : NULL;
			uint64_t off = g->is_module ? sym.st_value : sym.st_value - shdr.sh_addr;

			if (!(shdr.sh_flags & SHF_EXECINSTR))
				s->skip = SKIP_INIT;	/* not text at all */
			else
				s->skip = section_skip(sec);
			if (d && d->d_buf && off <= d->d_size && sym.st_size <= d->d_size - off)
				s->code = (const uint8_t *)d->d_buf + off;
		}
		if (!strcmp(name, INKPROBE_VMLINUX_ANCHOR) && !g->is_module)
			g->anchor_addr = sym.st_value;
	}
	hmap_free(&seen);
	if (g->nr_syms)
		qsort(g->syms, g->nr_syms, sizeof(*g->syms), sym_cmp);
	g->text_idx = xcalloc(g->nr_syms, sizeof(uint32_t));
	g->data_idx = xcalloc(g->nr_syms, sizeof(uint32_t));
	for (i = 0; i < (int)g->nr_syms; i++) {
		struct gen_sym *s = &g->syms[i];

		if (s->data) {
			g->data_idx[g->nr_data++] = (uint32_t)i;
			continue;
		}
		g->text_idx[g->nr_text++] = (uint32_t)i;
		if (!s->skip && !g->is_module)
			s->skip = marker_skip(m, s->addr);
		if (!s->skip && s->dup_index > INKPROBE_SYM_DUP_MAX)
			s->skip = SKIP_DUP_INDEX;
	}
	if (!g->is_module && !g->anchor_addr)
		die("%s: no symbol %s (needed to relocate for KASLR)", g->path,
		    INKPROBE_VMLINUX_ANCHOR);
}

long gen_sym_at(const struct gen *g, uint64_t addr, bool data)
{
	const uint32_t *idx = data ? g->data_idx : g->text_idx;
	size_t lo = 0, hi = data ? g->nr_data : g->nr_text, k;
	long best = -1;

	/* lo: the first symbol starting above addr */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (g->syms[idx[mid]].addr <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	/* the containing symbol with the highest start; the first on a tie */
	for (k = lo; k > 0 && lo - k < 16; k--) {
		const struct gen_sym *s = &g->syms[idx[k - 1]];

		if (best >= 0 && s->addr != g->syms[best].addr)
			break;
		if (addr - s->addr < s->size)
			best = idx[k - 1];
	}
	return best;
}

long gen_sym_near(const struct gen *g, uint64_t addr)
{
	size_t lo = 0, hi = g->nr_syms, i;

	/* inside a section that moves with the kernel image? */
	for (i = 0; i < g->nr_image; i++)
		if (addr >= g->image[i].start && addr < g->image[i].end)
			break;
	if (i == g->nr_image)
		return -1;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (g->syms[mid].addr <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (; lo > 0; lo--) {
		const struct gen_sym *s = &g->syms[lo - 1];

		if (s->percpu)
			continue;
		return addr - s->addr <= INT32_MAX ? (long)(lo - 1) : -1;
	}
	return -1;
}

void addr_set_add(struct addr_set *s, uint64_t a)
{
	*VEC_PUSH(s->v, s->len, s->cap) = a;
}

static int u64_cmp(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return (x > y) - (x < y);
}

void addr_set_sort(struct addr_set *s)
{
	size_t i, n = 0;

	if (!s->len)
		return;
	qsort(s->v, s->len, sizeof(*s->v), u64_cmp);
	for (i = 0; i < s->len; i++)
		if (!n || s->v[n - 1] != s->v[i])
			s->v[n++] = s->v[i];
	s->len = n;
}

uint64_t addr_set_next(const struct addr_set *s, uint64_t a)
{
	size_t lo = lower_bound(s->v, s->len, sizeof(*s->v), 0, a);

	return lo < s->len ? s->v[lo] : UINT64_MAX;
}

/* vmlinux: the file's bytes at link address [addr, addr + len), or NULL. */
static const uint8_t *vmlinux_bytes(Elf *elf, uint64_t addr, uint64_t len, GElf_Shdr *out)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;

	while ((scn = elf_nextscn(elf, scn))) {
		Elf_Data *d;

		if (!gelf_getshdr(scn, &sh) || !(sh.sh_flags & SHF_ALLOC) ||
		    sh.sh_type == SHT_NOBITS || addr < sh.sh_addr ||
		    addr - sh.sh_addr > sh.sh_size || len > sh.sh_size - (addr - sh.sh_addr))
			continue;
		d = elf_getdata(scn, NULL);
		if (!d || !d->d_buf || d->d_size != sh.sh_size)
			return NULL;
		if (out)
			*out = sh;
		return (const uint8_t *)d->d_buf + (addr - sh.sh_addr);
	}
	return NULL;
}

/* The file's bytes of text at @addr, @len of them inside one symbol; NULL if none. */
static const uint8_t *text_bytes(const struct gen *g, uint64_t addr, uint64_t len)
{
	long i = gen_sym_at(g, addr, false);
	const struct gen_sym *s = i >= 0 ? &g->syms[i] : NULL;

	if (!s || !s->code || len > s->size - (addr - s->addr))
		return NULL;
	return s->code + (addr - s->addr);
}

static struct gen_site *add_site(struct gen *g, uint64_t addr, uint8_t len, enum site_kind kind,
				 uint8_t resume)
{
	struct gen_site *s = VEC_PUSH(g->sites, g->nr_sites, g->cap_sites);

	*s = (struct gen_site){ .addr = addr, .len = len, .kind = (uint8_t)kind,
				.resume = resume };
	return s;
}

/*
 * A jump label at @code, jumping to @target when it jumps: a jmp8 or
 * 2-byte NOP is 2 bytes, anything else 5 (the kernel's
 * arch_jump_entry_size()).  Either way may be taken.
 */
static void jump_label_site(struct gen *g, uint64_t code, uint64_t target)
{
	const uint8_t *p = text_bytes(g, code, 2);

	add_site(g, code, p && (p[0] == 0xeb || (p[0] == 0x66 && p[1] == 0x90)) ? 2 : 5,
		 SITE_JUMP_LABEL, 0)->target = target;
}

/* A static call: 5 bytes; a call returns after them, a tail call (jmp) does not. */
static void static_call_site(struct gen *g, uint64_t addr)
{
	const uint8_t *p = text_bytes(g, addr, 5);

	add_site(g, addr, 5, SITE_STATIC_CALL, p && p[0] == 0xe8 ? 5 : 0);
}

#define BUGFLAG_WARNING	1	/* include/asm-generic/bug.h */
#define BUGFLAG_ARGS	(1 << 4)	/* 7.x: a WARN with arguments */

/* The length of the instruction at @addr, or 0. */
static uint8_t insn_len_at(const struct gen *g, uint64_t addr)
{
	long i = gen_sym_at(g, addr, false);
	const struct gen_sym *s = i >= 0 ? &g->syms[i] : NULL;
	ZydisDecodedInstruction in;
	ZydisDecoder dec;

	if (!s || !s->code || addr < s->addr || addr >= s->addr + s->size)
		return 0;
	x86_decoder_init(&dec, false);
	if (!x86_decode(&dec, s->code + (addr - s->addr), s->addr + s->size - addr, &in))
		return 0;
	return in.length;
}

/*
 * BUG()/WARN(): find_bug() refuses exactly the ud2's address; after a WARN
 * the kernel resumes after the ud2 (handle_bug()), after a BUG never.
 */
static void bug_site(struct gen *g, uint64_t addr, uint16_t flags)
{
	const uint8_t *p = text_bytes(g, addr, 2);

	/*
	 * a WARN made a call of the WARN trap (7.x: __SCT__WARN_trap) returns
	 * too; one with arguments (7.x) points after the lea of its entry, at
	 * the first instruction setting them up, before that call
	 */
	add_site(g, addr, 1, SITE_BUG,
		 !p || !(flags & BUGFLAG_WARNING) ? 0 :
		 p[0] == 0x0f && p[1] == 0x0b ? 2 : p[0] == 0xe8 ? 5 :
		 flags & BUGFLAG_ARGS ? insn_len_at(g, addr) : 0);
}

/* Instructions rewritten at boot: alternatives and (6.1) paravirt calls. */
static void rewritten_at(struct gen *g, uint64_t addr, uint8_t len)
{
	addr_set_add(&g->patched, addr);
	*VEC_PUSH(g->rewritten, g->nr_rewritten, g->cap_rewritten) =
		(struct gen_range){ addr, addr + len };
}

/* Marks the function at each address of NOKPROBE_SYMBOL()'s table. */
static void blacklist_addr(struct gen *g, uint64_t addr)
{
	long s = gen_sym_at(g, addr, false);

	if (s >= 0 && g->syms[s].addr == addr && !g->syms[s].skip)
		g->syms[s].skip = SKIP_BLACKLIST;
}

/*
 * kprobes refuse NAME.suffix (NAME.part.0, NAME.cold, NAME.isra.0...) when
 * NAME is in the blacklist (within_kprobe_blacklist()): a NOKPROBE_SYMBOL()
 * or a function of .kprobes.text, .noinstr.text or .entry.text.
 */
static void blacklist_pieces(struct gen *g)
{
	struct hmap black = { 0 };
	uint32_t v;
	size_t i;

	for (i = 0; i < g->nr_text; i++) {
		const struct gen_sym *s = &g->syms[g->text_idx[i]];

		if (s->skip == SKIP_BLACKLIST || s->skip == SKIP_NOINSTR ||
		    s->skip == SKIP_ENTRY || s->skip == SKIP_KPROBES)
			hmap_put(&black, s->name, strlen(s->name), 1);
	}
	for (i = 0; i < g->nr_text; i++) {
		struct gen_sym *s = &g->syms[g->text_idx[i]];
		const char *dot = strchr(s->name, '.');

		if (dot && !s->skip && hmap_get(&black, s->name, (size_t)(dot - s->name), &v))
			s->skip = SKIP_BLACKLIST_PIECE;
	}
	hmap_free(&black);
}

static int32_t get_s32(const uint8_t *p)
{
	int32_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

/*
 * vmlinux: the table between markers @lo and @lo + 1, its entries laid
 * out as struct @type in the target's BTF (@offs: the offsets of
 * @fields).  NULL when the kernel has no such table; when it cannot be
 * read, NULL with a warning, and with @needed probes stay at entry pcs.
 */
static const uint8_t *vmlinux_table(struct gen *g, Elf *elf, const struct markers *m,
				    enum marker lo, const char *type, const char *const *fields,
				    int nr_fields, uint32_t *offs, uint32_t *size, uint64_t *len,
				    bool needed)
{
	const uint8_t *p;

	if (!m->have[lo] || !m->have[lo + 1] || m->addr[lo + 1] <= m->addr[lo])
		return NULL;
	*len = m->addr[lo + 1] - m->addr[lo];
	p = vmlinux_bytes(elf, m->addr[lo], *len, NULL);
	if (!gen_btf_struct(g, type, size, fields, offs, nr_fields) || !*size || !p ||
	    *len % *size) {
		warnx("%s: cannot read the %s table%s", g->path, type,
		      needed ? ": probes stay at entry pcs" : "");
		if (needed)
			g->no_moves = true;
		return NULL;
	}
	return p;
}

static void vmlinux_tables(struct gen *g, Elf *elf, const struct markers *m)
{
	static const char *const jump[] = { "code", "target" };
	static const char *const ex[] = { "insn", "fixup" };
	static const char *const alt[] = { "instr_offset", "instrlen" };
	static const char *const scall[] = { "addr" };
	static const char *const bug[] = { "bug_addr_disp", "flags" };
	static const char *const para[] = { "instr", "len" };
	uint32_t offs[2], size;
	const uint8_t *p;
	uint64_t i, len, base, a;
	uint16_t flags;

	base = m->addr[M_JUMP_START];
	p = vmlinux_table(g, elf, m, M_JUMP_START, "jump_entry", jump, 2, offs, &size, &len, true);
	for (i = 0; p && i < len; i += size) {
		uint64_t target = base + i + offs[1] + (int64_t)get_s32(p + i + offs[1]);

		a = base + i + offs[0] + (int64_t)get_s32(p + i + offs[0]);
		addr_set_add(&g->special, a);
		addr_set_add(&g->special, target);
		jump_label_site(g, a, target);
	}
	base = m->addr[M_EX_START];
	p = vmlinux_table(g, elf, m, M_EX_START, "exception_table_entry", ex, 2, offs, &size,
			  &len, true);
	for (i = 0; p && i < len; i += size) {
		uint64_t fixup = base + i + offs[1] + (int64_t)get_s32(p + i + offs[1]);

		a = base + i + offs[0] + (int64_t)get_s32(p + i + offs[0]);
		addr_set_add(&g->special, a);
		addr_set_add(&g->special, fixup);
		addr_set_add(&g->ex_insns, a);
		addr_set_add(&g->ex_fixups, fixup);
		gen_ex_add(g, a, fixup);
	}
	base = m->addr[M_ALT_START];
	p = vmlinux_table(g, elf, m, M_ALT_START, "alt_instr", alt, 2, offs, &size, &len, true);
	for (i = 0; p && i < len; i += size) {
		a = base + i + offs[0] + (int64_t)get_s32(p + i + offs[0]);
		addr_set_add(&g->special, a);
		rewritten_at(g, a, p[i + offs[1]]);
	}
	base = m->addr[M_SCALL_START];
	p = vmlinux_table(g, elf, m, M_SCALL_START, "static_call_site", scall, 1, offs, &size,
			  &len, false);
	for (i = 0; p && i < len; i += size)
		static_call_site(g, base + i + offs[0] + (int64_t)get_s32(p + i + offs[0]));
	base = m->addr[M_BUG_START];
	p = vmlinux_table(g, elf, m, M_BUG_START, "bug_entry", bug, 2, offs, &size, &len, false);
	for (i = 0; p && i < len; i += size) {
		memcpy(&flags, p + i + offs[1], sizeof(flags));
		bug_site(g, base + i + offs[0] + (int64_t)get_s32(p + i + offs[0]), flags);
	}
	/* 6.1: paravirt calls, by absolute address (later kernels: alternatives) */
	p = vmlinux_table(g, elf, m, M_PARA_START, "paravirt_patch_site", para, 2, offs, &size,
			  &len, false);
	for (i = 0; p && i < len; i += size) {
		memcpy(&a, p + i + offs[0], sizeof(a));
		rewritten_at(g, a, p[i + offs[1]]);
	}
	if (m->have[M_BLACKLIST_START] && m->have[M_BLACKLIST_END] &&
	    m->addr[M_BLACKLIST_END] > m->addr[M_BLACKLIST_START]) {
		len = m->addr[M_BLACKLIST_END] - m->addr[M_BLACKLIST_START];
		p = vmlinux_bytes(elf, m->addr[M_BLACKLIST_START], len, NULL);
		if (!p)
			die("%s: cannot read _kprobe_blacklist", g->path);
		for (i = 0; i + 8 <= len; i += 8) {
			memcpy(&a, p + i, 8);
			blacklist_addr(g, a);
		}
	}
	/* ftrace's call sites, by absolute address */
	if (m->have[M_MCOUNT_START] && m->have[M_MCOUNT_END] &&
	    m->addr[M_MCOUNT_END] > m->addr[M_MCOUNT_START]) {
		len = m->addr[M_MCOUNT_END] - m->addr[M_MCOUNT_START];
		p = vmlinux_bytes(elf, m->addr[M_MCOUNT_START], len, NULL);
		for (i = 0; p && i + 8 <= len; i += 8) {
			memcpy(&a, p + i, 8);
			addr_set_add(&g->fentry, a);
		}
	}
}

/* A module's table section: its entries' layout, from the target's BTF. */
struct module_table {
	const char *section;
	const char *type;	/* NULL: every relocation into text counts alike */
	const char *fields[2];	/* [0]: the text address, [1]: a field beside it */
	bool special;		/* its text addresses go to gen.special */
	uint32_t size, offs[2];
	bool known;		/* the layout was found */
	uint64_t *second;	/* per entry, fields[1]'s text address, then fields[0]'s */
	size_t nr_entries;
};

/*
 * The relocation @r in table @t resolved to text address @a.  A jump
 * label's code and target, an exception entry's instruction and fixup,
 * are two relocations: @t->second keeps them (fields[1]'s at the entry's
 * index, fields[0]'s n entries on), and module_tables() adds the pairs
 * when the table is done.
 */
static void module_entry(struct gen *g, struct module_table *t, const GElf_Rela *r,
			 const uint8_t *data, size_t data_len, uint64_t a)
{
	uint64_t entry;
	uint16_t flags;

	if (t->special)
		addr_set_add(&g->special, a);
	if (!strcmp(t->section, "_kprobe_blacklist")) {
		blacklist_addr(g, a);
		return;
	}
	if (!strcmp(t->section, "__mcount_loc")) {
		addr_set_add(&g->fentry, a);
		return;
	}
	if (!t->type || !t->known)
		return;
	if (t->second && t->fields[1] && r->r_offset % t->size == t->offs[1] &&
	    r->r_offset / t->size < t->nr_entries) {
		t->second[r->r_offset / t->size] = a;
		return;
	}
	if (r->r_offset % t->size != t->offs[0])
		return;
	entry = r->r_offset - t->offs[0];
	if (!strcmp(t->section, "__jump_table") || !strcmp(t->section, "__ex_table")) {
		if (entry / t->size < t->nr_entries)
			t->second[entry / t->size + t->nr_entries] = a;
	} else if (!strcmp(t->section, ".static_call_sites")) {
		static_call_site(g, a);
	} else if (entry + t->size <= data_len) {
		if (!strcmp(t->section, "__bug_table")) {
			memcpy(&flags, data + entry + t->offs[1], sizeof(flags));
			bug_site(g, a, flags);
		} else {	/* .altinstructions, .parainstructions */
			rewritten_at(g, a, data[entry + t->offs[1]]);
		}
	}
}

/*
 * Relocation @i of @d into @r, and in @to the DWARF address it refers to
 * (its symbol's plus the addend) when that symbol is in code.  False when
 * the relocation cannot be read (then @r is zeroed) or its symbol is not
 * in code.
 */
static bool rela_in_code(const struct gen *g, Elf_Data *d, size_t i, GElf_Rela *r,
			 uint64_t *to)
{
	GElf_Sym sym;
	GElf_Addr addr;
	GElf_Word shndx;
	Elf *selfp;
	Dwarf_Addr sbias;
	GElf_Shdr ssh;

	if (!gelf_getrela(d, (int)i, r)) {
		memset(r, 0, sizeof(*r));
		return false;
	}
	if (!dwfl_module_getsym_info(g->mod, (int)GELF_R_SYM(r->r_info), &sym, &addr, &shndx,
				     &selfp, &sbias) ||
	    shndx == SHN_UNDEF || shndx >= SHN_LORESERVE ||
	    !gelf_getshdr(elf_getscn(selfp, shndx), &ssh) || !(ssh.sh_flags & SHF_EXECINSTR))
		return false;
	*to = addr - g->bias + (uint64_t)r->r_addend;
	return true;
}

/*
 * A module: the same tables are sections, their addresses relocations;
 * every relocation into executable code is an address we must respect
 * (fields pointing into data, like jump_entry.key, are not).
 */
static void module_tables(struct gen *g, Elf *elf)
{
	struct module_table tables[] = {
		{ .section = "__jump_table", .type = "jump_entry", .fields = { "code", "target" },
		  .special = true },
		{ .section = "__ex_table", .type = "exception_table_entry",
		  .fields = { "insn", "fixup" }, .special = true },
		{ .section = ".altinstructions", .type = "alt_instr",
		  .fields = { "instr_offset", "instrlen" }, .special = true },
		{ .section = ".altinstr_replacement", .special = true },
		{ .section = ".altinstr_aux", .special = true },
		{ .section = "_kprobe_blacklist" },
		{ .section = "__mcount_loc" },
		{ .section = ".static_call_sites", .type = "static_call_site", .fields = { "addr" } },
		{ .section = "__bug_table", .type = "bug_entry",
		  .fields = { "bug_addr_disp", "flags" } },
		{ .section = ".parainstructions", .type = "paravirt_patch_site",
		  .fields = { "instr", "len" } },
	};
	enum { NR_TABLES = sizeof(tables) / sizeof(tables[0]) };
	Elf_Scn *scn = NULL;
	GElf_Shdr sh, tsh;
	size_t t;

	for (t = 0; t < NR_TABLES; t++)
		if (tables[t].type)
			tables[t].known = gen_btf_struct(g, tables[t].type, &tables[t].size,
							 tables[t].fields, tables[t].offs,
							 tables[t].fields[1] ? 2 : 1) &&
					  tables[t].size;
	while ((scn = elf_nextscn(elf, scn))) {
		Elf_Scn *tscn;
		Elf_Data *d, *td;
		const char *target;
		uint64_t a;
		bool code;
		size_t i;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_RELA)
			continue;
		tscn = elf_getscn(elf, sh.sh_info);
		target = gen_scn_name(elf, tscn, &tsh);
		for (t = 0; t < NR_TABLES && strcmp(target, tables[t].section); t++)
			;
		if (t == NR_TABLES)
			continue;
		if (tables[t].type && !tables[t].known)
			warnx("%s: cannot read the %s table", g->path, tables[t].type);
		d = elf_getdata(scn, NULL);
		td = tsh.sh_type == SHT_PROGBITS ? elf_getdata(tscn, NULL) : NULL;
		code = (tsh.sh_flags & SHF_EXECINSTR) != 0;
		if ((!strcmp(tables[t].section, "__jump_table") ||
		     !strcmp(tables[t].section, "__ex_table")) && tables[t].known && !tables[t].second) {
			/* [0, n): fields[1]'s address, [n, 2n): fields[0]'s */
			tables[t].nr_entries = tsh.sh_size / tables[t].size;
			tables[t].second = xcalloc(2 * tables[t].nr_entries + 1, sizeof(uint64_t));
		}
		for (i = 0; d && i < sh.sh_size / sizeof(GElf_Rela); i++) {
			GElf_Rela r;

			if (!rela_in_code(g, d, i, &r, &a))
				continue;
			/* a jump in replacement code: to the end of its rel32, plus that */
			if (code && (GELF_R_TYPE(r.r_info) == R_X86_64_PC32 ||
				     GELF_R_TYPE(r.r_info) == R_X86_64_PLT32)) {
				a += 4;
				addr_set_add(&g->repl_targets, a);
			}
			module_entry(g, &tables[t], &r, td && td->d_buf ? td->d_buf : NULL,
				     td && td->d_buf ? td->d_size : 0, a);
		}
	}
	for (t = 0; t < NR_TABLES; t++) {
		size_t e, n = tables[t].nr_entries;

		for (e = 0; tables[t].second && e < n; e++) {
			uint64_t first = tables[t].second[n + e], second = tables[t].second[e];

			if (!first)
				continue;
			if (!strcmp(tables[t].section, "__jump_table")) {
				jump_label_site(g, first, second);
			} else {
				addr_set_add(&g->ex_insns, first);
				if (second)
					addr_set_add(&g->ex_fixups, second);
				gen_ex_add(g, first, second);
			}
		}
		free(tables[t].second);
	}
}

/*
 * A module's ftrace call sites and NOKPROBE_SYMBOL() functions: the
 * addresses in __mcount_loc and _kprobe_blacklist, which libdwfl relocated
 * as it opened the module (a relocation it left is read with the other
 * tables, module_tables()).
 */
static void module_fentry(struct gen *g, Elf *elf)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;

	while ((scn = elf_nextscn(elf, scn))) {
		const char *name = gen_scn_name(elf, scn, &sh);
		bool mcount = !strcmp(name, "__mcount_loc");
		Elf_Data *d;
		uint64_t a;
		size_t i;

		if ((!mcount && strcmp(name, "_kprobe_blacklist")) || sh.sh_type != SHT_PROGBITS)
			continue;
		d = elf_getdata(scn, NULL);
		for (i = 0; d && d->d_buf && i + 8 <= d->d_size; i += 8) {
			memcpy(&a, (const uint8_t *)d->d_buf + i, 8);
			if (a && mcount)
				addr_set_add(&g->fentry, a - g->bias);
			else if (a)
				blacklist_addr(g, a - g->bias);
		}
	}
}

/* The DWARF address of each section of a module: its section symbol's. */
static uint64_t *section_bases(struct gen *g, Elf *elf)
{
	size_t nr = 0;
	uint64_t *base;
	int n = dwfl_module_getsymtab(g->mod), i;

	if (elf_getshdrnum(elf, &nr))
		return NULL;
	base = xcalloc(nr + 1, sizeof(*base));
	for (i = 1; i < n; i++) {
		GElf_Sym sym;
		GElf_Addr addr;
		GElf_Word shndx;
		Elf *selfp;
		Dwarf_Addr sbias;

		if (dwfl_module_getsym_info(g->mod, i, &sym, &addr, &shndx, &selfp, &sbias) &&
		    GELF_ST_TYPE(sym.st_info) == STT_SECTION && shndx < nr)
			base[shndx] = addr - g->bias - sym.st_value;
	}
	return base;
}

static int reloc_cmp(const void *a, const void *b)
{
	const struct gen_reloc *x = a, *y = b;

	return (x->at > y->at) - (x->at < y->at);
}

/*
 * The text addresses a module's data holds (.rodata's jump tables, function
 * pointers in .data): where an indirect jump may land (instance_exits.c).
 * libdwfl has applied the relocations it could resolve to its image of
 * the file, and dropped them: they are read from the file itself, each
 * symbol's section placed where libdwfl put it (@base).
 */
static void module_data_refs(struct gen *g, const uint64_t *base, size_t nr_base)
{
	int fd = open(g->elf_path, O_RDONLY);
	Elf *elf = fd >= 0 ? elf_begin(fd, ELF_C_READ_MMAP, NULL) : NULL;
	Elf_Scn *scn = NULL;
	GElf_Shdr sh, tsh, ssh;

	while (elf && (scn = elf_nextscn(elf, scn))) {
		const char *tname;
		Elf_Data *d, *syms;
		size_t i;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_RELA)
			continue;
		tname = gen_scn_name(elf, elf_getscn(elf, sh.sh_info), &tsh);
		if ((tsh.sh_flags & SHF_EXECINSTR) ||
		    (strncmp(tname, ".rodata", 7) && strncmp(tname, ".data", 5)))
			continue;
		d = elf_getdata(scn, NULL);
		syms = elf_getdata(elf_getscn(elf, sh.sh_link), NULL);
		for (i = 0; d && syms && i < sh.sh_size / sizeof(GElf_Rela); i++) {
			GElf_Rela r;
			GElf_Sym sym;

			if (!gelf_getrela(d, (int)i, &r) ||
			    !gelf_getsym(syms, (int)GELF_R_SYM(r.r_info), &sym) ||
			    sym.st_shndx == SHN_UNDEF || sym.st_shndx >= SHN_LORESERVE ||
			    sym.st_shndx >= nr_base || !base[sym.st_shndx] ||
			    !gelf_getshdr(elf_getscn(elf, sym.st_shndx), &ssh) ||
			    !(ssh.sh_flags & SHF_EXECINSTR))
				continue;
			addr_set_add(&g->data_refs,
				     base[sym.st_shndx] + sym.st_value + (uint64_t)r.r_addend);
		}
	}
	if (elf)
		elf_end(elf);
	if (fd >= 0)
		close(fd);
}

/* The name of the symbol relocation @r refers to, or NULL. */
static const char *rela_name(const struct gen *g, const GElf_Rela *r)
{
	GElf_Sym sym;
	GElf_Addr addr;
	GElf_Word shndx;
	Elf *selfp;
	Dwarf_Addr sbias;

	return dwfl_module_getsym_info(g->mod, (int)GELF_R_SYM(r->r_info), &sym, &addr, &shndx,
				       &selfp, &sbias);
}

/*
 * A module's text is not linked: a branch to another section (NAME.cold,
 * .text.unlikely, back from there) or out of the module holds 0 in the
 * file, the loader fills it in.  Collects every PC-relative relocation in
 * text, so branch_targets() sees where such a branch really goes, with
 * the name of an outside target (instance_exits.c: a noreturn function, a
 * retpoline thunk).
 */
static void module_relocs(struct gen *g, Elf *elf)
{
	uint64_t *base = section_bases(g, elf);
	Elf_Scn *scn = NULL;
	GElf_Shdr sh, tsh;
	size_t nr;

	while (base && (scn = elf_nextscn(elf, scn))) {
		Elf_Data *d;
		size_t i;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_RELA ||
		    !gelf_getshdr(elf_getscn(elf, sh.sh_info), &tsh))
			continue;
		if (!(tsh.sh_flags & SHF_EXECINSTR) || !base[sh.sh_info])
			continue;
		d = elf_getdata(scn, NULL);
		for (i = 0; d && i < sh.sh_size / sizeof(GElf_Rela); i++) {
			GElf_Rela r;
			uint64_t sa;
			bool in_code = rela_in_code(g, d, i, &r, &sa);

			if (GELF_R_TYPE(r.r_info) != R_X86_64_PC32 &&
			    GELF_R_TYPE(r.r_info) != R_X86_64_PLT32)
				continue;
			/* a target outside the module's code: UINT64_MAX, and its name */
			*VEC_PUSH(g->relocs, g->nr_relocs, g->cap_relocs) =
				(struct gen_reloc){ base[sh.sh_info] + r.r_offset,
						    in_code ? sa : UINT64_MAX,
						    in_code ? NULL : rela_name(g, &r) };
		}
	}
	if (base && !elf_getshdrnum(elf, &nr))
		module_data_refs(g, base, nr);
	free(base);
	if (g->nr_relocs)
		qsort(g->relocs, g->nr_relocs, sizeof(*g->relocs), reloc_cmp);
}

const struct gen_reloc *gen_reloc_at(const struct gen *g, uint64_t at)
{
	size_t lo = LOWER_BOUND(g->relocs, g->nr_relocs, at, at);

	return lo < g->nr_relocs && g->relocs[lo].at == at ? &g->relocs[lo] : NULL;
}

uint64_t gen_rewritten_end(const struct gen *g, uint64_t pc)
{
	size_t lo = LOWER_BOUND(g->rewritten, g->nr_rewritten, start, pc);

	for (; lo < g->nr_rewritten && g->rewritten[lo].start == pc; lo++)
		if (g->rewritten[lo].end > pc)
			return g->rewritten[lo].end;
	return 0;
}

static void read_module_name(struct gen *g, Elf *elf)
{
	const char *base = strrchr(g->path, '/');
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;
	char *dot;
	size_t i;

	/* .modinfo holds "name=<module>" */
	while ((scn = elf_nextscn(elf, scn))) {
		Elf_Data *d;

		if (strcmp(gen_scn_name(elf, scn, &sh), ".modinfo") || sh.sh_type == SHT_NOBITS)
			continue;
		d = elf_getdata(scn, NULL);
		for (i = 0; d && d->d_buf && i < d->d_size;
		     i += strnlen((char *)d->d_buf + i, d->d_size - i) + 1) {
			const char *kv = (const char *)d->d_buf + i;

			if (memchr(kv, '\0', d->d_size - i) && has_prefix(kv, "name=") &&
			    strlen(kv + 5) < INKPROBE_TARGET_NAME_LEN) {
				strcpy(g->target_name, kv + 5);
				return;
			}
		}
	}
	/* otherwise the file name, as kbuild names modules */
	base = base ? base + 1 : g->path;
	if (strlen(base) >= sizeof(g->target_name))
		die("%s: module name too long", g->path);
	strcpy(g->target_name, base);
	dot = strstr(g->target_name, ".ko");
	if (dot)
		*dot = '\0';
	for (dot = g->target_name; *dot; dot++)
		if (*dot == '-')
			*dot = '_';
}

static struct markers markers;

/*
 * vmlinux: the allocated sections, all moved by one KASLR slide, except the
 * per-CPU area (its symbols are offsets).
 */
static void image_sections(struct gen *g, Elf *elf)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;

	while ((scn = elf_nextscn(elf, scn))) {
		const char *nm = gen_scn_name(elf, scn, &sh);

		if (!(sh.sh_flags & SHF_ALLOC) || !sh.sh_size || !sh.sh_addr ||
		    !strcmp(nm, ".data..percpu"))
			continue;
		*VEC_PUSH(g->image, g->nr_image, g->cap_image) =
			(struct gen_range){ sh.sh_addr, sh.sh_addr + sh.sh_size };
	}
}

void gen_read_symbols(struct gen *g, Elf *elf)
{
	if (g->is_module)
		read_module_name(g, elf);
	else
		strcpy(g->target_name, "vmlinux");
	load_symbols(g, &markers);
	if (!g->is_module)
		image_sections(g, elf);
}

static int site_cmp(const void *a, const void *b)
{
	const struct gen_site *x = a, *y = b;

	return (x->addr > y->addr) - (x->addr < y->addr);
}

const struct gen_site *gen_site_at(const struct gen *g, uint64_t addr)
{
	size_t lo = 0, hi = g->nr_sites, k;

	/* lo: the first site starting above addr */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (g->sites[mid].addr <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (k = lo; k > 0 && lo - k < 4; k--)
		if (addr - g->sites[k - 1].addr < g->sites[k - 1].len)
			return &g->sites[k - 1];
	return NULL;
}

static bool bit_test(const uint8_t *bits, uint64_t i)
{
	return bits[i / 8] & (1U << (i % 8));
}

bool gen_boundary(const struct gen *g, long sym, uint64_t addr)
{
	const struct gen_sym *s = &g->syms[sym];

	if (s->bound_bit == UINT64_MAX || addr - s->addr >= s->size)
		return true;	/* no bytes to decode: the module's check at run time */
	return bit_test(g->bounds, s->bound_bit + (addr - s->addr));
}

static int range_cmp(const void *a, const void *b)
{
	const struct gen_range *x = a, *y = b;

	if (x->start != y->start)
		return (x->start > y->start) - (x->start < y->start);
	return (x->end < y->end) - (x->end > y->end);	/* the longest first */
}

static int branch_dst_cmp(const void *a, const void *b)
{
	const struct gen_branch *x = a, *y = b;

	if (x->dst != y->dst)
		return (x->dst > y->dst) - (x->dst < y->dst);
	return (x->src > y->src) - (x->src < y->src);
}

static void jump_label_branches(struct gen *g)
{
	size_t i, n = 0;

	g->jl_branches = xcalloc(g->nr_sites + 1, sizeof(*g->jl_branches));
	for (i = 0; i < g->nr_sites; i++)
		if (g->sites[i].kind == SITE_JUMP_LABEL && g->sites[i].target)
			g->jl_branches[n++] = (struct gen_branch){ g->sites[i].addr,
								   g->sites[i].target };
	g->nr_jl_branches = n;
	if (n)
		qsort(g->jl_branches, n, sizeof(*g->jl_branches), branch_dst_cmp);
}

void gen_read_tables(struct gen *g, Elf *elf)
{
	if (g->is_module) {
		module_relocs(g, elf);
		module_tables(g, elf);
		module_fentry(g, elf);
	} else {
		vmlinux_tables(g, elf, &markers);
	}
	blacklist_pieces(g);
	if (g->nr_rewritten)
		qsort(g->rewritten, g->nr_rewritten, sizeof(*g->rewritten), range_cmp);
}

void gen_ex_add(struct gen *g, uint64_t insn, uint64_t fixup)
{
	*VEC_PUSH(g->ex, g->nr_ex, g->cap_ex) = (struct gen_ex){ insn, fixup };
}

static int ex_insn_cmp(const void *a, const void *b)
{
	const struct gen_ex *x = a, *y = b;

	if (x->insn != y->insn)
		return (x->insn > y->insn) - (x->insn < y->insn);
	return (x->fixup > y->fixup) - (x->fixup < y->fixup);
}

static int ex_fixup_cmp(const void *a, const void *b)
{
	const struct gen_ex *x = a, *y = b;

	if (x->fixup != y->fixup)
		return (x->fixup > y->fixup) - (x->fixup < y->fixup);
	return (x->insn > y->insn) - (x->insn < y->insn);
}

void gen_sort_tables(struct gen *g)
{
	if (g->nr_ex) {
		qsort(g->ex, g->nr_ex, sizeof(*g->ex), ex_insn_cmp);
		g->ex_by_fixup = xcalloc(g->nr_ex, sizeof(*g->ex_by_fixup));
		memcpy(g->ex_by_fixup, g->ex, g->nr_ex * sizeof(*g->ex));
		qsort(g->ex_by_fixup, g->nr_ex, sizeof(*g->ex), ex_fixup_cmp);
	}
	addr_set_sort(&g->special);
	addr_set_sort(&g->patched);
	addr_set_sort(&g->ex_fixups);
	addr_set_sort(&g->ex_insns);
	addr_set_sort(&g->repl_targets);
	addr_set_sort(&g->fentry);
	addr_set_sort(&g->data_refs);
	if (g->nr_sites)
		qsort(g->sites, g->nr_sites, sizeof(*g->sites), site_cmp);
	jump_label_branches(g);
}
