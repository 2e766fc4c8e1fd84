// SPDX-License-Identifier: GPL-2.0
/*
 * Compressed blobs in the kernel.  The target's blob as gen writes it by
 * default, one zstd frame, loads and probes exactly like the raw one
 * (gen --raw), written at once or in pieces.  Malformed frames are all
 * refused with EINVAL and an error in error_log, never a crash or a warning
 * (the runner checks the kernel log): every cut of the frame, bit flips in
 * its header, block headers and checksum, lying, missing and out-of-range
 * content sizes, a frame longer than zstd's bound, data, a second frame or
 * a skippable frame after it, valid frames whose content is not a blob.
 * Two threads writing to one open file at once cannot upset it either.
 *
 * The oracle is the tool's reader (user/common/blob_zstd.c, on the host's
 * libzstd, which the guest sees) for the frame, and for its content the
 * model of blob_model.c (Documentation/blob-format.rst read apart from the
 * validator the module links): the kernel must log exactly what they say,
 * except that zstd's own error names may differ between the kernel's zstd
 * and libzstd, and that the kernel's zstd may refuse as corrupt a frame
 * from which libzstd decodes exactly the original blob: a flipped bit that
 * one decoder checks and the other does not (sid's kernel zstd and Debian
 * 12's libzstd 1.5.4 differ there).  Such refusals are logged and counted.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "guest_util.h"
#include "blob_model.h"
#include "../../lib/compat.h"
#include "../../uapi/inkprobe.h"
#include "../../user/common/blob_zstd.h"
#include "../zstd_craft.h"

#define GROUP	"zst"
#define PROBE	"p:" GROUP "/tgt_mix tgt_mix reg konst obj weight=obj->weight"

/*
 * The running kernel's BTF, read once before the harness forks a process
 * per test: the model's reading of its 5 MB takes seconds under TCG.
 */
static void __attribute__((constructor)) read_kernel_btf(void)
{
	model_running_kernel();
}

FIXTURE(zstd) {
	u8 *raw, *frame;
	size_t raw_len, frame_len;
};

/*
 * The test's original raw blob (set up per test: the harness forks each),
 * and the frames the kernel's zstd refused while libzstd decoded exactly it.
 */
static const u8 *original;
static size_t original_len;
static unsigned int kernel_stricter;

FIXTURE_SETUP(zstd)
{
	u8 *content;
	u32 len = 0;
	char why[160];

	ASSERT_EQ(0, setup_target());
	ASSERT_EQ(0, clear_probes());
	ASSERT_NE(NULL, model_running_kernel());
	self->raw = (u8 *)read_file(blob_path("inkprobe_target.raw.inkb"), &self->raw_len);
	self->frame = (u8 *)read_file(blob_path("inkprobe_target.inkb"), &self->frame_len);
	ASSERT_NE(NULL, self->raw);
	ASSERT_NE(NULL, self->frame);
	ASSERT_FALSE(blob_is_zstd(self->raw, self->raw_len));
	ASSERT_TRUE(blob_is_zstd(self->frame, self->frame_len));
	content = blob_zstd_decompress(self->frame, self->frame_len, &len, why, sizeof(why));
	ASSERT_NE(NULL, content) TH_LOG("%s", why);
	ASSERT_EQ(self->raw_len, len);
	ASSERT_EQ(0, memcmp(content, self->raw, len));
	free(content);
	ASSERT_STREQ("", model_verdict(self->raw, self->raw_len, model_running_kernel()));
	original = self->raw;
	original_len = self->raw_len;
	drain_events();
}

FIXTURE_TEARDOWN(zstd)
{
	clear_probes();
	free(self->raw);
	free(self->frame);
}

/* @len bytes to the blob file in write()s of @piece bytes; 0 or the first -errno. */
static int write_pieces(const u8 *data, size_t len, size_t piece)
{
	int fd = open(INK_DIR "/blob", O_WRONLY), err = 0;
	size_t done = 0;

	if (fd < 0)
		return -errno;
	while (done < len && !err) {
		size_t n = len - done < piece ? len - done : piece;
		ssize_t w = write(fd, data + done, n);

		if (w < 0)
			err = -errno;
		else if ((size_t)w != n)
			err = -EIO;
		else
			done += (size_t)w;
	}
	if (close(fd) && !err)
		err = -errno;
	return err;
}

