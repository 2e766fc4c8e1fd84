/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Compressed ELF files: distributions ship kernel modules as .ko.xz
 * (Debian since 6.12, Fedora), .ko.zst (Arch, Ubuntu) or .ko.gz.  gen reads
 * them as they are (Documentation/debug-files.rst).
 */
#ifndef _INKPROBE_DECOMPRESS_H
#define _INKPROBE_DECOMPRESS_H

/* The most bytes a file may have once decompressed: 4 GiB. */
#define DECOMPRESS_MAX	(4ULL << 30)

/*
 * @path itself when it is not compressed with xz, zstd or gzip (by its
 * first bytes), else the path of its decompressed bytes in memory
 * (/proc/self/fd/N, a memfd open until exit).  Dies, naming @path, on a
 * corrupt or cut-short stream or one over DECOMPRESS_MAX.  malloc'd.
 */
char *decompressed_path(const char *path);

#endif /* _INKPROBE_DECOMPRESS_H */
