// SPDX-License-Identifier: GPL-2.0
/*
 * BPF at every instance, the USDT model (Documentation/trace-events.rst):
 * a kprobe program (site.bpf.c) attached by user/site/inkprobe_attach.c at
 * each instance, reading the arguments itself from the specs of
 * inkprobe.ko's sites file.  It must read exactly what inkprobe_target
 * says it passed (its "expected" file), at every instance (inlined copies
 * and the out-of-line copy), the same as the trace event reads for the
 * same calls; a location a spec cannot express reads as "no value"
 * (-EOPNOTSUPP), never as a wrong value: exactly the arguments that
 * scripts/site-oracle finds so in the target's DWARF at the hit's pc
 * (site-unsupported.txt, written on the host from llvm-dwarfdump's reading,
 * not inkprobe's).  Both paths run at once, at every instance: the
 * program reading each instance's spec from its map by the BPF cookie
 * (inkprobe_site_attach()) and a copy of it made for each distinct spec
 * (inkprobe_site_attach_obj()); each gives every expected line, and the
 * two give the same lines.  Past the copies' limit the cookie path takes
 * the rest, exactly the instances whose spec got no copy.  Detaching, and
 * unloading inkprobe.ko under attached programs, are safe.
 */
#define _GNU_SOURCE
#include <bpf/libbpf.h>
#include <errno.h>
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "../../user/site/inkprobe_attach.h"

#include "kselftest_harness.h"
#include "guest_util.h"

#define INST		"/sys/kernel/tracing/instances/inkprobe_site"
#define PIPE		INST "/trace_pipe"
#define MIX		"p:tgt/tgt_mix tgt_mix reg konst obj weight=obj->weight"
#define PART		"p:part/tgt_part tgt_part a1 a2 a3 a4 a5 a6 a7"
#define FAULT		"p:flt/tgt_fault tgt_fault o weight=o->weight x"

/* site.bpf.c's record of a hit */
struct hit {
	unsigned long long func_ip, spec_ip;
	unsigned int nr_args;
	unsigned int copy;		/* 1: a copy made for one spec */
	unsigned int same;		/* it read by the map's spec at its cookie */
	int ret[8];
	long long v[8];
};

/*
 * How the target prints each callee's arguments: one letter per argument,
 * u (%llu), d (%d), x (0x%px).
 */
static const struct callee {
	const char *name, *args[8], *fmt;
} callees[] = {
	{ "tgt_mix", { "reg", "konst", "obj", "weight" }, "udxu" },
	{ "tgt_part", { "a1", "a2", "a3", "a4", "a5", "a6", "a7" }, "uuuuuuu" },
	{ "tgt_fault", { "o", "weight", "x" }, "xuu" },
	{ "tgt_cp", { "x", "mode" }, "ud" },
	{ "tgt_sra", { "o", "x" }, "xu" },
	{ "tgt_loc_regoff", { "field" }, "x" },
	{ "tgt_loc_mem", { "n", "salt" }, "uu" },
	{ "tgt_loc_stack", { "spilled" }, "u" },
	{ "tgt_loc_global", { "g", "weight", "by" }, "xuu" },
	{ "tgt_loc_unused", { "used", "unused" }, "uu" },
	{ "tgt_loc_implicit", { "p" }, "x" },
	{ "tgt_loc_pair", { "p" }, "x" },
};

/*
 * scripts/site-oracle's ranges: "CALLEE CALLER 0xSTART 0xEND PARAM", the
 * pcs (from the caller's start) where the DWARF location of PARAM is a
 * value a spec cannot express.
 */
struct unsupported {
	char callee[64], caller[128], param[32];
	unsigned long start, end;
};

static struct unsupported oracle[256];
static int nr_oracle = -1;

static int read_oracle(void)
{
	char *all = read_file(blob_path("site-unsupported.txt"), NULL), *line, *save = NULL;

	if (!all)
		return -1;
	nr_oracle = 0;
	for (line = strtok_r(all, "\n", &save); line && nr_oracle < 256;
	     line = strtok_r(NULL, "\n", &save)) {
		struct unsupported *u = &oracle[nr_oracle];

		if (line[0] != '#' && sscanf(line, "%63s %127s %lx %lx %31s", u->callee, u->caller,
					     &u->start, &u->end, u->param) == 5)
			nr_oracle++;
	}
	free(all);
	return 0;
}

