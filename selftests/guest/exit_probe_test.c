// SPDX-License-Identifier: GPL-2.0
/*
 * r events on inlined copies (issue 23): selftests/target/tgt_exits.c has
 * one inlined function per way of leaving a copy (an early return, a loop
 * left by a break or its condition, goto to a shared epilogue, a switch
 * (a jump table on 6.1, whose LEAVE_INDIRECT exit must not fire when the
 * table jumps inside the copy), a tail call, paths that never return, a
 * read that faults to an exception-table fixup outside the copy, a copy
 * with a part in NAME.cold).
 * Its "exits A" scenario calls each copy on inputs that take every path
 * and lists the calls in order, with the path each took.
 *
 * Out-of-line copies (tgt_dup) get a kretprobe each, $retval what they
 * return, computed from their source.
 *
 * The oracle is the target's own list: every call gives exactly one entry
 * (p) and then one exit (r) event, in call order, nothing else; every call
 * that took the same path left by the same exit pc.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "kselftest_harness.h"
#include "guest_util.h"

#define MAX_CALLS	32
#define MAX_LINES	(2 * MAX_CALLS + 4)
#define SCENARIO	"exits 6"
/* the calls of tgt_run_exits(), each of its list */
#define NR_CALLS	21

/* the functions of tgt_exits.c, one copy each */
static const char *const funcs[] = {
	"tgt_ex_early", "tgt_ex_loop", "tgt_ex_goto", "tgt_ex_switch", "tgt_ex_tail",
	"tgt_ex_never", "tgt_ex_fault", "tgt_ex_cold",
};

/* "tgt_ex_early" -> "early": the events are exits/p_early and exits/r_early */
static const char *short_name(const char *func)
{
	return func + strlen("tgt_ex_");
}

static int define_both(void)
{
	char cmd[128];
	unsigned int i;
	int ret = 0;

	for (i = 0; i < sizeof(funcs) / sizeof(funcs[0]) && !ret; i++) {
		snprintf(cmd, sizeof(cmd), "p:exits/p_%s %s", short_name(funcs[i]), funcs[i]);
		ret = define_probe(cmd);
		snprintf(cmd, sizeof(cmd), "r:exits/r_%s %s", short_name(funcs[i]), funcs[i]);
		ret = ret ?: define_probe(cmd);
	}
	return ret;
}

FIXTURE(exit_probe) {
	char *expected[MAX_CALLS];
	int nr_expected;
	char *events[MAX_LINES];
	int nr_events;
};

FIXTURE_SETUP(exit_probe)
{
	ASSERT_EQ(0, setup_target());
	ASSERT_EQ(0, clear_probes());
	drain_events();
	self->nr_expected = 0;
	self->nr_events = 0;
}

FIXTURE_TEARDOWN(exit_probe)
{
	free_lines(self->expected, self->nr_expected);
	free_lines(self->events, self->nr_events);
	clear_probes();
}

/* Runs the scenario: the target's list of calls and the events they gave. */
static void run_scenario(struct __test_metadata *_metadata, FIXTURE_DATA(exit_probe) *self)
{
	free_lines(self->expected, self->nr_expected);
	free_lines(self->events, self->nr_events);
	self->nr_expected = self->nr_events = 0;
	ASSERT_EQ(0, write_file(TGT_DIR "/trigger", SCENARIO, false));
	self->nr_expected = expected_lines(self->expected, MAX_CALLS);
	/* 21 calls: tgt_run_exits() */
	ASSERT_EQ(NR_CALLS, self->nr_expected);
	self->nr_events = read_events(self->events, MAX_LINES, 3000);
}

/* One line of the target's list: "<callee> <caller> path=<path> a0=<a> a1=<a>". */
struct call {
	char callee[64], caller[64], path[32];
	unsigned long long a0, a1;	/* the caller's arguments */
};

static bool parse_call(const char *line, struct call *c)
{
	return sscanf(line, "%63s %63s path=%31s a0=%llu a1=%llu", c->callee, c->caller, c->path,
		      &c->a0, &c->a1) == 5;
}

/*
 * What parameter @parm of @c's copy was, from tgt_exits.c's source: the
 * caller passes its own arguments on, but tgt_ex_tail_caller() passes v ^ 5,
 * and tgt_ex_switch() takes (sel, v).
 */
