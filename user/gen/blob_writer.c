// SPDX-License-Identifier: GPL-2.0
/*
 * Writes the blob: container header, section table, and the TARGET,
 * SYMBOLS, BTF_INLINE and BTF sections (Documentation/blob-format.rst),
 * in one zstd frame unless --raw.  Instances must be final (sorted,
 * merged, BTF ids assigned).
 */
#include <stdlib.h>
#include <string.h>

#include "../common/blob_zstd.h"
#include "gen.h"
#include "../../uapi/inkprobe.h"
#include "../../lib/blob.h"

/* Rewrite LOC_SYMBOL_ADDR operands from gen.syms indices to SYMBOLS indices. */
static void renumber_symbols(struct gen *g, const uint32_t *sym_slot)
{
	uint32_t pos = 1;	/* after the empty expression */
	struct ink_loc_op op;

	while (pos < g->loc.len) {
		uint32_t n = ink_loc_decode(g->loc.data + pos, (uint32_t)(g->loc.len - pos), &op);

		if (!n)
			die("internal error: bad location table at %u", pos);
		if (op.op == LOC_SYMBOL_ADDR) {
			uint32_t slot = sym_slot[op.sym];

			memcpy(g->loc.data + pos + 1, &slot, sizeof(slot));
		}
		pos += n;
	}
}

static void add_section(struct buf *b, struct inkprobe_blob_section *sec, uint32_t type,
			const void *data, size_t len)
{
	buf_align(b, INKPROBE_SECTION_ALIGN);
	sec->type = type;
	sec->offset = (uint32_t)b->len;
	sec->length = (uint32_t)len;
	sec->flags = 0;
	buf_add(b, data, len);
}

static void add_uleb(struct buf *b, uint64_t v)
{
	do {
		uint8_t byte = v & 0x7f;

		v >>= 7;
		buf_add_u8(b, byte | (v ? 0x80 : 0));
	} while (v);
}

static void add_sleb(struct buf *b, int64_t v)
{
	for (;;) {
		uint8_t byte = v & 0x7f;

		v >>= 7;
		if ((v == 0 && !(byte & 0x40)) || (v == -1 && (byte & 0x40))) {
			buf_add_u8(b, byte);
			return;
		}
		buf_add_u8(b, byte | 0x80);
	}
}

static bool param_ambiguous(const struct gen *g, uint32_t p)
{
	return g->params.cls[p] == LOC_CLASS_EMPTY && g->params.why[p] == EMPTY_AMBIGUOUS;
}

/* The instance's extension record (uapi/inkprobe.h). */
static void add_ext(struct gen *g, struct buf *ext, const struct gen_inst *in, uint64_t base)
{
	uint8_t flags = (uint8_t)in->flags;
	int64_t cur = (int64_t)(in->entry_pc - base);
	uint32_t j, n;

	if (in->nr_ranges)
		flags |= BTF_INLINE_EXT_RANGES;
	buf_add_u8(ext, flags);
	if (flags & BTF_INLINE_EXT_MOVED_PC)
		add_uleb(ext, in->pc - in->entry_pc);
	if (in->nr_ranges)
		add_uleb(ext, in->nr_ranges);
	for (j = 0; j < in->nr_ranges; j++) {
		const struct gen_range *r = &g->ranges[in->range + j];
		int64_t start = (int64_t)(r->start - base);

		add_sleb(ext, start - cur);
		add_uleb(ext, r->end - r->start);
		cur = start + (int64_t)(r->end - r->start);
	}
	if (flags & BTF_INLINE_EXT_MERGED) {
		add_uleb(ext, in->merged_calls);
		for (j = 0, n = 0; j < in->nr_params; j++)
			n += param_ambiguous(g, in->param + j);
		add_uleb(ext, n);
		for (j = 0; j < in->nr_params; j++)
			if (param_ambiguous(g, in->param + j))
				add_uleb(ext, j);
	}
	if (flags & BTF_INLINE_EXT_EXITS) {
		add_uleb(ext, in->nr_exits);
		for (j = 0; j < in->nr_exits; j++) {
			const struct gen_exit *e = &g->exits[in->exit + j];

			/* before the caller (NAME.cold): its 32 bits, two's complement */
			add_uleb(ext, (uint32_t)(e->pc - base));
			buf_add_u8(ext, e->kind);
		}
	}
	if (flags & BTF_INLINE_EXT_DEPTH)
		buf_add_u8(ext, in->depth);
}

