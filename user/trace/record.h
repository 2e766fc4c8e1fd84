/* SPDX-License-Identifier: GPL-2.0 */
/*
 * An inkprobe trace event's record, read from its fields as the event's
 * format file describes them (libtraceevent), and rendered as text or JSON
 * (Documentation/trace-events.rst, "inkprobe trace").  Shared by `inkprobe
 * trace` and the libtraceevent plugin; nothing here exits the process.
 *
 * The plugin runs inside perf too, whose copy of libtraceevent exports only
 * a few functions: this file uses the public structs and none of them.
 */
#ifndef _INKPROBE_USER_RECORD_H
#define _INKPROBE_USER_RECORD_H

#include <stdbool.h>
#include <stdint.h>

#include "inline_frames.h"
#include "../common/util.h"

struct tep_event;

#define INK_REC_MAX_ARGS	64
#define INK_REC_MAX_FRAMES	32	/* as the module records, at most */

enum ink_rec_kind { REC_U, REC_S, REC_X, REC_STR };

struct ink_rec_field {
	const char *name;
	unsigned int off, size;
	enum ink_rec_kind kind;
	bool dynamic;		/* __data_loc: the offset-and-length word */
	unsigned int arraylen;	/* a fixed array of integers (not char) */
};

/* An event's layout; for any event, inkprobe's or not. */
struct ink_rec_fmt {
	const char *system, *name;
	int id;
	unsigned int pid_off;
	bool inkprobe;		/* __probe_ip, __optimized_out and __fault */
	unsigned int ip_off, oo_off, fault_off;
	/* the arguments (inkprobe) or every non-common field (other events) */
	unsigned int nr_fields;
	struct ink_rec_field fields[INK_REC_MAX_ARGS];
	bool stack;		/* __stack, __stack_flags, __nr_frames */
	unsigned int stack_off, flags_off, nr_frames_off;
};

/* Reads @ev's layout into @f; false if the event has no common_pid. */
bool ink_rec_fmt_init(struct ink_rec_fmt *f, const struct tep_event *ev);

/* Symbols for addresses: a symbol table's answer for @addr; false if none. */
struct ink_symbolizer {
	bool (*lookup)(void *ctx, uint64_t addr, struct ink_sym *out);
	void *ctx;
};

/* How a record is rendered. */
struct ink_rec_ctx {
	const struct ink_symbolizer *syms;	/* NULL: addresses in hex */
	const struct ink_frames *frames;	/* NULL: no inline frames */
};

/* A stack frame of a record, symbolized and expanded. */
struct ink_rec_frame {
	uint64_t addr;
	bool exact, guess;
	struct ink_sym sym;		/* sym.name NULL: not known */
	unsigned int nr_inline;
	const char *inlined[INK_INLINE_DEPTH];	/* innermost first */
};

/* The frames of an inkprobe record with a stack; how many (0 if it has none). */
unsigned int ink_rec_frames(const struct ink_rec_ctx *c, const struct ink_rec_fmt *f,
			    const void *data, unsigned int size, struct ink_rec_frame *out,
			    unsigned int max);

/*
 * Text of an inkprobe record: "(caller+0xoff) name=value ..." as the
 * module's output function prints it in tracefs' trace, then for a stack
 * "\n => frame" lines (no newline at the end).  Other events: "name=value"
 * for each field.
 */
void ink_rec_text(struct buf *out, const struct ink_rec_ctx *c, const struct ink_rec_fmt *f,
		  const void *data, unsigned int size);

/* The " => frame" lines of ink_rec_text() alone, each after a newline; nothing without a stack. */
void ink_rec_stack_text(struct buf *out, const struct ink_rec_ctx *c, const struct ink_rec_fmt *f,
			const void *data, unsigned int size);

/* The index of field @name in f->fields, -1 if there is none. */
int ink_rec_field_index(const struct ink_rec_fmt *f, const char *name);
/* The integer field @idx of a record; false if it is no integer or lies outside @size bytes. */
bool ink_rec_u64(const struct ink_rec_fmt *f, int idx, const void *data, unsigned int size,
		 uint64_t *v);
/* An inkprobe record's probe address (__probe_ip); 0 for another event's. */
uint64_t ink_rec_ip(const struct ink_rec_fmt *f, const void *data, unsigned int size);

/*
 * JSON members of a record, after the caller's own (comm, pid, cpu, ts...):
 * ,"ip":N,"caller":"...","offset":N,"args":{...}[,"missing":{...}][,"stack":[...]]
 * for an inkprobe event, ,"fields":{...} for another.
 */
void ink_rec_json(struct buf *out, const struct ink_rec_ctx *c, const struct ink_rec_fmt *f,
		  const void *data, unsigned int size);

/* One stack frame's text, as module/stack.c prints it, without " => " and newline. */
void ink_rec_frame_text(struct buf *out, const struct ink_rec_frame *fr);

/* Appends @s as a JSON string (quoted; invalid UTF-8 bytes as \u00XX). */
void ink_json_str(struct buf *b, const char *s, size_t len);
/* Fast number formatting into a buffer. */
void ink_put_u64(struct buf *b, uint64_t v);
void ink_put_s64(struct buf *b, int64_t v);
void ink_put_hex(struct buf *b, uint64_t v);	/* 0x... */
void ink_put_str(struct buf *b, const char *s);

#endif /* _INKPROBE_USER_RECORD_H */
