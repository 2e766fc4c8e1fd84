// SPDX-License-Identifier: GPL-2.0
/*
 * Stack traces with inline frames, frame by frame, against what
 * inkprobe_target records (selftests/target/tgt_stack.c): each link of its
 * call chain logs, with %pS, the return address the unwinder must show.
 * The same chain from an hrtimer that interrupts tgt_spin(), and the
 * on-demand "stack" file on a task blocked in tgt_block_here().
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "guest_util.h"

#define MAX_LINES	128

FIXTURE(stack) {
	char *lines[MAX_LINES];
	int n;
};

FIXTURE_SETUP(stack)
{
	ASSERT_EQ(0, setup_target());
	ASSERT_EQ(0, clear_probes());
	drain_events();
	self->n = 0;
}

FIXTURE_TEARDOWN(stack)
{
	free_lines(self->lines, self->n);
	clear_probes();
}

/* The target's recorded "stack X-returns-to SYM" value for @which. */
static int recorded(const char *expected, const char *which, char *out, size_t len)
{
	char key[64];
	const char *p, *nl;

	snprintf(key, sizeof(key), "stack %s-returns-to ", which);
	p = strstr(expected, key);
	if (!p)
		return -1;
	p += strlen(key);
	nl = strchr(p, '\n');
	snprintf(out, len, " => %.*s", (int)(nl ? nl - p : (long)strlen(p)), p);
	return 0;
}

/* Index of the first line at or after @from that starts with @prefix, or -1. */
static int find_from(char **lines, int n, int from, const char *prefix)
{
	int i;

	for (i = from; i < n; i++)
		if (!strncmp(lines[i], prefix, strlen(prefix)))
			return i;
	return -1;
}

/*
 * The event's stack, from lines[1]: the two inline frames, the probe site
 * (the event's own caller+off), then the chain's recorded return addresses;
 * returns the index of the line after them.
 */
static int check_chain(struct __test_metadata *_metadata, char **lines, int n,
		       const char *expected)
{
	char caller[64], site[96], want[256];
	const char *args;
	unsigned int off;
	int i = 1;

	ASSERT_TRUE(parse_event(lines[0], caller, sizeof(caller), &off, &args));
	EXPECT_STREQ("tgt_chain_c", caller);
	ASSERT_LT(7, n);
	EXPECT_STREQ(" => tgt_stack_innermost [inlined]", lines[i++]);
	EXPECT_STREQ(" => tgt_stack_inner [inlined]", lines[i++]);
	snprintf(site, sizeof(site), " => tgt_chain_c+0x%x/", off);
	EXPECT_EQ(0, strncmp(lines[i], site, strlen(site))) TH_LOG("%s", lines[i]);
	i++;
	/* tgt_chain_b calls tgt_chain_c from inlined tgt_b_helper() */
	EXPECT_STREQ(" => tgt_b_helper [inlined]", lines[i++]);
	ASSERT_EQ(0, recorded(expected, "c", want, sizeof(want)));
	EXPECT_STREQ(want, lines[i++]);
	ASSERT_EQ(0, recorded(expected, "b", want, sizeof(want)));
	EXPECT_STREQ(want, lines[i++]);
	ASSERT_EQ(0, recorded(expected, "a", want, sizeof(want)));
	EXPECT_STREQ(want, lines[i++]);
	return i;
}

/* Reads one event and its stack lines (until a quiet pipe). */
static int read_event_with_stack(char **lines)
{
	int n = read_events(lines, 1, 3000);

	if (n != 1)
		return n;
	return n + read_events(lines + 1, MAX_LINES - 1, 300);
}

/*
 * The chain's innermost function probed with a stack, @scenario run: the
 * event and its stack in self->lines (logged), the target's record of what
 * it did returned.
 */
static char *run_chain(struct __test_metadata *_metadata, FIXTURE_DATA(stack) *self,
		       const char *scenario)
{
	char *expected;
	int j;

	ASSERT_EQ(0, probes_cmd("p:st/in tgt_stack_innermost v stacktrace", true)) {
		TH_LOG("%s", last_error());
	}
	ASSERT_EQ(0, write_file(TGT_DIR "/trigger", scenario, false));
	expected = read_file(TGT_DIR "/expected", NULL);
	ASSERT_NE(NULL, expected);
	self->n = read_event_with_stack(self->lines);
	for (j = 0; j < self->n; j++)
		TH_LOG("%s", self->lines[j]);
	return expected;
}

