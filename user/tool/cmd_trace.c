// SPDX-License-Identifier: GPL-2.0
/*
 * inkprobe trace [-e GROUP[/EVENT]]... [--json] [--count N] [--timeout SEC]
 *                [--buffer-kb KB] [--blob FILE]...
 *
 * Reads ftrace's ring as trace-cmd does (Documentation/trace-events.rst,
 * "inkprobe trace"): a tracefs instance of its own, inkprobe-PID-START,
 * whose per-CPU buffers it reads in binary (libtracefs' tracefs_cpu_*,
 * libtraceevent's kbuffer), records rendered from their fields.
 *
 * The instance does not overwrite: when it is full, the ring drops the
 * newest events and counts them ("dropped events" in per_cpu/cpuN/stats),
 * so every hit is read or counted lost.  It is removed at the end, also on
 * SIGINT, SIGTERM, SIGHUP and a closed stdout; one left by a reader that was
 * killed (its process is gone, or another process has its PID) is removed
 * by the next.
 *
 * Task names come from the ring itself: task:task_newtask and
 * task:task_rename are enabled in the instance before the events, the names
 * of the tasks that exist then are read from /proc, and the records are
 * taken in time order, so each event gets the name its task had.
 *
 * Order: the records of each read are merged by time stamp across CPUs;
 * a record newer than the ring's clock at the start of the read ("now ts"
 * of per_cpu/cpu0/stats) waits for the next read, so that a record of
 * another CPU written meanwhile cannot come out after a newer one.
 *
 * Cost: a wake-up is followed by BATCH_MS before the buffers are read, so
 * that a busy event is read in batches (at most 500 reads a second), and
 * the loss counters are read every LOSS_CHECK_S, and at the end.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <event-parse.h>
#include <kbuffer.h>
#include <tracefs.h>

#include "commands.h"
#include "debugfs.h"
#include "../common/util.h"
#include "../trace/inline_frames.h"
#include "../trace/ksyms.h"
#include "../trace/record.h"

static const char trace_usage[] =
	"usage: inkprobe trace [-e GROUP[/EVENT]]... [--json] [--count N] [--timeout SEC]\n"
	"                      [--buffer-kb KB] [--blob FILE]...\n"
	"\n"
	"Streams events to stdout, read from ftrace's ring through a tracefs instance of\n"
	"its own (instances/inkprobe-PID-START), until Ctrl-C.  Events are read from the\n"
	"moment they are enabled there; the instance is removed at the end.\n"
	"\n"
	"  -e, --event GRP[/EVENT]  trace these events (any tracefs event; repeatable);\n"
	"                     default: every inkprobe event defined now\n"
	"  -j, --json         one JSON object per event (JSON Lines)\n"
	"  -n, --count N      stop after N events\n"
	"  -t, --timeout SEC  stop after SEC seconds (decimals allowed); with --count,\n"
	"                     fewer than N events by then is an error (exit status 1)\n"
	"  -b, --buffer-kb KB the instance's buffer per CPU (default: the kernel's)\n"
	"  -B, --blob FILE    a blob whose inline frames stacks show (repeatable; also\n"
	"                     $INKPROBE_BLOBS: files and directories, ':' between them)\n";

#define INSTANCE_PREFIX	"inkprobe-"
#define COMM_LEN	16
#define HOLD_POLL_MS	10	/* a read again soon, when records wait for the clock */
#define BATCH_MS	2	/* after a wake-up, before reading */
#define LOSS_CHECK_S	0.1	/* the loss counters read at most this often */

static volatile sig_atomic_t stopped;

static void on_signal(int sig)
{
	stopped = 1;
}

/* ------------------------------------------------------------------ */
/* Task names                                                           */

struct comm_slot {
	int pid;		/* 0: empty (pid 0 is "<idle>", never stored) */
	char comm[COMM_LEN];
};

struct comms {
	struct comm_slot *slots;
	size_t cap, len;
};

static size_t comm_hash(int pid, size_t cap)
{
	return ((uint32_t)pid * 2654435761u) & (cap - 1);
}

static void comm_put(struct comms *c, int pid, const char *comm, size_t len)
{
	struct comm_slot *s;
	size_t i;

	if (pid <= 0)
		return;
	if (2 * (c->len + 1) > c->cap) {
		struct comms n = { .cap = c->cap ? 2 * c->cap : 4096 };

		n.slots = xcalloc(n.cap, sizeof(*n.slots));
		for (i = 0; i < c->cap; i++)
			if (c->slots[i].pid)
				comm_put(&n, c->slots[i].pid, c->slots[i].comm,
					 strlen(c->slots[i].comm));
		free(c->slots);
		*c = n;
	}
	for (i = comm_hash(pid, c->cap); c->slots[i].pid && c->slots[i].pid != pid;
	     i = (i + 1) & (c->cap - 1))
		;
	s = &c->slots[i];
	if (!s->pid)
		c->len++;
	s->pid = pid;
	len = strnlen(comm, len < COMM_LEN - 1 ? len : COMM_LEN - 1);
	memcpy(s->comm, comm, len);
	s->comm[len] = '\0';
}