/* Whether the oracle says @param of @callee in @caller at @off reads "?". */
static bool unsupported_at(const char *callee, const char *caller, unsigned long off,
			   const char *param)
{
	int i;

	for (i = 0; i < nr_oracle; i++)
		if (!strcmp(oracle[i].callee, callee) && !strcmp(oracle[i].caller, caller) &&
		    !strcmp(oracle[i].param, param) && oracle[i].start <= off &&
		    off < oracle[i].end)
			return true;
	return false;
}

FIXTURE(site) {
	struct bpf_object *obj;
	struct bpf_program *prog;
	struct bpf_map *specs;
	char path[512];			/* site.bpf.o, to open the copies from */
};

static int write_inst(const char *file, const char *s)
{
	char path[256];

	snprintf(path, sizeof(path), INST "/%s", file);
	return write_file(path, s, false);
}

FIXTURE_SETUP(site)
{
	char *path = self->path, *slash;
	ssize_t len;

	ASSERT_EQ(0, setup_target());
	ASSERT_EQ(0, read_oracle()) TH_LOG("no %s: scripts/check writes it",
					   blob_path("site-unsupported.txt"));
	rmdir(INST);
	ASSERT_EQ(0, clear_probes()) TH_LOG("error_log: %s", last_error());
	ASSERT_EQ(0, mkdir(INST, 0755));
	len = readlink("/proc/self/exe", path, sizeof(self->path) - 32);
	ASSERT_LT(0, len);
	path[len] = '\0';
	slash = strrchr(path, '/');
	ASSERT_NE(NULL, slash);
	strcpy(slash + 1, "site.bpf.o");
	self->obj = bpf_object__open_file(path, NULL);
	ASSERT_NE(NULL, self->obj) TH_LOG("%s: %s", path, strerror(errno));
	ASSERT_EQ(0, bpf_object__load(self->obj));
	self->prog = bpf_object__find_program_by_name(self->obj, "site");
	self->specs = bpf_object__find_map_by_name(self->obj, "inkprobe_specs");
	ASSERT_NE(NULL, self->prog);
	ASSERT_NE(NULL, self->specs);
}

FIXTURE_TEARDOWN(site)
{
	bpf_object__close(self->obj);
	rmdir(INST);
	clear_probes();
}

static const struct callee *callee_named(const char *name)
{
	unsigned int i;

	for (i = 0; i < sizeof(callees) / sizeof(callees[0]); i++)
		if (!strcmp(callees[i].name, name))
			return &callees[i];
	return NULL;
}

/*
 * The function of /proc/kallsyms that holds @ip and its address, as
 * kallsyms_func() finds it, read once per address: a hit's caller and
 * offset.
 */
static const char *caller_at(unsigned long long ip, unsigned long long *start)
{
	static struct {
		unsigned long long ip, start;
		char name[128];
	} seen[64];
	static int nr_seen;
	unsigned long long a, best = 0;
	char line[512], type, name[128];
	FILE *f;
	int i;

	for (i = 0; i < nr_seen; i++)
		if (seen[i].ip == ip) {
			*start = seen[i].start;
			return seen[i].name;
		}
	i = nr_seen < 64 ? nr_seen++ : 63;
	seen[i].ip = ip;
	seen[i].name[0] = '\0';
	f = fopen("/proc/kallsyms", "r");
	while (f && fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%llx %c %127s", &a, &type, name) != 3 ||
		    (type != 't' && type != 'T') || a > ip || a < best)
			continue;
		best = a;
		snprintf(seen[i].name, sizeof(seen[i].name), "%s", name);
	}
	if (f)
		fclose(f);
	seen[i].start = best;
	*start = best;
	return seen[i].name;
}

#define MAX_HITS	128

struct hits {
	const char *callee;		/* NULL: from the caller's name */
	bool raw_only;			/* keep the records, make no lines */
	struct hit raw[MAX_HITS];
	char *line[MAX_HITS];
	char *oracle_q[MAX_HITS];	/* " NAME NAME " the oracle says read "?" */
	int n;
	int problems;
};

static void free_hits(struct hits *got)
{
	free_lines(got->line, got->n);
	free_lines(got->oracle_q, got->n);
	got->n = 0;
}

/*
 * A hit as the target's expected line: "callee caller name=value ...",
 * "name=?" for -EOPNOTSUPP.  The caller is kallsyms' function at the
 * kprobe's address; the callee, when not given, the caller's name
 * without "_caller" (tgt_loc_*).  The arguments the oracle says read "?"
 * at that pc go to oracle_q.
 */
