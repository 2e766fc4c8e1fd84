/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Files by build ID from the debuginfod servers in $DEBUGINFOD_URLS, through
 * libdebuginfod (Documentation/debuginfod.rst):
 *  - a target's DWARF, for gen: the server's "debuginfo" of the build ID,
 *    kept in libdebuginfod's own cache (what gdb and perf share);
 *  - a published blob, for load: the ".BTF.inline" section of the file that
 *    'inkprobe publish' wrote for the build ID, kept in inkprobe's cache
 *    ($INKPROBE_DEBUGINFOD_CACHE, default ~/.cache/inkprobe/debuginfod_client).
 * On a terminal, progress goes to stderr unless $DEBUGINFOD_PROGRESS asks
 * for libdebuginfod's own.
 */
#ifndef _INKPROBE_USER_DEBUGINFOD_H
#define _INKPROBE_USER_DEBUGINFOD_H

#include <stdint.h>

#include "build_id.h"

/* The section 'inkprobe publish' puts the blob in. */
#define PUBLISH_SECTION	".BTF.inline"

/*
 * Dies with what to do when $DEBUGINFOD_URLS is unset or empty (@why: what
 * needed it).
 */
void debuginfod_need_urls(const char *why);

/*
 * The path of the DWARF file of @id (malloc'd), fetched or from the cache;
 * dies with the reason when no server has it.  @what names it in messages.
 */
char *debuginfod_fetch_dwarf(const struct build_id *id, const char *what);

/* The same for the executable of @id: the stripped binary of an only-keep-debug file. */
char *debuginfod_fetch_binary(const struct build_id *id, const char *what);

/*
 * The blob published for @id: 0 with *@data (malloc'd) and *@len; -ENOENT
 * when no server has it; another -errno (a failed query: an unreachable
 * server, a blob larger than INKPROBE_BLOB_MAX_LEN) after a warning.
 */
int debuginfod_fetch_blob(const struct build_id *id, const char *what, uint8_t **data,
			  uint32_t *len);

#endif /* _INKPROBE_USER_DEBUGINFOD_H */
