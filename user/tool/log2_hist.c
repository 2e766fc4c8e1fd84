// SPDX-License-Identifier: GPL-2.0
/* A power-of-two histogram of durations (log2_hist.h). */
#include <stdio.h>
#include <string.h>

#include "log2_hist.h"

unsigned int log2_hist_row(uint64_t usecs)
{
	unsigned int row = 0;

	while (row < 63 && usecs >> (row + 1))
		row++;
	return row;
}

void log2_hist_bounds(unsigned int row, uint64_t *low, uint64_t *high)
{
	*low = row ? 1ULL << row : 0;
	*high = row >= 63 ? UINT64_MAX : (1ULL << (row + 1)) - 1;
}

unsigned int log2_hist_stars(uint64_t val, uint64_t max, unsigned int width)
{
	if (!max || !val)
		return 0;
	if (val >= max)
		return width;
	/* val < max: the product needs no more than 64 + log2(width) bits */
	return (unsigned int)((unsigned __int128)val * width / max);
}

void log2_hist_add(struct log2_hist *h, uint64_t ns)
{
	h->rows[log2_hist_row(ns / 1000)]++;
	h->count++;
	h->total_ns = h->total_ns > UINT64_MAX - ns ? UINT64_MAX : h->total_ns + ns;
}

/* @ns as microseconds with three decimals. */
static void put_usecs(struct buf *out, uint64_t ns)
{
	char tmp[48];

	snprintf(tmp, sizeof(tmp), "%llu.%03llu usecs", (unsigned long long)(ns / 1000),
		 (unsigned long long)(ns % 1000));
	buf_add(out, tmp, strlen(tmp));
}

void log2_hist_print(struct buf *out, const struct log2_hist *h)
{
	char line[160], stars[LOG2_HIST_STARS + 1];
	unsigned int row, last = 0, width, n;
	uint64_t max = 0, low, high;
	bool wide;

	for (row = 0; row < LOG2_HIST_ROWS; row++) {
		if (!h->rows[row])
			continue;
		last = row;
		if (h->rows[row] > max)
			max = h->rows[row];
	}
	wide = last >= 32;	/* row 31 ends at 2^32 - 1 (10 digits), row 32 starts at 2^32 */
	width = wide ? LOG2_HIST_STARS / 2 : LOG2_HIST_STARS;
	snprintf(line, sizeof(line), wide ? "%15s%-29s : count     distribution\n" :
		 "%5s%-19s : count     distribution\n", "", "usecs");
	buf_add(out, line, strlen(line));
	for (row = 0; max && row <= last; row++) {
		log2_hist_bounds(row, &low, &high);
		n = log2_hist_stars(h->rows[row], max, width);
		memset(stars, '*', n);
		stars[n] = '\0';
		snprintf(line, sizeof(line), wide ? "%20llu -> %-20llu : %-8llu |%-*s|\n" :
			 "%10llu -> %-10llu : %-8llu |%-*s|\n", (unsigned long long)low,
			 (unsigned long long)high, (unsigned long long)h->rows[row], (int)width,
			 stars);
		buf_add(out, line, strlen(line));
	}
	snprintf(line, sizeof(line), "\ncount: %llu\navg:   ", (unsigned long long)h->count);
	buf_add(out, line, strlen(line));
	put_usecs(out, h->count ? h->total_ns / h->count : 0);
	buf_add(out, "\ntotal: ", 8);
	put_usecs(out, h->total_ns);
	buf_add_u8(out, '\n');
}
