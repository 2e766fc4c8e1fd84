// SPDX-License-Identifier: GPL-2.0
/* inkprobe-kernels: debug -- fail-nth needs CONFIG_FAULT_INJECTION, which only the debug kernel has */
/*
 * Allocation failures on the control paths (Documentation/control.rst,
 * "Allocation failures"): each operation is repeated with its N-th
 * allocation failing, N = 1, 2, ... (/proc/thread-self/fail-nth, armed for
 * the one system call of the operation: the files are opened before), until
 * it succeeds with no failure injected.  An attempt that fails must return
 * an error and leave everything as it was: no blob, no definition, no
 * kprobe, no event directory, no trace event, no module reference, no
 * reference on the blob.  An attempt that succeeds although a failure was
 * injected (the kernel took another way, as kvmalloc() does) must leave
 * everything complete.  Then the module still works: exact events.  Leaks
 * are kmemleak's to find, in the debug kernel's log.
 *
 * Operations: loading the blob, raw and compressed (and, sampled, the
 * first load, which reads the kernel's BTF from sysfs a page at a time:
 * thousands of allocations of one kind); unloading it; a definition; its
 * removal, one and all ("> probes"); its trace event enabled and disabled
 * in a trace buffer; the stack file; the frames file (a failed write
 * answers nothing, a write that succeeds answers everything, inline
 * frames included).
 *
 * failslab (and fail_page_alloc, if the kernel has it) fail only
 * allocations that may not sleep unless told otherwise: they are told, for
 * the test's time, and told not to print each failure.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "guest_util.h"

#define TRACEFS		"/sys/kernel/tracing"
#define INST		TRACEFS "/instances/inkprobe_fail_nth"
/*
 * Arguments the debug kernel's build of the target keeps too (its
 * tgt_mix() has reg optimized out): konst is 7 in tgt_caller_a() and -11
 * in tgt_caller_b(), weight W and W + 1 for "mix A B W" (the target's source).
 */
#define DEF		"p:fn/tgt_mix tgt_mix konst weight=obj->weight"
#define DEF2		"p:fn2/part tgt_part a1 stacktrace"
/* an r event with an argument and $duration: a table of calls too */
#define DEF_R		"r:fn/r_early tgt_ex_early v $duration"
#define MAX_N		20000

/* ---- fail-nth and the fault injection knobs ---- */

static int nth_fd = -1;

static void arm(unsigned int n)
{
	char b[16];
	int len = snprintf(b, sizeof(b), "%u", n);

	if (pwrite(nth_fd, b, len, 0) != len)
		abort();
}

/* Disarms; whether the failure was injected (the count reached 0). */
static bool disarm(void)
{
	char b[16] = "";
	ssize_t n = pread(nth_fd, b, sizeof(b) - 1, 0);
	/* the read itself may be where it failed (a copy to user space) */
	bool injected = n > 0 && atoi(b) == 0;

	if (pwrite(nth_fd, "0", 1, 0) != 1)
		abort();
	return injected;
}

/* How many fault injection points @act passes with none injected. */
static unsigned int points(int (*act)(void *), void *ctx, int *ret)
{
	char b[16] = "";
	unsigned int left;

	arm(1000000000);
	*ret = act(ctx);
	if (pread(nth_fd, b, sizeof(b) - 1, 0) <= 0)
		abort();
	left = strtoul(b, NULL, 10);
	disarm();
	return 1000000000 - left;
}

static const struct {
	const char *path, *value;
} knobs[] = {
	{ "/sys/kernel/debug/failslab/ignore-gfp-wait", "N" },
	{ "/sys/kernel/debug/failslab/verbose", "0" },
	{ "/sys/kernel/debug/fail_page_alloc/ignore-gfp-wait", "N" },
	{ "/sys/kernel/debug/fail_page_alloc/ignore-gfp-highmem", "N" },
	{ "/sys/kernel/debug/fail_page_alloc/verbose", "0" },
};
#define NR_KNOBS	(sizeof(knobs) / sizeof(knobs[0]))
static char *saved[NR_KNOBS];

/* The knobs set; failslab must be there, fail_page_alloc may not. */
static int knobs_set(void)
{
	unsigned int i;

	for (i = 0; i < NR_KNOBS; i++) {
		saved[i] = read_file(knobs[i].path, NULL);
		if (!saved[i]) {
			if (strstr(knobs[i].path, "failslab"))
				return -1;
			continue;
		}
		saved[i][strcspn(saved[i], "\n")] = '\0';
		if (write_file(knobs[i].path, knobs[i].value, false))
			return -1;
	}
	return 0;
}