static unsigned long long parm_value(const struct call *c, const char *parm)
{
	if (!strcmp(parm, "n") || (!strcmp(parm, "v") && !strcmp(c->callee, "tgt_ex_switch")))
		return c->a1;
	if (!strcmp(c->callee, "tgt_ex_tail"))
		return c->a0 ^ 5;
	return c->a0;
}

/*
 * The value of "NAME=" in an event's text after "(CALLER+0xOFF) " (its
 * first field, or one after a space), in *@v; false if it has none.
 */
static bool field_value(const char *rest, const char *name, unsigned long long *v)
{
	char key[32], *end;
	const char *at;

	snprintf(key, sizeof(key), " %s=", name);
	at = strncmp(rest, key + 1, strlen(key + 1)) ? strstr(rest, key) : rest - 1;
	if (!at)
		return false;
	*v = strtoull(at + strlen(key), &end, 0);
	return end != at + strlen(key);
}

/* An event's name, caller and offset, and what follows "(caller+0xoff)". */
struct event {
	char name[96], caller[96];
	unsigned int off;
	const char *rest;
};

static bool parse(const char *line, struct event *e)
{
	return event_name(line, e->name, sizeof(e->name)) &&
	       parse_event(line, e->caller, sizeof(e->caller), &e->off, &e->rest);
}

TEST_F(exit_probe, one_entry_and_one_exit_per_call_in_order)
{
	struct { char key[192]; unsigned int off; } seen[MAX_CALLS];
	int i, j, nr_seen = 0;

	static const char *const paths[] = {
		/* the read of a guard page faulted to its fixup, the other did not */
		"tgt_ex_fault tgt_ex_fault_caller path=fault",
		"tgt_ex_fault tgt_ex_fault_caller path=read",
		/* the unlikely path, in tgt_ex_cold_caller.cold where GCC made one */
		"tgt_ex_cold tgt_ex_cold_caller path=cold",
		"tgt_ex_cold tgt_ex_cold_caller path=hot",
	};

	ASSERT_EQ(0, define_both());
	ASSERT_EQ(0, events_enable("exits"));
	run_scenario(_metadata, self);
	for (i = 0; i < (int)(sizeof(paths) / sizeof(paths[0])); i++) {
		/* then the arguments, " a0=... a1=..." */
		for (j = 0; j < self->nr_expected &&
		     (strncmp(self->expected[j], paths[i], strlen(paths[i])) ||
		      self->expected[j][strlen(paths[i])] != ' '); j++)
			;
		EXPECT_LT(j, self->nr_expected) TH_LOG("no call listed as \"%s\"", paths[i]);
	}
	EXPECT_EQ(2 * self->nr_expected, self->nr_events) {
		for (i = 0; i < self->nr_events; i++)
			TH_LOG("event: %s", self->events[i]);
	}
	for (i = 0; i < self->nr_expected && 2 * i + 1 < self->nr_events; i++) {
		struct event in, out;
		struct call c;
		char want[192];
		unsigned int instance, exit;

		ASSERT_TRUE(parse_call(self->expected[i], &c)) TH_LOG("%s", self->expected[i]);
		ASSERT_TRUE(parse(self->events[2 * i], &in)) TH_LOG("%s", self->events[2 * i]);
		ASSERT_TRUE(parse(self->events[2 * i + 1], &out))
			TH_LOG("%s", self->events[2 * i + 1]);
		/* the entry, then the exit, of this call's copy */
		snprintf(want, sizeof(want), "exits:p_%s", short_name(c.callee));
		EXPECT_STREQ(want, in.name) TH_LOG("call %d: %s", i, self->expected[i]);
		EXPECT_STREQ(c.caller, in.caller);
		snprintf(want, sizeof(want), "exits:r_%s", short_name(c.callee));
		EXPECT_STREQ(want, out.name) TH_LOG("call %d: %s", i, self->expected[i]);
		EXPECT_STREQ(c.caller, out.caller);
		/* one copy each: instance 0 */
		ASSERT_EQ(2, sscanf(out.rest, "instance=%u exit=%u", &instance, &exit))
			TH_LOG("%s", self->events[2 * i + 1]);
		EXPECT_EQ(0, instance);
		/* the same path, the same exit */
		snprintf(want, sizeof(want), "%s %s", c.callee, c.path);
		for (j = 0; j < nr_seen && strcmp(seen[j].key, want); j++)
			;
		if (j == nr_seen) {
			snprintf(seen[nr_seen].key, sizeof(seen[0].key), "%s", want);
			seen[nr_seen++].off = out.off;
		}
		EXPECT_EQ(seen[j].off, out.off) TH_LOG("%s left by +0x%x, earlier by +0x%x",
						       want, out.off, seen[j].off);
	}
}

