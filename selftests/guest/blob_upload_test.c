// SPDX-License-Identifier: GPL-2.0
/*
 * The blob file refuses bad input in the write() that brings it: bytes that
 * start no blob, each header field as its bytes arrive, a blob or a zstd
 * frame's content larger than the module parameter blob_max_kb (before
 * anything is decompressed); and it keeps no more memory than what
 * arrived, whatever size a header claims.
 */
#define _GNU_SOURCE
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
#include "../../uapi/inkprobe.h"
#include "../zstd_craft.h"

#define PARAM	"/sys/module/inkprobe/parameters/blob_max_kb"

/* write() results of @len bytes written @chunk at a time, then close(): 0 or -errno. */
static int write_chunks(const void *data, size_t len, size_t chunk, int *close_ret,
			size_t *failed_at)
{
	int fd = open(INK_DIR "/blob", O_WRONLY), ret = 0;
	size_t done = 0, n;

	if (fd < 0)
		return -errno;
	*failed_at = len;
	while (done < len) {
		n = len - done < chunk ? len - done : chunk;
		if (write(fd, (const char *)data + done, n) != (ssize_t)n) {
			ret = -errno;
			*failed_at = done;
			break;
		}
		done += n;
	}
	*close_ret = close(fd) ? -errno : 0;
	return ret;
}

static unsigned long vmalloc_used_kb(void)
{
	char *info = read_file("/proc/meminfo", NULL), *at;
	unsigned long kb = 0;

	at = info ? strstr(info, "VmallocUsed:") : NULL;
	if (at)
		sscanf(at + strlen("VmallocUsed:"), "%lu", &kb);
	free(info);
	return kb;
}

static int reload_with(const char *params)
{
	clear_probes();
	if (module_loaded("inkprobe") && unload_module("inkprobe"))
		return -1;
	return load_module_params(kmod_path("inkprobe.ko"), params);
}

FIXTURE(upload) {
	int unused;
};

FIXTURE_SETUP(upload)
{
	ASSERT_EQ(0, reload_with(""));
	ASSERT_EQ(0, clear_errors());
}

FIXTURE_TEARDOWN(upload)
{
	reload_with("");
	setup_target();
}

/* Refused by the first write(), whose bytes start no blob. */
TEST_F(upload, garbage_fails_at_write)
{
	static const char *const texts[] = { "hello\n", "h", "INKA", "(\xb5/\xfe" };
	unsigned int i;
	size_t at;
	int c;

	for (i = 0; i < sizeof(texts) / sizeof(texts[0]); i++) {
		EXPECT_EQ(-EINVAL, write_chunks(texts[i], strlen(texts[i]), 64, &c, &at));
		EXPECT_EQ(0u, at);
		EXPECT_STREQ("invalid blob: not an inkprobe blob (bad magic) at byte 0",
			     last_error());
		EXPECT_EQ(0, c);	/* refused already: close() has nothing to add */
	}
	/* echo hello > blob, as a shell does it */
	EXPECT_NE(0, system("echo hello > " INK_DIR "/blob"));
	/* the start of a zstd frame's magic, then close: cut short */
	EXPECT_EQ(0, write_chunks("(\xb5", 2, 64, &c, &at));
	EXPECT_EQ(-EINVAL, c);
}