static void knobs_restore(void)
{
	unsigned int i;

	for (i = 0; i < NR_KNOBS; i++) {
		if (saved[i])
			write_file(knobs[i].path, saved[i], false);
		free(saved[i]);
		saved[i] = NULL;
	}
}

/* ---- the state an operation changes ---- */

static bool exists(const char *path)
{
	struct stat st;

	return !stat(path, &st);
}

/* The file's text, in one of 4 static buffers used in turn. */
static char *file_text(const char *path)
{
	static char buf[4][4096];
	static unsigned int next;
	char *s = read_file(path, NULL), *b = buf[next++ % 4];

	snprintf(b, sizeof(buf[0]), "%s", s ? s : "(unreadable)");
	free(s);
	return b;
}

static unsigned int module_refs(void)
{
	return strtoul(file_text("/sys/module/inkprobe/refcnt"), NULL, 10);
}

struct ctx {
	char *raw, *zst;		/* the target's blob, raw and compressed */
	size_t raw_len, zst_len;
	char blob_line[512];		/* its line in "blobs", loaded and unused */
	int fd;
	unsigned int refs;		/* the module's references with nothing open */
	pid_t blocker;			/* blocked in the target, for "stack" */
	char stack[16384];		/* its stack, without failures */
	const char *what;
};

/* Problems are counted and logged; the loop goes on. */
static unsigned int problems;

#define CHECK(cond, ...) do {							\
	if (!(cond)) {								\
		fprintf(stderr, "# %s: ", c->what);				\
		fprintf(stderr, __VA_ARGS__);					\
		fprintf(stderr, "\n");						\
		problems++;							\
	}									\
} while (0)

/* The blob's line with @probes instances of events on it. */
static void check_blob(struct ctx *c, bool loaded, unsigned int probes)
{
	const char *line = target_blob_line();
	char want[512], *p;

	if (!loaded) {
		CHECK(!*line, "blob still loaded: %s", line);
		return;
	}
	snprintf(want, sizeof(want), "%s", c->blob_line);
	p = strstr(want, " probes=");
	if (p)
		sprintf(p, " probes=%u", probes);
	CHECK(!strcmp(line, want), "blob line '%s', want '%s'", line, want);
}

/* No event at all: nothing of DEF or DEF2 anywhere. */
static void check_no_events(struct ctx *c)
{
	CHECK(!strcmp(file_text(INK_DIR "/probes"), ""), "probes: %s",
	      file_text(INK_DIR "/probes"));
	CHECK(!strcmp(file_text(INK_DIR "/stats"), ""), "stats: %s", file_text(INK_DIR "/stats"));
	CHECK(count_kprobes("inkprobe_target") == 0, "%d kprobes left",
	      count_kprobes("inkprobe_target"));
	CHECK(!exists(TRACEFS "/events/fn") && !exists(TRACEFS "/events/fn2"),
	      "a trace event is left");
	check_blob(c, true, 0);
}

/* DEF, complete, and DEF2 if @two. */
static void check_events(struct ctx *c, bool two)
{
	char want[256], *stats = file_text(INK_DIR "/stats");

	snprintf(want, sizeof(want), "%s\n%s", DEF, two ? DEF2 "\n" : "");
	CHECK(!strcmp(file_text(INK_DIR "/probes"), want), "probes: %s",
	      file_text(INK_DIR "/probes"));
	CHECK(strstr(stats, "fn/tgt_mix probes=2 live=2 ") &&
	      strstr(stats, " refused=0 notrace=0 "), "stats: %s", stats);
	if (two)
		CHECK(strstr(stats, "fn2/part probes=3 live=3 "), "stats: %s", stats);
	CHECK(count_kprobes("inkprobe_target") == (two ? 5 : 2), "%d kprobes",
	      count_kprobes("inkprobe_target"));
	CHECK(exists(TRACEFS "/events/fn/tgt_mix/format"), "no trace event");
	if (two)
		CHECK(exists(TRACEFS "/events/fn2/part/format"), "no trace event fn2/part");
	check_blob(c, true, two ? 5 : 2);
}