TEST_F(exit_probe, fields_filter_and_stats)
{
	unsigned int instance, exit, want_exit;
	int i, calls = 0, with_exit = 0;
	char *format, *stats, filter[64];
	struct event e;

	ASSERT_EQ(0, define_both());
	format = read_file("/sys/kernel/tracing/events/exits/r_early/format", NULL);
	ASSERT_NE(NULL, format);
	EXPECT_NE(NULL, strstr(format, "\tfield:u32 __instance;\toffset:24;\tsize:4;\tsigned:0;\n"));
	EXPECT_NE(NULL, strstr(format, "\tfield:u32 __exit;\toffset:28;\tsize:4;\tsigned:0;\n"));
	free(format);

	/* every exit of the early copy, then only the first call's */
	ASSERT_EQ(0, events_enable("exits/r_early"));
	run_scenario(_metadata, self);
	ASSERT_EQ(2, self->nr_events);
	ASSERT_TRUE(parse(self->events[0], &e));
	ASSERT_EQ(2, sscanf(e.rest, "instance=%u exit=%u", &instance, &want_exit));
	for (i = 0; i < self->nr_events; i++) {
		ASSERT_TRUE(parse(self->events[i], &e));
		ASSERT_EQ(2, sscanf(e.rest, "instance=%u exit=%u", &instance, &exit));
		with_exit += exit == want_exit;
	}
	snprintf(filter, sizeof(filter), "__instance == 0 && __exit == %u", want_exit);
	ASSERT_EQ(0, write_file(EVENTS_INST "/events/exits/r_early/filter", filter, false));
	run_scenario(_metadata, self);
	EXPECT_EQ(with_exit, self->nr_events);
	ASSERT_EQ(0, write_file(EVENTS_INST "/events/exits/r_early/filter", "0", false));

	/* stats: hits are exits taken; the copy's exits are all placed */
	for (i = 0; i < self->nr_expected; i++)
		calls += !strncmp(self->expected[i], "tgt_ex_early ", 13);
	stats = read_file(INK_DIR "/stats", NULL);
	ASSERT_NE(NULL, stats);
	{
		char *line = strstr(stats, "exits/r_early ");
		unsigned int probes, live, refused, instances, noexits, dropped;
		unsigned long long hits;

		ASSERT_NE(NULL, line);
		ASSERT_EQ(4, sscanf(line, "exits/r_early probes=%u live=%u refused=%u notrace=%*u hits=%llu",
				    &probes, &live, &refused, &hits));
		EXPECT_EQ(probes, live);
		EXPECT_EQ(0, refused);
		/* two scenarios ran */
		EXPECT_EQ(2 * calls, hits);
		line = strstr(line, " instances=");
		ASSERT_NE(NULL, line);
		ASSERT_EQ(3, sscanf(line, " instances=%u noexits=%u dropped=%u", &instances,
				    &noexits, &dropped));
		EXPECT_EQ(1, instances);
		EXPECT_EQ(0, noexits);
		EXPECT_EQ(0, dropped);
	}
	free(stats);
}

static unsigned long long mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

/*
 * $duration: every call of every copy, one exit with its duration, in call
 * order; each within the scenario's write (CLOCK_MONOTONIC, the module's
 * clock, read before and after it), and more than 0.  The copies also
 * have an entry kprobe each now, which writes nothing.
 */
