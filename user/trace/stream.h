/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The trace reader's records, from ring pages to lines (Documentation/
 * trace-events.rst, "inkprobe trace"): each CPU's records queued from its
 * pages (libtraceevent's kbuffer), merged by time stamp across CPUs up to a
 * horizon, task names taken from task:task_newtask and task:task_rename on
 * the way, each event rendered as text or JSON (record.c, or its print fmt
 * for another event), losses said where they were found.  The pages come
 * from tracefs (`inkprobe trace`) or a recorded file (report.c): one path.
 */
#ifndef _INKPROBE_USER_STREAM_H
#define _INKPROBE_USER_STREAM_H

#include <stdbool.h>
#include <stdint.h>

#include <event-parse.h>

#include "comms.h"
#include "record.h"
#include "../common/util.h"

struct kbuffer;

struct ink_stream_rec {
	uint64_t ts;
	uint32_t off, size;	/* in its CPU's arena */
	uint32_t seq;
	int cpu;
};

struct ink_stream_cpu {
	struct ink_stream_rec *recs;
	size_t nr, cap, first;	/* recs[first..nr) wait */
	struct buf arena;
	unsigned long long read, pending_lost;
};

struct ink_stream {
	/* set by the caller after ink_stream_init() */
	bool json, ns;
	unsigned long long count;	/* stop after this many events; 0: no limit */
	struct ink_rec_ctx ctx;
	struct ink_comms comms;
	/*
	 * Instead of printing (NULL: print): each event's record, in time
	 * order, with its layout (@f) and bytes (@size of them); and each
	 * count of events a CPU dropped, where the stream would say it.
	 */
	void (*on_record)(void *ctx, const struct ink_stream_rec *r, const struct ink_rec_fmt *f,
			  const void *data);
	void (*on_lost)(void *ctx, int cpu, unsigned long long lost);
	void *cb_ctx;
	/* what came of it */
	unsigned long long seen, other, read;
	bool out_failed, out_closed;

	struct tep_handle *tep;
	struct kbuffer *kbuf;
	struct ink_stream_cpu *cpus;	/* by CPU number */
	int nr_cpus;
	struct ink_rec_fmt **fmts;	/* by event id */
	int newtask_id, rename_id;
	unsigned int nt_pid, nt_comm, rn_pid, rn_comm;
	int out_fd;
	struct buf out;
	struct trace_seq seq;
	uint32_t seq_no;
};

/* Whether a trace clock counts nanoseconds (its stamps print as SEC.USEC). */
bool ink_clock_in_ns(const char *clock);

/* For @tep's events, CPUs 0 to @nr_cpus - 1, lines to @out_fd; false if no kbuffer. */
bool ink_stream_init(struct ink_stream *s, struct tep_handle *tep, int nr_cpus, int out_fd);
void ink_stream_free(struct ink_stream *s);
/* Queues the records of a page of @cpu's buffer; how many, -1 if it cannot be read. */
int ink_stream_page(struct ink_stream *s, int cpu, void *page);
/* Events @cpu's buffer dropped: said after the next records taken. */
void ink_stream_lost(struct ink_stream *s, int cpu, unsigned long long lost);
/*
 * Takes the queued records older than @horizon (all: UINT64_MAX) in time
 * order, then says the losses, and writes it out; how many records wait.
 */
size_t ink_stream_cycle(struct ink_stream *s, uint64_t horizon);
/* The --count events were written. */
bool ink_stream_count_reached(const struct ink_stream *s);
/* Writes what is ready; false once the output failed or was closed. */
bool ink_stream_flush(struct ink_stream *s);

#endif /* _INKPROBE_USER_STREAM_H */