/* DEF_R, complete: its entry's and exits' kprobes all live, its trace event there. */
static void check_r_event(struct ctx *c)
{
	char *stats = file_text(INK_DIR "/stats"), *line = strstr(stats, "fn/r_early probes=");
	unsigned int probes = 0, live = 0;

	CHECK(!strcmp(file_text(INK_DIR "/probes"), DEF_R "\n"), "probes: %s",
	      file_text(INK_DIR "/probes"));
	CHECK(line && sscanf(line, "fn/r_early probes=%u live=%u", &probes, &live) == 2 &&
	      probes >= 2 && live == probes && strstr(line, " refused=0 notrace=0 ") &&
	      strstr(line, " dropped=0 untimed=0 unpaired=0\n"), "stats: %s", stats);
	CHECK(count_kprobes("inkprobe_target") == (int)probes, "%d kprobes, %u probes",
	      count_kprobes("inkprobe_target"), probes);
	CHECK(exists(TRACEFS "/events/fn/r_early/format"), "no trace event fn/r_early");
	check_blob(c, true, probes);
}

/* error_log's last entry line, "[  time] inkprobe: error: ..." (static buffer), "" if none */
static const char *last_entry(void)
{
	static char line[512];
	char *log = read_file(INK_DIR "/error_log", NULL), *p, *last = NULL;

	line[0] = '\0';
	for (p = log; p && (p = strstr(p, "] inkprobe: error: ")); p++)
		last = p;
	if (last) {
		while (last > log && last[-1] != '\n')
			last--;
		snprintf(line, sizeof(line), "%.*s", (int)strcspn(last, "\n"), last);
	}
	free(log);
	return line;
}

/* ---- the loop ---- */

struct op {
	const char *name;
	int (*prepare)(struct ctx *c);		/* the state before; open the file */
	int (*act)(void *c);			/* the one system call */
	void (*failed)(struct ctx *c);		/* checks: as before */
	void (*done)(struct ctx *c);		/* checks: complete */
	int (*undo)(struct ctx *c);		/* back to the state before */
	bool again;				/* EBUSY or ESRCH with nothing injected:
						 * the blocked task woke, try again
						 */
};

static void close_fd(struct ctx *c)
{
	if (c->fd >= 0)
		close(c->fd);
	c->fd = -1;
}

/*
 * @op with failure N = 1, 2, ... (or only those of @only, @nr_only of
 * them); returns the number of attempts, or -1 if a step outside the armed
 * call failed.
 */
static int run_op(struct __test_metadata *_metadata, struct ctx *c, const struct op *op,
		  const unsigned int *only, unsigned int nr_only)
{
	unsigned int n, k, k2, failed = 0, swallowed = 0, errs[160] = { 0 }, nr_msgs = 0;
	unsigned int msg_count[16] = { 0 }, retries = 0;
	char list[512] = "", msgs[16][160], before[512];
	const char *msg;
	size_t len = 0;
	bool injected;
	int ret;

	c->what = op->name;
	for (k = 0; k < (only ? nr_only : MAX_N); k++) {
		n = only ? only[k] : k + 1;
		if (op->prepare(c)) {
			TH_LOG("%s: prepare failed before attempt %u", op->name, n);
			return -1;
		}
		snprintf(before, sizeof(before), "%s", last_entry());
		arm(n);
		ret = op->act(c);
		injected = disarm();
		close_fd(c);
		if (ret && !injected && op->again && (ret == -EBUSY || ret == -ESRCH) &&
		    retries++ < 20) {
			k--;
			continue;
		}
		if (ret) {
			if (!injected) {
				TH_LOG("%s: attempt %u failed (%s) with no failure injected",
				       op->name, n, strerror(-ret));
				problems++;
				break;
			}
			failed++;
			errs[-ret < 160 ? -ret : 0]++;
			/* what error_log said (if anything), each message once */
			msg = strcmp(before, last_entry()) ? last_error() : "";
			for (k2 = 0; k2 < nr_msgs && strcmp(msgs[k2], msg); k2++)
				;
			if (k2 == nr_msgs && nr_msgs < 16)
				snprintf(msgs[nr_msgs++], sizeof(msgs[0]), "%s", msg);
			if (k2 < 16)
				msg_count[k2]++;
			op->failed(c);
			continue;
		}
		op->done(c);
		if (op->undo && op->undo(c)) {
			TH_LOG("%s: undo failed after attempt %u", op->name, n);
			return -1;
		}
		if (!injected && !only)
			break;
		swallowed += injected;
	}
	for (k = 0; k < 160; k++)
		if (errs[k])
			len += snprintf(list + len, sizeof(list) - len, " %s x%u",
					k ? strerror(k) : "other", errs[k]);
	TH_LOG("%s: %u attempts, %u failed (%s ), %u succeeded past a failure", op->name,
	       only ? nr_only : n, failed, list, swallowed);
	for (k = 0; k < nr_msgs; k++)
		TH_LOG("%s: %u x error_log '%s'", op->name, msg_count[k], msgs[k]);
	EXPECT_TRUE(only || n < MAX_N);
	return only ? (int)nr_only : (int)n;
}

