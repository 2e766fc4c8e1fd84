// SPDX-License-Identifier: GPL-2.0
/*
 * Writes the blob: container header, section table, and the TARGET,
 * SYMBOLS, BTF_INLINE and BTF sections (Documentation/blob-format.rst).
 * Instances must be final (sorted, merged, BTF ids assigned).
 */
#include <stdlib.h>
#include <string.h>

#include "gen.h"
#include "../uapi/inkprobe.h"
#include "../lib/blob.h"

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

void gen_write_blob(struct gen *g, const char *out_path)
{
	struct inkprobe_blob_section sec[4] = { { 0 } };
	struct inkprobe_blob_header hdr = { 0 };
	struct btf_inline_header ih = { 0 };
	struct inkprobe_target tgt = { 0 };
	struct buf blob = { 0 }, inst = { 0 }, ext = { 0 }, inl = { 0 }, syms = { 0 };
	uint32_t *sym_slot = xcalloc(g->nr_syms, sizeof(uint32_t));
	uint32_t nr_used = 0, btf_len, i, j;
	const void *btf;
	FILE *f;

	/* SYMBOLS: used symbols, in address order == BTF id order */
	for (i = 0; i < g->nr_syms; i++) {
		struct gen_sym *s = &g->syms[i];
		struct inkprobe_symbol rec = { 0 };

		if (!s->used)
			continue;
		rec.btf_id = s->btf_id;
		rec.size = (uint32_t)s->size;
		rec.addr = s->st_value;
		rec.dup_index = s->dup_index;
		rec.flags = s->data ? INKPROBE_SYM_DATA : 0;
		buf_add(&syms, &rec, sizeof(rec));
		sym_slot[i] = nr_used++;
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
			buf_add_u32(&inst, in->loc[j]);

		buf_add_u32(&ext, (uint32_t)(in->entry_pc - s->addr));
		buf_add_u16(&ext, in->flags);
		buf_add_u16(&ext, (uint16_t)in->nr_ranges);
		for (j = 0; j < in->nr_ranges; j++) {
			buf_add_u32(&ext, (uint32_t)(int32_t)(in->ranges[j].start - s->addr));
			buf_add_u32(&ext, (uint32_t)(in->ranges[j].end - in->ranges[j].start));
		}
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
	hdr.blob_len = (uint32_t)blob.len;
	memcpy(blob.data, &hdr, sizeof(hdr));
	memcpy(blob.data + sizeof(hdr), sec, sizeof(sec));

	f = fopen(out_path, "wb");
	if (!f || fwrite(blob.data, 1, blob.len, f) != blob.len || fclose(f))
		die("cannot write %s", out_path);

	free(sym_slot);
	buf_free(&blob);
	buf_free(&inst);
	buf_free(&ext);
	buf_free(&inl);
	buf_free(&syms);
}