static int on_hit(void *ctx, void *data, size_t size)
{
	const struct hit *h = data;
	struct hits *out = ctx;
	char caller[128], callee[128], line[512], q[256], *end;
	const struct callee *c;
	unsigned long long start;
	unsigned long off;
	size_t len, qlen;
	int i, n;

	if (size < sizeof(*h) || out->n == MAX_HITS)
		return 0;
	snprintf(caller, sizeof(caller), "%s", caller_at(h->func_ip, &start));
	snprintf(callee, sizeof(callee), "%s", out->callee ? out->callee : caller);
	/* tgt_loc_mem_caller: tgt_loc_mem; tgt_cp.constprop.0: tgt_cp */
	end = strstr(callee, "_caller");
	if (!out->callee && end)
		*end = '\0';
	end = strchr(callee, '.');
	if (!out->callee && end)
		*end = '\0';
	c = callee_named(callee);
	if (h->spec_ip != h->func_ip || !h->same) {
		fprintf(stderr, "# spec of 0x%llx used at 0x%llx (%s, %s, %s)\n", h->spec_ip,
			h->func_ip, caller, h->copy ? "copy" : "cookie",
			h->same ? "same" : "not the map's");
		out->problems++;
	}
	if (out->raw_only) {
		out->raw[out->n] = *h;
		out->oracle_q[out->n] = NULL;
		out->line[out->n++] = NULL;
		return 0;
	}
	if (!c || h->nr_args != strlen(c->fmt)) {
		fprintf(stderr, "# hit at %s: %u arguments for %s\n", caller, h->nr_args, callee);
		out->problems++;
		return 0;
	}
	off = (unsigned long)(h->func_ip - start);
	len = snprintf(line, sizeof(line), "%s %s", callee, caller);
	qlen = snprintf(q, sizeof(q), " ");
	for (i = 0, n = h->nr_args; i < n && len < sizeof(line); i++) {
		const char *name = c->args[i];
		size_t room = sizeof(line) - len;

		if (unsupported_at(c->name, caller, off, name) && qlen < sizeof(q))
			qlen += snprintf(q + qlen, sizeof(q) - qlen, "%s ", name);
		if (h->ret[i] == -INKPROBE_ENODATA)
			len += snprintf(line + len, room, " %s=(optimized out)", name);
		else if (h->ret[i] == -INKPROBE_EFAULT)
			len += snprintf(line + len, room, " %s=(fault)", name);
		else if (h->ret[i] == -INKPROBE_EOPNOTSUPP)
			len += snprintf(line + len, room, " %s=?", name);
		else if (h->ret[i])
			len += snprintf(line + len, room, " %s=(error %d)", name, h->ret[i]);
		else if (c->fmt[i] == 'u')
			len += snprintf(line + len, room, " %s=%llu", name,
					(unsigned long long)h->v[i]);
		else if (c->fmt[i] == 'd')
			len += snprintf(line + len, room, " %s=%lld", name, h->v[i]);
		else
			len += snprintf(line + len, room, " %s=0x%llx", name,
					(unsigned long long)h->v[i]);
	}
	/* past the last argument: no such argument */
	for (; i < 8; i++) {
		if (h->ret[i] != -INKPROBE_ENOENT) {
			fprintf(stderr, "# hit at %s: argument %d gives %d\n", caller, i, h->ret[i]);
			out->problems++;
		}
	}
	out->raw[out->n] = *h;
	out->oracle_q[out->n] = strdup(q);
	out->line[out->n++] = strdup(line);
	return 0;
}

/*
 * @want ("callee caller name=value ...") with "?" for the value of each
 * argument named in @q (" NAME NAME "), in @out.
 */
static void with_unsupported(const char *want, const char *q, char *out, size_t size)
{
	char copy[512], *tok, *save = NULL, key[40];
	size_t len = 0;
	int n = 0;

	snprintf(copy, sizeof(copy), "%s", want);
	out[0] = '\0';
	for (tok = strtok_r(copy, " ", &save); tok && len < size;
	     tok = strtok_r(NULL, " ", &save), n++) {
		char *eq = strchr(tok, '=');

		if (eq) {
			*eq = '\0';
			snprintf(key, sizeof(key), " %s ", tok);
		}
		len += snprintf(out + len, size - len, "%s%s%s%s", n ? " " : "", tok,
				eq ? "=" : "", !eq ? "" : strstr(q, key) ? "?" : eq + 1);
	}
}

