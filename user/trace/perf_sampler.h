/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Sampling kernel stacks with perf_event_open (inkprobe profile): a
 * cpu-clock event at @hz per online CPU (every task), or per thread of a
 * process (not its children nor threads it starts later), with the kernel
 * callchain of each sample; each event's ring mapped and read.
 */
#ifndef _INKPROBE_USER_PERF_SAMPLER_H
#define _INKPROBE_USER_PERF_SAMPLER_H

#include <stddef.h>
#include <stdint.h>

#include "perf_sample.h"

struct perf_sampler;

/*
 * Opens the events, disabled: @pid -1 for one per online CPU, else one per
 * thread of @pid.  NULL with the reason in @why (no permission says what
 * perf_event_paranoid allows).
 */
struct perf_sampler *perf_sampler_open(unsigned int hz, int pid, char *why, size_t why_len);
void perf_sampler_enable(struct perf_sampler *s);
void perf_sampler_disable(struct perf_sampler *s);
/* How many events (CPUs or threads). */
unsigned int perf_sampler_events(const struct perf_sampler *s);
/*
 * Waits up to @timeout_ms for data (interrupted by a signal: returns at
 * once), then calls @fn for every sample the rings hold, oldest first per
 * ring.  @fn's sample has no comm.
 */
void perf_sampler_read(struct perf_sampler *s, int timeout_ms,
		       void (*fn)(void *ctx, const struct perf_sample *sample), void *ctx);
/* The samples the kernel dropped (PERF_RECORD_LOST) so far. */
uint64_t perf_sampler_lost(const struct perf_sampler *s);
void perf_sampler_close(struct perf_sampler *s);

#endif /* _INKPROBE_USER_PERF_SAMPLER_H */
