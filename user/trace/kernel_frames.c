// SPDX-License-Identifier: GPL-2.0
/*
 * A profile's look-up through inkprobe.ko's "frames" file: lines of
 * addresses written, "ADDR KIND NAME+0xOFF/0xSIZE MODULE INLINED..." lines
 * read back, one per address in the order written (module/frames_file.c).
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kernel_frames.h"
#include "../common/util.h"

struct kernel_frames {
	int fd;
	struct str_pool names;	/* every name answered, once */
};

struct kernel_frames *kernel_frames_open(const char *path)
{
	struct kernel_frames *k;
	int fd = open(path, O_RDWR | O_CLOEXEC);

	if (fd < 0)
		return NULL;
	k = xcalloc(1, sizeof(*k));
	k->fd = fd;
	return k;
}

void kernel_frames_free(struct kernel_frames *k)
{
	if (!k)
		return;
	close(k->fd);
	str_pool_free(&k->names);
	free(k);
}

static int fail(char *why, size_t why_len, const char *what, const char *line)
{
	snprintf(why, why_len, "inkprobe.ko's frames file: %s%s%s", what, line ? ": " : "",
		 line ? line : "");
	return -1;
}

/* Answer @line (NUL-terminated) for entry @e; -1 if it is not @e's. */
static int parse_answer(struct kernel_frames *k, char *line, struct profile_entry *e)
{
	char *save = NULL, *addr = strtok_r(line, " ", &save), *kind = strtok_r(NULL, " ", &save);
	char *sym = strtok_r(NULL, " ", &save), *mod = strtok_r(NULL, " ", &save), *plus, *end;
	char *name;
	uint64_t off;

	if (!addr || !kind || !sym || !mod || strtoull(addr, &end, 16) != e->ip || *end ||
	    strcmp(kind, e->exact ? "i" : "r"))
		return -1;
	e->sym = (struct ink_sym){ .module_known = true, .dup_index = -1 };
	e->nr_inline = 0;
	if (!strcmp(sym, "?"))
		return strcmp(mod, "?") || strtok_r(NULL, " ", &save) ? -1 : 0;
	plus = strstr(sym, "+0x");
	while (plus && strstr(plus + 1, "+0x"))
		plus = strstr(plus + 1, "+0x");
	if (!plus || plus == sym)
		return -1;
	off = strtoull(plus + 1, &end, 16);
	if (*end != '/' || off > e->ip)
		return -1;
	e->sym.size = strtoull(end + 1, &end, 16);
	if (*end)
		return -1;
	e->sym.name = str_pool_intern(&k->names, sym, (size_t)(plus - sym));
	e->sym.start = e->ip - off;
	e->sym.module = strcmp(mod, "vmlinux") ? str_pool_intern(&k->names, mod, strlen(mod)) : NULL;
	while ((name = strtok_r(NULL, " ", &save))) {
		if (e->nr_inline == INK_INLINE_DEPTH)
			return -1;
		e->inlined[e->nr_inline++] = str_pool_intern(&k->names, name, strlen(name));
	}
	return 0;
}

/* Reads the answer to the last write whole: malloc'd, NUL-terminated; NULL on error. */
static char *read_answer(int fd)
{
	size_t len = 0, cap = 1 << 16;
	char *buf = xmalloc(cap);
	ssize_t n;

	for (;;) {
		if (cap - len < 4096)
			buf = xrealloc(buf, cap *= 2);
		n = read(fd, buf + len, cap - len - 1);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			free(buf);
			return NULL;
		}
		if (!n)
			break;
		len += (size_t)n;
	}
	buf[len] = '\0';
	return buf;
}

int kernel_frames_lookup(void *ctx, struct profile_entry *e, size_t n, char *why,
			 size_t why_len)
{
	struct kernel_frames *k = ctx;
	struct buf in = { 0 };
	size_t done = 0, next = 0, i;
	char line[40], copy[200];
	int ret = 0;

	for (i = 0; i < n; i++) {
		int len = snprintf(line, sizeof(line), "%" PRIx64 "%s\n", e[i].ip,
				   e[i].exact ? "" : " r");

		buf_add(&in, line, (size_t)len);
	}
	/* each write answers the whole lines it took */
	while (!ret && done < in.len) {
		ssize_t w = write(k->fd, in.data + done, in.len - done);
		char *answer, *at, *nl;

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0) {
			ret = fail(why, why_len, w ? strerror(errno) : "took nothing", NULL);
			break;
		}
		done += (size_t)w;
		answer = read_answer(k->fd);
		if (!answer) {
			ret = fail(why, why_len, strerror(errno), NULL);
			break;
		}
		for (at = answer; !ret && *at; at = nl + 1) {
			nl = strchr(at, '\n');
			if (!nl) {
				ret = fail(why, why_len, "an answer without a newline", at);
				break;
			}
			*nl = '\0';
			snprintf(copy, sizeof(copy), "%s", at);
			if (next == n || parse_answer(k, at, &e[next]))
				ret = fail(why, why_len, "not the answer expected", copy);
			next++;
		}
		free(answer);
	}
	if (!ret && next != n)
		ret = fail(why, why_len, "fewer answers than addresses", NULL);
	free(in.data);
	return ret;
}
