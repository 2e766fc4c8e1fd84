// SPDX-License-Identifier: GPL-2.0
/* inkprobe-kernels: !debug -- the reader is userspace (libtracefs) against trace-cmd and perf; the module paths it drives (events in an instance, stacktrace records, a full buffer) run on debug in trace_event_test, stack_test and trace_pipe_test */
/*
 * `inkprobe trace` ($INKPROBE_TOOL), the reader of ftrace's ring
 * (Documentation/trace-events.rst, "inkprobe trace"), and every reader's
 * stacks:
 * - its JSON and `trace-cmd report` (libtraceevent, the print fmt), each
 *   recording the same hits into a buffer of its own, agree field by field,
 *   matched by CPU and time order, and both have exactly the values the
 *   target module recorded for its calls; JSON numbers are numbers;
 * - a stacktrace event's frames in tracefs' trace, inkprobe trace (text and
 *   JSON), trace-cmd report and perf script with the plugin
 *   (build/plugin_inkprobe.so) are the target's known chain with its inline
 *   frames, and in hex without the plugin;
 * - an instance a killed reader left is removed by the next reader, and the
 *   instance of a running reader is not;
 * - a buffer too small for the hits loses exactly what the reader does not
 *   read: read + lost = hits;
 * - what inkprobe trace --output records, --input prints: exactly the hits
 *   the target recorded, the live reader's fields.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <glob.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysinfo.h>
#include <sys/wait.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "guest_util.h"

#define TRACEFS		"/sys/kernel/tracing"
#define MIX_DEF		"p:reader/mix tgt_mix reg konst obj weight=obj->weight"
/*
 * The group is not "rd": perf reads r followed by hex digits as a raw PMU
 * event, so "perf record -e rd:deep" is a parser error (exit 129).
 */
#define STACK_DEF	"p:reader/deep tgt_stack_innermost v stacktrace"
#define NR_MIX		20
#define INST		TRACEFS "/instances/rdtest"	/* a buffer of the test's own */
#define MAX_RECS	256

/* ---- the reader, started and stopped ---- */

static const char *tool(void)
{
	return env_or("INKPROBE_TOOL", "inkprobe");
}

/* The readers a test started and did not wait for: the teardown ends them. */
static pid_t readers[8];

/* `inkprobe trace ARGS...` with stdout to @out, stderr to @err; its pid. */
static pid_t start_reader(const char *out, const char *err, const char *const *args)
{
	const char *argv[16] = { "inkprobe", "trace" };
	pid_t pid;
	int i;

	for (i = 0; args[i] && i < 13; i++)
		argv[i + 2] = args[i];
	pid = fork();
	for (i = 0; pid > 0 && i < 8; i++)
		if (!readers[i]) {
			readers[i] = pid;
			break;
		}
	if (pid)
		return pid;
	if (!freopen(out, "w", stdout) || !freopen(err, "w", stderr))
		_exit(126);
	execv(tool(), (char **)argv);
	_exit(127);
}