/*
 * The hits of @got that path @path took (0 the cookie path, 1 a copy, -1
 * any) against the target's expected lines @want, one to one, each with "?"
 * exactly for the arguments the oracle names at the hit's pc; matched
 * hits are marked in @used, *@unsupported counts those "?".  Returns the
 * problems.
 */
static int match_expected(struct hits *got, int path, char **want, int nw,
			  const char *skip_caller, bool *used, int *unsupported)
{
	int i, j, problems = 0;
	char *k;

	for (i = 0; i < nw; i++) {
		char name[64], caller[128];

		if (sscanf(want[i], "%63s %127s", name, caller) != 2)
			return problems + 1;
		if (skip_caller && !strcmp(caller, skip_caller))
			continue;
		for (j = 0; j < got->n; j++) {
			char w[512];

			if (used[j] || (path >= 0 && got->raw[j].copy != (unsigned int)path))
				continue;
			with_unsupported(want[i], got->oracle_q[j], w, sizeof(w));
			/* the caller may be a glob: tgt_cp.* */
			if (!strcmp(w, got->line[j]) || !fnmatch(w, got->line[j], 0))
				break;
		}
		if (j == got->n) {
			fprintf(stderr, "# no BPF hit%s for: %s\n",
				path < 0 ? "" : path ? " of a copy" : " of the cookie path", want[i]);
			problems++;
			continue;
		}
		for (k = got->oracle_q[j]; (k = strchr(k + 1, ' ')); )
			(*unsupported)++;
		used[j] = true;
	}
	return problems;
}

/*
 * Runs @scenario and collects its hits in @got: one per call the target
 * says it made (its expected lines) and path attached (@paths), for at
 * most 5 s, then until none comes for 100 ms.
 */
static int run_scenario(struct bpf_object *obj, const char *scenario, struct hits *got,
			int paths)
{
	char *want[64];
	struct ring_buffer *rb;
	int i, n;

	rb = ring_buffer__new(bpf_object__find_map_fd_by_name(obj, "hits"), on_hit, got, NULL);
	if (!rb || write_file(TGT_DIR "/trigger", scenario, false)) {
		ring_buffer__free(rb);
		return -1;
	}
	n = expected_lines(want, 64);
	free_lines(want, n);
	for (i = 0; i < 50 && got->n < paths * n; i++)
		ring_buffer__poll(rb, 100);
	while (ring_buffer__poll(rb, 100) > 0)	/* and nothing more */
		;
	ring_buffer__free(rb);
	return 0;
}

/*
 * Runs @scenario and matches the hits with the target's expected lines:
 * with @both, the hits of each path (each attached at every instance) one
 * to one, and the two paths' lines the same; else all hits together.
 * The hits stay in @got (free_hits()).  Returns the problems.
 */
static int check_hits(struct bpf_object *obj, const char *scenario, const char *callee,
		      const char *skip_caller, bool both, int *unsupported, struct hits *got)
{
	bool used[MAX_HITS] = { false };
	char *want[64];
	int nw, i, j, problems;

	memset(got, 0, sizeof(*got));
	got->callee = callee;
	if (run_scenario(obj, scenario, got, both ? 2 : 1))
		return 1;
	nw = expected_lines(want, 64);
	problems = got->problems + (nw <= 0);
	if (both)
		problems += match_expected(got, 0, want, nw, skip_caller, used, unsupported) +
			    match_expected(got, 1, want, nw, skip_caller, used, unsupported);
	else
		problems += match_expected(got, -1, want, nw, skip_caller, used, unsupported);
	for (j = 0; j < got->n; j++) {
		if (!used[j]) {
			fprintf(stderr, "# unexpected BPF hit (%s): %s\n",
				got->raw[j].copy ? "copy" : "cookie", got->line[j]);
			problems++;
		}
	}
	/* the two paths, line for line */
	for (i = 0; both && i < got->n; i++) {
		if (got->raw[i].copy)
			continue;
		for (j = 0; j < got->n; j++)
			if (got->raw[j].copy && used[j] && !strcmp(got->line[i], got->line[j]))
				break;
		if (j == got->n) {
			fprintf(stderr, "# the cookie path's line is no copy's: %s\n", got->line[i]);
			problems++;
		} else {
			used[j] = false;
		}
	}
	free_lines(want, nw);
	return problems;
}

