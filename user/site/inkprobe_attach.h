/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Attaching a libbpf kprobe program at every instance of an inkprobe
 * definition, each with its argument spec: the user-space half of
 * uapi/inkprobe_site.bpf.h (Documentation/trace-events.rst, "BPF programs
 * at every instance").  Compile inkprobe_attach.c into the program; it
 * needs libbpf.
 *
 *	struct inkprobe_site_opts opts = { .sz = sizeof(opts), .obj_path = "at_mix.bpf.o" };
 *	struct inkprobe_site_link *l;
 *	char err[256];
 *
 *	l = inkprobe_site_attach_obj(obj, "at_mix", "tgt/tgt_mix", &opts, err, sizeof(err));
 *	if (!l)
 *		errx(1, "%s", err);
 *	...
 *	inkprobe_site_detach(l);
 *
 * (a copy of the program for each distinct spec), or the cookie path alone:
 *
 *	l = inkprobe_site_attach(skel->progs.at_mix, skel->maps.inkprobe_specs,
 *				 "tgt/tgt_mix", err, sizeof(err));
 */
#ifndef _INKPROBE_ATTACH_H
#define _INKPROBE_ATTACH_H

#include <stddef.h>

#include <bpf/libbpf.h>

#include "../../uapi/inkprobe_site.h"

/* Where inkprobe.ko lists every instance's specs. */
#define INKPROBE_SITES_FILE	"/sys/kernel/debug/inkprobe/sites"

struct inkprobe_site_link;

/*
 * Attaches @prog (SEC("kprobe"), loaded) at every live instance of the
 * definition @event ("GROUP/EVENT"), through the perf kprobe PMU at the
 * instance's address, with a BPF cookie that indexes its spec in @specs
 * (the object's inkprobe_specs map).  All or nothing, but for the
 * instances the kernel refuses (inkprobe_site_skipped()): returns NULL
 * with errno and a message in @err when the event is not defined, has
 * no live instance, none it can attach to, the map is full, or an
 * attachment fails otherwise.
 *
 * The specs are those of the instances when it is called: a definition
 * removed and made again, or a target module loaded again, needs a new
 * attachment.  Removing the definition or unloading inkprobe.ko does not
 * disturb the program: it reads registers and memory itself.
 */
struct inkprobe_site_link *inkprobe_site_attach(const struct bpf_program *prog,
						const struct bpf_map *specs, const char *event,
						char *err, size_t errlen);

/*
 * inkprobe_site_attach(), with a copy of the program for each distinct spec
 * of the instances: the copy's .rodata holds the spec (inkprobe_site_const
 * of uapi/inkprobe_site.bpf.h), frozen, so that the verifier drops every
 * instruction the spec rules out and the copy costs about what a program
 * written by hand for those registers costs.  @obj is the loaded object
 * of the program named @prog_name; each copy is opened from the same ELF
 * (@opts->obj_path, or the bytes @opts->obj_buf, e.g. a skeleton's), with
 * only that program, every map of @obj but its read-only data shared
 * (bpf_map__reuse_fd()) and its read-only data as @obj has it.
 *
 * The cookie path (the program of @obj and its spec map) stays the
 * fallback: for the distinct specs past @opts->max_programs (0:
 * INKPROBE_SITE_MAX_PROGRAMS, less than 0: none), for a copy the kernel
 * does not load, and for all when the object has no inkprobe_site_const.
 * Every attached instance has its spec in the map, as with
 * inkprobe_site_attach().  Errors as inkprobe_site_attach()'s, and a copy
 * that cannot be opened or set up is one.
 */
#define INKPROBE_SITE_MAX_PROGRAMS	16

struct inkprobe_site_opts {
	size_t sz;			/* sizeof(struct inkprobe_site_opts) */
	const char *obj_path;		/* the ELF @obj was opened from, or */
	const void *obj_buf;		/* its bytes */
	size_t obj_buf_sz;
	int max_programs;		/* copies at most (see above) */
};

struct inkprobe_site_link *inkprobe_site_attach_obj(struct bpf_object *obj,
						    const char *prog_name, const char *event,
						    const struct inkprobe_site_opts *opts,
						    char *err, size_t errlen);

/* How many instances @l attached to. */
int inkprobe_site_count(const struct inkprobe_site_link *l);
/* How many of them through a copy made for their spec; how many copies. */
int inkprobe_site_specialised(const struct inkprobe_site_link *l);
int inkprobe_site_programs(const struct inkprobe_site_link *l);
/*
 * How many live instances the kernel refused (EINVAL): the perf kprobe
 * PMU keeps kprobe_events' rule, no kprobe in a function ftrace cannot
 * trace, and the out-of-line copy of a "static inline" function is one
 * (the kernel's inline is notrace).  The trace event has their hits.
 */
int inkprobe_site_skipped(const struct inkprobe_site_link *l);
/*
 * Detaches every instance of @l, frees their map slots and closes the
 * copies; NULL is fine.
 */
void inkprobe_site_detach(struct inkprobe_site_link *l);

/*
 * One line of INKPROBE_SITES_FILE: its event ("GROUP/EVENT"), whether the
 * instance is live, and its spec.  0, or -EINVAL when the line is not one.
 * (For tests and tools; inkprobe_site_attach() uses it.)
 */
int inkprobe_site_parse(const char *line, char *event, size_t eventlen, int *live,
			struct inkprobe_site_spec *spec);

/*
 * What a copy made for @spec holds in its inkprobe_site_const: the spec
 * (ip 0, in_use 1) and how each argument reads.  (For tests;
 * inkprobe_site_attach_obj() uses it.)
 */
void inkprobe_site_plan(const struct inkprobe_site_spec *spec, struct inkprobe_site_const *c);

#endif /* _INKPROBE_ATTACH_H */
