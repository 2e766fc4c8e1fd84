// SPDX-License-Identifier: GPL-2.0
/*
 * Exact arguments for every location class and every kind of copy, against
 * the values inkprobe_target says it passed (selftests/target/):
 *   register, constant, register+offset value, memory at register+offset,
 *   frame base (inlined and out of line), relocated global, pieces,
 *   optimized out; a partially inlined function (hit counts per copy), a
 *   .constprop and an .isra clone, two static functions with one name,
 *   functions GCC splits in two (NAME.part.N), FUNC@CALLER and CALLER+OFF;
 *   :string of a char pointer (through a typedef) and of a char array.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kselftest_harness.h"
#include "guest_util.h"

FIXTURE(loc) {
	int unused;
};

FIXTURE_SETUP(loc)
{
	ASSERT_EQ(0, setup_target());
	ASSERT_EQ(0, clear_probes());
	drain_events();
}

FIXTURE_TEARDOWN(loc)
{
	clear_probes();
}

TEST_F(loc, every_location_class)
{
	int i;

	for (i = 0; i < NR_LOC_CLASS_DEFS; i++)
		ASSERT_EQ(0, define_probe(loc_class_defs[i]));
	ASSERT_EQ(0, events_enable("loc"));
	EXPECT_EQ(0, check_scenario("loc 81985529216486895 4023233417", "loc", 1000));
	EXPECT_EQ(0, check_scenario("loc 7 9", "loc", 1000));
}

/* A pointer to char is read where it points, an array of char where it is. */
TEST_F(loc, strings_from_pointers_and_arrays)
{
	ASSERT_EQ(0, define_probe("p:str/tgt_strings tgt_strings name=l->name:string "
			    "note=l->note:string s:string"));
	ASSERT_EQ(0, events_enable("str"));
	EXPECT_EQ(0, check_scenario("strings 123456", "str", 1000));
	EXPECT_EQ(0, check_scenario("strings 7", "str", 1000));
}

TEST_F(loc, partial_inlining_counts_every_copy)
{
	char *stats;

	/* two inlined copies and the out-of-line copy, a7 on the stack there */
	ASSERT_EQ(0, define_probe("p:part/tgt_part tgt_part a1 a2 a3 a4 a5 a6 a7"));
	ASSERT_EQ(0, events_enable("part"));
	EXPECT_EQ(1, count_kprobes("tgt_part_caller_a+"));
	EXPECT_EQ(1, count_kprobes("tgt_part_caller_b+"));
	/* at +0x0, or +0x4 where kprobes steps over an IBT endbr64 (6.12) */
	EXPECT_EQ(1, count_kprobes("tgt_part+0x"));
	EXPECT_EQ(0, check_scenario("partial 10", "part", 1000));
	stats = read_file(INK_DIR "/stats", NULL);
	ASSERT_NE(NULL, stats);
	EXPECT_NE(NULL, strstr(stats, "part/tgt_part probes=3 live=3 refused=0 notrace=0 hits=30 "
			       "missed=0 ftrace_hits=30 ftrace_written=30 ftrace_filtered=0 "
			       "ftrace_lost=0 ")) {
		TH_LOG("stats: %s", stats);
	}
	free(stats);
}

TEST_F(loc, clones_use_their_own_locations)
{
	ASSERT_EQ(0, define_probe("p:clone/tgt_cp tgt_cp x mode"));
	ASSERT_EQ(0, define_probe("p:clone/tgt_sra tgt_sra o x"));
	ASSERT_EQ(0, events_enable("clone"));
	EXPECT_EQ(1, count_kprobes("tgt_cp.constprop"));
	EXPECT_EQ(1, count_kprobes("tgt_sra.isra"));
	EXPECT_EQ(0, check_scenario("clones 1234567", "clone", 1000));
}

TEST_F(loc, static_functions_sharing_a_name)
{
	ASSERT_EQ(0, define_probe("p:dup/tgt_dup tgt_dup x"));
	ASSERT_EQ(0, events_enable("dup"));
	EXPECT_EQ(2, count_kprobes("tgt_dup+0x"));
	EXPECT_EQ(0, check_scenario("dups 31337", "dup", 1000));
}

/* GCC split these in two: each call is seen once, where it enters (tgt_split.c) */
TEST_F(loc, split_functions_seen_once_per_call)
{
	char *stats, *lines[8], caller[64];
	const char *args;
	unsigned int off;
	int n, i;

	/* the rest of tgt_uncharge() inside each of its copies is no probe */
	ASSERT_EQ(0, define_probe("p:split/tgt_uncharge tgt_uncharge a size"));
	EXPECT_EQ(1, count_kprobes("tgt_uncharge_caller_a+"));
	EXPECT_EQ(1, count_kprobes("tgt_uncharge_caller_b+"));
	EXPECT_EQ(1, count_kprobes("tgt_uncharge+0x"));
	/* tgt_split.part.0 is entered only from tgt_split()'s heads */
	ASSERT_EQ(0, define_probe("p:split/tgt_split tgt_split a x"));
	ASSERT_EQ(0, events_enable("split"));
	EXPECT_EQ(3, count_kprobes("tgt_split_caller_"));
	EXPECT_EQ(0, count_kprobes("tgt_split.part."));
	EXPECT_EQ(0, check_scenario("split 40", "split", 1000));
	stats = read_file(INK_DIR "/stats", NULL);
	ASSERT_NE(NULL, stats);
	EXPECT_NE(NULL, strstr(stats, "split/tgt_uncharge probes=3 live=3 refused=0 notrace=0 "
			       "hits=6 missed=0 ftrace_hits=6 ftrace_written=6 "
			       "ftrace_filtered=0 ftrace_lost=0 "));
	EXPECT_NE(NULL, strstr(stats, "split/tgt_split probes=3 live=3 refused=0 notrace=0 "
			       "hits=6 missed=0 ftrace_hits=6 ftrace_written=6 "
			       "ftrace_filtered=0 ftrace_lost=0 ")) {
		TH_LOG("stats: %s", stats);
	}
	free(stats);

	/* named exactly, the rest is probed: the calls that get past the head */
	ASSERT_EQ(0, clear_probes());
	ASSERT_EQ(0, define_probe("p:part/rest tgt_split@tgt_split.part.0 x"));
	ASSERT_EQ(0, events_enable("part/rest"));
	EXPECT_EQ(1, count_kprobes("tgt_split.part."));
	ASSERT_EQ(0, write_file(TGT_DIR "/trigger", "split 40", false));
	n = read_events(lines, 8, 500);
	ASSERT_EQ(3, n);
	for (i = 0; i < n; i++) {
		static const char *const want[] = { "x=40", "x=120", "x=200" };

		ASSERT_TRUE(parse_event(lines[i], caller, sizeof(caller), &off, &args));
		EXPECT_EQ(0, strncmp(caller, "tgt_split.part.", 15));
		EXPECT_EQ(0u, off);
		EXPECT_STREQ(want[i], args);
	}
	free_lines(lines, n);
}

