// SPDX-License-Identifier: GPL-2.0
/* inkprobe-kernels: !debug -- the tool reaches the module through the control files that lifecycle_test, attach_test, blob_upload_test, malformed_test and permissions_test drive on debug; the rest is the tool's own (output, exit codes, BTF, gen) */
/*
 * The inkprobe tool ($INKPROBE_TOOL) driving inkprobe.ko in the guest: load
 * the target's blob, add a probe on the inlined tgt_mix(), trace its events
 * as JSON and compare every value with what the target module recorded,
 * then list, stats, del and unload; funcs, vars and gen on the kernel's BTF; and
 * the failures: exit status 1 with the kernel's reason from error_log and
 * what to do, exit status 0 on SIGINT.  And the one-command trace
 * ('inkprobe trace FUNC ARGS'), which defines its event and removes it,
 * and funcs/vars answering from the loaded blobs.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <glob.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "guest_util.h"
#include "../../uapi/inkprobe.h"
#include "../run_prog.h"
#include "../zstd_craft.h"

#define PROBE	"p:tgt/tool tgt_mix reg konst"


enum how { AS_ROOT, AS_NOBODY, NO_DEBUGFS };

/*
 * The tools a test started and has not reaped (each test runs in a process
 * of its own): the teardown stops them, so that a failed assertion does not
 * leave a reader with its event enabled (the next tests would find the
 * kprobe events busy).
 */
static pid_t running[8];

static void remember_tool(pid_t pid)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(running); i++)
		if (!running[i]) {
			running[i] = pid;
			return;
		}
}

static void forget_tool(pid_t pid)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(running); i++)
		if (running[i] == pid)
			running[i] = 0;
}

/* Starts the tool with @argv (NULL-terminated, after "inkprobe"). */
static pid_t start_tool(enum how how, char **argv, int out_fd, int err_fd)
{
	char *args[16] = { (char *)"inkprobe" };
	pid_t pid;
	int i, fd;

	for (i = 0; i < 14 && argv[i]; i++)
		args[i + 1] = argv[i];
	pid = fork();
	if (pid > 0)
		remember_tool(pid);
	if (pid)
		return pid;
	/* opened first: nobody may not be allowed to walk to it */
	fd = open(env_or("INKPROBE_TOOL", "inkprobe"), O_RDONLY);
	dup2(out_fd, 1);
	dup2(err_fd, 2);
	if (how == AS_NOBODY && (setgid(65534) || setuid(65534)))
		_exit(126);
	/* debugfs unmounted in a mount namespace of this child only */
	if (how == NO_DEBUGFS &&
	    (private_mounts() || umount2("/sys/kernel/debug", MNT_DETACH)))
		_exit(126);
	fexecve(fd, args, environ);
	_exit(127);
}

static int exit_status(pid_t pid)
{
	int st;

	if (waitpid(pid, &st, 0) != pid)
		return -1;
	forget_tool(pid);
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

/* Waits for a started tool's end: its status, its output in @r. */
static int tool_end(struct run *r, pid_t pid, int out, int err)
{
	r->status = exit_status(pid);
	run_slurp(out, r->out, sizeof(r->out));
	run_slurp(err, r->err, sizeof(r->err));
	return r->status;
}

/* "inkprobe trace SPEC... OPTIONS...", started; ready once its event FUNC is enabled. */
static pid_t spec_start(const char *func, char **argv, int out, int err)
{
	char event[96];
	pid_t pid = start_tool(AS_ROOT, argv, out, err);

	snprintf(event, sizeof(event), "inkprobe_trace_%d/%s", (int)pid, func);
	return trace_reader_ready(pid, event) ? pid : -pid;
}

/* Runs the tool to its end with NULL-terminated arguments; returns its status. */
static int run_as(struct run *r, enum how how, ...)
{
	int out = memfd_create("out", 0), err = memfd_create("err", 0), n = 0;
	char *argv[16];
	va_list ap;

	va_start(ap, how);
	while (n < 15 && (argv[n] = va_arg(ap, char *)))
		n++;
	argv[n] = NULL;
	va_end(ap);
	r->status = exit_status(start_tool(how, argv, out, err));
	run_slurp(out, r->out, sizeof(r->out));
	run_slurp(err, r->err, sizeof(r->err));
	return r->status;
}

#define run_tool(r, ...)	run_as(r, AS_ROOT, __VA_ARGS__, NULL)

FIXTURE(tool) {
	struct run r;
};

FIXTURE_SETUP(tool)
{
	ASSERT_EQ(0, load_module(kmod_path("inkprobe_target.ko")));
	ASSERT_EQ(0, load_module(kmod_path("inkprobe.ko")));
	ASSERT_EQ(0, clear_probes());
	drain_events();
}

FIXTURE_TEARDOWN(tool)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(running); i++)
		if (running[i] > 0) {
			kill(running[i], SIGTERM);
			exit_status(running[i]);
		}
	clear_probes();
	/* the next tests expect the target's blob loaded */
	setup_target();
}

/* The offset of the kprobe in @caller, from the kprobes list; -1 if none. */
static long kprobe_offset(const char *caller)
{
	char *list = read_file(KPROBES_LIST, NULL), *at, pat[80];
	unsigned int off;
	long ret = -1;

	snprintf(pat, sizeof(pat), " %s+0x", caller);
	at = list ? strstr(list, pat) : NULL;
	if (at && sscanf(at + strlen(pat), "%x", &off) == 1)
		ret = off;
	free(list);
	return ret;
}

/* The line of @text holding @needle, copied to @line; false if none. */
static bool find_line(const char *text, const char *needle, char *line, size_t size)
{
	const char *at = strstr(text, needle), *start, *end;

	if (!at)
		return false;
	for (start = at; start > text && start[-1] != '\n';)
		start--;
	end = strchrnul(at, '\n');
	snprintf(line, size, "%.*s", (int)(end - start), start);
	return true;
}

static int count_lines(const char *text)
{
	int n = 0;

	for (; (text = strchr(text, '\n')); text++)
		n++;
	return n;
}

/*
 * Both copies of tgt_mix, through the tool from load to unload; every JSON
 * value is checked against the target's record of the call.
 */
