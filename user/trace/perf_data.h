/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Reading the samples of a perf.data file (perf record's, not its pipe
 * format): the file header, the attrs section for the events' sample_type,
 * then the data section's records in order -- PERF_RECORD_SAMPLE for the
 * samples, PERF_RECORD_COMM for the names of their tasks; every other
 * record is skipped.  The file must have the host's byte order.
 */
#ifndef _INKPROBE_USER_PERF_DATA_H
#define _INKPROBE_USER_PERF_DATA_H

#include <stddef.h>
#include <stdint.h>

#include "perf_sample.h"

struct perf_data_info {
	uint64_t sample_type;
	unsigned int hz;		/* the first event's sample_freq; 0: a fixed period */
	const char *event;		/* "cpu-clock", "cycles", ... */
	uint64_t first_time, last_time;	/* of the samples */
	uint64_t samples;		/* PERF_RECORD_SAMPLE records */
	uint64_t other;			/* other records */
};

/*
 * Calls @fn for every sample of perf.data file @path, in file order, its
 * comm from the COMM records before it.  0, or -1 with the reason in @why.
 */
int perf_data_read(const char *path, void (*fn)(void *ctx, const struct perf_sample *sample),
		   void *ctx, struct perf_data_info *info, char *why, size_t why_len);

#endif /* _INKPROBE_USER_PERF_DATA_H */
