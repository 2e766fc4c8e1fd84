// SPDX-License-Identifier: GPL-2.0
/*
 * inkprobe trace [--json] [--count N] [--timeout SEC]
 *
 * Streams trace_pipe to stdout.  Reading trace_pipe consumes events, so
 * nothing read is dropped: on SIGINT or SIGTERM, at the time limit or at
 * end of file, what was read is written out (a partial line too) and the
 * exit status is 0.  With --count, trace_pipe is read a byte at a time so
 * that no event beyond the Nth is consumed, except the start of one that
 * follows the Nth event at once: it has to be read to tell it from the Nth
 * event's stack lines.
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
#include "debugfs.h"
#include "event_parse.h"
#include "../common/util.h"

static const char trace_usage[] =
	"usage: inkprobe trace [--json] [--count N] [--timeout SEC]\n"
	"\n"
	"Streams events from trace_pipe to stdout, a line each, until Ctrl-C.\n"
	"Reading consumes them: another reader does not see them.\n"
	"\n"
	"  -j, --json         one JSON object per event (JSON Lines); stack lines\n"
	"                     (\" => frame\") go into its \"stack\" array\n"
	"  -n, --count N      stop after N events\n"
	"  -t, --timeout SEC  stop after SEC seconds (decimals allowed); with --count,\n"
	"                     fewer than N events by then is an error (exit status 1)\n";

#define STACK_PREFIX	" => "

static volatile sig_atomic_t stopped;

static void on_signal(int sig)
{
	stopped = 1;
}

struct trace {
	bool json;
	unsigned long long count;	/* 0: no limit */
	unsigned long long seen;	/* event lines taken */
	struct event_json ej;
	struct buf out;
	size_t have;			/* bytes in line[] */
	char line[65536];
};

static bool count_reached(const struct trace *t)
{
	return t->count && t->seen == t->count;
}

/* One line (NUL-terminated, no newline); false if it is an event beyond the count. */
static bool take_line(struct trace *t, const char *line)
{
	if (!event_is_stack_line(line)) {
		if (count_reached(t))
			return false;
		t->seen++;
	}
	if (t->json) {
		event_json_line(&t->ej, line, &t->out);
	} else {
		buf_add(&t->out, line, strlen(line));
		buf_add_u8(&t->out, '\n');
	}
	return true;
}

/* Takes the complete lines read; false once the count is reached and an event follows. */
static bool take_lines(struct trace *t)
{
	char *start = t->line, *nl;
	size_t rest;

	while ((nl = memchr(start, '\n', t->have - (start - t->line)))) {
		*nl = '\0';
		if (!take_line(t, start))
			return false;
		start = nl + 1;
	}
	rest = t->have - (start - t->line);
	memmove(t->line, start, rest);
	t->have = rest;
	if (count_reached(t) && rest &&
	    memcmp(t->line, STACK_PREFIX, rest < 4 ? rest : 4))
		return false;
	if (t->have == sizeof(t->line) - 1) {	/* longer than any line the module writes */
		t->line[t->have] = '\0';
		t->have = 0;
		return take_line(t, t->line);
	}
	return true;
}

/* Writes what is ready, and the held event when @finished; false if stdout fails. */
static bool write_out(struct trace *t, bool finished)
{
	if (finished)
		event_json_flush(&t->ej, &t->out);
	if (!t->out.len)
		return true;
	fwrite(t->out.data, 1, t->out.len, stdout);
	t->out.len = 0;
	if (fflush(stdout) || ferror(stdout)) {
		warnx("stdout: %s", strerror(errno));
		return false;
	}
	return true;
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Waits for @fd to be readable until @deadline (<0: none); false at the deadline. */
static bool wait_readable(int fd, double deadline, const sigset_t *sigs)
{
	struct pollfd pfd = { .fd = fd, .events = POLLIN };
	struct timespec ts, *tsp = NULL;
	sigset_t orig;
	double left;
	int r;

	if (deadline >= 0) {
		left = deadline - now();
		if (left <= 0)
			return false;
		ts.tv_sec = (time_t)left;
		ts.tv_nsec = (long)((left - ts.tv_sec) * 1e9);
		tsp = &ts;
	}
	/* a signal between the check and the wait would be missed without ppoll */
	sigprocmask(SIG_BLOCK, sigs, &orig);
	r = stopped ? -1 : ppoll(&pfd, 1, tsp, &orig);
	sigprocmask(SIG_SETMASK, &orig, NULL);
	return r != 0;
}

static int parse_args(int argc, char **argv, struct trace *t, double *timeout)
{
	static const struct option opts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "count", required_argument, NULL, 'n' },
		{ "timeout", required_argument, NULL, 't' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	char *end;
	int c;

	while ((c = getopt_long(argc, argv, "jn:t:h", opts, NULL)) != -1) {
		switch (c) {
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
			*timeout = strtod(optarg, &end);
			if (*end || end == optarg || !isfinite(*timeout) || *timeout < 0) {
				warnx("trace: --timeout wants seconds, not '%s'", optarg);
				return 2;
			}
			break;
		case 'h':
			fputs(trace_usage, stdout);
			return 0;
		default:
			fputs(trace_usage, stderr);
			return 2;
		}
	}
	if (optind != argc) {
		fputs(trace_usage, stderr);
		return 2;
	}
	return -1;
}

int cmd_trace(int argc, char **argv)
{
	struct sigaction sa = { .sa_handler = on_signal, .sa_flags = SA_RESTART };
	struct trace *t = xcalloc(1, sizeof(*t));
	double timeout = -1, deadline;
	bool timed_out = false, ok = true;
	sigset_t sigs;
	ssize_t n;
	int fd, ret;

	ret = parse_args(argc, argv, t, &timeout);
	if (ret >= 0)
		goto out;
	fd = ctl_open("trace_pipe", O_RDONLY | O_NONBLOCK);
	sigemptyset(&sigs);
	sigaddset(&sigs, SIGINT);
	sigaddset(&sigs, SIGTERM);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	deadline = timeout >= 0 ? now() + timeout : -1;

	while (!stopped) {
		n = read(fd, t->line + t->have, t->count ? 1 : sizeof(t->line) - 1 - t->have);
		if (n > 0) {
			t->have += n;
			if (!take_lines(t)) {
				t->have = 0;	/* the start of an event beyond the count */
				break;
			}
			if (!write_out(t, false)) {
				ok = false;
				break;
			}
			continue;
		}
		if (n == 0)	/* end of file: not trace_pipe, but a copy of its output */
			break;
		if (errno == EINTR)
			continue;
		if (errno != EAGAIN) {
			warnx("%s: %s", ctl_path("trace_pipe"), strerror(errno));
			ok = false;
			break;
		}
		/* nothing more for now: the last event has all its stack lines */
		if (!write_out(t, true)) {
			ok = false;
			break;
		}
		if (count_reached(t))
			break;
		if (!wait_readable(fd, deadline, &sigs)) {
			timed_out = true;
			break;
		}
	}
	close(fd);
	if (t->have && !count_reached(t)) {	/* a partial line, as it is */
		t->line[t->have] = '\0';
		take_line(t, t->line);
	}
	if (!write_out(t, true))
		ok = false;
	ret = ok ? 0 : 1;
	if (ok && timed_out && t->count && t->seen < t->count) {
		warnx("trace: timed out after %g s with %llu of %llu events", timeout, t->seen,
		      t->count);
		ret = 1;
	}
	event_json_free(&t->ej);
	buf_free(&t->out);
out:
	free(t);
	return ret;
}
