// SPDX-License-Identifier: GPL-2.0
/*
 * Blobs and modules coming and going: a probe defined before its module is
 * loaded attaches when it loads, leaves when it unloads and returns when it
 * loads again, also while its inlined copies run on another CPU; a blob in
 * use cannot be unloaded; a blob replaces its target's previous blob.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "guest_util.h"

#define PROBE "p:life/tgt_mix tgt_mix reg konst obj weight=obj->weight"

TEST(probe_defined_before_module_follows_it)
{
	const char *blobs;
	char *line;
	int round;

	ASSERT_EQ(0, load_module(kmod_path("inkprobe.ko")));
	ASSERT_EQ(0, clear_probes());
	if (module_loaded("inkprobe_target"))
		ASSERT_EQ(0, unload_module("inkprobe_target"));
	drain_events();

	/* the blob waits for its module */
	ASSERT_EQ(0, load_blob(blob_path("inkprobe_target.inkb")));
	blobs = target_blob_line();
	ASSERT_STRNE("", blobs);
	EXPECT_NE(NULL, strstr(blobs, " waiting ")) TH_LOG("%s", blobs);
	ASSERT_EQ(0, probes_cmd(PROBE, false)) TH_LOG("%s", last_error());
	ASSERT_EQ(0, events_enable("life"));
	EXPECT_EQ(0, count_kprobes("tgt_caller_"));

	for (round = 0; round < 2; round++) {
		/* the module comes: the probes attach, the values are right */
		ASSERT_EQ(0, load_module(kmod_path("inkprobe_target.ko")));
		blobs = target_blob_line();
		ASSERT_STRNE("", blobs);
		EXPECT_NE(NULL, strstr(blobs, " live ")) TH_LOG("%s", blobs);
		EXPECT_EQ(2, count_kprobes("tgt_caller_"));
		EXPECT_EQ(0, check_scenario("mix 1000 2000 3000", "life", 1000));
		/* the module goes: no kprobe left, the definition stays */
		ASSERT_EQ(0, unload_module("inkprobe_target"));
		EXPECT_EQ(0, count_kprobes("tgt_caller_"));
		blobs = target_blob_line();
		ASSERT_STRNE("", blobs);
		EXPECT_NE(NULL, strstr(blobs, " waiting ")) TH_LOG("%s", blobs);
		line = read_file(INK_DIR "/probes", NULL);
		ASSERT_NE(NULL, line);
		EXPECT_STREQ(PROBE "\n", line);
		free(line);
	}
	ASSERT_EQ(0, clear_probes());
	ASSERT_EQ(0, setup_target());
}

TEST(blob_in_use_cannot_be_unloaded)
{
	ASSERT_EQ(0, setup_target());
	ASSERT_EQ(0, probes_cmd(PROBE, false));
	EXPECT_EQ(-EBUSY, write_file(INK_DIR "/blobs", "-inkprobe_target", true));
	EXPECT_NE(NULL, strstr(last_error(), "is used by events life/tgt_mix: remove them first")) TH_LOG("%s", last_error());
	EXPECT_EQ(-EBUSY, load_blob(blob_path("inkprobe_target.inkb")));
	ASSERT_EQ(0, clear_probes());
	/* unused: unload, then replace twice: one blob per target */
	EXPECT_EQ(0, write_file(INK_DIR "/blobs", "-inkprobe_target", true));
	EXPECT_STREQ("", target_blob_line());
	EXPECT_EQ(-ENOENT, write_file(INK_DIR "/blobs", "-inkprobe_target", true));
	ASSERT_EQ(0, load_blob(blob_path("inkprobe_target.inkb")));
	ASSERT_EQ(0, load_blob(blob_path("inkprobe_target.inkb")));
	{
		char *all = read_file(INK_DIR "/blobs", NULL);
		char *first = strstr(all, "inkprobe_target ");

		ASSERT_NE(NULL, first);
		EXPECT_EQ(NULL, strstr(first + 1, "inkprobe_target "));
		free(all);
	}
}

/* The trace event's enable file in a trace buffer: the switch of one event there. */
#define EV_ENABLE	EVENTS_INST "/events/life/tgt_mix/enable"

