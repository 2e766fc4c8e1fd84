// SPDX-License-Identifier: GPL-2.0
/*
 * The inkprobe tool on the host, under ASan/UBSan: trace_pipe lines to JSON
 * (user/tool/event_parse.c) on real-looking lines, and build/inkprobe-san run
 * against a directory standing in for /sys/kernel/debug/inkprobe
 * ($INKPROBE_DEBUGFS_DIR): usage and exit codes, what each command writes,
 * and trace's ends (end of file, SIGINT, time limit, count).
 */
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "../../user/tool/event_parse.h"

/* A line as module/trace_output.c prints it: "%16s-%-7d [%03d] %5llu.%06u: ..." */
#define LINE_A	"    demo-guest.sh-250     [000]    13.095604: tgt:mix: (tgt_caller_a+0x28) " \
		"reg=4242 konst=7 obj=0xff85061a4060bc70 weight=9"
#define JSON_A	"{\"comm\":\"demo-guest.sh\",\"pid\":250,\"cpu\":0,\"ts\":\"13.095604\"," \
		"\"group\":\"tgt\",\"event\":\"mix\",\"caller\":\"tgt_caller_a\",\"offset\":40," \
		"\"args\":{\"reg\":\"4242\",\"konst\":\"7\",\"obj\":\"0xff85061a4060bc70\"," \
		"\"weight\":\"9\"}}\n"

/* The JSON of @lines (NULL-terminated), flushed at the end (static buffer). */
static const char *to_json(const char *first, ...)
{
	static char text[4096];
	struct event_json ej = { 0 };
	struct buf out = { 0 };
	const char *line;
	va_list ap;

	va_start(ap, first);
	for (line = first; line; line = va_arg(ap, const char *))
		event_json_line(&ej, line, &out);
	va_end(ap);
	event_json_flush(&ej, &out);
	snprintf(text, sizeof(text), "%.*s", (int)out.len, (const char *)out.data);
	event_json_free(&ej);
	buf_free(&out);
	return text;
}

TEST(json_event_line)
{
	EXPECT_STREQ(JSON_A, to_json(LINE_A, NULL));
}

TEST(json_comm_with_spaces_dashes_and_brackets)
{
	EXPECT_STREQ("{\"comm\":\"my prog-2 [x]\",\"pid\":31337,\"cpu\":13,\"ts\":\"100.000001\","
		     "\"group\":\"inkprobe\",\"event\":\"tgt_mix\",\"caller\":\"f.isra.0\","
		     "\"offset\":255,\"args\":{\"a\":\"-11\"}}\n",
		     to_json("  my prog-2 [x]-31337   [013]   100.000001: inkprobe:tgt_mix: "
			     "(f.isra.0+0xff) a=-11", NULL));
	/* no arguments, nothing after the place */
	EXPECT_STREQ("{\"comm\":\"kworker/u4:1\",\"pid\":7,\"cpu\":1,\"ts\":\"0.000000\","
		     "\"group\":\"g\",\"event\":\"e\",\"caller\":\"c\",\"offset\":0,\"args\":{}}\n",
		     to_json("    kworker/u4:1-7       [001]     0.000000: g:e: (c+0x0)", NULL));
}

TEST(json_strings_and_unavailable_values)
{
	EXPECT_STREQ("{\"comm\":\"bash\",\"pid\":12,\"cpu\":0,\"ts\":\"1.000002\",\"group\":\"g\","
		     "\"event\":\"e\",\"caller\":\"c\",\"offset\":1,\"args\":{"
		     "\"name\":\"hello world\",\"reg\":\"(optimized out)\",\"p\":\"(fault)\","
		     "\"empty\":\"\",\"q\":\"say \\\"hi\\\" now\",\"comm\":\"a b\"}}\n",
		     to_json("            bash-12      [000]     1.000002: g:e: (c+0x1) "
			     "name=\"hello world\" reg=(optimized out) p=(fault) empty=\"\" "
			     "q=\"say \\\"hi\\\" now\" comm=\"a b\"", NULL));
	/* the module's escapes: backslash, a quote then a name, control bytes */
	EXPECT_STREQ("{\"comm\":\"c\",\"pid\":1,\"cpu\":0,\"ts\":\"1.000000\",\"group\":\"g\","
		     "\"event\":\"e\",\"caller\":\"c\",\"offset\":1,\"args\":{"
		     "\"s\":\"a\\\\b\\\" x=1\\tz\\u0001\",\"n\":\"2\"}}\n",
		     to_json("  c-1 [000] 1.000000: g:e: (c+0x1) "
			     "s=\"a\\\\b\\\" x=1\\x09z\\x01\" n=2", NULL));
}

