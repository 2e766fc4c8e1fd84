// SPDX-License-Identifier: GPL-2.0
/*
 * Compressed blobs on the host, under ASan/UBSan: gen's default output is
 * one zstd frame (content size, checksum) whose content is, byte for byte,
 * what gen --raw writes; --stats gives both sizes; dump prints the same
 * for both forms.  The tool's reader (user/common/blob_zstd.c) refuses every cut
 * of the frame, data after it, a second or skippable frame, a missing,
 * lying or out-of-range content size, a frame longer than zstd's bound,
 * and bit flips in its header, block headers and checksum, with the
 * messages the kernel logs; dump says them.
 */
#include <sys/wait.h>

#include "kselftest_harness.h"
#include "host_test.h"
#include "../../user/common/blob_zstd.h"
#include "../zstd_craft.h"

static const char *top(void)
{
	return host_env("INKPROBE_TOP", ".");
}

/* What gen writes for the first kernel's target: both forms, once per run. */
static const char *out_path(const char *name)
{
	static char path[4][1024];
	static int i;

	i = (i + 1) % 4;
	snprintf(path[i], sizeof(path[i]), "%s/build/check/compressed-%s", top(), name);
	return path[i];
}

/* "--base-btf VMLINUX" and, for gen, the target's .ko, or, for dump, "--module-btf" it. */
static const char *tool_args(bool gen)
{
	static char args[2][2048];

	snprintf(args[gen], sizeof(args[gen]),
		 "--base-btf %s/kernels/%s/build/vmlinux %s %s/build/%s/kmod/inkprobe_target.ko",
		 host_env("INKPROBE_CACHE", "/root/.cache/inkprobe"), host_kernel(),
		 gen ? "" : "--module-btf", top(), host_kernel());
	return args[gen];
}

#define gen_args()	tool_args(true)
#define dump_args()	tool_args(false)

