// SPDX-License-Identifier: GPL-2.0
/*
 * Compressed ELF files, as distributions ship kernel modules (decompress.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <lzma.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include <zlib.h>
#include <zstd.h>

#include "decompress.h"
#include "util.h"

#define CHUNK		(256 * 1024)

enum format { PLAIN, XZ, ZSTD, GZIP };

static enum format format_of(const uint8_t *m, size_t len)
{
	if (len >= 6 && !memcmp(m, "\xfd" "7zXZ\0", 6))
		return XZ;
	if (len >= 4 && !memcmp(m, "\x28\xb5\x2f\xfd", 4))
		return ZSTD;
	if (len >= 2 && !memcmp(m, "\x1f\x8b", 2))
		return GZIP;
	return PLAIN;
}

struct sink {
	int fd;
	uint64_t size;
	const char *path;
};

static void put(struct sink *s, const void *buf, size_t len)
{
	const char *p = buf;

	if (len > DECOMPRESS_MAX - s->size)
		die("%s: more than %llu MB once decompressed: refused", s->path,
		    (unsigned long long)(DECOMPRESS_MAX >> 20));
	s->size += len;
	while (len) {
		ssize_t n = write(s->fd, p, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			die("%s: writing its decompressed bytes: %s", s->path, strerror(errno));
		p += n;
		len -= (size_t)n;
	}
}

static void from_xz(int in, struct sink *s)
{
	static uint8_t ibuf[CHUNK], obuf[CHUNK];
	lzma_stream z = LZMA_STREAM_INIT;
	lzma_action action = LZMA_RUN;
	lzma_ret ret;

	if (lzma_stream_decoder(&z, UINT64_MAX, LZMA_CONCATENATED) != LZMA_OK)
		die("%s: liblzma cannot start", s->path);
	do {
		if (!z.avail_in && action == LZMA_RUN) {
			ssize_t n = read(in, ibuf, sizeof(ibuf));

			if (n < 0)
				die("%s: %s", s->path, strerror(errno));
			z.next_in = ibuf;
			z.avail_in = (size_t)n;
			if (!n)
				action = LZMA_FINISH;
		}
		z.next_out = obuf;
		z.avail_out = sizeof(obuf);
		ret = lzma_code(&z, action);
		put(s, obuf, sizeof(obuf) - z.avail_out);
	} while (ret == LZMA_OK);
	lzma_end(&z);
	if (ret != LZMA_STREAM_END)
		die("%s: not a valid xz stream (liblzma error %d)", s->path, ret);
}

static void from_zstd(int in, struct sink *s)
{
	static uint8_t ibuf[CHUNK], obuf[CHUNK];
	ZSTD_DCtx *z = ZSTD_createDCtx();
	size_t ret = 1;
	ssize_t n;

	if (!z)
		die("%s: libzstd cannot start", s->path);
	while ((n = read(in, ibuf, sizeof(ibuf))) > 0) {
		ZSTD_inBuffer i = { ibuf, (size_t)n, 0 };

		while (i.pos < i.size) {
			ZSTD_outBuffer o = { obuf, sizeof(obuf), 0 };

			ret = ZSTD_decompressStream(z, &o, &i);
			if (ZSTD_isError(ret))
				die("%s: not a valid zstd stream (%s)", s->path,
				    ZSTD_getErrorName(ret));
			put(s, obuf, o.pos);
		}
	}
	if (n < 0)
		die("%s: %s", s->path, strerror(errno));
	/* ret != 0: the last frame is cut short */
	if (ret)
		die("%s: not a valid zstd stream (it ends inside a frame)", s->path);
	ZSTD_freeDCtx(z);
}

static void from_gzip(int in, struct sink *s)
{
	static uint8_t obuf[CHUNK];
	gzFile z = gzdopen(dup(in), "rb");
	int n, err;

	if (!z)
		die("%s: zlib cannot start", s->path);
	while ((n = gzread(z, obuf, sizeof(obuf))) > 0)
		put(s, obuf, (size_t)n);
	/* a cut stream reads as far as it goes, then records Z_BUF_ERROR */
	gzerror(z, &err);
	if (n < 0 || err != Z_OK)
		die("%s: not a valid gzip stream (%s)", s->path, gzerror(z, &err));
	gzclose(z);
}

char *decompressed_path(const char *path)
{
	uint8_t magic[6];
	struct sink s = { .path = path };
	enum format f;
	ssize_t got;
	char *out;
	int in;

	in = open(path, O_RDONLY | O_CLOEXEC);
	if (in < 0)
		return xstrdup(path);	/* the caller says why it cannot be read */
	got = pread(in, magic, sizeof(magic), 0);
	f = got > 0 ? format_of(magic, (size_t)got) : PLAIN;
	if (f == PLAIN) {
		close(in);
		return xstrdup(path);
	}
	/* kept open, so the path stays valid until exit */
	s.fd = memfd_create("inkprobe-decompressed", 0);
	if (s.fd < 0)
		die("%s: memfd_create: %s", path, strerror(errno));
	if (f == XZ)
		from_xz(in, &s);
	else if (f == ZSTD)
		from_zstd(in, &s);
	else
		from_gzip(in, &s);
	close(in);
	out = xmalloc(32);
	snprintf(out, 32, "/proc/self/fd/%d", s.fd);
	return out;
}