static int wait_status(pid_t pid)
{
	int st, i;

	for (i = 0; i < 8; i++)
		if (readers[i] == pid)
			readers[i] = 0;
	if (waitpid(pid, &st, 0) != pid)
		return -1;
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

/* The instance of reader @pid ("inkprobe-PID-START"), "" if none. */
static const char *instance_of(pid_t pid)
{
	static char path[512];
	char pat[128];
	glob_t g;

	path[0] = '\0';
	snprintf(pat, sizeof(pat), TRACEFS "/instances/inkprobe-%d-*", (int)pid);
	if (!glob(pat, 0, NULL, &g) && g.gl_pathc == 1)
		snprintf(path, sizeof(path), "%s", g.gl_pathv[0]);
	globfree(&g);
	return path;
}

/* Whether @file reads "1". */
static bool reads_one(const char *file)
{
	char *v = read_file(file, NULL);
	bool one = v && v[0] == '1';

	free(v);
	return one;
}

/*
 * Waits until reader @pid has enabled GROUP/EVENT in its instance: it reads
 * from then on.  False if it ended first, or after a minute (scaled).
 */
static bool reader_ready(pid_t pid, const char *event)
{
	char path[700];
	int i;

	for (i = 0; i < 6000 * timeout_scale(); i++) {
		const char *inst = instance_of(pid);

		if (*inst) {
			snprintf(path, sizeof(path), "%s/events/%s/enable", inst, event);
			if (reads_one(path))
				return true;
		}
		if (waitpid(pid, NULL, WNOHANG) == pid)
			return false;
		usleep(10000);
	}
	return false;
}

static int stop_reader(pid_t pid)
{
	kill(pid, SIGINT);
	return wait_status(pid);
}

/* ---- JSON, the little these lines need ---- */

/* The text after "KEY": in @line, NULL if none. */
static const char *json_at(const char *line, const char *key)
{
	char k[80];
	const char *p;

	snprintf(k, sizeof(k), "\"%s\":", key);
	p = strstr(line, k);
	return p ? p + strlen(k) : NULL;
}

/* A JSON number (not a string): true and *v. */
static bool json_num(const char *line, const char *key, long double *v)
{
	const char *p = json_at(line, key);
	char *end;

	if (!p || !(isdigit((unsigned char)*p) || *p == '-'))
		return false;
	*v = strtold(p, &end);
	return end != p && (*end == ',' || *end == '}');
}

static bool json_u64(const char *line, const char *key, unsigned long long *v)
{
	const char *p = json_at(line, key);
	char *end;

	if (!p || !isdigit((unsigned char)*p))
		return false;
	*v = strtoull(p, &end, 10);
	return *end == ',' || *end == '}';
}

static bool json_s64(const char *line, const char *key, long long *v)
{
	const char *p = json_at(line, key);
	char *end;

	if (!p || !(isdigit((unsigned char)*p) || *p == '-'))
		return false;
	*v = strtoll(p, &end, 10);
	return *end == ',' || *end == '}';
}

/* A JSON string without escapes into @out. */
static bool json_str(const char *line, const char *key, char *out, size_t n)
{
	const char *p = json_at(line, key), *q;

	if (!p || *p != '"')
		return false;
	q = strchr(p + 1, '"');
	if (!q || (size_t)(q - p - 1) >= n)
		return false;
	snprintf(out, n, "%.*s", (int)(q - p - 1), p + 1);
	return true;
}

/* ---- one hit of tgt_mix, as each reader shows it ---- */

struct hit {
	char comm[32], caller[64];
	long pid, cpu;
	unsigned long long ts_ns, offset, reg, obj, weight;
	long long konst;
	int seq;		/* its line: the order of equal stamps */
};

/* A JSON line of reader/mix; every number must be a JSON number. */
static bool hit_from_json(const char *line, struct hit *h)
{
	long double ts, v;
	long long pid, cpu;

	memset(h, 0, sizeof(*h));
	return json_str(line, "comm", h->comm, sizeof(h->comm)) &&
	       json_s64(line, "pid", &pid) && json_s64(line, "cpu", &cpu) &&
	       json_num(line, "ts", &ts) && json_u64(line, "ts_raw", &h->ts_ns) &&
	       json_num(line, "ip", &v) &&
	       json_str(line, "caller", h->caller, sizeof(h->caller)) &&
	       json_u64(line, "offset", &h->offset) && json_u64(line, "reg", &h->reg) &&
	       json_s64(line, "konst", &h->konst) && json_u64(line, "obj", &h->obj) &&
	       json_u64(line, "weight", &h->weight) && (h->pid = pid, h->cpu = cpu, true) &&
	       /* the two stamps say the same */
	       (long double)h->ts_ns / 1e9 - ts < 1e-6 && ts - (long double)h->ts_ns / 1e9 < 1e-6;
}

/*
 * A line of `trace-cmd report -t` for reader/mix:
 *   COMM-PID [CPU] SEC.NSEC: mix: (CALLER+0xOFF) reg=R konst=K obj=0xO weight=W
 */
static bool hit_from_report(const char *line, struct hit *h)
{
	const char *br = strstr(line, " ["), *p, *dash;
	unsigned long long sec, nsec;
	int n = 0;

	memset(h, 0, sizeof(*h));
	if (!br || !strstr(line, ": mix: "))
		return false;
	for (dash = br; dash > line && dash[-1] == ' ';)
		dash--;
	while (dash > line && isdigit((unsigned char)dash[-1]))
		dash--;
	if (dash <= line || dash[-1] != '-')
		return false;
	h->pid = strtol(dash, NULL, 10);
	for (p = line; *p == ' '; p++)
		;
	snprintf(h->comm, sizeof(h->comm), "%.*s", (int)(dash - 1 - p), p);
	if (sscanf(br, " [%ld] %llu.%llu: mix: %n", &h->cpu, &sec, &nsec, &n) != 3 || !n)
		return false;
	h->ts_ns = sec * 1000000000ULL + nsec;
	p = br + n;
	while (*p == ' ')
		p++;
	return sscanf(p, "(%63[^+]+0x%llx) reg=%llu konst=%lld obj=0x%llx weight=%llu",
		      h->caller, &h->offset, &h->reg, &h->konst, &h->obj, &h->weight) == 6;
}

/* The hits of @text (lines), by @parse; how many. */
static int hits_of(char *text, bool (*parse)(const char *, struct hit *), struct hit *hits,
		   int max, int *bad)
{
	char *line, *save = NULL;
	int n = 0;

	*bad = 0;
	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		if (n < max && parse(line, &hits[n]))
			hits[n].seq = n, n++;
		else
			(*bad)++, fprintf(stderr, "# not a hit: %s\n", line);
	}
	return n;
}

/*
 * The hits of @text (taken: freed here; NULL when it could not be read),
 * every line one: how many, or -1 without a text.
 */
static int hits_in(struct __test_metadata *_metadata, char *text,
		   bool (*parse)(const char *, struct hit *), struct hit *hits, const char *what)
{
	int n, bad;

	EXPECT_NE(NULL, text) TH_LOG("%s: nothing read", what);
	if (!text)
		return -1;
	n = hits_of(text, parse, hits, MAX_RECS, &bad);
	EXPECT_EQ(0, bad) TH_LOG("%s: %d lines are no hit", what, bad);
	free(text);
	return n;
}

static int cmp_hit(const void *a, const void *b)
{
	const struct hit *x = a, *y = b;

	if (x->cpu != y->cpu)
		return x->cpu < y->cpu ? -1 : 1;
	if (x->ts_ns != y->ts_ns)
		return x->ts_ns < y->ts_ns ? -1 : 1;
	return (x->seq > y->seq) - (x->seq < y->seq);
}

/* @path exists and is empty (a reader's stderr, a recorder's stdout). */
static void expect_empty_file(struct __test_metadata *_metadata, const char *path)
{
	char *text = read_file(path, NULL);

	EXPECT_STREQ("", text ? text : "(none)") TH_LOG("%s", path);
	free(text);
}

FIXTURE(reader) {
	char clock[32];
};

/* The top level's clock ("[global] local ..."), kept to put it back. */
static void save_clock(char *out, size_t n)
{
	char *c = read_file(TRACEFS "/trace_clock", NULL), *b, *e;

	out[0] = '\0';
	b = c ? strchr(c, '[') : NULL;
	e = b ? strchr(b, ']') : NULL;
	if (e)
		snprintf(out, n, "%.*s", (int)(e - b - 1), b + 1);
	free(c);
}