TEST_F(exit_probe, durations_one_per_call_within_the_scenario)
{
	unsigned long long before, after, d;
	unsigned int i, instance, exit;
	char cmd[128], want[192];
	char *stats, *line;
	struct event e;
	struct call c;

	for (i = 0; i < sizeof(funcs) / sizeof(funcs[0]); i++) {
		snprintf(cmd, sizeof(cmd), "r:exits/d_%s %s $duration", short_name(funcs[i]),
			 funcs[i]);
		ASSERT_EQ(0, define_probe(cmd));
	}
	ASSERT_EQ(0, events_enable("exits"));
	before = mono_ns();
	ASSERT_EQ(0, write_file(TGT_DIR "/trigger", SCENARIO, false));
	after = mono_ns();
	self->nr_expected = expected_lines(self->expected, MAX_CALLS);
	ASSERT_EQ(NR_CALLS, self->nr_expected);
	self->nr_events = read_events(self->events, MAX_LINES, 3000);
	ASSERT_EQ(self->nr_expected, self->nr_events) {
		for (i = 0; i < (unsigned int)self->nr_events; i++)
			TH_LOG("event: %s", self->events[i]);
	}
	for (i = 0; i < (unsigned int)self->nr_events; i++) {
		ASSERT_TRUE(parse_call(self->expected[i], &c)) TH_LOG("%s", self->expected[i]);
		ASSERT_TRUE(parse(self->events[i], &e)) TH_LOG("%s", self->events[i]);
		snprintf(want, sizeof(want), "exits:d_%s", short_name(c.callee));
		EXPECT_STREQ(want, e.name) TH_LOG("call %u: %s", i, self->expected[i]);
		EXPECT_STREQ(c.caller, e.caller);
		ASSERT_EQ(3, sscanf(e.rest, "instance=%u exit=%u duration=%llu", &instance, &exit,
				    &d)) TH_LOG("%s", self->events[i]);
		EXPECT_LT(0, d) TH_LOG("%s", self->events[i]);
		EXPECT_GE(after - before, d) TH_LOG("%s: the write took %llu ns",
						    self->events[i], after - before);
	}
	stats = read_file(INK_DIR "/stats", NULL);
	ASSERT_NE(NULL, stats);
	line = strstr(stats, "exits/d_early ");
	ASSERT_NE(NULL, line);
	/* an entry and the exits of the one copy */
	EXPECT_NE(NULL, strstr(line, " refused=0 "));
	EXPECT_NE(NULL, strstr(line, " dropped=0 untimed=0 unpaired=0\n")) TH_LOG("%s", line);
	free(stats);
	/* the sites file lists the exits, not the entry that times them */
	stats = read_file(INK_DIR "/sites", NULL);
	ASSERT_NE(NULL, stats);
	EXPECT_EQ(NULL, strstr(stats, " ENTRY"));
	free(stats);
}

/* The parameters of tgt_exits.c's copies, in the order of funcs[] */
static const char *const parms[][2] = {
	{ "v" }, { "v", "n" }, { "v" }, { "sel", "v" }, { "v" }, { "v" }, { "p" }, { "v" },
};
_Static_assert(sizeof(parms) / sizeof(parms[0]) == sizeof(funcs) / sizeof(funcs[0]),
	       "a copy added to funcs[] needs its parameters here, and parm_value() its values");

/*
 * An r event's parameters are its call's arguments, taken at the entry
 * (Documentation/exit-probes.rst, "Arguments"): every call of every copy
 * gives one entry and one exit event, in call order, both with the values
 * the target passed, alone or with $duration; nothing left unpaired.
 */