static const char *comm_get(const struct comms *c, int pid)
{
	size_t i;

	if (!pid)
		return "<idle>";
	for (i = c->cap ? comm_hash(pid, c->cap) : 0; c->cap && c->slots[i].pid;
	     i = (i + 1) & (c->cap - 1))
		if (c->slots[i].pid == pid)
			return c->slots[i].comm;
	return NULL;
}

/* The names of every task now, from /proc/PID/task/TID/comm. */
static void comm_snapshot(struct comms *c)
{
	DIR *proc = opendir("/proc"), *tasks;
	struct dirent *p, *t;
	char path[600], comm[64];

	while (proc && (p = readdir(proc))) {
		if (!isdigit((unsigned char)p->d_name[0]))
			continue;
		snprintf(path, sizeof(path), "/proc/%s/task", p->d_name);
		tasks = opendir(path);
		while (tasks && (t = readdir(tasks))) {
			ssize_t n;
			int fd;

			if (!isdigit((unsigned char)t->d_name[0]))
				continue;
			snprintf(path, sizeof(path), "/proc/%s/task/%s/comm", p->d_name, t->d_name);
			fd = open(path, O_RDONLY | O_CLOEXEC);
			n = fd >= 0 ? read(fd, comm, sizeof(comm) - 1) : -1;
			if (fd >= 0)
				close(fd);
			if (n <= 0)
				continue;
			if (comm[n - 1] == '\n')
				n--;
			comm_put(c, atoi(t->d_name), comm, n);
		}
		if (tasks)
			closedir(tasks);
	}
	if (proc)
		closedir(proc);
}

/* ------------------------------------------------------------------ */
/* The instance                                                         */

/* A process's start time (clock ticks since boot), 0 if it is gone. */
static unsigned long long start_time(int pid)
{
	char path[64], buf[1024], *p;
	unsigned long long v = 0;
	ssize_t n;
	int fd, field;

	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return 0;
	buf[n] = '\0';
	p = strrchr(buf, ')');
	/* after "pid (comm)": state is field 3, starttime field 22 */
	for (field = 2; p && field < 22; field++)
		p = strchr(p + 1, ' ');
	if (p)
		v = strtoull(p + 1, NULL, 10);
	return v;
}

/* Removes the instances of readers that are gone; how many (a basic regex: no "+"). */
static int remove_stale_instances(void)
{
	char **names = tracefs_instances("^" INSTANCE_PREFIX "[0-9][0-9]*-[0-9][0-9]*$");
	int i, removed = 0;

	for (i = 0; names && names[i]; i++) {
		unsigned long long start;
		struct tracefs_instance *inst;
		int pid;

		if (sscanf(names[i], INSTANCE_PREFIX "%d-%llu", &pid, &start) != 2)
			continue;
		if (pid > 0 && start_time(pid) == start)
			continue;	/* its reader runs */
		inst = tracefs_instance_alloc(NULL, names[i]);
		if (inst && !tracefs_instance_destroy(inst))
			removed++;
		else
			warnx("trace: cannot remove instance %s left by a reader that is gone: %s",
			      names[i], strerror(errno));
		tracefs_instance_free(inst);
	}
	tracefs_list_free(names);
	return removed;
}

/* The clock selected in the top-level buffer ("[global] local ..."). */
static char *top_clock(void)
{
	char *clocks = tracefs_instance_file_read(NULL, "trace_clock", NULL), *b, *e;
	char *name = NULL;

	b = clocks ? strchr(clocks, '[') : NULL;
	e = b ? strchr(b, ']') : NULL;
	if (e)
		name = strndup(b + 1, e - b - 1);
	free(clocks);
	return name;
}

static bool clock_in_ns(const char *clock)
{
	return !clock || (strcmp(clock, "counter") && strcmp(clock, "uptime") &&
			  strcmp(clock, "x86-tsc") && strcmp(clock, "ppc-tb"));
}

/* ------------------------------------------------------------------ */
/* Reading                                                              */

struct rec {
	uint64_t ts;
	uint32_t off, size;	/* in its CPU's arena */
	uint32_t seq;
	int cpu;
};

struct cpu {
	int cpu;
	struct tracefs_cpu *tcpu;
	int fd;
	struct rec *recs;
	size_t nr, cap, first;	/* recs[first..nr) wait */
	struct buf arena;
	int stats_fd;		/* per_cpu/cpuN/stats */
	unsigned long long read, dropped, overrun, pending_lost;
};

struct event_names {
	char **group, **event;	/* event NULL: the whole group */
	size_t nr;
};

