/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A power-of-two histogram of durations, printed in the layout of bcc's
 * funclatency (and bpftrace's hist()): a row per power of two of the
 * duration in microseconds, "LOW -> HIGH : COUNT |STARS|", then the count,
 * the average and the total.  Pure: no I/O but into a buffer.
 *
 * Rows: row 0 holds 0 and 1 us, row K (K >= 1) holds [2^K, 2^(K+1) - 1] us;
 * a duration counts in whole microseconds, rounded down (1999 ns is 1 us).
 */
#ifndef _INKPROBE_USER_LOG2_HIST_H
#define _INKPROBE_USER_LOG2_HIST_H

#include <stdint.h>

#include "../common/util.h"

#define LOG2_HIST_ROWS		64
#define LOG2_HIST_STARS		40	/* the width of the distribution, 20 in wide rows */

struct log2_hist {
	uint64_t rows[LOG2_HIST_ROWS];
	uint64_t count;
	uint64_t total_ns;	/* saturates at UINT64_MAX */
};

/* The row of a duration of @usecs microseconds. */
unsigned int log2_hist_row(uint64_t usecs);
/* The first and last microsecond value of row @row. */
void log2_hist_bounds(unsigned int row, uint64_t *low, uint64_t *high);
/* How many stars a row of @val gets when the largest row has @max: @width * @val / @max. */
unsigned int log2_hist_stars(uint64_t val, uint64_t max, unsigned int width);

/* Counts a call of @ns nanoseconds. */
void log2_hist_add(struct log2_hist *h, uint64_t ns);

/*
 * Appends the histogram: the header, rows 0 to the last that is not empty
 * (none when it is empty), then
 *   count: N
 *   avg:   U.UUU usecs
 *   total: U.UUU usecs
 * Rows whose bound is 2^32 or more make every row wide (20 digits, 20 stars).
 */
void log2_hist_print(struct buf *out, const struct log2_hist *h);

#endif /* _INKPROBE_USER_LOG2_HIST_H */