TEST_F(exit_probe, arguments_at_exits_are_the_calls_own)
{
	static const char *const extra[2] = { "", " $duration" };
	unsigned long long want, got;
	unsigned int i, j, k, round;
	char cmd[160], want_name[192], *text, *line;
	struct event in, out;
	struct call c;

	for (round = 0; round < 2; round++) {
		ASSERT_EQ(0, clear_probes());
		for (i = 0; i < sizeof(funcs) / sizeof(funcs[0]); i++) {
			snprintf(cmd, sizeof(cmd), "%s %s%s%s", funcs[i], parms[i][0],
				 parms[i][1] ? " " : "", parms[i][1] ?: "");
			text = strdup(cmd);
			ASSERT_NE(NULL, text);
			snprintf(cmd, sizeof(cmd), "p:exits/p_%s %s", short_name(funcs[i]), text);
			ASSERT_EQ(0, define_probe(cmd));
			snprintf(cmd, sizeof(cmd), "r:exits/r_%s %s%s", short_name(funcs[i]), text,
				 extra[round]);
			free(text);
			ASSERT_EQ(0, define_probe(cmd));
		}
		ASSERT_EQ(0, events_enable("exits"));
		run_scenario(_metadata, self);
		ASSERT_EQ(2 * self->nr_expected, self->nr_events) {
			for (i = 0; i < (unsigned int)self->nr_events; i++)
				TH_LOG("event: %s", self->events[i]);
		}
		for (i = 0; i < (unsigned int)self->nr_expected; i++) {
			ASSERT_TRUE(parse_call(self->expected[i], &c)) TH_LOG("%s", self->expected[i]);
			ASSERT_TRUE(parse(self->events[2 * i], &in)) TH_LOG("%s", self->events[2 * i]);
			ASSERT_TRUE(parse(self->events[2 * i + 1], &out))
				TH_LOG("%s", self->events[2 * i + 1]);
			snprintf(want_name, sizeof(want_name), "exits:r_%s", short_name(c.callee));
			EXPECT_STREQ(want_name, out.name) TH_LOG("call %u: %s", i, self->expected[i]);
			for (j = 0; j < sizeof(funcs) / sizeof(funcs[0]); j++)
				if (!strcmp(funcs[j], c.callee))
					break;
			ASSERT_GT(sizeof(funcs) / sizeof(funcs[0]), j);
			for (k = 0; k < 2 && parms[j][k]; k++) {
				want = parm_value(&c, parms[j][k]);
				ASSERT_TRUE(field_value(in.rest, parms[j][k], &got))
					TH_LOG("%s", self->events[2 * i]);
				EXPECT_EQ(want, got) TH_LOG("entry: %s", self->events[2 * i]);
				ASSERT_TRUE(field_value(out.rest, parms[j][k], &got))
					TH_LOG("%s", self->events[2 * i + 1]);
				EXPECT_EQ(want, got) TH_LOG("exit: %s", self->events[2 * i + 1]);
			}
			EXPECT_EQ(round == 1, field_value(out.rest, "duration", &got));
		}
		/* each call kept from its entry to its exit */
		text = read_file(INK_DIR "/stats", NULL);
		ASSERT_NE(NULL, text);
		for (i = 0; i < sizeof(funcs) / sizeof(funcs[0]); i++) {
			snprintf(cmd, sizeof(cmd), "exits/r_%s ", short_name(funcs[i]));
			line = strstr(text, cmd);
			ASSERT_NE(NULL, line) TH_LOG("%s", cmd);
			EXPECT_EQ(0, strncmp(strstr(line, " untimed="), " untimed=0 unpaired=0\n", 22))
				TH_LOG("%s", line);
		}
		free(text);
	}
	/* a BPF program at an exit cannot read the entry's values: the sites say so */
	text = read_file(INK_DIR "/sites", NULL);
	ASSERT_NE(NULL, text);
	line = strstr(text, "exits/r_early ");
	ASSERT_NE(NULL, line);
	ASSERT_NE(NULL, strchr(line, '\n'));
	*strchr(line, '\n') = '\0';
	/* then $duration's, which no BPF program reads either */
	EXPECT_NE(NULL, strstr(line, " v=? duration=?")) TH_LOG("%s", line);
	free(text);
}

/* The same on the out-of-line copies of tgt_dup: their kretprobes time them. */
TEST_F(exit_probe, durations_of_out_of_line_copies)
{
	unsigned long long before, after, d, v, x;
	unsigned int i, instance, exit;
	struct event e;

	/* x, the argument: its entry's value, kept in the kretprobe instance */
	ASSERT_EQ(0, define_probe("r:exits/d_dup tgt_dup x $retval $duration"));
	ASSERT_EQ(0, events_enable("exits/d_dup"));
	before = mono_ns();
	ASSERT_EQ(0, write_file(TGT_DIR "/trigger", "dups 40", false));
	after = mono_ns();
	self->nr_events = read_events(self->events, MAX_LINES, 3000);
	ASSERT_EQ(2, self->nr_events);
	for (i = 0; i < 2; i++) {
		ASSERT_TRUE(parse(self->events[i], &e)) TH_LOG("%s", self->events[i]);
		ASSERT_EQ(5, sscanf(e.rest, "instance=%u exit=%u x=%llu retval=%llu duration=%llu",
				    &instance, &exit, &x, &v, &d)) TH_LOG("%s", self->events[i]);
		/* "dups 40": tgt_dup(40), then the other tgt_dup(41) */
		EXPECT_EQ(40 + i, x) TH_LOG("%s", self->events[i]);
		EXPECT_LT(0, d);
		EXPECT_GE(after - before, d);
	}
}