TEST_F(loc, func_at_caller_restricts)
{
	char *lines[4], caller[64];
	const char *args;
	unsigned int off;
	int n;

	ASSERT_EQ(0, define_probe("p:at/b tgt_mix@tgt_caller_b reg konst"));
	ASSERT_EQ(0, events_enable("at/b"));
	EXPECT_EQ(0, count_kprobes("tgt_caller_a+"));
	EXPECT_EQ(1, count_kprobes("tgt_caller_b+"));
	ASSERT_EQ(0, trigger_target(5, 6, 7));
	n = read_events(lines, 4, 500);
	ASSERT_EQ(1, n);
	ASSERT_TRUE(parse_event(lines[0], caller, sizeof(caller), &off, &args));
	EXPECT_STREQ("tgt_caller_b", caller);
	/* 6 ^ 0x5a5a, as tgt_caller_b passes it */
	EXPECT_STREQ("reg=23132 konst=-11", args);
	free_lines(lines, n);
}

TEST_F(loc, members_of_embedded_structs)
{
	char *lines[4], caller[64];
	const char *args;
	unsigned int off;

	/* "->" reads obj, ".inner.b" is a member of a member: one more read */
	ASSERT_EQ(0, define_probe("p:dot/mix tgt_mix@tgt_caller_a cookie=obj->cookie b=obj->inner.b "
			    "a=obj->inner.a:x32"));
	ASSERT_EQ(0, events_enable("dot/mix"));
	ASSERT_EQ(0, trigger_target(123456789012ULL, 5, 0xabcd));
	ASSERT_EQ(1, read_events(lines, 4, 500));
	ASSERT_TRUE(parse_event(lines[0], caller, sizeof(caller), &off, &args));
	/* tgt_run_mix: inner = { w, w ^ 0x1234 } */
	EXPECT_STREQ("cookie=123456789012 b=47609 a=0xabcd", args);	/* 0xabcd ^ 0x1234 */
	free_lines(lines, 1);
	EXPECT_EQ(-EINVAL, probes_cmd("p:dot/bad tgt_mix obj->inner->b", true));
	EXPECT_NE(NULL, strstr(last_error(), "is not a pointer"));
	EXPECT_EQ(-EINVAL, probes_cmd("p:dot/bad2 tgt_mix obj.weight", true));
}

TEST_F(loc, caller_plus_offset_names_one_instance)
{
	char *list, *at, cmd[160], *lines[4], caller[64];
	const char *args;
	unsigned int off, want_off;
	int n;

	/* learn where tgt_mix sits in tgt_caller_a from the kprobes list */
	ASSERT_EQ(0, define_probe("p:tmp/mix tgt_mix@tgt_caller_a reg"));
	list = read_file(KPROBES_LIST, NULL);
	ASSERT_NE(NULL, list);
	at = strstr(list, "tgt_caller_a+0x");
	ASSERT_NE(NULL, at);
	ASSERT_EQ(1, sscanf(at, "tgt_caller_a+0x%x", &want_off));
	free(list);
	ASSERT_EQ(0, probes_cmd("-:tmp/mix", true));

	snprintf(cmd, sizeof(cmd), "p:off/a tgt_caller_a+0x%x reg konst obj", want_off);
	ASSERT_EQ(0, define_probe(cmd));
	ASSERT_EQ(0, events_enable("off/a"));
	ASSERT_EQ(0, trigger_target(11, 12, 13));
	n = read_events(lines, 4, 500);
	ASSERT_EQ(1, n);
	ASSERT_TRUE(parse_event(lines[0], caller, sizeof(caller), &off, &args));
	EXPECT_STREQ("tgt_caller_a", caller);
	EXPECT_EQ(want_off, off);
	EXPECT_EQ(0, strncmp(args, "reg=11 konst=7 obj=0x", 21));
	free_lines(lines, n);
	/* an offset with no instance is an error, not a bare kprobe */
	snprintf(cmd, sizeof(cmd), "p:off/b tgt_caller_a+0x%x reg", want_off + 1);
	EXPECT_EQ(-ENOENT, probes_cmd(cmd, true));
	/* so is a function never inlined: the blob has no record of it */
	EXPECT_EQ(-ENOENT, probes_cmd("p:off/c tgt_caller_a x", true));
	EXPECT_NE(NULL, strstr(last_error(), "never inlined has none: probe it with kprobe_events"));
}

TEST_HARNESS_MAIN
