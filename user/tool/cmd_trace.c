// SPDX-License-Identifier: GPL-2.0
/*
 * inkprobe trace [-e GROUP[/EVENT]]... [--json] [--count N] [--timeout SEC]
 *                [--buffer-kb KB] [--blob FILE]...
 * inkprobe trace [-e GROUP[/EVENT]]... --output FILE [--timeout SEC] [--buffer-kb KB]
 * inkprobe trace --input FILE [--json] [--count N] [--blob FILE]...
 * inkprobe trace '[p|r] FUNC [ARGS...]' [--stack] [--filter EXPR] [--kmod FILE]
 *                [the options of the first form]
 *
 * The last defines the event first, and removes it (and what it loaded)
 * at the end: user/tool/trace_oneshot.c.
 *
 * Reads ftrace's ring as trace-cmd does (Documentation/trace-events.rst,
 * "inkprobe trace"): a tracefs instance of its own, inkprobe-PID-START,
 * whose per-CPU buffers it reads in binary (libtracefs' tracefs_cpu_*),
 * records rendered from their fields (user/trace/stream.c).
 *
 * The instance does not overwrite: when it is full, the ring drops the
 * newest events and counts them ("dropped events" in per_cpu/cpuN/stats),
 * so every hit is read or counted lost.  It is removed at the end, also on
 * SIGINT, SIGTERM, SIGHUP and a closed stdout; one left by a reader that was
 * killed (its process is gone, or another process has its PID) is removed
 * by the next.
 *
 * Task names come from the ring itself: task:task_newtask and
 * task:task_rename are enabled in the instance before the events, the names
 * of the tasks that exist then are read from /proc, and the records are
 * taken in time order, so each event gets the name its task had.
 *
 * Order: the records of each read are merged by time stamp across CPUs;
 * a record newer than the ring's clock at the start of the read ("now ts"
 * of per_cpu/cpu0/stats) waits for the next read, so that a record of
 * another CPU written meanwhile cannot come out after a newer one.
 *
 * --output records instead ("Recording and reporting later"): each page
 * read goes to the file as it is (user/trace/trace_file.c), with the end
 * of each read (the ring's clock it began with) and the losses found then,
 * so that --input (user/trace/report.c) takes the same records in the same
 * reads through the same stream, later.
 *
 * Cost: a wake-up is followed by BATCH_MS before the buffers are read, so
 * that a busy event is read in batches (at most 500 reads a second), and
 * the loss counters are read every LOSS_CHECK_S, and at the end.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <event-parse.h>
#include <tracefs.h>

#include "commands.h"
#include "debugfs.h"
#include "trace_oneshot.h"
#include "../common/util.h"
#include "../trace/comms.h"
#include "../trace/inline_frames.h"
#include "../trace/ksyms.h"
#include "../trace/record.h"
#include "../trace/report.h"
#include "../trace/stream.h"
#include "../trace/trace_file.h"

static const char trace_usage[] =
	"usage: inkprobe trace [-e GROUP[/EVENT]]... [--json] [--count N] [--timeout SEC]\n"
	"                      [--buffer-kb KB] [--blob FILE]...\n"
	"       inkprobe trace [-e GROUP[/EVENT]]... --output FILE [--timeout SEC]\n"
	"                      [--buffer-kb KB]\n"
	"       inkprobe trace --input FILE [--json] [--count N] [--blob FILE]...\n"
	"       inkprobe trace '[p|r] FUNC [FETCHARG...]' [--stack] [--filter EXPR]\n"
	"                      [--kmod FILE] [--blob FILE]... [--json] [--count N]\n"
	"                      [--timeout SEC] [--buffer-kb KB]\n"
	"\n"
	"Streams events to stdout, read from ftrace's ring through a tracefs instance of\n"
	"its own (instances/inkprobe-PID-START), until Ctrl-C.  Events are read from the\n"
	"moment they are enabled there; the instance is removed at the end.\n"
	"\n"
	"  -e, --event GRP[/EVENT]  trace these events (any tracefs event; repeatable);\n"
	"                     default: every inkprobe event defined now\n"
	"  -j, --json         one JSON object per event (JSON Lines)\n"
	"  -n, --count N      stop after N events\n"
	"  -t, --timeout SEC  stop after SEC seconds (decimals allowed); with --count,\n"
	"                     fewer than N events by then is an error (exit status 1)\n"
	"  -b, --buffer-kb KB the instance's buffer per CPU (default: the kernel's)\n"
	"  -B, --blob FILE    a blob whose inline frames stacks show (repeatable; also\n"
	"                     $INKPROBE_BLOBS: files and directories, ':' between them)\n"
	"  -o, --output FILE  record the ring's pages to FILE, unformatted (cheaper)\n"
	"  -i, --input FILE   print what FILE recorded, as the stream would have ('-':\n"
	"                     stdin); symbols and blobs are this machine's\n"
	"  -f, --filter EXPR  the events' ftrace filter in the instance (trace-events.rst)\n"
	"\n"
	"With a probe spec, as 'inkprobe add' takes it without its name (p:GRP/EVENT\n"
	"names it), loads what is missing: inkprobe.ko (modprobe, or --kmod FILE),\n"
	"the --blob files, the running kernel's blob by build ID (DEBUGINFOD_URLS);\n"
	"defines p:inkprobe_trace_PID/FUNC (r: for 'r FUNC'), streams it, and removes\n"
	"what it added at the end (--count, --timeout, Ctrl-C).\n"
	"  -s, --stack        a kernel stack with each event (stacktrace)\n"
	"  -k, --kmod FILE    inkprobe.ko to insert when it is not loaded\n";

#define INSTANCE_PREFIX	"inkprobe-"
#define HOLD_POLL_MS	10	/* a read again soon, when records wait for the clock */
#define BATCH_MS	2	/* after a wake-up, before reading */
#define LOSS_CHECK_S	0.1	/* the loss counters read at most this often */

