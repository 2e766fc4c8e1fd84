// SPDX-License-Identifier: GPL-2.0
/* inkprobe-kernels: !debug -- the profile is the tool's (perf_event_open, blob look-ups in userspace); the debug kernel's KASAN slows the spin's clock reads and the sampling interrupt alike, and tool_test, stack_test run the module paths there */
/*
 * inkprobe profile (issue 23 point 3): a sampling profile that names
 * inlined functions.
 *
 * The target's "spin MS" (selftests/target/tgt_profile.c) spins MS ms in
 * tgt_spin_run(), alternating small slices in its inlined copy of
 * tgt_spin_inner() and in its own loop, with preemption off, and says how
 * long it spent in the copy (inner_ns) and in all (total_ns), timed by
 * itself on the clock.  A task does "spin 5000" while
 * `inkprobe profile -p TASK -F 499` samples it.  The oracle:
 *
 *   total% of "tgt_spin_inner [inlined]" = inner_ns / total_ns
 *
 * within a tolerance derived from the sample count: each sample lands in
 * the copy with probability p = inner_ns / total_ns, so its share over n
 * samples has a binomial sigma of sqrt(p (1 - p) / n), and 4 sigma is the
 * statistical part (a false failure once in about 16,000 runs; the
 * samples are periodic, not independent, which only narrows the spread).
 * The samples outside tgt_spin_run() (the write() that starts it, the
 * task's exit) are in neither share: they shift the copy's share by at
 * most their own fraction, which is added (and must be small: <= 5 %).
 * tgt_spin_run() holds the copy: its total is at least the copy's.  No
 * out-of-line tgt_spin_inner() exists (__always_inline): no such row.
 *
 * --folded and --perf-script: the same kind of run, each within the same
 * tolerance; and on one perf.data file (`perf record -g` of a spin) the
 * three outputs of `inkprobe profile -i` must agree exactly with each
 * other (sample counts, the copy's samples), and the callchain
 * addresses of --perf-script with `perf script`'s own on that file.
 *
 * Where the frames come from: with inkprobe.ko loaded and no blob named,
 * inkprobe.ko's "frames" file looks them up (every test above); with
 * --blob, the tool itself.  On one perf.data of the whole machine under a
 * vmlinux workload, with the vmlinux blob in the module, both ways must
 * print the same bytes.
 *
 * Last, the samples for the host's oracle (scripts/profile-oracle, which
 * compares every sampled inline chain with DWARF's): --perf-script of a
 * -p run of the spin with --blob (the tool's look-up) and of an -a run
 * under a vmlinux workload (pipes, mmap/madvise) with the vmlinux blob in
 * the module (the module's), with the guest's _text and the target
 * module's section addresses, written to $INKPROBE_OUT
 * (selftests/guest/run-guest.sh: the guest's output directory, on the
 * host's file system) as profile-KERNEL.perf-script and
 * profile-KERNEL.addrs.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "guest_util.h"
#include "../perf_data_craft.h"

/*
 * 5 s: 2,495 samples at 499 Hz.  TCG misses ticks when the host is busy:
 * ci12, with three guests on two CPUs, got 586 of 1,497 in a 3 s spin.
 */
#define SPIN_MS		5000
#define HZ_ARG		"499"
/* a fifth of what 5 s at 499 Hz make */
#define MIN_SAMPLES	500
#define INNER		"tgt_spin_inner"
#define RUN		"tgt_spin_run"
#define PERF_HOME	"/tmp/pf-perf-home"
#define PERF_CTL	"/tmp/pf-perf-ctl"
#define PERF_ACK	"/tmp/pf-perf-ack"

static const char *tool(void)
{
	return env_or("INKPROBE_TOOL", "inkprobe");
}

/* The target's line for the last spin. */
struct spin {
	unsigned long long inner_ns, total_ns;
};

/* A task that waits for a byte on a pipe, then runs "spin MS". */
struct spinner {
	pid_t pid;
	int go;		/* write end */
};

static int spinner_start(struct spinner *s, unsigned int ms)
{
	int p[2];

	if (pipe(p))
		return -1;
	s->pid = fork();
	if (s->pid < 0)
		return -1;
	if (!s->pid) {
		char c, cmd[32];

		close(p[1]);
		if (read(p[0], &c, 1) != 1)
			_exit(2);
		snprintf(cmd, sizeof(cmd), "spin %u", ms);
		_exit(write_file(TGT_DIR "/trigger", cmd, false) ? 1 : 0);
	}
	close(p[0]);
	s->go = p[1];
	return 0;
}

