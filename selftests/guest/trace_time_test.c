// SPDX-License-Identifier: GPL-2.0
/*
 * Time, safety and accounting as ftrace has them (Documentation/trace-events.rst):
 *
 * - inkprobe's events are stamped by the trace_clock of the buffer they
 *   are in: a kprobe_events probe (top level) and an inkprobe instance
 *   (the tests' buffer, same clock) at one address, hit by the target
 *   module's loop, merge by time stamp into the order of the calls, with
 *   "local" and "global"; with "global", between two printk records
 *   written around the loop; with "counter", inkprobe's trace event and
 *   the kprobe_events event alternate in one buffer.
 * - An instance in a function ftrace cannot trace is refused and counted,
 *   as kprobe_events refuses it (the oracle).
 * - stats: exact per-consumer counts for N known calls and a filter that
 *   passes K; hits nested in another kprobe's handler are counted missed.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "guest_util.h"

#define TRACEFS		"/sys/kernel/tracing"
#define TOP_PIPE	TRACEFS "/trace_pipe"
#define INST		TRACEFS "/instances/inkprobe_time"
#define INST2		TRACEFS "/instances/inkprobe_time2"
#define KPROBE_EVENTS	TRACEFS "/kprobe_events"
#define BENCH		"p:tb/bm tgt_bench_mix reg"
#define NT		"p:nt/tgt_nt tgt_nt v k"
#define CALLS		20

static char saved_clock[32], saved_events_clock[32];

/* The selected clock of trace_clock file @path ("[name]"). */
static void current_clock(const char *path, char *name, size_t n)
{
	char *all = read_file(path, NULL), *b, *e;

	name[0] = '\0';
	if (!all)
		return;
	b = strchr(all, '[');
	e = b ? strchr(b, ']') : NULL;
	if (b && e)
		snprintf(name, n, "%.*s", (int)(e - b - 1), b + 1);
	free(all);
}

FIXTURE(tt) {
	int unused;
};

FIXTURE_SETUP(tt)
{
	ASSERT_EQ(0, setup_target());
	rmdir(INST);
	rmdir(INST2);
	write_file(KPROBE_EVENTS, "", false);
	ASSERT_EQ(0, clear_probes()) {
		TH_LOG("error_log: %s", last_error());
	}
	current_clock(TRACEFS "/trace_clock", saved_clock, sizeof(saved_clock));
	ASSERT_NE('\0', saved_clock[0]);
	current_clock(EVENTS_INST "/trace_clock", saved_events_clock, sizeof(saved_events_clock));
	ASSERT_NE('\0', saved_events_clock[0]);
	drain_events();
}

FIXTURE_TEARDOWN(tt)
{
	write_file(TRACEFS "/events/ftsem/enable", "0", false);
	write_file(TRACEFS "/events/tb/enable", "0", false);
	write_file(KPROBE_EVENTS, "", false);
	rmdir(INST);
	rmdir(INST2);
	clear_probes();
	write_file(TRACEFS "/trace_clock", saved_clock, false);
	write_file(EVENTS_INST "/trace_clock", saved_events_clock, false);
}

/*
 * The time stamp of a trace line, "...] [flags] SEC.USEC: ..." in
 * microseconds or "...] [flags] COUNT: ..." (a clock not in ns); -1 if none.
 */
static long long line_ts(const char *line)
{
	const char *p = strchr(line, ']');
	unsigned long long sec, usec;
	char tok[64];
	int used;

	while (p && sscanf(p + 1, " %63s%n", tok, &used) == 1) {
		size_t len = strlen(tok);

		p += 1 + used - 1;
		if (len < 2 || tok[len - 1] != ':')
			continue;
		if (sscanf(tok, "%llu.%6llu:", &sec, &usec) == 2 && strchr(tok, '.'))
			return (long long)(sec * 1000000 + usec);
		if (strspn(tok, "0123456789") == len - 1)
			return atoll(tok);
		return -1;
	}
	return -1;
}

/* "reg=N" of an inkprobe line, or -1. */
static long long line_reg(const char *line)
{
	const char *p = strstr(line, " reg=");

	return p ? atoll(p + 5) : -1;
}