TEST(json_stack_lines_go_to_their_event)
{
	EXPECT_STREQ("{\"comm\":\"demo-guest.sh\",\"pid\":250,\"cpu\":0,\"ts\":\"13.095604\","
		     "\"group\":\"tgt\",\"event\":\"mix\",\"caller\":\"tgt_caller_a\",\"offset\":40,"
		     "\"args\":{\"reg\":\"4242\",\"konst\":\"7\",\"obj\":\"0xff85061a4060bc70\","
		     "\"weight\":\"9\"},\"stack\":[\"tgt_caller_a+0x28/0x40 [inkprobe_target]\","
		     "\"vfs_write+0xc8/0x3c0\"]}\n" JSON_A,
		     to_json(LINE_A, " => tgt_caller_a+0x28/0x40 [inkprobe_target]",
			     " => vfs_write+0xc8/0x3c0", LINE_A, NULL));
}

TEST(json_escaping)
{
	/* quotes, backslash, control characters; valid UTF-8 kept, invalid bytes escaped */
	EXPECT_STREQ("{\"raw\":\"a\\\"b\\\\c\\td\\u0001 \xc3\xa9 \\u00ff\\u00c3(\"}\n",
		     to_json("a\"b\\c\td\x01 \xc3\xa9 \xff\xc3(", NULL));
	/* 4-byte sequence kept; overlong form and surrogate escaped byte by byte */
	EXPECT_STREQ("{\"raw\":\"\xf0\x9f\x98\x80 \\u00c0\\u0080 \\u00ed\\u00a0\\u0080\"}\n",
		     to_json("\xf0\x9f\x98\x80 \xc0\x80 \xed\xa0\x80", NULL));
}

TEST(json_unparsed_lines_kept_raw)
{
	EXPECT_STREQ("{\"raw\":\"CPU:1 [LOST 3 EVENTS]\"}\n",
		     to_json("CPU:1 [LOST 3 EVENTS]", NULL));
	/* an argument that is not name=value */
	EXPECT_STREQ("{\"raw\":\"  a-1 [000] 1.000000: g:e: (c+0x1) junk\"}\n",
		     to_json("  a-1 [000] 1.000000: g:e: (c+0x1) junk", NULL));
	/* an unterminated string */
	EXPECT_STREQ("{\"raw\":\"  a-1 [000] 1.000000: g:e: (c+0x1) s=\\\"abc\"}\n",
		     to_json("  a-1 [000] 1.000000: g:e: (c+0x1) s=\"abc", NULL));
}

/* ---- the tool itself ---- */

struct run {
	int status;		/* exit status, or 128 + signal */
	char out[8192];
	char err[8192];
};

static const char *tool_path(void)
{
	static char path[1024];
	const char *top = getenv("INKPROBE_TOP");

	snprintf(path, sizeof(path), "%s/build/inkprobe-san", top && *top ? top : ".");
	return path;
}

static void slurp(int fd, char *buf, size_t size)
{
	ssize_t n;
	size_t len = 0;

	lseek(fd, 0, SEEK_SET);
	while (len + 1 < size && (n = read(fd, buf + len, size - 1 - len)) > 0)
		len += n;
	buf[len] = '\0';
	close(fd);
}

