// SPDX-License-Identifier: GPL-2.0
/*
 * trace_pipe as a file: byte-sized reads keep lines whole, poll() and a
 * blocking read wake when an event arrives, O_NONBLOCK says EAGAIN.
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
	self->fd = open(INK_DIR "/trace_pipe", O_RDONLY);
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

	self->fd = open(INK_DIR "/trace_pipe", O_RDONLY | O_NONBLOCK);
	ASSERT_LE(0, self->fd);
	EXPECT_EQ(-1, read(self->fd, buf, sizeof(buf)));
	EXPECT_EQ(EAGAIN, errno);
}

TEST_F(pipe, poll_wakes_on_an_event)
{
	struct pollfd p;
	pid_t child;
	int status;

	self->fd = open(INK_DIR "/trace_pipe", O_RDONLY | O_NONBLOCK);
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

	self->fd = open(INK_DIR "/trace_pipe", O_RDONLY);
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

TEST_HARNESS_MAIN
