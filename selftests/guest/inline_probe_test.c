// SPDX-License-Identifier: GPL-2.0
/*
 * One inlined function, end to end: tgt_mix() is inlined into tgt_caller_a()
 * and tgt_caller_b() of inkprobe_target.ko.  A probe on it must land on both
 * copies and decode every argument exactly as the target module says it
 * passed them (its "expected" file); removing the probe or the module must
 * leave no kprobe behind.  Copies in code kprobes refuse (tgt_noprobe.c:
 * noinstr and NOKPROBE_SYMBOL() callers) take no probe: a definition
 * attaches to the other copies only, counting them as noprobe in stats, and
 * one that names no other is refused with the reason.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "kselftest_harness.h"
#include "guest_util.h"

#define PROBE	"p:tgt/inl tgt_mix reg konst obj weight=obj->weight"

FIXTURE(inline_probe) {
	int unused;
};

FIXTURE_SETUP(inline_probe)
{
	ASSERT_EQ(0, setup_target());
	ASSERT_EQ(0, clear_probes());
	drain_events();
}

FIXTURE_TEARDOWN(inline_probe)
{
	clear_probes();
}

/*
 * Triggers the target with @a, @b, @w and checks that there is exactly one
 * event per call and that each carries the values the target recorded.
 */
static void check_round(struct __test_metadata *_metadata, unsigned long long a,
			unsigned long long b, unsigned int w)
{
	char *lines[4], *expected, *save = NULL, *exp_line;
	int n, i, matched = 0;

	ASSERT_EQ(0, trigger_target(a, b, w));
	expected = read_file(TGT_DIR "/expected", NULL);
	ASSERT_NE(NULL, expected);
	n = read_events(lines, 4, 2000);
	ASSERT_EQ(2, n) {
		TH_LOG("got %d events for %llu %llu %u", n, a, b, w);
	}
	for (exp_line = strtok_r(expected, "\n", &save); exp_line;
	     exp_line = strtok_r(NULL, "\n", &save)) {
		char want_caller[64], caller[64];
		const char *want_args, *args;
		unsigned int off;

		/* "tgt_mix <caller> <args>" */
		ASSERT_EQ(0, strncmp(exp_line, "tgt_mix ", 8));
		want_args = strchr(exp_line + 8, ' ');
		ASSERT_NE(NULL, want_args);
		snprintf(want_caller, sizeof(want_caller), "%.*s",
			 (int)(want_args - exp_line - 8), exp_line + 8);
		want_args++;
		for (i = 0; i < n; i++) {
			ASSERT_TRUE(parse_event(lines[i], caller, sizeof(caller), &off, &args));
			if (strcmp(caller, want_caller))
				continue;
			EXPECT_STREQ(want_args, args) {
				TH_LOG("event: %s", lines[i]);
			}
			matched++;
		}
	}
	EXPECT_EQ(2, matched);
	free_lines(lines, n);
	free(expected);
}

TEST_F(inline_probe, both_instances_exact_values)
{
	unsigned long long seed = (unsigned long long)time(NULL) ^ getpid();
	int round;

	ASSERT_EQ(0, probes_cmd(PROBE, false)) {
		TH_LOG("error_log: %s", last_error());
	}
	ASSERT_EQ(0, events_enable("tgt/inl"));
	/* one kprobe per inlined copy, on the two callers */
	EXPECT_EQ(1, count_kprobes("tgt_caller_a+"));
	EXPECT_EQ(1, count_kprobes("tgt_caller_b+"));
	srandom((unsigned int)seed);
	TH_LOG("seed %llu", seed);
	for (round = 0; round < 3; round++) {
		unsigned long long a = ((unsigned long long)random() << 31) ^ random();
		unsigned long long b = (unsigned long long)random();
		unsigned int w = (unsigned int)random();

		check_round(_metadata, a, b, w);
	}
}

TEST_F(inline_probe, listed_as_written)
{
	char *list;

	ASSERT_EQ(0, probes_cmd(PROBE, false));
	list = read_file(INK_DIR "/probes", NULL);
	ASSERT_NE(NULL, list);
	EXPECT_STREQ(PROBE "\n", list);
	free(list);
}

TEST_F(inline_probe, removal_leaves_no_kprobe)
{
	char *list;

	char *lines[4];

	ASSERT_EQ(0, probes_cmd(PROBE, false));
	ASSERT_EQ(2, count_kprobes("tgt_caller_"));
	/* its events arrive while it is there */
	ASSERT_EQ(0, events_enable("tgt/inl"));
	ASSERT_EQ(0, trigger_target(1, 2, 3));
	EXPECT_EQ(2, read_events(lines, 4, 2000));
	free_lines(lines, 2);
	ASSERT_EQ(0, probes_cmd("-:tgt/inl", true));
	EXPECT_EQ(0, count_kprobes("tgt_caller_"));
	list = read_file(INK_DIR "/probes", NULL);
	ASSERT_NE(NULL, list);
	EXPECT_STREQ("", list);
	free(list);
	/* and the target runs without events */
	ASSERT_EQ(0, trigger_target(1, 2, 3));
	EXPECT_EQ(0, read_events(lines, 1, 300));
}