/* Each header field is checked as its last byte arrives, one byte at a time. */
TEST_F(upload, header_fields_fail_as_they_arrive)
{
	struct inkprobe_blob_header good = {
		.magic = INKPROBE_BLOB_MAGIC, .version = INKPROBE_BLOB_VERSION,
		.hdr_len = sizeof(good), .blob_len = 4096, .nr_sections = 4,
	}, h;
	static const struct {
		size_t last;		/* index of the field's last byte */
		const char *msg;
	} fields[] = {
		{ 3, "not an inkprobe blob (bad magic) at byte 0" },
		{ 5, "unsupported blob version at byte 4" },
		{ 7, "bad blob header length at byte 6" },
		{ 11, "blob length out of range at byte 8" },
		{ 15, "bad number of blob sections at byte 12" },
	};
	char want[128];
	unsigned int i;
	size_t at;
	int c;

	for (i = 0; i < sizeof(fields) / sizeof(fields[0]); i++) {
		h = good;
		((unsigned char *)&h)[fields[i].last] ^= 0x80;
		EXPECT_EQ(-EINVAL, write_chunks(&h, sizeof(h), 1, &c, &at));
		EXPECT_EQ(fields[i].last, at);
		snprintf(want, sizeof(want), "invalid blob: %s", fields[i].msg);
		EXPECT_STREQ(want, last_error());
	}
	/* a valid header, then close: cut short */
	EXPECT_EQ(0, write_chunks(&good, sizeof(good), 1, &c, &at));
	EXPECT_EQ(-EINVAL, c);
	EXPECT_STREQ("invalid blob: truncated (16 of 4096 bytes)", last_error());
}

/* A header claiming 256 MB, 100 bytes sent: nothing large is kept. */
TEST_F(upload, big_claim_allocates_nothing_large)
{
	unsigned char data[100] = { 0 };
	struct inkprobe_blob_header h = {
		.magic = INKPROBE_BLOB_MAGIC, .version = INKPROBE_BLOB_VERSION,
		.hdr_len = sizeof(h), .blob_len = INKPROBE_BLOB_MAX_LEN, .nr_sections = 4,
	};
	unsigned long before, during;
	int fd;

	/* the cap allows it: only the memory kept is in question */
	ASSERT_EQ(0, reload_with("blob_max_kb=262144"));
	memcpy(data, &h, sizeof(h));
	before = vmalloc_used_kb();
	ASSERT_LT(0UL, before);
	fd = open(INK_DIR "/blob", O_WRONLY);
	ASSERT_LE(0, fd);
	EXPECT_EQ((ssize_t)sizeof(data), write(fd, data, sizeof(data)));
	during = vmalloc_used_kb();
	TH_LOG("VmallocUsed %lu KB before, %lu KB with the upload open", before, during);
	EXPECT_GT(before + 16 * 1024, during);
	EXPECT_NE(0, close(fd));
	EXPECT_STREQ("invalid blob: truncated (100 of 268435456 bytes)", last_error());
}

/* blob_max_kb: shown, and honoured for raw blobs and zstd frames alike. */
TEST_F(upload, cap_parameter_honoured)
{
	char *v = read_file(PARAM, NULL), want[160], params[64];
	size_t raw_len;
	char *raw = read_file(blob_path("inkprobe_target.raw.inkb"), &raw_len);
	unsigned int kb;

	ASSERT_NE(NULL, v);
	EXPECT_STREQ("32768\n", v);
	free(v);
	ASSERT_NE(NULL, raw);
	free(raw);
	kb = raw_len / 1024;		/* just too small */
	ASSERT_LT(0u, kb);

	snprintf(params, sizeof(params), "blob_max_kb=%u", kb);
	ASSERT_EQ(0, reload_with(params));
	EXPECT_EQ(-EFBIG, load_blob(blob_path("inkprobe_target.raw.inkb")));
	snprintf(want, sizeof(want),
		 "invalid blob: %zu bytes, more than blob_max_kb=%u (module parameter)", raw_len,
		 kb);
	EXPECT_STREQ(want, last_error());
	EXPECT_EQ(-EFBIG, load_blob(blob_path("inkprobe_target.inkb")));
	snprintf(want, sizeof(want),
		 "invalid blob: zstd frame content size %zu, more than blob_max_kb=%u (module parameter)",
		 raw_len, kb);
	EXPECT_STREQ(want, last_error());

	/* just large enough */
	snprintf(params, sizeof(params), "blob_max_kb=%u", kb + 1);
	ASSERT_EQ(0, reload_with(params));
	ASSERT_EQ(0, load_module(kmod_path("inkprobe_target.ko")));
	EXPECT_EQ(0, load_blob(blob_path("inkprobe_target.raw.inkb"))) TH_LOG("%s", last_error());
	EXPECT_EQ(0, load_blob(blob_path("inkprobe_target.inkb"))) TH_LOG("%s", last_error());
}