TEST_F(stack, call_chain_frame_by_frame)
{
	char *expected;
	int i, j;

	expected = run_chain(_metadata, self, "stack 41");
	i = check_chain(_metadata, self->lines, self->n, expected);
	/* a returns into tgt_run_stack(), called by run_scenario(), inlined into
	 * trigger_write(): the rest of the way to the system call, in order
	 */
	i = find_from(self->lines, self->n, i, " => run_scenario [inlined]");
	EXPECT_LT(0, i);
	i = find_from(self->lines, self->n, i + 1, " => trigger_write+0x");
	EXPECT_LT(0, i);
	i = find_from(self->lines, self->n, i + 1, " => vfs_write+0x");
	EXPECT_LT(0, i);
	i = find_from(self->lines, self->n, i + 1, " => do_syscall_64+0x");
	EXPECT_LT(0, i);
	/* nothing ORC could not vouch for, and it stops at the user boundary */
	for (j = 1; j < self->n; j++)
		EXPECT_EQ(NULL, strstr(self->lines[j], " => ? "));
	EXPECT_EQ(0, strncmp(self->lines[self->n - 1], " => entry_SYSCALL_64", 20));
	free(expected);
}

TEST_F(stack, from_an_hrtimer_interrupting_a_known_function)
{
	char *expected;
	int i;

	expected = run_chain(_metadata, self, "stackirq 42");
	ASSERT_NE(NULL, strstr(expected, "stackirq fired"));
	i = check_chain(_metadata, self->lines, self->n, expected);
	/* the timer's path, the interrupt entry, then the interrupted tgt_spin() */
	i = find_from(self->lines, self->n, i, " => __hrtimer_run_queues+0x");
	EXPECT_LT(0, i);
	i = find_from(self->lines, self->n, i + 1, " => hrtimer_interrupt+0x");
	EXPECT_LT(0, i);
	i = find_from(self->lines, self->n, i + 1, " => asm_sysvec_apic_timer_interrupt+0x");
	EXPECT_LT(0, i);
	i = find_from(self->lines, self->n, i + 1, " => tgt_spin+0x");
	EXPECT_LT(0, i);
	i = find_from(self->lines, self->n, i + 1, " => trigger_write+0x");
	EXPECT_LT(0, i);
	free(expected);
}

/*
 * tgt_no_orc() has no ORC data: the unwinder vouches for the frames up to
 * the return into it, then stops; the rest of the stack is scanned, and
 * what looks like a return address is marked "? ", as in the kernel's
 * dumps: first tgt_no_orc()'s own return, then the system call's path.
 */
TEST_F(stack, frames_past_an_unwinder_error_are_marked)
{
	char *expected, want[256];
	int i, j;

	expected = run_chain(_metadata, self, "noorc 43");
	i = check_chain(_metadata, self->lines, self->n, expected);
	/* a returned into tgt_no_orc(): still a frame ORC vouched for */
	EXPECT_EQ(0, strncmp(self->lines[i - 1], " => tgt_no_orc+0x", 17));
	for (j = 1; j < i; j++)
		EXPECT_EQ(NULL, strstr(self->lines[j], " => ? "));
	/* then guesses only, the first one tgt_no_orc()'s return */
	ASSERT_EQ(0, recorded(expected, "noorc", want, sizeof(want)));
	ASSERT_LT(i, self->n);
	EXPECT_EQ(0, strncmp(self->lines[i], " => ? ", 6));
	EXPECT_STREQ(want + 4, self->lines[i] + 6);
	for (j = i; j < self->n; j++)
		EXPECT_EQ(0, strncmp(self->lines[j], " => ? ", 6)) TH_LOG("%s", self->lines[j]);
	i = find_from(self->lines, self->n, i + 1, " => ? trigger_write+0x");
	EXPECT_LT(0, i);
	i = find_from(self->lines, self->n, i + 1, " => ? vfs_write+0x");
	EXPECT_LT(0, i);
	free(expected);
}

/* A child that blocks in the target for @ms; its pid. */
static pid_t block_in_target(int ms)
{
	pid_t pid = fork();

	if (!pid) {
		char cmd[32];

		snprintf(cmd, sizeof(cmd), "block %d", ms);
		_exit(write_file(TGT_DIR "/trigger", cmd, false) ? 1 : 0);
	}
	return pid;
}