TEST_F(exit_probe, listed_and_refused_as_kprobe_events_would)
{
	char *list;

	ASSERT_EQ(0, probes_cmd("r:exits/r_early tgt_ex_early", false));
	list = read_file(INK_DIR "/probes", NULL);
	ASSERT_NE(NULL, list);
	EXPECT_STREQ("r:exits/r_early tgt_ex_early\n", list);
	free(list);
	/* parameters, the entry's, listed as written; a parameter it lacks, refused */
	EXPECT_EQ(0, probes_cmd("r:exits/args tgt_ex_early v x=v:x64 $duration", true));
	list = read_file(INK_DIR "/probes", NULL);
	ASSERT_NE(NULL, list);
	EXPECT_STREQ("r:exits/r_early tgt_ex_early\nr:exits/args tgt_ex_early v x=v:x64 $duration\n",
		     list);
	free(list);
	EXPECT_EQ(-ENOENT, probes_cmd("r:exits/bad tgt_ex_early w", true));
	EXPECT_NE(NULL, strstr(last_error(), "tgt_ex_early has no parameter 'w'"));
	EXPECT_EQ((int)strlen("r:exits/bad tgt_ex_early "), last_error_caret());
	/* $retval is an r event's */
	EXPECT_EQ(-EINVAL, probes_cmd("p:exits/bad tgt_ex_early $retval", true));
	EXPECT_NE(NULL, strstr(last_error(), "$retval is for r events"));
	EXPECT_EQ(-EINVAL, probes_cmd("p:exits/bad tgt_ex_early $duration", true));
	EXPECT_NE(NULL, strstr(last_error(), "$duration is for r events"));
	EXPECT_EQ(-EINVAL, probes_cmd("r:exits/bad tgt_ex_early d=$duration:u32", true));
	EXPECT_NE(NULL, strstr(last_error(), "$duration is u64 nanoseconds"));
	/* $comm it takes */
	EXPECT_EQ(0, probes_cmd("r:exits/comm tgt_ex_early who=$comm", true));
}

/*
 * tgt_dup: two static functions of that name, out of line (tgt_dup_a.c,
 * tgt_dup_b.c): an r event is a kretprobe on each, $retval what each
 * returns.  "dups A" calls the first with A (it returns 3A + 1), then the
 * second with A + 1 (it returns ((A + 1) ^ 0x77) + 5).
 */
TEST_F(exit_probe, out_of_line_copies_return_their_value)
{
	const unsigned long long a = 40;
	unsigned long long want[2] = { 3 * a + 1, ((a + 1) ^ 0x77) + 5 }, v;
	unsigned int instance[2], exit, i;
	char *stats, *line;
	struct event e;

	ASSERT_EQ(0, define_probe("r:exits/r_dup tgt_dup $retval"));
	ASSERT_EQ(0, events_enable("exits/r_dup"));
	ASSERT_EQ(0, write_file(TGT_DIR "/trigger", "dups 40", false));
	self->nr_events = read_events(self->events, MAX_LINES, 3000);
	ASSERT_EQ(2, self->nr_events);
	for (i = 0; i < 2; i++) {
		ASSERT_TRUE(parse(self->events[i], &e)) TH_LOG("%s", self->events[i]);
		EXPECT_STREQ("exits:r_dup", e.name);
		EXPECT_STREQ("tgt_dup", e.caller);
		ASSERT_EQ(3, sscanf(e.rest, "instance=%u exit=%u retval=%llu", &instance[i], &exit,
				    &v)) TH_LOG("%s", self->events[i]);
		EXPECT_EQ(0, exit);
		EXPECT_EQ(want[i], v) TH_LOG("%s", self->events[i]);
	}
	/* two copies, one exit each */
	EXPECT_NE(instance[0], instance[1]);
	stats = read_file(INK_DIR "/stats", NULL);
	ASSERT_NE(NULL, stats);
	line = strstr(stats, "exits/r_dup ");
	ASSERT_NE(NULL, line);
	EXPECT_NE(NULL, strstr(line, " probes=2 live=2 refused=0 "));
	EXPECT_NE(NULL, strstr(line, " missed=0 "));
	EXPECT_NE(NULL, strstr(line, " instances=2 noexits=0 dropped=0\n"));
	free(stats);
}