/*
 * vmlinux: kallsyms names one symbol per address, and which one is its own
 * rule (scripts/kallsyms.c: strong before weak, then fewer leading
 * underscores, then link order).  So every other text symbol at a used
 * caller's address, of its size, goes into SYMBOLS too: inkprobe.ko takes
 * the caller when kallsyms names any of them (blob-format.rst, SYMBOLS).
 */
static void add_aliases(struct gen *g)
{
	size_t i, j, k;
	bool used;

	for (i = 0; i < g->nr_syms; i = j) {
		const struct gen_sym *s = &g->syms[i];

		used = false;
		for (j = i; j < g->nr_syms && g->syms[j].addr == s->addr &&
		     g->syms[j].size == s->size && g->syms[j].data == s->data; j++)
			used = used || g->syms[j].used;
		for (k = i; used && !s->data && k < j; k++) {
			if (g->syms[k].used)
				continue;
			g->syms[k].used = true;
			gen_btf_symbol(g, &g->syms[k], false);
		}
	}
}

static const struct gen *sort_gen;

static int sym_id_cmp(const void *a, const void *b)
{
	uint32_t x = sort_gen->syms[*(const uint32_t *)a].btf_id;
	uint32_t y = sort_gen->syms[*(const uint32_t *)b].btf_id;

	return (x > y) - (x < y);
}

