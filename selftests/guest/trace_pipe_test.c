// SPDX-License-Identifier: GPL-2.0
/*
 * The one path's trace_pipe as a file (a tracefs instance's, where the
 * trace events are enabled): byte-sized reads keep lines whole, poll() and
 * a blocking read wake when an event arrives, O_NONBLOCK says EAGAIN;
 * records of different sizes (strings, stacks) go round a small buffer
 * intact.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "guest_util.h"

FIXTURE(pipe) {
	int fd;
};

FIXTURE_SETUP(pipe)
{
	ASSERT_EQ(0, setup_target());
	ASSERT_EQ(0, probes_cmd("p:pipe/mix tgt_mix reg konst", false));
	ASSERT_EQ(0, events_enable("pipe"));
	drain_events();
	self->fd = -1;
}

FIXTURE_TEARDOWN(pipe)
{
	if (self->fd >= 0)
		close(self->fd);
	clear_probes();
}

/* Triggers the target from a child after @ms milliseconds. */
static pid_t trigger_later(int ms)
{
	pid_t pid = fork();

	if (!pid) {
		usleep(ms * 1000);
		_exit(trigger_target(3, 4, 5) ? 1 : 0);
	}
	return pid;
}

TEST_F(pipe, byte_reads_keep_lines_whole)
{
	char line[2][512];
	int n = 0, len = 0;
	char c;

	ASSERT_EQ(0, trigger_target(3, 4, 5));
	self->fd = open(EVENTS_INST "/trace_pipe", O_RDONLY);
	ASSERT_LE(0, self->fd);
	while (n < 2 && read(self->fd, &c, 1) == 1) {
		if (c == '\n') {
			line[n++][len] = '\0';
			len = 0;
		} else if (len < 511) {
			line[n][len++] = c;
		}
	}
	ASSERT_EQ(2, n);
	EXPECT_NE(NULL, strstr(line[0], "(tgt_caller_a+0x"));
	EXPECT_NE(NULL, strstr(line[0], ") reg=3 konst=7"));
	EXPECT_NE(NULL, strstr(line[1], "(tgt_caller_b+0x"));
	EXPECT_NE(NULL, strstr(line[1], ") reg=23134 konst=-11"));
}

TEST_F(pipe, nonblocking_read_says_eagain)
{
	char buf[64];

	self->fd = open(EVENTS_INST "/trace_pipe", O_RDONLY | O_NONBLOCK);
	ASSERT_LE(0, self->fd);
	EXPECT_EQ(-1, read(self->fd, buf, sizeof(buf)));
	EXPECT_EQ(EAGAIN, errno);
}

TEST_F(pipe, poll_wakes_on_an_event)
{
	struct pollfd p;
	pid_t child;
	int status;

	self->fd = open(EVENTS_INST "/trace_pipe", O_RDONLY | O_NONBLOCK);
	ASSERT_LE(0, self->fd);
	p.fd = self->fd;
	p.events = POLLIN;
	EXPECT_EQ(0, poll(&p, 1, 100));		/* nothing yet */
	child = trigger_later(300);
	EXPECT_EQ(1, poll(&p, 1, 5000));
	EXPECT_TRUE(p.revents & POLLIN);
	waitpid(child, &status, 0);
	EXPECT_EQ(0, status);
}

TEST_F(pipe, blocking_read_waits_for_an_event)
{
	struct timespec t0, t1;
	char buf[4096];
	pid_t child;
	ssize_t n;
	double ms;
	int status;

	self->fd = open(EVENTS_INST "/trace_pipe", O_RDONLY);
	ASSERT_LE(0, self->fd);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	child = trigger_later(300);
	n = read(self->fd, buf, sizeof(buf) - 1);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	ASSERT_LT(0, n);
	buf[n] = '\0';
	ms = (t1.tv_sec - t0.tv_sec) * 1e3 + (t1.tv_nsec - t0.tv_nsec) / 1e6;
	EXPECT_LE(250.0, ms) TH_LOG("read returned after %.0f ms", ms);
	EXPECT_NE(NULL, strstr(buf, "pipe:mix: (tgt_caller_"));
	waitpid(child, &status, 0);
}

