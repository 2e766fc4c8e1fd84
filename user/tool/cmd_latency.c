// SPDX-License-Identifier: GPL-2.0
/*
 * inkprobe latency FUNC [--by caller] [--pid PID] [--duration S] [--min USECS]
 *
 * How long each call of FUNC takes, every copy of it, inlined or not, as
 * bcc's funclatency shows it for functions that have a symbol
 * (Documentation/exit-probes.rst, "Latency"): an r event with $duration,
 *
 *   r:inkprobe_latency/EVENT FUNC $duration [stacktrace]
 *
 * (EVENT: FUNC's name and this process's PID), defined through the
 * control file "probes" as `inkprobe add` does, read through the trace
 * reader's session (trace_session.c: a tracefs instance of its own, every
 * record read or counted lost), a log2 histogram at the end.  The event
 * is removed when the command ends: at --duration, on SIGINT, SIGTERM or
 * SIGHUP, and on every error after it was defined; an event left by a run
 * that was killed (its PID is gone) is removed by the next run.
 *
 * --pid: the instance's set_event_pid, with every thread of the process
 * when it starts.  ftrace checks it before a record is reserved, against
 * the task that is current: work done in interrupt context (a hardirq, the
 * softirqs run on its way out) counts for the task it interrupted, as
 * common_pid and bpf_get_current_pid_tgid() see it; softirq work deferred
 * to ksoftirqd counts for ksoftirqd, not PID.  A filter on common_pid
 * would count the same calls, but only after each record was written.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "commands.h"
#include "debugfs.h"
#include "log2_hist.h"
#include "trace_session.h"
#include "../common/util.h"

#define LAT_GROUP	"inkprobe_latency"
#define LAT_NAME_MAX	40	/* of FUNC's part of the event name */

static const char latency_usage[] =
	"usage: inkprobe latency FUNC [--by caller] [--pid PID] [--duration S]\n"
	"                        [--min USECS] [--blob FILE]...\n"
	"\n"
	"Times every call of FUNC, each copy of it, inlined or not, until --duration\n"
	"or Ctrl-C, then prints a histogram of the durations in microseconds (a row\n"
	"per power of two) with their count, average and total.  It defines the event\n"
	"'r:" LAT_GROUP "/EVENT FUNC $duration' for that time and removes it at the end.\n"
	"\n"
	"  FUNC               [MOD:]FUNC, or any r event TARGET (FUNC@CALLER...)\n"
	"  -c, --by caller    a histogram per call site, named by its caller\n"
	"  -p, --pid PID      only the calls of process PID (its threads when it starts;\n"
	"                     work in interrupt context counts for the task it interrupted)\n"
	"  -d, --duration S   stop after S seconds (decimals allowed)\n"
	"  -m, --min USECS    print each call slower than USECS microseconds as it\n"
	"                     comes, with its duration and kernel stack\n"
	"  -B, --blob FILE    a blob whose inline frames stacks show (repeatable; also\n"
	"                     $INKPROBE_BLOBS)\n"
	"\n"
	"Calls that began before the start are not timed; the end reports the event's\n"
	"missed, unpaired and untimed counters when they are not zero.\n";

struct site {
	char *name;		/* the caller (the symbol of the probe site) */
	uint32_t instance;
	struct log2_hist h;
};

struct latency {
	struct trace t;
	const char *target;
	char event[64];
	bool by_caller, min_set;
	uint64_t min_ns;
	double duration;
	int pid;
	char **blobs;
	size_t nr_blobs;
	/* what was read */
	const struct ink_rec_fmt *fmt;	/* the event's layout, when seen */
	int dur_idx, inst_idx;
	struct log2_hist all;
	struct site *sites;
	size_t nr_sites, cap_sites;
	unsigned long long bad;		/* records without a duration */
	struct buf line;
};

/* ------------------------------------------------------------------ */
/* Records                                                              */

static struct site *site_of(struct latency *l, const char *name, uint32_t instance)
{
	struct site *s;
	size_t i;