static unsigned long long rand64(void)
{
	return ((unsigned long long)random() << 33) ^ ((unsigned long long)random() << 2) ^
	       (unsigned long long)random();
}

static struct inkprobe_site_link *attach(struct __test_metadata *_metadata,
					 FIXTURE_DATA(site) *self, const char *event, int want)
{
	char err[256] = "";
	struct inkprobe_site_link *l = inkprobe_site_attach(self->prog, self->specs, event,
							    err, sizeof(err));

	EXPECT_NE(NULL, l) TH_LOG("%s", err);
	EXPECT_EQ(want, inkprobe_site_count(l)) TH_LOG("%s", event);
	EXPECT_EQ(0, inkprobe_site_specialised(l)) TH_LOG("%s", event);
	return l;
}

/* A live instance of the sites file: its address and its arguments' text. */
struct site_line {
	unsigned long long ip;
	char args[512];
};

/* The live instances of @event, as inkprobe.ko writes them, into @out. */
static int live_sites(const char *event, struct site_line *out, int max)
{
	char *sites = read_file(INK_DIR "/sites", NULL), *line, *save = NULL;
	char name[64], state[16];
	int n = 0, at;

	for (line = strtok_r(sites, "\n", &save); line && n < max;
	     line = strtok_r(NULL, "\n", &save)) {
		/* GROUP/EVENT INDEX ADDRESS CALLER+0xOFF inlined|out-of-line live|off ARGS */
		if (sscanf(line, "%63s %*d %llx %*s %*s %15s %n", name, &out[n].ip, state, &at) != 3 ||
		    strcmp(name, event) || strcmp(state, "live"))
			continue;
		snprintf(out[n].args, sizeof(out[n].args), "%s", line + at);
		n++;
	}
	free(sites);
	return n;
}

/* How many distinct argument texts the first @n of @sl have. */
static int distinct_args(const struct site_line *sl, int n)
{
	int i, j, d = 0;

	for (i = 0; i < n; i++) {
		for (j = 0; j < i && strcmp(sl[j].args, sl[i].args); j++)
			;
		d += j == i;
	}
	return d;
}

/*
 * @event through a copy of the program for each distinct spec, at most
 * @max (0: the default): @want instances attached, and as many copies as
 * the sites file has distinct argument texts (up to @max), every
 * attached instance through one unless @max says none.
 */
static struct inkprobe_site_link *attach_copies(struct __test_metadata *_metadata,
						FIXTURE_DATA(site) *self, const char *event,
						int want, int max)
{
	struct inkprobe_site_opts o = { .sz = sizeof(o), .obj_path = self->path,
					.max_programs = max };
	struct inkprobe_site_link *l;
	struct site_line sl[16];
	char err[256] = "";
	int copies = distinct_args(sl, live_sites(event, sl, 16));

	if (!max)
		max = INKPROBE_SITE_MAX_PROGRAMS;
	l = inkprobe_site_attach_obj(self->obj, "site", event, &o, err, sizeof(err));
	EXPECT_NE(NULL, l) TH_LOG("%s", err);
	EXPECT_EQ(want, inkprobe_site_count(l)) TH_LOG("%s", event);
	EXPECT_EQ(max < 0 ? 0 : copies < max ? copies : max, inkprobe_site_programs(l))
		TH_LOG("%s", event);
	if (max < 0 || copies <= max)
		EXPECT_EQ(max < 0 ? 0 : want, inkprobe_site_specialised(l)) TH_LOG("%s", event);
	return l;
}

/*
 * tgt_mix()'s two inlined copies, tgt_part()'s two and its out-of-line
 * copy (@a7 on the stack there), tgt_fault()'s pointer to nowhere: the
 * program reads exactly what the calls passed, on both paths, and the
 * trace event, enabled in a trace instance for the same calls, reads the
 * same.  A value the DWARF computes (sid's GCC 16: tgt_part()'s in
 * tgt_part_caller_b) reads "?": a spec cannot express it.
 */