/*
 * An 8 KB buffer per CPU (two pages), and two events of different sizes on
 * each "mix" call: a small one (one argument) and a large one (a string
 * and a stack).  300 rounds go round the buffer many times, records
 * ending anywhere in a page; every event must come out whole, with its
 * values.
 */
TEST(records_of_every_size_wrap_intact)
{
	char *lines[64], caller[64], want[96], *stats;
	unsigned int off, kb;
	const char *args;
	int r, i, n, small, big, frames;

	ASSERT_EQ(0, setup_target());
	kb = events_buffer_kb();
	ASSERT_LT(0u, kb);
	ASSERT_EQ(0, events_instance(8));
	ASSERT_EQ(0, probes_cmd("p:wrap/small tgt_mix@tgt_caller_a reg", false));
	ASSERT_EQ(0, probes_cmd("p:wrap/big tgt_mix@tgt_caller_b reg who=$comm stacktrace", true));
	ASSERT_EQ(0, events_enable("wrap"));
	drain_events();
	for (r = 0; r < 300; r++) {
		unsigned long long a = 1000003ULL * r + 1, b = 7919ULL * r + 2;

		ASSERT_EQ(0, trigger_target(a, b, r));
		/* the events are in the buffer once the trigger returns */
		n = read_events(lines, 64, 0);
		small = big = frames = 0;
		for (i = 0; i < n; i++) {
			if (!strncmp(lines[i], " => ", 4)) {
				/* the stack follows its event, innermost first */
				EXPECT_EQ(1, big);
				if (!frames++) {
					EXPECT_STREQ(" => tgt_mix [inlined]", lines[i]);
				} else if (frames == 2) {
					EXPECT_EQ(0, strncmp(lines[i], " => tgt_caller_b+0x", 19));
				}
				continue;
			}
			ASSERT_TRUE(parse_event(lines[i], caller, sizeof(caller), &off, &args)) {
				TH_LOG("round %d: '%s'", r, lines[i]);
			}
			if (strstr(lines[i], " wrap:small: ")) {
				small++;
				snprintf(want, sizeof(want), "reg=%llu", a);
			} else {
				big++;
				/* tgt_caller_b passes b ^ 0x5a5a */
				snprintf(want, sizeof(want), "reg=%llu who=\"trace_pipe_test\"",
					 b ^ 0x5a5a);
			}
			EXPECT_STREQ(want, args) TH_LOG("round %d", r);
		}
		EXPECT_EQ(1, small) TH_LOG("round %d: %d lines", r, n);
		EXPECT_EQ(1, big) TH_LOG("round %d: %d lines", r, n);
		EXPECT_LE(2, frames);
		free_lines(lines, n);
		if (small != 1 || big != 1)
			break;
	}
	stats = read_file(INK_DIR "/stats", NULL);
	ASSERT_NE(NULL, stats);
	EXPECT_NE(NULL, strstr(stats, "wrap/small probes=1 live=1 refused=0 notrace=0 hits=300 "
			       "missed=0 ftrace_hits=300 ftrace_written=300 ftrace_filtered=0 "
			       "ftrace_lost=0 "));
	EXPECT_NE(NULL, strstr(stats, "wrap/big probes=1 live=1 refused=0 notrace=0 hits=300 "
			       "missed=0 ftrace_hits=300 ftrace_written=300 ftrace_filtered=0 "
			       "ftrace_lost=0 ")) {
		TH_LOG("%s", stats);
	}
	free(stats);
	ASSERT_EQ(0, clear_probes());
	ASSERT_EQ(0, events_instance(kb));
}

TEST_HARNESS_MAIN
