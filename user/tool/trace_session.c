// SPDX-License-Identifier: GPL-2.0
/*
 * The trace reader's session (trace_session.h): what cmd_trace.c says of
 * the instance, the order of records and the cost holds for every command
 * that reads through it.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "debugfs.h"
#include "trace_session.h"
#include "../common/util.h"

volatile sig_atomic_t trace_stopped;
static const char *who = "trace";

static void on_signal(int sig)
{
	trace_stopped = 1;
}

void trace_catch_signals(const char *cmd, sigset_t *sigs)
{
	struct sigaction sa = { .sa_handler = on_signal }, ign = { .sa_handler = SIG_IGN };

	who = cmd;
	sigemptyset(sigs);
	sigaddset(sigs, SIGINT);
	sigaddset(sigs, SIGTERM);
	sigaddset(sigs, SIGHUP);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	sigaction(SIGPIPE, &ign, NULL);
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
int trace_remove_stale_instances(void)
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
			warnx("%s: cannot remove instance %s left by a reader that is gone: %s",
			      who, names[i], strerror(errno));
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

/* ------------------------------------------------------------------ */
/* Reading                                                              */

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

/*
 * Reads every page the CPU's buffer has now: into the stream's queues, or
 * to the file (--output) as they are.
 */
int trace_read_cpu(struct trace *t, struct trace_cpu *c)
{
	int n, pages = 0;

	while ((n = tracefs_cpu_read(c->tcpu, t->page, true)) > 0) {
		pages++;
		if (t->output)
			ink_tf_write_page(&t->w, c->cpu, t->page, n);
		else
			ink_stream_page(&t->stream, c->cpu, t->page);
	}
	return n < 0 ? -1 : pages;
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
static bool read_stats(const struct trace_cpu *c, char *buf, size_t n)
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
 * pending until trace_pass_losses().  A full ring drops the newest events: they
 * follow every record in it now.
 */
void trace_check_losses(struct trace *t)
{
	char buf[1024];
	int k;

	for (k = 0; k < t->nr_cpus; k++) {
		struct trace_cpu *c = &t->cpus[k];
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

/* The pending losses, to the stream (said after the records of this read) or the file. */
void trace_pass_losses(struct trace *t)
{
	int k;

	for (k = 0; k < t->nr_cpus; k++) {
		struct trace_cpu *c = &t->cpus[k];

		if (!c->pending_lost)
			continue;
		if (t->output)
			ink_tf_write_lost(&t->w, c->cpu, c->pending_lost);
		else
			ink_stream_lost(&t->stream, c->cpu, c->pending_lost);
		c->pending_lost = 0;
	}
}

double trace_now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/*
 * Waits until a buffer has data, @hold_ms passed (-1: no limit), or
 * @deadline (<0: none); false at the deadline.
 */
bool trace_wait_data(struct trace *t, int hold_ms, double deadline, const sigset_t *sigs)
{
	struct pollfd pfd[256];
	struct timespec ts, *tsp = NULL;
	double left = -1;
	sigset_t orig;
	int k, n = 0, r;

	for (k = 0; k < t->nr_cpus && n < 256; k++)
		pfd[n++] = (struct pollfd){ .fd = t->cpus[k].fd, .events = POLLIN };
	if (deadline >= 0) {
		left = deadline - trace_now_s();
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
	r = trace_stopped ? 1 : ppoll(pfd, n, tsp, &orig);
	sigprocmask(SIG_SETMASK, &orig, NULL);
	return r != 0 || deadline < 0 || trace_now_s() < deadline;
}

/* ------------------------------------------------------------------ */
/* Set-up                                                               */

void trace_add_event(struct event_names *w, const char *spec)
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
			trace_add_event(w, line);
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


/* task:task_newtask and task:task_rename: names from the ring (stream.c reads them). */
static void comm_events(struct trace *t)
{
	bool nt = tep_find_event_by_name(t->tep, "task", "task_newtask") &&
		  !tracefs_event_enable(t->inst, "task", "task_newtask");
	bool rn = tep_find_event_by_name(t->tep, "task", "task_rename") &&
		  !tracefs_event_enable(t->inst, "task", "task_rename");

	if (!nt || !rn)
		warnx("%s: no task:task_newtask or task:task_rename event: "
		      "task names come from /proc when the reader starts", who);
}

static void blob_warning(const char *path, const char *why)
{
	warnx("%s: %s: not used for inline frames: %s", who, path, why);
}

int trace_symbols(struct trace *t, char **blobs, size_t nr_blobs)
{
	char why[256];
	size_t i;

	t->ksyms = ksyms_load();
	t->symbolizer = (struct ink_symbolizer){ .lookup = sym_lookup, .ctx = t };
	t->frames = ink_frames_new();
	if (t->ksyms)
		ink_frames_set_symbols(t->frames, sym_addr_of, sym_lookup, t);
	for (i = 0; i < nr_blobs; i++) {
		if (ink_frames_add(t->frames, blobs[i], NULL, true, why, sizeof(why))) {
			warnx("%s: %s", who, why);
			return 1;
		}
	}
	ink_frames_add_list(t->frames, getenv("INKPROBE_BLOBS"), blob_warning);
	return 0;
}

/* The instance, its options, the event formats and the enabled events; exit status or -1. */
/*
 * t->filter as the filter of the event (of each event of the group, if
 * @event is NULL) in the instance; 0, or -1 after a message with tracefs'
 * reason.
 */
static int set_filter(struct trace *t, const char *who, const char *group, const char *event)
{
	char path[512], *why;

	snprintf(path, sizeof(path), "events/%s%s%s/filter", group, event ? "/" : "",
		 event ? event : "");
	if (tracefs_instance_file_write(t->inst, path, t->filter) >= 0)
		return 0;
	why = tracefs_error_last(t->inst);
	warnx("%s: --filter '%s' refused for %s%s%s: %s", who, t->filter, group, event ? "/" : "",
	      event ? event : "", why && *why ? why : strerror(errno));
	free(why);
	return -1;
}

int trace_set_up(struct trace *t, unsigned long buffer_kb)
{
	char name[64], num[64];
	const char **systems;
	size_t i;
	int k;

	if (!tracefs_tracing_dir()) {
		warnx("%s: tracefs is not mounted: mount -t tracefs nodev /sys/kernel/tracing",
		      who);
		return 1;
	}
	if (!t->want.nr)
		inkprobe_events(&t->want);
	if (!t->want.nr) {
		warnx("%s: no inkprobe events: define one first (inkprobe add)", who);
		return 1;
	}
	trace_remove_stale_instances();
	snprintf(name, sizeof(name), INSTANCE_PREFIX "%d-%llu", (int)getpid(),
		 start_time(getpid()));
	t->inst = tracefs_instance_create(name);
	if (!t->inst || !tracefs_instance_exists(name)) {
		warnx("%s: cannot create tracefs instance %s: %s", who, name, strerror(errno));
		tracefs_instance_free(t->inst);
		t->inst = NULL;
		return 1;
	}
	/* exact losses: the ring drops what does not fit and counts it */
	if (tracefs_option_disable(t->inst, TRACEFS_OPTION_OVERWRITE))
		warnx("%s: cannot turn off the instance's overwrite option", who);
	if (buffer_kb && tracefs_instance_set_buffer_size(t->inst, buffer_kb, -1)) {
		warnx("%s: cannot set the buffer to %lu KB per CPU: %s", who, buffer_kb,
		      strerror(errno));
		return 1;
	}
	/* wake the reader at the first event (the default waits for half a buffer) */
	tracefs_instance_file_write(t->inst, "buffer_percent", "0");
	/* the stamps of the top level's clock, so that lines merge with trace's */
	t->clock = top_clock();
	if (t->clock && tracefs_instance_file_write(t->inst, "trace_clock", t->clock) < 0)
		warnx("%s: cannot set the instance's clock to %s", who, t->clock);
	t->ns = ink_clock_in_ns(t->clock);

	systems = xcalloc(t->want.nr + 2, sizeof(*systems));
	systems[0] = "task";
	for (i = 0; i < t->want.nr; i++)
		systems[i + 1] = t->want.group[i];
	t->tep = tracefs_local_events_system(NULL, systems);
	free(systems);
	if (!t->tep) {
		warnx("%s: cannot read the event formats from tracefs", who);
		return 1;
	}
	t->max_cpus = sysconf(_SC_NPROCESSORS_CONF);
	if (!t->output) {
		if (!ink_stream_init(&t->stream, t->tep, t->max_cpus, STDOUT_FILENO)) {
			ink_stream_free(&t->stream);
			warnx("%s: libtraceevent has no ring-buffer reader for this kernel", who);
			return 1;
		}
		t->stream_ok = true;
	}
	comm_events(t);
	ink_comms_snapshot(&t->comms);
	if (t->event_pids && tracefs_instance_file_write(t->inst, "set_event_pid",
							 t->event_pids) < 0) {
		warnx("%s: cannot write set_event_pid of instance %s: %s", who, name,
		      strerror(errno));
		return 1;
	}
	for (i = 0; t->filter && i < t->want.nr; i++)
		if (set_filter(t, who, t->want.group[i], t->want.event[i]))
			return 1;
	for (i = 0; i < t->want.nr; i++) {
		if (tracefs_event_enable(t->inst, t->want.group[i], t->want.event[i])) {
			warnx("%s: cannot enable %s%s%s in instance %s: %s", who, t->want.group[i],
			      t->want.event[i] ? "/" : "", t->want.event[i] ? t->want.event[i] : "",
			      name, errno ? strerror(errno) : "no such event");
			return 1;
		}
	}
	t->nr_cpus = 0;
	t->cpus = xcalloc(t->max_cpus + 1, sizeof(*t->cpus));
	for (k = 0; k < t->max_cpus; k++) {
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
		t->cpus[t->nr_cpus++] = (struct trace_cpu){
			.cpu = k, .tcpu = tcpu, .fd = fd,
			.stats_fd = tracefs_instance_file_open(t->inst, num, O_RDONLY),
		};
	}
	if (!t->nr_cpus) {
		warnx("%s: cannot open the instance's per-CPU buffers: %s", who, strerror(errno));
		return 1;
	}
	t->page = xmalloc(tracefs_cpu_read_size(t->cpus[0].tcpu));
	return -1;
}

void trace_tear_down(struct trace *t)
{
	int k;

	for (k = 0; t->cpus && k < t->nr_cpus; k++) {
		tracefs_cpu_close(t->cpus[k].tcpu);	/* closes fd too */
		if (t->cpus[k].stats_fd >= 0)
			close(t->cpus[k].stats_fd);
	}
	free(t->cpus);
	if (t->inst) {
		if (tracefs_instance_destroy(t->inst))
			warnx("%s: cannot remove instance %s: %s", who,
			      tracefs_instance_get_name(t->inst), strerror(errno));
		tracefs_instance_free(t->inst);
	}
	if (t->stream_ok)
		ink_stream_free(&t->stream);
	free(t->page);
	free(t->clock);
	tep_free(t->tep);
	ksyms_free(t->ksyms);
	ink_frames_free(t->frames);
	ink_comms_free(&t->comms);
	ink_tf_writer_free(&t->w);
	if (t->out_fd > 0)
		close(t->out_fd);
	free_events(&t->want);
}

/*
 * A read: the loss counters (at most every TRACE_LOSS_CHECK_S: the stream says
 * them then), the ring's clock, every CPU's pages; the clock.
 */
uint64_t trace_read_all(struct trace *t, double *next_loss_check)
{
	uint64_t now;
	int k;

	if (trace_now_s() >= *next_loss_check) {
		trace_check_losses(t);
		*next_loss_check = trace_now_s() + TRACE_LOSS_CHECK_S;
	}
	now = ring_clock(t);
	for (k = 0; k < t->nr_cpus; k++)
		if (trace_read_cpu(t, &t->cpus[k]) < 0 && errno != EAGAIN)
			warnx("%s: cpu%d: %s", who, t->cpus[k].cpu, strerror(errno));
	trace_pass_losses(t);
	return now;
}

/* Streaming: the records of each read, in time order, to stdout. */
int trace_run_live(struct trace *t, double timeout, const sigset_t *sigs)
{
	struct ink_stream *s = &t->stream;
	struct timespec batch = { .tv_nsec = TRACE_BATCH_MS * 1000000L };
	double deadline = timeout >= 0 ? trace_now_s() + timeout : -1, next_loss_check = 0;
	unsigned long long lost_total = 0;
	bool timed_out = false;
	size_t waiting = 0;
	uint64_t now;
	int k, ret;

	s->json = t->json;
	s->ns = t->ns;
	s->count = t->count;
	s->ctx = (struct ink_rec_ctx){ .syms = t->ksyms ? &t->symbolizer : NULL,
				       .frames = t->frames };
	s->comms = t->comms;	/* the stream's from now on */
	t->comms = (struct ink_comms){ 0 };
	while (!trace_stopped && !ink_stream_count_reached(s) && !s->out_failed) {
		now = trace_read_all(t, &next_loss_check);
		waiting = ink_stream_cycle(s, now);
		if (s->out_failed || ink_stream_count_reached(s))
			break;
		if (!trace_wait_data(t, waiting ? TRACE_HOLD_POLL_MS : -1, deadline, sigs)) {
			timed_out = true;
			break;
		}
		/* a moment for more to come: a read per event would cost more than the event */
		if (!trace_stopped)
			nanosleep(&batch, NULL);
	}
	/* the end: nothing more is written; what the buffers hold is read */
	tracefs_trace_off(t->inst);
	if (!s->out_failed && !ink_stream_count_reached(s))
		for (k = 0; k < t->nr_cpus; k++)
			trace_read_cpu(t, &t->cpus[k]);
	trace_check_losses(t);
	trace_pass_losses(t);
	ink_stream_cycle(s, UINT64_MAX);
	for (k = 0; k < t->nr_cpus; k++)
		lost_total += t->cpus[k].dropped + t->cpus[k].overrun;
	t->lost = lost_total;
	if (lost_total)
		warnx("%s: %llu events lost, %llu read: the buffer was full "
		      "(a larger --buffer-kb keeps more)", who, lost_total, s->read);
	ret = s->out_failed && !s->out_closed ? 1 : 0;
	if (!ret && timed_out && t->count && s->seen < t->count) {
		warnx("%s: timed out after %g s with %llu of %llu events", who, timeout, s->seen,
		      t->count);
		ret = 1;
	}
	return ret;
}