/* The kprobes on the target's callers, as listed (malloc'd). */
static char *target_kprobes(void)
{
	char *all = read_file(KPROBES_LIST, NULL), *line, *save = NULL, *out;
	size_t len = 0;

	if (!all)
		return NULL;
	out = calloc(1, strlen(all) + 1);
	for (line = strtok_r(all, "\n", &save); line; line = strtok_r(NULL, "\n", &save))
		if (strstr(line, "tgt_caller_"))
			len += sprintf(out + len, "%s\n", line);
	free(all);
	return out;
}

TEST_F(zstd, loads_and_probes_like_raw)
{
	static const size_t pieces[] = { 0, 1, 7, 4096 };	/* 0: all at once */
	unsigned long long seed = (unsigned long long)time(NULL) ^ getpid();
	char first[512] = "", scenario[96], *sites = NULL, *now;
	unsigned int form, i;

	srandom((unsigned int)seed);
	TH_LOG("seed %llu", seed);
	for (form = 0; form < 2; form++) {
		const u8 *data = form ? self->frame : self->raw;
		size_t len = form ? self->frame_len : self->raw_len;

		for (i = 0; i < sizeof(pieces) / sizeof(pieces[0]); i++) {
			write_file(INK_DIR "/blobs", "-inkprobe_target", false);
			ASSERT_STREQ("", target_blob_line());
			ASSERT_EQ(0, write_pieces(data, len, pieces[i] ? pieces[i] : len)) {
				TH_LOG("%s in pieces of %zu: %s", form ? "compressed" : "raw",
				       pieces[i], last_error());
			}
			if (!*first)
				snprintf(first, sizeof(first), "%s", target_blob_line());
			EXPECT_STREQ(first, target_blob_line());
		}
		/* the same probes, the same values */
		ASSERT_EQ(0, probes_cmd(PROBE, false)) TH_LOG("%s", last_error());
		ASSERT_EQ(0, events_enable(GROUP));
		now = target_kprobes();
		ASSERT_NE(NULL, now);
		EXPECT_EQ(2, count_kprobes("tgt_caller_"));
		if (sites)
			EXPECT_STREQ(sites, now);
		free(sites);
		sites = now;
		snprintf(scenario, sizeof(scenario), "mix %ld %ld %ld", random(), random(),
			 random());
		EXPECT_EQ(0, check_scenario(scenario, GROUP, 2000)) TH_LOG("%s", scenario);
		ASSERT_EQ(0, clear_probes());
	}
	free(sites);
	EXPECT_NE(NULL, strstr(first, " live ")) TH_LOG("%s", first);
}

struct sharer {
	int fd;
	const u8 *data;
	size_t len;
};

/* The whole blob to the shared file, in writes of 37 bytes, errors ignored. */
static void *share_writes(void *arg)
{
	const struct sharer *sh = arg;
	size_t done, n;

	for (done = 0; done < sh->len; done += n) {
		n = sh->len - done < 37 ? sh->len - done : 37;
		if (write(sh->fd, sh->data + done, n) < 0 && errno != EINVAL)
			break;
	}
	return NULL;
}

/*
 * Two threads writing the blob to one open file at once: the bytes arrive
 * interleaved, and whatever the kernel makes of them, it must not fall
 * over (the runner checks the kernel log); the blob loads afterwards.
 */