FIXTURE_SETUP(reader)
{
	ASSERT_EQ(0, setup_target());
	ASSERT_EQ(0, clear_probes());
	save_clock(self->clock, sizeof(self->clock));
}

/*
 * Readers a failed test left running: SIGINT (they remove their instance),
 * SIGKILL after a minute, then whatever instance is left goes too.
 */
static void end_readers(void)
{
	char pat[128];
	glob_t g;
	size_t j;
	int i, k;

	for (i = 0; i < 8; i++) {
		pid_t pid = readers[i];

		if (!pid)
			continue;
		readers[i] = 0;
		kill(pid, SIGINT);
		for (k = 0; k < 600 * timeout_scale() && waitpid(pid, NULL, WNOHANG) != pid; k++)
			usleep(100000);
		if (k == 600 * timeout_scale()) {
			kill(pid, SIGKILL);
			waitpid(pid, NULL, 0);
		}
		snprintf(pat, sizeof(pat), TRACEFS "/instances/inkprobe-%d-*", (int)pid);
		if (!glob(pat, 0, NULL, &g))
			for (j = 0; j < g.gl_pathc; j++)
				rmdir(g.gl_pathv[j]);
		globfree(&g);
	}
}

/* perf's $HOME (its build-ID cache) */
#define PERF_HOME	"/tmp/rd-perf-home"

FIXTURE_TEARDOWN(reader)
{
	end_readers();
	if (self->clock[0])
		write_file(TRACEFS "/trace_clock", self->clock, false);
	write_file(TRACEFS "/events/reader/enable", "0", false);
	write_file(TRACEFS "/tracing_on", "1", false);	/* as the kernel boots */
	rmdir(INST);		/* disables the events there */
	clear_probes();
}

/*
 * NR_MIX calls of the target's mix scenario (two hits each: tgt_mix is
 * inlined twice); what the target recorded of each hit into @expected
 * ("CALLER reg=R konst=K obj=0xO weight=W"); how many hits.
 */
static int mix_calls(char (*expected)[160])
{
	char *exp, *line, *save, cmd[96];
	int i, nexp = 0;

	for (i = 0; i < NR_MIX; i++) {
		snprintf(cmd, sizeof(cmd), "mix %d %d %d", 1000 * i + 7, i * 3 + 1, 40 + i);
		if (write_file(TGT_DIR "/trigger", cmd, false))
			return -1;
		exp = read_file(TGT_DIR "/expected", NULL);
		if (!exp)
			return -1;
		/* "tgt_mix CALLER reg=R konst=K" per hit */
		for (line = strtok_r(exp, "\n", &save); line && nexp < NR_MIX * 2;
		     line = strtok_r(NULL, "\n", &save))
			if (!strncmp(line, "tgt_mix ", 8))
				snprintf(expected[nexp++], 160, "%s", line + 8);
		free(exp);
	}
	return nexp;
}

/* @h is one of the calls the target recorded, by this process: each once. */
static void check_call(struct __test_metadata *_metadata, const struct hit *h,
		       char (*expected)[160], int nexp)
{
	char want[160];
	int j;

	EXPECT_EQ(getpid(), h->pid);
	EXPECT_STREQ("reader_test", h->comm);
	/* tgt_expect("tgt_mix %s reg=%llu konst=%d obj=0x%px weight=%u") */
	snprintf(want, sizeof(want), "%s reg=%llu konst=%lld obj=0x%016llx weight=%llu",
		 h->caller, h->reg, h->konst, h->obj, h->weight);
	for (j = 0; j < nexp; j++) {
		if (!strcmp(expected[j], want)) {
			expected[j][0] = '\0';
			break;
		}
	}
	EXPECT_LT(j, nexp) TH_LOG("no call of the target had %s", want);
}

/* One hit as two readers show it: every field but the stamp. */
static void same_hit(struct __test_metadata *_metadata, const struct hit *a, const struct hit *b)
{
	EXPECT_EQ(a->cpu, b->cpu);
	EXPECT_STREQ(b->comm, a->comm);
	EXPECT_EQ(b->pid, a->pid);
	EXPECT_STREQ(b->caller, a->caller);
	EXPECT_EQ(b->offset, a->offset);
	EXPECT_EQ(b->reg, a->reg);
	EXPECT_EQ(b->konst, a->konst);
	EXPECT_EQ(b->obj, a->obj);
	EXPECT_EQ(b->weight, a->weight);
}

/*
 * How many CPUs of the top-level buffer a process reads: open
 * per_cpu/cpuN/trace_pipe_raw files outside any instance.  trace-cmd
 * record turns tracing on as soon as it has forked its recorders, before
 * they open those files; a recorder stopped before it reads has recorded
 * nothing (seen once on sid: a .dat without the calls).
 */
static int top_cpus_read(void)
{
	unsigned long long seen = 0;
	glob_t g;
	size_t i;
	int n = 0;

	if (glob("/proc/[0-9]*/fd/*", 0, NULL, &g))
		return 0;
	for (i = 0; i < g.gl_pathc; i++) {
		char link[256];
		ssize_t len = readlink(g.gl_pathv[i], link, sizeof(link) - 1);
		unsigned int cpu;
		int end = 0;
		const char *p;

		if (len <= 0)
			continue;
		link[len] = '\0';
		p = strstr(link, "/per_cpu/cpu");
		if (!p || strstr(link, "/instances/") ||
		    sscanf(p, "/per_cpu/cpu%u/trace_pipe_raw%n", &cpu, &end) != 1 ||
		    p[end] || cpu >= 64 || (seen & (1ULL << cpu)))
			continue;
		seen |= 1ULL << cpu;
		n++;
	}
	globfree(&g);
	return n;
}