static volatile sig_atomic_t stopped;

static void on_signal(int sig)
{
	stopped = 1;
}

/* ------------------------------------------------------------------ */
/* The instance                                                         */

/* A process's start time (clock ticks since boot), 0 if it is gone. */
static unsigned long long start_time(int pid)
{
	char path[64], buf[1024], *p;
	unsigned long long v = 0;
	ssize_t n;
	int fd, field;

	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return 0;
	buf[n] = '\0';
	p = strrchr(buf, ')');
	/* after "pid (comm)": state is field 3, starttime field 22 */
	for (field = 2; p && field < 22; field++)
		p = strchr(p + 1, ' ');
	if (p)
		v = strtoull(p + 1, NULL, 10);
	return v;
}

/* Removes the instances of readers that are gone; how many (a basic regex: no "+"). */
static int remove_stale_instances(void)
{
	char **names = tracefs_instances("^" INSTANCE_PREFIX "[0-9][0-9]*-[0-9][0-9]*$");
	int i, removed = 0;

	for (i = 0; names && names[i]; i++) {
		unsigned long long start;
		struct tracefs_instance *inst;
		int pid;

		if (sscanf(names[i], INSTANCE_PREFIX "%d-%llu", &pid, &start) != 2)
			continue;
		if (pid > 0 && start_time(pid) == start)
			continue;	/* its reader runs */
		inst = tracefs_instance_alloc(NULL, names[i]);
		if (inst && !tracefs_instance_destroy(inst))
			removed++;
		else
			warnx("trace: cannot remove instance %s left by a reader that is gone: %s",
			      names[i], strerror(errno));
		tracefs_instance_free(inst);
	}
	tracefs_list_free(names);
	return removed;
}

/* The clock selected in the top-level buffer ("[global] local ..."). */
static char *top_clock(void)
{
	char *clocks = tracefs_instance_file_read(NULL, "trace_clock", NULL), *b, *e;
	char *name = NULL;

	b = clocks ? strchr(clocks, '[') : NULL;
	e = b ? strchr(b, ']') : NULL;
	if (e)
		name = strndup(b + 1, e - b - 1);
	free(clocks);
	return name;
}

/* ------------------------------------------------------------------ */
/* Reading                                                              */

struct cpu {
	int cpu;
	struct tracefs_cpu *tcpu;
	int fd;
	int stats_fd;		/* per_cpu/cpuN/stats */
	unsigned long long dropped, overrun, pending_lost;
};

struct event_names {
	char **group, **event;	/* event NULL: the whole group */
	size_t nr;
};

struct trace {
	bool json, ns;
	unsigned long long count;
	const char *output, *input;
	struct tracefs_instance *inst;
	char *clock;
	struct tep_handle *tep;
	struct cpu *cpus;	/* the instance's buffers that opened */
	int nr_cpus, max_cpus;	/* max_cpus: CPU numbers are below it */
	void *page;
	struct ink_comms comms;	/* the names when it starts */
	struct ink_stream stream;	/* streaming */
	bool stream_ok;
	int out_fd;		/* --output */
	struct ink_tf_writer w;
	struct ksyms *ksyms;
	struct ink_frames *frames;
	struct ink_symbolizer symbolizer;
	struct event_names want;
};

static bool sym_lookup(void *ctx, uint64_t addr, struct ink_sym *out)
{
	struct trace *t = ctx;

	return ksyms_lookup(t->ksyms, addr, out);
}

static uint64_t sym_addr_of(void *ctx, const char *module, const char *name, int dup)
{
	struct trace *t = ctx;

	return ksyms_addr_of(t->ksyms, module, name, dup);
}

/*
 * Reads every page the CPU's buffer has now: into the stream's queues, or
 * to the file (--output) as they are.
 */