struct trace {
	bool json, ns;
	unsigned long long count, seen, other;
	struct tracefs_instance *inst;
	struct tep_handle *tep;
	struct kbuffer *kbuf;
	struct cpu *cpus;
	int nr_cpus;
	void *page;
	struct ink_rec_fmt **fmts;	/* by event id */
	int newtask_id, rename_id;
	unsigned int nt_pid, nt_comm, rn_pid, rn_comm;
	struct comms comms;
	struct ksyms *ksyms;
	struct ink_frames *frames;
	struct ink_symbolizer symbolizer;
	struct ink_rec_ctx ctx;
	struct buf out;
	struct trace_seq seq;
	uint32_t seq_no;
	bool out_failed, out_closed;
	struct event_names want;
};

static bool sym_lookup(void *ctx, uint64_t addr, struct ink_sym *out)
{
	struct trace *t = ctx;

	return ksyms_lookup(t->ksyms, addr, out);
}

static uint64_t sym_addr_of(void *ctx, const char *module, const char *name, int dup)
{
	struct trace *t = ctx;

	return ksyms_addr_of(t->ksyms, module, name, dup);
}

static const struct ink_rec_fmt *fmt_of(struct trace *t, int id)
{
	struct tep_event *ev;
	struct ink_rec_fmt *f;

	if (id < 0 || id > 0xffff)
		return NULL;
	if (!t->fmts)
		t->fmts = xcalloc(0x10000, sizeof(*t->fmts));
	if (t->fmts[id])
		return t->fmts[id];
	ev = tep_find_event(t->tep, id);
	if (!ev)
		return NULL;
	f = xcalloc(1, sizeof(*f));
	if (!ink_rec_fmt_init(f, ev)) {
		free(f);
		return NULL;
	}
	t->fmts[id] = f;
	return f;
}

/* Writes what is ready; false once stdout failed or was closed. */
static bool flush_out(struct trace *t)
{
	size_t done = 0;
	ssize_t n;

	while (done < t->out.len && !t->out_failed) {
		n = write(STDOUT_FILENO, t->out.data + done, t->out.len - done);
		if (n > 0) {
			done += n;
		} else if (n < 0 && errno == EINTR) {
			continue;
		} else {
			if (n < 0 && errno == EPIPE)
				t->out_closed = true;
			else
				warnx("stdout: %s", n < 0 ? strerror(errno) : "short write");
			t->out_failed = true;
		}
	}
	t->out.len = 0;
	return !t->out_failed;
}

static void put_padded(struct buf *b, const char *s, int width, bool left)
{
	int n = (int)strlen(s);

	if (!left)
		for (; n < width; n++)
			buf_add_u8(b, ' ');
	ink_put_str(b, s);
	if (left)
		for (; n < width; n++)
			buf_add_u8(b, ' ');
}

/* "SEC.USEC" rounded to the microsecond, as ftrace prints it; the raw count otherwise. */
static void put_ts(struct buf *b, bool ns, uint64_t ts, int width)
{
	char tmp[48];

	if (!ns) {
		snprintf(tmp, sizeof(tmp), "%llu", (unsigned long long)ts);
	} else {
		uint64_t us = (ts + 500) / 1000;

		snprintf(tmp, sizeof(tmp), "%llu.%06llu", (unsigned long long)(us / 1000000),
			 (unsigned long long)(us % 1000000));
	}
	put_padded(b, tmp, width, false);
}

/* One record of an enabled event, to t->out. */
static void emit(struct trace *t, const struct rec *r, const struct ink_rec_fmt *f,
		 const void *data)
{
	int pid = (int)(f->pid_off + 4 <= r->size ? *(const int32_t *)((const char *)data +
									 f->pid_off) : -1);
	const char *comm = comm_get(&t->comms, pid);
	char num[32];

	if (!comm)
		comm = "<...>";
	if (t->json) {
		ink_put_str(&t->out, "{\"comm\":");
		ink_json_str(&t->out, comm, strlen(comm));
		ink_put_str(&t->out, ",\"pid\":");
		ink_put_s64(&t->out, pid);
		ink_put_str(&t->out, ",\"cpu\":");
		ink_put_u64(&t->out, r->cpu);
		ink_put_str(&t->out, ",\"ts\":");
		put_ts(&t->out, t->ns, r->ts, 0);
		ink_put_str(&t->out, ",\"ts_raw\":");
		ink_put_u64(&t->out, r->ts);
		ink_put_str(&t->out, ",\"group\":");
		ink_json_str(&t->out, f->system, strlen(f->system));
		ink_put_str(&t->out, ",\"event\":");
		ink_json_str(&t->out, f->name, strlen(f->name));
		ink_rec_json(&t->out, &t->ctx, f, data, r->size);
		ink_put_str(&t->out, "}\n");
	} else {
		put_padded(&t->out, comm, 16, false);
		buf_add_u8(&t->out, '-');
		snprintf(num, sizeof(num), "%d", pid);
		put_padded(&t->out, num, 7, true);
		snprintf(num, sizeof(num), " [%03d] ", r->cpu);
		ink_put_str(&t->out, num);
		put_ts(&t->out, t->ns, r->ts, 12);
		ink_put_str(&t->out, ": ");
		ink_put_str(&t->out, f->system);
		buf_add_u8(&t->out, ':');
		ink_put_str(&t->out, f->name);
		ink_put_str(&t->out, ": ");
		if (f->inkprobe) {
			ink_rec_text(&t->out, &t->ctx, f, data, r->size);
		} else {
			struct tep_record rec = {
				.ts = r->ts, .size = r->size, .data = (void *)data, .cpu = r->cpu,
			};

			trace_seq_reset(&t->seq);
			tep_print_event(t->tep, &t->seq, &rec, "%s", TEP_PRINT_INFO);
			trace_seq_terminate(&t->seq);
			buf_add(&t->out, t->seq.buffer, t->seq.len);
		}
		buf_add_u8(&t->out, '\n');
	}
	t->seen++;
}