/*
 * NR_MIX calls of the target's mix scenario while inkprobe trace --json
 * reads its instance and trace-cmd record the top level: the same hits,
 * field by field.
 */
TEST_F_TIMEOUT(reader, json_agrees_with_trace_cmd_report, 600)
{
	static struct hit ours[MAX_RECS], theirs[MAX_RECS];
	static char expected[NR_MIX * 2][160];
	const char *args[] = { "--json", "-e", "reader/mix", NULL };
	int i, n_ours, n_theirs, nexp, status;
	char *text;
	pid_t reader, tc;

	ASSERT_EQ(0, define_probe(MIX_DEF));
	/* one clock for both buffers: their stamps interleave */
	ASSERT_EQ(0, write_file(TRACEFS "/trace_clock", "global", false));
	reader = start_reader("/tmp/rd.json", "/tmp/rd.err", args);
	ASSERT_TRUE(reader_ready(reader, "reader/mix"));
	/* trace-cmd turns the top level on once its recorders run: wait for that */
	ASSERT_EQ(0, write_file(TRACEFS "/tracing_on", "0", false));
	tc = fork();
	if (!tc) {
		if (!freopen("/tmp/rd-tc.log", "w", stdout) || chdir("/tmp"))
			_exit(126);
		dup2(1, 2);
		execlp("trace-cmd", "trace-cmd", "record", "-C", "global", "-e", "reader:mix",
		       "-o", "/tmp/rd.dat", NULL);
		_exit(127);
	}
	for (i = 0; i < 60000 * timeout_scale() && !(reads_one(TRACEFS "/events/reader/mix/enable") &&
						     reads_one(TRACEFS "/tracing_on"));
	     i++)
		usleep(1000);
	ASSERT_TRUE(reads_one(TRACEFS "/events/reader/mix/enable"));
	ASSERT_TRUE(reads_one(TRACEFS "/tracing_on"));
	/* and every CPU's recorder has its buffer open */
	for (i = 0; i < 6000 * timeout_scale() && top_cpus_read() < get_nprocs(); i++)
		usleep(10000);
	ASSERT_EQ(get_nprocs(), top_cpus_read());
	nexp = mix_calls(expected);
	ASSERT_EQ(NR_MIX * 2, nexp);
	kill(tc, SIGINT);
	status = wait_status(tc);
	EXPECT_EQ(0, status) {
		text = read_file("/tmp/rd-tc.log", NULL);
		TH_LOG("%s", text);
		free(text);
	}
	EXPECT_EQ(0, stop_reader(reader));
	expect_empty_file(_metadata, "/tmp/rd.err");

	n_ours = hits_in(_metadata, read_file("/tmp/rd.json", NULL), hit_from_json, ours,
			 "inkprobe trace --json");
	ASSERT_EQ(0, run_shell("trace-cmd report -t -i /tmp/rd.dat | grep ' mix: '", &text)) {
		/* what trace-cmd said while recording, and what the file holds */
		free(text);
		text = read_file("/tmp/rd-tc.log", NULL);
		TH_LOG("trace-cmd record: %s", text ? text : "(no log)");
		free(text);
		run_shell("ls -l /tmp/rd.dat; trace-cmd report --stat -i /tmp/rd.dat; "
			  "trace-cmd report -t -i /tmp/rd.dat | head -n 30", &text);
		TH_LOG("trace-cmd report: %s", text);
		free(text);
	}
	n_theirs = hits_in(_metadata, text, hit_from_report, theirs, "trace-cmd report");
	ASSERT_EQ(NR_MIX * 2, n_ours);
	ASSERT_EQ(NR_MIX * 2, n_theirs);

	/* by CPU, in time order: the k-th hit of a CPU in one buffer is its k-th in the other */
	qsort(ours, n_ours, sizeof(ours[0]), cmp_hit);
	qsort(theirs, n_theirs, sizeof(theirs[0]), cmp_hit);
	for (i = 0; i < n_ours; i++) {
		struct hit *a = &ours[i], *b = &theirs[i];

		same_hit(_metadata, a, b);
		/*
		 * each buffer stamps the hit itself: the pairs do not overlap
		 * (a hit's handler ends before the next hit on its CPU)
		 */
		if (i + 1 < n_ours && ours[i + 1].cpu == a->cpu) {
			unsigned long long hi = a->ts_ns > b->ts_ns ? a->ts_ns : b->ts_ns;
			unsigned long long lo = ours[i + 1].ts_ns < theirs[i + 1].ts_ns ?
				ours[i + 1].ts_ns : theirs[i + 1].ts_ns;

			EXPECT_LE(hi, lo) TH_LOG("hit %d: %llu %llu, then %llu %llu", i,
						 a->ts_ns, b->ts_ns, ours[i + 1].ts_ns,
						 theirs[i + 1].ts_ns);
		}
		check_call(_metadata, a, expected, nexp);
	}
	unlink("/tmp/rd.json");
	unlink("/tmp/rd.err");
	unlink("/tmp/rd.dat");
	unlink("/tmp/rd-tc.log");
}

/*
 * NR_MIX calls of the mix scenario while inkprobe trace --output records
 * its instance's pages and inkprobe trace --json reads another instance:
 * --input of the file has exactly the hits the target recorded, and, CPU
 * by CPU in time order, the live reader's fields.
 */
