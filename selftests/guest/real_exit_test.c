// SPDX-License-Identifier: GPL-2.0
/*
 * r events on real inlined kernel functions (issue 23): every call of an
 * inlined copy whose exits the blob has must give exactly one exit event.
 *
 * The count of calls comes from kprobe_events, not from inkprobe: a
 * kprobe_events probe at each such copy's entry pc (the address inkprobe's
 * p event lists in sites), in the same trace buffer as the r event.  The
 * workload (TCP over loopback, anonymous and page cache memory, direct I/O
 * on a loop device where the kernel has them: not the debug kernel) runs in a child whose pid, and its children's
 * (options/event-fork), is the buffer's set_event_pid: the child is made
 * after the events are on and has exited, its calls all returned, before
 * they are read, so no call is cut at either end of the window.  Every
 * copy's kprobe_events hits must equal its r events, nothing lost or
 * missed on either side, and each function must have been called.  The
 * r events have $duration: an exit counts only with its duration, so that
 * every call must also have been paired with its own entry (a folio_lock()
 * that sleeps, a call that migrates, softirq work on the loopback socket).
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "guest_util.h"

#define TRACING		"/sys/kernel/tracing"
#define MAX_INST	256

static const char *const funcs[] = { "mmap_read_lock", "folio_lock", "sk_mem_uncharge" };
#define NR_FUNCS	(sizeof(funcs) / sizeof(funcs[0]))

struct copy {
	unsigned long long entry;	/* the p event's address, 0 if not live */
	bool exits;			/* the r event has its exits live */
	bool out_of_line;		/* a kretprobe's, then */
	bool placed;			/* kprobe_events took its entry */
	unsigned long kp, r;		/* hits: kprobe_events' entries, inkprobe's exits */
};

static struct copy copies[NR_FUNCS][MAX_INST];

