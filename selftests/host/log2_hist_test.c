// SPDX-License-Identifier: GPL-2.0
/*
 * The histogram of `inkprobe latency` (user/tool/log2_hist.c): which row a
 * duration lands in, at the edges of the rows, and the printed layout,
 * against values and text written out here by hand (bcc funclatency's
 * layout: "LOW -> HIGH : COUNT |STARS|", 40 stars for the largest row).
 */
#include <stdint.h>
#include <string.h>

#include "kselftest_harness.h"
#include "../../user/tool/log2_hist.h"

TEST(rows_at_their_edges)
{
	static const struct {
		uint64_t usecs;
		unsigned int row;
	} cases[] = {
		{ 0, 0 }, { 1, 0 }, { 2, 1 }, { 3, 1 }, { 4, 2 }, { 7, 2 }, { 8, 3 },
		{ 1023, 9 }, { 1024, 10 }, { 1025, 10 }, { 4294967295ULL, 31 },
		{ 4294967296ULL, 32 }, { UINT64_MAX, 63 },
	};
	uint64_t low, high;
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		EXPECT_EQ(cases[i].row, log2_hist_row(cases[i].usecs)) {
			TH_LOG("%llu us", (unsigned long long)cases[i].usecs);
		}
	log2_hist_bounds(0, &low, &high);
	EXPECT_EQ(0, low);
	EXPECT_EQ(1, high);
	log2_hist_bounds(1, &low, &high);
	EXPECT_EQ(2, low);
	EXPECT_EQ(3, high);
	log2_hist_bounds(10, &low, &high);
	EXPECT_EQ(1024, low);
	EXPECT_EQ(2047, high);
	log2_hist_bounds(63, &low, &high);
	EXPECT_EQ(1ULL << 63, low);
	EXPECT_EQ(UINT64_MAX, high);
}

TEST(nanoseconds_round_down_to_whole_microseconds)
{
	struct log2_hist h = { 0 };

	log2_hist_add(&h, 1999);	/* 1 us: row 0 */
	log2_hist_add(&h, 2000);	/* 2 us: row 1 */
	log2_hist_add(&h, 3999);	/* 3 us: row 1 */
	log2_hist_add(&h, 4000);	/* 4 us: row 2 */
	EXPECT_EQ(1, h.rows[0]);
	EXPECT_EQ(2, h.rows[1]);
	EXPECT_EQ(1, h.rows[2]);
	EXPECT_EQ(4, h.count);
	EXPECT_EQ(1999 + 2000 + 3999 + 4000, h.total_ns);
	EXPECT_EQ(UINT64_MAX, (log2_hist_add(&h, UINT64_MAX), h.total_ns));
}

TEST(stars)
{
	EXPECT_EQ(0, log2_hist_stars(0, 10, 40));
	EXPECT_EQ(40, log2_hist_stars(10, 10, 40));
	EXPECT_EQ(13, log2_hist_stars(1, 3, 40));	/* 13.3 */
	EXPECT_EQ(26, log2_hist_stars(2, 3, 40));	/* 26.6 */
	EXPECT_EQ(0, log2_hist_stars(1, 41, 40));	/* 0.97 */
	EXPECT_EQ(19, log2_hist_stars(UINT64_MAX / 2, UINT64_MAX, 40));	/* 19.99... */
	EXPECT_EQ(20, log2_hist_stars(1ULL << 63, UINT64_MAX, 40));	/* 20.00... */
	EXPECT_EQ(0, log2_hist_stars(5, 0, 40));
}

TEST(printed_layout)
{
	struct log2_hist h = { 0 };
	struct buf out = { 0 };
	int i;

	/* 1 call of 0 us, none of 2-3, 3 of 5 us, 2 of 9 us */
	log2_hist_add(&h, 500);
	for (i = 0; i < 3; i++)
		log2_hist_add(&h, 5000);
	log2_hist_add(&h, 9000);
	log2_hist_add(&h, 9001);
	buf_add_u8(&out, '\0');
	out.len = 0;
	log2_hist_print(&out, &h);
	buf_add_u8(&out, '\0');
	EXPECT_STREQ("     usecs               : count     distribution\n"
		     "         0 -> 1          : 1        |*************                           |\n"
		     "         2 -> 3          : 0        |                                        |\n"
		     "         4 -> 7          : 3        |****************************************|\n"
		     "         8 -> 15         : 2        |**************************              |\n"
		     "\n"
		     "count: 6\n"
		     "avg:   5.583 usecs\n"
		     "total: 33.501 usecs\n", (char *)out.data);
	buf_free(&out);
}

TEST(empty_and_wide)
{
	struct log2_hist h = { 0 };
	struct buf out = { 0 };
	const char *rows;

	log2_hist_print(&out, &h);
	buf_add_u8(&out, '\0');
	EXPECT_STREQ("     usecs               : count     distribution\n"
		     "\n"
		     "count: 0\n"
		     "avg:   0.000 usecs\n"
		     "total: 0.000 usecs\n", (char *)out.data);
	out.len = 0;
	/* 2^32 us: row 32, every row 20 digits wide and 20 stars */
	log2_hist_add(&h, 4294967296000ULL);
	log2_hist_print(&out, &h);
	buf_add_u8(&out, '\0');
	rows = (char *)out.data;
	EXPECT_EQ(0, strncmp(rows, "               usecs                         : count     "
				   "distribution\n"
				   "                   0 -> 1                    : 0        "
				   "|                    |\n", 149)) {
		TH_LOG("%s", rows);
	}
	EXPECT_NE(NULL, strstr(rows, "          4294967296 -> 8589934591           : 1        "
				     "|********************|\n")) {
		TH_LOG("%s", rows);
	}
	buf_free(&out);
}

TEST_HARNESS_MAIN
