// SPDX-License-Identifier: GPL-2.0
/*
 * gen --build-id HEX | --running-kernel | --module NAME: the target's DWARF
 * fetched by build ID through debuginfod, then the usual gen on it.
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../common/debuginfod.h"
#include "../common/elf_file.h"
#include "gen.h"
#include "../common/util.h"

/*
 * Servers that index a distribution's debug packages hold an only-keep-debug
 * file (its code has no bytes) as the debuginfo, and the stripped binary as
 * the executable: then the binary is fetched too, and @dwarf becomes its
 * --debug-file.  Returns the path gen opens as the binary.
 */
static const char *only_keep_debug(struct gen_fetch *f, struct gen *g, const char *dwarf)
{
	static char binary[PATH_MAX];
	struct elf_file_info info;
	char why[256], *fetched;

	if (!elf_file_inspect(dwarf, &info, why, sizeof(why)))
		die("%s: the server's DWARF %s: %s", f->what, dwarf, why);
	if (!info.only_keep_debug)
		return dwarf;
	fetched = debuginfod_fetch_binary(&f->id, f->what);
	snprintf(binary, sizeof(binary), "%s", fetched);
	free(fetched);
	if (!elf_file_inspect(binary, &info, why, sizeof(why)))
		die("%s: the server's binary %s: %s", f->what, binary, why);
	if (!info.has_code)
		die("%s: the server's DWARF is an only-keep-debug file, and its executable %s "
		    "has no code (a published blob?): give the binary, and --debug-file %s",
		    f->what, binary, dwarf);
	warnx("%s: an only-keep-debug file: the binary fetched too", f->what);
	g->debug_file = dwarf;
	return binary;
}

const char *gen_fetch(struct gen_fetch *f, struct gen *g)
{
	static char base[PATH_MAX], path[PATH_MAX];
	char *fetched;
	char why[640], hex[BUILD_ID_HEX_LEN];

	switch (f->how) {
	case GEN_FETCH_BUILD_ID:
		if (!build_id_parse(f->arg, &f->id))
			die("--build-id %s: not a build ID (2 to %d hexadecimal digits, an "
			    "even number)", f->arg, 2 * INKPROBE_BUILD_ID_MAX);
		snprintf(f->what, sizeof(f->what), "build ID %s", f->arg);
		break;
	case GEN_FETCH_KERNEL:
		if (build_id_of_kernel(&f->id, why, sizeof(why)))
			die("--running-kernel: %s", why);
		build_id_hex(&f->id, hex);
		snprintf(f->what, sizeof(f->what), "vmlinux build-id=%s", hex);
		break;
	case GEN_FETCH_MODULE:
		if (build_id_of_module(f->arg, &f->id, why, sizeof(why)))
			die("--module: %s", why);
		build_id_hex(&f->id, hex);
		snprintf(f->what, sizeof(f->what), "%.64s build-id=%s", f->arg, hex);
		/* the module is loaded: into this kernel, whose BTF it was built on */
		if (!g->base_btf_path) {
			snprintf(base, sizeof(base), "%s/kernel/btf/vmlinux", sysfs_root());
			g->base_btf_path = base;
		}
		break;
	default:
		die("gen_fetch: how %d", f->how);
	}
	fetched = debuginfod_fetch_dwarf(&f->id, f->what);
	snprintf(path, sizeof(path), "%s", fetched);
	free(fetched);
	return only_keep_debug(f, g, path);
}

void gen_fetch_check(const struct gen_fetch *f, const struct gen *g)
{
	char want[BUILD_ID_HEX_LEN], got[BUILD_ID_HEX_LEN];
	struct build_id id = { .len = g->build_id_len };

	memcpy(id.id, g->build_id, g->build_id_len);
	if (build_id_eq(&id, &f->id))
		return;
	build_id_hex(&f->id, want);
	build_id_hex(&id, got);
	die("%s: the server's DWARF for build ID %s has build ID %s", g->path, want, got);
}