TEST(enable_switches_one_event)
{
	char *lines[4];

	ASSERT_EQ(0, setup_target());
	ASSERT_EQ(0, probes_cmd(PROBE, false));
	ASSERT_EQ(0, probes_cmd("p:life/only_a tgt_mix@tgt_caller_a reg", true));
	ASSERT_EQ(0, events_enable("life"));
	drain_events();
	ASSERT_EQ(0, write_file(EV_ENABLE, "0", false));
	ASSERT_EQ(0, trigger_target(1, 2, 3));
	/* only the other event fires */
	ASSERT_EQ(1, read_events(lines, 4, 500));
	EXPECT_NE(NULL, strstr(lines[0], "life:only_a:"));
	free_lines(lines, 1);
	ASSERT_EQ(0, write_file(EV_ENABLE, "1", false));
	ASSERT_EQ(0, trigger_target(1, 2, 3));
	EXPECT_EQ(3, read_events(lines, 4, 500));
	free_lines(lines, 3);
	{
		char *v = read_file(EV_ENABLE, NULL);

		EXPECT_STREQ("1\n", v);
		free(v);
	}
	ASSERT_EQ(0, clear_probes());
	/* the event's directory goes with it */
	EXPECT_EQ(-ENOENT, write_file(EV_ENABLE, "1", false));
}

/*
 * Defined while kprobes are switched off globally, the probes are placed but
 * not armed; switching kprobes on arms them (enable_kprobe() alone would
 * leave them disabled for good).
 */
TEST(probe_defined_while_kprobes_off_fires_when_on)
{
	const char *on = "/sys/kernel/debug/kprobes/enabled";
	char *stats;

	ASSERT_EQ(0, setup_target());
	drain_events();
	ASSERT_EQ(0, write_file(on, "0", false));
	EXPECT_EQ(0, probes_cmd(PROBE, false)) TH_LOG("%s", last_error());
	ASSERT_EQ(0, events_enable("life"));
	EXPECT_EQ(2, count_kprobes("tgt_caller_"));
	EXPECT_EQ(0, trigger_target(5, 6, 7));
	stats = read_file(INK_DIR "/stats", NULL);
	ASSERT_NE(NULL, stats);
	EXPECT_EQ(0ULL, stat_sum(stats, "hits")) TH_LOG("%s", stats);
	free(stats);
	ASSERT_EQ(0, write_file(on, "1", false));
	EXPECT_EQ(0, check_scenario("mix 1000 2000 3000", "life", 1000));
	ASSERT_EQ(0, clear_probes());
}

/*
 * Loading blobs, defining and removing probes (with kprobes on and off),
 * hits and stacks write nothing to the kernel log: a message there is a
 * control path misbehaving.  (Switching kprobes is logged by kprobes
 * itself: it happens between the windows watched.)
 */
TEST(control_leaves_the_kernel_log_alone)
{
	const char *on = "/sys/kernel/debug/kprobes/enabled";
	char *lines[8];
	int kmsg, n;

	ASSERT_EQ(0, setup_target());
	kmsg = kmsg_open();
	ASSERT_LE(0, kmsg);
	ASSERT_EQ(0, load_blob(blob_path("inkprobe_target.inkb")));
	drain_events();
	EXPECT_EQ(0, probes_cmd(PROBE, false)) TH_LOG("%s", last_error());
	EXPECT_EQ(0, probes_cmd("p:life/stack tgt_part a1 stacktrace", true));
	ASSERT_EQ(0, events_enable("life"));
	EXPECT_EQ(0, trigger_target(1, 2, 3));
	n = read_events(lines, 8, 500);
	EXPECT_EQ(2, n);
	free_lines(lines, n);
	EXPECT_EQ(0, kmsg_new(kmsg));

	ASSERT_EQ(0, write_file(on, "0", false));
	kmsg = kmsg_open();
	EXPECT_EQ(0, probes_cmd("p:life/off tgt_mix reg", true));
	EXPECT_EQ(0, kmsg_new(kmsg));
	ASSERT_EQ(0, write_file(on, "1", false));

	kmsg = kmsg_open();
	EXPECT_EQ(0, probes_cmd("-:life/off", true));
	EXPECT_EQ(0, clear_probes());
	EXPECT_EQ(0, kmsg_new(kmsg));
}

/* The sum over the CPUs of "@key: N" in EVENTS_INST's per_cpu/cpuN/stats: the ring's own. */
static unsigned long long ring_count(const char *key)
{
	unsigned long long sum = 0, v;
	char path[128], *text, *p;
	int cpu;

	for (cpu = 0; cpu < (int)sysconf(_SC_NPROCESSORS_CONF); cpu++) {
		snprintf(path, sizeof(path), EVENTS_INST "/per_cpu/cpu%d/stats", cpu);
		text = read_file(path, NULL);
		p = text ? strstr(text, key) : NULL;
		if (p && sscanf(p + strlen(key), ": %llu", &v) == 1)
			sum += v;
		free(text);
	}
	return sum;
}

/*
 * A forced overrun: the trace buffer does not overwrite, and it is far too
 * small for the hits.  Every hit is accounted exactly: hits = written +
 * lost, lost what the ring refused (its own "dropped events"), written
 * what the buffer holds and gives its reader.
 */