	for (i = 0; i < l->nr_sites; i++)
		if (l->sites[i].instance == instance && !strcmp(l->sites[i].name, name))
			return &l->sites[i];
	s = VEC_PUSH(l->sites, l->nr_sites, l->cap_sites);
	memset(s, 0, sizeof(*s));
	s->name = xstrdup(name);
	s->instance = instance;
	return s;
}

/* The caller of the probe site @ip: its symbol's name, or its address. */
static void caller_name(struct latency *l, uint64_t ip, char *name, size_t n)
{
	struct ink_sym sym = { .dup_index = -1 };

	if (l->t.ksyms && ksyms_lookup(l->t.ksyms, ip, &sym) && sym.name)
		snprintf(name, n, "%s", sym.name);
	else
		snprintf(name, n, "0x%llx", (unsigned long long)ip);
}

/* A call slower than --min: "COMM-PID [CPU] U.UUU usecs (caller+0xoff)" and its stack. */
static void print_slow(struct latency *l, const struct ink_stream_rec *r,
		       const struct ink_rec_fmt *f, const void *data, uint64_t ns)
{
	const struct ink_stream *s = &l->t.stream;
	int32_t pid = -1;
	const char *comm;
	struct ink_sym sym = { .dup_index = -1 };
	uint64_t ip = ink_rec_ip(f, data, r->size);
	char head[256];

	if (r->size >= f->pid_off + 4)
		memcpy(&pid, (const char *)data + f->pid_off, 4);
	comm = ink_comms_get(&s->comms, pid);
	l->line.len = 0;
	snprintf(head, sizeof(head), "%s-%d [%03d] %llu.%03llu usecs (", comm ? comm : "<...>",
		 (int)pid, r->cpu, (unsigned long long)(ns / 1000),
		 (unsigned long long)(ns % 1000));
	ink_put_str(&l->line, head);
	if (l->t.ksyms && ksyms_lookup(l->t.ksyms, ip, &sym) && sym.name) {
		ink_put_str(&l->line, sym.name);
		buf_add_u8(&l->line, '+');
		ink_put_hex(&l->line, ip - sym.start);
	} else {
		ink_put_hex(&l->line, ip);
	}
	buf_add_u8(&l->line, ')');
	ink_rec_stack_text(&l->line, &s->ctx, f, data, r->size);
	buf_add_u8(&l->line, '\n');
	fwrite(l->line.data, 1, l->line.len, stdout);
	fflush(stdout);
}

static void on_record(void *ctx, const struct ink_stream_rec *r, const struct ink_rec_fmt *f,
		      const void *data)
{
	struct latency *l = ctx;
	uint64_t ns, inst = 0;
	char name[256];

	if (strcmp(f->system, LAT_GROUP) || strcmp(f->name, l->event))
		return;
	if (f != l->fmt) {
		l->fmt = f;
		l->dur_idx = ink_rec_field_index(f, "duration");
		l->inst_idx = ink_rec_field_index(f, "__instance");
	}
	if (!ink_rec_u64(f, l->dur_idx, data, r->size, &ns)) {
		l->bad++;
		return;
	}
	log2_hist_add(&l->all, ns);
	if (l->by_caller) {
		ink_rec_u64(f, l->inst_idx, data, r->size, &inst);
		caller_name(l, ink_rec_ip(f, data, r->size), name, sizeof(name));
		log2_hist_add(&site_of(l, name, (uint32_t)inst)->h, ns);
	}
	if (l->min_set && ns > l->min_ns)
		print_slow(l, r, f, data, ns);
}

/* Counted by the session (t.lost) and said at the end: not in the middle of the output. */
static void on_lost(void *ctx, int cpu, unsigned long long lost)
{
}

/* ------------------------------------------------------------------ */
/* The event                                                            */

/* EVENT: FUNC's name (after MOD:, before @ or +), [A-Za-z0-9_] only, then _PID. */
static void event_name(const char *target, char *out, size_t n)
{
	const char *p = strchr(target, ':') ? strchr(target, ':') + 1 : target;
	size_t len = strcspn(p, "@+ "), i, k = 0;
	char base[LAT_NAME_MAX + 1];

	for (i = 0; i < len && k < LAT_NAME_MAX; i++) {
		char c = p[i];

		base[k++] = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
			    (c >= '0' && c <= '9') ? c : '_';
	}
	base[k] = '\0';
	snprintf(out, n, "%s_%d", k ? base : "func", (int)getpid());
}