/* Starts the tool with @argv (after "inkprobe"); stdout to @out_fd, stderr to @err_fd. */
static pid_t start_tool(const char *dir, char *const *argv, int out_fd, int err_fd)
{
	char *args[32] = { (char *)"inkprobe" };
	pid_t pid;
	int i;

	for (i = 0; argv[i] && i < 30; i++)
		args[i + 1] = argv[i];
	args[i + 1] = NULL;
	pid = fork();
	if (pid == 0) {
		if (dir)
			setenv("INKPROBE_DEBUGFS_DIR", dir, 1);
		dup2(out_fd, 1);
		dup2(err_fd, 2);
		execv(tool_path(), args);
		_exit(127);
	}
	return pid;
}

static int exit_status(pid_t pid)
{
	int st;

	if (waitpid(pid, &st, 0) != pid)
		return -1;
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

/* Runs the tool to its end; NULL-terminated arguments. */
static int run_tool(struct run *r, const char *dir, ...)
{
	char *argv[32];
	int out = fileno(tmpfile()), err = fileno(tmpfile()), n = 0;
	va_list ap;

	va_start(ap, dir);
	while (n < 31 && (argv[n] = va_arg(ap, char *)))
		n++;
	argv[n] = NULL;
	va_end(ap);
	r->status = exit_status(start_tool(dir, argv, out, err));
	slurp(out, r->out, sizeof(r->out));
	slurp(err, r->err, sizeof(r->err));
	return r->status;
}

TEST(usage_and_exit_codes)
{
	static const char *const cmds[] = {
		"gen", "dump", "funcs", "vars", "publish", "load", "unload", "add", "del", "list",
		"stats", "trace", "stack",
	};
	struct run r;
	size_t i;

	EXPECT_EQ(2, run_tool(&r, NULL, NULL));
	EXPECT_EQ(0, run_tool(&r, NULL, "--help", NULL));
	for (i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++) {
		char word[32];

		snprintf(word, sizeof(word), "\n  %s ", cmds[i]);
		EXPECT_NE(NULL, strstr(r.out, word)) {
			TH_LOG("inkprobe --help does not list %s", cmds[i]);
		}
	}
	for (i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++) {
		EXPECT_EQ(0, run_tool(&r, "/nonexistent", cmds[i], "--help", NULL));
		EXPECT_EQ(0, strncmp(r.out, "usage: inkprobe ", 16)) {
			TH_LOG("%s --help: %s", cmds[i], r.out);
		}
		EXPECT_EQ(2, run_tool(&r, "/nonexistent", cmds[i], "--no-such-option", NULL));
		EXPECT_NE(NULL, strstr(r.err, "usage: inkprobe "));
	}
	EXPECT_EQ(2, run_tool(&r, NULL, "nosuch", NULL));
	EXPECT_NE(NULL, strstr(r.err, "unknown command 'nosuch'"));
	/* missing or bad operands */
	/* load without BLOB fetches by build ID: not without a debuginfod server */
	unsetenv("DEBUGINFOD_URLS");
	EXPECT_EQ(1, run_tool(&r, NULL, "load", NULL));
	EXPECT_NE(NULL, strstr(r.err, "load without BLOB needs a debuginfod server: set "
				      "DEBUGINFOD_URLS")) {
		TH_LOG("%s", r.err);
	}
	EXPECT_EQ(2, run_tool(&r, NULL, "load", "--build-id", "ab", "x.inkb", NULL));
	EXPECT_EQ(2, run_tool(&r, NULL, "publish", NULL));
	EXPECT_EQ(2, run_tool(&r, NULL, "publish", "a.inkb", "b.inkb", NULL));
	EXPECT_EQ(2, run_tool(&r, NULL, "gen", NULL));
	EXPECT_EQ(2, run_tool(&r, NULL, "unload", NULL));
	EXPECT_EQ(2, run_tool(&r, NULL, "add", NULL));
	EXPECT_EQ(2, run_tool(&r, NULL, "add", " ", "", NULL));
	EXPECT_EQ(2, run_tool(&r, NULL, "del", NULL));
	EXPECT_EQ(2, run_tool(&r, NULL, "list", "extra", NULL));
	EXPECT_EQ(2, run_tool(&r, NULL, "stats", "extra", NULL));
	EXPECT_EQ(2, run_tool(&r, NULL, "stack", NULL));
	EXPECT_EQ(2, run_tool(&r, NULL, "stack", "12x", NULL));
	EXPECT_EQ(2, run_tool(&r, NULL, "stack", "0", NULL));
	EXPECT_EQ(2, run_tool(&r, NULL, "stack", "1", "2", NULL));
	EXPECT_EQ(2, run_tool(&r, NULL, "trace", "--count", "0", NULL));
	EXPECT_EQ(2, run_tool(&r, NULL, "trace", "--count", "-1", NULL));
	EXPECT_EQ(2, run_tool(&r, NULL, "trace", "--timeout", "soon", NULL));
	EXPECT_EQ(2, run_tool(&r, NULL, "trace", "extra", NULL));
}

TEST(not_loaded_says_what_to_do)
{
	static const char *const cmds[][2] = {
		{ "list" }, { "stats" }, { "trace" }, { "add", "p:a/b f" }, { "del", "a/b" },
		{ "unload", "vmlinux" }, { "stack", "1" },
	};
	struct run r;
	size_t i;

	for (i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++) {
		EXPECT_EQ(1, run_tool(&r, "/nonexistent/inkprobe", cmds[i][0], cmds[i][1], NULL));
		EXPECT_NE(NULL, strstr(r.err, "inkprobe.ko is not loaded")) {
			TH_LOG("%s: %s", cmds[i][0], r.err);
		}
		EXPECT_NE(NULL, strstr(r.err, ": insmod inkprobe.ko"));
	}
}

FIXTURE(fake) {
	char dir[64];
	char path[128];
};

FIXTURE_SETUP(fake)
{
	strcpy(self->dir, "/tmp/inkprobe-tool-test.XXXXXX");
	ASSERT_NE(NULL, mkdtemp(self->dir));
}

FIXTURE_TEARDOWN(fake)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", self->dir);
	if (system(cmd))
		TH_LOG("cannot remove %s", self->dir);
}

