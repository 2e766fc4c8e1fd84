// SPDX-License-Identifier: GPL-2.0
/*
 * The x86-64 decoder, libZydis, opened when gen makes its first decoder:
 * every other command of the tool (profile, trace, latency, ...) starts
 * without it.  The tool links its other libraries statically; libZydis
 * (Debian ships no libZydis.a) would be the one shared library besides
 * libc, and the dynamic linker reads and relocates it at every start:
 * 62 KB of relocations, 24 KB of pointers (Zydis 4.0), page by page from
 * a guest's 9p root (Documentation/benchmarks.rst, profile symbolization).
 *
 * The library is the one the headers describe: its soname from their
 * version, as the linker would have recorded it.
 */
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>

#include "gen.h"
#include "x86_decoder.h"

static struct {
	__typeof__(ZydisDecoderInit) *init;
	__typeof__(ZydisDecoderEnableMode) *enable_mode;
	__typeof__(ZydisDecoderDecodeInstruction) *decode;
} zydis;
static pthread_once_t zydis_once = PTHREAD_ONCE_INIT;

static void open_zydis(void)
{
	char soname[64];
	void *lib;

	snprintf(soname, sizeof(soname), "libZydis.so.%u.%u",
		 (unsigned int)ZYDIS_VERSION_MAJOR(ZYDIS_VERSION),
		 (unsigned int)ZYDIS_VERSION_MINOR(ZYDIS_VERSION));
	lib = dlopen(soname, RTLD_NOW | RTLD_LOCAL);
	if (!lib)
		die("gen decodes x86 code with libZydis: %s (Debian: libzydis-dev)",
		    dlerror());
	dl_function(lib, soname, "ZydisDecoderInit", &zydis.init, "Zydis 4");
	dl_function(lib, soname, "ZydisDecoderEnableMode", &zydis.enable_mode, "Zydis 4");
	dl_function(lib, soname, "ZydisDecoderDecodeInstruction", &zydis.decode, "Zydis 4");
}

void x86_decoder_init(ZydisDecoder *d, bool minimal)
{
	pthread_once(&zydis_once, open_zydis);
	if (ZYAN_FAILED(zydis.init(d, ZYDIS_MACHINE_MODE_LONG_64, ZYDIS_STACK_WIDTH_64)) ||
	    (minimal && ZYAN_FAILED(zydis.enable_mode(d, ZYDIS_DECODER_MODE_MINIMAL, ZYAN_TRUE))))
		die("libZydis: cannot make an x86-64 decoder");
}

bool x86_decode(const ZydisDecoder *d, const void *code, size_t len,
		ZydisDecodedInstruction *in)
{
	ZydisDecoderContext ctx;

	return ZYAN_SUCCESS(zydis.decode(d, &ctx, code, len, in));
}