/* Writes @tid to the stack file and reads the answer; -errno or 0. */
static int stack_of(pid_t tid, char *out, size_t len)
{
	int fd = open(INK_DIR "/stack", O_RDWR);
	char buf[24];
	ssize_t n, total = 0;
	int err = 0;

	if (fd < 0)
		return -errno;
	snprintf(buf, sizeof(buf), "%d", tid);
	if (write(fd, buf, strlen(buf)) < 0) {
		err = -errno;
		close(fd);
		return err;
	}
	while ((n = read(fd, out + total, len - 1 - total)) > 0)
		total += n;
	out[total] = '\0';
	close(fd);
	return 0;
}

/* Waits until @pid sleeps ("S" or "D" in /proc/PID/stat); false after 5 s. */
static bool sleeping(pid_t pid)
{
	char path[64], *stat, *close_paren;
	int i;

	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	for (i = 0; i < 500; i++) {
		bool s;

		stat = read_file(path, NULL);
		if (!stat)
			return false;
		close_paren = strrchr(stat, ')');
		s = close_paren && (close_paren[2] == 'S' || close_paren[2] == 'D');
		free(stat);
		if (s)
			return true;
		usleep(10000);
	}
	return false;
}

TEST_F(stack, on_demand_for_a_blocked_task)
{
	static char out[16384];
	pid_t child = block_in_target(3000);
	char *line, *save = NULL;
	int i = 0, status;

	ASSERT_TRUE(sleeping(child));
	usleep(100000);		/* well inside the wait */
	ASSERT_EQ(0, stack_of(child, out, sizeof(out)));
	TH_LOG("%s", out);
	for (line = strtok_r(out, "\n", &save); line && i < MAX_LINES;
	     line = strtok_r(NULL, "\n", &save))
		self->lines[i++] = strdup(line);
	self->n = i;
	EXPECT_NE(NULL, strstr(self->lines[0], "stack:"));
	i = find_from(self->lines, self->n, 0, " => schedule+0x");
	EXPECT_LT(0, i);
	/* the wait (the kernel's own functions in between) sits in inlined
	 * tgt_block_wait() of tgt_block_here()
	 */
	i = find_from(self->lines, self->n, i + 1, " => tgt_block_wait [inlined]");
	ASSERT_LT(0, i);
	ASSERT_LT(i + 1, self->n);
	EXPECT_EQ(0, strncmp(self->lines[i + 1], " => tgt_block_here+0x", 21));
	i = find_from(self->lines, self->n, i + 1, " => trigger_write+0x");
	EXPECT_LT(0, i);
	EXPECT_EQ(0, strncmp(self->lines[self->n - 1], " => entry_SYSCALL_64", 20));
	kill(child, SIGKILL);
	waitpid(child, &status, 0);
}

TEST_F(stack, on_demand_refuses_running_and_missing_tasks)
{
	static char out[4096];
	int ncpu = (int)sysconf(_SC_NPROCESSORS_ONLN), status, i, busy = 0;
	pid_t spinner;

	EXPECT_EQ(-ESRCH, stack_of(2147483647, out, sizeof(out)));
	EXPECT_NE(NULL, strstr(last_error(), "no such task"));
	/* scripts/vm-run boots the guest with two CPUs: a task on the other */
	ASSERT_LE(2, ncpu);
	spinner = fork();
	if (!spinner) {
		cpu_set_t set;

		CPU_ZERO(&set);
		CPU_SET(1, &set);
		sched_setaffinity(0, sizeof(set), &set);
		for (;;)
			;
	}
	/* pinned to the other CPU, running user code: busy most of the time */
	for (i = 0; i < 50 && !busy; i++) {
		usleep(20000);
		busy = stack_of(spinner, out, sizeof(out)) == -EBUSY;
	}
	EXPECT_TRUE(busy);
	EXPECT_NE(NULL, strstr(last_error(), "running on another CPU"));
	kill(spinner, SIGKILL);
	waitpid(spinner, &status, 0);
}

TEST_F(stack, listed_with_the_option)
{
	char *list;

	ASSERT_EQ(0, probes_cmd("p:st/in tgt_stack_innermost v stacktrace", true));
	list = read_file(INK_DIR "/probes", NULL);
	ASSERT_NE(NULL, list);
	EXPECT_STREQ("p:st/in tgt_stack_innermost v stacktrace\n", list);
	free(list);
}

TEST_HARNESS_MAIN