static const char *in_dir(FIXTURE_DATA(fake) *self, const char *name)
{
	snprintf(self->path, sizeof(self->path), "%s/%s", self->dir, name);
	return self->path;
}

static void put(FIXTURE_DATA(fake) *self, const char *name, const char *text)
{
	FILE *f = fopen(in_dir(self, name), "w");

	if (f) {
		fputs(text, f);
		fclose(f);
	}
}

static const char *get(FIXTURE_DATA(fake) *self, const char *name)
{
	static char text[8192];

	slurp(open(in_dir(self, name), O_RDONLY), text, sizeof(text));
	return text;
}

TEST_F(fake, add_and_del_append)
{
	struct run r;

	put(self, "probes", "p:old/ev f\n");
	EXPECT_EQ(0, run_tool(&r, self->dir, "add", "p:tgt/tool tgt_mix reg konst", NULL));
	EXPECT_EQ(0, run_tool(&r, self->dir, "add", "p:tgt/w", "tgt_mix", "reg", NULL));
	EXPECT_EQ(0, run_tool(&r, self->dir, "del", "tgt/tool", "-:tgt/w", NULL));
	/* the kprobe_events form first: an operand, not options */
	EXPECT_EQ(0, run_tool(&r, self->dir, "del", "-:tgt/x", "y", NULL)) TH_LOG("%s", r.err);
	EXPECT_STREQ("p:old/ev f\np:tgt/tool tgt_mix reg konstp:tgt/w tgt_mix reg"
		     "-:tgt/tool-:tgt/w-:tgt/x-:y", get(self, "probes"));
	EXPECT_EQ(2, run_tool(&r, self->dir, "del", "-x", NULL));
	EXPECT_EQ(0, run_tool(&r, self->dir, "list", NULL));
	EXPECT_EQ(0, strncmp(r.out, "p:old/ev f\n", 11));
}