static void emit_lost(struct trace *t, int cpu, unsigned long long lost)
{
	char line[96];

	if (t->json)
		snprintf(line, sizeof(line), "{\"cpu\":%d,\"lost\":%llu}\n", cpu, lost);
	else
		snprintf(line, sizeof(line), "CPU:%d [LOST %llu EVENTS]\n", cpu, lost);
	ink_put_str(&t->out, line);
}

static bool count_reached(const struct trace *t)
{
	return t->count && t->seen >= t->count;
}

/* A record, in time order: a task name, or an event to print. */
static void take(struct trace *t, const struct rec *r)
{
	const struct cpu *c = &t->cpus[r->cpu];
	const char *data = (const char *)c->arena.data + r->off;
	int id = r->size >= 2 ? *(const uint16_t *)data : -1;
	const struct ink_rec_fmt *f;

	if (id == t->newtask_id && t->nt_comm + COMM_LEN <= r->size) {
		comm_put(&t->comms, *(const int32_t *)(data + t->nt_pid), data + t->nt_comm,
			 COMM_LEN);
		return;
	}
	if (id == t->rename_id && t->rn_comm + COMM_LEN <= r->size) {
		comm_put(&t->comms, *(const int32_t *)(data + t->rn_pid), data + t->rn_comm,
			 COMM_LEN);
		return;
	}
	if (count_reached(t))
		return;
	f = fmt_of(t, id);
	if (!f) {
		t->other++;
		return;
	}
	emit(t, r, f, data);
	if (t->out.len >= 65536)
		flush_out(t);
}

/* Reads every page the CPU's buffer has now into its queue. */
static int read_cpu(struct trace *t, struct cpu *c)
{
	unsigned long long ts;
	void *data;
	int n, pages = 0;

	while ((n = tracefs_cpu_read(c->tcpu, t->page, true)) > 0) {
		pages++;
		if (kbuffer_load_subbuffer(t->kbuf, t->page) < 0)
			continue;
		for (data = kbuffer_read_event(t->kbuf, &ts); data;
		     data = kbuffer_next_event(t->kbuf, &ts)) {
			unsigned int size = kbuffer_event_size(t->kbuf);
			struct rec *r = VEC_PUSH(c->recs, c->nr, c->cap);

			r->ts = ts;
			r->off = (uint32_t)c->arena.len;
			r->size = size;
			r->cpu = c->cpu;
			r->seq = t->seq_no++;
			buf_add(&c->arena, data, size);
			c->read++;
		}
	}
	return n < 0 ? -1 : pages;
}

static int cmp_rec(const void *a, const void *b)
{
	const struct rec *x = *(const struct rec *const *)a, *y = *(const struct rec *const *)b;

	if (x->ts != y->ts)
		return x->ts < y->ts ? -1 : 1;
	if (x->cpu != y->cpu)
		return x->cpu < y->cpu ? -1 : 1;
	return (x->seq > y->seq) - (x->seq < y->seq);
}

/*
 * Takes the queued records older than @horizon (all: UINT64_MAX) in time
 * order; returns how many wait.
 */