TEST_F(zstd, writers_sharing_one_file)
{
	pthread_t t[2];
	struct sharer sh;
	int form, round, i;

	for (form = 0; form < 2; form++) {
		sh.data = form ? self->frame : self->raw;
		sh.len = form ? self->frame_len : self->raw_len;
		for (round = 0; round < 20; round++) {
			sh.fd = open(INK_DIR "/blob", O_WRONLY);
			ASSERT_LE(0, sh.fd);
			for (i = 0; i < 2; i++)
				ASSERT_EQ(0, pthread_create(&t[i], NULL, share_writes, &sh));
			for (i = 0; i < 2; i++)
				pthread_join(t[i], NULL);
			close(sh.fd);
		}
	}
	EXPECT_EQ(0, load_blob(blob_path("inkprobe_target.inkb")));
	EXPECT_NE(NULL, strstr(target_blob_line(), " live ")) TH_LOG("%s", target_blob_line());
}

/*
 * What the kernel must log for @data written in one write() and closed:
 * "" when it must load it.  *@zstd_error: zstd's own error name follows
 * "invalid blob: zstd frame: ", which may differ in the kernel.
 * *@as_original: libzstd decoded exactly the test's original blob.
 */
static const char *oracle(const u8 *data, size_t len, bool *zstd_error, bool *as_original)
{
	static char msg[256];
	u32 clen = 0;
	char why[160];
	u8 *content;

	*zstd_error = false;
	*as_original = false;
	if (len < 4 || !blob_is_zstd(data, len)) {	/* the raw path: only these here */
		/* a zstd magic's first bytes, or a raw header's, wait for more */
		if ((len < 4 && !memcmp(data, "\x28\xb5\x2f\xfd", len)) ||
		    (len < 16 && !*model_prefix(data, len)))
			snprintf(msg, sizeof(msg), "invalid blob: truncated (%zu of 16 bytes)", len);
		else if (*model_prefix(data, len < 4 ? len : 4))
			snprintf(msg, sizeof(msg),
				 "invalid blob: not an inkprobe blob (bad magic) at byte 0");
		else
			snprintf(msg, sizeof(msg), "(a raw blob: not a case of this test)");
		return msg;
	}
	content = blob_zstd_decompress(data, (u32)len, &clen, why, sizeof(why));
	if (!content) {
		snprintf(msg, sizeof(msg), "invalid blob: %s", why);
		*zstd_error = !strncmp(why, "zstd frame: ", 12);
		return msg;
	}
	*as_original = original && clen == original_len && !memcmp(content, original, clen);
	snprintf(msg, sizeof(msg), "%s", model_verdict(content, clen, model_running_kernel()));
	free(content);
	return msg;
}

/*
 * Writes @data and checks the kernel against the oracle: a refusal with
 * EINVAL and its message as the only new error_log entry, or a load.
 * Returns 1 when they disagree; counts refusals in *@refused.
 */
static int try_blob(struct __test_metadata *_metadata, const u8 *data, size_t len,
		    const char *what, unsigned int *refused)
{
	bool zstd_error, as_original;
	const char *want = oracle(data, len, &zstd_error, &as_original);
	char want_copy[256], got[512];
	int ret;

	snprintf(want_copy, sizeof(want_copy), "%s", want);
	if (clear_errors()) {
		TH_LOG("cannot clear error_log");
		return 1;
	}
	ret = write_bytes(INK_DIR "/blob", data, len);
	snprintf(got, sizeof(got), "%s", last_error());
	if (!*want_copy) {
		if (ret == -EINVAL && as_original &&
		    !strncmp(got, "invalid blob: zstd frame: ", 26)) {
			TH_LOG("%s: refused by the kernel's zstd ('%s'); libzstd decodes the "
			       "original blob from it", what, got);
			kernel_stricter++;
			(*refused)++;
			return 0;
		}
		if (ret) {
			TH_LOG("%s: refused (%d, '%s'), the tool loads it", what, ret, got);
			return 1;
		}
		return 0;
	}
	(*refused)++;
	if (!ret) {
		TH_LOG("%s: loaded, the tool says '%s'", what, want_copy);
		return 1;
	}
	if (ret != -EINVAL) {
		TH_LOG("%s: error %d, not EINVAL ('%s')", what, ret, got);
		return 1;
	}
	if (zstd_error ? strncmp(got, "invalid blob: zstd frame: ", 26) : strcmp(got, want_copy)) {
		TH_LOG("%s: kernel '%s', tool '%s'", what, got, want_copy);
		return 1;
	}
	return 0;
}