TEST_F_TIMEOUT(reader, recorded_file_has_the_hits, 600)
{
	static struct hit recd[MAX_RECS], live[MAX_RECS];
	static char expected[NR_MIX * 2][160];
	const char *live_args[] = { "--json", "-e", "reader/mix", NULL };
	const char *rec_args[] = { "-e", "reader/mix", "-o", "/tmp/rd.ink", NULL };
	int i, n_recd, n_live, nexp;
	pid_t reader, recorder;
	char cmd[600], *text;

	ASSERT_EQ(0, define_probe(MIX_DEF));
	reader = start_reader("/tmp/rd.json", "/tmp/rd.err", live_args);
	recorder = start_reader("/tmp/rd-rec.out", "/tmp/rd-rec.err", rec_args);
	ASSERT_TRUE(reader_ready(reader, "reader/mix"));
	ASSERT_TRUE(reader_ready(recorder, "reader/mix"));
	nexp = mix_calls(expected);
	ASSERT_EQ(NR_MIX * 2, nexp);
	EXPECT_EQ(0, stop_reader(recorder));
	EXPECT_EQ(0, stop_reader(reader));
	expect_empty_file(_metadata, "/tmp/rd-rec.err");
	expect_empty_file(_metadata, "/tmp/rd-rec.out");
	EXPECT_STREQ("", instance_of(recorder));

	snprintf(cmd, sizeof(cmd), "%s trace -i /tmp/rd.ink --json 2>/tmp/rd-rep.err", tool());
	ASSERT_EQ(0, run_shell(cmd, &text));
	n_recd = hits_in(_metadata, text, hit_from_json, recd, "inkprobe trace -i --json");
	expect_empty_file(_metadata, "/tmp/rd-rep.err");
	ASSERT_EQ(NR_MIX * 2, n_recd);
	/* the text: a line per hit */
	snprintf(cmd, sizeof(cmd), "%s trace -i /tmp/rd.ink | grep -c ' reader:mix: ('", tool());
	ASSERT_EQ(0, run_shell(cmd, &text));
	EXPECT_EQ(NR_MIX * 2, atoi(text));
	free(text);
	n_live = hits_in(_metadata, read_file("/tmp/rd.json", NULL), hit_from_json, live,
			 "inkprobe trace --json");
	ASSERT_EQ(NR_MIX * 2, n_live);

	qsort(recd, n_recd, sizeof(recd[0]), cmp_hit);
	qsort(live, n_live, sizeof(live[0]), cmp_hit);
	for (i = 0; i < n_recd; i++) {
		struct hit *a = &recd[i], *b = &live[i];

		check_call(_metadata, a, expected, nexp);
		/* each buffer stamps the hit itself: all but the stamps agree */
		same_hit(_metadata, a, b);
	}
	unlink("/tmp/rd.ink");
	unlink("/tmp/rd.json");
	unlink("/tmp/rd.err");
	unlink("/tmp/rd-rec.out");
	unlink("/tmp/rd-rec.err");
	unlink("/tmp/rd-rep.err");
}

/* ---- stacks ---- */

/* The target's recorded "stack X-returns-to SYM+0xOFF/0xSIZE [MOD]", up to the '/'. */
static bool recorded(const char *expected, const char *which, char *out, size_t n)
{
	char key[64];
	const char *p;

	snprintf(key, sizeof(key), "stack %s-returns-to ", which);
	p = strstr(expected, key);
	if (!p)
		return false;
	p += strlen(key);
	snprintf(out, n, "%.*s", (int)strcspn(p, "/\n"), p);
	return true;
}

/* The index of the first line of @lines at or after @from starting with @prefix, or -1. */
static int find_from(char **lines, int n, int from, const char *prefix)
{
	int i;

	for (i = from; i < n; i++)
		if (!strncmp(lines[i], prefix, strlen(prefix)))
			return i;
	return -1;
}

/*
 * Frame lines " => ..." of @text from its first line containing @event, until
 * the first line that is not a frame: into @lines (malloc'd); how many.
 */
static int frames_after(const char *text, const char *event, char **lines, int max)
{
	const char *p = strstr(text, event), *nl;
	int n = 0;

	if (!p)
		return 0;
	for (p = strchr(p, '\n'); p && n < max; p = nl) {
		p++;
		nl = strchr(p, '\n');
		if (strncmp(p, " => ", 4))
			break;
		lines[n++] = strndup(p, nl ? (size_t)(nl - p) : strlen(p));
	}
	return n;
}

/*
 * The chain of the "stack N" scenario, inline frames included, as each
 * reader prints its frames: the probe site tgt_chain_c+@off, then the
 * return addresses the target recorded (as "SYM+0xOFF", what every reader
 * has in common), up to the system call.
 */