TEST_F_TIMEOUT(tool, load_add_trace_json_stats_del_unload, 300)
{
	unsigned long long seed = (unsigned long long)time(NULL) ^ getpid(), a, b;
	char *expected, *line, *save = NULL, want[512], got[1024], caller[64];
	unsigned long long reg, ip;
	unsigned int w, cpu;
	int konst, matched = 0, out, err;
	struct run *r = &self->r;
	pid_t pid;

	/* from no blob: load it with the tool */
	write_file(INK_DIR "/blobs", "-inkprobe_target", false);
	ASSERT_EQ(0, run_tool(r, "load", (char *)blob_path("inkprobe_target.inkb"))) {
		TH_LOG("%s", r->err);
	}
	ASSERT_EQ(0, run_tool(r, "list", "--blobs"));
	EXPECT_TRUE(find_line(r->out, "inkprobe_target build-id=", got, sizeof(got)));
	EXPECT_NE(NULL, strstr(got, " live ")) {
		TH_LOG("%s", got);
	}

	ASSERT_EQ(0, run_tool(r, "add", PROBE)) {
		TH_LOG("%s", r->err);
	}
	ASSERT_EQ(0, run_tool(r, "list"));
	EXPECT_STREQ(PROBE "\n", r->out);

	srandom((unsigned int)seed);
	TH_LOG("seed %llu", seed);
	a = ((unsigned long long)random() << 31) ^ random();
	b = (unsigned long long)random();
	w = (unsigned int)random();
	/* the reader reads from when it has enabled the event in its instance */
	out = memfd_create("out", 0);
	err = memfd_create("err", 0);
	pid = start_tool(AS_ROOT, (char *[]){ "trace", "--count", "2", "--json", "--timeout",
					      "60", NULL }, out, err);
	ASSERT_TRUE(trace_reader_ready(pid, "tgt/tool"));
	ASSERT_EQ(0, trigger_target(a, b, w));
	ASSERT_EQ(0, tool_end(r, pid, out, err)) {
		TH_LOG("%s", r->err);
	}
	ASSERT_EQ(2, count_lines(r->out)) {
		TH_LOG("%s", r->out);
	}

	expected = read_file(TGT_DIR "/expected", NULL);
	ASSERT_NE(NULL, expected);
	for (line = strtok_r(expected, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		const char *rest;

		ASSERT_EQ(3, sscanf(line, "tgt_mix %63s reg=%llu konst=%d", caller, &reg, &konst));
		snprintf(want, sizeof(want), "\"caller\":\"%s\"", caller);
		ASSERT_TRUE(find_line(r->out, want, got, sizeof(got))) {
			TH_LOG("no event in %s: %s", caller, r->out);
		}
		/* the trigger was written by this process */
		snprintf(want, sizeof(want), "{\"comm\":\"tool_test\",\"pid\":%d,\"cpu\":", getpid());
		EXPECT_EQ(0, strncmp(got, want, strlen(want))) {
			TH_LOG("%s", got);
		}
		rest = strstr(got, ",\"group\":");
		ASSERT_NE(NULL, rest);
		/* numbers are JSON numbers */
		EXPECT_EQ(1, sscanf(got + strlen(want), "%u,\"ts\":", &cpu));
		ip = kallsyms_addr(caller) + kprobe_offset(caller);
		snprintf(want, sizeof(want), ",\"group\":\"tgt\",\"event\":\"tool\",\"ip\":%llu,"
			 "\"caller\":\"%s\",\"offset\":%ld,\"args\":{\"reg\":%llu,\"konst\":%d}}",
			 ip, caller, kprobe_offset(caller), reg, konst);
		EXPECT_STREQ(want, rest);
		matched++;
	}
	EXPECT_EQ(2, matched);
	free(expected);

	ASSERT_EQ(0, run_tool(r, "stats"));
	/* the reader's instance was the one trace buffer */
	EXPECT_STREQ("tgt/tool probes=2 live=2 refused=0 notrace=0 hits=2 missed=0 "
		     "ftrace_hits=2 ftrace_written=2 ftrace_filtered=0 ftrace_lost=0 "
		     "perf_hits=0 perf_written=0 perf_lost=0\n", r->out);
	ASSERT_EQ(0, run_tool(r, "stats", "--json"));
	EXPECT_STREQ("{\"group\":\"tgt\",\"event\":\"tool\",\"probes\":2,\"live\":2,"
		     "\"refused\":0,\"notrace\":0,\"hits\":2,\"missed\":0,"
		     "\"ftrace_hits\":2,\"ftrace_written\":2,\"ftrace_filtered\":0,"
		     "\"ftrace_lost\":0,\"perf_hits\":0,\"perf_written\":0,\"perf_lost\":0}\n",
		     r->out);

	/* a blob in use stays, and the events using it are named */
	EXPECT_EQ(1, run_tool(r, "unload", "inkprobe_target"));
	EXPECT_NE(NULL, strstr(r->err, "inkprobe: unload inkprobe_target: blob is used by "
				       "events tgt/tool: remove them first\n")) {
		TH_LOG("%s", r->err);
	}

	ASSERT_EQ(0, run_tool(r, "del", "tgt/tool")) {
		TH_LOG("%s", r->err);
	}
	EXPECT_EQ(0, count_kprobes("tgt_caller_"));
	ASSERT_EQ(0, run_tool(r, "list"));
	EXPECT_STREQ("", r->out);
	EXPECT_EQ(1, run_tool(r, "del", "tgt/tool"));
	EXPECT_NE(NULL, strstr(r->err, "inkprobe: del tgt/tool: no such event")) {
		TH_LOG("%s", r->err);
	}

	ASSERT_EQ(0, run_tool(r, "unload", "inkprobe_target")) {
		TH_LOG("%s", r->err);
	}
	ASSERT_EQ(0, run_tool(r, "list", "--blobs"));
	EXPECT_EQ(NULL, strstr(r->out, "inkprobe_target "));
	EXPECT_EQ(1, run_tool(r, "unload", "inkprobe_target"));
	EXPECT_NE(NULL, strstr(r->err, "no blob for this target")) {
		TH_LOG("%s", r->err);
	}
}

TEST_F(tool, add_words_and_bad_definitions)
{
	struct run *r = &self->r;
	char *list;

	ASSERT_EQ(0, setup_target());
	ASSERT_EQ(0, run_tool(r, "add", "p:tgt/words", "tgt_mix", "reg"));
	list = read_file(INK_DIR "/probes", NULL);
	ASSERT_NE(NULL, list);
	EXPECT_STREQ("p:tgt/words tgt_mix reg\n", list);
	free(list);

	/* the kernel's reason, with the command and a caret under the bad word */
	EXPECT_EQ(1, run_tool(r, "add", "p:tgt/bad tgt_mix nosuch"));
	EXPECT_NE('\0', last_error()[0]);
	EXPECT_NE(NULL, strstr(r->err, last_error())) {
		TH_LOG("error_log: %s; stderr: %s", last_error(), r->err);
	}
	EXPECT_NE(NULL, strstr(r->err, "\n  Command: p:tgt/bad tgt_mix nosuch\n"));
	EXPECT_NE(NULL, strstr(r->err, "^\n"));

	EXPECT_EQ(1, run_tool(r, "add", "p:tgt/words tgt_mix reg"));
	EXPECT_NE(NULL, strstr(r->err, "already exists")) {
		TH_LOG("%s", r->err);
	}
	EXPECT_NE(NULL, strstr(r->err, "inkprobe del GRP/EVENT"));

	/* add never truncates: the first event is still there */
	list = read_file(INK_DIR "/probes", NULL);
	ASSERT_NE(NULL, list);
	EXPECT_STREQ("p:tgt/words tgt_mix reg\n", list);
	free(list);
}

/* del NAME: one group, or an error naming them; del -:GRP/EVENT as in kprobe_events */
TEST_F(tool, del_ambiguous_name_and_kprobe_events_form)
{
	struct run *r = &self->r;
	char *list;

	ASSERT_EQ(0, setup_target());
	ASSERT_EQ(0, run_tool(r, "add", "p:one/same tgt_mix reg"));
	ASSERT_EQ(0, run_tool(r, "add", "p:two/same tgt_mix konst"));
	EXPECT_EQ(1, run_tool(r, "del", "same"));
	EXPECT_NE(NULL, strstr(r->err, "inkprobe: del same: events in several groups are named "
				       "same: one/same, two/same: give GRP/same\n")) {
		TH_LOG("%s", r->err);
	}
	list = read_file(INK_DIR "/probes", NULL);
	EXPECT_STREQ("p:one/same tgt_mix reg\np:two/same tgt_mix konst\n", list);
	free(list);
	EXPECT_EQ(0, run_tool(r, "del", "-:one/same")) TH_LOG("%s", r->err);
	/* one left: the name alone is enough */
	EXPECT_EQ(0, run_tool(r, "del", "same")) TH_LOG("%s", r->err);
	list = read_file(INK_DIR "/probes", NULL);
	EXPECT_STREQ("", list);
	free(list);
	EXPECT_EQ(0, count_kprobes("tgt_caller_"));
}

/*
 * The target's blob with another vmlinux BTF checksum, written to @path,
 * raw or compressed as gen writes it.
 */
static int write_other_build_blob(const char *path, bool compressed)
{
	size_t len, i;
	char *data = read_file(blob_path("inkprobe_target.raw.inkb"), &len);
	const struct inkprobe_blob_header *h = (const void *)data;
	const struct inkprobe_blob_section *sec;
	int ret = -1;
	FILE *f;

	if (!data || len < sizeof(*h))
		goto out;
	sec = (const void *)(data + h->hdr_len);
	for (i = 0; i < h->nr_sections; i++) {
		if (sec[i].type == INKPROBE_SEC_TARGET) {
			((struct inkprobe_target *)(data + sec[i].offset))->vmlinux_btf_crc ^= 1;
			break;
		}
	}
	if (compressed) {
		char *frame = (char *)craft_compress(data, len, true, &len);

		free(data);
		data = frame;
	}
	f = fopen(path, "w");
	if (data && i < h->nr_sections && f && fwrite(data, 1, len, f) == len)
		ret = 0;
	if (f && fclose(f))
		ret = -1;
out:
	free(data);
	return ret;
}

TEST_F(tool, load_failures_say_what_to_do)
{
	static const char other[] = "/tmp/inkprobe_target-other-build.inkb";
	struct run *r = &self->r;
	int compressed;

	/* the hint names the target: the tool decompresses to find it */
	for (compressed = 0; compressed < 2; compressed++) {
		ASSERT_EQ(0, write_other_build_blob(other, compressed));
		EXPECT_EQ(1, run_tool(r, "load", (char *)other));
		EXPECT_NE(NULL, strstr(r->err, "was generated for another kernel build")) {
			TH_LOG("%s", r->err);
		}
		EXPECT_NE(NULL, strstr(r->err,
				       "regenerate it from the inkprobe_target.ko that is loaded"));
		unlink(other);
	}

	EXPECT_EQ(1, run_tool(r, "load", "/proc/version"));
	EXPECT_NE(NULL, strstr(r->err, "invalid blob")) {
		TH_LOG("%s", r->err);
	}
	EXPECT_NE(NULL, strstr(r->err, "inkprobe dump"));
}

/* Reads @fd into @buf until it holds @lines lines or @ms passed; returns the count. */
static int read_lines(int fd, char *buf, size_t size, int lines, int ms)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };
	size_t len = strlen(buf);
	ssize_t n;

	while (count_lines(buf) < lines && len + 1 < size && poll(&p, 1, ms) > 0) {
		n = read(fd, buf + len, size - 1 - len);
		if (n <= 0)
			break;
		len += n;
		buf[len] = '\0';
	}
	return count_lines(buf);
}