/* -- the blob -- */

static int blob_absent(struct ctx *c)
{
	int ret = write_file(INK_DIR "/blobs", "-inkprobe_target", true);

	if (ret && ret != -ENOENT)
		return ret;
	c->fd = open(INK_DIR "/blob", O_WRONLY);
	return c->fd < 0 ? -errno : 0;
}

static int write_all(int fd, const void *buf, size_t len)
{
	ssize_t n = write(fd, buf, len);

	return n < 0 ? -errno : (size_t)n == len ? 0 : -EIO;
}

static int act_load_raw(void *p)
{
	struct ctx *c = p;

	return write_all(c->fd, c->raw, c->raw_len);
}

static int act_load_zst(void *p)
{
	struct ctx *c = p;

	return write_all(c->fd, c->zst, c->zst_len);
}

static void blob_not_loaded(struct ctx *c)
{
	check_blob(c, false, 0);
}

static void blob_loaded(struct ctx *c)
{
	check_blob(c, true, 0);
}

static int blob_unload(struct ctx *c)
{
	return write_file(INK_DIR "/blobs", "-inkprobe_target", true);
}

static int blob_present(struct ctx *c)
{
	if (!*target_blob_line() && load_blob(blob_path("inkprobe_target.inkb")))
		return -1;
	c->fd = open(INK_DIR "/blobs", O_WRONLY | O_APPEND);
	return c->fd < 0 ? -errno : 0;
}

static int act_unload(void *p)
{
	struct ctx *c = p;

	return write_all(c->fd, "-inkprobe_target", 16);
}

/* -- definitions -- */

static int no_events(struct ctx *c)
{
	if (clear_probes() || (!*target_blob_line() && load_blob(blob_path("inkprobe_target.inkb"))))
		return -1;
	c->fd = open(INK_DIR "/probes", O_WRONLY | O_APPEND);
	return c->fd < 0 ? -errno : 0;
}

static int act_define(void *p)
{
	struct ctx *c = p;

	return write_all(c->fd, DEF, strlen(DEF));
}

static void events_none(struct ctx *c)
{
	check_no_events(c);
}

static void events_one(struct ctx *c)
{
	check_events(c, false);
}

static void events_two(struct ctx *c)
{
	check_events(c, true);
}

static int remove_def(struct ctx *c)
{
	return probes_cmd("-:fn/tgt_mix", true);
}

static int act_define_r(void *p)
{
	struct ctx *c = p;

	return write_all(c->fd, DEF_R, strlen(DEF_R));
}

static void r_event_whole(struct ctx *c)
{
	check_r_event(c);
}

static int remove_r(struct ctx *c)
{
	return probes_cmd("-:fn/r_early", true);
}

static int one_event(struct ctx *c)
{
	if (!strstr(file_text(INK_DIR "/probes"), "fn/tgt_mix") && probes_cmd(DEF, true))
		return -1;
	c->fd = open(INK_DIR "/probes", O_WRONLY | O_APPEND);
	return c->fd < 0 ? -errno : 0;
}

static int act_remove(void *p)
{
	struct ctx *c = p;

	return write_all(c->fd, "-:fn/tgt_mix", 12);
}

static int two_events(struct ctx *c)
{
	if (!strstr(file_text(INK_DIR "/probes"), "fn/tgt_mix") && probes_cmd(DEF, true))
		return -1;
	if (!strstr(file_text(INK_DIR "/probes"), "fn2/part") && probes_cmd(DEF2, true))
		return -1;
	return 0;
}

static int act_truncate(void *p)
{
	struct ctx *c = p;

	c->fd = open(INK_DIR "/probes", O_WRONLY | O_TRUNC);
	return c->fd < 0 ? -errno : 0;
}

/* -- error_log, cleared by an open for reading and writing -- */

static int an_error(struct ctx *c)
{
	if (probes_cmd("p:fn/x tgt_mix nosuch", true) != -ENOENT || !*last_error())
		return -1;
	c->fd = -1;
	return 0;
}