/*
 * stacktrace on an r event's out-of-line copies: a kretprobe's hit is at
 * the return, so each stack starts where tgt_dup returns to.  Its callers
 * tgt_dup_call_a() and tgt_dup_call_b() end in "return tgt_dup(x)": a tail
 * call where the compiler makes one, and tgt_dup then returns straight into
 * tgt_run_dups(), which called them in that order; else into them first.
 * Then the way the trigger came to the system call
 * (selftests/target/tgt_dup_*.c, inkprobe_target.c), every frame one ORC
 * vouches for.
 */
TEST_F(exit_probe, out_of_line_exit_stacks_start_at_the_return)
{
	static const char *const callers[2] = { " => tgt_dup_call_a+0x", " => tgt_dup_call_b+0x" };
	static const char *const way[3] = {
		" => tgt_run_dups+0x", " => trigger_write+0x", " => do_syscall_64+0x",
	};
	unsigned int off[2] = { 0, 0 };
	int i, j, ev = -1, first[2] = { -1, -1 };
	char *line;

	ASSERT_EQ(0, define_probe("r:exits/s_dup tgt_dup stacktrace"));
	ASSERT_EQ(0, events_enable("exits/s_dup"));
	ASSERT_EQ(0, write_file(TGT_DIR "/trigger", "dups 40", false));
	self->nr_events = read_events(self->events, MAX_LINES, 3000);
	for (i = 0; i < self->nr_events; i++) {
		line = self->events[i];
		TH_LOG("%s", line);
		if (strncmp(line, " => ", 4)) {
			ASSERT_GT(2, ++ev) TH_LOG("a third event: %s", line);
			EXPECT_NE(NULL, strstr(line, " exits:s_dup: (")) TH_LOG("%s", line);
			continue;
		}
		ASSERT_LE(0, ev) TH_LOG("a stack line before any event");
		if (first[ev] < 0)
			first[ev] = i;
		EXPECT_EQ(NULL, strstr(line, " => ? ")) TH_LOG("%s", line);
	}
	ASSERT_EQ(1, ev);
	for (ev = 0; ev < 2; ev++) {
		int end = ev ? self->nr_events : first[1] - 1;

		ASSERT_LE(0, first[ev]);
		i = first[ev];
		/* where tgt_dup returned to: its caller, unless it tail-called it */
		if (!strncmp(self->events[i], callers[ev], strlen(callers[ev])))
			i++;
		/* then, in order, the way from the trigger */
		ASSERT_EQ(1, sscanf(self->events[i], " => tgt_run_dups+0x%x", &off[ev]))
			TH_LOG("event %d: %s", ev, self->events[i]);
		for (j = 0; i < end && j < 3; i++)
			j += !strncmp(self->events[i], way[j], strlen(way[j]));
		EXPECT_EQ(3, j) TH_LOG("event %d: %d of tgt_run_dups, trigger_write, do_syscall_64 in order",
				       ev, j);
		EXPECT_EQ(0, strncmp(self->events[end - 1], " => entry_SYSCALL_64", 20))
			TH_LOG("event %d ends with %s", ev, self->events[end - 1]);
	}
	/* the first call returned (or its caller did) before the second */
	EXPECT_LT(off[0], off[1]);
}

/*
 * tgt_order.c: nested copies that leave by one pc, a call whose exit pc is
 * the next call's entry pc, and nested copies that enter at one pc.  The
 * events come as the calls end and start (exits first, the innermost
 * copy's first; then entries, the outermost first), whatever order the
 * events were defined in (kprobes alone run one address's kprobes newest
 * first), plain and with $duration.
 */
static const char *const order_funcs[] = { "tgt_or_inner", "tgt_or_outer", "tgt_or_wrap" };
#define ORDER_LINES	12	/* three calls: two entries and two exits each */

/* "tgt_or_inner" -> "inner": the events are order/p_inner and order/r_inner */
static const char *order_name(const char *func)
{
	return func + strlen("tgt_or_");
}

