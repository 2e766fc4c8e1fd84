// SPDX-License-Identifier: GPL-2.0
/*
 * The inkprobe tool on the host, under ASan/UBSan: build/inkprobe-san run
 * against a directory standing in for /sys/kernel/debug/inkprobe
 * ($INKPROBE_DEBUGFS_DIR): usage and exit codes, and what each command
 * writes.  trace reads tracefs: its tests run in the guest
 * (selftests/guest/reader_test.c, tool_test.c), its record rendering here in
 * selftests/host/reader_test.c.
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
	/* a probe spec: its syntax, and what it goes with, before anything is touched */
	EXPECT_EQ(2, run_tool(&r, NULL, "trace", "extra", "-e", "tgt", NULL));
	EXPECT_NE(NULL, strstr(r.err, "inkprobe: trace: a probe spec and --event go not "
				      "together")) TH_LOG("%s", r.err);
	EXPECT_EQ(2, run_tool(&r, NULL, "trace", "--stack", NULL));
	EXPECT_EQ(2, run_tool(&r, NULL, "trace", "--kmod", "inkprobe.ko", NULL));
	EXPECT_EQ(2, run_tool(&r, NULL, "trace", "-i", "x.ink", "tgt_mix", NULL));
	EXPECT_EQ(2, run_tool(&r, NULL, "trace", "p:/x tgt_mix", NULL));
	EXPECT_NE(NULL, strstr(r.err, "inkprobe: trace: 'p:/x': expected p:GRP/EVENT or "
				      "p:EVENT")) TH_LOG("%s", r.err);
	EXPECT_EQ(2, run_tool(&r, NULL, "trace", "r", NULL));
	EXPECT_NE(NULL, strstr(r.err, "inkprobe: trace: no function to probe")) TH_LOG("%s", r.err);
	/* recording and reporting: what goes with each */
	EXPECT_EQ(2, run_tool(&r, NULL, "trace", "-o", "x.ink", "-i", "x.ink", NULL));
	EXPECT_EQ(2, run_tool(&r, NULL, "trace", "-o", "x.ink", "--count", "3", NULL));
	EXPECT_NE(NULL, strstr(r.err, "inkprobe: trace: --output and --count (--output does not "
				      "read the events")) TH_LOG("%s", r.err);
	EXPECT_EQ(2, run_tool(&r, NULL, "trace", "-o", "x.ink", "--json", NULL));
	EXPECT_EQ(2, run_tool(&r, NULL, "trace", "-i", "x.ink", "-e", "tgt", NULL));
	EXPECT_EQ(2, run_tool(&r, NULL, "trace", "-i", "x.ink", "--timeout", "1", NULL));
	EXPECT_EQ(2, run_tool(&r, NULL, "trace", "-i", "", NULL));
	/* --input needs neither the module nor tracefs */
	EXPECT_EQ(1, run_tool(&r, "/nonexistent", "trace", "-i", "/nonexistent/x.ink", NULL));
	EXPECT_STREQ("inkprobe: trace: cannot open /nonexistent/x.ink: No such file or "
		     "directory\n", r.err);
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

TEST_HARNESS_MAIN