/* The address inkprobe placed tb/bm's probe at, as "tgt_bench_caller+0xN". */
static int bench_site(char *site, size_t n)
{
	char *list = read_file(KPROBES_LIST, NULL), *p, *e;

	if (!list)
		return -1;
	p = strstr(list, "tgt_bench_caller+");
	e = p ? strchr(p, ' ') : NULL;
	if (e)
		snprintf(site, n, "%.*s", (int)(e - p), p);
	free(list);
	return e ? 0 : -1;
}

/* The stats line of GRP/EVENT (static buffer), "" if none. */
static const char *stats_of(const char *ev)
{
	static char line[1024];
	char *all = read_file(INK_DIR "/stats", NULL), *p, *e;
	char key[128];

	line[0] = '\0';
	snprintf(key, sizeof(key), "%s ", ev);
	p = all ? strstr(all, key) : NULL;
	e = p ? strchr(p, '\n') : NULL;
	if (e)
		snprintf(line, sizeof(line), "%.*s", (int)(e - p), p);
	free(all);
	return line;
}

/* The printk time stamp of a line written to /dev/kmsg now, in us; -1 on error. */
static long long printk_mark(const char *msg)
{
	char rec[512], line[256];
	unsigned long long us = 0;
	int rfd = open("/dev/kmsg", O_RDONLY | O_NONBLOCK);
	ssize_t n;

	/* a line without its newline is not a finished record: readers wait */
	snprintf(line, sizeof(line), "%s\n", msg);
	if (rfd < 0 || lseek(rfd, 0, SEEK_END) < 0 || write_file("/dev/kmsg", line, true))
		return -1;
	while ((n = read(rfd, rec, sizeof(rec) - 1)) > 0) {
		rec[n] = '\0';
		if (strstr(rec, msg) && sscanf(rec, "%*u,%*u,%llu", &us) == 1)
			break;
	}
	close(rfd);
	return us ? (long long)us : -1;
}

/*
 * One call of tgt_bench_caller() hits both probes in one kprobe pass:
 * with interrupts off, on one CPU, one after the other.  Each call's two
 * stamps therefore lie between the previous call's and the next call's:
 * merged by time, the events are in the order of the calls, each call's
 * pair together.  That is the bound asserted: |ink - kprobe| of a call is
 * at most the distance to its neighbours (microseconds as printed, so
 * equal stamps are allowed).
 */
static void merge_on_clock(struct __test_metadata *_metadata, const char *clock)
{
	char *ink[CALLS + 1], *kp[CALLS + 4], site[96], cmd[160];
	long long ik[CALLS], kk[CALLS], before, after;
	int n_ink, n_kp, i, k;
	cpu_set_t cpus;

	/* one CPU: printk's clock and the hits' are that CPU's local_clock() */
	CPU_ZERO(&cpus);
	CPU_SET(0, &cpus);
	ASSERT_EQ(0, sched_setaffinity(0, sizeof(cpus), &cpus));
	ASSERT_EQ(0, write_file(TRACEFS "/trace_clock", clock, false));
	ASSERT_EQ(0, write_file(EVENTS_INST "/trace_clock", clock, false));
	ASSERT_EQ(0, define_probe(BENCH));
	ASSERT_EQ(0, events_enable("tb/bm"));
	ASSERT_EQ(0, bench_site(site, sizeof(site)));
	snprintf(cmd, sizeof(cmd), "p:ftsem/kbm %s", site);
	ASSERT_EQ(0, write_file(KPROBE_EVENTS, cmd, false)) TH_LOG("%s", cmd);
	ASSERT_EQ(0, write_file(TRACEFS "/events/ftsem/kbm/enable", "1", false));
	drain_events_from(TOP_PIPE);
	drain_events();

	before = printk_mark("inkprobe trace_time_test: before");
	snprintf(cmd, sizeof(cmd), "bench %d", CALLS);
	ASSERT_EQ(0, write_file(TGT_DIR "/trigger", cmd, false));
	after = printk_mark("inkprobe trace_time_test: after");

	n_ink = read_events(ink, CALLS + 1, 1000);
	n_kp = read_events_from(TOP_PIPE, kp, CALLS + 4, 1000);
	ASSERT_EQ(CALLS, n_ink);
	for (i = 0, k = 0; i < n_kp; i++) {
		if (!strstr(kp[i], " kbm: (") || k == CALLS)
			continue;
		kk[k++] = line_ts(kp[i]);
	}
	ASSERT_EQ(CALLS, k);
	for (i = 0; i < CALLS; i++) {
		ik[i] = line_ts(ink[i]);
		ASSERT_EQ(i, line_reg(ink[i])) TH_LOG("%s", ink[i]);
		ASSERT_LE(0, ik[i]) TH_LOG("%s", ink[i]);
		ASSERT_LE(0, kk[i]);
	}
	for (i = 0; i < CALLS; i++) {
		long long hi = ik[i] < kk[i] ? kk[i] : ik[i];

		if (i + 1 < CALLS) {
			long long next = ik[i + 1] < kk[i + 1] ? ik[i + 1] : kk[i + 1];

			EXPECT_LE(hi, next) TH_LOG("%s call %d: inkprobe %lld us, kprobe_events %lld us, next call %lld us",
						   clock, i, ik[i], kk[i], next);
		}
	}
	/*
	 * printk's clock is "global"'s (local_clock() of this CPU; "global"
	 * keeps it from going back across CPUs, and only this CPU writes
	 * with it here); ftrace rounds to the nearest us, printk truncates.
	 */
	if (!strcmp(clock, "global")) {
		ASSERT_LT(0, before);
		ASSERT_LT(0, after);
		EXPECT_LE(before, ik[0] + 1) TH_LOG("printk %lld us, inkprobe %lld us", before, ik[0]);
		EXPECT_LE(before, kk[0] + 1);
		EXPECT_LE(ik[CALLS - 1], after + 1) TH_LOG("inkprobe %lld us, printk %lld us",
							  ik[CALLS - 1], after);
		EXPECT_LE(kk[CALLS - 1], after + 1);
	}
	free_lines(ink, n_ink);
	free_lines(kp, n_kp);
}

