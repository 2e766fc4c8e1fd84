/* SPDX-License-Identifier: GPL-2.0 */
/*
 * gen on a stripped binary: its separate debug file, and a module's base
 * BTF, found as Documentation/debug-files.rst says (debug_file.c).
 */
#ifndef _INKPROBE_DEBUG_FILE_H
#define _INKPROBE_DEBUG_FILE_H

#include <elfutils/libdwfl.h>

#include "../common/elf_file.h"

/*
 * The file holding @binary's DWARF (@elf: its bytes, decompressed if it is a
 * compressed module; else @binary): NULL when the binary has its own, else
 * @debug_file or the debug file found under @sysroot (NULL: /) with the
 * binary's build ID (malloc'd).  Dies, saying what it looked at, when there
 * is none, and on a --debug-file of another build.
 */
char *debug_file_find(const char *binary, const char *elf, const struct elf_file_info *bin,
		      const char *debug_file, const char *sysroot);

/* libdwfl's find_debuginfo callback: opens the file given to debug_file_use(). */
void debug_file_use(const char *path);
int debug_file_dwfl_find(Dwfl_Module *mod, void **userdata, const char *modname,
			 Dwarf_Addr base, const char *file_name, const char *debuglink_file,
			 GElf_Word debuglink_crc, char **debuginfo_file_name);

/*
 * The vmlinux BTF module @module was built against, found by the release in
 * its vermagic (malloc'd path); dies, saying where it looked, if none.
 */
char *base_btf_find(const char *module, const char *sysroot);

#endif /* _INKPROBE_DEBUG_FILE_H */