/*
 * Events of this group whose run is gone (killed: it could not remove
 * them): "GRP/NAME_PID" with no process PID.  One still in use stays.
 */
static void remove_stale_events(void)
{
	char *stats = ctl_read("stats"), *line, *save = NULL, *us, *end;
	char cmd[128];
	long pid;
	int fd;

	for (line = strtok_r(stats, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		line[strcspn(line, " ")] = '\0';
		if (strncmp(line, LAT_GROUP "/", strlen(LAT_GROUP "/")))
			continue;
		us = strrchr(line, '_');
		if (!us)
			continue;
		pid = strtol(us + 1, &end, 10);
		if (*end || pid <= 0 || kill(pid, 0) == 0 || errno != ESRCH)
			continue;
		snprintf(cmd, sizeof(cmd), "-:%s", line);
		fd = open(ctl_path("probes"), O_WRONLY | O_APPEND | O_CLOEXEC);
		if (fd >= 0) {
			if (write(fd, cmd, strlen(cmd)) < 0 && errno != EBUSY)
				warnx("latency: cannot remove %s, left by a run that is gone: %s",
				      line, strerror(errno));
			close(fd);
		}
	}
	free(stats);
}

/*
 * Whether a blob that can name @target is loaded: any blob, or for
 * MOD:FUNC the blob of MOD (the blobs file: a line "TARGET build-id=...").
 * Else says which is missing.
 */
static bool blob_for_target(const char *target)
{
	char *blobs = ctl_read("blobs"), *line, *save = NULL;
	const char *colon = strchr(target, ':');
	size_t n = colon ? (size_t)(colon - target) : 0;
	bool found = false;

	for (line = strtok_r(blobs, "\n", &save); line && !found;
	     line = strtok_r(NULL, "\n", &save))
		found = !n || (!strncmp(line, target, n) && line[n] == ' ');
	free(blobs);
	if (!found && n)
		warnx("latency: no blob of %.*s is loaded: load it first (inkprobe load)", (int)n,
		      target);
	else if (!found)
		warnx("latency: no blob is loaded: load the blob of FUNC's kernel or module "
		      "first (inkprobe load)");
	return found;
}

static int define_event(struct latency *l)
{
	static const struct ctl_hint hints[] = {
		{ ENOENT, "'inkprobe list --blobs' shows the loaded blobs, 'inkprobe funcs BLOB' "
			  "the functions a blob has instances of" },
		{ EEXIST, "another run of this process has it: 'inkprobe del' it" },
		{ 0 },
	};
	char def[PATH_MAX + 128];

	snprintf(def, sizeof(def), "r:%s/%s %s $duration%s", LAT_GROUP, l->event, l->target,
		 l->min_set ? " stacktrace" : "");
	return ctl_command("probes", O_WRONLY | O_APPEND, def, strlen(def), "latency", hints);
}

static int remove_event(struct latency *l)
{
	static const struct ctl_hint hints[] = { { 0 } };
	char cmd[128], what[160];

	snprintf(cmd, sizeof(cmd), "-:%s/%s", LAT_GROUP, l->event);
	snprintf(what, sizeof(what), "latency: remove %s/%s", LAT_GROUP, l->event);
	return ctl_command("probes", O_WRONLY | O_APPEND, cmd, strlen(cmd), what, hints);
}

/* "KEY=N" of the event's stats line; 0 if it has none. */
static unsigned long long stat_of(const char *line, const char *key)
{
	char pat[64];
	const char *p;

	snprintf(pat, sizeof(pat), " %s=", key);
	p = line ? strstr(line, pat) : NULL;
	return p ? strtoull(p + strlen(pat), NULL, 10) : 0;
}

/* The event's counters that tell of calls not in the histogram, when not zero. */
static void report_stats(struct latency *l, struct buf *out)
{
	static const struct {
		const char *key, *why;
	} keys[] = {
		{ "missed", "hits kprobes missed (a probe hit inside another's handler, or "
			    "no kretprobe instance free)" },
		{ "unpaired", "exits whose entry was not seen (the call began before the start), "
			      "not timed" },
		{ "untimed", "entries that found the event's table of calls full "
			     "(module parameter timed_calls)" },
	};
	char *stats = ctl_read("stats"), *line, *save = NULL, name[128], text[256];
	char *mine = NULL;
	unsigned long long v;
	size_t i;

	snprintf(name, sizeof(name), "%s/%s ", LAT_GROUP, l->event);
	for (line = strtok_r(stats, "\n", &save); line; line = strtok_r(NULL, "\n", &save))
		if (!strncmp(line, name, strlen(name)))
			mine = line;
	for (i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
		v = stat_of(mine, keys[i].key);
		if (!v)
			continue;
		snprintf(text, sizeof(text), "%s: %llu: %s\n", keys[i].key, v, keys[i].why);
		ink_put_str(out, text);
	}
	free(stats);
}

/* ------------------------------------------------------------------ */
/* Output                                                               */

static int cmp_site(const void *a, const void *b)
{
	const struct site *x = a, *y = b;
	int c = strcmp(x->name, y->name);

	return c ? c : (x->instance > y->instance) - (x->instance < y->instance);
}

static void print_result(struct latency *l, struct buf *out)
{
	char head[320];
	size_t i;

	if (l->by_caller) {
		qsort(l->sites, l->nr_sites, sizeof(*l->sites), cmp_site);
		for (i = 0; i < l->nr_sites; i++) {
			snprintf(head, sizeof(head), "%scaller = %s instance=%u\n", i ? "\n" : "",
				 l->sites[i].name, l->sites[i].instance);
			ink_put_str(out, head);
			log2_hist_print(out, &l->sites[i].h);
		}
		if (l->nr_sites)
			ink_put_str(out, "\nall callers\n");
	}
	log2_hist_print(out, &l->all);
}

/* ------------------------------------------------------------------ */
/* Options                                                              */

/* "TID TID ..." of process @pid's threads (malloc'd); NULL if it has none. */
static char *thread_ids(int pid)
{
	char path[64];
	struct buf b = { 0 };
	struct dirent *d;
	DIR *dir;

	snprintf(path, sizeof(path), "/proc/%d/task", pid);
	dir = opendir(path);
	if (!dir)
		return NULL;
	while ((d = readdir(dir))) {
		if (d->d_name[0] < '0' || d->d_name[0] > '9')
			continue;
		if (b.len)
			buf_add_u8(&b, ' ');
		ink_put_str(&b, d->d_name);
	}
	closedir(dir);
	if (!b.len) {
		buf_free(&b);
		return NULL;
	}
	buf_add_u8(&b, '\0');
	return (char *)b.data;
}

static int parse_args(int argc, char **argv, struct latency *l)
{
	static const struct option opts[] = {
		{ "by", required_argument, NULL, 'y' },
		{ "pid", required_argument, NULL, 'p' },
		{ "duration", required_argument, NULL, 'd' },
		{ "min", required_argument, NULL, 'm' },
		{ "blob", required_argument, NULL, 'B' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	unsigned long long v;
	char *end;
	long pid;
	int c;

	while ((c = getopt_long(argc, argv, "cp:d:m:B:h", opts, NULL)) != -1) {
		switch (c) {
		case 'y':
			if (strcmp(optarg, "caller")) {
				warnx("latency: --by takes 'caller', not '%s'", optarg);
				return 2;
			}
			l->by_caller = true;
			break;
		case 'c':	/* -c: --by caller */
			l->by_caller = true;
			break;
		case 'p':
			errno = 0;
			pid = strtol(optarg, &end, 10);
			if (errno || *end || pid <= 0 || pid > INT_MAX) {
				warnx("latency: --pid wants a process ID, not '%s'", optarg);
				return 2;
			}
			l->pid = (int)pid;
			break;
		case 'd':
			l->duration = strtod(optarg, &end);
			if (*end || end == optarg || !isfinite(l->duration) || l->duration <= 0) {
				warnx("latency: --duration wants seconds, not '%s'", optarg);
				return 2;
			}
			break;
		case 'm':
			errno = 0;
			v = strtoull(optarg, &end, 10);
			if (errno || *end || end == optarg || optarg[0] == '-' ||
			    v > UINT64_MAX / 1000) {
				warnx("latency: --min wants microseconds, not '%s'", optarg);
				return 2;
			}
			l->min_set = true;
			l->min_ns = v * 1000;
			break;
		case 'B':
			l->blobs = xrealloc(l->blobs, (l->nr_blobs + 1) * sizeof(*l->blobs));
			l->blobs[l->nr_blobs++] = optarg;
			break;
		case 'h':
			fputs(latency_usage, stdout);
			return 0;
		default:
			fputs(latency_usage, stderr);
			return 2;
		}
	}
	if (argc - optind != 1 || !argv[optind][strspn(argv[optind], " \t")]) {
		fputs(latency_usage, stderr);
		return 2;
	}
	l->target = argv[optind];
	if (strpbrk(l->target, " \t\n")) {
		warnx("latency: FUNC is one word, not '%s'", l->target);
		return 2;
	}
	return -1;
}

/* ------------------------------------------------------------------ */

/* Defines, reads, removes; the exit status.  The event is removed on every path. */
static int run(struct latency *l)
{
	struct trace *t = &l->t;
	struct buf out = { 0 };
	char *pids = NULL, spec[128];
	sigset_t sigs;
	int ret, del;

	if (l->pid) {
		pids = thread_ids(l->pid);
		if (!pids) {
			warnx("latency: no process %d", l->pid);
			return 1;
		}
		t->event_pids = pids;
	}
	/* before the event exists: a signal from now on ends the run, which removes it */
	trace_catch_signals("latency", &sigs);
	remove_stale_events();
	if (!blob_for_target(l->target)) {
		free(pids);
		return 1;
	}
	event_name(l->target, l->event, sizeof(l->event));
	ret = define_event(l);
	if (ret) {
		free(pids);
		return ret;
	}
	if (trace_symbols(t, l->blobs, l->nr_blobs)) {
		ret = 1;
		goto out;
	}
	snprintf(spec, sizeof(spec), "%s/%s", LAT_GROUP, l->event);
	trace_add_event(&t->want, spec);
	ret = trace_set_up(t, 0);
	if (ret >= 0)
		goto out;
	t->stream.on_record = on_record;
	t->stream.on_lost = on_lost;
	t->stream.cb_ctx = l;
	fprintf(stderr, "Tracing %s (event %s)... Hit Ctrl-C to end.\n", l->target, spec);
	ret = trace_run_live(t, l->duration > 0 ? l->duration : -1, &sigs);
	if (t->lost)
		warnx("latency: %llu calls not in the histogram: the buffer was full", t->lost);
	if (l->bad)
		warnx("latency: %llu records without a duration", l->bad);
out:
	/* the instance first: an event in use cannot be removed */
	trace_tear_down(t);
	memset(t, 0, sizeof(*t));
	if (ret <= 0) {
		print_result(l, &out);
		report_stats(l, &out);
	}
	del = remove_event(l);
	if (out.len && fwrite(out.data, 1, out.len, stdout) != out.len)
		ret = 1;
	buf_free(&out);
	free(pids);
	if (fflush(stdout)) {
		warnx("stdout: %s", strerror(errno));
		ret = 1;
	}
	return ret > 0 ? ret : del;
}

int cmd_latency(int argc, char **argv)
{
	struct latency *l = xcalloc(1, sizeof(*l));
	size_t i;
	int ret = parse_args(argc, argv, l);

	if (ret < 0 && geteuid()) {
		warnx("latency: must be root (inkprobe.ko's control files, tracefs)");
		ret = 1;
	}
	if (ret < 0)
		ret = run(l);
	for (i = 0; i < l->nr_sites; i++)
		free(l->sites[i].name);
	free(l->sites);
	free(l->blobs);
	buf_free(&l->line);
	free(l);
	return ret;
}
