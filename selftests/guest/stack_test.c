// SPDX-License-Identifier: GPL-2.0
/*
 * Stack traces with inline frames, frame by frame, against what
 * inkprobe_target records (selftests/target/tgt_stack.c): each link of its
 * call chain logs, with %pS, the return address the unwinder must show.
 * The same chain from an hrtimer that interrupts tgt_spin(), and the
 * on-demand "stack" file on a task blocked in tgt_block_here().  Last, the
 * "frames" file: code addresses in, symbols and inline frames out.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../../uapi/inkprobe_bpf.h"

#include "kselftest_harness.h"
#include "guest_util.h"

#define MAX_LINES	128
#define TRACEFS		"/sys/kernel/tracing"
#define INST		TRACEFS "/instances/inkprobe_stack"	/* the trace event's */

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
	rmdir(INST);		/* disables the trace event there */
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
 * @scenario run, the chain's innermost function probed with a stack: the
 * event and its stack in self->lines (logged), the target's record of what
 * it did returned.
 */
static char *run_probed(struct __test_metadata *_metadata, FIXTURE_DATA(stack) *self,
			const char *scenario)
{
	char *expected;
	int j;

	ASSERT_EQ(0, write_file(TGT_DIR "/trigger", scenario, false));
	expected = read_file(TGT_DIR "/expected", NULL);
	ASSERT_NE(NULL, expected);
	self->n = read_event_with_stack(self->lines);
	for (j = 0; j < self->n; j++)
		TH_LOG("%s", self->lines[j]);
	return expected;
}

/* The same, the probe defined first. */
static char *run_chain(struct __test_metadata *_metadata, FIXTURE_DATA(stack) *self,
		       const char *scenario)
{
	ASSERT_EQ(0, probes_cmd("p:st/in tgt_stack_innermost v stacktrace", true)) {
		TH_LOG("%s", last_error());
	}
	ASSERT_EQ(0, events_enable("st/in"));
	return run_probed(_metadata, self, scenario);
}

/*
 * The stack of the "stack" scenario in @lines: the chain, then from @i the
 * rest of the way to the system call.
 */
static void check_to_syscall(struct __test_metadata *_metadata, char **lines, int n,
			     const char *expected)
{
	int i, j;

	i = check_chain(_metadata, lines, n, expected);
	/* a returns into tgt_run_stack(), called by run_scenario(), inlined into
	 * trigger_write(): the rest of the way to the system call, in order
	 */
	i = find_from(lines, n, i, " => run_scenario [inlined]");
	EXPECT_LT(0, i);
	i = find_from(lines, n, i + 1, " => trigger_write+0x");
	EXPECT_LT(0, i);
	i = find_from(lines, n, i + 1, " => vfs_write+0x");
	EXPECT_LT(0, i);
	i = find_from(lines, n, i + 1, " => do_syscall_64+0x");
	EXPECT_LT(0, i);
	/* nothing ORC could not vouch for, and it stops at the user boundary */
	for (j = 1; j < n; j++)
		EXPECT_EQ(NULL, strstr(lines[j], " => ? "));
	EXPECT_EQ(0, strncmp(lines[n - 1], " => entry_SYSCALL_64", 20));
}