TEST_F(tt, events_merge_with_kprobe_events_on_local)
{
	merge_on_clock(_metadata, "local");
}

TEST_F(tt, events_merge_with_kprobe_events_on_global)
{
	merge_on_clock(_metadata, "global");
}

/*
 * "counter": each event of every buffer takes the next number, so the
 * stamps are exact: inkprobe's trace event and kprobe_events' event of
 * one call are neighbours, in one order for every call.
 */
TEST_F(tt, trace_event_alternates_with_kprobe_events_on_counter)
{
	char *lines[2 * CALLS + 4], site[96], cmd[160];
	int n, i, k = 0, first = -1;
	long long prev = -1;

	ASSERT_EQ(0, write_file(TRACEFS "/trace_clock", "counter", false));
	ASSERT_EQ(0, define_probe(BENCH));
	ASSERT_EQ(0, bench_site(site, sizeof(site)));
	snprintf(cmd, sizeof(cmd), "p:ftsem/kbm %s", site);
	ASSERT_EQ(0, write_file(KPROBE_EVENTS, cmd, false));
	ASSERT_EQ(0, write_file(TRACEFS "/events/ftsem/kbm/enable", "1", false));
	ASSERT_EQ(0, write_file(TRACEFS "/events/tb/bm/enable", "1", false));
	drain_events_from(TOP_PIPE);
	snprintf(cmd, sizeof(cmd), "bench %d", CALLS);
	ASSERT_EQ(0, write_file(TGT_DIR "/trigger", cmd, false));
	n = read_events_from(TOP_PIPE, lines, 2 * CALLS + 4, 1000);
	for (i = 0; i < n; i++) {
		int is_ink = !!strstr(lines[i], " tb:bm: (");
		long long ts = line_ts(lines[i]);

		if (!is_ink && !strstr(lines[i], " kbm: ("))
			continue;
		ASSERT_LT(prev, ts) TH_LOG("%s", lines[i]);
		prev = ts;
		if (first < 0)
			first = is_ink;
		/* pairs: first, other, first, other, ... */
		EXPECT_EQ(k % 2 == 0 ? first : !first, is_ink) TH_LOG("event %d: %s", k, lines[i]);
		if (is_ink)
			EXPECT_EQ(k / 2, line_reg(lines[i])) TH_LOG("%s", lines[i]);
		k++;
	}
	EXPECT_EQ(2 * CALLS, k);
	EXPECT_NE(NULL, strstr(stats_of("tb/bm"), " ftrace_hits=20 ftrace_written=20 "));
	free_lines(lines, n);
}