static void check_chain(struct __test_metadata *_metadata, char **l, int n,
			const char *expected, unsigned int off, const char *who)
{
	char want[160];
	int i = 0;

	TH_LOG("%s: %d frames", who, n);
	ASSERT_LT(8, n);
	EXPECT_STREQ(" => tgt_stack_innermost [inlined]", l[i]) TH_LOG("%s", who);
	i++;
	EXPECT_STREQ(" => tgt_stack_inner [inlined]", l[i]) TH_LOG("%s", who);
	i++;
	snprintf(want, sizeof(want), " => tgt_chain_c+0x%x", off);
	EXPECT_EQ(0, strncmp(l[i], want, strlen(want))) TH_LOG("%s: %s", who, l[i]);
	i++;
	EXPECT_STREQ(" => tgt_b_helper [inlined]", l[i]) TH_LOG("%s", who);
	i++;
	ASSERT_TRUE(recorded(expected, "c", want + 4, sizeof(want) - 4));
	memcpy(want, " => ", 4);
	EXPECT_EQ(0, strncmp(l[i], want, strlen(want))) TH_LOG("%s: %s, not %s", who, l[i], want);
	i++;
	ASSERT_TRUE(recorded(expected, "b", want + 4, sizeof(want) - 4));
	EXPECT_EQ(0, strncmp(l[i], want, strlen(want))) TH_LOG("%s: %s, not %s", who, l[i], want);
	i++;
	ASSERT_TRUE(recorded(expected, "a", want + 4, sizeof(want) - 4));
	EXPECT_EQ(0, strncmp(l[i], want, strlen(want))) TH_LOG("%s: %s, not %s", who, l[i], want);
	i++;
	/* tgt_run_stack(), called by run_scenario(), inlined into trigger_write() */
	i = find_from(l, n, i, " => run_scenario [inlined]");
	EXPECT_LT(0, i) TH_LOG("%s", who);
	i = find_from(l, n, i + 1, " => trigger_write+0x");
	EXPECT_LT(0, i) TH_LOG("%s", who);
	i = find_from(l, n, i + 1, " => vfs_write+0x");
	EXPECT_LT(0, i) TH_LOG("%s", who);
	EXPECT_EQ(0, strncmp(l[n - 1], " => entry_SYSCALL_64", 20)) TH_LOG("%s: %s", who, l[n - 1]);
}

/* The frames of @text after its line with @event, checked; @text freed. */
static void check_text(struct __test_metadata *_metadata, char *text, const char *event,
		       const char *expected, unsigned int off, const char *who)
{
	char *lines[80];
	int n, i;

	EXPECT_EQ(NULL, strstr(text, "FAILED TO PARSE")) TH_LOG("%s: %s", who, text);
	n = frames_after(text, event, lines, 80);
	if (n < 9)
		TH_LOG("%s:\n%s", who, text);
	check_chain(_metadata, lines, n, expected, off, who);
	for (i = 0; i < n; i++)
		free(lines[i]);
	free(text);
}

/* The "stack=0x... 0x..." of a line printed with the print fmt: the known addresses. */
static void check_hex(struct __test_metadata *_metadata, const char *text, const char *expected,
		      unsigned int off, const char *who)
{
	unsigned long want[4] = { kallsyms_addr("tgt_chain_c") + off };
	const char *p = strstr(text, " stack=");
	const char *which[3] = { "c", "b", "a" };
	char sym[160], name[128];
	unsigned int o;
	char *end;
	int i;

	EXPECT_EQ(NULL, strstr(text, "FAILED TO PARSE")) TH_LOG("%s: %s", who, text);
	for (i = 0; i < 3; i++) {
		ASSERT_TRUE(recorded(expected, which[i], sym, sizeof(sym)));
		ASSERT_EQ(2, sscanf(sym, "%127[^+]+0x%x", name, &o));
		want[i + 1] = kallsyms_addr(name) + o;
	}
	ASSERT_NE(NULL, p) TH_LOG("%s: %s", who, text);
	p += 7;
	for (i = 0; i < 4; i++) {
		while (*p == ' ')
			p++;
		/* hex, never a row of decimal numbers */
		EXPECT_EQ(0, strncmp(p, "0x", 2)) TH_LOG("%s: %s", who, p);
		EXPECT_EQ(want[i], strtoul(p, &end, 16)) TH_LOG("%s: frame %d in %s", who, i, text);
		ASSERT_NE(p, end);
		p = end;
	}
}

/*
 * One hit of the "stack N" scenario, v = 2 * N + 7, in every reader:
 * tracefs' trace, inkprobe trace (text and JSON), trace-cmd report and perf
 * script with the plugin, and both of them without it.
 */