void gen_write_blob(struct gen *g, const char *out_path)
{
	struct inkprobe_blob_section sec[4] = { { 0 } };
	uint32_t *order = xcalloc(g->nr_syms + 1, sizeof(uint32_t));
	struct inkprobe_blob_header hdr = { 0 };
	struct btf_inline_header ih = { 0 };
	struct inkprobe_target tgt = { 0 };
	struct buf blob = { 0 }, inst = { 0 }, ext = { 0 }, inl = { 0 }, syms = { 0 };
	uint32_t *sym_slot = xcalloc(g->nr_syms, sizeof(uint32_t));
	uint32_t nr_used = 0, btf_len, i, j;
	const void *btf, *file;
	void *frame = NULL;
	FILE *f;

	/* SYMBOLS: used symbols and their aliases, sorted by BTF id */
	if (!g->is_module)
		add_aliases(g);
	for (i = 0; i < g->nr_syms; i++)
		if (g->syms[i].used)
			order[nr_used++] = i;
	sort_gen = g;
	qsort(order, nr_used, sizeof(*order), sym_id_cmp);
	for (i = 0; i < nr_used; i++) {
		const struct gen_sym *s = &g->syms[order[i]];
		struct inkprobe_symbol rec = { 0 };
		int64_t addr = g->is_module ? (int64_t)s->st_value :
			       (int64_t)(s->st_value - g->anchor_addr);

		if (addr < INT32_MIN || addr > INT32_MAX)
			die("%s: symbol %s too far from %s", g->path, s->name,
			    INKPROBE_VMLINUX_ANCHOR);
		rec.btf_id = s->btf_id;
		rec.addr = (int32_t)addr;
		rec.size_dup = (s->size > INKPROBE_SYM_SIZE_MAX ? INKPROBE_SYM_SIZE_MAX :
				(uint32_t)s->size) | s->dup_index << INKPROBE_SYM_DUP_SHIFT;
		buf_add(&syms, &rec, sizeof(rec));
		sym_slot[order[i]] = i;
	}
	renumber_symbols(g, sym_slot);

	for (i = 0; i < g->nr_insts; i++) {
		const struct gen_inst *in = &g->insts[i];
		const struct gen_sym *s = &g->syms[in->sym];

		buf_add_u32(&inst, g->callees[in->callee].btf_id);
		buf_add_u32(&inst, s->btf_id);
		buf_add_u32(&inst, (uint32_t)(in->pc - s->addr));
		buf_add_u16(&inst, (uint16_t)in->nr_params);
		for (j = 0; j < in->nr_params; j++)
			buf_add_u32(&inst, g->params.loc[in->param + j]);

		add_ext(g, &ext, in, s->addr);
	}

	ih.magic = BTF_INLINE_MAGIC;
	ih.version = BTF_INLINE_VERSION;
	ih.hdr_len = sizeof(ih);
	ih.inline_info_off = 0;
	ih.inline_info_len = (uint32_t)inst.len;
	ih.loc_off = (uint32_t)inst.len;
	ih.loc_len = (uint32_t)g->loc.len;
	ih.ext_off = (uint32_t)(inst.len + g->loc.len);
	ih.ext_len = (uint32_t)ext.len;
	buf_add(&inl, &ih, sizeof(ih));
	buf_add(&inl, inst.data, inst.len);
	buf_add(&inl, g->loc.data, g->loc.len);
	buf_add(&inl, ext.data, ext.len);

	memcpy(tgt.name, g->target_name, sizeof(tgt.name));
	memcpy(tgt.build_id, g->build_id, g->build_id_len);
	tgt.build_id_len = g->build_id_len;
	gen_btf_target_info(g, &tgt.btf_len, &tgt.btf_crc, &tgt.vmlinux_btf_len,
			    &tgt.vmlinux_btf_crc);
	tgt.anchor_addr = g->anchor_addr;

	btf = gen_btf_raw(g, &btf_len);

	hdr.magic = INKPROBE_BLOB_MAGIC;
	hdr.version = INKPROBE_BLOB_VERSION;
	hdr.hdr_len = sizeof(hdr);
	hdr.nr_sections = 4;
	buf_add(&blob, &hdr, sizeof(hdr));
	buf_add(&blob, sec, sizeof(sec));	/* filled below */
	add_section(&blob, &sec[0], INKPROBE_SEC_TARGET, &tgt, sizeof(tgt));
	add_section(&blob, &sec[1], INKPROBE_SEC_SYMBOLS, syms.data, syms.len);
	add_section(&blob, &sec[2], INKPROBE_SEC_BTF_INLINE, inl.data, inl.len);
	add_section(&blob, &sec[3], INKPROBE_SEC_BTF, btf, btf_len);
	if (blob.len > INKPROBE_BLOB_MAX_LEN)
		die("%s: the blob would be %zu bytes, more than %u", g->path, blob.len,
		    INKPROBE_BLOB_MAX_LEN);
	hdr.blob_len = (uint32_t)blob.len;
	memcpy(blob.data, &hdr, sizeof(hdr));
	memcpy(blob.data + sizeof(hdr), sec, sizeof(sec));

	g->blob_len = blob.len;
	for (i = 0; i < 4; i++)
		g->sec_len[sec[i].type] = sec[i].length;
	g->inst_len = inst.len;
	g->ext_len = ext.len;
	if (g->raw) {
		file = blob.data;
		g->file_len = blob.len;
	} else {
		file = frame = blob_zstd_compress(blob.data, blob.len, &g->file_len);
	}
	f = fopen(out_path, "wb");
	if (!f || fwrite(file, 1, g->file_len, f) != g->file_len || fclose(f))
		die("cannot write %s", out_path);

	free(frame);
	free(sym_slot);
	free(order);
	buf_free(&blob);
	buf_free(&inst);
	buf_free(&ext);
	buf_free(&inl);
	buf_free(&syms);
}