TEST_F(inline_probe, rmmod_leaves_no_kprobe)
{
	ASSERT_EQ(0, probes_cmd(PROBE, false));
	ASSERT_EQ(2, count_kprobes("tgt_caller_"));
	ASSERT_EQ(0, unload_module("inkprobe"));
	EXPECT_EQ(0, count_kprobes("tgt_caller_"));
	EXPECT_FALSE(module_loaded("inkprobe"));
	/* back for the next tests */
	ASSERT_EQ(0, setup_target());
}

#define NP_REFUSED "none of the 1 instances of this target may be probed (in noinstr, entry " \
	"or NOKPROBE code, or at a pc kprobes refuse: their records keep ranges for stacks only)"

TEST_F(inline_probe, no_probe_copies_take_no_probe)
{
	char *stats, *line, *nl;

	/* tgt_np_helper(): three copies, one of them probeable (tgt_np_plain) */
	ASSERT_EQ(0, probes_cmd("p:np/tgt_np_helper tgt_np_helper v", false)) {
		TH_LOG("error_log: %s", last_error());
	}
	EXPECT_EQ(1, count_kprobes("tgt_np_plain+"));
	EXPECT_EQ(0, count_kprobes("tgt_np_noinstr"));
	EXPECT_EQ(0, count_kprobes("tgt_np_nokprobe"));
	stats = read_file(INK_DIR "/stats", NULL);
	ASSERT_NE(NULL, stats);
	line = strstr(stats, "np/tgt_np_helper probes=");
	ASSERT_NE(NULL, line);
	nl = strchr(line, '\n');
	ASSERT_NE(NULL, nl);
	*nl = '\0';
	EXPECT_EQ(0, strncmp(line, "np/tgt_np_helper probes=1 live=1 refused=0 notrace=0 ", 53))
		TH_LOG("%s", line);
	EXPECT_STREQ(" noprobe=2", nl - 10) TH_LOG("%s", line);
	free(stats);
	/* one event per call of the plain copy, none from the others */
	ASSERT_EQ(0, events_enable("np/tgt_np_helper"));
	EXPECT_EQ(0, check_scenario("noprobe 5", "np", 2000));
	EXPECT_EQ(0, check_scenario("noprobe 1000", "np", 2000));
	ASSERT_EQ(0, probes_cmd("-:np/tgt_np_helper", true));
	/* an exit probe: at the plain copy's one exit alone */
	ASSERT_EQ(0, probes_cmd("r:np/ret tgt_np_helper", true)) {
		TH_LOG("error_log: %s", last_error());
	}
	EXPECT_EQ(1, count_kprobes("tgt_np_plain+"));
	EXPECT_EQ(0, count_kprobes("tgt_np_noinstr"));
	EXPECT_EQ(0, count_kprobes("tgt_np_nokprobe"));
	stats = read_file(INK_DIR "/stats", NULL);
	ASSERT_NE(NULL, stats);
	line = strstr(stats, "np/ret probes=");
	ASSERT_NE(NULL, line);
	nl = strchr(line, '\n');
	ASSERT_NE(NULL, nl);
	*nl = '\0';
	EXPECT_EQ(0, strncmp(line, "np/ret probes=1 live=1 refused=0 ", 33)) TH_LOG("%s", line);
	EXPECT_NE(NULL, strstr(line, " instances=1 noexits=0 dropped=0 noprobe=2")) TH_LOG("%s", line);
	free(stats);
	ASSERT_EQ(0, probes_cmd("-:np/ret", true));
	/* a target naming only refused copies: refused, the reason logged */
	ASSERT_EQ(0, clear_errors());
	EXPECT_NE(0, probes_cmd("p:np/only tgt_np_only v", true));
	EXPECT_STREQ(NP_REFUSED, last_error());
	ASSERT_EQ(0, clear_errors());
	EXPECT_NE(0, probes_cmd("p:np/at tgt_np_helper@tgt_np_noinstr", true));
	EXPECT_STREQ(NP_REFUSED, last_error());
	EXPECT_EQ(0, count_kprobes("tgt_np_"));
	{
		char *list = read_file(INK_DIR "/probes", NULL);

		ASSERT_NE(NULL, list);
		EXPECT_STREQ("", list);
		free(list);
	}
}

TEST_HARNESS_MAIN