TEST_F_TIMEOUT(site, reads_every_instance, 300)
{
	static const struct {
		const char *event;
		int live;
	} defs[] = {
		{ "tgt/tgt_mix", 2 }, { "part/tgt_part", 2 }, { "flt/tgt_fault", 1 },
		{ "clone/tgt_cp", 1 }, { "clone/tgt_sra", 1 },
	};
	struct inkprobe_site_link *l[5], *c[5];
	struct hits got;
	char scen[96];
	int unsupported = 0, i;

	ASSERT_EQ(0, define_probe(MIX));
	ASSERT_EQ(0, define_probe(PART));
	ASSERT_EQ(0, define_probe(FAULT));
	ASSERT_EQ(0, define_probe("p:clone/tgt_cp tgt_cp x mode"));
	ASSERT_EQ(0, define_probe("p:clone/tgt_sra tgt_sra o x"));
	/* an r event's lines in sites (instance, exit, kind) are read too */
	ASSERT_EQ(0, define_probe("r:ret/tgt_dup tgt_dup $retval"));
	for (i = 0; i < 5; i++) {
		l[i] = attach(_metadata, self, defs[i].event, defs[i].live);
		c[i] = attach_copies(_metadata, self, defs[i].event, defs[i].live, 0);
	}
	/* the out-of-line copy is notrace: refused */
	EXPECT_EQ(1, inkprobe_site_skipped(l[1]));
	EXPECT_EQ(1, inkprobe_site_skipped(c[1]));
	ASSERT_EQ(0, write_inst("events/clone/enable", "1"));
	{
		/* for Documentation/trace-events.rst: the specs as the module gives them */
		char *sites = read_file(INK_DIR "/sites", NULL), *line, *save = NULL;

		for (line = strtok_r(sites, "\n", &save); line; line = strtok_r(NULL, "\n", &save))
			fprintf(stderr, "# sites: %s\n", line);
		free(sites);
	}
	ASSERT_EQ(0, write_inst("events/tgt/tgt_mix/enable", "1"));
	ASSERT_EQ(0, write_inst("events/part/tgt_part/enable", "1"));
	ASSERT_EQ(0, write_inst("events/flt/tgt_fault/enable", "1"));
	drain_events_from(PIPE);

	srandom(time(NULL) ^ getpid());
	snprintf(scen, sizeof(scen), "mix %llu %llu %u", rand64(), rand64(), (unsigned int)random());
	EXPECT_EQ(0, check_hits(self->obj, scen, "tgt_mix", NULL, true, &unsupported, &got))
		TH_LOG("%s", scen);
	free_hits(&got);
	EXPECT_EQ(0, check_expected_from(PIPE, "tgt", 2000)) TH_LOG("trace event: %s", scen);
	/* the refused out-of-line copy: its hits in the trace event only */
	EXPECT_EQ(0, check_hits(self->obj, "partial 4", "tgt_part", "tgt_part", true,
				&unsupported, &got));
	free_hits(&got);
	EXPECT_EQ(0, check_expected_from(PIPE, "part", 2000)) TH_LOG("trace event");
	snprintf(scen, sizeof(scen), "fault %llu", rand64() >> 1);
	EXPECT_EQ(0, check_hits(self->obj, scen, "tgt_fault", NULL, true, &unsupported, &got))
		TH_LOG("%s", scen);
	free_hits(&got);
	EXPECT_EQ(0, check_expected_from(PIPE, "flt", 2000)) TH_LOG("trace event: %s", scen);
	/* two out-of-line copies, clones of traced functions */
	snprintf(scen, sizeof(scen), "clones %llu", rand64() >> 4);
	EXPECT_EQ(0, check_hits(self->obj, scen, NULL, NULL, true, &unsupported, &got))
		TH_LOG("%s", scen);
	free_hits(&got);
	EXPECT_EQ(0, check_expected_from(PIPE, "clone", 2000)) TH_LOG("trace event: %s", scen);
	/* "?" exactly where the oracle says (each path counts): sid's tgt_part_caller_b */
	TH_LOG("%d arguments read \"?\", each where the DWARF has a value a spec cannot say",
	       unsupported);
	for (i = 0; i < 5; i++) {
		inkprobe_site_detach(l[i]);
		inkprobe_site_detach(c[i]);
	}
}

/*
 * One function per location class: register + offset, memory at a
 * register + offset, the stack, a global's address, optimized out read
 * exactly, on both paths; an arithmetic location (tgt_loc_unused's
 * @unused, when GCC leaves one) and pieces (tgt_loc_pair's @p) read as
 * "no value", never as a wrong one: "?" exactly where the oracle says,
 * and at least once (the pieces are what tgt_loc_pair is for).
 */