TEST_F(stack, call_chain_frame_by_frame)
{
	char *expected = run_chain(_metadata, self, "stack 41");

	check_to_syscall(_metadata, self->lines, self->n, expected);
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

/* ---- the same stacks from the trace event (Documentation/trace-events.rst) ---- */

/* "=> SYM+0xOFF/..." of the target's record for @which, as an address from kallsyms. */
static unsigned long recorded_addr(const char *expected, const char *which)
{
	char want[256], sym[128];
	unsigned int off;

	if (recorded(expected, which, want, sizeof(want)) ||
	    sscanf(want, " => %127[^+]+0x%x/", sym, &off) != 2 || !kallsyms_addr(sym))
		return 0;
	return kallsyms_addr(sym) + off;
}

/*
 * The first addresses of "stack=..." in a line of libtraceevent (numbers,
 * in whatever base and separators it prints them) must be those of the
 * scenario run last: the probe site, tgt_chain_c+@off, then the return
 * addresses the target recorded, from kallsyms.
 */
static void check_addresses(struct __test_metadata *_metadata, const char *line,
			    const char *expected, unsigned int off)
{
	unsigned long want[4] = {
		kallsyms_addr("tgt_chain_c") + off, recorded_addr(expected, "c"),
		recorded_addr(expected, "b"), recorded_addr(expected, "a"),
	};
	const char *p = strstr(line, " stack=");
	char *end;
	int i;

	ASSERT_NE(NULL, p);
	p += 7;
	for (i = 0; i < 4; i++) {
		while (*p == '{' || *p == ',' || *p == ' ')
			p++;
		EXPECT_EQ(want[i], strtoul(p, &end, 0)) TH_LOG("frame %d in %s", i, line);
		ASSERT_NE(p, end);
		p = end;
	}
}

/* The one line of @text that has @needle; NULL (and logged) unless exactly one. */
static char *only_line(struct __test_metadata *_metadata, const char *text, const char *needle)
{
	const char *p = strstr(text, needle), *start, *end;

	if (!p || strstr(p + 1, needle)) {
		TH_LOG("not exactly one line with '%s' in:\n%s", needle, text);
		return NULL;
	}
	for (start = p; start > text && start[-1] != '\n'; start--)
		;
	end = strchrnul(p, '\n');
	return strndup(start, end - start);
}

/*
 * Runs @record (a "stack N" scenario under a tool), then @report: the one
 * line with @needle has @args (v = 2 * N + 7) and the known frames, at
 * probe site tgt_chain_c+@off, and nothing failed to parse.
 */
static void tool_shows_frames(struct __test_metadata *_metadata, const char *record,
			      const char *report, const char *needle, const char *args,
			      unsigned int off)
{
	char *out, *expected, *line;

	ASSERT_EQ(0, run_shell(record, &out)) TH_LOG("%s", out);
	free(out);
	expected = read_file(TGT_DIR "/expected", NULL);
	ASSERT_NE(NULL, expected);
	ASSERT_EQ(0, run_shell(report, &out));
	EXPECT_EQ(NULL, strstr(out, "FAILED TO PARSE")) TH_LOG("%s", out);
	line = only_line(_metadata, out, needle);
	ASSERT_NE(NULL, line);
	TH_LOG("%s: %s", report, line);
	EXPECT_NE(NULL, strstr(line, args)) TH_LOG("%s", line);
	check_addresses(_metadata, line, expected, off);
	free(line);
	free(out);
	free(expected);
}

/* The record of p:st/in tgt_stack_innermost v stacktrace, as uapi/inkprobe_bpf.h says to write it. */
struct st_in {
	struct inkprobe_event h;
	__u64 v;
	struct inkprobe_stack s;
};

TEST_F_TIMEOUT(stack, trace_event_has_the_same_frames, 600)
{
	char *expected, *tev[MAX_LINES], *format, caller[64];
	const char *own_args, *tev_args;
	unsigned int off, tev_off;
	int n, i;

	rmdir(INST);
	ASSERT_EQ(0, mkdir(INST, 0755));
	ASSERT_EQ(0, probes_cmd("p:st/in tgt_stack_innermost v stacktrace", true)) {
		TH_LOG("%s", last_error());
	}
	/* the record: the argument, then the stack's fields, offsets by the layout rule */
	format = read_file(TRACEFS "/events/st/in/format", NULL);
	ASSERT_NE(NULL, format);
	TH_LOG("%s", format);
	EXPECT_NE(NULL, strstr(format, "\tfield:u64 v;\toffset:24;\tsize:8;\tsigned:0;\n"
			       "\tfield:__data_loc unsigned long[] __stack;\toffset:32;\tsize:4;\tsigned:0;\n"
			       "\tfield:__data_loc u8[] __stack_flags;\toffset:36;\tsize:4;\tsigned:0;\n"
			       "\tfield:u32 __probe_idx;\toffset:40;\tsize:4;\tsigned:0;\n"
			       "\tfield:u32 __nr_frames;\toffset:44;\tsize:4;\tsigned:0;\n"))
		TH_LOG("%s", format);
	/* >>> reader: each frame in hex, read at its place (frames at 48: __probe_ip[5]) */
	EXPECT_NE(NULL, strstr(format, " stack=%s %s %s %s %s %s %s %s %s %s %s %s %s %s %s %s "
			       "%s %s %s %s %s %s %s %s %s %s %s %s %s %s %s %s\", "
			       "REC->__probe_ip, REC->v, ") &&
		  strstr(format, ", __print_symbolic(REC->__nr_frames > 0 ? REC->__probe_ip[5] : "
			 "0, { 0, \"\" }), __print_symbolic(REC->__nr_frames > 1 ? "
			 "REC->__probe_ip[6] : 0, { 0, \"\" }),") &&
		  strstr(format, ", __print_symbolic(REC->__nr_frames > 31 ? REC->__probe_ip[36] "
			 ": 0, { 0, \"\" })\n"))
		TH_LOG("%s", format);
	/* <<< reader */
	free(format);
	/* what uapi/inkprobe_bpf.h says of it */
	EXPECT_EQ(32, offsetof(struct st_in, s.__stack));
	EXPECT_EQ(36, offsetof(struct st_in, s.__stack_flags));
	EXPECT_EQ(40, offsetof(struct st_in, s.__probe_idx));
	EXPECT_EQ(44, offsetof(struct st_in, s.__nr_frames));

	/*
	 * One hit, two trace buffers: the first one's record is fetched, the
	 * second's a copy of it.
	 */
	ASSERT_EQ(0, events_enable("st/in"));
	ASSERT_EQ(0, write_file(INST "/events/st/in/enable", "1", false));
	drain_events_from(INST "/trace_pipe");
	drain_events();
	expected = run_probed(_metadata, self, "stack 41");
	check_to_syscall(_metadata, self->lines, self->n, expected);
	n = read_events_from(INST "/trace_pipe", tev, 1, 3000);
	ASSERT_EQ(1, n);
	n += read_events_from(INST "/trace_pipe", tev + 1, MAX_LINES - 1, 300);
	for (i = 0; i < n; i++)
		TH_LOG("tracefs: %s", tev[i]);
	/* the event line: same instance and value */
	ASSERT_NE(NULL, strstr(tev[0], " st:in: ("));
	ASSERT_TRUE(parse_event(self->lines[0], caller, sizeof(caller), &off, &own_args));
	ASSERT_TRUE(parse_event(tev[0], caller, sizeof(caller), &tev_off, &tev_args));
	EXPECT_EQ(off, tev_off);
	/* tgt_chain_a(41) calls tgt_chain_b(44), which calls tgt_chain_c(88): v = 89 */
	EXPECT_STREQ("v=89", tev_args);
	EXPECT_STREQ(own_args, tev_args);
	/* the frames: the known chain, and line for line those of the first buffer */
	check_to_syscall(_metadata, tev, n, expected);
	EXPECT_EQ(self->n, n);
	for (i = 1; i < n && i < self->n; i++)
		EXPECT_STREQ(self->lines[i], tev[i]);
	free_lines(tev, n);
	free(expected);
	ASSERT_EQ(0, write_file(INST "/events/st/in/enable", "0", false));
	rmdir(INST);

	/* trace-cmd, perf: the record parses, the addresses are the known frames' */
	tool_shows_frames(_metadata, "cd /tmp && trace-cmd record -e st:in -o /tmp/inkprobe_stack.dat "
			  "/bin/sh -c 'echo stack 44 > " TGT_DIR "/trigger'",
			  "trace-cmd report -i /tmp/inkprobe_stack.dat", " in: ", ") v=95 stack=", off);
	unlink("/tmp/inkprobe_stack.dat");
	ASSERT_EQ(0, perf_sees_only_our_modules());
	tool_shows_frames(_metadata, "perf record -e st:in -o /tmp/inkprobe_stack.perf -- /bin/sh -c "
			  "'echo stack 46 > " TGT_DIR "/trigger'",
			  "perf script -i /tmp/inkprobe_stack.perf", " st:in: ", ") v=99 stack=", off);
	unlink("/tmp/inkprobe_stack.perf");
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

/* ---- "frames": addresses in, symbols and inline frames out ---- */

/* Writes @in to @fd whole (the file may take part of it); -errno or 0. */
static int frames_write(int fd, const char *in)
{
	size_t len = strlen(in), done = 0;

	while (done < len) {
		ssize_t n = write(fd, in + done, len - done);

		if (n <= 0)
			return n ? -errno : -EIO;
		done += (size_t)n;
	}
	return 0;
}

/* Reads what waits in @fd into @out (@len bytes with the NUL); its length, or -1. */
static ssize_t frames_read(int fd, char *out, size_t len)
{
	ssize_t n, total = 0;

	while ((n = read(fd, out + total, len - 1 - total)) > 0)
		total += n;
	out[total] = '\0';
	return n < 0 ? -1 : total;
}

/*
 * Every byte of tgt_spin_run(), whose only inlined function is
 * tgt_spin_inner() (selftests/target/tgt_profile.c: it calls sched_clock()
 * and barrier() only): each answer names tgt_spin_run at that offset, of
 * one size, with no inline frame or tgt_spin_inner alone; some offsets are
 * in the copy, the entry is not.  "r" answers what "i" answers a byte
 * earlier, symbol included (%pB's rule): at the entry, the function before
 * it (from /proc/kallsyms) at its end; just past the end, tgt_spin_run at
 * its size, with its last byte's frames (a call that never returns, last in
 * a function, is that function's).  An address no symbol holds is "? ?".
 */
TEST_F_TIMEOUT(stack, frames_file_every_offset_of_a_known_function, 300)
{
	unsigned long start = kallsyms_addr("tgt_spin_run"), size = 0, off, a, sz, o, before;
	static char in[1 << 20], out[1 << 22];
	char *line, *save = NULL, kind, sym[128], mod[64], rest[256], prev[128];
	unsigned int lines = 0, in_copy = 0, first_copy = 0;
	int fd, k;

	ASSERT_NE(0, start);
	/* its size: as %pS gives it, from the answer at its entry */
	fd = open(INK_DIR "/frames", O_RDWR);
	ASSERT_LE(0, fd);
	snprintf(in, sizeof(in), "%lx\n", start);
	ASSERT_EQ(0, frames_write(fd, in));
	ASSERT_LT(0, frames_read(fd, out, sizeof(out)));
	TH_LOG("%s", out);
	ASSERT_EQ(4, sscanf(out, "%lx %c tgt_spin_run+0x0/%lx %63s", &a, &kind, &size, mod));
	EXPECT_EQ(start, a);
	EXPECT_EQ('i', kind);
	EXPECT_STREQ("inkprobe_target", mod);
	ASSERT_LT(16, size);
	ASSERT_GT(4096, size);
	/* the function before it (6.1: tgt_run_noprobe; 6.12: __pfx_tgt_spin_run) */
	snprintf(prev, sizeof(prev), "%s", kallsyms_func(start - 1));
	before = kallsyms_addr(prev);
	ASSERT_NE(0, before) TH_LOG("no function of inkprobe_target before tgt_spin_run: '%s'",
				    prev);
	ASSERT_LT(before, start);

	/* every byte, "i" then "r", in one write; "r" past the end */
	in[0] = '\0';
	for (off = 0; off < size; off++)
		for (k = 0; k < 2; k++)
			snprintf(in + strlen(in), sizeof(in) - strlen(in), "%lx%s\n", start + off,
				 k ? " r" : "");
	snprintf(in + strlen(in), sizeof(in) - strlen(in), "%lx r\n1000 r\n", start + size);
	ASSERT_EQ(0, frames_write(fd, in));
	ASSERT_LT(0, frames_read(fd, out, sizeof(out)));
	{
		static char prev_i[256];	/* "i"'s inline frames a byte earlier */
		char cur_i[256] = "";

		for (line = strtok_r(out, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
			off = lines / 2;
			rest[0] = '\0';
			if (lines == 2 * size + 1) {
				EXPECT_STREQ("1000 r ? ?", line);
				lines++;
				continue;
			}
			ASSERT_LE(6, sscanf(line, "%lx %c %127[^+]+0x%lx/0x%lx %63s %255[^\n]", &a,
					    &kind, sym, &o, &sz, mod, rest)) TH_LOG("%s", line);
			EXPECT_STREQ("inkprobe_target", mod) TH_LOG("%s", line);
			if (lines == 2 * size) {
				/* just past the end: the last byte's */
				EXPECT_EQ(start + size, a) TH_LOG("%s", line);
				EXPECT_EQ('r', kind) TH_LOG("%s", line);
				EXPECT_STREQ("tgt_spin_run", sym) TH_LOG("%s", line);
				EXPECT_EQ(size, o) TH_LOG("%s", line);
				EXPECT_EQ(size, sz) TH_LOG("%s", line);
				EXPECT_STREQ(cur_i, rest) TH_LOG("%s", line);
				lines++;
				continue;
			}
			EXPECT_EQ(start + off, a) TH_LOG("%s", line);
			EXPECT_EQ(lines % 2 ? 'r' : 'i', kind) TH_LOG("%s", line);
			if (kind == 'r' && !off) {
				/* the entry as a return address: the function before, at its end */
				EXPECT_STREQ(prev, sym) TH_LOG("%s", line);
				EXPECT_EQ(start - before, o) TH_LOG("%s", line);
				EXPECT_EQ(start - before, sz) TH_LOG("%s", line);
				lines++;
				continue;
			}
			EXPECT_STREQ("tgt_spin_run", sym) TH_LOG("%s", line);
			EXPECT_EQ(off, o) TH_LOG("%s", line);
			EXPECT_EQ(size, sz) TH_LOG("%s", line);
			EXPECT_TRUE(!rest[0] || !strcmp(rest, "tgt_spin_inner")) TH_LOG("%s", line);
			if (kind == 'i') {
				if (rest[0] && !in_copy++)
					first_copy = (unsigned int)off;
				snprintf(prev_i, sizeof(prev_i), "%s", cur_i);
				snprintf(cur_i, sizeof(cur_i), "%s", rest);
				if (!off)
					EXPECT_STREQ("", rest) TH_LOG("the entry in the copy");
			} else if (off) {
				/* a return address: its call's frames, at ADDR - 1 */
				EXPECT_STREQ(prev_i, rest) TH_LOG("%s", line);
			}
			lines++;
		}
	}
	EXPECT_EQ(2 * size + 2, lines);
	EXPECT_LT(0, in_copy);
	TH_LOG("%lu bytes of tgt_spin_run, %u in its copy of tgt_spin_inner (the first at +0x%x)",
	       size, in_copy, first_copy);
	close(fd);
}

/*
 * Bad lines are refused whole with a reason in error_log; answers wait
 * until read, after those not read yet; a file that is never read fills
 * and then refuses with ENOSPC.
 */
TEST_F(stack, frames_file_refuses_bad_lines_and_keeps_answers_until_read)
{
	static char in[65536], big[70000], out[1 << 20];
	size_t taken = 0, lines = 0;
	int fd = open(INK_DIR "/frames", O_RDWR), i;
	ssize_t n;
	char *at;

	ASSERT_LE(0, fd);
	EXPECT_EQ(-EINVAL, frames_write(fd, "zz\n"));
	EXPECT_NE(NULL, strstr(last_error(), "expected a code address in hex"));
	EXPECT_EQ(-EINVAL, frames_write(fd, "1000 x\n"));
	EXPECT_EQ(-EINVAL, frames_write(fd, "1000\n\n"));
	/* nothing of a refused write is answered */
	EXPECT_EQ(-EINVAL, frames_write(fd, "1000\n2000 q\n"));
	EXPECT_EQ(0, frames_read(fd, out, sizeof(out)));

	/* two writes, one read: both answers, in order; the last line needs no newline */
	EXPECT_EQ(0, frames_write(fd, "1000\n"));
	EXPECT_EQ(0, frames_write(fd, "2000 r"));
	EXPECT_LT(0, frames_read(fd, out, sizeof(out)));
	EXPECT_STREQ("1000 i ? ?\n2000 r ? ?\n", out);

	/* never read: each write takes what room is left, then ENOSPC */
	for (i = 0; i + 5 < (int)sizeof(in); i += 5)
		memcpy(in + i, "1000\n", 5);
	in[i] = '\0';
	for (;;) {
		n = write(fd, in, strlen(in));
		if (n < 0)
			break;
		ASSERT_EQ(0, n % 5);
		taken += (size_t)n;
		ASSERT_GT(100, taken / sizeof(in)) TH_LOG("the answers never fill");
	}
	EXPECT_EQ(ENOSPC, errno);
	EXPECT_NE(NULL, strstr(last_error(), "read those waiting first"));
	n = frames_read(fd, out, sizeof(out));
	for (at = out; (at = strstr(at, "1000 i ? ?\n")); at += 11)
		lines++;
	EXPECT_EQ(taken / 5, lines);
	EXPECT_EQ((ssize_t)(11 * lines), n);
	/* read: room again */
	EXPECT_EQ(0, frames_write(fd, "1000\n"));
	close(fd);

	/* a line longer than a write takes (64 KiB) */
	fd = open(INK_DIR "/frames", O_RDWR);
	ASSERT_LE(0, fd);
	memset(big, '1', sizeof(big));
	EXPECT_EQ(-1, write(fd, big, sizeof(big)));
	EXPECT_EQ(E2BIG, errno);
	close(fd);
}

TEST_HARNESS_MAIN
