// SPDX-License-Identifier: GPL-2.0
/* inkprobe-kernels: !debug -- checks agreement with perf probe on the DWARF of Debian's build, not memory safety */
/*
 * Real inlined kernel functions, compared with kprobe_events.
 *
 * scripts/real-defs compares inkprobe with perf probe on inlined networking,
 * block and memory management helpers of this kernel and lists every
 * instance both find at one address, with perf's fetch-args of each argument
 * that is not a listed difference (selftests/real-kernel-differences.txt):
 * "CLASS FUNC CALLER OFF ARG=FETCH:TYPE...", whether inkprobe's arguments
 * agree or not; each argument of a listed difference (perf wrong or
 * silent) has the value the DWARF gives at that pc instead, computed from
 * kprobe_events fetches (ARG=[ITEM,...]:TYPE, guest_util.h), or must be
 * (optimized out) where the DWARF has no location.  Each gets an inkprobe
 * event (FUNC@CALLER+OFF, from the vmlinux blob) and a kprobe_events event
 * with those fetch-args at the same address (in functions that share a
 * name, CALLER#K/N, at each copy's address, with one inkprobe event for
 * all).  Both must be placed, or both refused (by kprobes, or because the
 * caller is not in available_filter_functions: both refuse functions
 * without an ftrace location, CONFIG_KPROBE_EVENTS_ON_NOTRACE=n), or only
 * one refuses because kallsyms has several symbols of the caller's name
 * (kprobe_events cannot tell them apart; inkprobe can).  After a
 * workload (TCP over loopback, direct I/O on a loop device, anonymous and
 * page cache memory), every instance's events must be equal, CPU by CPU,
 * hit by hit, and nothing may be lost on either side (inkprobe's trace
 * events in the tests' buffer, kprobe_events' in the top level's).  Both sides' handlers
 * sit on the same (aggregated) kprobes, and kprobes' global switch
 * (debug/kprobes/enabled) arms and disarms them together, so every hit
 * reaches both or neither.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "guest_util.h"

#define TRACING		"/sys/kernel/tracing"
#define KPROBES_ON	"/sys/kernel/debug/kprobes/enabled"
#define MAX_DEFS	1024

static struct cmp_def defs[MAX_DEFS];
static int nr_defs;
static unsigned int events_kb;

/* @name is a line of available_filter_functions */
static bool traceable(const char *filter_functions, const char *name)
{
	size_t n = strlen(name);
	const char *p = filter_functions;

	while ((p = strstr(p, name))) {
		if ((p == filter_functions || p[-1] == '\n') && (p[n] == '\n' || p[n] == ' '))
			return true;
		p++;
	}
	return false;
}

/* kallsyms has more than one text symbol named @name */
static bool ambiguous_symbol(const char *kallsyms, const char *name)
{
	char needle[160];
	const char *p = kallsyms;
	int n = 0;

	snprintf(needle, sizeof(needle), " %s\n", name);
	while ((p = strstr(p, needle))) {
		if (p - kallsyms >= 2 && strchr("tT", p[-1]) && p[-2] == ' ')
			n++;
		p++;
	}
	return n > 1;
}

/*
 * The defs of the functions that share a name (CALLER#K/N, from @lead on):
 * one inkprobe event FUNC@CALLER+OFF for all, a kprobe_events event at
 * each copy's address (the K-th of kallsyms' N symbols of the name).  All
 * are placed, or none: 1 placed, 0 refused on both sides, -1 kprobe_events
 * refuses a caller without an ftrace location, -2 otherwise (logged).
 */
static int place_group(struct __test_metadata *_metadata, int lead, const char *kallsyms,
		       const char *ftraced)
{
	struct cmp_def *d = &defs[lead];
	char cmd[1024];
	bool ink, kp = true;
	int j;

	snprintf(cmd, sizeof(cmd), "p:real/r%d %s@%s+0x%x%s", lead, d->func, d->caller, d->off,
		 d->args_ink);
	ink = !probes_cmd(cmd, true);
	for (j = lead; j < nr_defs && kp; j++) {
		struct cmp_def *m = &defs[j];
		unsigned long long addr;

		if (j != lead && m->leader != lead)
			continue;
		addr = kallsyms_nth(kallsyms, m->caller, m->nth, m->of);
		snprintf(cmd, sizeof(cmd), "p:kpr/r%d 0x%llx %s", j, addr + m->off, m->args_kp);
		kp = addr && !write_file(TRACING "/kprobe_events", cmd, true);
		if (kp)
			m->placed = true;
		else
			TH_LOG("%s@%s#%d/%d+0x%x: kprobe_events refused %s (kallsyms: %s)", m->func,
			       m->caller, m->nth, m->of, m->off, cmd, addr ? "found" : "not as many");
	}
	if (ink && kp)
		return 1;
	for (j = lead; j < nr_defs; j++)
		if ((j == lead || defs[j].leader == lead) && defs[j].placed) {
			defs[j].placed = false;
			snprintf(cmd, sizeof(cmd), "-:kpr/r%d", j);
			write_file(TRACING "/kprobe_events", cmd, true);
		}
	if (ink) {
		snprintf(cmd, sizeof(cmd), "-:real/r%d", lead);
		probes_cmd(cmd, true);
	} else {
		TH_LOG("%s@%s+0x%x: inkprobe refused it: %s", d->func, d->caller, d->off,
		       last_error());
	}
	if (!ink && !kp)
		return 0;
	return ink && !traceable(ftraced, d->caller) ? -1 : -2;
}

