/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A kernel profile from sampled callchains (inkprobe profile,
 * Documentation/profile.rst): each sample's kernel callchain expanded into
 * frames -- every entry's inline frames from the blobs (innermost first),
 * then its symbol -- and printed three ways: self and total shares per
 * function, folded stacks, and perf script's text.
 *
 * Expansion: entry 0 of the kernel part is the interrupted instruction,
 * looked up at itself; every other entry is a return address, looked up at
 * its call (address - 1).  An address without a symbol is "[unknown]".
 */
#ifndef _INKPROBE_USER_PROFILE_REPORT_H
#define _INKPROBE_USER_PROFILE_REPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "inline_frames.h"
#include "ksyms.h"
#include "perf_sample.h"

struct profile;

/* What the report's first line says of the recording. */
struct profile_info {
	unsigned int hz;	/* sampling frequency; 0: not known */
	const char *event;	/* "cpu-clock" */
	double seconds;		/* how long it recorded */
	const char *scope;	/* "all CPUs", "pid 1234", "perf.data FILE" */
	bool blobs_in_module;	/* the frames came from inkprobe.ko's blobs */
};

/* One callchain entry, looked up: its symbol, and the inline frames there. */
struct profile_entry {
	uint64_t ip;
	bool exact;		/* the interrupted instruction, not a return address */
	struct ink_sym sym;	/* name NULL: no symbol holds @ip */
	unsigned int nr_inline;
	const char *inlined[INK_INLINE_DEPTH];	/* innermost first */
};

/*
 * Looks up @n entries (their @ip and @exact set): 0, or -1 with the reason
 * in @why.  The strings must live as long as the profile.
 */
typedef int (*profile_lookup_fn)(void *ctx, struct profile_entry *e, size_t n, char *why,
				 size_t why_len);

/*
 * An empty profile whose samples are symbolized with @k and expanded with
 * @f's blobs (either may be NULL: every address "[unknown]", no inline
 * frames); neither is owned.  NULL when out of memory.
 */
struct profile *profile_new(struct ksyms *k, const struct ink_frames *f);
/* An empty profile whose samples are looked up by @fn (with @ctx). */
struct profile *profile_new_lookup(profile_lookup_fn fn, void *ctx);
void profile_free(struct profile *p);

/*
 * The kernel part of callchain @chain (@nr entries): the entries after a
 * PERF_CONTEXT_KERNEL marker (or, before any marker, kernel addresses),
 * markers and every other context dropped, leaf first, into @out (at most
 * @max).  How many.
 */
uint32_t profile_kernel_chain(const uint64_t *chain, uint32_t nr, uint64_t *out, uint32_t max);

/*
 * Adds sample @s (copied; its comm NULL: "[unknown]").  Returns true if it
 * was kept: false when its callchain has no kernel part.
 */
bool profile_add(struct profile *p, const struct perf_sample *s);
/*
 * Looks up every callchain entry of the samples kept that is not yet, in
 * one call of the look-up: 0, or -1 with the reason in @why.  Printing
 * looks up what is left one by one.
 */
int profile_resolve(struct profile *p, char *why, size_t why_len);
/* The samples kept. */
uint64_t profile_samples(const struct profile *p);

/*
 * The report: "# inkprobe profile: ..." from @info and @nr_blobs, the
 * column heads, a row per function (Documentation/profile.rst).
 */
void profile_print_report(const struct profile *p, const struct profile_info *info,
			  unsigned int nr_blobs, FILE *out);
/* Folded stacks: "COMM;OUTERMOST;...;INNERMOST COUNT", sorted; inline frames "_[i]". */
void profile_print_folded(const struct profile *p, FILE *out);
/* perf script's default text for each sample, in the order they were added. */
void profile_print_perf_script(const struct profile *p, FILE *out);

#endif /* _INKPROBE_USER_PROFILE_REPORT_H */