TEST_F_TIMEOUT(zstd, every_truncation_refused, 300)
{
	unsigned int refused = 0, wrong = 0;
	size_t n;
	char what[64];

	for (n = 1; n < self->frame_len; n++) {
		snprintf(what, sizeof(what), "first %zu bytes", n);
		wrong += try_blob(_metadata, self->frame, n, what, &refused);
	}
	TH_LOG("%u cut frames refused", refused);
	EXPECT_EQ(0, wrong);
	EXPECT_EQ(self->frame_len - 1, refused);
	EXPECT_EQ(0, load_blob(blob_path("inkprobe_target.inkb")));
}

/*
 * Every bit of the header, of every block header and of the checksum, in
 * gen's frame and in one of many blocks (one per 512 bytes of the blob);
 * and random flips anywhere in gen's frame.
 */
TEST_F_TIMEOUT(zstd, bit_flips_refused_or_harmless, 300)
{
	unsigned int refused = 0, wrong = 0, flips = 0, k, i;
	size_t multi_len, len, at[256], offs[64], checksum, nat, j;
	u8 *multi = craft_compress_blocks(self->raw, self->raw_len, 512, &multi_len);
	ZSTD_frameHeader fh;
	char what[80];
	int nb, b, bit;

	ASSERT_NE(NULL, multi);
	for (k = 0; k < 2; k++) {
		const u8 *frame = k ? multi : self->frame;

		len = k ? multi_len : self->frame_len;
		nb = craft_blocks(frame, len, offs, 64, &checksum);
		ASSERT_LT(0, nb);
		ASSERT_NE(0, checksum);
		ASSERT_EQ(0, ZSTD_getFrameHeader(&fh, frame, len));
		nat = 0;
		for (j = 0; j < fh.headerSize; j++)
			at[nat++] = j;
		for (b = 0; b < nb && nat + 3 < 252; b++)
			for (j = 0; j < 3; j++)
				at[nat++] = offs[b] + j;
		for (j = 0; j < 4; j++)
			at[nat++] = checksum + j;
		TH_LOG("%s frame: %d blocks", k ? "many-block" : "gen's", nb);
		for (j = 0; j < nat; j++) {
			for (bit = 0; bit < 8; bit++) {
				u8 *c = malloc(len);

				memcpy(c, frame, len);
				c[at[j]] ^= (u8)(1 << bit);
				snprintf(what, sizeof(what), "%s frame, flip of byte %zu bit %d",
					 k ? "many-block" : "gen's", at[j], bit);
				wrong += try_blob(_metadata, c, len, what, &refused);
				free(c);
				flips++;
			}
		}
	}
	srandom(20261123);
	for (i = 0; i < 500; i++) {
		u8 *c = malloc(self->frame_len);

		memcpy(c, self->frame, self->frame_len);
		j = (size_t)random() % self->frame_len;
		bit = (int)(random() % 8);
		c[j] ^= (u8)(1 << bit);
		snprintf(what, sizeof(what), "random flip of byte %zu bit %d", j, bit);
		wrong += try_blob(_metadata, c, self->frame_len, what, &refused);
		free(c);
		flips++;
	}
	TH_LOG("%u flips: %u refused (%u by the kernel's zstd alone), %u harmless (loaded, the "
	       "same content)", flips, refused, kernel_stricter, flips - refused);
	EXPECT_EQ(0, wrong);
	EXPECT_LE(flips * 9 / 10, refused);
	free(multi);
	EXPECT_EQ(0, load_blob(blob_path("inkprobe_target.inkb")));
	EXPECT_STREQ("", model_verdict(self->raw, self->raw_len, model_running_kernel()));
}

/* One crafted blob, tried and counted. */
#define TRY(data, len, what) \
	(tried++, wrong += try_blob(_metadata, data, len, what, &refused))