FIXTURE(real) {
	int unused;
};

/* kprobes armed, no kprobe_events left: also if a test died half-way */
static void restore(void)
{
	write_file(KPROBES_ON, "1", false);
	if (events_kb)
		events_instance(events_kb);
	write_file(TRACING "/events/kpr/enable", "0", false);
	write_file(TRACING "/kprobe_events", "", false);
}

FIXTURE_SETUP(real)
{
	restore();
}

FIXTURE_TEARDOWN(real)
{
	restore();
}

/* ~1,000 definitions (both sides) under TCG: some 30 s, 600 s on a loaded machine */
TEST_F_TIMEOUT(real, same_values_as_kprobe_events, 900)
{
	char path[512], cmd[1024], *line, *kallsyms, *ftraced;
	unsigned long compared = 0, per_class[3] = { 0 }, placed = 0, refused = 0, ambiguous = 0;
	unsigned long notrace = 0, oracle_events = 0, oracle_args = 0, same_name = 0;
	const char *classes[3] = { "net", "block", "mm" };
	int i, c, k, no_oracle;

	time_t t0 = time(NULL);

	snprintf(path, sizeof(path), "%s/real-defs.txt", env_or("INKPROBE_BLOB_DIR", "."));
	nr_defs = read_cmp_defs(path, defs, MAX_DEFS, &no_oracle);
	ASSERT_LT(0, nr_defs);
	if (module_loaded("inkprobe"))
		ASSERT_EQ(0, unload_module("inkprobe"));
	ASSERT_EQ(0, load_module(kmod_path("inkprobe.ko")));
	events_kb = events_buffer_kb();
	ASSERT_LT(0u, events_kb);
	ASSERT_EQ(0, events_instance(32768));
	ASSERT_EQ(0, load_blob(blob_path("vmlinux.inkb"))) {
		TH_LOG("%s", last_error());
	}
	line = read_file(INK_DIR "/blobs", NULL);
	ASSERT_NE(NULL, line);
	TH_LOG("%s", line);
	EXPECT_NE(NULL, strstr(line, "vmlinux build-id="));
	EXPECT_NE(NULL, strstr(line, " live "));
	free(line);

	system("mount -t tracefs nodev " TRACING " 2>/dev/null");
	/* set everything up disarmed: hits count from the switch on */
	ASSERT_EQ(0, write_file(KPROBES_ON, "0", false));
	ASSERT_EQ(0, write_file(TRACING "/buffer_size_kb", "16384", false));
	ASSERT_EQ(0, write_file(TRACING "/kprobe_events", "", false));
	kallsyms = read_file("/proc/kallsyms", NULL);
	ASSERT_NE(NULL, kallsyms);
	ftraced = read_file(TRACING "/available_filter_functions", NULL);
	ASSERT_NE(NULL, ftraced);
	for (i = 0; i < nr_defs; i++) {
		struct cmp_def *d = &defs[i];
		bool ink, kp;

		if (d->nth) {
			int r = d->leader < 0 ? place_group(_metadata, i, kallsyms, ftraced) : 2;

			placed += r == 1;
			refused += r == 0;
			notrace += r == -1;
			same_name += r == 1;
			EXPECT_NE(-2, r);
			continue;
		}
		snprintf(cmd, sizeof(cmd), "p:real/r%d %s@%s+0x%x%s", i, d->func, d->caller,
			 d->off, d->args_ink);
		ink = !probes_cmd(cmd, true);
		snprintf(cmd, sizeof(cmd), "p:kpr/r%d %s+%u %s", i, d->caller, d->off,
			 d->args_kp);
		kp = !write_file(TRACING "/kprobe_events", cmd, true);
		if (ink && kp) {
			d->placed = true;
			placed++;
			continue;
		}
		if (!ink && !kp) {
			/* ftrace cannot trace the caller, or kprobes refuses the address */
			notrace += !traceable(ftraced, d->caller);
			refused += traceable(ftraced, d->caller);
			continue;
		}
		if (ambiguous_symbol(kallsyms, d->caller)) {
			ambiguous++;
			snprintf(cmd, sizeof(cmd), ink ? "-:real/r%d" : "-:kpr/r%d", i);
			if (ink) {
				EXPECT_EQ(0, probes_cmd(cmd, true));
			} else {
				write_file(TRACING "/kprobe_events", cmd, true);
			}
			continue;
		}
		EXPECT_EQ(kp, ink) {
			char *log = read_file(TRACING "/error_log", NULL);

			TH_LOG("%s@%s+0x%x: only %s placed it: %s", d->func, d->caller, d->off,
			       ink ? "inkprobe" : "kprobe_events", ink ? (log ? log : "") :
			       last_error());
			free(log);
		}
		if (ink) {
			snprintf(cmd, sizeof(cmd), "-:real/r%d", i);
			probes_cmd(cmd, true);
		} else {
			snprintf(cmd, sizeof(cmd), "-:kpr/r%d", i);
			write_file(TRACING "/kprobe_events", cmd, true);
		}
	}
	free(kallsyms);
	free(ftraced);
	TH_LOG("%lu of %d instances placed on both sides (%lu of them in functions that share "
	       "a name, by address); refused on both: %lu by kprobes, %lu callers not in "
	       "available_filter_functions; on one side only: %lu (caller's name ambiguous in "
	       "kallsyms)", placed, nr_defs, same_name, refused, notrace, ambiguous);
	ASSERT_LT(0UL, placed);
	TH_LOG("placed after %ld s", (long)(time(NULL) - t0));
	ASSERT_EQ(0, write_file(TRACING "/events/kpr/enable", "1", false));
	ASSERT_EQ(0, events_enable("real"));
	ASSERT_EQ(0, write_file(TRACING "/trace", "", false));
	drain_events();

	ASSERT_EQ(0, write_file(KPROBES_ON, "1", false));
	EXPECT_EQ(0, tcp_loopback(10, 8, 8192));
	EXPECT_EQ(0, workload_block_io());
	EXPECT_EQ(0, workload_memory());
	/* both sides stop at once */
	ASSERT_EQ(0, write_file(KPROBES_ON, "0", false));

	{
		char *stats = read_file(INK_DIR "/stats", NULL);
		unsigned long long missed, kp_missed = kprobe_events_missed();

		ASSERT_NE(NULL, stats);
		missed = stat_sum(stats, "missed");
		EXPECT_EQ(0ULL, stat_sum(stats, "ftrace_lost"));
		EXPECT_EQ(stat_sum(stats, "hits"), stat_sum(stats, "ftrace_written"));
		/* missed on both sides alike: the events still compare one by one */
		EXPECT_EQ(kp_missed, missed);
		TH_LOG("inkprobe: %llu hits, %llu written, %llu missed (kprobe_events: %llu missed)",
		       stat_sum(stats, "hits"), stat_sum(stats, "ftrace_written"), missed, kp_missed);
		free(stats);
	}
	EXPECT_EQ(0, collect_cmp_events(defs, nr_defs, ": real:r", ": r")) {
		TH_LOG("kprobe_events lost events");
	}
	write_file(TRACING "/events/kpr/enable", "0", false);
	write_file(TRACING "/kprobe_events", "", false);
	ASSERT_EQ(0, clear_probes());
	ASSERT_EQ(0, write_file(KPROBES_ON, "1", false));

	for (i = 0; i < nr_defs; i++) {
		struct cmp_def *d = &defs[i];

		if (!d->placed)
			continue;
		EXPECT_EQ(d->nr_kp, d->nr_ink) {
			TH_LOG("%s@%s+0x%x: kprobe_events %lu hits, inkprobe %lu", d->func,
			       d->caller, d->off, d->nr_kp, d->nr_ink);
		}
		for (c = 0; c < CMP_MAX_CPUS; c++) {
			const char *a = d->ink[c] ? d->ink[c] : "", *b = d->kp[c] ? d->kp[c] : "";

			EXPECT_STREQ(b, a) {
				TH_LOG("%s@%s+0x%x on CPU %d", d->func, d->caller, d->off, c);
			}
			free(d->ink[c]);
			free(d->kp[c]);
		}
		oracle_args += d->nr_oracles;
		oracle_events += d->nr_ink * d->nr_oracles;
		if (d->nr_ink) {
			compared += d->nr_ink;
			for (k = 0; k < 3; k++)
				if (!strcmp(d->cls, classes[k]) && d->nr_ink)
					per_class[k]++;
			TH_LOG("%-8s %s@%s+0x%x: %lu events compared", d->cls, d->func, d->caller,
			       d->off, d->nr_ink);
		}
	}
	TH_LOG("%lu events compared; instances hit: net %lu, block %lu, mm %lu", compared,
	       per_class[0], per_class[1], per_class[2]);
	TH_LOG("arguments of listed differences: %lu placed, checked against the DWARF in %lu "
	       "values; %d without a run-time oracle (the # no-oracle lines)", oracle_args,
	       oracle_events, no_oracle);
	/* the oracles were compared: the workload hits some */
	EXPECT_LT(0UL, oracle_events);
	/* a function of each kind was hit and compared */
	EXPECT_LT(0UL, per_class[0]);
	EXPECT_LT(0UL, per_class[1]);
	EXPECT_LT(0UL, per_class[2]);
	ASSERT_EQ(0, unload_module("inkprobe"));
	ASSERT_EQ(0, setup_target());
}

TEST_HARNESS_MAIN