TEST_F(fake, load_unload_list_blobs)
{
	struct run r;

	put(self, "blob", "");
	put(self, "blobs", "inkprobe_target build-id=a037 instances=5 symbols=3 live\n");
	put(self, "my.inkb", "INKB not really a blob\n");
	EXPECT_EQ(0, run_tool(&r, self->dir, "load", in_dir(self, "my.inkb"), NULL));
	EXPECT_STREQ("INKB not really a blob\n", get(self, "blob"));
	EXPECT_EQ(1, run_tool(&r, self->dir, "load", in_dir(self, "missing.inkb"), NULL));
	EXPECT_NE(NULL, strstr(r.err, "missing.inkb: No such file or directory"));
	/* an empty write would load nothing and succeed */
	put(self, "empty.inkb", "");
	EXPECT_EQ(1, run_tool(&r, self->dir, "load", in_dir(self, "empty.inkb"), NULL));
	EXPECT_NE(NULL, strstr(r.err, "an empty file is not a blob"));
	EXPECT_EQ(0, run_tool(&r, self->dir, "list", "--blobs", NULL));
	EXPECT_STREQ("inkprobe_target build-id=a037 instances=5 symbols=3 live\n", r.out);
	put(self, "blobs", "");
	EXPECT_EQ(0, run_tool(&r, self->dir, "unload", "inkprobe_target", NULL));
	EXPECT_STREQ("-inkprobe_target", get(self, "blobs"));
}

TEST_F(fake, failed_write_reports_errno)
{
	struct run r;

	ASSERT_EQ(0, symlink("/dev/full", in_dir(self, "probes")));
	EXPECT_EQ(1, run_tool(&r, self->dir, "add", "p:a/b f", NULL));
	EXPECT_NE(NULL, strstr(r.err, "inkprobe: add: No space left on device")) {
		TH_LOG("%s", r.err);
	}
}

TEST_F(fake, stats_json)
{
	struct run r;

	put(self, "stats", "tgt/mix probes=3 live=2 hits=12 written=10 lost=2 missed=0 refused=1 "
			   "enabled\n"
			   "inkprobe/tgt_leaf probes=1 live=0 hits=0 written=0 lost=0 missed=0 "
			   "refused=0 disabled\n");
	EXPECT_EQ(0, run_tool(&r, self->dir, "stats", "--json", NULL));
	EXPECT_STREQ("{\"group\":\"tgt\",\"event\":\"mix\",\"probes\":3,\"live\":2,\"hits\":12,"
		     "\"written\":10,\"lost\":2,\"missed\":0,\"refused\":1,\"enabled\":true}\n"
		     "{\"group\":\"inkprobe\",\"event\":\"tgt_leaf\",\"probes\":1,\"live\":0,"
		     "\"hits\":0,\"written\":0,\"lost\":0,\"missed\":0,\"refused\":0,"
		     "\"enabled\":false}\n", r.out);
	EXPECT_EQ(0, run_tool(&r, self->dir, "stats", NULL));
	EXPECT_STREQ(get(self, "stats"), r.out);
}

TEST_F(fake, stack_writes_the_tid)
{
	struct run r;

	EXPECT_EQ(1, run_tool(&r, self->dir, "stack", "42", NULL));
	EXPECT_NE(NULL, strstr(r.err, "stack: no such file")) {
		TH_LOG("%s", r.err);
	}
	put(self, "stack", "");
	EXPECT_EQ(0, run_tool(&r, self->dir, "stack", "42", NULL));
	EXPECT_STREQ("42", get(self, "stack"));
}