/*
 * tgt_nt() in tgt_nt_notraced(), which is notrace, and tgt_nt_traced().
 * kprobe_events refuses the first function: ftrace cannot trace it, and a
 * hit there could write into the trace buffers from the middle of a write
 * to them.  inkprobe refuses that instance likewise, says why, counts it,
 * and attaches to the other.
 */
TEST_F(tt, notrace_instance_refused_and_counted)
{
	char *lines[4], caller[64];
	unsigned long base, addr = 0;
	const char *args, *st;
	unsigned int off;
	int n;

	EXPECT_NE(0, write_file(KPROBE_EVENTS, "p:ftsem/knt tgt_nt_notraced", false));
	EXPECT_EQ(0, write_file(KPROBE_EVENTS, "p:ftsem/kt tgt_nt_traced", false));
	write_file(KPROBE_EVENTS, "", false);

	ASSERT_EQ(0, clear_errors());
	ASSERT_EQ(0, define_probe(NT));
	st = stats_of("nt/tgt_nt");
	EXPECT_NE(NULL, strstr(st, " probes=2 live=1 refused=1 notrace=1 ")) TH_LOG("%s", st);
	EXPECT_EQ(0, count_kprobes("tgt_nt_notraced"));
	EXPECT_EQ(1, count_kprobes("tgt_nt_traced"));
	/* error_log: the address, caller+offset, and why */
	base = kallsyms_addr("tgt_nt_notraced");
	ASSERT_NE(0UL, base);
	EXPECT_EQ(2, sscanf(last_error(), "kprobe at 0x%lx (tgt_nt_notraced+0x%x)", &addr, &off))
		TH_LOG("%s", last_error());
	EXPECT_EQ(base + off, addr);
	EXPECT_NE(NULL, strstr(last_error(), ") refused: tgt_nt_notraced is notrace: "))
		TH_LOG("%s", last_error());
	ASSERT_EQ(0, events_enable("nt"));
	ASSERT_EQ(0, write_file(TGT_DIR "/trigger", "notrace 7", false));

	n = read_events(lines, 4, 1000);
	ASSERT_EQ(1, n);
	ASSERT_TRUE(parse_event(lines[0], caller, sizeof(caller), &off, &args));
	EXPECT_STREQ("tgt_nt_traced", caller);
	EXPECT_STREQ("v=8 k=6", args);
	free_lines(lines, n);
	st = stats_of("nt/tgt_nt");
	EXPECT_NE(NULL, strstr(st, " hits=1 missed=0 ftrace_hits=1 ftrace_written=1 "
			       "ftrace_filtered=0 ftrace_lost=0 ")) TH_LOG("%s", st);

	/* all or nothing: strict, or the notrace instance alone */
	EXPECT_EQ(-EINVAL, probes_cmd("p:nt/s tgt_nt v strict", true));
	EXPECT_NE(NULL, strstr(last_error(), "strict: 1 of 2 instances refused: none attached"))
		TH_LOG("%s", last_error());
	EXPECT_EQ(-EINVAL, probes_cmd("p:nt/one tgt_nt@tgt_nt_notraced v", true));
	EXPECT_NE(NULL, strstr(last_error(), "no instance could be attached: 1 of 1 refused"))
		TH_LOG("%s", last_error());
	EXPECT_EQ(1, count_kprobes("tgt_nt_"));

	/*
	 * An out-of-line copy of an inline function: notrace by the kernel's
	 * "inline" (kprobe_events refuses tgt_part), kept on the trace event.
	 */
	EXPECT_NE(0, write_file(KPROBE_EVENTS, "p:ftsem/kpart tgt_part", false));
	ASSERT_EQ(0, define_probe("p:part/tgt_part tgt_part a1"));
	st = stats_of("part/tgt_part");
	EXPECT_NE(NULL, strstr(st, " probes=3 live=3 refused=0 notrace=0 ")) TH_LOG("%s", st);
}