/* Runs @cmd (through sh) with stdout and stderr into @out; returns its exit status. */
static int run(const char *cmd, char *out, size_t size)
{
	FILE *f = popen(cmd, "r");
	size_t len = 0, n;
	int st;

	if (!f)
		return -1;
	while (len + 1 < size && (n = fread(out + len, 1, size - 1 - len, f)) > 0)
		len += n;
	out[len] = '\0';
	while (fgetc(f) != EOF)
		;
	st = pclose(f);
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

FIXTURE(frame) {
	uint8_t *raw, *frame;
	uint32_t raw_len, frame_len;
	char stats[8192], raw_stats[8192];
};

FIXTURE_SETUP(frame)
{
	char cmd[4096];

	snprintf(cmd, sizeof(cmd), "%s/build/inkprobe-san gen --stats -o %s %s 2>&1", top(),
		 out_path("default.inkb"), gen_args());
	ASSERT_EQ(0, run(cmd, self->stats, sizeof(self->stats))) {
		TH_LOG("%s", self->stats);
	}
	snprintf(cmd, sizeof(cmd), "%s/build/inkprobe-san gen --raw --stats -o %s %s 2>&1",
		 top(), out_path("raw.inkb"), gen_args());
	ASSERT_EQ(0, run(cmd, self->raw_stats, sizeof(self->raw_stats))) {
		TH_LOG("%s", self->raw_stats);
	}
	self->frame = read_file(out_path("default.inkb"), &self->frame_len);
	self->raw = read_file(out_path("raw.inkb"), &self->raw_len);
}

FIXTURE_TEARDOWN(frame)
{
	free(self->frame);
	free(self->raw);
}

TEST_F(frame, default_is_one_frame_around_the_raw_blob)
{
	ZSTD_frameHeader fh;
	uint8_t *content = malloc(self->raw_len), *mine;
	uint32_t mine_len = 0;
	char why[160];

	ASSERT_TRUE(blob_is_zstd(self->frame, self->frame_len));
	ASSERT_FALSE(blob_is_zstd(self->raw, self->raw_len));
	EXPECT_EQ(INKPROBE_BLOB_MAGIC, *(uint32_t *)self->raw);
	ASSERT_EQ(0, ZSTD_getFrameHeader(&fh, self->frame, self->frame_len));
	EXPECT_EQ(ZSTD_frame, fh.frameType);
	EXPECT_EQ(self->raw_len, fh.frameContentSize);
	EXPECT_EQ(1, fh.checksumFlag);
	EXPECT_EQ(0, fh.dictID);
	EXPECT_EQ(self->frame_len, ZSTD_findFrameCompressedSize(self->frame, self->frame_len));
	EXPECT_LT(self->frame_len, self->raw_len);
	/* libzstd itself, and the tool's reader */
	ASSERT_EQ(self->raw_len, ZSTD_decompress(content, self->raw_len, self->frame,
						 self->frame_len));
	EXPECT_EQ(0, memcmp(content, self->raw, self->raw_len));
	mine = blob_zstd_decompress(self->frame, self->frame_len, &mine_len, why, sizeof(why));
	ASSERT_NE(NULL, mine) {
		TH_LOG("%s", why);
	}
	ASSERT_EQ(self->raw_len, mine_len);
	EXPECT_EQ(0, memcmp(mine, self->raw, self->raw_len));
	free(mine);
	free(content);
}

TEST_F(frame, stats_give_both_sizes)
{
	char want[128];

	snprintf(want, sizeof(want), "\nblob: %u bytes:", self->raw_len);
	EXPECT_NE(NULL, strstr(self->stats, want));
	EXPECT_NE(NULL, strstr(self->raw_stats, want));
	snprintf(want, sizeof(want), "\nfile: %u bytes (zstd level 3: ", self->frame_len);
	EXPECT_NE(NULL, strstr(self->stats, want)) {
		TH_LOG("%s", self->stats);
	}
	snprintf(want, sizeof(want), "\nfile: %u bytes (raw blob)\n", self->raw_len);
	EXPECT_NE(NULL, strstr(self->raw_stats, want)) {
		TH_LOG("%s", self->raw_stats);
	}
}

TEST_F(frame, dump_is_the_same_for_both_forms)
{
	static char a[1 << 16], b[1 << 16];
	char cmd[4096];

	snprintf(cmd, sizeof(cmd), "%s/build/inkprobe-san dump --ranges %s %s 2>&1", top(),
		 dump_args(), out_path("default.inkb"));
	ASSERT_EQ(0, run(cmd, a, sizeof(a))) {
		TH_LOG("%s", a);
	}
	snprintf(cmd, sizeof(cmd), "%s/build/inkprobe-san dump --ranges %s %s 2>&1", top(),
		 dump_args(), out_path("raw.inkb"));
	ASSERT_EQ(0, run(cmd, b, sizeof(b)));
	EXPECT_NE(NULL, strstr(a, "p:inline/tgt_mix "));
	EXPECT_STREQ(a, b);
}

/* The reader refuses @data with exactly "@want" (prefix "@want" when it ends in ':'). */
static int refused(struct __test_metadata *_metadata, const uint8_t *data, size_t len,
		   const char *want, const char *what)
{
	uint32_t out_len;
	uint8_t *out;
	char why[160];

	out = blob_zstd_decompress(data, (uint32_t)len, &out_len, why, sizeof(why));
	if (out) {
		TH_LOG("%s: accepted", what);
		free(out);
		return 1;
	}
	if (want[strlen(want) - 1] == ':' ? strncmp(why, want, strlen(want)) : strcmp(why, want)) {
		TH_LOG("%s: '%s', expected '%s'", what, why, want);
		return 1;
	}
	return 0;
}

TEST_F(frame, every_truncation_refused)
{
	char want[80];
	uint32_t n;
	int wrong = 0;

	for (n = 4; n < self->frame_len; n++) {
		snprintf(want, sizeof(want), "zstd frame truncated (%u bytes)", n);
		wrong += refused(_metadata, self->frame, n, want, "truncation");
	}
	EXPECT_EQ(0, wrong);
}

TEST_F(frame, crafted_frames_refused)
{
	const uint32_t max = INKPROBE_BLOB_MAX_LEN;
	static const uint64_t bad_sizes[] = { 0, 1, 15 };
	size_t len, len2;
	uint32_t d_len = 0;
	uint8_t *c, *d;
	char want[160];
	int wrong = 0, n = 0;
	unsigned int i;

	/* data after the frame: a byte, garbage, the frame again, a skippable frame */
	c = craft_cat(self->frame, self->frame_len, (const uint8_t *)"x", 1, &len);
	wrong += refused(_metadata, c, len, "data after the zstd frame", "a byte after"), n++;
	free(c);
	d = calloc(1, 4096);
	c = craft_cat(self->frame, self->frame_len, d, 4096, &len);
	wrong += refused(_metadata, c, len, "data after the zstd frame", "zeroes after"), n++;
	free(c);
	free(d);
	c = craft_cat(self->frame, self->frame_len, self->frame, self->frame_len, &len);
	wrong += refused(_metadata, c, len, "data after the zstd frame", "two frames"), n++;
	free(c);
	d = craft_skippable(16, &len2);
	c = craft_cat(self->frame, self->frame_len, d, len2, &len);
	wrong += refused(_metadata, c, len, "data after the zstd frame", "skippable after"), n++;
	free(c);
	free(d);

	/* content size: missing, lying, out of range */
	c = craft_compress(self->raw, self->raw_len, false, &len);
	ASSERT_NE(NULL, c);
	wrong += refused(_metadata, c, len, "zstd frame without a content size", "no size"), n++;
	free(c);
	for (i = 0; i < 5; i++) {
		const uint64_t lie[] = {
			self->raw_len + 1, self->raw_len - 1, self->raw_len + 4096,
			2 * self->raw_len, self->raw_len - 100,
		};

		c = craft_content_size(self->frame, self->frame_len, lie[i], &len);
		ASSERT_NE(NULL, c);
		wrong += refused(_metadata, c, len, "zstd frame:", "lying size"), n++;
		free(c);
	}
	c = craft_content_size(self->frame, self->frame_len, self->raw_len, &len);
	d = blob_zstd_decompress(c, (uint32_t)len, &d_len, want, sizeof(want));
	EXPECT_NE(NULL, d);	/* the surgery alone keeps it valid */
	EXPECT_EQ(self->raw_len, d_len);
	free(d);
	free(c);
	for (i = 0; i < 5; i++) {
		uint64_t size = i < 3 ? bad_sizes[i] : (uint64_t)max + 1 + (i == 4 ? 1ULL << 40 : 0);

		c = craft_content_size(self->frame, self->frame_len, size, &len);
		snprintf(want, sizeof(want),
			 "zstd frame content size %llu out of range (16 to %u bytes)",
			 (unsigned long long)size, max);
		wrong += refused(_metadata, c, len, want, "size out of range"), n++;
		free(c);
	}

	/* valid, but longer than zstd's bound */
	c = craft_too_long(self->raw, self->raw_len, &len);
	d = malloc(self->raw_len);
	EXPECT_EQ(self->raw_len, ZSTD_decompress(d, self->raw_len, c, len));	/* valid zstd */
	EXPECT_EQ(0, memcmp(d, self->raw, self->raw_len));
	free(d);
	snprintf(want, sizeof(want), "zstd frame longer than its content size allows (%zu bytes)",
		 (size_t)ZSTD_COMPRESSBOUND(self->raw_len));
	wrong += refused(_metadata, c, len, want, "too long"), n++;
	free(c);

	/* a dictionary, a reserved bit */
	c = malloc(self->frame_len + 1);
	memcpy(c, self->frame, 5);
	c[4] |= 1;		/* Dictionary_ID_Flag: 1 byte */
	len = 5;
	if (!(self->frame[4] & 0x20))
		c[len++] = self->frame[5];
	c[len++] = 7;
	memcpy(c + len, self->frame + len - 1, self->frame_len - (len - 1));
	len = self->frame_len + 1;
	wrong += refused(_metadata, c, len, "zstd frame:", "dictionary"), n++;
	memcpy(c, self->frame, self->frame_len);
	c[4] |= 0x08;		/* Reserved_Bit */
	wrong += refused(_metadata, c, self->frame_len, "zstd frame:", "reserved bit"), n++;
	free(c);
	TH_LOG("%d crafted frames refused", n);
	EXPECT_EQ(0, wrong);
}

/*
 * Every bit of the header, of each block header and of the checksum, in a
 * frame of many blocks (one per 512 bytes of the blob).
 */
TEST_F(frame, bit_flips_refused_or_harmless)
{
	size_t offs[64], at[256], checksum, nat = 0, i, len;
	uint8_t *frame = craft_compress_blocks(self->raw, self->raw_len, 512, &len);
	int nb = craft_blocks(frame, len, offs, 64, &checksum), b, bit;
	unsigned int flips = 0, harmless = 0, wrong = 0;
	ZSTD_frameHeader fh;

	ASSERT_LT(5, nb);
	ASSERT_NE(0, checksum);
	ASSERT_EQ(0, ZSTD_getFrameHeader(&fh, frame, len));
	ASSERT_EQ(self->raw_len, fh.frameContentSize);
	for (i = 0; i < fh.headerSize; i++)
		at[nat++] = i;
	for (b = 0; b < nb && nat + 3 < 252; b++)
		for (i = 0; i < 3; i++)
			at[nat++] = offs[b] + i;
	for (i = 0; i < 4; i++)
		at[nat++] = checksum + i;
	for (i = 0; i < nat; i++) {
		for (bit = 0; bit < 8; bit++) {
			uint8_t *c = malloc(len), *out;
			uint32_t out_len = 0;
			char why[160] = "";

			memcpy(c, frame, len);
			c[at[i]] ^= (uint8_t)(1 << bit);
			out = blob_zstd_decompress(c, len, &out_len, why, sizeof(why));
			if (out) {	/* e.g. the unused bit: the same content */
				harmless++;
				if (out_len != self->raw_len || memcmp(out, self->raw, out_len)) {
					TH_LOG("flip at %zu bit %d: other content accepted", at[i], bit);
					wrong++;
				}
			} else if (!*why) {
				TH_LOG("flip at %zu bit %d: refused without a reason", at[i], bit);
				wrong++;
			}
			free(out);
			free(c);
			flips++;
		}
	}
	TH_LOG("%u flips in the header, %d block headers and the checksum: %u harmless", flips,
	       nb, harmless);
	EXPECT_EQ(0, wrong);
	EXPECT_GT(flips / 2, harmless);
	free(frame);
}

/* The tool says why, naming the file. */
TEST_F(frame, dump_says_why)
{
	static const struct {
		const char *name;
		size_t cut;		/* 0: whole */
		const char *tail;	/* appended */
		bool no_size, not_a_blob;
		const char *msg;
	} cases[] = {
		{ "cut.inkb", 1000, NULL, false, false, "invalid blob: zstd frame truncated (1000 bytes)" },
		{ "tail.inkb", 0, "garbage\n", false, false, "invalid blob: data after the zstd frame" },
		{ "nosize.inkb", 0, NULL, true, false, "invalid blob: zstd frame without a content size" },
		{ "text.inkb", 0, NULL, false, true, "invalid blob: not an inkprobe blob (bad magic) at byte 0" },
	};
	char cmd[4096], out[4096], want[1200];
	unsigned int i;

	ASSERT_LT(1000, self->frame_len);
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const char *path = out_path(cases[i].name);
		FILE *f = fopen(path, "wb");
		uint8_t *c = NULL;
		size_t len = self->frame_len;
		const uint8_t *data = self->frame;

		ASSERT_NE(NULL, f);
		if (cases[i].no_size || cases[i].not_a_blob) {
			static const char text[] = "Not a blob, but a valid zstd frame.\n";

			c = cases[i].no_size ? craft_compress(self->raw, self->raw_len, false, &len) :
					       craft_compress(text, sizeof(text), true, &len);
			data = c;
		}
		if (cases[i].cut)
			len = cases[i].cut;
		fwrite(data, 1, len, f);
		if (cases[i].tail)
			fputs(cases[i].tail, f);
		fclose(f);
		free(c);
		snprintf(cmd, sizeof(cmd), "%s/build/inkprobe-san dump %s %s 2>&1", top(),
			 dump_args(), path);
		EXPECT_EQ(1, run(cmd, out, sizeof(out)));
		snprintf(want, sizeof(want), "inkprobe: %s: %s\n", path, cases[i].msg);
		EXPECT_STREQ(want, out);
	}
}

TEST_HARNESS_MAIN