TEST_F(fake, trace_copy_of_trace_pipe)
{
	struct run r;

	put(self, "trace_pipe", LINE_A "\n => f+0x1/0x2\n" LINE_A "\n" LINE_A "\n");
	EXPECT_EQ(0, run_tool(&r, self->dir, "trace", "--json", NULL));
	EXPECT_STREQ("{\"comm\":\"demo-guest.sh\",\"pid\":250,\"cpu\":0,\"ts\":\"13.095604\","
		     "\"group\":\"tgt\",\"event\":\"mix\",\"caller\":\"tgt_caller_a\",\"offset\":40,"
		     "\"args\":{\"reg\":\"4242\",\"konst\":\"7\",\"obj\":\"0xff85061a4060bc70\","
		     "\"weight\":\"9\"},\"stack\":[\"f+0x1/0x2\"]}\n" JSON_A JSON_A, r.out);
	/* --count: the Nth event with its stack lines, nothing after */
	EXPECT_EQ(0, run_tool(&r, self->dir, "trace", "--count", "1", NULL));
	EXPECT_STREQ(LINE_A "\n => f+0x1/0x2\n", r.out);
	EXPECT_EQ(0, run_tool(&r, self->dir, "trace", "-n", "2", NULL));
	EXPECT_STREQ(LINE_A "\n => f+0x1/0x2\n" LINE_A "\n", r.out);
	/* fewer events than --count at end of file: not a time limit, so status 0 */
	EXPECT_EQ(0, run_tool(&r, self->dir, "trace", "--count", "5", NULL));
	EXPECT_STREQ(get(self, "trace_pipe"), r.out);
}

/* Waits until @fd has @lines newlines in total or 5 s passed; appends to @buf. */
static int read_lines(int fd, char *buf, size_t size, int lines)
{
	size_t len = strlen(buf);
	struct pollfd p = { .fd = fd, .events = POLLIN };
	int n = 0;
	ssize_t r;
	char *s;

	while (len + 1 < size && poll(&p, 1, 5000) > 0) {
		r = read(fd, buf + len, size - 1 - len);
		if (r <= 0)
			break;
		len += r;
		buf[len] = '\0';
		for (n = 0, s = buf; (s = strchr(s, '\n')); s++)
			n++;
		if (n >= lines)
			break;
	}
	return n;
}

TEST_F(fake, trace_sigint_flushes_and_exits_0)
{
	static const char input[] = LINE_A "\n" LINE_A "\n  cut-1 [000";
	int out[2], err = fileno(tmpfile()), fifo;
	char text[4096] = "";
	pid_t pid;

	ASSERT_EQ(0, mkfifo(in_dir(self, "trace_pipe"), 0600));
	/* held open for writing, so the tool never sees end of file */
	fifo = open(in_dir(self, "trace_pipe"), O_RDWR | O_CLOEXEC);
	ASSERT_LE(0, fifo);
	ASSERT_EQ(0, pipe2(out, O_CLOEXEC));
	pid = start_tool(self->dir, (char *[]){ "trace", "--json", NULL }, out[1], err);
	close(out[1]);
	/* two events and the start of a third in one write: read at once */
	ASSERT_EQ(sizeof(input) - 1, write(fifo, input, sizeof(input) - 1));
	/* the second is held until the tool sees that no stack line follows */
	EXPECT_EQ(2, read_lines(out[0], text, sizeof(text), 2));
	EXPECT_EQ(0, kill(pid, SIGINT));
	EXPECT_EQ(0, exit_status(pid));
	read_lines(out[0], text, sizeof(text), 3);
	EXPECT_STREQ(JSON_A JSON_A "{\"raw\":\"  cut-1 [000\"}\n", text);
	close(out[0]);
	close(fifo);
}

TEST_F(fake, trace_time_limit)
{
	struct run r;
	int fifo;

	ASSERT_EQ(0, mkfifo(in_dir(self, "trace_pipe"), 0600));
	fifo = open(in_dir(self, "trace_pipe"), O_RDWR | O_CLOEXEC);
	ASSERT_LE(0, fifo);
	EXPECT_EQ(0, run_tool(&r, self->dir, "trace", "--timeout", "0.2", NULL));
	EXPECT_STREQ("", r.out);
	ASSERT_LT(0, write(fifo, LINE_A "\n", strlen(LINE_A) + 1));
	EXPECT_EQ(1, run_tool(&r, self->dir, "trace", "--count", "2", "--timeout", "0.3", NULL));
	EXPECT_STREQ(LINE_A "\n", r.out);
	EXPECT_NE(NULL, strstr(r.err, "with 1 of 2 events")) {
		TH_LOG("%s", r.err);
	}
	close(fifo);
}

TEST_HARNESS_MAIN