static size_t take_until(struct trace *t, uint64_t horizon)
{
	const struct rec **all = NULL;
	size_t n = 0, cap = 0, i, waiting = 0;
	int k;

	for (k = 0; k < t->nr_cpus; k++) {
		struct cpu *c = &t->cpus[k];

		for (i = c->first; i < c->nr && c->recs[i].ts < horizon; i++)
			*VEC_PUSH(all, n, cap) = &c->recs[i];
	}
	qsort(all, n, sizeof(*all), cmp_rec);
	for (i = 0; i < n; i++)
		take(t, all[i]);
	free(all);
	for (k = 0; k < t->nr_cpus; k++) {
		struct cpu *c = &t->cpus[k];

		while (c->first < c->nr && c->recs[c->first].ts < horizon)
			c->first++;
		/* the CPU's records are in time order: the rest waits, moved to the front */
		if (c->first == c->nr) {
			c->arena.len = 0;
		} else if (c->first) {
			uint32_t base = c->recs[c->first].off;

			memmove(c->arena.data, c->arena.data + base, c->arena.len - base);
			c->arena.len -= base;
			memmove(c->recs, c->recs + c->first, (c->nr - c->first) * sizeof(*c->recs));
			for (i = 0; i < c->nr - c->first; i++)
				c->recs[i].off -= base;
		}
		c->nr -= c->first;
		c->first = 0;
		waiting += c->nr;
	}
	return waiting;
}

/* per_cpu/cpuN/stats: "KEY: VALUE" lines. */
static bool cpu_stat(const char *stats, const char *key, unsigned long long *v)
{
	const char *p = stats ? strstr(stats, key) : NULL;

	if (!p)
		return false;
	*v = strtoull(p + strlen(key), NULL, 10);
	return true;
}

/* The ring's clock now, from a CPU's stats ("now ts: SEC.USEC" or a count). */
static uint64_t ring_now(const char *stats, bool ns)
{
	const char *p = stats ? strstr(stats, "now ts:") : NULL;
	unsigned long long sec, usec = 0;
	char *end;

	if (!p)
		return UINT64_MAX;
	sec = strtoull(p + 7, &end, 10);
	if (*end == '.')
		usec = strtoull(end + 1, NULL, 10);
	return ns ? sec * 1000000000ULL + usec * 1000 : sec;
}

/* A CPU's stats, read again from the start (tracefs makes it at each read). */
static bool read_stats(const struct cpu *c, char *buf, size_t n)
{
	ssize_t len = c->stats_fd >= 0 ? pread(c->stats_fd, buf, n - 1, 0) : -1;

	buf[len > 0 ? len : 0] = '\0';
	return len > 0;
}

/* The ring's clock now (the first CPU's stats); UINT64_MAX if it cannot be read. */
static uint64_t ring_clock(struct trace *t)
{
	char buf[1024];

	return read_stats(&t->cpus[0], buf, sizeof(buf)) ? ring_now(buf, t->ns) : UINT64_MAX;
}

/*
 * Reads the CPUs' loss counters: what was lost since the last look is
 * pending until emit_losses().  A full ring drops the newest events: they
 * follow every record in it now.
 */
static void check_losses(struct trace *t)
{
	char buf[1024];
	int k;

	for (k = 0; k < t->nr_cpus; k++) {
		struct cpu *c = &t->cpus[k];
		unsigned long long dropped = 0, overrun = 0, commit = 0, lost;

		if (!read_stats(c, buf, sizeof(buf)))
			continue;
		cpu_stat(buf, "dropped events:", &dropped);
		cpu_stat(buf, "\noverrun:", &overrun);
		cpu_stat(buf, "commit overrun:", &commit);
		lost = dropped + overrun + commit - c->dropped - c->overrun;
		c->pending_lost += lost;
		c->dropped = dropped;
		c->overrun = overrun + commit;
	}
}

