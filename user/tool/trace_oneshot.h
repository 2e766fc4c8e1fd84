/* SPDX-License-Identifier: GPL-2.0 */
/*
 * inkprobe trace 'FUNC ARGS...': the event of one trace, and what it took
 * to define it (inkprobe.ko, blobs), all undone at the end.
 */
#ifndef _INKPROBE_USER_TRACE_ONESHOT_H
#define _INKPROBE_USER_TRACE_ONESHOT_H

#include <stdbool.h>
#include <stddef.h>

#include "../../uapi/inkprobe.h"

#define ONESHOT_MAX_BLOBS	8

struct oneshot {
	char group[64], event[64];
	char *def;			/* the definition (malloc'd) */
	char target_blob[INKPROBE_TARGET_NAME_LEN];	/* the blob TARGET needs */
	bool defined;			/* the event: removed at the end */
	bool inserted;			/* inkprobe.ko: removed at the end */
	size_t nr_loaded;		/* blobs loaded: unloaded at the end */
	char loaded[ONESHOT_MAX_BLOBS][INKPROBE_TARGET_NAME_LEN];
};

/*
 * The definition of the spec @words (@nr of them, joined by spaces):
 * "[p|r] TARGET [FETCHARG...]", as inkprobe add takes it after "p:GRP/EVENT"
 * (a "p:GRP/EVENT" or "r:GRP/EVENT" first word names it), with "stacktrace"
 * if @stack; the event p:inkprobe_trace_PID/FUNC unless named.  Touches
 * nothing.  Returns -1, or 2 after a message.
 */
int oneshot_parse(struct oneshot *o, char **words, int nr, bool stack);

/*
 * Defines the event parsed.  First loads what is missing: inkprobe.ko
 * (insmod @ko, or modprobe inkprobe), the blob files @blobs, and when the
 * definition fails without it, TARGET's blob (the running kernel's, or
 * MOD's for MOD:FUNC) by build ID.  Returns -1 when it is defined, else the
 * exit status after a message; what it did is undone by oneshot_undo().
 */
int oneshot_define(struct oneshot *o, const char *ko, char **blobs, size_t nr_blobs);

/*
 * Removes the event, the blobs and inkprobe.ko as far as it added them,
 * and frees the definition: 0, else 1.
 */
int oneshot_undo(struct oneshot *o);

#endif /* _INKPROBE_USER_TRACE_ONESHOT_H */