TEST_F_TIMEOUT(site, location_classes, 300)
{
	struct inkprobe_site_link *l[NR_LOC_CLASS_DEFS], *c[NR_LOC_CLASS_DEFS];
	char scen[96], event[64];
	struct hits got;
	int unsupported = 0, i;

	srandom(time(NULL) ^ getpid());
	for (i = 0; i < NR_LOC_CLASS_DEFS; i++) {
		ASSERT_EQ(0, define_probe(loc_class_defs[i]));
		sscanf(loc_class_defs[i], "p:%63s", event);
		l[i] = attach(_metadata, self, event, 1);
		c[i] = attach_copies(_metadata, self, event, 1, 0);
	}
	ASSERT_EQ(0, write_inst("events/loc/enable", "1"));
	drain_events_from(PIPE);
	snprintf(scen, sizeof(scen), "loc %llu %llu", rand64(), rand64());
	EXPECT_EQ(0, check_hits(self->obj, scen, NULL, NULL, true, &unsupported, &got))
		TH_LOG("%s", scen);
	free_hits(&got);
	EXPECT_EQ(0, check_expected_from(PIPE, "loc", 2000)) TH_LOG("trace event: %s", scen);
	TH_LOG("%d arguments read \"?\", each where the DWARF has a value a spec cannot say",
	       unsupported);
	EXPECT_LE(2, unsupported);
	for (i = 0; i < NR_LOC_CLASS_DEFS; i++) {
		inkprobe_site_detach(l[i]);
		inkprobe_site_detach(c[i]);
	}
}

/*
 * Past the limit of copies the cookie path takes the rest: with one copy
 * for tgt_mix()'s two instances, exactly those whose arguments read as
 * the first one's (in the sites file) run the copy, the others the
 * program itself; with none, all run the program.  The values stay
 * exact.  Instances with the same spec share one copy: a definition
 * without arguments has one spec for both.
 */
TEST_F_TIMEOUT(site, copies_past_the_limit, 300)
{
	struct inkprobe_site_link *l;
	struct site_line sl[16];
	struct hits got;
	char scen[96];
	int unsupported = 0, n, i, j, first = 0;

	srandom(time(NULL) ^ getpid());
	ASSERT_EQ(0, define_probe(MIX));
	n = live_sites("tgt/tgt_mix", sl, 16);
	ASSERT_EQ(2, n);
	for (i = 0; i < n; i++)
		first += !strcmp(sl[i].args, sl[0].args);
	l = attach_copies(_metadata, self, "tgt/tgt_mix", 2, 1);
	EXPECT_EQ(first, inkprobe_site_specialised(l));
	snprintf(scen, sizeof(scen), "mix %llu %llu %u", rand64(), rand64(), (unsigned int)random());
	EXPECT_EQ(0, check_hits(self->obj, scen, "tgt_mix", NULL, false, &unsupported, &got))
		TH_LOG("%s", scen);
	EXPECT_EQ(2, got.n);
	for (i = 0; i < got.n; i++) {
		for (j = 0; j < n && sl[j].ip != got.raw[i].func_ip; j++)
			;
		ASSERT_LT(j, n) TH_LOG("a hit at 0x%llx", got.raw[i].func_ip);
		EXPECT_EQ(!strcmp(sl[j].args, sl[0].args), got.raw[i].copy)
			TH_LOG("the hit at 0x%llx", got.raw[i].func_ip);
	}
	free_hits(&got);
	inkprobe_site_detach(l);

	l = attach_copies(_metadata, self, "tgt/tgt_mix", 2, -1);
	EXPECT_EQ(0, check_hits(self->obj, scen, "tgt_mix", NULL, false, &unsupported, &got))
		TH_LOG("%s", scen);
	EXPECT_EQ(2, got.n);
	for (i = 0; i < got.n; i++)
		EXPECT_EQ(0, got.raw[i].copy);
	free_hits(&got);
	inkprobe_site_detach(l);
	EXPECT_EQ(0, unsupported);

	/* one spec, no argument, for both instances: one copy */
	ASSERT_EQ(0, define_probe("p:tgt/tgt_mix0 tgt_mix"));
	l = attach_copies(_metadata, self, "tgt/tgt_mix0", 2, 0);
	EXPECT_EQ(1, inkprobe_site_programs(l));
	memset(&got, 0, sizeof(got));
	got.raw_only = true;
	ASSERT_EQ(0, run_scenario(self->obj, scen, &got, 1));
	EXPECT_EQ(0, got.problems);
	EXPECT_EQ(2, got.n);
	for (i = 0; i < got.n; i++) {
		EXPECT_EQ(1, got.raw[i].copy);
		EXPECT_EQ(0, got.raw[i].nr_args);
		EXPECT_EQ(-INKPROBE_ENOENT, got.raw[i].ret[0]);
	}
	EXPECT_NE(got.raw[0].func_ip, got.raw[1].func_ip);
	free_hits(&got);
	inkprobe_site_detach(l);
}