/* sites' lines of GRP/EVENT: "GRP/EVENT INDEX ADDRESS CALLER+0xOFF KIND live|off ..." */
static void read_sites(const char *sites, unsigned int f)
{
	char p_name[96], r_name[96], *all = strdup(sites), *line, *save = NULL;

	snprintf(p_name, sizeof(p_name), "rxp/%s ", funcs[f]);
	snprintf(r_name, sizeof(r_name), "rx/%s ", funcs[f]);
	for (line = strtok_r(all, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		unsigned long long addr;
		unsigned int index, instance;
		const char *in;

		if (!strncmp(line, p_name, strlen(p_name)) &&
		    sscanf(line + strlen(p_name), "%u %llx", &index, &addr) == 2 &&
		    index < MAX_INST && strstr(line, " live")) {
			copies[f][index].entry = addr;
			copies[f][index].out_of_line = strstr(line, " out-of-line ");
		}
		if (!strncmp(line, r_name, strlen(r_name)) && strstr(line, " live ") &&
		    (in = strstr(line, " instance=")) && sscanf(in, " instance=%u", &instance) == 1 &&
		    instance < MAX_INST)
			copies[f][instance].exits = true;
	}
	free(all);
}

/*
 * "k_FUNC_I: (" (kprobe_events prints the event's name alone) and
 * "rx:FUNC: (...) instance=I" lines of the buffer, counted
 */
static void count_events(const char *trace)
{
	const char *line;
	unsigned int f, i;

	for (line = trace; line && *line; line = strchr(line, '\n'), line = line ? line + 1 : NULL) {
		for (f = 0; f < NR_FUNCS; f++) {
			char kp[96], r[96];
			unsigned long long d;
			const char *at;

			snprintf(r, sizeof(r), " rx:%s: (", funcs[f]);
			at = strstr(line, r);
			/* an exit counts with its call's duration ($duration) */
			if (at && at < strchr(line, '\n') &&
			    sscanf(strstr(at, ") instance=") ?: "", ") instance=%u exit=%*u duration=%llu",
				   &i, &d) == 2 && i < MAX_INST && d > 0)
				copies[f][i].r++;
			snprintf(kp, sizeof(kp), " k_%s_", funcs[f]);
			at = strstr(line, kp);
			if (at && at < strchr(line, '\n') &&
			    sscanf(at + strlen(kp), "%u: (", &i) == 1 && i < MAX_INST)
				copies[f][i].kp++;
		}
	}
}

/* The per-CPU buffers of the events' instance: events overwritten or dropped */
static unsigned long long buffer_losses(void)
{
	unsigned long long sum = 0, v;
	char path[128], *st, *p;
	int cpu;

	for (cpu = 0; cpu < 64; cpu++) {
		snprintf(path, sizeof(path), EVENTS_INST "/per_cpu/cpu%d/stats", cpu);
		st = read_file(path, NULL);
		if (!st)
			break;
		if ((p = strstr(st, "overrun: ")) && sscanf(p, "overrun: %llu", &v) == 1)
			sum += v;
		if ((p = strstr(st, "dropped events: ")) && sscanf(p, "dropped events: %llu", &v) == 1)
			sum += v;
		free(st);
	}
	return sum;
}

/*
 * The workload, in a child whose pid is the buffer's set_event_pid; @block:
 * with direct I/O on a loop device.
 */
static int run_workload(bool block)
{
	int go[2], status = 0;
	char pid[32], c;
	pid_t child;

	if (pipe(go))
		return -1;
	child = fork();
	if (child < 0)
		return -1;
	if (!child) {
		close(go[1]);
		if (read(go[0], &c, 1) != 1)
			_exit(2);
		_exit(tcp_loopback(4, 8, 8192) || workload_memory() ||
		      (block && workload_block_io()) ? 1 : 0);
	}
	close(go[0]);
	snprintf(pid, sizeof(pid), "%d", (int)child);
	if (write_file(EVENTS_INST "/options/event-fork", "1", false) ||
	    write_file(EVENTS_INST "/set_event_pid", pid, false))
		kill(child, SIGKILL);
	c = 1;
	if (write(go[1], &c, 1) != 1)
		kill(child, SIGKILL);
	close(go[1]);
	waitpid(child, &status, 0);
	write_file(EVENTS_INST "/set_event_pid", "", false);
	return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

FIXTURE(real_exit) {
	unsigned int events_kb;
};

FIXTURE_SETUP(real_exit)
{
	memset(copies, 0, sizeof(copies));
	self->events_kb = 0;
	if (module_loaded("inkprobe"))
		ASSERT_EQ(0, unload_module("inkprobe"));
	ASSERT_EQ(0, load_module(kmod_path("inkprobe.ko")));
	self->events_kb = events_buffer_kb();
	ASSERT_EQ(0, events_instance(32768));
	ASSERT_EQ(0, load_blob(blob_path("vmlinux.inkb"))) TH_LOG("%s", last_error());
	write_file(TRACING "/kprobe_events", "", false);
}

FIXTURE_TEARDOWN(real_exit)
{
	write_file(EVENTS_INST "/events/rxk/enable", "0", false);
	write_file(TRACING "/kprobe_events", "", false);
	write_file(EVENTS_INST "/options/event-fork", "0", false);
	clear_probes();
	if (self->events_kb)
		events_instance(self->events_kb);
	unload_module("inkprobe");
	setup_target();
}

TEST_F_TIMEOUT(real_exit, every_call_has_one_exit, 900)
{
	unsigned long total[NR_FUNCS] = { 0 }, with_exits = 0, without = 0, placed = 0;
	unsigned long no_oracle = 0;
	char cmd[256], *sites, *trace, *stats;
	unsigned int f, i;

	for (f = 0; f < NR_FUNCS; f++) {
		snprintf(cmd, sizeof(cmd), "p:rxp/%s %s", funcs[f], funcs[f]);
		ASSERT_EQ(0, define_probe(cmd));
		snprintf(cmd, sizeof(cmd), "r:rx/%s %s $duration", funcs[f], funcs[f]);
		ASSERT_EQ(0, define_probe(cmd));
	}
	sites = read_file(INK_DIR "/sites", NULL);
	ASSERT_NE(NULL, sites);
	for (f = 0; f < NR_FUNCS; f++)
		read_sites(sites, f);
	free(sites);
	/* kprobe_events at the entry of each copy whose exits are placed */
	for (f = 0; f < NR_FUNCS; f++) {
		for (i = 0; i < MAX_INST; i++) {
			struct copy *c = &copies[f][i];

			if (!c->entry)
				continue;
			if (!c->exits) {
				without++;
				continue;
			}
			with_exits++;
			snprintf(cmd, sizeof(cmd), "p:rxk/k_%s_%u 0x%llx", funcs[f], i, c->entry);
			c->placed = !write_file(TRACING "/kprobe_events", cmd, true);
			placed += c->placed;
			/*
			 * An out-of-line copy of an inline function is notrace:
			 * kprobe_events refuses it (CONFIG_KPROBE_EVENTS_ON_NOTRACE=n),
			 * inkprobe's kretprobe does not.  No count to compare with.
			 */
			if (!c->placed && c->out_of_line) {
				no_oracle++;
				TH_LOG("no oracle: kprobe_events refuses the notrace out-of-line copy %s",
				       cmd);
				continue;
			}
			EXPECT_TRUE(c->placed) TH_LOG("kprobe_events refused %s", cmd);
		}
	}
	TH_LOG("%lu copies with exits (%lu of them out of line and notrace: not compared), %lu without (no r event for them)",
	       with_exits, no_oracle, without);
	ASSERT_LT(0UL, placed);
	ASSERT_EQ(0, write_file(EVENTS_INST "/events/rxk/enable", "1", false));
	ASSERT_EQ(0, events_enable("rx"));
	ASSERT_EQ(0, write_file(EVENTS_INST "/trace", "", false));

	/* the debug kernel has no loop devices */
	EXPECT_EQ(0, run_workload(!access("/dev/loop-control", F_OK) ||
				  strcmp(env_or("INKPROBE_KERNEL", ""), "debug")));

	ASSERT_EQ(0, write_file(EVENTS_INST "/events/rxk/enable", "0", false));
	ASSERT_EQ(0, write_file(EVENTS_INST "/events/rx/enable", "0", false));
	stats = read_file(INK_DIR "/stats", NULL);
	ASSERT_NE(NULL, stats);
	EXPECT_EQ(0ULL, stat_sum(stats, "ftrace_lost"));
	EXPECT_EQ(0ULL, stat_sum(stats, "missed"));
	EXPECT_EQ(0ULL, stat_sum(stats, "dropped"));
	/* every entry found a slot (exits of calls begun before: unpaired) */
	EXPECT_NE(NULL, strstr(stats, " untimed="));
	EXPECT_EQ(0ULL, stat_sum(stats, "untimed"));
	free(stats);
	EXPECT_EQ(0ULL, kprobe_events_missed());
	EXPECT_EQ(0ULL, buffer_losses());
	trace = read_file(EVENTS_INST "/trace", NULL);
	ASSERT_NE(NULL, trace);
	count_events(trace);
	free(trace);

	for (f = 0; f < NR_FUNCS; f++) {
		for (i = 0; i < MAX_INST; i++) {
			struct copy *c = &copies[f][i];

			if (!c->placed)
				continue;
			total[f] += c->kp;
			EXPECT_EQ(c->kp, c->r) TH_LOG("%s instance %u at 0x%llx: %lu calls, %lu exits",
						      funcs[f], i, c->entry, c->kp, c->r);
			if (c->kp)
				TH_LOG("%s instance %u: %lu calls, %lu exits", funcs[f], i, c->kp,
				       c->r);
		}
		TH_LOG("%s: %lu calls of its copies with exits", funcs[f], total[f]);
		/* the workload calls each: the comparison is not empty */
		EXPECT_LT(0UL, total[f]);
	}
}

TEST_HARNESS_MAIN