TEST_F_TIMEOUT(reader, stacks_in_every_reader, 900)
{
	char *text, *expected, blob_env[700], cmd[2048], want[64], *p;
	const char *targs[] = { "-e", "reader/deep", "--blob", blob_path("inkprobe_target.inkb"), NULL };
	const char *jargs[] = { "--json", "-e", "reader/deep", "--blob",
				blob_path("inkprobe_target.inkb"), NULL };
	unsigned int off;
	pid_t r1, r2;
	long v;

	ASSERT_EQ(0, define_probe(STACK_DEF));
	snprintf(blob_env, sizeof(blob_env), "INKPROBE_BLOBS=%s",
		 blob_path("inkprobe_target.inkb"));

	/* inkprobe trace, text and JSON, and tracefs' trace of an instance: one hit */
	rmdir(INST);
	ASSERT_EQ(0, mkdir(INST, 0755));
	ASSERT_EQ(0, write_file(INST "/events/reader/deep/enable", "1", false));
	r1 = start_reader("/tmp/rd-stack.txt", "/tmp/rd-stack.err", targs);
	r2 = start_reader("/tmp/rd-stack.json", "/tmp/rd-stack-json.err", jargs);
	ASSERT_TRUE(reader_ready(r1, "reader/deep"));
	ASSERT_TRUE(reader_ready(r2, "reader/deep"));
	ASSERT_EQ(0, write_file(TGT_DIR "/trigger", "stack 41", false));
	expected = read_file(TGT_DIR "/expected", NULL);
	ASSERT_NE(NULL, expected);
	/* tracefs' trace: the module's output function */
	text = read_file(INST "/trace", NULL);
	ASSERT_NE(NULL, text);
	ASSERT_EQ(0, write_file(INST "/events/reader/deep/enable", "0", false));
	EXPECT_EQ(0, rmdir(INST));
	p = strstr(text, " reader:deep: (tgt_chain_c+0x");
	ASSERT_NE(NULL, p);
	ASSERT_EQ(2, sscanf(p, " reader:deep: (tgt_chain_c+0x%x) v=%ld", &off, &v));
	/* tgt_chain_a(41) calls tgt_chain_b(44), which calls tgt_chain_c(88): v = 89 */
	EXPECT_EQ(89, v);
	check_text(_metadata, text, " reader:deep: ", expected, off, "tracefs trace");
	usleep(300000);
	EXPECT_EQ(0, stop_reader(r1));
	EXPECT_EQ(0, stop_reader(r2));
	text = read_file("/tmp/rd-stack.txt", NULL);
	ASSERT_NE(NULL, text);
	snprintf(want, sizeof(want), " reader:deep: (tgt_chain_c+0x%x) v=89\n", off);
	EXPECT_NE(NULL, strstr(text, want)) TH_LOG("%s", text);
	check_text(_metadata, text, " reader:deep: ", expected, off, "inkprobe trace");
	text = read_file("/tmp/rd-stack.json", NULL);
	ASSERT_NE(NULL, text);
	/* the site, then the inline frames where they are */
	snprintf(cmd, sizeof(cmd), "\"args\":{\"v\":89},\"stack\":[{\"addr\":%lu,"
		 "\"symbol\":\"tgt_chain_c\",\"offset\":%u,\"module\":\"inkprobe_target\","
		 "\"inlined\":[\"tgt_stack_innermost\",\"tgt_stack_inner\"]},",
		 kallsyms_addr("tgt_chain_c") + off, off);
	EXPECT_NE(NULL, strstr(text, cmd)) TH_LOG("%s", text);
	EXPECT_NE(NULL, strstr(text, "\"symbol\":\"tgt_chain_b\",")) TH_LOG("%s", text);
	EXPECT_NE(NULL, strstr(text, "\"inlined\":[\"tgt_b_helper\"]")) TH_LOG("%s", text);
	EXPECT_NE(NULL, strstr(text, "\"inlined\":[\"run_scenario\"]")) TH_LOG("%s", text);
	free(text);
	free(expected);

	/* trace-cmd report, with the plugin and without */
	snprintf(cmd, sizeof(cmd), "cd /tmp && trace-cmd record -e reader:deep -o /tmp/rd-stack.dat "
		 "/bin/sh -c 'echo stack 44 > " TGT_DIR "/trigger' >/dev/null 2>&1");
	ASSERT_EQ(0, run_shell(cmd, &text)) TH_LOG("%s", text);
	free(text);
	expected = read_file(TGT_DIR "/expected", NULL);
	ASSERT_NE(NULL, expected);
	snprintf(cmd, sizeof(cmd), "TRACEEVENT_PLUGIN_DIR=%s/build %s trace-cmd report "
		 "-i /tmp/rd-stack.dat", env_or("INKPROBE_TOP", "."), blob_env);
	ASSERT_EQ(0, run_shell(cmd, &text)) TH_LOG("%s", text);
	EXPECT_NE(NULL, strstr(text, ") v=95\n")) TH_LOG("%s", text);
	check_text(_metadata, text, ") v=95", expected, off, "trace-cmd report, plugin");
	ASSERT_EQ(0, run_shell("trace-cmd report -N -i /tmp/rd-stack.dat", &text));
	EXPECT_NE(NULL, strstr(text, ") v=95 stack=0x")) TH_LOG("%s", text);
	check_hex(_metadata, text, expected, off, "trace-cmd report, no plugin");
	free(text);
	free(expected);
	unlink("/tmp/rd-stack.dat");

	/*
	 * perf script, with the plugin and without.  perf 6.1 names a
	 * module's frames only from the module's file found under
	 * /lib/modules/$(uname -r) when perf record runs: for one it cannot
	 * find there it caches /proc/kallsyms under the module's build ID and
	 * perf script finds no symbols in it.  So perf sees, for this part,
	 * inkprobe_target.ko in extra/ (in a mount namespace of this test
	 * case's own), as a user installs a module; perf's $HOME (its build-ID
	 * cache) is the test's own.  stdin is not the console: run_shell()'s
	 * process group is in the background.
	 */
	ASSERT_EQ(0, perf_sees_only_our_modules());
	snprintf(cmd, sizeof(cmd), "rm -rf " PERF_HOME " && mkdir -p " PERF_HOME);
	ASSERT_EQ(0, run_shell(cmd, &text)) TH_LOG("%s", text);
	free(text);
	snprintf(cmd, sizeof(cmd), "HOME=" PERF_HOME " perf record -e reader:deep "
		 "-o /tmp/rd-stack.perf -- /bin/sh -c 'echo stack 46 > " TGT_DIR "/trigger' </dev/null");
	ASSERT_EQ(0, run_shell(cmd, &text)) TH_LOG("%s", text);
	free(text);
	expected = read_file(TGT_DIR "/expected", NULL);
	ASSERT_NE(NULL, expected);
	snprintf(cmd, sizeof(cmd), "HOME=" PERF_HOME " TRACEEVENT_PLUGIN_DIR=%s/build %s perf script "
		 "-i /tmp/rd-stack.perf", env_or("INKPROBE_TOP", "."), blob_env);
	ASSERT_EQ(0, run_shell(cmd, &text)) TH_LOG("%s", text);
	EXPECT_NE(NULL, strstr(text, " v=99\n")) TH_LOG("%s", text);
	check_text(_metadata, text, " v=99", expected, off, "perf script, plugin");
	ASSERT_EQ(0, run_shell("HOME=/nonexistent perf script -i /tmp/rd-stack.perf", &text));
	EXPECT_NE(NULL, strstr(text, " v=99 stack=0x")) TH_LOG("%s", text);
	check_hex(_metadata, text, expected, off, "perf script, no plugin");
	free(text);
	free(expected);
	unlink("/tmp/rd-stack.perf");
	ASSERT_EQ(0, run_shell("rm -rf " PERF_HOME, &text)) TH_LOG("%s", text);
	free(text);
	unlink("/tmp/rd-stack.txt");
	unlink("/tmp/rd-stack.json");
	unlink("/tmp/rd-stack.err");
	unlink("/tmp/rd-stack-json.err");
}

