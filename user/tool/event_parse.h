/* SPDX-License-Identifier: GPL-2.0 */
/*
 * JSON string escaping for the tool's JSON output (stats --json).  The
 * events of `inkprobe trace` are rendered from their records
 * (user/trace/record.c), which has the one escaper.
 */
#ifndef _INKPROBE_USER_EVENT_PARSE_H
#define _INKPROBE_USER_EVENT_PARSE_H

#include <stddef.h>

#include "../common/util.h"
#include "../trace/record.h"

/* Appends @s as a JSON string (quoted; invalid UTF-8 bytes as \u00XX). */
static inline void json_str(struct buf *b, const char *s, size_t len)
{
	ink_json_str(b, s, len);
}

#endif /* _INKPROBE_USER_EVENT_PARSE_H */