static void check_order(struct __test_metadata *_metadata, FIXTURE_DATA(exit_probe) *self,
			bool reverse, const char *r_args)
{
	/* r before p, inner before outer: each the opposite of newest first */
	char defs[6][128], want[96], kind[8], callee[64], caller[64];
	struct event e[ORDER_LINES];
	unsigned int i, n, instance, exit;
	unsigned long long d;
	int k;

	for (i = 0; i < 3; i++) {
		snprintf(defs[i], sizeof(defs[i]), "r:order/r_%s %s%s", order_name(order_funcs[i]),
			 order_funcs[i], r_args);
		snprintf(defs[3 + i], sizeof(defs[i]), "p:order/p_%s %s", order_name(order_funcs[i]),
			 order_funcs[i]);
	}
	ASSERT_EQ(0, clear_probes());
	drain_events();
	for (i = 0; i < 6; i++)
		ASSERT_EQ(0, define_probe(defs[reverse ? 5 - i : i])) TH_LOG("%s: %s",
			defs[reverse ? 5 - i : i], last_error());
	ASSERT_EQ(0, events_enable("order"));
	free_lines(self->expected, self->nr_expected);
	free_lines(self->events, self->nr_events);
	ASSERT_EQ(0, write_file(TGT_DIR "/trigger", "order 1", false));
	self->nr_expected = expected_lines(self->expected, MAX_CALLS);
	ASSERT_EQ(ORDER_LINES, self->nr_expected);
	self->nr_events = read_events(self->events, MAX_LINES, 3000);
	ASSERT_EQ(ORDER_LINES, self->nr_events) {
		for (k = 0; k < self->nr_events; k++)
			TH_LOG("event: %s", self->events[k]);
	}
	for (i = 0; i < ORDER_LINES; i++) {
		ASSERT_EQ(4, sscanf(self->expected[i], "%7s %63s %63s call=%u", kind, callee,
				    caller, &n)) TH_LOG("%s", self->expected[i]);
		ASSERT_TRUE(parse(self->events[i], &e[i])) TH_LOG("%s", self->events[i]);
		snprintf(want, sizeof(want), "order:%c_%s", kind[1] == 'n' ? 'p' : 'r',
			 order_name(callee));
		EXPECT_STREQ(want, e[i].name) TH_LOG("line %u: %s, event %s", i,
						       self->expected[i], self->events[i]);
		EXPECT_STREQ(caller, e[i].caller);
		if (*r_args && kind[1] == 'x') {
			ASSERT_EQ(3, sscanf(e[i].rest, "instance=%u exit=%u duration=%llu",
					    &instance, &exit, &d)) TH_LOG("%s", self->events[i]);
			EXPECT_LT(0, d);
		}
	}
	/*
	 * The layout the order is about (tgt_order.c): the first call's two
	 * exits and the second's entry at one pc; the second call's exits
	 * and the third's two entries at another.
	 */
	EXPECT_EQ(e[2].off, e[3].off);
	EXPECT_EQ(e[3].off, e[4].off);
	EXPECT_EQ(e[6].off, e[7].off);
	EXPECT_EQ(e[7].off, e[8].off);
	EXPECT_EQ(e[8].off, e[9].off);
}

TEST_F(exit_probe, at_one_pc_exits_first_innermost_first)
{
	char *stats, *line;
	unsigned int i;

	check_order(_metadata, self, false, "");
	check_order(_metadata, self, true, "");
	check_order(_metadata, self, false, " $duration");
	check_order(_metadata, self, true, " $duration");
	stats = read_file(INK_DIR "/stats", NULL);
	ASSERT_NE(NULL, stats);
	for (i = 0; i < 3; i++) {
		char key[64];

		snprintf(key, sizeof(key), "order/r_%s ", order_name(order_funcs[i]));
		line = strstr(stats, key);
		ASSERT_NE(NULL, line) TH_LOG("%s", key);
		EXPECT_NE(NULL, strstr(line, " refused=0 "));
		EXPECT_NE(NULL, strstr(line, " dropped=0 untimed=0 unpaired=0\n")) TH_LOG("%s", line);
	}
	free(stats);
}

TEST_HARNESS_MAIN
