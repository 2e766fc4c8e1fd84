/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What an ELF file holds, read with libelf before libdwfl or libbpf see it:
 * both trust section headers, so a truncated file, an only-keep-debug file
 * (its code and .BTF are NOBITS: no bytes) or a compressed module would
 * crash them or give a wrong answer.  Documentation/debug-files.rst.
 */
#ifndef _INKPROBE_ELF_FILE_H
#define _INKPROBE_ELF_FILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define ELF_BUILD_ID_MAX	64

struct elf_file_info {
	uint16_t type;			/* ET_REL (a module), ET_EXEC (vmlinux), ... */
	uint8_t build_id[ELF_BUILD_ID_MAX];
	uint32_t build_id_len;		/* 0: no GNU build ID note */
	bool has_dwarf;			/* a .debug_info with contents */
	bool has_symtab;		/* a .symtab */
	bool has_btf;			/* a .BTF with contents */
	bool has_btf_base;		/* a .BTF.base: distilled base BTF */
	bool only_keep_debug;		/* allocated sections without contents */
	bool has_code;			/* an executable section with contents */
	char debuglink[256];		/* .gnu_debuglink's file name, or "" */
};

/*
 * Reads @path's ELF header, section headers and notes.  Returns false with
 * a sentence in @why when the file is no x86-64 ELF file gen could read:
 * missing, empty, compressed, not ELF, truncated (a section past the end).
 */
bool elf_file_inspect(const char *path, struct elf_file_info *info, char *why, size_t n);

/*
 * Dies unless @path is raw BTF or an ELF file whose .BTF has contents, so
 * libbpf only parses what it can; @what names the option in the message.
 */
void btf_file_check(const char *path, const char *what);

#endif /* _INKPROBE_ELF_FILE_H */
