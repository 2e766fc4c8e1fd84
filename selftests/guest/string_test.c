// SPDX-License-Identifier: GPL-2.0
/*
 * :string at the edge of readable memory, and how its value prints
 * (Documentation/control.rst, "Output format").  The target's "stredge A"
 * scenario (selftests/target/tgt_string.c) passes tgt_str_edge():
 *
 *   edge  "edge A", its NUL the last byte before an unmapped page
 *   cut   "cutNNN" (NNN = A % 1000), the last 6 bytes before an unmapped
 *         page, with no NUL
 *   bad   a pointer into that unmapped page
 *   odd   q"b\s, the bytes 0x0a 0x09 0x01 0x1b 0x7f 0x80 0xff, then "end"
 *
 * The expected values are written out here from that description: edge
 * and cut exactly up to the page's end, no fault, "(fault)" for bad, and
 * every quote, backslash and byte outside printable ASCII escaped (\", \\,
 * \xNN), in the tests' trace buffer (guest_util.h) and in tracefs' trace
 * and trace_pipe of an instance alike, for a string argument and for
 * $comm (this test's own name, set with prctl()).  kprobe_events, the
 * oracle of the kernel's own string fetch, reads edge the same, calls cut
 * a fault (it reads byte by byte and fails at the guard page) and prints
 * odd's bytes as they are.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "guest_util.h"

#define TRACEFS		"/sys/kernel/tracing"
#define INST		TRACEFS "/instances/inkprobe_string"
#define EDGE		"p:se/edge tgt_str_edge edge:string cut:string bad:string odd:string"
#define WHO		"p:se/who tgt_str_edge who=$comm"
#define ODD_ESCAPED	"odd=\"q\\\"b\\\\s\\x0a\\x09\\x01\\x1b\\x7f\\x80\\xffend\""
/* a name with a quote, a backslash, a tab and bytes outside printable ASCII */
#define COMM		"w\"h\\o\t\x01\x7f\xe9"
#define COMM_ESCAPED	"who=\"w\\\"h\\\\o\\x09\\x01\\x7f\\xe9\""

FIXTURE(str) {
	unsigned long long a;
	char edge_args[256];
};

FIXTURE_SETUP(str)
{
	ASSERT_EQ(0, setup_target());
	ASSERT_EQ(0, clear_probes());
	rmdir(INST);
	ASSERT_EQ(0, write_file(TRACEFS "/kprobe_events", "", false));
	drain_events();
	ASSERT_EQ(sizeof(self->a), getrandom(&self->a, sizeof(self->a), 0));
	self->a %= 1000000000ULL;
	TH_LOG("A = %llu", self->a);
	snprintf(self->edge_args, sizeof(self->edge_args),
		 "edge=\"edge %llu\" cut=\"cut%03llu\" bad=(fault) " ODD_ESCAPED, self->a,
		 self->a % 1000);
}

FIXTURE_TEARDOWN(str)
{
	rmdir(INST);
	write_file(TRACEFS "/kprobe_events", "", false);
	clear_probes();
}

/* Runs "stredge A" with this process named COMM. */
static int run_edge(unsigned long long a)
{
	char scenario[64], old[16] = "";
	int ret;

	snprintf(scenario, sizeof(scenario), "stredge %llu", a);
	prctl(PR_GET_NAME, old);
	if (prctl(PR_SET_NAME, COMM))
		return -errno;
	ret = write_file(TGT_DIR "/trigger", scenario, false);
	prctl(PR_SET_NAME, old);
	return ret;
}

/*
 * Of @n lines, the one of event @name ("se:edge"): its arguments (after
 * "(CALLER+0xOFF) "), with CALLER checked; NULL if not exactly one.
 */
static const char *args_of(char **lines, int n, const char *name)
{
	const char *args = NULL, *a;
	char ev[64], caller[128];
	unsigned int off;
	int i, found = 0;

	for (i = 0; i < n; i++) {
		if (!event_name(lines[i], ev, sizeof(ev)) || strcmp(ev, name))
			continue;
		if (!parse_event(lines[i], caller, sizeof(caller), &off, &a) ||
		    strcmp(caller, "tgt_str_edge_caller"))
			return NULL;
		args = a;
		found++;
	}
	return found == 1 ? args : NULL;
}

TEST_F(str, page_edge_fault_and_escapes_in_the_events_buffer)
{
	char *lines[4];
	const char *args;
	int n;

	ASSERT_EQ(0, define_probe(EDGE));
	ASSERT_EQ(0, define_probe(WHO));
	ASSERT_EQ(0, events_enable("se"));
	ASSERT_EQ(0, run_edge(self->a));
	/* written before the trigger returned: a short wait shows any extra one */
	n = read_events(lines, 4, 200);
	EXPECT_EQ(2, n);
	args = args_of(lines, n, "se:edge");
	ASSERT_NE(NULL, args) TH_LOG("%s", n ? lines[0] : "no event");
	EXPECT_STREQ(self->edge_args, args);
	args = args_of(lines, n, "se:who");
	ASSERT_NE(NULL, args);
	EXPECT_STREQ(COMM_ESCAPED, args);
	free_lines(lines, n);
	/* nothing was lost: the fault is a value, not a failed hit */
	{
		char *stats = read_file(INK_DIR "/stats", NULL);

		ASSERT_NE(NULL, stats);
		EXPECT_EQ(2ULL, stat_sum(stats, "ftrace_written")) TH_LOG("%s", stats);
		EXPECT_EQ(0ULL, stat_sum(stats, "ftrace_lost"));
		free(stats);
	}
}