/*
 * Waits (10 s at most) until @pid catches SIGINT: before the tool sets its
 * handler, SIGINT kills it (status 130), and under TCG with other jobs
 * running it may take longer than any fixed wait to get there.
 */
static bool catches_sigint(pid_t pid)
{
	char path[64], *st, *p;
	unsigned long long mask;
	int i;

	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	for (i = 0; i < 1000; i++) {
		st = read_file(path, NULL);
		p = st ? strstr(st, "SigCgt:") : NULL;
		mask = p ? strtoull(p + 7, NULL, 16) : 0;
		free(st);
		if (mask & (1ULL << (SIGINT - 1)))
			return true;
		usleep(10 * 1000);
	}
	return false;
}

/*
 * Its own bounded waits (the handler 10 s, the reader ready, the lines
 * 30 s) add up past the harness's default 30 s: in a full run of
 * 2026-11-27 the 6.1 guest, sharing the host, ran out of it.
 */
TEST_F_TIMEOUT(tool, trace_exits_0_on_sigint, 120)
{
	struct run *r = &self->r;
	int out[2], err = memfd_create("err", 0);
	char text[4096] = "", *line;
	int events;
	pid_t pid;

	ASSERT_EQ(0, setup_target());
	ASSERT_EQ(0, run_tool(r, "add", PROBE));
	ASSERT_EQ(0, pipe2(out, O_CLOEXEC));

	/* waiting for events */
	pid = start_tool(AS_ROOT, (char *[]){ "trace", NULL }, out[1], err);
	EXPECT_TRUE(catches_sigint(pid));
	usleep(500 * 1000);
	EXPECT_EQ(0, kill(pid, SIGINT));
	EXPECT_EQ(0, exit_status(pid));
	EXPECT_EQ(0, read_lines(out[0], text, sizeof(text), 1, 0));

	/* streaming: both events out, then Ctrl-C */
	pid = start_tool(AS_ROOT, (char *[]){ "trace", NULL }, out[1], err);
	close(out[1]);
	ASSERT_TRUE(trace_reader_ready(pid, "tgt/tool"));
	ASSERT_EQ(0, trigger_target(1, 2, 3));
	EXPECT_EQ(2, read_lines(out[0], text, sizeof(text), 2, 30000));
	EXPECT_EQ(0, kill(pid, SIGINT));
	EXPECT_EQ(0, exit_status(pid));
	EXPECT_EQ(2, read_lines(out[0], text, sizeof(text), 3, 1000));
	for (line = text, events = 0; (line = strstr(line, " tgt:tool: (tgt_caller_")); line++)
		events++;
	EXPECT_EQ(2, events) {
		TH_LOG("%s", text);
	}
	close(out[0]);
	run_slurp(err, r->err, sizeof(r->err));
	EXPECT_STREQ("", r->err);
}

/* The number of lines of @text starting with @prefix. */
static int lines_starting(const char *text, const char *prefix)
{
	size_t n = strlen(prefix);
	int count = 0;

	for (; text; text = strchr(text, '\n'), text = text ? text + 1 : NULL)
		count += !strncmp(text, prefix, n);
	return count;
}

/*
 * funcs and vars as on the traced machine: no BTF file given, the running
 * kernel's and the loaded target's BTF from /sys/kernel/btf.
 */
TEST_F(tool, funcs_and_vars_with_the_kernels_btf)
{
	struct run *r = &self->r;
	char blob[256], line[256];
	unsigned int inlined = 0, sites = 0, out_of_line = 9;

	snprintf(blob, sizeof(blob), "%s", blob_path("inkprobe_target.inkb"));
	EXPECT_EQ(0, run_tool(r, "funcs", "tgt_mi?", blob)) {
		TH_LOG("%s", r->err);
	}
	ASSERT_TRUE(find_line(r->out, "tgt_mix ", line, sizeof(line)));
	EXPECT_EQ(3, sscanf(line, "tgt_mix %u %u %u", &inlined, &sites, &out_of_line));
	EXPECT_EQ(2, inlined);
	EXPECT_EQ(2, sites);
	EXPECT_EQ(0, out_of_line);
	/* static __always_inline u64 tgt_mix(u64 reg, int konst, const struct tgt_obj *obj) */
	EXPECT_EQ(0, run_tool(r, "vars", "tgt_mix", blob)) {
		TH_LOG("%s", r->err);
	}
	EXPECT_EQ(1, lines_starting(r->out, "tgt_mix inkprobe_target:tgt_caller_a+0x"));
	EXPECT_EQ(1, lines_starting(r->out, "tgt_mix inkprobe_target:tgt_caller_b+0x"));
	EXPECT_EQ(2, lines_starting(r->out, "\tu64 reg "));
	EXPECT_EQ(2, lines_starting(r->out, "\tint konst "));
	EXPECT_EQ(2, lines_starting(r->out, "\tconst struct tgt_obj *obj "));
	EXPECT_EQ(NULL, strstr(r->out, "unavailable")) {
		TH_LOG("%s", r->out);
	}
	EXPECT_EQ(1, run_tool(r, "vars", "tgt_no_such_function", blob));
	EXPECT_NE(NULL, strstr(r->err, "no instance of tgt_no_such_function")) {
		TH_LOG("%s", r->err);
	}
}

/* The offsets of the kprobes in tgt_caller_a and _b, read while they are placed. */
struct mix_offsets {
	long a, b;
};

static struct mix_offsets mix_offsets(void)
{
	return (struct mix_offsets){ kprobe_offset("tgt_caller_a"),
				     kprobe_offset("tgt_caller_b") };
}

/*
 * The JSON events of @out against the target's record of its last "mix"
 * scenario: for each call (only @caller_only's, if not NULL), a line of
 * event @group/@event with its caller, probe address (@off: the kprobes'
 * offsets) and values.  The number of calls matched, or -1 after saying
 * what differs.
 */