static int act_clear_log(void *p)
{
	struct ctx *c = p;

	c->fd = open(INK_DIR "/error_log", O_RDWR | O_TRUNC);
	return c->fd < 0 ? -errno : 0;
}

static void log_kept(struct ctx *c)
{
	CHECK(!strcmp(last_error(), "tgt_mix has no parameter 'nosuch'"), "error_log: %s",
	      last_error());
}

static void log_empty(struct ctx *c)
{
	CHECK(!strcmp(file_text(INK_DIR "/error_log"), ""), "error_log: %s",
	      file_text(INK_DIR "/error_log"));
}

/* -- enabling -- */

static int enabled_as(struct ctx *c, const char *file, const char *was)
{
	if (one_event(c))
		return -1;
	close_fd(c);
	if (write_file(file, was, false))
		return -1;
	c->fd = open(file, O_WRONLY);
	return c->fd < 0 ? -errno : 0;
}

#define TEV	INST "/events/fn/tgt_mix/enable"

static int tev_off(struct ctx *c)
{
	return enabled_as(c, TEV, "0");
}

static int tev_on(struct ctx *c)
{
	return enabled_as(c, TEV, "1");
}

static int act_write0(void *p)
{
	struct ctx *c = p;

	return write_all(c->fd, "0", 1);
}

static int act_write1(void *p)
{
	struct ctx *c = p;

	return write_all(c->fd, "1", 1);
}

static void tev_is_off(struct ctx *c)
{
	CHECK(!strcmp(file_text(TEV), "0\n"), "enable: %s", file_text(TEV));
	CHECK(module_refs() == c->refs, "%u module references, %u before", module_refs(),
	      c->refs);
	events_one(c);
}

/* "mix 7 8 W": its two events in @pipe, exactly; 0 or the number of problems. */
static int mix_exact(const char *pipe, unsigned int w)
{
	char *lines[4], want[2][64], scenario[32], caller[64];
	const char *args;
	unsigned int off;
	int n, i, bad = 0;

	snprintf(scenario, sizeof(scenario), "mix 7 8 %u", w);
	snprintf(want[0], sizeof(want[0]), "konst=7 weight=%u", w);
	snprintf(want[1], sizeof(want[1]), "konst=-11 weight=%u", w + 1);
	drain_events_from(pipe);
	if (write_file(TGT_DIR "/trigger", scenario, false))
		return 1;
	/* written before the trigger returned: a short wait shows any extra one */
	n = read_events_from(pipe, lines, 4, 200);
	bad += n != 2;
	for (i = 0; i < n && i < 2; i++) {
		if (!parse_event(lines[i], caller, sizeof(caller), &off, &args) ||
		    strcmp(caller, i ? "tgt_caller_b" : "tgt_caller_a") ||
		    strcmp(args, want[i])) {
			fprintf(stderr, "# event %d: %s\n", i, lines[i]);
			bad++;
		}
	}
	free_lines(lines, n);
	return bad;
}

/* On: the module pinned once more, and the event reaches the buffer. */
static void tev_is_on(struct ctx *c)
{
	CHECK(!strcmp(file_text(TEV), "1\n"), "enable: %s", file_text(TEV));
	CHECK(module_refs() == c->refs + 1, "%u module references, %u before", module_refs(),
	      c->refs);
	CHECK(!mix_exact(INST "/trace_pipe", 9), "events in the trace buffer");
	events_one(c);
}

static int tev_back_off(struct ctx *c)
{
	return write_file(TEV, "0", false);
}

/* -- the stack file -- */

static pid_t block_in_target(void)
{
	pid_t pid = fork();

	if (!pid)
		_exit(write_file(TGT_DIR "/trigger", "block 4000", false) ? 1 : 0);
	return pid;
}

static bool sleeping(pid_t pid)
{
	char path[64], *s, *paren;
	bool yes = false;
	int i;

	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	for (i = 0; i < 500 && !yes; i++) {
		s = read_file(path, NULL);
		paren = s ? strrchr(s, ')') : NULL;
		yes = paren && paren[2] == 'D';
		free(s);
		if (!yes)
			usleep(10000);
	}
	return yes;
}