/*
 * A zstd frame whose header declares 64 MB of content, over the default
 * cap: refused by the write() of its header alone, so before any block
 * could be decompressed; a raw header claiming as much too.
 */
TEST_F(upload, over_cap_refused_at_the_header)
{
	/* magic, FHD (8-byte content size, window descriptor), window 2^21, size */
	unsigned char frame[14] = { 0x28, 0xb5, 0x2f, 0xfd, 0xc0, 0x58 };
	struct inkprobe_blob_header h = {
		.magic = INKPROBE_BLOB_MAGIC, .version = INKPROBE_BLOB_VERSION,
		.hdr_len = sizeof(h), .blob_len = 64 << 20, .nr_sections = 4,
	};
	unsigned long long size = 64ULL << 20;
	size_t at;
	int c;

	memcpy(frame + 6, &size, sizeof(size));
	EXPECT_EQ(-EFBIG, write_chunks(frame, sizeof(frame), sizeof(frame), &c, &at));
	EXPECT_EQ(0u, at);
	EXPECT_STREQ("invalid blob: zstd frame content size 67108864, more than blob_max_kb=32768 (module parameter)",
		     last_error());
	/* the raw header: refused with byte 16, not at close() */
	EXPECT_EQ(-EFBIG, write_chunks(&h, sizeof(h), 1, &c, &at));
	EXPECT_EQ(sizeof(h) - 1, at);
	EXPECT_STREQ("invalid blob: 67108864 bytes, more than blob_max_kb=32768 (module parameter)",
		     last_error());
}

/*
 * blob_max_kb to the byte: the target's blob padded to exactly K KB (bytes
 * no section covers, which the format allows) loads with blob_max_kb=K, raw
 * and compressed; one byte more is refused, raw by its header and
 * compressed by its frame header.
 */
TEST_F(upload, cap_exact_to_the_byte)
{
	size_t raw_len, len, frame_len;
	char *raw = read_file(blob_path("inkprobe_target.raw.inkb"), &raw_len), want[160];
	char params[64];
	unsigned int kb, extra;
	unsigned char *blob, *frame;

	ASSERT_NE(NULL, raw);
	kb = (raw_len + 1023) / 1024;
	snprintf(params, sizeof(params), "blob_max_kb=%u", kb);
	ASSERT_EQ(0, reload_with(params));
	ASSERT_EQ(0, load_module(kmod_path("inkprobe_target.ko")));
	for (extra = 0; extra < 2; extra++) {
		len = (size_t)kb * 1024 + extra;
		blob = calloc(1, len);
		ASSERT_NE(NULL, blob);
		memcpy(blob, raw, raw_len);
		((struct inkprobe_blob_header *)blob)->blob_len = len;
		ASSERT_STREQ("", blob_verdict(blob, len));	/* a valid blob */
		frame = craft_compress(blob, len, true, &frame_len);
		ASSERT_NE(NULL, frame);
		ASSERT_EQ(0, clear_errors());
		if (!extra) {
			EXPECT_EQ(0, write_bytes(INK_DIR "/blob", blob, len)) TH_LOG("%s", last_error());
			EXPECT_EQ(0, write_bytes(INK_DIR "/blob", frame, frame_len))
				TH_LOG("%s", last_error());
			EXPECT_NE(NULL, strstr(target_blob_line(), " live "));
		} else {
			EXPECT_EQ(-EFBIG, write_bytes(INK_DIR "/blob", blob, len));
			snprintf(want, sizeof(want),
				 "invalid blob: %zu bytes, more than blob_max_kb=%u (module parameter)",
				 len, kb);
			EXPECT_STREQ(want, last_error());
			EXPECT_EQ(-EFBIG, write_bytes(INK_DIR "/blob", frame, frame_len));
			snprintf(want, sizeof(want),
				 "invalid blob: zstd frame content size %zu, more than blob_max_kb=%u (module parameter)",
				 len, kb);
			EXPECT_STREQ(want, last_error());
		}
		free(frame);
		free(blob);
	}
	free(raw);
}