/* What attaching refuses, with a message that says why. */
TEST_F(site, attach_errors)
{
	struct inkprobe_site_opts o = { .sz = sizeof(o) };
	char err[256] = "", other[600];
	int before;

	EXPECT_EQ(NULL, inkprobe_site_attach(self->prog, self->specs, "tgt/nonesuch",
					     err, sizeof(err)));
	EXPECT_EQ(ENOENT, errno);
	EXPECT_NE(NULL, strstr(err, "no such inkprobe definition")) TH_LOG("%s", err);
	/* a map that is not a spec map */
	EXPECT_EQ(NULL, inkprobe_site_attach(self->prog,
					     bpf_object__find_map_by_name(self->obj, "hits"),
					     "tgt/tgt_mix", err, sizeof(err)));
	EXPECT_EQ(EINVAL, errno);

	ASSERT_EQ(0, define_probe(MIX));
	before = count_kprobes("tgt_caller_");	/* inkprobe's own */
	/* copies, but no ELF to open them from */
	EXPECT_EQ(NULL, inkprobe_site_attach_obj(self->obj, "site", "tgt/tgt_mix", &o,
						 err, sizeof(err)));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_NE(NULL, strstr(err, "no ELF")) TH_LOG("%s", err);
	/* a program the object does not have */
	o.obj_path = self->path;
	EXPECT_EQ(NULL, inkprobe_site_attach_obj(self->obj, "nonesuch", "tgt/tgt_mix", &o,
						 err, sizeof(err)));
	EXPECT_EQ(EINVAL, errno);
	/* an ELF that is not the object's: trace_event.bpf.o has no program "site" */
	snprintf(other, sizeof(other), "%.*strace_event.bpf.o",
		 (int)(strrchr(self->path, '/') + 1 - self->path), self->path);
	o.obj_path = other;
	EXPECT_EQ(NULL, inkprobe_site_attach_obj(self->obj, "site", "tgt/tgt_mix", &o,
						 err, sizeof(err)));
	EXPECT_EQ(ENOENT, errno);
	EXPECT_NE(NULL, strstr(err, "no program site")) TH_LOG("%s", err);
	/* nothing left attached */
	EXPECT_EQ(before, count_kprobes("tgt_caller_"));
}

/*
 * The programs need nothing of inkprobe.ko once attached: unloading it
 * (and its definitions with it) leaves both paths reading the same exact
 * values; detaching removes their kprobes (and the copies), and no hit
 * comes after.
 */
TEST_F_TIMEOUT(site, detach_and_rmmod_are_safe, 300)
{
	struct inkprobe_site_link *l, *c;
	struct hits got;
	char scen[96];
	int unsupported = 0, before;

	ASSERT_EQ(0, define_probe(MIX));
	before = count_kprobes("tgt_caller_");
	l = attach(_metadata, self, "tgt/tgt_mix", 2);
	c = attach_copies(_metadata, self, "tgt/tgt_mix", 2, 0);
	ASSERT_NE(NULL, l);
	ASSERT_NE(NULL, c);
	EXPECT_EQ(before + 4, count_kprobes("tgt_caller_"));
	ASSERT_EQ(0, reload_inkprobe(""));
	EXPECT_EQ(4, count_kprobes("tgt_caller_"));
	snprintf(scen, sizeof(scen), "mix %llu %llu %u", rand64(), rand64(), (unsigned int)random());
	EXPECT_EQ(0, check_hits(self->obj, scen, "tgt_mix", NULL, true, &unsupported, &got))
		TH_LOG("%s", scen);
	free_hits(&got);
	inkprobe_site_detach(l);
	inkprobe_site_detach(c);
	EXPECT_EQ(0, count_kprobes("tgt_caller_"));
	/* nothing more: the expected lines find no hit */
	EXPECT_EQ(2, check_hits(self->obj, "mix 1 2 3", "tgt_mix", NULL, false, &unsupported,
				&got));
	EXPECT_EQ(0, got.n);
	free_hits(&got);
	EXPECT_EQ(0, unsupported);
}

TEST_HARNESS_MAIN