TEST(overload_accounts_every_hit)
{
	unsigned long long hits, written, lost;
	char *stats;
	unsigned int kb;
	int i;

	ASSERT_EQ(0, setup_target());
	ASSERT_EQ(0, clear_probes());
	kb = events_buffer_kb();
	ASSERT_LT(0u, kb);
	/* 16 KB per CPU: a few hundred records of this event */
	ASSERT_EQ(0, events_instance(16));
	ASSERT_EQ(0, probes_cmd("p:load/tgt_part tgt_part a1 a7", false));
	ASSERT_EQ(0, events_enable("load"));
	drain_events();
	ASSERT_EQ(0ULL, ring_count("dropped events"));
	/* 3 copies x 1000 calls x 3 rounds, nobody reading: the buffers fill up */
	for (i = 0; i < 3; i++)
		ASSERT_EQ(0, write_file(TGT_DIR "/trigger", "partial 1000", false));
	stats = read_file(INK_DIR "/stats", NULL);
	ASSERT_NE(NULL, stats);
	TH_LOG("%s", stats);
	hits = stat_sum(stats, "ftrace_hits");
	written = stat_sum(stats, "ftrace_written");
	lost = stat_sum(stats, "ftrace_lost");
	EXPECT_EQ(9000ULL, stat_sum(stats, "hits"));
	EXPECT_EQ(9000ULL, hits);
	EXPECT_EQ(0ULL, stat_sum(stats, "ftrace_filtered"));
	EXPECT_EQ(hits, written + lost);
	EXPECT_LT(0ULL, lost);
	EXPECT_LT(0ULL, written);
	/* the ring's own counts */
	EXPECT_EQ(lost, ring_count("dropped events"));
	EXPECT_EQ(written, ring_count("entries"));
	free(stats);
	/* what was written is what trace_pipe holds */
	{
		char *lines[1];
		unsigned long long n = 0;

		while (read_events(lines, 1, 200) == 1) {
			free(lines[0]);
			n++;
		}
		EXPECT_EQ(written, n);
	}
	ASSERT_EQ(0, clear_probes());
	ASSERT_EQ(0, events_instance(kb));
}

/*
 * The target removed and inserted again while its inlined copies run: a
 * child on the other CPU runs "mix A B W" as fast as it can (while the
 * module is gone its trigger file is too, and it retries).  Each time, the
 * probes leave with the module (no kprobe on its text, the blob waiting,
 * live=0) and come back with it (live=2), and afterwards every run that
 * succeeded has exactly its two events, with the values the target's
 * source gives (tgt_caller_a: konst=7 weight=W; tgt_caller_b: konst=-11
 * weight=W+1; W is the run's number), and no other event is there.
 */
#define RELOADS		4
#define MAX_RUNS	4096

struct runs {
	volatile int stop;
	volatile unsigned int done;		/* runs that succeeded */
	volatile unsigned int failed;		/* a write that failed on an open file */
	unsigned int ok[MAX_RUNS];		/* their indices */
};

static unsigned long long run_a(unsigned int i)
{
	return 1000003ULL * i + 17;
}

static void fire(struct runs *r, int cpu)
{
	cpu_set_t set;
	unsigned int i;
	char buf[96];

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	sched_setaffinity(0, sizeof(set), &set);
	for (i = 0; !r->stop && r->done < MAX_RUNS; i++) {
		int fd = open(TGT_DIR "/trigger", O_WRONLY);
		int len;

		if (fd < 0)
			continue;	/* the module is gone: again */
		len = snprintf(buf, sizeof(buf), "mix %llu %u %u", run_a(i), 3 * i, i);
		if (write(fd, buf, len) == len)
			r->ok[r->done++] = i;
		else
			r->failed++;
		close(fd);
		usleep(100);	/* the module unheld a moment: rmmod can win */
	}
	_exit(0);
}

/* Waits until the child has run @n more times (60 s at most, times the kernel's scale). */
static bool runs_go_on(struct runs *r, unsigned int n)
{
	unsigned int from = r->done, i;

	for (i = 0; i < 60000u * timeout_scale() && r->done < from + n && r->done < MAX_RUNS; i++)
		usleep(1000);
	return r->done >= from + n;
}

static unsigned long long live_probes(void)
{
	char *stats = read_file(INK_DIR "/stats", NULL);
	unsigned long long n = stats ? stat_sum(stats, "live") : ~0ULL;

	free(stats);
	return n;
}

/* module reloads take seconds each under TCG: more than the default 30 s */
FIXTURE(reload) {
	int unused;
};

FIXTURE_SETUP(reload)
{
}

FIXTURE_TEARDOWN(reload)
{
}

