/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Between the files of the probes (probe_event.h has what the rest of the
 * module uses of them):
 *
 *   probe_event.c   events: the probes and stats files, define and
 *                   remove, a target's module leaving and coming back
 *   probe_parse.c   the grammar of a command: its words, p:[GRP/]EVENT,
 *                   TARGET, FETCHARGs and options, -:[GRP/]EVENT
 *   probe_match.c   the instances a TARGET names, made into probes
 *   probe_attach.c  registration onto the kprobes, kprobes' switch
 *   probe_site.c    one kprobe per address, its probes run in order
 *   probe_hit.c     what a hit of one probe does
 *
 * probe_event.c uses the other three; they use none of probe_*.c.
 */
#ifndef _INKPROBE_PROBE_H
#define _INKPROBE_PROBE_H

#include <linux/kallsyms.h>
#include <linux/types.h>

#include "inkprobe.h"
#include "../uapi/inkprobe.h"

struct ink_event;
struct ink_target;

/* ---------- probe_parse.c ---------- */
#define INK_MAX_WORDS		(INK_MAX_ARGS + 3)

/* The words of p[:[GRP/]EVENT] TARGET [FETCHARG...] [stacktrace] [strict] */
enum { INK_WORD_EVENT, INK_WORD_TARGET, INK_WORD_ARGS };

/* A command as written, and its words split in place in a copy of it. */
struct ink_words {
	char cmd[INK_CMD_MAX];
	char *word[INK_MAX_WORDS];
	unsigned int pos[INK_MAX_WORDS + 1];	/* + 1: the word one too many */
	int n;
};

/* TARGET: [MOD:]FUNC | [MOD:]FUNC@CALLER | [MOD:]CALLER+OFF | [MOD:]FUNC@CALLER+OFF */
struct target_spec {
	char mod[INKPROBE_TARGET_NAME_LEN];
	char func[KSYM_NAME_LEN];
	char caller[KSYM_NAME_LEN];
	bool has_off;
	u32 off;
};

/*
 * One line of the probes file into @w ('#' starts a comment), and the log
 * context on it: how many words (0: a blank line), or -errno, logged.
 */
int ink_parse_words(char *line, struct ink_words *w);
/* The command's kind: 'p', 'r' (define) or '-' (remove); else -errno, logged. */
int ink_parse_kind(const struct ink_words *w);
/* p|r[:[GRP/]EVENT] TARGET ...: @ts, and @ev's group and name. */
int ink_parse_define(struct ink_words *w, struct target_spec *ts, struct ink_event *ev);
/* The FETCHARGs and options after TARGET, into @ev. */
int ink_parse_fetchargs(const struct ink_words *w, struct ink_event *ev);
/* -:[GRP/]EVENT: *@group (NULL when not given) and *@name, in @w. */
int ink_parse_remove(struct ink_words *w, char **group, char **name);

/* ---------- probe_match.c ---------- */
/*
 * How many probes @ev needs for the instances of the loaded blobs @ts
 * names (an r event: one per exit), and whether they are of several
 * functions; ev->nr_instances and ev->nr_skipped (an r event's instances
 * without known exits); ev->nr_no_probe, the NO_PROBE records it names,
 * which take no probe and are not counted as instances.
 */
void ink_match_count(const struct target_spec *ts, struct ink_event *ev, unsigned int *count,
		     bool *ambiguous);
/*
 * @ev's probes (room for ink_match_count()'s count): one per instance @ts
 * names, the fetch args compiled for each; errors logged at the argument.
 * ev->nr_probes counts those that hold a reference on their target.
 */
int ink_match_fill(const struct target_spec *ts, struct ink_event *ev);

/* ---------- probe_attach.c ---------- */
/*
 * Registers @ev's probes on live targets (only @only's if set); errors
 * logged at the command's current word.  Fails when none could be placed,
 * or when one was refused and @ev is strict or for want of memory.
 */
int ink_probes_arm(struct ink_event *ev, struct ink_target *only);
/* Unregisters @ev's probes (only those on @only if set). */
void ink_probes_disarm(struct ink_event *ev, struct ink_target *only);

#endif /* _INKPROBE_PROBE_H */