/*
 * An r event's strings are its call's arguments, read at the entry and
 * written with the exit (Documentation/exit-probes.rst, "Arguments"): the
 * same text, fault and escapes, after the exit's fields.
 */
TEST_F(str, an_exit_writes_the_strings_its_entry_read)
{
	char *lines[4];
	const char *args, *rest;
	int n;

	ASSERT_EQ(0, define_probe("r:se/redge tgt_str_edge edge:string cut:string bad:string odd:string"));
	ASSERT_EQ(0, events_enable("se"));
	ASSERT_EQ(0, run_edge(self->a));
	n = read_events(lines, 4, 200);
	EXPECT_EQ(1, n);
	args = args_of(lines, n, "se:redge");
	ASSERT_NE(NULL, args) TH_LOG("%s", n ? lines[0] : "no event");
	/* one copy: instance 0, then the exit it took */
	ASSERT_EQ(0, strncmp(args, "instance=0 exit=", 16)) TH_LOG("%s", args);
	rest = strchr(args + 16, ' ');
	ASSERT_NE(NULL, rest) TH_LOG("%s", args);
	EXPECT_STREQ(self->edge_args, rest + 1);
	free_lines(lines, n);
}

/* The same values in tracefs' trace and trace_pipe: the trace event's output. */
TEST_F(str, same_in_tracefs_trace_and_trace_pipe)
{
	static const char *const files[] = { INST "/trace", INST "/trace_pipe" };
	char *lines[8];
	const char *args;
	unsigned int f;
	int n;

	ASSERT_EQ(0, define_probe(EDGE));
	ASSERT_EQ(0, define_probe(WHO));
	ASSERT_EQ(0, mkdir(INST, 0755));
	ASSERT_EQ(0, write_file(INST "/events/se/enable", "1", false));
	ASSERT_EQ(0, run_edge(self->a));
	for (f = 0; f < 2; f++) {
		if (f == 0) {
			/* trace: the header's "#" lines, then the events */
			char *all = read_file(files[0], NULL), *line, *save = NULL;

			ASSERT_NE(NULL, all);
			n = 0;
			for (line = strtok_r(all, "\n", &save); line && n < 8;
			     line = strtok_r(NULL, "\n", &save))
				if (line[0] != '#')
					lines[n++] = strdup(line);
			free(all);
		} else {
			n = read_events_from(files[1], lines, 8, 200);
		}
		EXPECT_EQ(2, n) TH_LOG("%s", files[f]);
		args = args_of(lines, n, "se:edge");
		EXPECT_NE(NULL, args) TH_LOG("%s: %s", files[f], n ? lines[0] : "no event");
		if (args)
			EXPECT_STREQ(self->edge_args, args);
		args = args_of(lines, n, "se:who");
		EXPECT_NE(NULL, args) TH_LOG("%s", files[f]);
		if (args)
			EXPECT_STREQ(COMM_ESCAPED, args);
		free_lines(lines, n);
	}
	ASSERT_EQ(0, write_file(INST "/events/se/enable", "0", false));
}

/*
 * kprobe_events at tgt_str_edge_caller()'s entry, the same four pointers
 * in %di, %si, %dx and %cx: edge the same, cut and bad "(fault)", odd
 * unescaped.
 */
TEST_F(str, kprobe_events_reads_edge_and_faults_on_cut)
{
	char *all, want[512];

	ASSERT_EQ(0, write_file(TRACEFS "/kprobe_events",
				"p:kpse/edge inkprobe_target:tgt_str_edge_caller edge=+0(%di):string "
				"cut=+0(%si):string bad=+0(%dx):string odd=+0(%cx):string", false));
	ASSERT_EQ(0, mkdir(INST, 0755));
	ASSERT_EQ(0, write_file(INST "/events/kpse/enable", "1", false));
	ASSERT_EQ(0, run_edge(self->a));
	all = read_file(INST "/trace", NULL);
	ASSERT_NE(NULL, all);
	snprintf(want, sizeof(want),
		 " edge=\"edge %llu\" cut=(fault) bad=(fault) "
		 "odd=\"q\"b\\s\n\t\x01\x1b\x7f\x80\xff" "end\"\n", self->a);
	EXPECT_NE(NULL, strstr(all, want)) TH_LOG("%s", all);
	free(all);
	ASSERT_EQ(0, write_file(INST "/events/kpse/enable", "0", false));
}

TEST_HARNESS_MAIN