/* A task blocked in the target, and the blob loaded again: no inline map built yet. */
static int stack_ready(struct ctx *c)
{
	if (clear_probes() || load_blob(blob_path("inkprobe_target.inkb")))
		return -1;
	if (c->blocker > 0 && waitpid(c->blocker, NULL, WNOHANG) == c->blocker)
		c->blocker = 0;
	if (c->blocker <= 0) {
		c->blocker = block_in_target();
		if (c->blocker < 0 || !sleeping(c->blocker))
			return -1;
	}
	c->fd = open(INK_DIR "/stack", O_RDWR);
	return c->fd < 0 ? -errno : 0;
}

static int act_stack(void *p)
{
	struct ctx *c = p;
	char tid[16];
	int len = snprintf(tid, sizeof(tid), "%d", c->blocker);
	ssize_t n = write(c->fd, tid, len);

	if (n < 0)
		return -errno;
	/* read while the file is open: close_fd() comes next */
	n = read(c->fd, c->stack + sizeof(c->stack) / 2, sizeof(c->stack) / 2 - 1);
	c->stack[sizeof(c->stack) / 2 + (n > 0 ? n : 0)] = '\0';
	return 0;
}

static void stack_nothing(struct ctx *c)
{
}

/* The same frames as the reference (the first line names the task, which may be another) */
static void stack_same(struct ctx *c)
{
	const char *got = strchr(c->stack + sizeof(c->stack) / 2, '\n');
	const char *want = strchr(c->stack, '\n');

	CHECK(got && want && !strcmp(got, want), "stack:\n%s\nwant:\n%s",
	      c->stack + sizeof(c->stack) / 2, c->stack);
}

/* -- the frames file -- */

/* Every byte of tgt_spin_run(), its answer without failures, the last answer */
static char frames_in[8192], frames_want[65536], frames_got[65536];

/* The target's blob loaded again (no inline map built yet), the file open */
static int frames_ready(struct ctx *c)
{
	if (clear_probes() || load_blob(blob_path("inkprobe_target.inkb")))
		return -1;
	c->fd = open(INK_DIR "/frames", O_RDWR);
	return c->fd < 0 ? -errno : 0;
}

/* The write, then a read of what it answered (close_fd() comes next) */
static int act_frames(void *p)
{
	struct ctx *c = p;
	ssize_t n = write(c->fd, frames_in, strlen(frames_in)), m, total = 0;
	int err = n < 0 ? -errno : (size_t)n == strlen(frames_in) ? 0 : -EIO;

	while ((m = read(c->fd, frames_got + total, sizeof(frames_got) - 1 - total)) > 0)
		total += m;
	frames_got[total] = '\0';
	return err;
}

static void frames_nothing(struct ctx *c)
{
	CHECK(!*frames_got, "a failed write answered:\n%s", frames_got);
}

static void frames_same(struct ctx *c)
{
	CHECK(!strcmp(frames_got, frames_want), "answer:\n%s\nwant:\n%s", frames_got,
	      frames_want);
}

FIXTURE(nth) {
	struct ctx c;
};

FIXTURE_SETUP(nth)
{
	struct ctx *c = &self->c;

	memset(c, 0, sizeof(*c));
	c->fd = -1;
	problems = 0;
	ASSERT_EQ(0, setup_target());
	ASSERT_EQ(0, clear_probes());
	rmdir(INST);
	nth_fd = open("/proc/thread-self/fail-nth", O_RDWR);
	ASSERT_LE(0, nth_fd) TH_LOG("no fail-nth: %s", strerror(errno));
	ASSERT_EQ(0, knobs_set());
	c->raw = read_file(blob_path("inkprobe_target.raw.inkb"), &c->raw_len);
	c->zst = read_file(blob_path("inkprobe_target.inkb"), &c->zst_len);
	ASSERT_TRUE(c->raw && c->zst);
	snprintf(c->blob_line, sizeof(c->blob_line), "%s", target_blob_line());
	ASSERT_NE(NULL, strstr(c->blob_line, " live unresolved=0 probes=0")) {
		TH_LOG("%s", c->blob_line);
	}
	c->refs = module_refs();
}

FIXTURE_TEARDOWN(nth)
{
	disarm();
	knobs_restore();
	close(nth_fd);
	if (self->c.blocker > 0)
		waitpid(self->c.blocker, NULL, 0);
	rmdir(INST);
	clear_probes();
	free(self->c.raw);
	free(self->c.zst);
}