/*
 * loaded_blob gives back the blob as the module holds it: the compressed
 * blob loaded, the raw blob read, byte for byte gen --raw's file of the
 * same module; a target without a blob: ENOENT; a name too long: EINVAL.  (Moved here from tool_test, which does not run on the debug
 * kernel: the file is the module's, its checks KASAN's and lockdep's.)
 */
TEST_F(upload, loaded_blob_reads_back_the_raw_blob)
{
	char *raw, buf[65536], name[200];
	size_t raw_len = 0, got = 0;
	ssize_t n;
	int fd;

	ASSERT_EQ(0, setup_target());
	ASSERT_EQ(0, load_blob(blob_path("inkprobe_target.inkb")));
	raw = read_file(blob_path("inkprobe_target.raw.inkb"), &raw_len);
	ASSERT_NE(NULL, raw);
	fd = open(INK_DIR "/loaded_blob", O_RDWR);
	ASSERT_LE(0, fd);
	ASSERT_EQ(15, write(fd, "inkprobe_target", 15));
	while ((n = read(fd, buf, sizeof(buf))) > 0) {
		EXPECT_GE(raw_len, got + n);
		if (got + n > raw_len)
			break;
		EXPECT_EQ(0, memcmp(raw + got, buf, n)) {
			TH_LOG("differs in bytes %zu..%zu", got, got + n);
		}
		got += n;
	}
	EXPECT_EQ(0, n);
	EXPECT_EQ(raw_len, got);
	EXPECT_EQ(-1, write(fd, "no_such_target", 14));
	EXPECT_EQ(ENOENT, errno);
	memset(name, 'x', sizeof(name));
	EXPECT_EQ(-1, write(fd, name, sizeof(name)));
	EXPECT_EQ(EINVAL, errno);
	close(fd);
	free(raw);
}

struct blob_race {
	int fd;
	volatile int stop;
	unsigned long writes, bad;
};

static void *rewrite_name(void *arg)
{
	struct blob_race *r = arg;

	while (!r->stop) {
		if (write(r->fd, "inkprobe_target", 15) == 15)
			r->writes++;
		else
			r->bad++;
	}
	return NULL;
}

/*
 * One open loaded_blob, a thread writing the name again and again while
 * this one reads: each write takes a new copy and frees the old one under
 * the file's lock, so no read meets a freed copy (KASAN on the debug
 * kernel) and every read is a piece of the raw blob.
 */
TEST_F(upload, loaded_blob_read_and_write_race)
{
	struct blob_race r = { 0 };
	char *raw, buf[4096];
	size_t raw_len = 0;
	unsigned long reads = 0;
	pthread_t th;
	time_t end;
	ssize_t n;

	ASSERT_EQ(0, setup_target());
	ASSERT_EQ(0, load_blob(blob_path("inkprobe_target.inkb")));
	raw = read_file(blob_path("inkprobe_target.raw.inkb"), &raw_len);
	ASSERT_NE(NULL, raw);
	r.fd = open(INK_DIR "/loaded_blob", O_RDWR);
	ASSERT_LE(0, r.fd);
	ASSERT_EQ(15, write(r.fd, "inkprobe_target", 15));
	ASSERT_EQ(0, pthread_create(&th, NULL, rewrite_name, &r));
	for (end = time(NULL) + 3; time(NULL) < end;) {
		n = read(r.fd, buf, sizeof(buf));
		ASSERT_LE(0, n);
		/* a piece of the blob, wherever the last write left the copy's position */
		if (!n)
			continue;
		reads++;
		ASSERT_NE(NULL, memmem(raw, raw_len, buf, n)) TH_LOG("a read of %zd bytes", n);
	}
	r.stop = 1;
	pthread_join(th, NULL);
	EXPECT_LT(0UL, r.writes);
	EXPECT_EQ(0UL, r.bad);
	EXPECT_LT(0UL, reads);
	close(r.fd);
	free(raw);
}

TEST_HARNESS_MAIN
