// SPDX-License-Identifier: GPL-2.0
/*
 * Limits at their boundaries (Documentation/control.rst):
 *
 *   max_probes   a definition may match at most max_probes instances:
 *                tgt_mix() has two (inlined into tgt_caller_a() and
 *                tgt_caller_b(), the target's source), so max_probes=2
 *                takes "p tgt_mix", max_probes=1 refuses it (E2BIG, the
 *                message under TARGET) and takes its one instance in
 *                tgt_caller_a()
 *   error_log    the last 16 errors: after 16 all are there, after 20 the
 *                first 4 are gone, the others in order, each with its
 *                command and its caret under the word at fault
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "kselftest_harness.h"
#include "guest_util.h"

#define PARAM	"/sys/module/inkprobe/parameters/max_probes"

static char *param(void)
{
	return read_file(PARAM, NULL);
}

/* three reloads of inkprobe: more than the default 30 s under load */
FIXTURE(lim) {
	int unused;
};

FIXTURE_SETUP(lim)
{
}

FIXTURE_TEARDOWN(lim)
{
}

TEST_F_TIMEOUT(lim, max_probes_boundary, 120)
{
	struct stat st;
	char *v, *stats;

	ASSERT_EQ(0, reload_inkprobe("max_probes=2"));
	v = param();
	EXPECT_STREQ("2\n", v);
	free(v);
	ASSERT_EQ(0, define_probe("p:mp/mix tgt_mix reg"));
	stats = read_file(INK_DIR "/stats", NULL);
	ASSERT_NE(NULL, stats);
	EXPECT_NE(NULL, strstr(stats, "mp/mix probes=2 live=2 ")) TH_LOG("%s", stats);
	free(stats);
	ASSERT_EQ(0, clear_probes());

	ASSERT_EQ(0, reload_inkprobe("max_probes=1"));
	ASSERT_EQ(0, clear_errors());
	EXPECT_EQ(-E2BIG, probes_cmd("p:mp/mix tgt_mix reg", true));
	EXPECT_STREQ("2 instances, more than max_probes=1", last_error());
	EXPECT_EQ((int)strlen("p:mp/mix "), last_error_caret());
	EXPECT_EQ(0, count_kprobes("tgt_caller_"));
	v = read_file(INK_DIR "/probes", NULL);
	EXPECT_STREQ("", v);
	free(v);
	EXPECT_NE(0, stat("/sys/kernel/tracing/events/mp", &st));
	/* one instance: at the limit, taken */
	ASSERT_EQ(0, define_probe("p:mp/one tgt_mix@tgt_caller_a reg"));
	stats = read_file(INK_DIR "/stats", NULL);
	ASSERT_NE(NULL, stats);
	EXPECT_NE(NULL, strstr(stats, "mp/one probes=1 live=1 ")) TH_LOG("%s", stats);
	free(stats);
	EXPECT_EQ(1, count_kprobes("tgt_caller_a"));

	ASSERT_EQ(0, reload_inkprobe(""));
	v = param();
	EXPECT_STREQ("4096\n", v);
	free(v);
}

/* error_log's entries: [ time] inkprobe: error: MSG / Command: CMD / caret. */
struct entry {
	double ts;
	char msg[256], cmd[256];
	int caret;
};

static int read_log(struct entry *e, int max)
{
	char *log = read_file(INK_DIR "/error_log", NULL), *line, *save = NULL;
	int n = 0, part = 0;

	if (!log)
		return -1;
	for (line = strtok_r(log, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		if (part == 0) {
			const char *m = strstr(line, "] inkprobe: error: ");

			if (n == max || line[0] != '[' || !m || sscanf(line + 1, "%lf", &e[n].ts) != 1)
				break;
			snprintf(e[n].msg, sizeof(e[n].msg), "%s", m + strlen("] inkprobe: error: "));
		} else if (part == 1) {
			if (strncmp(line, "  Command: ", 11))
				break;
			snprintf(e[n].cmd, sizeof(e[n].cmd), "%s", line + 11);
		} else {
			char *c = strchr(line, '^');

			if (!c || c[1] || (size_t)(c - line) != strspn(line, " "))
				break;
			e[n++].caret = (int)(c - line) - 11;
		}
		part = (part + 1) % 3;
	}
	free(log);
	return part ? -1 : n;
}

/* Error @i: an unknown parameter, after i + 1 spaces, so each caret differs. */
static void bad_command(int i, char *cmd, size_t n)
{
	snprintf(cmd, n, "p:el/e%02d tgt_mix%*snosuch%02d", i, i + 1, "", i);
}

static int check_log(struct __test_metadata *_metadata, int first, int last)
{
	struct entry e[20];
	char cmd[128], msg[128];
	int n = read_log(e, 20), i;

	EXPECT_EQ(last - first + 1, n);
	for (i = 0; i < n && i <= last - first; i++) {
		bad_command(first + i, cmd, sizeof(cmd));
		snprintf(msg, sizeof(msg), "tgt_mix has no parameter 'nosuch%02d'", first + i);
		EXPECT_STREQ(msg, e[i].msg);
		EXPECT_STREQ(cmd, e[i].cmd);
		EXPECT_EQ((int)(strstr(cmd, "nosuch") - cmd), e[i].caret) TH_LOG("entry %d", i);
		if (i)
			EXPECT_LE(e[i - 1].ts, e[i].ts);
	}
	return n;
}

TEST(error_log_keeps_the_last_16)
{
	char cmd[128];
	int i;

	ASSERT_EQ(0, setup_target());
	ASSERT_EQ(0, clear_probes());
	ASSERT_EQ(0, clear_errors());
	for (i = 0; i < 20; i++) {
		bad_command(i, cmd, sizeof(cmd));
		ASSERT_EQ(-ENOENT, probes_cmd(cmd, true));
		if (i == 15)
			check_log(_metadata, 0, 15);	/* full: nothing evicted yet */
		if (i == 16)
			check_log(_metadata, 1, 16);	/* the oldest one gone */
	}
	check_log(_metadata, 4, 19);
	/* cleared, then one: just that one */
	ASSERT_EQ(0, clear_errors());
	EXPECT_EQ(0, check_log(_metadata, 0, -1));
	bad_command(7, cmd, sizeof(cmd));
	ASSERT_EQ(-ENOENT, probes_cmd(cmd, true));
	check_log(_metadata, 7, 7);
}

TEST_HARNESS_MAIN