/* Afterwards the module works: a definition with exact events. */
static void still_works(struct __test_metadata *_metadata)
{
	ASSERT_EQ(0, clear_probes());
	if (!*target_blob_line())
		ASSERT_EQ(0, load_blob(blob_path("inkprobe_target.inkb")));
	ASSERT_EQ(0, define_probe(DEF));
	ASSERT_EQ(0, events_enable("fn/tgt_mix"));
	EXPECT_EQ(0, mix_exact(EVENTS_INST "/trace_pipe", 3000));
	ASSERT_EQ(0, clear_probes());
}

TEST_F_TIMEOUT(nth, blob, 600)
{
	static const struct op ops[] = {
		{ "load raw", blob_absent, act_load_raw, blob_not_loaded, blob_loaded,
		  blob_unload, false },
		{ "load compressed", blob_absent, act_load_zst, blob_not_loaded, blob_loaded,
		  blob_unload, false },
		{ "unload", blob_present, act_unload, blob_loaded, blob_not_loaded, NULL, false },
	};
	unsigned int i;

	for (i = 0; i < sizeof(ops) / sizeof(ops[0]); i++)
		ASSERT_LE(0, run_op(_metadata, &self->c, &ops[i], NULL, 0));
	EXPECT_EQ(0u, problems);
	still_works(_metadata);
}

/*
 * The first blob after the module loads reads the kernel's BTF from sysfs,
 * one allocation per page (2,281 points, against 29 for a later load, on
 * the debug kernel): 24 of them are taken, the first 8 and 16 spread over
 * the others; inkprobe is loaded again after each load that succeeds.
 */
/* inkprobe loaded again, no blob: the next blob reads the kernel's BTF. */
static int fresh_inkprobe(void)
{
	if (clear_probes() || unload_module("inkprobe"))
		return -1;
	return load_module(kmod_path("inkprobe.ko"));
}

/* After a first load: unloaded and fresh again, for the next attempt. */
static int fresh_again(struct ctx *c)
{
	return blob_unload(c) || fresh_inkprobe();
}

TEST_F_TIMEOUT(nth, first_blob_reads_kernel_btf, 600)
{
	static const struct op op = {
		"first load", blob_absent, act_load_raw, blob_not_loaded, blob_loaded, fresh_again,
		false,
	};
	unsigned int warm, cold, only[24], i;
	int ret;

	/* the points of a load with the kernel's BTF read already, then without */
	ASSERT_EQ(0, blob_absent(&self->c));
	warm = points(act_load_raw, &self->c, &ret);
	close_fd(&self->c);
	ASSERT_EQ(0, ret);
	ASSERT_EQ(0, fresh_inkprobe());
	ASSERT_EQ(0, blob_absent(&self->c));
	cold = points(act_load_raw, &self->c, &ret);
	close_fd(&self->c);
	ASSERT_EQ(0, ret);
	TH_LOG("%u failure points with the kernel's BTF read, %u with it", warm, cold);
	ASSERT_LT(warm + 40, cold);
	/* the first 8, then 16 over the points a warm load has not */
	for (i = 0; i < 8; i++)
		only[i] = i + 1;
	for (; i < 24; i++)
		only[i] = 9 + (cold - warm) * (i - 7) / 17;
	ASSERT_EQ(0, fresh_inkprobe());
	ASSERT_LE(0, run_op(_metadata, &self->c, &op, only, 24));
	EXPECT_EQ(0u, problems);
	still_works(_metadata);
}

TEST_F_TIMEOUT(nth, definitions, 600)
{
	static const struct op ops[] = {
		{ "define", no_events, act_define, events_none, events_one, remove_def, false },
		{ "define r", no_events, act_define_r, events_none, r_event_whole, remove_r, false },
		{ "remove", one_event, act_remove, events_one, events_none, NULL, false },
		{ "> probes", two_events, act_truncate, events_two, events_none, NULL, false },
		{ "clear error_log", an_error, act_clear_log, log_kept, log_empty, NULL, false },
	};
	unsigned int i;

	for (i = 0; i < sizeof(ops) / sizeof(ops[0]); i++)
		ASSERT_LE(0, run_op(_metadata, &self->c, &ops[i], NULL, 0));
	EXPECT_EQ(0u, problems);
	still_works(_metadata);
}