static int matching_events(const char *out, const char *group, const char *event,
			   const char *caller_only, struct mix_offsets off)
{
	char *expected = read_file(TGT_DIR "/expected", NULL), *line, *save = NULL;
	char want[512], got[1024], caller[64];
	unsigned long long reg, ip;
	int konst, n = 0;
	long o;

	if (!expected || off.a < 0 || off.b < 0) {
		fprintf(stderr, "# no expected calls, or no kprobe offsets (%ld %ld)\n", off.a,
			off.b);
		free(expected);
		return -1;
	}
	for (line = strtok_r(expected, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		const char *rest;

		if (sscanf(line, "tgt_mix %63s reg=%llu konst=%d", caller, &reg, &konst) != 3)
			continue;
		if (caller_only && strcmp(caller, caller_only))
			continue;
		snprintf(want, sizeof(want), "\"caller\":\"%s\"", caller);
		if (!find_line(out, want, got, sizeof(got))) {
			fprintf(stderr, "# no event in %s: %s\n", caller, out);
			n = -1;
			break;
		}
		rest = strstr(got, ",\"group\":");
		o = strcmp(caller, "tgt_caller_a") ? off.b : off.a;
		ip = kallsyms_addr(caller) + o;
		snprintf(want, sizeof(want), ",\"group\":\"%s\",\"event\":\"%s\",\"ip\":%llu,"
			 "\"caller\":\"%s\",\"offset\":%ld,\"args\":{\"reg\":%llu,\"konst\":%d}}",
			 group, event, ip, caller, o, reg, konst);
		if (!rest || strcmp(rest, want)) {
			fprintf(stderr, "# want %s\n# got  %s\n", want, got);
			n = -1;
			break;
		}
		n++;
	}
	free(expected);
	return n;
}

/* Whether tracefs has the group of the one-command trace of @pid. */
static bool trace_group_exists(pid_t pid)
{
	char path[128];

	snprintf(path, sizeof(path), "/sys/kernel/tracing/events/inkprobe_trace_%d", (int)pid);
	return !access(path, F_OK);
}

/*
 * inkprobe trace 'tgt_mix reg konst' --count 2: defines its event, streams
 * both calls with the values the target recorded, and at the end leaves no
 * event (probes empty, no tracefs group) and the blob it found loaded.
 */
TEST_F_TIMEOUT(tool, trace_spec_defines_streams_and_removes, 300)
{
	struct run *r = &self->r;
	char event[64];
	int out = memfd_create("out", 0), err = memfd_create("err", 0);
	struct mix_offsets off;
	pid_t pid;

	ASSERT_EQ(0, setup_target());
	pid = spec_start("tgt_mix", (char *[]){ "trace", "tgt_mix reg konst", "--count", "2",
						"--json", "--timeout", "60", NULL }, out, err);
	ASSERT_LT(0, pid);
	off = mix_offsets();
	/* defined as the spec says, named after the tool's PID */
	ASSERT_EQ(0, run_tool(r, "list"));
	snprintf(event, sizeof(event), "p:inkprobe_trace_%d/tgt_mix tgt_mix reg konst\n",
		 (int)pid);
	EXPECT_STREQ(event, r->out);
	ASSERT_EQ(0, trigger_target(0x1234567, 77, 5));
	ASSERT_EQ(0, tool_end(r, pid, out, err)) {
		TH_LOG("%s", r->err);
	}
	EXPECT_STREQ("", r->err);
	ASSERT_EQ(2, count_lines(r->out)) {
		TH_LOG("%s", r->out);
	}
	snprintf(event, sizeof(event), "inkprobe_trace_%d", (int)pid);
	EXPECT_EQ(2, matching_events(r->out, event, "tgt_mix", NULL, off));

	EXPECT_FALSE(trace_group_exists(pid));
	EXPECT_EQ(0, count_kprobes("tgt_caller_"));
	ASSERT_EQ(0, run_tool(r, "list"));
	EXPECT_STREQ("", r->out);
	/* the blob was loaded before: it stays */
	ASSERT_EQ(0, run_tool(r, "list", "--blobs"));
	EXPECT_NE(NULL, strstr(r->out, "inkprobe_target build-id=")) {
		TH_LOG("%s", r->out);
	}
}

/*
 * --filter goes to the event's filter file in the reader's instance:
 * 'konst == -11' keeps tgt_caller_b's call, which comes second; --count 1
 * would stop at tgt_caller_a's without it.
 */
TEST_F_TIMEOUT(tool, trace_spec_filter, 300)
{
	struct run *r = &self->r;
	char event[64];
	int out = memfd_create("out", 0), err = memfd_create("err", 0);
	struct mix_offsets off;
	pid_t pid;

	ASSERT_EQ(0, setup_target());
	pid = spec_start("tgt_mix", (char *[]){ "trace", "tgt_mix", "reg", "konst", "--filter",
						"konst == -11", "--count", "1", "--json",
						"--timeout", "60", NULL }, out, err);
	ASSERT_LT(0, pid);
	off = mix_offsets();
	ASSERT_EQ(0, trigger_target(31, 4000, 9));
	ASSERT_EQ(0, tool_end(r, pid, out, err)) {
		TH_LOG("%s", r->err);
	}
	ASSERT_EQ(1, count_lines(r->out)) {
		TH_LOG("%s", r->out);
	}
	snprintf(event, sizeof(event), "inkprobe_trace_%d", (int)pid);
	EXPECT_EQ(1, matching_events(r->out, event, "tgt_mix", "tgt_caller_b", off));
	EXPECT_EQ(NULL, strstr(r->out, "tgt_caller_a"));
	EXPECT_FALSE(trace_group_exists(pid));
	ASSERT_EQ(0, run_tool(r, "list"));
	EXPECT_STREQ("", r->out);

	/* a filter tracefs refuses: exit status 1, and nothing left behind */
	EXPECT_EQ(1, run_tool(r, "trace", "tgt_mix reg", "--filter", "nosuchfield == 1",
			      "--timeout", "5"));
	EXPECT_NE(NULL, strstr(r->err, "--filter 'nosuchfield == 1' refused")) {
		TH_LOG("%s", r->err);
	}
	ASSERT_EQ(0, run_tool(r, "list"));
	EXPECT_STREQ("", r->out);
}

/* Ctrl-C: the events streamed so far, exit status 0, and the event removed. */
TEST_F_TIMEOUT(tool, trace_spec_sigint_removes_the_event, 300)
{
	struct run *r = &self->r;
	int out[2], err = memfd_create("err", 0);
	char text[4096] = "", event[64];
	struct mix_offsets off;
	pid_t pid;

	ASSERT_EQ(0, setup_target());
	ASSERT_EQ(0, pipe2(out, O_CLOEXEC));
	pid = spec_start("tgt_mix", (char *[]){ "trace", "tgt_mix reg konst", "--json", NULL },
			 out[1], err);
	close(out[1]);
	ASSERT_LT(0, pid);
	off = mix_offsets();
	ASSERT_TRUE(catches_sigint(pid));
	ASSERT_EQ(0, trigger_target(8, 9, 10));
	EXPECT_EQ(2, read_lines(out[0], text, sizeof(text), 2, 30000));
	EXPECT_TRUE(trace_group_exists(pid));
	EXPECT_EQ(0, kill(pid, SIGINT));
	EXPECT_EQ(0, exit_status(pid));
	EXPECT_EQ(2, read_lines(out[0], text, sizeof(text), 3, 1000));
	close(out[0]);
	snprintf(event, sizeof(event), "inkprobe_trace_%d", (int)pid);
	EXPECT_EQ(2, matching_events(text, event, "tgt_mix", NULL, off));
	run_slurp(err, r->err, sizeof(r->err));
	EXPECT_STREQ("", r->err);
	EXPECT_FALSE(trace_group_exists(pid));
	EXPECT_EQ(0, count_kprobes("tgt_caller_"));
	ASSERT_EQ(0, run_tool(r, "list"));
	EXPECT_STREQ("", r->out);
}

/*
 * From nothing: inkprobe.ko not loaded, no blob.  The trace inserts the
 * module (--kmod), loads the blob (--blob), streams, and removes all three
 * at the end: only what it added.
 */
TEST_F_TIMEOUT(tool, trace_spec_loads_what_is_missing_and_removes_it, 300)
{
	struct run *r = &self->r;
	char ko[256], blob[256], event[64];
	int out = memfd_create("out", 0), err = memfd_create("err", 0);
	struct mix_offsets off;
	pid_t pid;

	snprintf(ko, sizeof(ko), "%s", kmod_path("inkprobe.ko"));
	snprintf(blob, sizeof(blob), "%s", blob_path("inkprobe_target.inkb"));
	ASSERT_EQ(0, unload_module("inkprobe"));
	ASSERT_FALSE(module_loaded("inkprobe"));
	pid = spec_start("tgt_mix", (char *[]){ "trace", "tgt_mix reg konst", "--kmod", ko,
					      "--blob", blob, "--count", "2", "--json",
					      "--timeout", "60", NULL }, out, err);
	ASSERT_LT(0, pid);
	off = mix_offsets();
	EXPECT_TRUE(module_loaded("inkprobe"));
	ASSERT_EQ(0, trigger_target(5, 6, 7));
	EXPECT_EQ(0, tool_end(r, pid, out, err)) {
		TH_LOG("%s", r->err);
	}
	snprintf(event, sizeof(event), "inkprobe_trace_%d", (int)pid);
	EXPECT_EQ(2, matching_events(r->out, event, "tgt_mix", NULL, off));
	EXPECT_FALSE(trace_group_exists(pid));
	EXPECT_FALSE(module_loaded("inkprobe"));
	ASSERT_EQ(0, load_module(ko));
}

/*
 * 'r tgt_mix': an exit event at each inlined copy, one per call, named
 * r:inkprobe_trace_PID/tgt_mix; --stack: each event with its stack, the
 * target's call path (tgt_run_mix calls both callers).
 */
TEST_F_TIMEOUT(tool, trace_spec_exit_events_and_stacks, 300)
{
	struct run *r = &self->r;
	char event[96];
	int out = memfd_create("out", 0), err = memfd_create("err", 0);
	pid_t pid;

	ASSERT_EQ(0, setup_target());
	pid = spec_start("tgt_mix", (char *[]){ "trace", "r tgt_mix", "--count", "2", "--json",
						"--timeout", "60", NULL }, out, err);
	ASSERT_LT(0, pid);
	ASSERT_EQ(0, run_tool(r, "list"));
	snprintf(event, sizeof(event), "r:inkprobe_trace_%d/tgt_mix tgt_mix\n", (int)pid);
	EXPECT_STREQ(event, r->out);
	ASSERT_EQ(0, trigger_target(1, 2, 3));
	ASSERT_EQ(0, tool_end(r, pid, out, err)) {
		TH_LOG("%s", r->err);
	}
	EXPECT_EQ(2, count_lines(r->out)) {
		TH_LOG("%s", r->out);
	}
	EXPECT_EQ(2, lines_starting(r->out, "{\"comm\":\"tool_test\""));
	EXPECT_NE(NULL, strstr(r->out, "\"caller\":\"tgt_caller_a\"")) {
		TH_LOG("%s", r->out);
	}
	EXPECT_NE(NULL, strstr(r->out, "\"caller\":\"tgt_caller_b\"")) {
		TH_LOG("%s", r->out);
	}
	ASSERT_EQ(0, run_tool(r, "list"));
	EXPECT_STREQ("", r->out);

	out = memfd_create("out2", 0);
	pid = spec_start("tgt_mix", (char *[]){ "trace", "tgt_mix reg", "--stack", "--count",
						"2", "--timeout", "60", NULL }, out, err);
	ASSERT_LT(0, pid);
	ASSERT_EQ(0, trigger_target(1, 2, 3));
	ASSERT_EQ(0, tool_end(r, pid, out, err));
	EXPECT_EQ(1, lines_starting(r->out, " => tgt_caller_a+")) {
		TH_LOG("%s", r->out);
	}
	EXPECT_EQ(1, lines_starting(r->out, " => tgt_caller_b+"));
	EXPECT_EQ(2, lines_starting(r->out, " => tgt_run_mix+"));
	ASSERT_EQ(0, run_tool(r, "list"));
	EXPECT_STREQ("", r->out);
}

/*
 * SIGKILL leaves the event (nothing can remove it then); the next
 * one-command trace removes it, with the killed reader's instance.
 */
TEST_F_TIMEOUT(tool, trace_spec_killed_reader_s_event_is_removed_by_the_next, 300)
{
	struct run *r = &self->r;
	char event[96];
	int out = memfd_create("out", 0), err = memfd_create("err", 0);
	pid_t pid;
	glob_t g;

	ASSERT_EQ(0, setup_target());
	pid = spec_start("tgt_mix", (char *[]){ "trace", "tgt_mix reg", NULL }, out, err);
	ASSERT_LT(0, pid);
	ASSERT_EQ(0, kill(pid, SIGKILL));
	ASSERT_EQ(128 + SIGKILL, exit_status(pid));
	ASSERT_EQ(0, run_tool(r, "list"));
	snprintf(event, sizeof(event), "p:inkprobe_trace_%d/tgt_mix tgt_mix reg\n", (int)pid);
	EXPECT_STREQ(event, r->out);

	EXPECT_EQ(0, run_tool(r, "trace", "tgt_mix konst", "--timeout", "1")) {
		TH_LOG("%s", r->err);
	}
	EXPECT_STREQ("", r->err);
	ASSERT_EQ(0, run_tool(r, "list"));
	EXPECT_STREQ("", r->out);
	EXPECT_FALSE(trace_group_exists(pid));
	snprintf(event, sizeof(event), "/sys/kernel/tracing/instances/inkprobe-%d-*", (int)pid);
	EXPECT_EQ(GLOB_NOMATCH, glob(event, 0, NULL, &g));
	globfree(&g);
}

/*
 * funcs and vars without a blob file answer from the blobs inkprobe.ko has
 * loaded, read back from it: the same text as with the file.
 */
TEST_F(tool, funcs_and_vars_from_the_loaded_blobs)
{
	struct run *r = &self->r;
	char blob[256], *with_file;

	ASSERT_EQ(0, setup_target());
	snprintf(blob, sizeof(blob), "%s", blob_path("inkprobe_target.inkb"));
	ASSERT_EQ(0, run_tool(r, "funcs", "tgt_*", blob));
	with_file = strdup(r->out);
	/* every tgt_ function of the target: tgt_mix 2 2 0 among them */
	EXPECT_NE(NULL, strstr(with_file, "\ntgt_mix "));
	EXPECT_EQ(0, run_tool(r, "funcs", "tgt_*")) {
		TH_LOG("%s", r->err);
	}
	EXPECT_STREQ(with_file, r->out);
	free(with_file);

	ASSERT_EQ(0, run_tool(r, "vars", "tgt_mix", blob));
	with_file = strdup(r->out);
	EXPECT_EQ(1, lines_starting(with_file, "tgt_mix inkprobe_target:tgt_caller_a+0x"));
	EXPECT_EQ(0, run_tool(r, "vars", "tgt_mix")) {
		TH_LOG("%s", r->err);
	}
	EXPECT_STREQ(with_file, r->out);
	free(with_file);

	EXPECT_EQ(1, run_tool(r, "funcs", "tgt_no_such_*"));
	EXPECT_NE(NULL, strstr(r->err, "no function matching 'tgt_no_such_*' has instances in "
				       "the blobs loaded in inkprobe.ko")) {
		TH_LOG("%s", r->err);
	}
	EXPECT_EQ(1, run_tool(r, "vars", "tgt_no_such_function"));
	EXPECT_NE(NULL, strstr(r->err, "no instance of tgt_no_such_function in the blobs loaded")) {
		TH_LOG("%s", r->err);
	}
	/* with no blob loaded (inkprobe.ko loaded again: none), it says so */
	ASSERT_EQ(0, clear_probes());
	ASSERT_EQ(0, unload_module("inkprobe"));
	ASSERT_EQ(0, load_module(kmod_path("inkprobe.ko")));
	EXPECT_EQ(1, run_tool(r, "funcs", "tgt_*"));
	EXPECT_NE(NULL, strstr(r->err, "no blob is loaded in inkprobe.ko")) {
		TH_LOG("%s", r->err);
	}
}

/*
 * gen on the running kernel without --base-btf: the target's vermagic names
 * this kernel's release, so /sys/kernel/btf/vmlinux is its base, and the
 * blob is the host's (made with the build tree's vmlinux), byte for byte.
 */
TEST_F(tool, gen_finds_the_running_kernels_btf)
{
	static const char out[] = "/tmp/inkprobe_target-guest-gen.inkb";
	struct run *r = &self->r;
	char ko[256], host[256];
	size_t a = 0, b = 0;
	char *mine, *theirs;

	snprintf(ko, sizeof(ko), "%s", kmod_path("inkprobe_target.ko"));
	snprintf(host, sizeof(host), "%s", blob_path("inkprobe_target.inkb"));
	EXPECT_EQ(0, run_tool(r, "gen", "-o", (char *)out, ko)) {
		TH_LOG("%s", r->err);
	}
	EXPECT_NE(NULL, strstr(r->err, "base BTF /sys/kernel/btf/vmlinux (found by release)")) {
		TH_LOG("%s", r->err);
	}
	mine = read_file(out, &a);
	theirs = read_file(host, &b);
	ASSERT_NE(NULL, mine);
	ASSERT_NE(NULL, theirs);
	EXPECT_EQ(b, a);
	EXPECT_EQ(0, memcmp(mine, theirs, a < b ? a : b));
	free(mine);
	free(theirs);
	unlink(out);
}

TEST_F(tool, environment_errors_say_what_to_do)
{
	struct run *r = &self->r;
	char pid[16];

	EXPECT_EQ(1, run_as(r, AS_NOBODY, "list", NULL));
	EXPECT_NE(NULL, strstr(r->err, "must be root")) {
		TH_LOG("%s", r->err);
	}
	EXPECT_EQ(1, run_as(r, NO_DEBUGFS, "stats", NULL));
	EXPECT_NE(NULL, strstr(r->err,
			       "debugfs is not mounted: mount -t debugfs none /sys/kernel/debug")) {
		TH_LOG("%s", r->err);
	}

	/* inkprobe.ko is older than the tool if it has no stack file */
	snprintf(pid, sizeof(pid), "%d", getpid());
	if (access(INK_DIR "/stack", F_OK)) {
		EXPECT_EQ(1, run_tool(r, "stack", pid));
		EXPECT_NE(NULL, strstr(r->err, "stack: no such file")) {
			TH_LOG("%s", r->err);
		}
	} else {
		EXPECT_EQ(0, run_tool(r, "stack", pid)) {
			TH_LOG("%s", r->err);
		}
		EXPECT_NE('\0', r->out[0]);
		EXPECT_EQ(1, run_tool(r, "stack", "2147483647"));
		EXPECT_NE(NULL, strstr(r->err, "no task has this ID"));
	}

	ASSERT_EQ(0, unload_module("inkprobe"));
	EXPECT_EQ(1, run_tool(r, "list"));
	EXPECT_NE(NULL, strstr(r->err, "inkprobe.ko is not loaded")) {
		TH_LOG("%s", r->err);
	}
	EXPECT_NE(NULL, strstr(r->err, ": insmod inkprobe.ko"));
}

/* ---- inkprobe latency, on tgt_lat_wait() (selftests/target/tgt_latency.c) ---- */

#define LAT_US		2000	/* each call waits at least this long, in its copy */
#define LAT_MAX_CALLS	64

/* A call of tgt_lat_wait() as the target timed it itself. */
struct lat_call {
	char caller[64];
	unsigned long long inner_us, outer_us;	/* inner <= duration <= outer */
	int pid;
};

/*
 * Writes @cmd to the trigger @n times; each call of @callee the target
 * lists goes to @calls.  Its times are the target's own, on the clock of
 * $duration.
 */
static int lat_run(const char *cmd, const char *callee, int n, struct lat_call *calls, int *nr)
{
	char *expected, *line, *save, fmt[96];
	struct lat_call c;
	unsigned long long in, out;
	int i;

	snprintf(fmt, sizeof(fmt), "%s %%63s ctx=%%*s inner_ns=%%llu outer_ns=%%llu", callee);
	for (i = 0; i < n; i++) {
		if (write_file(TGT_DIR "/trigger", cmd, false))
			return -1;
		expected = read_file(TGT_DIR "/expected", NULL);
		if (!expected)
			return -1;
		save = NULL;
		for (line = strtok_r(expected, "\n", &save); line;
		     line = strtok_r(NULL, "\n", &save)) {
			const char *p = strstr(line, " pid=");

			if (sscanf(line, fmt, c.caller, &in, &out) != 3 || !p ||
			    *nr == LAT_MAX_CALLS) {
				free(expected);
				return -1;
			}
			c.inner_us = in / 1000;
			c.outer_us = out / 1000;
			c.pid = atoi(p + 5);
			calls[(*nr)++] = c;
		}
		free(expected);
	}
	return 0;
}

/* "latency US" @n times: tgt_lat_wait() in five callers, seven calls each time. */
static int lat_trigger(int n, struct lat_call *calls, int *nr)
{
	char cmd[64];

	snprintf(cmd, sizeof(cmd), "latency %d", LAT_US);
	return lat_run(cmd, "tgt_lat_wait", n, calls, nr);
}

/* "inkprobe latency FUNC ARGS...", started; ready once its event is enabled. */
static pid_t lat_start_func(const char *func, char **args, int out, int err)
{
	char *argv[12] = { "latency", (char *)func }, event[128];
	pid_t pid;
	int i;

	for (i = 0; args[i] && i < 9; i++)
		argv[i + 2] = args[i];
	argv[i + 2] = NULL;
	pid = start_tool(AS_ROOT, argv, out, err);
	snprintf(event, sizeof(event), "inkprobe_latency/%s_%d", func, (int)pid);
	return trace_reader_ready(pid, event) ? pid : -pid;
}

static pid_t lat_start(char **args, int out, int err)
{
	return lat_start_func("tgt_lat_wait", args, out, err);
}

/* Stops it with @sig; its status, its output in @r. */
static int lat_stop_with(struct run *r, pid_t pid, int sig, int out, int err)
{
	kill(pid, sig);
	return tool_end(r, pid, out, err);
}

static int lat_stop(struct run *r, pid_t pid, int out, int err)
{
	return lat_stop_with(r, pid, SIGINT, out, err);
}

struct lat_hist {
	int rows;
	unsigned long long low[64], high[64], count[64];
	unsigned long long total;	/* "count: N" */
};

/* The histogram that starts at @text (its header line); false if malformed. */
static bool lat_parse(const char *text, struct lat_hist *h)
{
	const char *line = strchr(text, '\n');

	memset(h, 0, sizeof(*h));
	if (!line || strncmp(text, "     usecs               : count     distribution", 48))
		return false;
	for (line++; h->rows < 64 &&
	     sscanf(line, "%llu -> %llu : %llu |", &h->low[h->rows], &h->high[h->rows],
		    &h->count[h->rows]) == 3; line = strchr(line, '\n') + 1)
		h->rows++;
	return sscanf(line, "\ncount: %llu", &h->total) == 1;
}

/*
 * Every call is in a row its own times allow: however the histogram put
 * them, the calls in rows up to HIGH are at least those whose outer time
 * is at most HIGH, and at most those whose inner time is.
 */
static bool lat_consistent(const struct lat_hist *h, const struct lat_call *calls, int nr)
{
	unsigned long long sum = 0, lo, hi;
	int r, i;

	for (r = 0; r < h->rows; r++) {
		sum += h->count[r];
		for (i = 0, lo = 0, hi = 0; i < nr; i++) {
			lo += calls[i].outer_us <= h->high[r];
			hi += calls[i].inner_us <= h->high[r];
		}
		if (sum < lo || sum > hi) {
			fprintf(stderr, "row %llu -> %llu: %llu calls up to it, the target's times "
				"allow %llu to %llu\n", h->low[r], h->high[r], sum, lo, hi);
			return false;
		}
	}
	return sum == (unsigned long long)nr;
}

/*
 * Every call of the inlined tgt_lat_wait() (task, softirq, hardirq, three
 * nested, migrating) is counted once, in a row its own times allow; the
 * event is gone at the end.
 */
TEST_F_TIMEOUT(tool, latency_counts_every_call, 300)
{
	struct lat_call calls[LAT_MAX_CALLS];
	struct run *r = &self->r;
	int out = memfd_create("out", 0), err = memfd_create("err", 0), nr = 0;
	struct lat_hist h;
	pid_t pid;

	ASSERT_EQ(0, setup_target());
	pid = lat_start((char *[]){ NULL }, out, err);
	ASSERT_LT(0, pid);
	ASSERT_EQ(0, lat_trigger(3, calls, &nr));
	EXPECT_EQ(21, nr);
	ASSERT_EQ(0, lat_stop(r, pid, out, err)) {
		TH_LOG("%s", r->err);
	}
	ASSERT_TRUE(lat_parse(r->out, &h)) {
		TH_LOG("%s", r->out);
	}
	EXPECT_EQ(nr, h.total);
	EXPECT_TRUE(lat_consistent(&h, calls, nr)) {
		TH_LOG("%s", r->out);
	}
	/* nothing below the wait: rows up to 1023 us are empty (2000 us is in 1024 -> 2047) */
	EXPECT_LE(11, h.rows);
	EXPECT_EQ(0, h.count[0] + h.count[1] + h.count[2] + h.count[3] + h.count[4] +
		  h.count[5] + h.count[6] + h.count[7] + h.count[8] + h.count[9]);
	/* a clean run: no counter to report */
	EXPECT_EQ(NULL, strstr(r->out, "unpaired:"));
	EXPECT_EQ(NULL, strstr(r->out, "missed:"));
	ASSERT_EQ(0, run_tool(r, "list"));
	EXPECT_STREQ("", r->out);
}

/* The number of calls of @caller in @calls. */
static int lat_calls_of(const struct lat_call *calls, int nr, const char *caller)
{
	int i, n = 0;

	for (i = 0; i < nr; i++)
		n += !strcmp(calls[i].caller, caller);
	return n;
}

/* --by caller: a histogram per call site, each with its caller's calls; --duration ends it. */
TEST_F_TIMEOUT(tool, latency_by_caller_and_duration, 300)
{
	static const char *const callers[] = {
		"tgt_lat_hard", "tgt_lat_migrate", "tgt_lat_rec", "tgt_lat_soft", "tgt_lat_task",
	};
	struct lat_call calls[LAT_MAX_CALLS];
	struct run *r = &self->r;
	int out = memfd_create("out", 0), err = memfd_create("err", 0), nr = 0;
	char dur[32], head[128];
	struct lat_hist h;
	const char *at;
	size_t i;
	pid_t pid;

	ASSERT_EQ(0, setup_target());
	snprintf(dur, sizeof(dur), "%d", 20 * timeout_scale());
	pid = lat_start((char *[]){ "--by", "caller", "--duration", dur, NULL }, out, err);
	ASSERT_LT(0, pid);
	ASSERT_EQ(0, lat_trigger(2, calls, &nr));
	/* it ends by itself */
	ASSERT_EQ(0, tool_end(r, pid, out, err)) {
		TH_LOG("%s", r->err);
	}
	for (i = 0; i < sizeof(callers) / sizeof(callers[0]); i++) {
		struct lat_call mine[LAT_MAX_CALLS];
		int k, n = 0;

		for (k = 0; k < nr; k++)
			if (!strcmp(calls[k].caller, callers[i]))
				mine[n++] = calls[k];
		EXPECT_EQ(strcmp(callers[i], "tgt_lat_rec") ? 2 : 6,
			  lat_calls_of(calls, nr, callers[i]));
		snprintf(head, sizeof(head), "caller = %s instance=", callers[i]);
		at = strstr(r->out, head);
		ASSERT_NE(NULL, at) {
			TH_LOG("no %s in %s", callers[i], r->out);
		}
		at = strchr(at, '\n');
		ASSERT_TRUE(lat_parse(at + 1, &h)) {
			TH_LOG("%s", at + 1);
		}
		EXPECT_EQ(n, h.total) {
			TH_LOG("%s", callers[i]);
		}
		EXPECT_TRUE(lat_consistent(&h, mine, n));
	}
	/* no other caller, in alphabetical order, then the whole */
	for (at = r->out, i = 0; (at = strstr(at, "caller = ")); at++, i++)
		EXPECT_EQ(0, strncmp(at + 9, callers[i], strlen(callers[i])));
	EXPECT_EQ(5, (int)i);
	at = strstr(r->out, "\nall callers\n");
	ASSERT_NE(NULL, at);
	ASSERT_TRUE(lat_parse(at + 13, &h));
	EXPECT_EQ(nr, h.total);
	ASSERT_EQ(0, run_tool(r, "list"));
	EXPECT_STREQ("", r->out);
}

/*
 * --min: each call slower than it printed as it comes, with its stack and
 * the stack's inline frames (--blob).  The calls it must print are those
 * the target timed above it from inside the copy, and it may print those
 * it timed above it from outside: with 1000 us, every call (each waits
 * 2000 us).  The recursion's inner calls return into the copy of
 * tgt_lat_wait() in the frames above them: the innermost has two such
 * inline frames, the middle one one.
 */
TEST_F_TIMEOUT(tool, latency_min_prints_slow_calls_with_stacks, 300)
{
	struct lat_call calls[LAT_MAX_CALLS];
	struct run *r = &self->r;
	int out = memfd_create("out", 0), err = memfd_create("err", 0), nr = 0, i;
	int printed = 0, must = 0, may = 0, stacks = 0, inlined = 0;
	unsigned long long us, ns;
	char caller[96], blob[256], *line, *save = NULL, *next;
	pid_t pid;

	ASSERT_EQ(0, setup_target());
	snprintf(blob, sizeof(blob), "%s", blob_path("inkprobe_target.inkb"));
	pid = lat_start((char *[]){ "--min", "1000", "--blob", blob, NULL }, out, err);
	ASSERT_LT(0, pid);
	ASSERT_EQ(0, lat_trigger(2, calls, &nr));
	ASSERT_EQ(0, lat_stop(r, pid, out, err)) {
		TH_LOG("%s", r->err);
	}
	for (i = 0; i < nr; i++) {
		must += calls[i].inner_us > 1000;
		may += calls[i].outer_us >= 1000;
	}
	EXPECT_EQ(14, must);
	for (line = strtok_r(r->out, "\n", &save); line; line = next) {
		next = strtok_r(NULL, "\n", &save);
		if (!strncmp(line, "     usecs", 10))
			break;
		/* COMM-PID [CPU] U.UUU usecs (caller+0xoff) */
		ASSERT_EQ(3, sscanf(line, "%*s [%*d] %llu.%llu usecs (%95[^+)]", &us, &ns,
				    caller)) {
			TH_LOG("%s", line);
		}
		EXPECT_LT(1000000ULL, us * 1000 + ns);
		EXPECT_EQ(0, strncmp(caller, "tgt_lat_", 8));
		printed++;
		/* its stack, through its caller */
		if (next && !strncmp(next, " => ", 4)) {
			bool has_caller = false;

			for (; next && !strncmp(next, " => ", 4);
			     next = strtok_r(NULL, "\n", &save)) {
				has_caller |= !strncmp(next + 4, caller, strlen(caller));
				inlined += !strcmp(next, " => tgt_lat_wait [inlined]");
			}
			stacks += has_caller;
		}
	}
	EXPECT_LE(must, printed);
	EXPECT_GE(may, printed);
	EXPECT_EQ(printed, stacks);
	EXPECT_EQ(2 * (2 + 1), inlined) {
		TH_LOG("%s", r->out);
	}
}

/*
 * A call that began before the start has no entry time: its exit is
 * counted unpaired, not in the histogram, and the end says so.
 */
TEST_F_TIMEOUT(tool, latency_reports_unpaired_calls, 300)
{
	struct run *r = &self->r;
	int out = memfd_create("out", 0), err = memfd_create("err", 0);
	char cmd[64];
	struct lat_hist h;
	pid_t pid, sleeper;

	ASSERT_EQ(0, setup_target());
	/*
	 * the migrating call alone, asleep in its copy for 30 s (scaled): the
	 * tool must be ready before it wakes (ci11, 6.12 on a loaded host: not
	 * within 10 s)
	 */
	snprintf(cmd, sizeof(cmd), "latsleep %d", 30000 * timeout_scale());
	sleeper = fork();
	ASSERT_LE(0, sleeper);
	if (!sleeper)
		_exit(write_file(TGT_DIR "/trigger", cmd, false) ? 1 : 0);
	usleep(500 * 1000);
	pid = lat_start((char *[]){ NULL }, out, err);
	ASSERT_LT(0, pid);
	/* ready while the call sleeps: its exit comes with the event enabled */
	ASSERT_EQ(0, waitpid(sleeper, NULL, WNOHANG));
	ASSERT_EQ(0, exit_status(sleeper));
	ASSERT_EQ(0, lat_stop(r, pid, out, err)) {
		TH_LOG("%s", r->err);
	}
	ASSERT_TRUE(lat_parse(r->out, &h)) {
		TH_LOG("%s", r->out);
	}
	EXPECT_EQ(0, h.total);
	EXPECT_NE(NULL, strstr(r->out, "\nunpaired: 1: exits whose entry was not seen")) {
		TH_LOG("%s", r->out);
	}
}

/*
 * --pid: only calls made while that process was current, interrupt work
 * included; the target notes the current PID of each call itself.
 */
TEST_F_TIMEOUT(tool, latency_pid_counts_that_process_only, 300)
{
	struct lat_call calls[LAT_MAX_CALLS];
	struct run *r = &self->r;
	int out = memfd_create("out", 0), err = memfd_create("err", 0), nr = 0, mine = 0, i;
	char me[16];
	struct lat_hist h;
	pid_t pid;

	ASSERT_EQ(0, setup_target());
	snprintf(me, sizeof(me), "%d", getpid());
	pid = lat_start((char *[]){ "--pid", me, NULL }, out, err);
	ASSERT_LT(0, pid);
	ASSERT_EQ(0, lat_trigger(2, calls, &nr));
	/* SIGTERM ends it as SIGINT does */
	ASSERT_EQ(0, lat_stop_with(r, pid, SIGTERM, out, err)) {
		TH_LOG("%s", r->err);
	}
	for (i = 0; i < nr; i++)
		mine += calls[i].pid == getpid();
	/* task, three nested, migrating: at least those of each trigger */
	EXPECT_LE(10, mine);
	ASSERT_TRUE(lat_parse(r->out, &h)) {
		TH_LOG("%s", r->out);
	}
	EXPECT_EQ(mine, h.total) {
		TH_LOG("%s", r->out);
	}
	ASSERT_EQ(0, run_tool(r, "list"));
	EXPECT_STREQ("", r->out);
}

/*
 * The out-of-line copy: a kretprobe, its site the function's entry, so its
 * calls are named after tgt_lat_outofline() itself.  (Its inlined copy in
 * tgt_lat_ool_inlined() is never called.)
 */
TEST_F_TIMEOUT(tool, latency_out_of_line_copy, 300)
{
	struct lat_call calls[LAT_MAX_CALLS];
	struct run *r = &self->r;
	int out = memfd_create("out", 0), err = memfd_create("err", 0), nr = 0;
	char cmd[64];
	struct lat_hist h;
	const char *at;
	pid_t pid;

	ASSERT_EQ(0, setup_target());
	pid = lat_start_func("tgt_lat_outofline", (char *[]){ "--by", "caller", NULL }, out, err);
	ASSERT_LT(0, pid);
	snprintf(cmd, sizeof(cmd), "latool %d 5", LAT_US);
	ASSERT_EQ(0, lat_run(cmd, "tgt_lat_outofline", 2, calls, &nr));
	EXPECT_EQ(10, nr);
	ASSERT_EQ(0, lat_stop(r, pid, out, err)) {
		TH_LOG("%s", r->err);
	}
	at = strstr(r->out, "caller = tgt_lat_outofline instance=");
	ASSERT_NE(NULL, at) {
		TH_LOG("%s", r->out);
	}
	EXPECT_EQ(NULL, strstr(at + 1, "caller = ")) {
		TH_LOG("%s", r->out);
	}
	ASSERT_TRUE(lat_parse(strchr(at, '\n') + 1, &h));
	EXPECT_EQ(nr, h.total);
	EXPECT_TRUE(lat_consistent(&h, calls, nr)) {
		TH_LOG("%s", r->out);
	}
}

/* The failures, each said, and no event left behind. */
TEST_F(tool, latency_failures_say_what_to_do)
{
	struct run *r = &self->r;
	char *blobs, *line, *save = NULL, cmd[128];
	pid_t dead;

	ASSERT_EQ(0, setup_target());
	EXPECT_EQ(2, run_tool(r, "latency"));
	EXPECT_EQ(2, run_tool(r, "latency", "--by", "cpu", "tgt_lat_wait"));
	EXPECT_EQ(2, run_tool(r, "latency", "--min", "-1", "tgt_lat_wait"));
	EXPECT_EQ(0, run_tool(r, "latency", "--help"));
	EXPECT_NE(NULL, strstr(r->out, "usage: inkprobe latency FUNC"));
	/* a function no loaded blob has an instance of */
	EXPECT_EQ(1, run_tool(r, "latency", "--duration", "1", "tgt_no_such_function"));
	EXPECT_NE(NULL, strstr(r->err, "inkprobe: latency: no instance of this function in the "
				       "loaded blobs")) {
		TH_LOG("%s", r->err);
	}
	EXPECT_NE(NULL, strstr(r->err, "'inkprobe list --blobs' shows the loaded blobs"));
	EXPECT_EQ(1, run_tool(r, "latency", "tgt_no_such_module:tgt_lat_wait"));
	EXPECT_NE(NULL, strstr(r->err, "latency: no blob of tgt_no_such_module is loaded")) {
		TH_LOG("%s", r->err);
	}
	EXPECT_EQ(1, run_tool(r, "latency", "--pid", "2147483647", "tgt_lat_wait"));
	EXPECT_NE(NULL, strstr(r->err, "latency: no process 2147483647")) {
		TH_LOG("%s", r->err);
	}
	ASSERT_EQ(0, run_tool(r, "list"));
	EXPECT_STREQ("", r->out);
	/* an event a killed run left (its PID is gone) is removed by the next run */
	dead = fork();
	ASSERT_LE(0, dead);
	if (!dead)
		_exit(0);
	ASSERT_EQ(0, exit_status(dead));
	snprintf(cmd, sizeof(cmd), "r:inkprobe_latency/tgt_lat_wait_%d tgt_lat_wait $duration",
		 (int)dead);
	ASSERT_EQ(0, define_probe(cmd));
	EXPECT_EQ(0, run_tool(r, "latency", "--duration", "0.1", "tgt_lat_wait")) {
		TH_LOG("%s", r->err);
	}
	ASSERT_EQ(0, run_tool(r, "list"));
	EXPECT_STREQ("", r->out);
	/* no blob at all: every blob unloaded (the next test loads the target's again) */
	blobs = read_file(INK_DIR "/blobs", NULL);
	ASSERT_NE(NULL, blobs);
	for (line = strtok_r(blobs, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		snprintf(cmd, sizeof(cmd), "-%.*s", (int)strcspn(line, " "), line);
		EXPECT_EQ(0, write_file(INK_DIR "/blobs", cmd, false));
	}
	free(blobs);
	EXPECT_EQ(1, run_tool(r, "latency", "--duration", "1", "tgt_lat_wait"));
	EXPECT_NE(NULL, strstr(r->err, "latency: no blob is loaded")) {
		TH_LOG("%s", r->err);
	}
	/* no module */
	ASSERT_EQ(0, unload_module("inkprobe"));
	EXPECT_EQ(1, run_tool(r, "latency", "tgt_lat_wait"));
	EXPECT_NE(NULL, strstr(r->err, "inkprobe.ko is not loaded")) {
		TH_LOG("%s", r->err);
	}
}

TEST_HARNESS_MAIN
