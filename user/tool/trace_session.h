/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The trace reader's session (Documentation/trace-events.rst, "inkprobe
 * trace"): a tracefs instance of its own, inkprobe-PID-START, with the
 * wanted events enabled in it, its per-CPU buffers read in binary
 * (libtracefs' tracefs_cpu_*) into the record stream (user/trace/stream.c)
 * or to a file, its losses counted, and its removal.  `inkprobe trace`
 * (cmd_trace.c) and `inkprobe latency` (cmd_latency.c) read through it.
 */
#ifndef _INKPROBE_USER_TRACE_SESSION_H
#define _INKPROBE_USER_TRACE_SESSION_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <event-parse.h>
#include <tracefs.h>

#include "../trace/comms.h"
#include "../trace/inline_frames.h"
#include "../trace/ksyms.h"
#include "../trace/record.h"
#include "../trace/stream.h"
#include "../trace/trace_file.h"

#define INSTANCE_PREFIX		"inkprobe-"
#define TRACE_HOLD_POLL_MS	10	/* a read again soon, when records wait for the clock */
#define TRACE_BATCH_MS		2	/* after a wake-up, before reading */
#define TRACE_LOSS_CHECK_S	0.1	/* the loss counters read at most this often */

struct trace_cpu {
	int cpu;
	struct tracefs_cpu *tcpu;
	int fd;
	int stats_fd;		/* per_cpu/cpuN/stats */
	unsigned long long dropped, overrun, pending_lost;
};

struct event_names {
	char **group, **event;	/* event NULL: the whole group */
	size_t nr;
};

struct trace {
	bool json, ns;
	unsigned long long count;
	const char *output, *input;
	struct tracefs_instance *inst;
	char *clock;
	struct tep_handle *tep;
	struct trace_cpu *cpus;	/* the instance's buffers that opened */
	int nr_cpus, max_cpus;	/* max_cpus: CPU numbers are below it */
	void *page;
	struct ink_comms comms;	/* the names when it starts */
	struct ink_stream stream;	/* streaming */
	bool stream_ok;
	int out_fd;		/* --output */
	struct ink_tf_writer w;
	struct ksyms *ksyms;
	struct ink_frames *frames;
	struct ink_symbolizer symbolizer;
	struct event_names want;
	const char *event_pids;	/* the instance's set_event_pid (NULL: every task) */
	const char *filter;	/* each wanted event's filter in the instance (NULL: none) */
	unsigned long long lost;	/* events the buffers dropped (trace_run_live()) */
};

/* Set by SIGINT, SIGTERM and SIGHUP once trace_catch_signals() ran. */
extern volatile sig_atomic_t trace_stopped;

/*
 * For command @cmd (messages start "@cmd: "): catches SIGINT, SIGTERM and
 * SIGHUP (they end the session, and the instance is removed), ignores
 * SIGPIPE; @sigs gets the three.
 */
void trace_catch_signals(const char *cmd, sigset_t *sigs);

/*
 * Removes the instances of readers that are gone (an event enabled in one
 * cannot be removed); how many.
 */
int trace_remove_stale_instances(void);

/* Adds "GRP" or "GRP/EVENT" (also "GRP:EVENT") to @w. */
void trace_add_event(struct event_names *w, const char *spec);

/*
 * Symbols (/proc/kallsyms) and inline frames (the blob files @blobs, then
 * $INKPROBE_BLOBS) for the records' text; 0, or 1 after a message when a
 * blob of @blobs cannot be used.
 */
int trace_symbols(struct trace *t, char **blobs, size_t nr_blobs);

/*
 * The instance (its buffer @buffer_kb KB per CPU, 0: the kernel's), its
 * options, the event formats, t->want enabled in it (none: every inkprobe
 * event), the stream unless t->output; the exit status, or -1 to go on.
 */
int trace_set_up(struct trace *t, unsigned long buffer_kb);
/* Removes the instance and frees everything @t holds. */
void trace_tear_down(struct trace *t);

/*
 * Streaming: every record, in time order, through t->stream (printed, or
 * to its on_record), until @timeout seconds (< 0: none), t->count events
 * or a signal; then what the buffers hold.  The exit status.
 */
int trace_run_live(struct trace *t, double timeout, const sigset_t *sigs);

/* The pieces trace_run_live() is made of, for --output. */
int trace_read_cpu(struct trace *t, struct trace_cpu *c);
void trace_check_losses(struct trace *t);
void trace_pass_losses(struct trace *t);
uint64_t trace_read_all(struct trace *t, double *next_loss_check);
bool trace_wait_data(struct trace *t, int hold_ms, double deadline, const sigset_t *sigs);
double trace_now_s(void);

#endif /* _INKPROBE_USER_TRACE_SESSION_H */
