/* SPDX-License-Identifier: GPL-2.0 */
/*
 * fetch.c: fetch arguments, the type table, compilation and evaluation;
 * for probe_parse.c, probe_match.c, probe_event.c, trace_event.c,
 * site_spec.c and consumers.c (and probe_event.h's ink_fetch(), the
 * handler's side).
 */
#ifndef _INKPROBE_FETCH_H
#define _INKPROBE_FETCH_H

#include <linux/types.h>

#include "inkprobe.h"

struct ink_instance;
struct ink_target;
struct pt_regs;

/*
 * The types of a FETCHARG: one table (fetch.c), like trace_probe.c's
 * fetch types, that every reader of a type goes through -- the grammar
 * (:TYPE), BTF's defaults, the trace event's fields, print fmt and output
 * (escaped strings), the record fill and the BPF site specs.
 */
struct ink_type {
	const char *name;		/* as :TYPE writes it: "u32", "x64", "string" */
	u8 size;			/* bytes of its field: 4 (__data_loc) for strings */
	bool is_signed;			/* sign-extended when printed */
	bool is_string;			/* characters after the fixed part, NUL-terminated */
	const char *field;		/* the field's type in the format file */
	const char *fmt;		/* its conversion in the print fmt */
	const char *fmt_arg;		/* and its argument there, of the field's name */
	const char *out;		/* " NAME=value" in tracefs' output, of a u64 */
};

/* The entry of :@name, or NULL. */
const struct ink_type *ink_type_by_name(const char *name);
/* The default type of a BTF scalar of @size bytes (1, 2, 4, 8). */
const struct ink_type *ink_type_scalar(unsigned int size, bool is_signed, bool is_hex);

/* One FETCHARG of an event: what is read and how it prints. */
struct ink_fetch {
	char name[INK_NAME_LEN];
	char *text;			/* as written, for listing */
	bool comm;			/* $comm */
	bool retval;			/* $retval: an r event's out-of-line copies */
	bool duration;			/* $duration: an r event's, ns since the entry */
	char param[INK_NAME_LEN];	/* parameter name, or "" with $argN */
	int argn;			/* $argN (1-based), 0 when named */
	u8 nr_fields;
	char field[INK_MAX_FIELDS][INK_NAME_LEN];
	bool arrow[INK_MAX_FIELDS];	/* "->" before the field, else "." */
	u8 nr_reads;			/* memory reads: one per "->" */
	bool typed;			/* :TYPE given */
	const struct ink_type *type;	/* NULL until typed or compiled */
	u8 str_slot;			/* strings: which of the event's string slots */
};

enum ink_arg_state { INK_ARG_OK, INK_ARG_FAULT, INK_ARG_UNAVAILABLE };

struct ink_probe;
struct ink_probe_arg;
/*
 * Parse one FETCHARG (syntax only), the command's current word: errors go
 * to its log context (ink_log_err()), the caret in @arg.
 */
int ink_fetch_parse(struct ink_fetch *f, const char *arg);
/*
 * Compile @f for instance @in of target @t: fills @a, and the default type
 * on first use.  Errors as ink_fetch_parse()'s.
 */
int ink_fetch_compile(struct ink_fetch *f, struct ink_probe_arg *a, const struct ink_target *t,
		      const struct ink_instance *in, bool first);
void ink_fetch_free(struct ink_fetch *f);

/*
 * Evaluate argument @i of @p at a hit (handler context) straight into the
 * record: a value into @field (its type's size, no alignment assumed), a
 * string into @str (INK_STR_LEN bytes, NUL-terminated).  On failure
 * nothing is promised about either.
 */
enum ink_arg_state ink_fetch_eval(const struct ink_probe *p, unsigned int i,
				  struct pt_regs *regs, void *field, char *str);

#endif /* _INKPROBE_FETCH_H */
