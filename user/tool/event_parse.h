/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The module's text output, parsed: trace_pipe event lines (and the stack
 * lines that follow an event) into JSON, and JSON string escaping.
 *
 *   <comm>-<pid> [<cpu>] <sec>.<usec>: <group>:<event>: (<caller>+0x<off>) name=value ...
 *    => frame
 */
#ifndef _INKPROBE_USER_EVENT_PARSE_H
#define _INKPROBE_USER_EVENT_PARSE_H

#include <stdbool.h>
#include <stddef.h>

#include "../common/util.h"

/* A piece of a line: not NUL-terminated. */
struct span {
	const char *p;
	size_t len;
	bool escaped;	/* a string value: \", \\ and \xNN inside */
};

struct event_line {
	struct span comm, ts, group, event, caller;
	unsigned long long pid, cpu, offset;
	const char *args;	/* "name=value ..." (NUL-terminated, may be empty) */
};

/* Splits a NUL-terminated event line (no newline); false if it is not one. */
bool event_line_parse(const char *line, struct event_line *ev);

/*
 * The next "name=value" of *args, advancing it; false at the end or when the
 * rest is malformed (check **args to tell).  String values are returned
 * without their quotes; "(optimized out)" and "(fault)" as they are.
 */
bool event_next_arg(const char **args, struct span *name, struct span *val);

/* A stack line following an event: " => frame". */
bool event_is_stack_line(const char *line);

/* Appends @s as a JSON string (quoted; invalid UTF-8 bytes as \u00XX). */
void json_str(struct buf *b, const char *s, size_t len);

/*
 * trace_pipe lines to JSON Lines, one object per event:
 *
 *   {"comm":"bash","pid":12,"cpu":0,"ts":"13.095604","group":"tgt","event":"mix",
 *    "caller":"tgt_caller_a","offset":40,"args":{"reg":"4242"},"stack":["f1","f2"]}
 *
 * An event is held until the next line shows whether stack lines follow;
 * a line that does not parse becomes {"raw":"line"}.
 */
struct event_json {
	struct buf pending;	/* the held event, without its closing brace */
	size_t nr_frames;
};

/* Feeds one NUL-terminated line (no newline); finished objects go to @out. */
void event_json_line(struct event_json *ej, const char *line, struct buf *out);
/* Finishes the held event, if any, into @out. */
void event_json_flush(struct event_json *ej, struct buf *out);
void event_json_free(struct event_json *ej);

#endif /* _INKPROBE_USER_EVENT_PARSE_H */
