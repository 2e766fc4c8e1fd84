/* SPDX-License-Identifier: GPL-2.0 */
/*
 * x86_decoder.c: libZydis, opened by gen's first decoder, so that the
 * tool's other commands never load it.
 */
#ifndef _INKPROBE_X86_DECODER_H
#define _INKPROBE_X86_DECODER_H

#include <Zydis/Zydis.h>
#include <stdbool.h>
#include <stddef.h>

/* An x86-64 decoder in *@d, ZYDIS_DECODER_MODE_MINIMAL if @minimal; dies on failure. */
void x86_decoder_init(ZydisDecoder *d, bool minimal);
/* The instruction at @code (@len bytes readable) into *@in; false: it does not decode. */
bool x86_decode(const ZydisDecoder *d, const void *code, size_t len,
		ZydisDecodedInstruction *in);

#endif /* _INKPROBE_X86_DECODER_H */
