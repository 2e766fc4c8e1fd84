/* SPDX-License-Identifier: GPL-2.0 */
/*
 * One PERF_RECORD_SAMPLE, as perf_event_open's ring (perf_sampler.c) and a
 * perf.data file (perf_data.c) both hold it: its fields are laid out in the
 * order of the bits of the event's sample_type (include/uapi/linux/
 * perf_event.h, "PERF_RECORD_SAMPLE"); this reads the ones a profile needs.
 */
#ifndef _INKPROBE_USER_PERF_SAMPLE_H
#define _INKPROBE_USER_PERF_SAMPLE_H

#include <stddef.h>
#include <stdint.h>

struct perf_sample {
	uint32_t pid, tid, cpu;
	uint64_t time, period;
	const char *comm;	/* the task's name; NULL: not known */
	const uint64_t *chain;	/* the callchain as recorded, PERF_CONTEXT_* markers included */
	uint32_t nr;		/* entries of @chain */
};

/*
 * Reads the sample whose body (after its perf_event_header) is @body, @len
 * bytes, made with @sample_type and @read_format.  @out->chain points into
 * @body.  0, or -1 if the record is cut short.
 */
int perf_sample_parse(const void *body, size_t len, uint64_t sample_type, uint64_t read_format,
		      struct perf_sample *out);

#endif /* _INKPROBE_USER_PERF_SAMPLE_H */