TEST_F_TIMEOUT(reload, module_reloaded_while_its_sites_fire, 180)
{
	struct runs *r = mmap(NULL, sizeof(*r), PROT_READ | PROT_WRITE,
			      MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	int ncpu = (int)sysconf(_SC_NPROCESSORS_ONLN), round, tries, n, i, status;
	char **lines, want[160], *stats;
	unsigned int runs, matched = 0;
	const char *args;
	bool *used;
	pid_t pid;

	ASSERT_NE(MAP_FAILED, (void *)r);
	ASSERT_EQ(0, setup_target());
	ASSERT_EQ(0, clear_probes());
	/*
	 * The kernel empties a trace buffer at the next unload of any module
	 * once an event that was enabled there has been removed
	 * (trace_module_remove_events(), clear_trace): earlier tests' events
	 * were.  That pending reset happens now, not at the first reload
	 * below, which would take the first runs' events with it.
	 */
	ASSERT_EQ(0, unload_module("inkprobe_target"));
	ASSERT_EQ(0, setup_target());
	/* not reg: the debug kernel's build of the target keeps none at these sites */
	ASSERT_EQ(0, define_probe("p:rl/tgt_mix tgt_mix konst weight=obj->weight"));
	ASSERT_EQ(0, events_enable("rl"));
	drain_events();
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid)
		fire(r, ncpu > 1 ? 1 : 0);
	for (round = 0; round < RELOADS; round++) {
		ASSERT_TRUE(runs_go_on(r, 3));
		/*
		 * the child holds the module while it writes: try until it does
		 * not (it pauses between runs; the harness's time limit bounds
		 * the wait, not a count that a loaded host may exhaust)
		 */
		for (tries = 0; unload_module("inkprobe_target") == -EWOULDBLOCK && tries < 10000000;
		     tries++)
			;
		ASSERT_FALSE(module_loaded("inkprobe_target"));
		EXPECT_EQ(0, count_kprobes("inkprobe_target"));
		EXPECT_NE(NULL, strstr(target_blob_line(), " waiting ")) TH_LOG("%s",
										target_blob_line());
		EXPECT_EQ(0ULL, live_probes());
		ASSERT_EQ(0, load_module(kmod_path("inkprobe_target.ko")));
		EXPECT_NE(NULL, strstr(target_blob_line(), " live ")) TH_LOG("%s",
									     target_blob_line());
		EXPECT_EQ(2ULL, live_probes());
		EXPECT_EQ(2, count_kprobes("tgt_caller_"));
	}
	ASSERT_TRUE(runs_go_on(r, 3));
	r->stop = 1;
	waitpid(pid, &status, 0);
	runs = r->done;
	TH_LOG("%u runs, %d reloads", runs, RELOADS);
	EXPECT_EQ(0u, r->failed);
	EXPECT_GT(MAX_RUNS, runs);

	/* every run's two events, nothing else */
	lines = calloc(2 * runs + 4, sizeof(*lines));
	used = calloc(2 * runs + 4, sizeof(*used));
	ASSERT_TRUE(lines && used);
	n = read_events(lines, 2 * runs + 4, 1000);
	EXPECT_EQ((int)(2 * runs), n);
	for (i = 0; i < (int)(2 * runs); i++) {
		unsigned int k = r->ok[i / 2], off, j;
		char caller[64];

		if (i % 2 == 0)
			snprintf(want, sizeof(want), "konst=7 weight=%u", k);
		else
			snprintf(want, sizeof(want), "konst=-11 weight=%u", k + 1);
		for (j = 0; j < (unsigned int)n; j++) {
			if (used[j] || !parse_event(lines[j], caller, sizeof(caller), &off, &args) ||
			    strcmp(caller, i % 2 ? "tgt_caller_b" : "tgt_caller_a") ||
			    strcmp(args, want))
				continue;
			used[j] = true;
			matched++;
			break;
		}
		if (j == (unsigned int)n)
			TH_LOG("no event for run %u: %s", k, want);
	}
	EXPECT_EQ(2 * runs, matched);
	free_lines(lines, n);
	free(lines);
	free(used);
	stats = read_file(INK_DIR "/stats", NULL);
	ASSERT_NE(NULL, stats);
	EXPECT_EQ(2ULL * runs, stat_sum(stats, "hits")) TH_LOG("%s", stats);
	EXPECT_EQ(2ULL * runs, stat_sum(stats, "ftrace_written"));
	EXPECT_EQ(0ULL, stat_sum(stats, "ftrace_lost"));
	free(stats);
	ASSERT_EQ(0, clear_probes());
	EXPECT_EQ(0, count_kprobes("inkprobe_target"));
	munmap(r, sizeof(*r));
}

TEST_HARNESS_MAIN