static void emit_losses(struct trace *t)
{
	int k;

	for (k = 0; k < t->nr_cpus; k++) {
		if (t->cpus[k].pending_lost)
			emit_lost(t, t->cpus[k].cpu, t->cpus[k].pending_lost);
		t->cpus[k].pending_lost = 0;
	}
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/*
 * Waits until a buffer has data, @hold_ms passed (-1: no limit), or
 * @deadline (<0: none); false at the deadline.
 */
static bool wait_data(struct trace *t, int hold_ms, double deadline, const sigset_t *sigs)
{
	struct pollfd pfd[256];
	struct timespec ts, *tsp = NULL;
	double left = -1;
	sigset_t orig;
	int k, n = 0, r;

	for (k = 0; k < t->nr_cpus && n < 256; k++)
		pfd[n++] = (struct pollfd){ .fd = t->cpus[k].fd, .events = POLLIN };
	if (deadline >= 0) {
		left = deadline - now_s();
		if (left <= 0)
			return false;
	}
	if (hold_ms >= 0 && (left < 0 || left > hold_ms / 1e3))
		left = hold_ms / 1e3;
	if (left >= 0) {
		ts.tv_sec = (time_t)left;
		ts.tv_nsec = (long)((left - ts.tv_sec) * 1e9);
		tsp = &ts;
	}
	/* a signal between the check and the wait would be missed without ppoll */
	sigprocmask(SIG_BLOCK, sigs, &orig);
	r = stopped ? 1 : ppoll(pfd, n, tsp, &orig);
	sigprocmask(SIG_SETMASK, &orig, NULL);
	return r != 0 || deadline < 0 || now_s() < deadline;
}

/* ------------------------------------------------------------------ */
/* Set-up                                                               */

static void add_event(struct event_names *w, const char *spec)
{
	const char *sep = strpbrk(spec, "/:");
	size_t n = sep ? (size_t)(sep - spec) : strlen(spec);

	w->group = xrealloc(w->group, (w->nr + 1) * sizeof(*w->group));
	w->event = xrealloc(w->event, (w->nr + 1) * sizeof(*w->event));
	w->group[w->nr] = strndup(spec, n);
	w->event[w->nr] = sep && sep[1] ? xstrdup(sep + 1) : NULL;
	w->nr++;
}

/* Every inkprobe event: the first word of each line of the stats file. */
static void inkprobe_events(struct event_names *w)
{
	char *stats = ctl_read("stats"), *line, *save = NULL;

	for (line = strtok_r(stats, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		line[strcspn(line, " ")] = '\0';
		if (strchr(line, '/'))
			add_event(w, line);
	}
	free(stats);
}

static void free_events(struct event_names *w)
{
	size_t i;

	for (i = 0; i < w->nr; i++) {
		free(w->group[i]);
		free(w->event[i]);
	}
	free(w->group);
	free(w->event);
}

static int field_off(struct tep_event *ev, const char *name)
{
	struct tep_format_field *f = ev ? tep_find_field(ev, name) : NULL;

	return f ? f->offset : -1;
}

/* task:task_newtask and task:task_rename: names from the ring. */
static void comm_events(struct trace *t)
{
	struct tep_event *nt = tep_find_event_by_name(t->tep, "task", "task_newtask");
	struct tep_event *rn = tep_find_event_by_name(t->tep, "task", "task_rename");
	int a = field_off(nt, "pid"), b = field_off(nt, "comm");
	int c = field_off(rn, "pid"), d = field_off(rn, "newcomm");

	t->newtask_id = t->rename_id = -1;
	if (a >= 0 && b >= 0 && !tracefs_event_enable(t->inst, "task", "task_newtask")) {
		t->newtask_id = nt->id;
		t->nt_pid = a;
		t->nt_comm = b;
	}
	if (c >= 0 && d >= 0 && !tracefs_event_enable(t->inst, "task", "task_rename")) {
		t->rename_id = rn->id;
		t->rn_pid = c;
		t->rn_comm = d;
	}
	if (t->newtask_id < 0 || t->rename_id < 0)
		warnx("trace: no task:task_newtask or task:task_rename event: "
		      "task names come from /proc when the reader starts");
}

static void blob_warning(const char *path, const char *why)
{
	warnx("trace: %s: not used for inline frames: %s", path, why);
}

struct options {
	double timeout;
	unsigned long buffer_kb;
	char **blobs;
	size_t nr_blobs;
};

static int parse_args(int argc, char **argv, struct trace *t, struct options *o)
{
	static const struct option opts[] = {
		{ "event", required_argument, NULL, 'e' },
		{ "json", no_argument, NULL, 'j' },
		{ "count", required_argument, NULL, 'n' },
		{ "timeout", required_argument, NULL, 't' },
		{ "buffer-kb", required_argument, NULL, 'b' },
		{ "blob", required_argument, NULL, 'B' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	char *end;
	int c;

	while ((c = getopt_long(argc, argv, "e:jn:t:b:B:h", opts, NULL)) != -1) {
		switch (c) {
		case 'e':
			if (!*optarg || *optarg == '/' || *optarg == ':') {
				warnx("trace: --event wants GROUP or GROUP/EVENT, not '%s'", optarg);
				return 2;
			}
			add_event(&t->want, optarg);
			break;
		case 'j':
			t->json = true;
			break;
		case 'n':
			errno = 0;
			t->count = strtoull(optarg, &end, 10);
			if (errno || *end || !t->count || optarg[0] == '-') {
				warnx("trace: --count wants a number of events, not '%s'", optarg);
				return 2;
			}
			break;
		case 't':
			o->timeout = strtod(optarg, &end);
			if (*end || end == optarg || !isfinite(o->timeout) || o->timeout < 0) {
				warnx("trace: --timeout wants seconds, not '%s'", optarg);
				return 2;
			}
			break;
		case 'b':
			errno = 0;
			o->buffer_kb = strtoul(optarg, &end, 10);
			if (errno || *end || !o->buffer_kb || optarg[0] == '-') {
				warnx("trace: --buffer-kb wants kilobytes, not '%s'", optarg);
				return 2;
			}
			break;
		case 'B':
			o->blobs = xrealloc(o->blobs, (o->nr_blobs + 1) * sizeof(*o->blobs));
			o->blobs[o->nr_blobs++] = optarg;
			break;
		case 'h':
			fputs(trace_usage, stdout);
			return 0;
		default:
			fputs(trace_usage, stderr);
			return 2;
		}
	}
	if (optind != argc) {
		fputs(trace_usage, stderr);
		return 2;
	}
	return -1;
}

/* The instance, its options, the event formats and the enabled events; exit status or -1. */
static int set_up(struct trace *t, const struct options *o)
{
	char name[64], *clock, num[64];
	const char **systems;
	size_t i;
	int k;

	if (!tracefs_tracing_dir()) {
		warnx("trace: tracefs is not mounted: mount -t tracefs nodev /sys/kernel/tracing");
		return 1;
	}
	if (!t->want.nr)
		inkprobe_events(&t->want);
	if (!t->want.nr) {
		warnx("trace: no inkprobe events: define one first (inkprobe add)");
		return 1;
	}
	remove_stale_instances();
	snprintf(name, sizeof(name), INSTANCE_PREFIX "%d-%llu", (int)getpid(),
		 start_time(getpid()));
	t->inst = tracefs_instance_create(name);
	if (!t->inst || !tracefs_instance_exists(name)) {
		warnx("trace: cannot create tracefs instance %s: %s", name, strerror(errno));
		tracefs_instance_free(t->inst);
		t->inst = NULL;
		return 1;
	}
	/* exact losses: the ring drops what does not fit and counts it */
	if (tracefs_option_disable(t->inst, TRACEFS_OPTION_OVERWRITE))
		warnx("trace: cannot turn off the instance's overwrite option");
	if (o->buffer_kb && tracefs_instance_set_buffer_size(t->inst, o->buffer_kb, -1)) {
		warnx("trace: cannot set the buffer to %lu KB per CPU: %s", o->buffer_kb,
		      strerror(errno));
		return 1;
	}
	/* wake the reader at the first event (the default waits for half a buffer) */
	tracefs_instance_file_write(t->inst, "buffer_percent", "0");
	/* the stamps of the top level's clock, so that lines merge with trace's */
	clock = top_clock();
	if (clock && tracefs_instance_file_write(t->inst, "trace_clock", clock) < 0)
		warnx("trace: cannot set the instance's clock to %s", clock);
	t->ns = clock_in_ns(clock);
	free(clock);

	systems = xcalloc(t->want.nr + 2, sizeof(*systems));
	systems[0] = "task";
	for (i = 0; i < t->want.nr; i++)
		systems[i + 1] = t->want.group[i];
	t->tep = tracefs_local_events_system(NULL, systems);
	free(systems);
	if (!t->tep) {
		warnx("trace: cannot read the event formats from tracefs");
		return 1;
	}
	t->kbuf = tep_kbuffer(t->tep);
	if (!t->kbuf) {
		warnx("trace: libtraceevent has no ring-buffer reader for this kernel");
		return 1;
	}
	comm_events(t);
	comm_snapshot(&t->comms);
	for (i = 0; i < t->want.nr; i++) {
		if (tracefs_event_enable(t->inst, t->want.group[i], t->want.event[i])) {
			warnx("trace: cannot enable %s%s%s in instance %s: %s", t->want.group[i],
			      t->want.event[i] ? "/" : "", t->want.event[i] ? t->want.event[i] : "",
			      name, errno ? strerror(errno) : "no such event");
			return 1;
		}
	}
	t->nr_cpus = 0;
	t->cpus = xcalloc(sysconf(_SC_NPROCESSORS_CONF) + 1, sizeof(*t->cpus));
	for (k = 0; k < sysconf(_SC_NPROCESSORS_CONF); k++) {
		struct tracefs_cpu *tcpu;
		int fd;

		snprintf(num, sizeof(num), "per_cpu/cpu%d/trace_pipe_raw", k);
		fd = tracefs_instance_file_open(t->inst, num, O_RDONLY | O_NONBLOCK);
		if (fd < 0)
			continue;
		/* one descriptor: read by tracefs_cpu_read(), polled here */
		tcpu = tracefs_cpu_alloc_fd(fd, tep_get_sub_buffer_size(t->tep), true);
		if (!tcpu) {
			close(fd);
			continue;
		}
		snprintf(num, sizeof(num), "per_cpu/cpu%d/stats", k);
		t->cpus[t->nr_cpus++] = (struct cpu){
			.cpu = k, .tcpu = tcpu, .fd = fd,
			.stats_fd = tracefs_instance_file_open(t->inst, num, O_RDONLY),
		};
	}
	if (!t->nr_cpus) {
		warnx("trace: cannot open the instance's per-CPU buffers: %s", strerror(errno));
		return 1;
	}
	t->page = xmalloc(tracefs_cpu_read_size(t->cpus[0].tcpu));
	return -1;
}

static void tear_down(struct trace *t)
{
	int k;

	for (k = 0; t->cpus && k < t->nr_cpus; k++) {
		tracefs_cpu_close(t->cpus[k].tcpu);	/* closes fd too */
		if (t->cpus[k].stats_fd >= 0)
			close(t->cpus[k].stats_fd);
		free(t->cpus[k].recs);
		buf_free(&t->cpus[k].arena);
	}
	free(t->cpus);
	if (t->inst) {
		if (tracefs_instance_destroy(t->inst))
			warnx("trace: cannot remove instance %s: %s",
			      tracefs_instance_get_name(t->inst), strerror(errno));
		tracefs_instance_free(t->inst);
	}
	if (t->fmts)
		for (k = 0; k < 0x10000; k++)
			free(t->fmts[k]);
	free(t->fmts);
	free(t->page);
	tep_free(t->tep);
	ksyms_free(t->ksyms);
	ink_frames_free(t->frames);
	free(t->comms.slots);
	buf_free(&t->out);
	free_events(&t->want);
}

int cmd_trace(int argc, char **argv)
{
	struct sigaction sa = { .sa_handler = on_signal }, ign = { .sa_handler = SIG_IGN };
	struct trace *t = xcalloc(1, sizeof(*t));
	struct options o = { .timeout = -1 };
	unsigned long long read_total = 0, lost_total = 0;
	struct timespec batch = { .tv_nsec = BATCH_MS * 1000000L };
	double deadline, next_loss_check = 0;
	bool timed_out = false;
	sigset_t sigs;
	size_t waiting = 0, i;
	uint64_t now;
	int ret, k;

	trace_seq_init(&t->seq);
	ret = parse_args(argc, argv, t, &o);
	if (ret >= 0)
		goto out;
	if (geteuid()) {
		warnx("trace: must be root (tracefs)");
		ret = 1;
		goto out;
	}
	sigemptyset(&sigs);
	sigaddset(&sigs, SIGINT);
	sigaddset(&sigs, SIGTERM);
	sigaddset(&sigs, SIGHUP);
	/* the instance is removed on these too */
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	sigaction(SIGPIPE, &ign, NULL);

	t->ksyms = ksyms_load();
	t->symbolizer = (struct ink_symbolizer){ .lookup = sym_lookup, .ctx = t };
	t->frames = ink_frames_new();
	if (t->ksyms)
		ink_frames_set_addr_of(t->frames, sym_addr_of, t);
	for (i = 0; i < o.nr_blobs; i++) {
		char why[256];

		if (ink_frames_add(t->frames, o.blobs[i], NULL, true, why, sizeof(why))) {
			warnx("trace: %s", why);
			ret = 1;
			goto out;
		}
	}
	ink_frames_add_list(t->frames, getenv("INKPROBE_BLOBS"), blob_warning);
	t->ctx = (struct ink_rec_ctx){ .syms = t->ksyms ? &t->symbolizer : NULL,
				       .frames = t->frames };

	ret = set_up(t, &o);
	if (ret >= 0)
		goto out;
	deadline = o.timeout >= 0 ? now_s() + o.timeout : -1;

	while (!stopped && !count_reached(t) && !t->out_failed) {
		/* the losses at most every LOSS_CHECK_S: the stream says them then */
		if (now_s() >= next_loss_check) {
			check_losses(t);
			next_loss_check = now_s() + LOSS_CHECK_S;
		}
		now = ring_clock(t);
		for (k = 0; k < t->nr_cpus; k++)
			if (read_cpu(t, &t->cpus[k]) < 0 && errno != EAGAIN)
				warnx("trace: cpu%d: %s", t->cpus[k].cpu, strerror(errno));
		waiting = take_until(t, now);
		emit_losses(t);
		if (!flush_out(t) || count_reached(t))
			break;
		if (!wait_data(t, waiting ? HOLD_POLL_MS : -1, deadline, &sigs)) {
			timed_out = true;
			break;
		}
		/* a moment for more to come: a read per event would cost more than the event */
		if (!stopped)
			nanosleep(&batch, NULL);
	}
	/* the end: nothing more is written; what the buffers hold is read */
	tracefs_trace_off(t->inst);
	if (!t->out_failed && !count_reached(t)) {
		for (k = 0; k < t->nr_cpus; k++)
			read_cpu(t, &t->cpus[k]);
		take_until(t, UINT64_MAX);
	}
	check_losses(t);
	emit_losses(t);
	flush_out(t);
	for (k = 0; k < t->nr_cpus; k++) {
		read_total += t->cpus[k].read;
		lost_total += t->cpus[k].dropped + t->cpus[k].overrun;
	}
	if (lost_total)
		warnx("trace: %llu events lost, %llu read: the buffer was full "
		      "(a larger --buffer-kb keeps more)", lost_total, read_total);
	ret = t->out_failed && !t->out_closed ? 1 : 0;
	if (!ret && timed_out && t->count && t->seen < t->count) {
		warnx("trace: timed out after %g s with %llu of %llu events", o.timeout, t->seen,
		      t->count);
		ret = 1;
	}
out:
	tear_down(t);
	trace_seq_destroy(&t->seq);
	free(o.blobs);
	free(t);
	return ret;
}