static int perf_open_tracepoint(const char *group, const char *event)
{
	struct perf_event_attr attr = {
		.type = PERF_TYPE_TRACEPOINT,
		.size = sizeof(attr),
		.disabled = 1,
	};
	char path[256], *id;

	snprintf(path, sizeof(path), TRACEFS "/events/%s/%s/id", group, event);
	id = read_file(path, NULL);
	if (!id)
		return -1;
	attr.config = strtoull(id, NULL, 10);
	free(id);
	return syscall(SYS_perf_event_open, &attr, 0, -1, -1, 0);
}

/*
 * N calls, a filter that passes K of them in one buffer, no filter in a
 * second buffer, a perf counter: every consumer's count exact.
 */
TEST_F(tt, stats_count_every_consumer_exactly)
{
	char *lines[CALLS + 2], want[512];
	const int n_calls = 50, k_pass = 7;
	unsigned long long count = 0;
	const char *st;
	int n, i, fd;

	ASSERT_EQ(0, define_probe(BENCH));
	ASSERT_EQ(0, mkdir(INST, 0755));
	ASSERT_EQ(0, mkdir(INST2, 0755));
	ASSERT_EQ(0, write_file(INST "/events/tb/bm/filter", "reg < 7", false));
	ASSERT_EQ(0, write_file(INST "/events/tb/bm/enable", "1", false));
	ASSERT_EQ(0, write_file(INST2 "/events/tb/bm/enable", "1", false));
	fd = perf_open_tracepoint("tb", "bm");
	ASSERT_LE(0, fd) TH_LOG("perf_event_open: %s", strerror(errno));
	ASSERT_EQ(0, ioctl(fd, PERF_EVENT_IOC_ENABLE, 0));
	ASSERT_EQ(0, write_file(TGT_DIR "/trigger", "bench 50", false));
	ASSERT_EQ(0, ioctl(fd, PERF_EVENT_IOC_DISABLE, 0));
	ASSERT_EQ((ssize_t)sizeof(count), read(fd, &count, sizeof(count)));
	close(fd);
	EXPECT_EQ((unsigned long long)n_calls, count);

	n = read_events_from(INST "/trace_pipe", lines, CALLS + 2, 500);
	EXPECT_EQ(k_pass, n);
	for (i = 0; i < n; i++)
		EXPECT_EQ(i, line_reg(lines[i])) TH_LOG("%s", lines[i]);
	free_lines(lines, n);

	snprintf(want, sizeof(want),
		 " refused=0 notrace=0 hits=%d missed=0 ftrace_hits=%d ftrace_written=%d ftrace_filtered=%d ftrace_lost=0 perf_hits=%d perf_written=%d perf_lost=0",
		 n_calls, 2 * n_calls, n_calls + k_pass, n_calls - k_pass, n_calls, n_calls);
	st = stats_of("tb/bm");
	EXPECT_NE(NULL, strstr(st, want)) TH_LOG("%s\n# want: %s", st, want);
}

/*
 * tgt_nt_traced() called 5 times, then 3 times from the handler of the
 * target's own kprobe: kprobes do not run a handler inside another, and
 * count those 3 hits in the probe's nmissed: stats say missed=3.
 */
TEST_F(tt, nested_hits_are_counted_missed)
{
	char *lines[8];
	const char *st;
	int n, i;

	ASSERT_EQ(0, define_probe(NT));
	ASSERT_EQ(0, events_enable("nt/tgt_nt"));
	ASSERT_EQ(0, write_file(TGT_DIR "/trigger", "nested 5 3", false));
	n = read_events(lines, 8, 1000);
	EXPECT_EQ(5, n);
	for (i = 0; i < n; i++) {
		char want[64];

		snprintf(want, sizeof(want), "(tgt_nt_traced+0x");
		EXPECT_NE(NULL, strstr(lines[i], want)) TH_LOG("%s", lines[i]);
		snprintf(want, sizeof(want), " v=%d k=6", i);
		EXPECT_NE(NULL, strstr(lines[i], want)) TH_LOG("%s", lines[i]);
	}
	free_lines(lines, n);
	st = stats_of("nt/tgt_nt");
	EXPECT_NE(NULL, strstr(st, " refused=1 notrace=1 hits=5 missed=3 ftrace_hits=5 ftrace_written=5 ftrace_filtered=0 ftrace_lost=0 "))
		TH_LOG("%s", st);
}

TEST_HARNESS_MAIN