TEST_F_TIMEOUT(zstd, crafted_frames_refused, 300)
{
	static const char text[] = "A valid zstd frame, but not a blob.\n";
	const size_t max = INKPROBE_BLOB_MAX_LEN;
	const u64 sizes[] = {
		/* lying */
		self->raw_len + 1, self->raw_len - 1, self->raw_len + 4096, 2 * self->raw_len,
		self->raw_len - 100,
		/* out of range */
		0, 1, 15, max + 1, max + (1ULL << 40),
	};
	unsigned int refused = 0, wrong = 0, tried = 0, i;
	size_t len, len2;
	u8 *c, *d;

	/* data after the frame: a byte, zeroes, the frame again, a skippable frame */
	c = craft_cat(self->frame, self->frame_len, (const u8 *)"x", 1, &len);
	TRY(c, len, "a byte after the frame");
	free(c);
	d = calloc(1, 4096);
	c = craft_cat(self->frame, self->frame_len, d, 4096, &len);
	TRY(c, len, "4096 zeroes after the frame");
	free(c);
	free(d);
	c = craft_cat(self->frame, self->frame_len, self->frame, self->frame_len, &len);
	TRY(c, len, "two frames");
	free(c);
	d = craft_skippable(16, &len2);
	c = craft_cat(self->frame, self->frame_len, d, len2, &len);
	TRY(c, len, "a skippable frame after the frame");
	free(c);
	/* a skippable frame first: not a blob's magic, nor a frame's */
	c = craft_cat(d, len2, self->frame, self->frame_len, &len);
	TRY(c, len, "a skippable frame before the frame");
	free(c);
	free(d);

	/* content size: missing, lying, out of range */
	c = craft_compress(self->raw, self->raw_len, false, &len);
	ASSERT_NE(NULL, c);
	TRY(c, len, "no content size");
	free(c);
	for (i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		char what[64];

		c = craft_content_size(self->frame, self->frame_len, sizes[i], &len);
		ASSERT_NE(NULL, c);
		snprintf(what, sizeof(what), "content size %llu", (unsigned long long)sizes[i]);
		TRY(c, len, what);
		free(c);
	}
	/* valid zstd, longer than ZSTD_COMPRESSBOUND(content size) */
	c = craft_too_long(self->raw, self->raw_len, &len);
	TRY(c, len, "one raw block per byte");
	free(c);
	/* a dictionary the kernel does not have; the reserved bit */
	c = craft_cat(self->frame, self->frame_len, (const u8 *)"", 1, &len);
	memmove(c + 6, c + 5, self->frame_len - 5);	/* gen's frame: single segment */
	c[4] |= 1;
	c[5] = 7;
	ASSERT_TRUE(self->frame[4] & 0x20);
	TRY(c, len, "dictionary 7");
	memcpy(c, self->frame, self->frame_len);
	c[4] |= 0x08;
	TRY(c, self->frame_len, "reserved bit");
	free(c);
	/* valid frames around other content */
	c = craft_compress(text, sizeof(text), true, &len);
	TRY(c, len, "text in a frame");
	d = craft_compress(c, len, true, &len2);
	TRY(d, len2, "a frame in a frame");
	free(d);
	free(c);
	c = craft_compress(self->raw, self->raw_len - 1, true, &len);
	TRY(c, len, "the blob less its last byte");
	free(c);
	c = malloc(self->raw_len);
	memcpy(c, self->raw, self->raw_len);
	c[0] ^= 0x20;
	d = craft_compress(c, self->raw_len, true, &len);
	TRY(d, len, "a blob with a bad magic");
	free(d);
	free(c);

	TH_LOG("%u crafted frames refused", refused);
	EXPECT_EQ(0, wrong);
	EXPECT_EQ(tried, refused);
	EXPECT_LE(23u, tried);
	EXPECT_EQ(0, load_blob(blob_path("inkprobe_target.inkb")));
	EXPECT_EQ(0, count_kprobes("tgt_"));
}

TEST_HARNESS_MAIN
