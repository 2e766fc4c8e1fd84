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
 * Cost: a wake-up is followed by TRACE_BATCH_MS before the buffers are read, so
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

#include "commands.h"
#include "trace_oneshot.h"
#include "trace_session.h"
#include "../common/util.h"
#include "../trace/report.h"

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


struct options {
	double timeout;
	unsigned long buffer_kb;
	char **blobs;
	size_t nr_blobs;
	const char *kmod;
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
	else if (t->input && (o->nr_spec || t->filter))
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
			trace_add_event(&t->want, optarg);
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
			t->filter = optarg;
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


/* --output: each read's pages, its end and its losses, to the file. */
static int run_record(struct trace *t, const struct options *o, const sigset_t *sigs)
{
	struct timespec batch = { .tv_nsec = TRACE_BATCH_MS * 1000000L };
	double deadline = o->timeout >= 0 ? trace_now_s() + o->timeout : -1, next_loss_check = 0;
	unsigned long long lost_total = 0;
	uint64_t *lost = xcalloc(t->max_cpus + 1, sizeof(*lost));
	uint64_t now;
	int k;

	while (!trace_stopped && ink_tf_maybe_flush(&t->w)) {
		now = trace_read_all(t, &next_loss_check);
		ink_tf_write_cycle(&t->w, now);
		if (!trace_wait_data(t, -1, deadline, sigs))
			break;
		if (!trace_stopped)
			nanosleep(&batch, NULL);
	}
	tracefs_trace_off(t->inst);
	for (k = 0; k < t->nr_cpus; k++)
		trace_read_cpu(t, &t->cpus[k]);
	trace_check_losses(t);
	trace_pass_losses(t);
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
	struct trace *t = xcalloc(1, sizeof(*t));
	struct options o = { .timeout = -1 };
	struct oneshot one = { 0 };
	char name[sizeof(one.group) + sizeof(one.event)];
	sigset_t sigs;
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
	/* the instance is removed on these too */
	trace_catch_signals("trace", &sigs);

	/* symbols and inline frames: formatting */
	if (!t->output && trace_symbols(t, o.blobs, o.nr_blobs)) {
		ret = 1;
		goto out;
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
		trace_add_event(&t->want, o.spec[0]);
	} else if (o.nr_spec) {
		/* a killed trace's instance first: its event goes next, in oneshot_define() */
		trace_remove_stale_instances();
		ret = oneshot_define(&one, o.kmod, o.blobs, o.nr_blobs);
		if (ret >= 0)
			goto out;
		snprintf(name, sizeof(name), "%s/%s", one.group, one.event);
		trace_add_event(&t->want, name);
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
	ret = trace_set_up(t, o.buffer_kb);
	if (ret >= 0)
		goto out;
	if (t->output)
		ret = write_meta(t) ? run_record(t, &o, &sigs) : 1;
	else
		ret = trace_run_live(t, o.timeout, &sigs);
out:
	trace_tear_down(t);
	/* after the instance: an event enabled in it cannot be removed */
	if (oneshot_undo(&one) && !ret)
		ret = 1;
	free(o.blobs);
	free(t);
	return ret;
}