static int read_cpu(struct trace *t, struct cpu *c)
{
	int n, pages = 0;

	while ((n = tracefs_cpu_read(c->tcpu, t->page, true)) > 0) {
		pages++;
		if (t->output)
			ink_tf_write_page(&t->w, c->cpu, t->page, n);
		else
			ink_stream_page(&t->stream, c->cpu, t->page);
	}
	return n < 0 ? -1 : pages;
}


/* per_cpu/cpuN/stats: "KEY: VALUE" lines. */
static bool cpu_stat(const char *stats, const char *key, unsigned long long *v)
{
	const char *p = stats ? strstr(stats, key) : NULL;

	if (!p)
		return false;
	*v = strtoull(p + strlen(key), NULL, 10);
	return true;
}

/* The ring's clock now, from a CPU's stats ("now ts: SEC.USEC" or a count). */
static uint64_t ring_now(const char *stats, bool ns)
{
	const char *p = stats ? strstr(stats, "now ts:") : NULL;
	unsigned long long sec, usec = 0;
	char *end;

	if (!p)
		return UINT64_MAX;
	sec = strtoull(p + 7, &end, 10);
	if (*end == '.')
		usec = strtoull(end + 1, NULL, 10);
	return ns ? sec * 1000000000ULL + usec * 1000 : sec;
}

/* A CPU's stats, read again from the start (tracefs makes it at each read). */
static bool read_stats(const struct cpu *c, char *buf, size_t n)
{
	ssize_t len = c->stats_fd >= 0 ? pread(c->stats_fd, buf, n - 1, 0) : -1;

	buf[len > 0 ? len : 0] = '\0';
	return len > 0;
}

/* The ring's clock now (the first CPU's stats); UINT64_MAX if it cannot be read. */
static uint64_t ring_clock(struct trace *t)
{
	char buf[1024];

	return read_stats(&t->cpus[0], buf, sizeof(buf)) ? ring_now(buf, t->ns) : UINT64_MAX;
}


/*
 * Reads the CPUs' loss counters: what was lost since the last look is
 * pending until pass_losses().  A full ring drops the newest events: they
 * follow every record in it now.
 */
static void check_losses(struct trace *t)
{
	char buf[1024];
	int k;

	for (k = 0; k < t->nr_cpus; k++) {
		struct cpu *c = &t->cpus[k];
		unsigned long long dropped = 0, overrun = 0, commit = 0, lost;

		if (!read_stats(c, buf, sizeof(buf)))
			continue;
		cpu_stat(buf, "dropped events:", &dropped);
		cpu_stat(buf, "\noverrun:", &overrun);
		cpu_stat(buf, "commit overrun:", &commit);
		lost = dropped + overrun + commit - c->dropped - c->overrun;
		c->pending_lost += lost;
		c->dropped = dropped;
		c->overrun = overrun + commit;
	}
}