TEST_F_TIMEOUT(nth, enable, 600)
{
	static const struct op ops[] = {
		{ "trace event on", tev_off, act_write1, tev_is_off, tev_is_on, tev_back_off, false },
		{ "trace event off", tev_on, act_write0, tev_is_on, tev_is_off, NULL, false },
	};
	unsigned int i;
	char *rec;
	int ret;

	/*
	 * The buffer without the kernel's task name recording (an instance
	 * takes the top level's record-cmd when it is made, and has no file
	 * for it): when enabling an
	 * event registers the sched tracepoint probes of that recording and
	 * one fails, the kernel counts the recording on all the same, and
	 * disabling the event unregisters a probe that is not there, a
	 * WARNING in tracepoint_probe_unregister() (6.12;
	 * Documentation/testing.rst).
	 */
	rec = file_text(TRACEFS "/options/record-cmd");
	rec[strcspn(rec, "\n")] = '\0';
	ASSERT_EQ(0, write_file(TRACEFS "/options/record-cmd", "0", false));
	ret = mkdir(INST, 0755);
	ASSERT_EQ(0, write_file(TRACEFS "/options/record-cmd", rec, false));
	ASSERT_EQ(0, ret);
	for (i = 0; i < sizeof(ops) / sizeof(ops[0]); i++)
		ASSERT_LE(0, run_op(_metadata, &self->c, &ops[i], NULL, 0));
	EXPECT_EQ(0u, problems);
	ASSERT_EQ(0, rmdir(INST));
	still_works(_metadata);
}

TEST_F_TIMEOUT(nth, stack_file, 600)
{
	static const struct op op = {
		"stack", stack_ready, act_stack, stack_nothing, stack_same, NULL, true,
	};
	char *prev = NULL;
	const char *frames;
	int ret, i;

	/*
	 * The reference: the blocked task's stack, no failure, taken again
	 * until two in a row agree.  A task whose state is already D may
	 * still be on its way into schedule(), preempted (ci11, debug: a first
	 * capture in preempt_schedule_thunk, every later one in
	 * schedule_timeout).
	 */
	for (i = 0; i < 50; i++) {
		ASSERT_EQ(0, stack_ready(&self->c));
		ASSERT_EQ(0, act_stack(&self->c));
		close_fd(&self->c);
		/* the frames: the first line names the task */
		frames = strchr(self->c.stack + sizeof(self->c.stack) / 2, '\n');
		ASSERT_NE(NULL, frames);
		if (prev && !strcmp(prev, frames))
			break;
		free(prev);
		prev = strdup(frames);
		usleep(100000);
	}
	free(prev);
	ASSERT_GT(50, i) TH_LOG("no two captures of the blocked task's stack agreed");
	memcpy(self->c.stack, self->c.stack + sizeof(self->c.stack) / 2,
	       sizeof(self->c.stack) / 2);
	ASSERT_NE(NULL, strstr(self->c.stack, " => tgt_block_wait [inlined]\n")) {
		TH_LOG("%s", self->c.stack);
	}
	ret = run_op(_metadata, &self->c, &op, NULL, 0);
	ASSERT_LE(0, ret);
	EXPECT_EQ(0u, problems);
	still_works(_metadata);
}

TEST_F_TIMEOUT(nth, frames_file, 600)
{
	static const struct op op = {
		"frames", frames_ready, act_frames, frames_nothing, frames_same, NULL, false,
	};
	unsigned long start = kallsyms_addr("tgt_spin_run"), size = 0, off;
	struct ctx *c = &self->c;

	ASSERT_NE(0, start);
	/* its size, from the answer at its entry */
	snprintf(frames_in, sizeof(frames_in), "%lx\n", start);
	ASSERT_EQ(0, frames_ready(c));
	ASSERT_EQ(0, act_frames(c));
	close_fd(c);
	ASSERT_EQ(1, sscanf(frames_got, "%*x i tgt_spin_run+0x0/%lx", &size)) {
		TH_LOG("%s", frames_got);
	}
	ASSERT_GT(sizeof(frames_in) / 20, size);
	frames_in[0] = '\0';
	for (off = 0; off < size; off++)
		snprintf(frames_in + strlen(frames_in), sizeof(frames_in) - strlen(frames_in),
			 "%lx\n", start + off);
	/* the reference: no failure; the copy's bytes name it */
	ASSERT_EQ(0, frames_ready(c));
	ASSERT_EQ(0, act_frames(c));
	close_fd(c);
	ASSERT_NE(NULL, strstr(frames_got, " inkprobe_target tgt_spin_inner\n")) {
		TH_LOG("%s", frames_got);
	}
	memcpy(frames_want, frames_got, sizeof(frames_want));
	ASSERT_LE(0, run_op(_metadata, c, &op, NULL, 0));
	EXPECT_EQ(0u, problems);
	still_works(_metadata);
}

TEST_HARNESS_MAIN