/* ---- instances ---- */

static bool exists(const char *path)
{
	struct stat st;

	return !stat(path, &st);
}

/* A process's start time from /proc/PID/stat (field 22). */
static unsigned long long start_time(pid_t pid)
{
	char path[64], *stat, *p;
	unsigned long long v = 0;
	int field;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	stat = read_file(path, NULL);
	p = stat ? strrchr(stat, ')') : NULL;
	for (field = 2; p && field < 22; field++)
		p = strchr(p + 1, ' ');
	if (p)
		v = strtoull(p + 1, NULL, 10);
	free(stat);
	return v;
}

TEST_F_TIMEOUT(reader, a_killed_reader_s_instance_is_removed_by_the_next, 300)
{
	const char *args[] = { "-e", "reader/mix", NULL };
	const char *quick[] = { "-e", "reader/mix", "--timeout", "0.5", NULL };
	char stale[700], reused[128], live[128];
	pid_t r1, r2;

	ASSERT_EQ(0, define_probe(MIX_DEF));
	r1 = start_reader("/dev/null", "/tmp/rd-kill.err", args);
	ASSERT_TRUE(reader_ready(r1, "reader/mix"));
	snprintf(stale, sizeof(stale), "%s", instance_of(r1));
	kill(r1, SIGKILL);
	EXPECT_EQ(128 + SIGKILL, wait_status(r1));
	/* left behind, the event enabled in it: the definition cannot go */
	EXPECT_TRUE(exists(stale));
	EXPECT_EQ(-EBUSY, probes_cmd("-:reader/mix", true));
	/* a PID that runs another process (init, another start time), and a live reader's */
	snprintf(reused, sizeof(reused), TRACEFS "/instances/inkprobe-1-%llu", start_time(1) + 1);
	ASSERT_EQ(0, mkdir(reused, 0755));
	snprintf(live, sizeof(live), TRACEFS "/instances/inkprobe-%d-%llu", (int)getpid(),
		 start_time(getpid()));
	ASSERT_EQ(0, mkdir(live, 0755));

	r2 = start_reader("/dev/null", "/tmp/rd-kill.err", quick);
	EXPECT_EQ(0, wait_status(r2));
	EXPECT_FALSE(exists(stale));
	EXPECT_FALSE(exists(reused));
	EXPECT_TRUE(exists(live));
	EXPECT_STREQ("", instance_of(r2));
	EXPECT_EQ(0, rmdir(live));
	/* nothing holds the event now */
	EXPECT_EQ(0, probes_cmd("-:reader/mix", true));
	unlink("/tmp/rd-kill.err");
}

/* ---- losses ---- */

/*
 * tgt_bench_mix() hit N times while a reader with a one-page buffer per CPU
 * is stopped: what does not fit is lost, and read + lost is N exactly,
 * in the stream ("lost" records) and in the reader's account at its end.
 * (The instance also holds task_newtask and task_rename: nothing forks in
 * the guest meanwhile, the reader's account counts them as read.)
 */
TEST_F_TIMEOUT(reader, read_plus_lost_is_every_hit, 600)
{
	const char *args[] = { "--json", "-e", "reader/b", "--buffer-kb", "4", NULL };
	const unsigned long n = 20000;
	unsigned long long read = 0, lost = 0, v, err_lost = 0, err_read = 0;
	char *text, *line, *save = NULL, cmd[64];
	cpu_set_t one;
	pid_t r;

	ASSERT_EQ(0, define_probe("p:reader/b tgt_bench_mix reg"));
	r = start_reader("/tmp/rd-loss.json", "/tmp/rd-loss.err", args);
	ASSERT_TRUE(reader_ready(r, "reader/b"));
	ASSERT_EQ(0, kill(r, SIGSTOP));
	/* every hit on one CPU */
	CPU_ZERO(&one);
	CPU_SET(0, &one);
	ASSERT_EQ(0, sched_setaffinity(0, sizeof(one), &one));
	snprintf(cmd, sizeof(cmd), "bench %lu", n);
	ASSERT_EQ(0, write_file(TGT_DIR "/trigger", cmd, false));
	ASSERT_EQ(0, kill(r, SIGCONT));
	usleep(500000);
	EXPECT_EQ(0, stop_reader(r));
	text = read_file("/tmp/rd-loss.json", NULL);
	ASSERT_NE(NULL, text);
	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		if (strstr(line, "\"event\":\"b\""))
			read++;
		else if (json_u64(line, "lost", &v))
			lost += v;
		else
			TH_LOG("neither an event nor a loss: %s", line);
	}
	free(text);
	TH_LOG("%lu hits: %llu read, %llu lost", n, read, lost);
	EXPECT_LT(0, lost);
	EXPECT_EQ(n, read + lost);
	/* the reader's account: the same counts of the ring (it read every record) */
	text = read_file("/tmp/rd-loss.err", NULL);
	ASSERT_NE(NULL, text);
	EXPECT_EQ(2, sscanf(text, "inkprobe: trace: %llu events lost, %llu read", &err_lost,
			    &err_read)) TH_LOG("%s", text);
	EXPECT_EQ(lost, err_lost);
	EXPECT_LE(read, err_read);
	free(text);
	unlink("/tmp/rd-loss.json");
	unlink("/tmp/rd-loss.err");
}

TEST_HARNESS_MAIN