/* The pending losses, to the stream (said after the records of this read) or the file. */
static void pass_losses(struct trace *t)
{
	int k;

	for (k = 0; k < t->nr_cpus; k++) {
		struct cpu *c = &t->cpus[k];

		if (!c->pending_lost)
			continue;
		if (t->output)
			ink_tf_write_lost(&t->w, c->cpu, c->pending_lost);
		else
			ink_stream_lost(&t->stream, c->cpu, c->pending_lost);
		c->pending_lost = 0;
	}
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/*
 * Waits until a buffer has data, @hold_ms passed (-1: no limit), or
 * @deadline (<0: none); false at the deadline.
 */
static bool wait_data(struct trace *t, int hold_ms, double deadline, const sigset_t *sigs)
{
	struct pollfd pfd[256];
	struct timespec ts, *tsp = NULL;
	double left = -1;
	sigset_t orig;
	int k, n = 0, r;

	for (k = 0; k < t->nr_cpus && n < 256; k++)
		pfd[n++] = (struct pollfd){ .fd = t->cpus[k].fd, .events = POLLIN };
	if (deadline >= 0) {
		left = deadline - now_s();
		if (left <= 0)
			return false;
	}
	if (hold_ms >= 0 && (left < 0 || left > hold_ms / 1e3))
		left = hold_ms / 1e3;
	if (left >= 0) {
		ts.tv_sec = (time_t)left;
		ts.tv_nsec = (long)((left - ts.tv_sec) * 1e9);
		tsp = &ts;
	}
	/* a signal between the check and the wait would be missed without ppoll */
	sigprocmask(SIG_BLOCK, sigs, &orig);
	r = stopped ? 1 : ppoll(pfd, n, tsp, &orig);
	sigprocmask(SIG_SETMASK, &orig, NULL);
	return r != 0 || deadline < 0 || now_s() < deadline;
}

/* ------------------------------------------------------------------ */
/* Set-up                                                               */

static void add_event(struct event_names *w, const char *spec)
{
	const char *sep = strpbrk(spec, "/:");
	size_t n = sep ? (size_t)(sep - spec) : strlen(spec);

	w->group = xrealloc(w->group, (w->nr + 1) * sizeof(*w->group));
	w->event = xrealloc(w->event, (w->nr + 1) * sizeof(*w->event));
	w->group[w->nr] = strndup(spec, n);
	w->event[w->nr] = sep && sep[1] ? xstrdup(sep + 1) : NULL;
	w->nr++;
}

/* Every inkprobe event: the first word of each line of the stats file. */
static void inkprobe_events(struct event_names *w)
{
	char *stats = ctl_read("stats"), *line, *save = NULL;

	for (line = strtok_r(stats, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		line[strcspn(line, " ")] = '\0';
		if (strchr(line, '/'))
			add_event(w, line);
	}
	free(stats);
}

/* A single word GRP/EVENT naming a tracefs event that exists. */
static bool existing_event(const char *word)
{
	const char *slash = strchr(word, '/');
	char *group;
	bool ret;

	if (!slash || strpbrk(word, " \t:") || slash == word || !slash[1])
		return false;
	group = strndup(word, slash - word);
	ret = tracefs_event_file_exists(NULL, group, slash + 1, "format");
	free(group);
	return ret;
}

static void free_events(struct event_names *w)
{
	size_t i;

	for (i = 0; i < w->nr; i++) {
		free(w->group[i]);
		free(w->event[i]);
	}
	free(w->group);
	free(w->event);
}


/* task:task_newtask and task:task_rename: names from the ring (stream.c reads them). */
static void comm_events(struct trace *t)
{
	bool nt = tep_find_event_by_name(t->tep, "task", "task_newtask") &&
		  !tracefs_event_enable(t->inst, "task", "task_newtask");
	bool rn = tep_find_event_by_name(t->tep, "task", "task_rename") &&
		  !tracefs_event_enable(t->inst, "task", "task_rename");

	if (!nt || !rn)
		warnx("trace: no task:task_newtask or task:task_rename event: "
		      "task names come from /proc when the reader starts");
}

static void blob_warning(const char *path, const char *why)
{
	warnx("trace: %s: not used for inline frames: %s", path, why);
}

struct options {
	double timeout;
	unsigned long buffer_kb;
	char **blobs;
	size_t nr_blobs;
	const char *filter, *kmod;
	bool stack;
	char **spec;		/* a probe spec's words */
	int nr_spec;
};

/* What --output and --input do not take; an exit status, or -1. */
static int check_modes(const struct trace *t, const struct options *o)
{
	const char *bad = NULL;

	if (t->output && t->input)
		bad = "--output and --input";
	else if (t->output && t->json)
		bad = "--output and --json (--input formats)";
	else if (t->output && t->count)
		bad = "--output and --count (--output does not read the events: use --timeout, "
		      "or --count with --input)";
	else if (t->output && o->nr_blobs && !o->nr_spec)
		bad = "--output and --blob (--input reads the blobs)";
	else if (t->input && t->want.nr)
		bad = "--input and --event (the file has the events it recorded)";
	else if (t->input && o->timeout >= 0)
		bad = "--input and --timeout";
	else if (t->input && o->buffer_kb)
		bad = "--input and --buffer-kb";
	else if (t->input && (o->nr_spec || o->filter))
		bad = "--input and a probe spec or --filter";
	else if (o->nr_spec && t->want.nr)
		bad = "a probe spec and --event";
	else if (!o->nr_spec && (o->stack || o->kmod))
		bad = "--stack or --kmod without a probe spec ('FUNC ARGS...')";
	if (!bad)
		return -1;
	warnx("trace: %s go not together", bad);
	return 2;
}

static int parse_args(int argc, char **argv, struct trace *t, struct options *o)
{
	static const struct option opts[] = {
		{ "event", required_argument, NULL, 'e' },
		{ "json", no_argument, NULL, 'j' },
		{ "count", required_argument, NULL, 'n' },
		{ "timeout", required_argument, NULL, 't' },
		{ "buffer-kb", required_argument, NULL, 'b' },
		{ "blob", required_argument, NULL, 'B' },
		{ "output", required_argument, NULL, 'o' },
		{ "input", required_argument, NULL, 'i' },
		{ "filter", required_argument, NULL, 'f' },
		{ "stack", no_argument, NULL, 's' },
		{ "kmod", required_argument, NULL, 'k' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	char *end;
	int c;

	while ((c = getopt_long(argc, argv, "e:jn:t:b:B:o:i:f:sk:h", opts, NULL)) != -1) {
		switch (c) {
		case 'e':
			if (!*optarg || *optarg == '/' || *optarg == ':') {
				warnx("trace: --event wants GROUP or GROUP/EVENT, not '%s'", optarg);
				return 2;
			}
			add_event(&t->want, optarg);
			break;
		case 'j':
			t->json = true;
			break;
		case 'n':
			errno = 0;
			t->count = strtoull(optarg, &end, 10);
			if (errno || *end || !t->count || optarg[0] == '-') {
				warnx("trace: --count wants a number of events, not '%s'", optarg);
				return 2;
			}
			break;
		case 't':
			o->timeout = strtod(optarg, &end);
			if (*end || end == optarg || !isfinite(o->timeout) || o->timeout < 0) {
				warnx("trace: --timeout wants seconds, not '%s'", optarg);
				return 2;
			}
			break;
		case 'b':
			errno = 0;
			o->buffer_kb = strtoul(optarg, &end, 10);
			if (errno || *end || !o->buffer_kb || optarg[0] == '-') {
				warnx("trace: --buffer-kb wants kilobytes, not '%s'", optarg);
				return 2;
			}
			break;
		case 'B':
			o->blobs = xrealloc(o->blobs, (o->nr_blobs + 1) * sizeof(*o->blobs));
			o->blobs[o->nr_blobs++] = optarg;
			break;
		case 'o':
		case 'i':
			if (!*optarg) {
				warnx("trace: --%s wants a file", c == 'o' ? "output" : "input");
				return 2;
			}
			*(c == 'o' ? &t->output : &t->input) = optarg;
			break;
		case 'f':
			o->filter = optarg;
			break;
		case 's':
			o->stack = true;
			break;
		case 'k':
			o->kmod = optarg;
			break;
		case 'h':
			fputs(trace_usage, stdout);
			return 0;
		default:
			fputs(trace_usage, stderr);
			return 2;
		}
	}
	/* operands: a probe spec, in one word or several */
	o->spec = argv + optind;
	o->nr_spec = argc - optind;
	return check_modes(t, o);
}

/*
 * --filter: the filter file of the event (of each event of the group, if
 * @event is NULL) in the instance; 0, or -1 after a message with tracefs'
 * reason.
 */
static int set_filter(struct trace *t, const char *group, const char *event, const char *expr)
{
	char path[512], *why;

	snprintf(path, sizeof(path), "events/%s%s%s/filter", group, event ? "/" : "",
		 event ? event : "");
	if (tracefs_instance_file_write(t->inst, path, expr) >= 0)
		return 0;
	why = tracefs_error_last(t->inst);
	warnx("trace: --filter '%s' refused for %s%s%s: %s", expr, group, event ? "/" : "",
	      event ? event : "", why && *why ? why : strerror(errno));
	free(why);
	return -1;
}

/* The instance, its options, the event formats and the enabled events; exit status or -1. */
static int set_up(struct trace *t, const struct options *o)
{
	char name[64], num[64];
	const char **systems;
	size_t i;
	int k;

	if (!tracefs_tracing_dir()) {
		warnx("trace: tracefs is not mounted: mount -t tracefs nodev /sys/kernel/tracing");
		return 1;
	}
	if (!t->want.nr)
		inkprobe_events(&t->want);
	if (!t->want.nr) {
		warnx("trace: no inkprobe events: define one first (inkprobe add)");
		return 1;
	}
	remove_stale_instances();
	snprintf(name, sizeof(name), INSTANCE_PREFIX "%d-%llu", (int)getpid(),
		 start_time(getpid()));
	t->inst = tracefs_instance_create(name);
	if (!t->inst || !tracefs_instance_exists(name)) {
		warnx("trace: cannot create tracefs instance %s: %s", name, strerror(errno));
		tracefs_instance_free(t->inst);
		t->inst = NULL;
		return 1;
	}
	/* exact losses: the ring drops what does not fit and counts it */
	if (tracefs_option_disable(t->inst, TRACEFS_OPTION_OVERWRITE))
		warnx("trace: cannot turn off the instance's overwrite option");
	if (o->buffer_kb && tracefs_instance_set_buffer_size(t->inst, o->buffer_kb, -1)) {
		warnx("trace: cannot set the buffer to %lu KB per CPU: %s", o->buffer_kb,
		      strerror(errno));
		return 1;
	}
	/* wake the reader at the first event (the default waits for half a buffer) */
	tracefs_instance_file_write(t->inst, "buffer_percent", "0");
	/* the stamps of the top level's clock, so that lines merge with trace's */
	t->clock = top_clock();
	if (t->clock && tracefs_instance_file_write(t->inst, "trace_clock", t->clock) < 0)
		warnx("trace: cannot set the instance's clock to %s", t->clock);
	t->ns = ink_clock_in_ns(t->clock);

	systems = xcalloc(t->want.nr + 2, sizeof(*systems));
	systems[0] = "task";
	for (i = 0; i < t->want.nr; i++)
		systems[i + 1] = t->want.group[i];
	t->tep = tracefs_local_events_system(NULL, systems);
	free(systems);
	if (!t->tep) {
		warnx("trace: cannot read the event formats from tracefs");
		return 1;
	}
	t->max_cpus = sysconf(_SC_NPROCESSORS_CONF);
	if (!t->output) {
		if (!ink_stream_init(&t->stream, t->tep, t->max_cpus, STDOUT_FILENO)) {
			ink_stream_free(&t->stream);
			warnx("trace: libtraceevent has no ring-buffer reader for this kernel");
			return 1;
		}
		t->stream_ok = true;
	}
	comm_events(t);
	ink_comms_snapshot(&t->comms);
	for (i = 0; o->filter && i < t->want.nr; i++)
		if (set_filter(t, t->want.group[i], t->want.event[i], o->filter))
			return 1;
	for (i = 0; i < t->want.nr; i++) {
		if (tracefs_event_enable(t->inst, t->want.group[i], t->want.event[i])) {
			warnx("trace: cannot enable %s%s%s in instance %s: %s", t->want.group[i],
			      t->want.event[i] ? "/" : "", t->want.event[i] ? t->want.event[i] : "",
			      name, errno ? strerror(errno) : "no such event");
			return 1;
		}
	}
	t->nr_cpus = 0;
	t->cpus = xcalloc(t->max_cpus + 1, sizeof(*t->cpus));
	for (k = 0; k < t->max_cpus; k++) {
		struct tracefs_cpu *tcpu;
		int fd;

		snprintf(num, sizeof(num), "per_cpu/cpu%d/trace_pipe_raw", k);
		fd = tracefs_instance_file_open(t->inst, num, O_RDONLY | O_NONBLOCK);
		if (fd < 0)
			continue;
		/* one descriptor: read by tracefs_cpu_read(), polled here */
		tcpu = tracefs_cpu_alloc_fd(fd, tep_get_sub_buffer_size(t->tep), true);
		if (!tcpu) {
			close(fd);
			continue;
		}
		snprintf(num, sizeof(num), "per_cpu/cpu%d/stats", k);
		t->cpus[t->nr_cpus++] = (struct cpu){
			.cpu = k, .tcpu = tcpu, .fd = fd,
			.stats_fd = tracefs_instance_file_open(t->inst, num, O_RDONLY),
		};
	}
	if (!t->nr_cpus) {
		warnx("trace: cannot open the instance's per-CPU buffers: %s", strerror(errno));
		return 1;
	}
	t->page = xmalloc(tracefs_cpu_read_size(t->cpus[0].tcpu));
	return -1;
}

static bool host_big_endian(void)
{
	const uint16_t one = 1;

	return !*(const uint8_t *)&one;
}

/* --output: the file's header and metadata, from tracefs; false after a message. */
static bool write_meta(struct trace *t)
{
	struct tep_event **evs = tep_list_events(t->tep, TEP_EVENT_SORT_ID);
	int nr = tep_get_events_count(t->tep), size, k;
	struct ink_tf_meta m = {
		.page_size = tep_get_sub_buffer_size(t->tep),
		.long_size = tep_get_header_page_size(t->tep),
		.nr_cpus = t->max_cpus,
		.big_endian = host_big_endian(),
		.clock = t->clock ? t->clock : "local",
	};
	char *hp = tracefs_instance_file_read(NULL, "events/header_page", &size);
	char *he = NULL, **texts = xcalloc(nr + 1, sizeof(*texts));
	bool ok = hp && size > 0;
	size_t i;

	m.header_page = hp;
	m.header_page_len = ok ? size : 0;
	he = tracefs_instance_file_read(NULL, "events/header_event", &size);
	m.header_event = he;
	m.header_event_len = he && size > 0 ? size : 0;
	m.formats = xcalloc(nr + 1, sizeof(*m.formats));
	for (k = 0; evs && k < nr; k++) {
		texts[k] = tracefs_event_file_read(NULL, evs[k]->system, evs[k]->name, "format",
						   &size);
		if (!texts[k] || size <= 0)
			continue;
		m.formats[m.nr_formats++] = (struct ink_tf_format){
			.system = evs[k]->system, .text = texts[k], .len = size,
		};
	}
	m.comms = xcalloc(t->comms.len + 1, sizeof(*m.comms));
	for (i = 0; i < t->comms.cap; i++) {
		if (!t->comms.slots[i].pid)
			continue;
		m.comms[m.nr_comms].pid = t->comms.slots[i].pid;
		memcpy(m.comms[m.nr_comms++].comm, t->comms.slots[i].comm, INK_COMM_LEN);
	}
	if (!ok || !m.nr_formats || (m.long_size != 4 && m.long_size != 8))
		warnx("trace: cannot read events/header_page or the events' formats");
	else
		ink_tf_write_meta(&t->w, &m);
	for (k = 0; k < nr; k++)
		free(texts[k]);
	free(texts);
	free(m.formats);
	free(m.comms);
	free(hp);
	free(he);
	return ok && m.nr_formats && (m.long_size == 4 || m.long_size == 8);
}

static void tear_down(struct trace *t)
{
	int k;

	for (k = 0; t->cpus && k < t->nr_cpus; k++) {
		tracefs_cpu_close(t->cpus[k].tcpu);	/* closes fd too */
		if (t->cpus[k].stats_fd >= 0)
			close(t->cpus[k].stats_fd);
	}
	free(t->cpus);
	if (t->inst) {
		if (tracefs_instance_destroy(t->inst))
			warnx("trace: cannot remove instance %s: %s",
			      tracefs_instance_get_name(t->inst), strerror(errno));
		tracefs_instance_free(t->inst);
	}
	if (t->stream_ok)
		ink_stream_free(&t->stream);
	free(t->page);
	free(t->clock);
	tep_free(t->tep);
	ksyms_free(t->ksyms);
	ink_frames_free(t->frames);
	ink_comms_free(&t->comms);
	ink_tf_writer_free(&t->w);
	if (t->out_fd > 0)
		close(t->out_fd);
	free_events(&t->want);
}

/*
 * A read: the loss counters (at most every LOSS_CHECK_S: the stream says
 * them then), the ring's clock, every CPU's pages; the clock.
 */
static uint64_t read_all(struct trace *t, double *next_loss_check)
{
	uint64_t now;
	int k;

	if (now_s() >= *next_loss_check) {
		check_losses(t);
		*next_loss_check = now_s() + LOSS_CHECK_S;
	}
	now = ring_clock(t);
	for (k = 0; k < t->nr_cpus; k++)
		if (read_cpu(t, &t->cpus[k]) < 0 && errno != EAGAIN)
			warnx("trace: cpu%d: %s", t->cpus[k].cpu, strerror(errno));
	pass_losses(t);
	return now;
}

/* Streaming: the records of each read, in time order, to stdout. */
static int run_live(struct trace *t, const struct options *o, const sigset_t *sigs)
{
	struct ink_stream *s = &t->stream;
	struct timespec batch = { .tv_nsec = BATCH_MS * 1000000L };
	double deadline = o->timeout >= 0 ? now_s() + o->timeout : -1, next_loss_check = 0;
	unsigned long long lost_total = 0;
	bool timed_out = false;
	size_t waiting = 0;
	uint64_t now;
	int k, ret;

	s->json = t->json;
	s->ns = t->ns;
	s->count = t->count;
	s->ctx = (struct ink_rec_ctx){ .syms = t->ksyms ? &t->symbolizer : NULL,
				       .frames = t->frames };
	s->comms = t->comms;	/* the stream's from now on */
	t->comms = (struct ink_comms){ 0 };
	while (!stopped && !ink_stream_count_reached(s) && !s->out_failed) {
		now = read_all(t, &next_loss_check);
		waiting = ink_stream_cycle(s, now);
		if (s->out_failed || ink_stream_count_reached(s))
			break;
		if (!wait_data(t, waiting ? HOLD_POLL_MS : -1, deadline, sigs)) {
			timed_out = true;
			break;
		}
		/* a moment for more to come: a read per event would cost more than the event */
		if (!stopped)
			nanosleep(&batch, NULL);
	}
	/* the end: nothing more is written; what the buffers hold is read */
	tracefs_trace_off(t->inst);
	if (!s->out_failed && !ink_stream_count_reached(s))
		for (k = 0; k < t->nr_cpus; k++)
			read_cpu(t, &t->cpus[k]);
	check_losses(t);
	pass_losses(t);
	ink_stream_cycle(s, UINT64_MAX);
	for (k = 0; k < t->nr_cpus; k++)
		lost_total += t->cpus[k].dropped + t->cpus[k].overrun;
	if (lost_total)
		warnx("trace: %llu events lost, %llu read: the buffer was full "
		      "(a larger --buffer-kb keeps more)", lost_total, s->read);
	ret = s->out_failed && !s->out_closed ? 1 : 0;
	if (!ret && timed_out && t->count && s->seen < t->count) {
		warnx("trace: timed out after %g s with %llu of %llu events", o->timeout, s->seen,
		      t->count);
		ret = 1;
	}
	return ret;
}

/* --output: each read's pages, its end and its losses, to the file. */
static int run_record(struct trace *t, const struct options *o, const sigset_t *sigs)
{
	struct timespec batch = { .tv_nsec = BATCH_MS * 1000000L };
	double deadline = o->timeout >= 0 ? now_s() + o->timeout : -1, next_loss_check = 0;
	unsigned long long lost_total = 0;
	uint64_t *lost = xcalloc(t->max_cpus + 1, sizeof(*lost));
	uint64_t now;
	int k;

	while (!stopped && ink_tf_maybe_flush(&t->w)) {
		now = read_all(t, &next_loss_check);
		ink_tf_write_cycle(&t->w, now);
		if (!wait_data(t, -1, deadline, sigs))
			break;
		if (!stopped)
			nanosleep(&batch, NULL);
	}
	tracefs_trace_off(t->inst);
	for (k = 0; k < t->nr_cpus; k++)
		read_cpu(t, &t->cpus[k]);
	check_losses(t);
	pass_losses(t);
	ink_tf_write_cycle(&t->w, UINT64_MAX);
	for (k = 0; k < t->nr_cpus; k++) {
		lost[t->cpus[k].cpu] = t->cpus[k].dropped + t->cpus[k].overrun;
		lost_total += lost[t->cpus[k].cpu];
	}
	ink_tf_write_end(&t->w, lost, t->max_cpus);
	free(lost);
	if (!ink_tf_flush(&t->w) || fsync(t->out_fd) < 0) {
		warnx("trace: %s: %s", t->output, strerror(t->w.err ? t->w.err : errno));
		return 1;
	}
	if (lost_total)
		warnx("trace: %llu events lost: the buffer was full "
		      "(a larger --buffer-kb keeps more)", lost_total);
	return 0;
}

/* --input: the file's records, as the stream would have printed them. */
static int run_report(struct trace *t)
{
	struct ink_report_opts ro = {
		.json = t->json, .count = t->count, .out_fd = STDOUT_FILENO,
		.ctx = { .syms = t->ksyms ? &t->symbolizer : NULL, .frames = t->frames },
	};
	bool std_in = !strcmp(t->input, "-");
	FILE *f = std_in ? stdin : fopen(t->input, "re");
	int ret;

	if (!f) {
		warnx("trace: cannot open %s: %s", t->input, strerror(errno));
		return 1;
	}
	setvbuf(f, NULL, _IOFBF, 1 << 20);
	ret = ink_report(f, std_in ? "stdin" : t->input, &ro);
	if (!std_in)
		fclose(f);
	return ret;
}

int cmd_trace(int argc, char **argv)
{
	struct sigaction sa = { .sa_handler = on_signal }, ign = { .sa_handler = SIG_IGN };
	struct trace *t = xcalloc(1, sizeof(*t));
	struct options o = { .timeout = -1 };
	struct oneshot one = { 0 };
	char name[sizeof(one.group) + sizeof(one.event)];
	sigset_t sigs;
	size_t i;
	int ret;

	ink_tf_writer_init(&t->w, -1);
	ret = parse_args(argc, argv, t, &o);
	if (ret >= 0)
		goto out;
	/* a probe spec: its syntax before anything is touched */
	if (o.nr_spec && !(o.nr_spec == 1 && strchr(o.spec[0], '/') && !strpbrk(o.spec[0], " :"))) {
		ret = oneshot_parse(&one, o.spec, o.nr_spec, o.stack);
		if (ret >= 0)
			goto out;
	}
	if (!t->input && geteuid()) {
		warnx("trace: must be root (tracefs)");
		ret = 1;
		goto out;
	}
	sigemptyset(&sigs);
	sigaddset(&sigs, SIGINT);
	sigaddset(&sigs, SIGTERM);
	sigaddset(&sigs, SIGHUP);
	/* the instance is removed on these too */
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	sigaction(SIGPIPE, &ign, NULL);

	if (!t->output) {
		/* symbols and inline frames: formatting */
		t->ksyms = ksyms_load();
		t->symbolizer = (struct ink_symbolizer){ .lookup = sym_lookup, .ctx = t };
		t->frames = ink_frames_new();
		if (t->ksyms)
			ink_frames_set_addr_of(t->frames, sym_addr_of, t);
		for (i = 0; i < o.nr_blobs; i++) {
			char why[256];

			if (ink_frames_add(t->frames, o.blobs[i], NULL, true, why, sizeof(why))) {
				warnx("trace: %s", why);
				ret = 1;
				goto out;
			}
		}
		ink_frames_add_list(t->frames, getenv("INKPROBE_BLOBS"), blob_warning);
	}
	if (t->input) {
		ret = run_report(t);
		goto out;
	}
	if (o.nr_spec && !one.def) {
		/* GRP/EVENT: as -e, if tracefs has it */
		if (!existing_event(o.spec[0])) {
			warnx("trace: no event %s in tracefs (inkprobe list shows the events)",
			      o.spec[0]);
			ret = 1;
			goto out;
		}
		add_event(&t->want, o.spec[0]);
	} else if (o.nr_spec) {
		/* a killed trace's instance first: its event goes next, in oneshot_define() */
		remove_stale_instances();
		ret = oneshot_define(&one, o.kmod, o.blobs, o.nr_blobs);
		if (ret >= 0)
			goto out;
		snprintf(name, sizeof(name), "%s/%s", one.group, one.event);
		add_event(&t->want, name);
	}
	if (t->output) {
		/* only its owner reads it: the records hold kernel addresses */
		t->out_fd = open(t->output, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
		if (t->out_fd < 0) {
			warnx("trace: cannot write %s: %s", t->output, strerror(errno));
			ret = 1;
			goto out;
		}
		t->w.fd = t->out_fd;
	}
	ret = set_up(t, &o);
	if (ret >= 0)
		goto out;
	if (t->output)
		ret = write_meta(t) ? run_record(t, &o, &sigs) : 1;
	else
		ret = run_live(t, &o, &sigs);
out:
	tear_down(t);
	/* after the instance: an event enabled in it cannot be removed */
	if (oneshot_undo(&one) && !ret)
		ret = 1;
	free(o.blobs);
	free(t);
	return ret;
}