/* Lets the spinner run, waits for it; its exit status. */
static int spinner_run(struct spinner *s)
{
	int st;

	if (write(s->go, "x", 1) != 1)
		return -1;
	close(s->go);
	if (waitpid(s->pid, &st, 0) != s->pid)
		return -1;
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

static int read_spin(struct spin *sp)
{
	char *text = read_file(TGT_DIR "/expected", NULL);
	int n;

	if (!text)
		return -1;
	n = sscanf(text, INNER " " RUN " inner_ns=%llu total_ns=%llu", &sp->inner_ns,
		   &sp->total_ns);
	free(text);
	return n == 2 && sp->total_ns ? 0 : -1;
}

/*
 * Starts "sh -c CMD" in its own process group, stdout and stderr to
 * @log; its pid.
 */
static pid_t start_sh(const char *cmd, const char *log)
{
	pid_t pid = fork();

	if (!pid) {
		int fd = open(log, O_WRONLY | O_CREAT | O_TRUNC, 0644);

		setpgid(0, 0);
		dup2(fd, 1);
		dup2(fd, 2);
		execl("/bin/sh", "sh", "-c", cmd, NULL);
		_exit(127);
	}
	return pid;
}

/* Whether a process of @pgid (or a child of it) holds a perf event fd. */
static bool group_has_perf_fd(pid_t pgid)
{
	DIR *proc = opendir("/proc"), *fds;
	struct dirent *p, *f;
	bool found = false;

	if (!proc)
		return false;
	while (!found && (p = readdir(proc))) {
		char path[300], link[64];
		pid_t pid = atoi(p->d_name);

		if (pid <= 0 || getpgid(pid) != pgid)
			continue;
		snprintf(path, sizeof(path), "/proc/%d/fd", pid);
		fds = opendir(path);
		if (!fds)
			continue;
		while (!found && (f = readdir(fds))) {
			ssize_t n;

			snprintf(path, sizeof(path), "/proc/%d/fd/%s", pid, f->d_name);
			n = readlink(path, link, sizeof(link) - 1);
			if (n > 0) {
				link[n] = '\0';
				found = !strcmp(link, "anon_inode:[perf_event]");
			}
		}
		closedir(fds);
	}
	closedir(proc);
	return found;
}

/* Waits up to 60 s (scaled) for the recorder's perf events; then 0.5 s more. */
static int wait_recording(pid_t pgid)
{
	int i;

	for (i = 0; i < 600 * timeout_scale(); i++) {
		if (group_has_perf_fd(pgid)) {
			usleep(500 * 1000);
			return 0;
		}
		if (waitpid(pgid, NULL, WNOHANG) == pgid)
			return -1;
		usleep(100 * 1000);
	}
	return -1;
}

/*
 * SIGINT to the recorder's group, then its exit status: waits up to 300 s
 * (scaled) for it, as perf writes its file's end then (once, in ci25 with
 * four guests on two cores, perf record -g took more than 120 s there).
 */
static int stop_recorder(pid_t pgid)
{
	int st, i;

	kill(-pgid, SIGINT);
	for (i = 0; i < 3000 * timeout_scale(); i++) {
		if (waitpid(pgid, &st, WNOHANG) == pgid)
			return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
		usleep(100 * 1000);
	}
	kill(-pgid, SIGKILL);
	waitpid(pgid, &st, 0);
	return -1;
}

/*
 * perf record started with its events disabled (-D -1) and a control
 * fifo: enables them and waits for its ack, so that the spin starts only
 * once perf samples (it opens its events long before it enables them:
 * under TCG its start took longer than the whole spin).  0 or -1.
 */
static int perf_enable(const char *ctl, const char *ack)
{
	struct pollfd p = { .events = POLLIN };
	char buf[16] = "";
	int fd, n = -1;

	fd = open(ctl, O_WRONLY);
	if (fd < 0)
		return -1;
	n = write(fd, "enable\n", 7);
	close(fd);
	if (n != 7)
		return -1;
	p.fd = open(ack, O_RDONLY | O_NONBLOCK);
	if (p.fd < 0)
		return -1;
	n = -1;
	if (poll(&p, 1, 60000 * timeout_scale()) == 1)
		n = read(p.fd, buf, sizeof(buf) - 1);
	close(p.fd);
	return n > 0 && !strncmp(buf, "ack", 3) ? 0 : -1;
}

/*
 * One profiled spin: the recorder @cmd_fmt (a printf format taking the
 * spinner's pid) started, the spin run, the recorder stopped by SIGINT;
 * its output in @log.  0, or what failed in @why.
 */
static int profiled_spin(const char *cmd_fmt, const char *log, struct spin *sp, char *why,
			 size_t n)
{
	/* perf record: enabled through its control fifo; it ends on SIGINT by raising it again, its file written */
	bool is_perf = strstr(cmd_fmt, "perf record") != NULL;
	struct spinner s;
	char cmd[1024];
	pid_t rec;
	int st;

	if (spinner_start(&s, SPIN_MS))
		return snprintf(why, n, "fork: %s", strerror(errno)), -1;
	snprintf(cmd, sizeof(cmd), cmd_fmt, (int)s.pid);
	rec = start_sh(cmd, log);
	if (wait_recording(rec) || (is_perf && perf_enable(PERF_CTL, PERF_ACK))) {
		kill(s.pid, SIGKILL);
		waitpid(s.pid, NULL, 0);
		stop_recorder(rec);
		return snprintf(why, n, "no perf event opened by: %s", cmd), -1;
	}
	st = spinner_run(&s);
	if (st) {
		stop_recorder(rec);
		return snprintf(why, n, "spin %d failed: %d", SPIN_MS, st), -1;
	}
	if (read_spin(sp)) {
		stop_recorder(rec);
		return snprintf(why, n, "no spin line in %s/expected", TGT_DIR), -1;
	}
	st = stop_recorder(rec);
	if (st && !(is_perf && st == 128 + SIGINT))
		return snprintf(why, n, "%s: exit status %d", cmd, st), -1;
	return 0;
}

/* A copy of @file in $INKPROBE_OUT as profile-KERNEL-@name, for a reader. */
static void keep(const char *file, const char *name)
{
	const char *dir = getenv("INKPROBE_OUT");
	char cmd[1024], *text;

	if (!dir)
		return;
	snprintf(cmd, sizeof(cmd), "cp %s %s/profile-%s-%s", file, dir,
		 env_or("INKPROBE_KERNEL", "unknown"), name);
	run_shell(cmd, &text);
	free(text);
}

/* ---- the report ---- */

struct row {
	double self, total;
	unsigned long samples;
	char name[160];
};

struct report {
	unsigned long samples;
	int nr;
	struct row rows[4096];
};

static int parse_report(const char *text, struct report *r)
{
	const char *line, *at;

	r->nr = 0;
	at = strstr(text, "# inkprobe profile: ");
	if (!at || sscanf(at, "# inkprobe profile: %lu samples", &r->samples) != 1)
		return -1;
	for (line = text; line && *line; line = strchr(line, '\n'), line = line ? line + 1 : NULL) {
		struct row *w = &r->rows[r->nr];

		if (*line == '#' || *line == '\n' || r->nr == 4096)
			continue;
		if (sscanf(line, "%lf %lf %lu %159[^\n]", &w->self, &w->total, &w->samples,
			   w->name) == 4)
			r->nr++;
	}
	return 0;
}

static const struct row *find_row(const struct report *r, const char *name)
{
	int i;

	for (i = 0; i < r->nr; i++)
		if (!strcmp(r->rows[i].name, name))
			return &r->rows[i];
	return NULL;
}

/* 4 binomial sigmas at @n samples for a share @p (0..1) */
static double sigma4(double p, unsigned long n)
{
	return 4 * sqrt(p * (1 - p) / (double)n);
}

/*
 * The copy's share @got (0..1) of @n samples, @outside of them outside
 * tgt_spin_run(), against the spin's own: within 4 sigma + outside / n.
 */
static void check_share(struct __test_metadata *_metadata, const char *what, double got,
			unsigned long n, unsigned long outside, const struct spin *sp)
{
	double p = (double)sp->inner_ns / (double)sp->total_ns;
	double tol = sigma4(p, n) + (double)outside / (double)n;

	TH_LOG("%s: %lu samples (%lu outside %s), %s share %.4f, inner_ns/total_ns %.4f "
	       "(%llu/%llu), tolerance %.4f", what, n, outside, RUN, INNER, got, p,
	       sp->inner_ns, sp->total_ns, tol);
	EXPECT_LE(MIN_SAMPLES, n);
	EXPECT_LE(outside * 20, n) TH_LOG("more than 5 %% of the samples outside the spin");
	EXPECT_LE(fabs(got - p), tol) TH_LOG("%s: %s's share %.4f, expected %.4f +- %.4f",
					     what, INNER, got, p, tol);
}

/* ---- --folded and --perf-script, read back ---- */

struct counts {
	unsigned long samples, inner, run;
};

/* "COMM;A;B;...;Z COUNT" lines: samples, and those with the copy, the caller. */
static int count_folded(const char *text, struct counts *c)
{
	const char *line;

	memset(c, 0, sizeof(*c));
	for (line = text; line && *line; line = strchr(line, '\n'), line = line ? line + 1 : NULL) {
		const char *end = strchrnul(line, '\n'), *sp = end;
		char stack[8192];
		unsigned long k;

		while (sp > line && sp[-1] != ' ')
			sp--;
		if (sp == line || sscanf(sp, "%lu", &k) != 1 ||
		    (size_t)(sp - line) >= sizeof(stack))
			return -1;
		snprintf(stack, sizeof(stack), ";%.*s;", (int)(sp - 1 - line), line);
		c->samples += k;
		if (strstr(stack, ";" INNER "_[i];"))
			c->inner += k;
		if (strstr(stack, ";" RUN ";"))
			c->run += k;
	}
	return 0;
}

/*
 * perf script text: a header line per sample, then its frames (tab
 * first), then a blank line.  Counts the samples and those with the copy
 * (an "(inlined)" line) or the caller (a symbol line) in their chain.
 */
static int count_script(const char *text, struct counts *c)
{
	const char *line;
	bool in = false, inner = false, run = false;

	memset(c, 0, sizeof(*c));
	for (line = text; line && *line; line = strchr(line, '\n'), line = line ? line + 1 : NULL) {
		const char *end = strchrnul(line, '\n');
		char l[512];

		snprintf(l, sizeof(l), "%.*s", (int)(end - line), line);
		if (*l == '\t') {
			if (!in)
				return -1;
			inner |= strstr(l, " " INNER " (inlined)") != NULL;
			run |= strstr(l, " " RUN "+0x") != NULL;
			continue;
		}
		if (in) {
			c->inner += inner;
			c->run += run;
		}
		in = *l != '\0';
		inner = run = false;
		c->samples += in;
	}
	if (in) {
		c->inner += inner;
		c->run += run;
	}
	return 0;
}

/* ---- the fixture ---- */

FIXTURE(profile) {
	char *text;
};

FIXTURE_SETUP(profile)
{
	ASSERT_EQ(0, setup_target());
	ASSERT_EQ(0, clear_probes());
	self->text = NULL;
}

FIXTURE_TEARDOWN(profile)
{
	free(self->text);
	unlink("/tmp/pf.out");
	unlink("/tmp/pf.data");
}

/* The report of a -p run: the copy's share, the caller's total, no out-of-line copy. */
TEST_F_TIMEOUT(profile, report_share_of_inlined_copy, 300)
{
	static struct report r;
	const struct row *inner, *run;
	struct spin sp;
	char cmd[512], why[1400];

	snprintf(cmd, sizeof(cmd), "exec %s profile -p %%d -F " HZ_ARG " --duration 600 "
		 "-o /tmp/pf.out", tool());
	ASSERT_EQ(0, profiled_spin(cmd, "/tmp/pf.log", &sp, why, sizeof(why)))
		TH_LOG("%s", why);
	keep("/tmp/pf.out", "report.txt");
	self->text = read_file("/tmp/pf.out", NULL);
	ASSERT_NE(NULL, self->text);
	ASSERT_EQ(0, parse_report(self->text, &r)) TH_LOG("%s", self->text);
	inner = find_row(&r, INNER " [inlined]");
	run = find_row(&r, RUN);
	ASSERT_NE(NULL, inner) TH_LOG("%s", self->text);
	ASSERT_NE(NULL, run) TH_LOG("%s", self->text);
	EXPECT_EQ(NULL, find_row(&r, INNER)) TH_LOG("an out-of-line %s", INNER);
	check_share(_metadata, "report", inner->total / 100, r.samples,
		    r.samples - (unsigned long)(run->total / 100 * r.samples + 0.5), &sp);
	EXPECT_LE(inner->total, run->total);
	/* the copy spins in its own code and in the clock it calls: self <= total */
	EXPECT_LE(inner->self, inner->total);
	EXPECT_LT(0, inner->samples);
}

/* --folded and --perf-script of the same kind of run */
TEST_F_TIMEOUT(profile, folded_and_perf_script_shares, 600)
{
	struct counts c;
	struct spin sp;
	char cmd[512], why[1400];

	snprintf(cmd, sizeof(cmd), "exec %s profile -p %%d -F " HZ_ARG " --duration 600 "
		 "--folded -o /tmp/pf.out", tool());
	ASSERT_EQ(0, profiled_spin(cmd, "/tmp/pf.log", &sp, why, sizeof(why)))
		TH_LOG("%s", why);
	keep("/tmp/pf.out", "folded.txt");
	self->text = read_file("/tmp/pf.out", NULL);
	ASSERT_NE(NULL, self->text);
	ASSERT_EQ(0, count_folded(self->text, &c)) TH_LOG("%s", self->text);
	check_share(_metadata, "--folded", (double)c.inner / c.samples, c.samples,
		    c.samples - c.run, &sp);
	/* the copy is inside its caller, in every stack */
	EXPECT_EQ(NULL, strstr(self->text, ";" INNER "_[i];" RUN ";"));
	free(self->text);

	snprintf(cmd, sizeof(cmd), "exec %s profile -p %%d -F " HZ_ARG " --duration 600 "
		 "--perf-script -o /tmp/pf.out", tool());
	ASSERT_EQ(0, profiled_spin(cmd, "/tmp/pf.log", &sp, why, sizeof(why)))
		TH_LOG("%s", why);
	keep("/tmp/pf.out", "script.txt");
	self->text = read_file("/tmp/pf.out", NULL);
	ASSERT_NE(NULL, self->text);
	ASSERT_EQ(0, count_script(self->text, &c)) TH_LOG("%.2000s", self->text);
	check_share(_metadata, "--perf-script", (double)c.inner / c.samples, c.samples,
		    c.samples - c.run, &sp);
}

/*
 * Per sample of perf script text, its callchain's addresses (inline lines
 * left out), one line each, sorted: in @out (malloc'd).
 */
static int chains_of(const char *file, const char *perf_env, char **out)
{
	char cmd[1024];

	if (perf_env)
		snprintf(cmd, sizeof(cmd), "%s perf script -i %s 2>/dev/null", perf_env, file);
	else
		snprintf(cmd, sizeof(cmd), "cat %s", file);
	snprintf(cmd + strlen(cmd), sizeof(cmd) - strlen(cmd),
		 " | awk '/^\\t/ { if ($0 !~ /\\(inlined\\)$/ && $1 ~ /^ffffffff/) l = l \" \" $1; next } "
		 "/^$/ { if (h) print l; h = 0; l = \"\"; next } { h = 1 } "
		 "END { if (h) print l }' | sort");
	return run_shell(cmd, out);
}

/* @perfs and @ours line by line, @n lines each; the first difference logged */
static void check_same_lines(struct __test_metadata *_metadata, const char *perfs,
			     const char *ours, unsigned long n)
{
	const char *a = perfs, *b = ours;
	unsigned long lines = 0;

	while (*a && *b) {
		size_t la = strcspn(a, "\n"), lb = strcspn(b, "\n");

		if (la != lb || memcmp(a, b, la)) {
			TH_LOG("sorted chain %lu: perf script [%.*s], inkprobe [%.*s]", lines,
			       (int)la, a, (int)lb, b);
			break;
		}
		lines++;
		a += la + (a[la] == '\n');
		b += lb + (b[lb] == '\n');
	}
	EXPECT_EQ(0, *a | *b) TH_LOG("the callchains differ from perf script's");
	EXPECT_EQ(n, lines);
}

/* Whether an inline frame in @text is in a vmlinux frame ([kernel.kallsyms]). */
static bool vmlinux_inline_frame(const char *text)
{
	const char *at;

	for (at = strstr(text, " (inlined)\n"); at; at = strstr(at + 1, " (inlined)\n")) {
		const char *line = at + strlen(" (inlined)\n"), *end;

		/* the frame it is in: the next line that is not an inline frame */
		for (;;) {
			end = strchrnul(line, '\n');
			if (end - line < 10 || memcmp(end - 10, " (inlined)", 10))
				break;
			line = end + 1;
		}
		if (end - line > 20 && !memcmp(end - 20, " ([kernel.kallsyms])", 20))
			return true;
	}
	return false;
}

/*
 * One perf.data file of a spin (perf record -g; -B: no build-ID pass over
 * the file at its end, which nothing here reads), read by inkprobe profile
 * -i three ways: the same samples in each, the same ones with the copy;
 * and --perf-script's addresses are perf script's own.
 */
TEST_F_TIMEOUT(profile, perf_data_three_outputs_agree, 1200)
{
	static struct report r;
	struct counts folded, script;
	const struct row *inner, *run;
	char cmd[1024], why[1400], *text, *ours, *perfs;
	struct spin sp;

	ASSERT_EQ(0, perf_sees_only_our_modules());
	ASSERT_EQ(0, run_shell("rm -rf " PERF_HOME " " PERF_CTL " " PERF_ACK " && mkdir -p "
			       PERF_HOME " && mkfifo " PERF_CTL " " PERF_ACK, &text)) TH_LOG("%s", text);
	free(text);
	snprintf(cmd, sizeof(cmd), "HOME=" PERF_HOME " exec perf record -D -1 --control fifo:"
		 PERF_CTL "," PERF_ACK " -e cpu-clock:k -F " HZ_ARG " -g -B -p %%d -o /tmp/pf.data");
	ASSERT_EQ(0, profiled_spin(cmd, "/tmp/pf.log", &sp, why, sizeof(why)))
		TH_LOG("%s", why);

	snprintf(cmd, sizeof(cmd), "%s profile -i /tmp/pf.data -o /tmp/pf.out", tool());
	ASSERT_EQ(0, run_shell(cmd, &text)) TH_LOG("%s", text);
	free(text);
	self->text = read_file("/tmp/pf.out", NULL);
	ASSERT_NE(NULL, self->text);
	ASSERT_EQ(0, parse_report(self->text, &r)) TH_LOG("%s", self->text);
	inner = find_row(&r, INNER " [inlined]");
	run = find_row(&r, RUN);
	ASSERT_NE(NULL, inner) TH_LOG("%s", self->text);
	ASSERT_NE(NULL, run) TH_LOG("%s", self->text);
	check_share(_metadata, "perf record, -i", inner->total / 100, r.samples,
		    r.samples - (unsigned long)(run->total / 100 * r.samples + 0.5), &sp);
	free(self->text);

	snprintf(cmd, sizeof(cmd), "%s profile -i /tmp/pf.data --folded -o /tmp/pf.out", tool());
	ASSERT_EQ(0, run_shell(cmd, &text)) TH_LOG("%s", text);
	free(text);
	self->text = read_file("/tmp/pf.out", NULL);
	ASSERT_NE(NULL, self->text);
	ASSERT_EQ(0, count_folded(self->text, &folded));
	free(self->text);

	snprintf(cmd, sizeof(cmd), "%s profile -i /tmp/pf.data --perf-script -o /tmp/pf.out",
		 tool());
	ASSERT_EQ(0, run_shell(cmd, &text)) TH_LOG("%s", text);
	free(text);
	self->text = read_file("/tmp/pf.out", NULL);
	ASSERT_NE(NULL, self->text);
	ASSERT_EQ(0, count_script(self->text, &script));

	/* the report's percents have 2 decimals: its counts to within 0.005 % */
	EXPECT_EQ(r.samples, folded.samples);
	EXPECT_EQ(r.samples, script.samples);
	EXPECT_EQ(folded.inner, script.inner);
	EXPECT_EQ(folded.run, script.run);
	EXPECT_LE(fabs(100.0 * folded.inner / r.samples - inner->total), 0.005 + 1e-9);
	EXPECT_LE(fabs(100.0 * folded.run / r.samples - run->total), 0.005 + 1e-9);

	/* the addresses: perf script's own, sample by sample */
	ASSERT_EQ(0, chains_of("/tmp/pf.out", NULL, &ours));
	ASSERT_EQ(0, chains_of("/tmp/pf.data", "HOME=" PERF_HOME, &perfs));
	check_same_lines(_metadata, perfs, ours, r.samples);
	free(ours);
	free(perfs);
	run_shell("rm -rf " PERF_HOME " " PERF_CTL " " PERF_ACK, &text);
	free(text);
}

/* ---- samples for the host's oracle ---- */

static pid_t start_vmlinux_workload(unsigned int secs);

/* @cmd's output file @path, its first line left out when @skip_first */
static char *output_of(struct __test_metadata *_metadata, const char *cmd, const char *path,
		       bool skip_first)
{
	char *text, *out, *body;

	if (run_shell(cmd, &text)) {
		TH_LOG("%s: %s", cmd, text);
		free(text);
		return NULL;
	}
	free(text);
	out = read_file(path, NULL);
	if (!out || !skip_first)
		return out;
	body = strdup(strchrnul(out, '\n'));
	free(out);
	return body;
}

TEST_F_TIMEOUT(profile, module_and_tool_lookups_print_the_same, 900)
{
	static const char *const outputs[] = { "", "--folded", "--perf-script" };
	char cmd[1024], *text, *mod, *own;
	unsigned int i;
	pid_t wl;

	ASSERT_EQ(0, load_blob(blob_path("vmlinux.inkb")));
	wl = start_vmlinux_workload(6);
	ASSERT_LT(0, wl);
	ASSERT_EQ(0, run_shell("rm -rf " PERF_HOME " && mkdir -p " PERF_HOME " && HOME=" PERF_HOME
			       " perf record -e cpu-clock -F " HZ_ARG " -a -g -o /tmp/pf.data "
			       "-- sleep 4", &text)) TH_LOG("%s", text);
	free(text);
	kill(wl, SIGKILL);
	waitpid(wl, NULL, 0);
	for (i = 0; i < sizeof(outputs) / sizeof(*outputs); i++) {
		snprintf(cmd, sizeof(cmd), "%s profile -i /tmp/pf.data %s -o /tmp/pf.out 2>&1",
			 tool(), outputs[i]);
		mod = output_of(_metadata, cmd, "/tmp/pf.out", !*outputs[i]);
		snprintf(cmd, sizeof(cmd), "%s profile -i /tmp/pf.data %s --blob %s "
			 "-o /tmp/pf.out 2>&1", tool(), outputs[i], blob_path("vmlinux.inkb"));
		own = output_of(_metadata, cmd, "/tmp/pf.out", !*outputs[i]);
		ASSERT_NE(NULL, mod);
		ASSERT_NE(NULL, own);
		EXPECT_LT(100, strlen(mod)) TH_LOG("%s", mod);
		/* vmlinux inline frames are in it */
		if (!strcmp(outputs[i], "--perf-script"))
			EXPECT_TRUE(vmlinux_inline_frame(mod));
		EXPECT_STREQ(own, mod) TH_LOG("%s: the tool's and the module's differ", outputs[i]);
		free(mod);
		free(own);
	}
	/* which way each went: the report's first line says */
	snprintf(cmd, sizeof(cmd), "%s profile -i /tmp/pf.data -o /tmp/pf.out 2>&1 && "
		 "head -1 /tmp/pf.out", tool());
	ASSERT_EQ(0, run_shell(cmd, &text));
	EXPECT_NE(NULL, strstr(text, "; inline frames from 2 blobs in inkprobe.ko\n"))
		TH_LOG("%s", text);
	free(text);
	snprintf(cmd, sizeof(cmd), "%s profile -i /tmp/pf.data --blob %s -o /tmp/pf.out 2>&1 && "
		 "head -1 /tmp/pf.out", tool(), blob_path("vmlinux.inkb"));
	ASSERT_EQ(0, run_shell(cmd, &text));
	EXPECT_NE(NULL, strstr(text, "; inline frames from 3 blobs\n")) TH_LOG("%s", text);
	free(text);
	EXPECT_EQ(0, write_file(INK_DIR "/blobs", "-vmlinux", false));
	run_shell("rm -rf " PERF_HOME, &text);
	free(text);
}

/* ---- the two look-ups at every symbol's edges ---- */

#define RANDOM_ADDRS	20000

/* An address to look up: as a sample's own pc, and also as a return address when @as_return */
struct edge {
	unsigned long long addr;
	bool as_return;
};

struct edges {
	struct edge *e;
	size_t nr, cap;
};

static int add_edge(struct edges *es, unsigned long long addr, bool as_return)
{
	if (es->nr == es->cap) {
		size_t cap = es->cap ? 2 * es->cap : 1 << 16;
		struct edge *more = realloc(es->e, cap * sizeof(*more));

		if (!more)
			return -1;
		es->e = more;
		es->cap = cap;
	}
	es->e[es->nr++] = (struct edge){ addr, as_return };
	return 0;
}

static int cmp_edge(const void *a, const void *b)
{
	const struct edge *x = a, *y = b;

	return (x->addr > y->addr) - (x->addr < y->addr);
}

static int cmp_u64(const void *a, const void *b)
{
	const unsigned long long *x = a, *y = b;

	return (*x > *y) - (*x < *y);
}

/*
 * vmlinux's core text (_stext to _etext): every symbol's first byte and the
 * byte before the next symbol, and RANDOM_ADDRS addresses from a fixed
 * seed, into @es.  0 or -1.
 */
static int vmlinux_edges(struct edges *es)
{
	char *ks = read_file("/proc/kallsyms", NULL), *line, *save = NULL;
	unsigned long long stext = 0, etext = 0, *a, x = 0x9e3779b97f4a7c15ULL;
	size_t nr = 0, cap = 1 << 18, i, j;
	int ret = 0;

	a = malloc(cap * sizeof(*a));
	if (!ks || !a)
		return free(ks), free(a), -1;
	for (line = strtok_r(ks, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char type, name[256], mod[64] = "";
		unsigned long long addr;

		if (sscanf(line, "%llx %c %255s [%63[^]]]", &addr, &type, name, mod) < 3 || *mod)
			continue;
		if (!strcmp(name, "_stext"))
			stext = addr;
		if (!strcmp(name, "_etext"))
			etext = addr;
		if (nr == cap) {
			unsigned long long *more = realloc(a, 2 * cap * sizeof(*a));

			if (!more)
				return free(ks), free(a), -1;
			a = more;
			cap *= 2;
		}
		a[nr++] = addr;
	}
	free(ks);
	if (!stext || etext <= stext)
		return free(a), -1;
	qsort(a, nr, sizeof(*a), cmp_u64);
	for (i = 0; i < nr && !ret; i = j) {
		for (j = i + 1; j < nr && a[j] == a[i]; j++)
			;
		if (a[i] < stext || a[i] >= etext)
			continue;
		ret = add_edge(es, a[i], true);
		if (!ret && j < nr && a[j] <= etext)
			ret = add_edge(es, a[j] - 1, true);
	}
	free(a);
	for (i = 0; i < RANDOM_ADDRS && !ret; i++) {
		x ^= x << 13, x ^= x >> 7, x ^= x << 17;	/* xorshift64 */
		ret = add_edge(es, stext + x % (etext - stext), true);
	}
	return ret;
}

struct target_funcs {
	Elf *elf;
	size_t shstrndx;
	struct edges *es;
	int n;
};

/* One function's first and last byte at its section's load address; 0, or -1. */
static int target_func_edges(void *ctx, const GElf_Sym *s, const char *func)
{
	struct target_funcs *t = ctx;
	char path[512], *v, *name;
	unsigned long long base;
	GElf_Shdr sh;
	int n;

	if (!s->st_size || !gelf_getshdr(elf_getscn(t->elf, s->st_shndx), &sh))
		return 0;
	name = elf_strptr(t->elf, t->shstrndx, sh.sh_name);
	if (!name || !strncmp(name, ".init", 5))
		return 0;
	snprintf(path, sizeof(path), "/sys/module/inkprobe_target/sections/%s", name);
	v = read_file(path, NULL);
	n = v ? sscanf(v, "%llx", &base) : 0;
	free(v);
	if (n != 1 || !base)
		return -1;
	t->n++;
	return add_edge(t->es, base + s->st_value, s->st_value != 0) ||
	       add_edge(t->es, base + s->st_value + s->st_size - 1, true) ? -1 : 0;
}

/*
 * inkprobe_target's functions, from its .ko's symbol table (section,
 * offset, size) at their sections' load addresses (/sys/module/
 * inkprobe_target/sections; .init sections are gone): each one's first
 * and last byte, into @es.  A section's first byte is no return address
 * (the call before it would be outside the section): a pc only.  0 or -1.
 */
static int target_edges(struct edges *es)
{
	int fd = open(kmod_path("inkprobe_target.ko"), O_RDONLY), ret = -1;
	struct target_funcs t = { .es = es };

	elf_version(EV_CURRENT);
	t.elf = fd >= 0 ? elf_begin(fd, ELF_C_READ, NULL) : NULL;
	if (t.elf && !elf_getshdrstrndx(t.elf, &t.shstrndx))
		ret = elf_each_func(t.elf, target_func_edges, &t) || !t.n ? -1 : 0;
	if (t.elf)
		elf_end(t.elf);
	if (fd >= 0)
		close(fd);
	return ret;
}

/* @es sorted, each address once (a return address only if every copy of it may be one) */
static void sort_edges(struct edges *es)
{
	size_t i, j;

	qsort(es->e, es->nr, sizeof(*es->e), cmp_edge);
	for (i = j = 0; i < es->nr; i++) {
		if (j && es->e[i].addr == es->e[j - 1].addr)
			es->e[j - 1].as_return &= es->e[i].as_return;
		else
			es->e[j++] = es->e[i];
	}
	es->nr = j;
}

/*
 * Samples (perf script blocks, each ending in a blank line) of @a and @b
 * that differ, the first few logged with both sides; how many.  Both have
 * the same samples in the same order: a block count apart is one more.
 */
static unsigned long differing_samples(struct __test_metadata *_metadata, const char *a,
				       const char *b)
{
	unsigned long n = 0;

	while (*a || *b) {
		const char *ea = strstr(a, "\n\n"), *eb = strstr(b, "\n\n");
		size_t la = ea ? (size_t)(ea - a) + 2 : strlen(a);
		size_t lb = eb ? (size_t)(eb - b) + 2 : strlen(b);

		if (la != lb || memcmp(a, b, la)) {
			if (n < 5)
				TH_LOG("differs: the module's\n%.*sthe tool's\n%.*s", (int)la, a,
				       (int)lb, b);
			n++;
		}
		a += la;
		b += lb;
	}
	return n;
}

/*
 * The frames of every address at the edges of every symbol (and of random
 * ones), each as the sample's own pc and as a return address: a perf.data
 * of one sample per address, its callchain [ADDR, ADDR], through the
 * module's look-up (the vmlinux blob in inkprobe.ko) and the tool's (--blob),
 * must print the same bytes.  The edges are where the two could part:
 * the symbol an address is in, the call that ends a function (its return
 * address the next symbol's first byte), the instance that ends a symbol.
 */
TEST_F_TIMEOUT(profile, module_and_tool_agree_at_every_symbol_edge, 900)
{
	struct edges es = { 0 };
	char cmd[1024], *text, *mod, *own;
	struct perf_craft c;
	struct counts k;
	size_t i, n;

	ASSERT_EQ(0, load_blob(blob_path("vmlinux.inkb")));
	ASSERT_EQ(0, vmlinux_edges(&es));
	ASSERT_EQ(0, target_edges(&es));
	sort_edges(&es);
	n = es.nr;
	ASSERT_LT(10000, n);
	ASSERT_EQ(0, perf_craft_open(&c, "/tmp/pf.data", 4000));
	perf_craft_comm(&c, 300, 301, "edges");
	for (i = 0; i < n; i++) {
		const uint64_t chain[] = { PERF_CONTEXT_KERNEL, es.e[i].addr, es.e[i].addr };

		perf_craft_sample(&c, 300, 301, 1000000000ULL + 250000ULL * i, 0, chain,
				  es.e[i].as_return ? 3 : 2);
	}
	free(es.e);
	ASSERT_EQ(0, perf_craft_close(&c));

	snprintf(cmd, sizeof(cmd), "%s profile -i /tmp/pf.data --perf-script -o /tmp/pf.out 2>&1",
		 tool());
	ASSERT_EQ(0, run_shell(cmd, &text)) TH_LOG("%s", text);
	EXPECT_NE(NULL, strstr(text, "inline frames from 2 blobs in inkprobe.ko")) TH_LOG("%s", text);
	free(text);
	mod = read_file("/tmp/pf.out", NULL);
	snprintf(cmd, sizeof(cmd), "%s profile -i /tmp/pf.data --perf-script --blob %s "
		 "-o /tmp/pf.out 2>&1", tool(), blob_path("vmlinux.inkb"));
	ASSERT_EQ(0, run_shell(cmd, &text)) TH_LOG("%s", text);
	EXPECT_NE(NULL, strstr(text, "inline frames from 3 blobs\n")) TH_LOG("%s", text);
	free(text);
	own = read_file("/tmp/pf.out", NULL);
	ASSERT_NE(NULL, mod);
	ASSERT_NE(NULL, own);
	EXPECT_EQ(0, write_file(INK_DIR "/blobs", "-vmlinux", false));

	ASSERT_EQ(0, count_script(mod, &k));
	EXPECT_EQ((unsigned long)n, k.samples);
	/* not a vacuous match: the module found vmlinux's inline frames */
	EXPECT_TRUE(vmlinux_inline_frame(mod));
	for (i = 0, text = strstr(mod, " (inlined)\n"); text; text = strstr(text + 1, " (inlined)\n"))
		i++;
	TH_LOG("%zu addresses, %zu inline frames", n, i);
	EXPECT_LT(1000, i);
	EXPECT_EQ(0, differing_samples(_metadata, mod, own));
	free(mod);
	free(own);
}

/* pipes and mmap/madvise: vmlinux code with inlined functions, for @secs */
static pid_t start_vmlinux_workload(unsigned int secs)
{
	pid_t pid = fork();

	if (!pid) {
		time_t end = time(NULL) + secs;
		char buf[4096] = { 1 };
		int p[2];

		if (pipe(p))
			_exit(1);
		while (time(NULL) < end) {
			char *m = mmap(NULL, 1 << 20, PROT_READ | PROT_WRITE,
				       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
			int i;

			if (m == MAP_FAILED)
				_exit(1);
			for (i = 0; i < 256; i++)
				m[i * 4096] = (char)i;
			madvise(m, 1 << 20, MADV_DONTNEED);
			munmap(m, 1 << 20);
			for (i = 0; i < 64; i++)
				if (write(p[1], buf, sizeof(buf)) != sizeof(buf) ||
				    read(p[0], buf, sizeof(buf)) != sizeof(buf))
					_exit(1);
		}
		_exit(0);
	}
	return pid;
}

/* "_text ADDR" and "inkprobe_target SECTION ADDR" lines into @f */
static int write_addrs(FILE *f)
{
	char *ks = read_file("/proc/kallsyms", NULL), *at;
	struct dirent *d;
	DIR *dir;
	int n = 0;

	if (!ks)
		return -1;
	at = strstr(ks, " T _text\n");
	if (!at || at - ks < 16) {
		free(ks);
		return -1;
	}
	fprintf(f, "_text %.16s\n", at - 16);
	free(ks);
	dir = opendir("/sys/module/inkprobe_target/sections");
	if (!dir)
		return -1;
	while ((d = readdir(dir))) {
		char path[512], *v;

		if (d->d_name[0] == '.' && (!d->d_name[1] || !strcmp(d->d_name, "..")))
			continue;
		snprintf(path, sizeof(path), "/sys/module/inkprobe_target/sections/%s",
			 d->d_name);
		v = read_file(path, NULL);
		if (!v)
			continue;
		fprintf(f, "inkprobe_target %s %s", d->d_name, v);
		n++;
		free(v);
	}
	closedir(dir);
	return n ? 0 : -1;
}

TEST_F_TIMEOUT(profile, samples_for_the_host_oracle, 900)
{
	const char *dir = getenv("INKPROBE_OUT"), *k = env_or("INKPROBE_KERNEL", "unknown");
	char path[512], cmd[1024], why[1400], *text;
	struct counts c;
	struct spin sp;
	pid_t wl;
	FILE *f;

	ASSERT_NE(NULL, dir) TH_LOG("INKPROBE_OUT (run-guest.sh) is not set");
	snprintf(path, sizeof(path), "%s/profile-%s.addrs", dir, k);
	f = fopen(path, "w");
	ASSERT_NE(NULL, f);
	ASSERT_EQ(0, write_addrs(f));
	ASSERT_EQ(0, fclose(f));

	/* the spin, -p */
	snprintf(cmd, sizeof(cmd), "exec %s profile -p %%d -F " HZ_ARG " --duration 600 "
		 "--blob %s --perf-script -o /tmp/pf.out", tool(), blob_path("vmlinux.inkb"));
	ASSERT_EQ(0, profiled_spin(cmd, "/tmp/pf.log", &sp, why, sizeof(why)))
		TH_LOG("%s", why);
	/* the whole machine, -a, under a vmlinux workload */
	wl = start_vmlinux_workload(8);
	ASSERT_LT(0, wl);
	ASSERT_EQ(0, load_blob(blob_path("vmlinux.inkb")));
	snprintf(cmd, sizeof(cmd), "%s profile -a -F " HZ_ARG " --duration 5 "
		 "--perf-script -o /tmp/pf-a.out", tool());
	EXPECT_EQ(0, run_shell(cmd, &text)) TH_LOG("%s", text);
	/* the module's look-up, with the vmlinux blob */
	EXPECT_NE(NULL, strstr(text, "inline frames from 2 blobs in inkprobe.ko")) TH_LOG("%s", text);
	free(text);
	EXPECT_EQ(0, write_file(INK_DIR "/blobs", "-vmlinux", false));
	kill(wl, SIGKILL);
	waitpid(wl, NULL, 0);

	snprintf(path, sizeof(path), "%s/profile-%s.perf-script", dir, k);
	snprintf(cmd, sizeof(cmd), "cat /tmp/pf.out /tmp/pf-a.out >%s", path);
	ASSERT_EQ(0, run_shell(cmd, &text)) TH_LOG("%s", text);
	free(text);
	self->text = read_file(path, NULL);
	ASSERT_NE(NULL, self->text);
	ASSERT_EQ(0, count_script(self->text, &c));
	TH_LOG("%lu samples for the oracle in %s, %lu with %s", c.samples, path, c.inner, INNER);
	EXPECT_LE(MIN_SAMPLES, c.samples);
	EXPECT_LT(0, c.inner);
	/* vmlinux inline frames were sampled too */
	EXPECT_TRUE(vmlinux_inline_frame(self->text));
	unlink("/tmp/pf-a.out");
}

TEST_HARNESS_MAIN
