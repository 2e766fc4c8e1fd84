// SPDX-License-Identifier: GPL-2.0
/*
 * libdebuginfod for gen (a target's DWARF) and load (a published blob):
 * debuginfod.h.
 */
#include <dlfcn.h>
#include <elfutils/debuginfod.h>
#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "blob_file.h"
#include "debuginfod.h"
#include "util.h"

/*
 * libdebuginfod is opened when a command needs it, as libdw opens it: linked
 * in, it and what it needs (libcurl, GnuTLS, ... 28 more libraries) would
 * load at every start of the tool, 4.5 times the start-up time of
 * 'inkprobe --help' (3.7 ms to 16.5 ms on the test machine, far more under
 * QEMU without KVM), for commands that never fetch anything.
 */
static struct {
	__typeof__(debuginfod_begin) *begin;
	__typeof__(debuginfod_end) *end;
	__typeof__(debuginfod_find_debuginfo) *find_debuginfo;
	__typeof__(debuginfod_find_executable) *find_executable;
	__typeof__(debuginfod_find_section) *find_section;
	__typeof__(debuginfod_set_progressfn) *set_progressfn;
	__typeof__(debuginfod_set_user_data) *set_user_data;
	__typeof__(debuginfod_get_user_data) *get_user_data;
	__typeof__(debuginfod_get_url) *get_url;
} lib;

#define SYM(h, member, name) \
	dl_function(h, DEBUGINFOD_SONAME, name, &lib.member, "elfutils 0.183 or later needed")

static void open_lib(void)
{
	void *h;

	if (lib.begin)
		return;
	h = dlopen(DEBUGINFOD_SONAME, RTLD_NOW | RTLD_LOCAL);
	if (!h)
		die("%s (Debian: apt install libdebuginfod1)", dlerror());
	SYM(h, end, "debuginfod_end");
	SYM(h, find_debuginfo, "debuginfod_find_debuginfo");
	SYM(h, find_executable, "debuginfod_find_executable");
	SYM(h, find_section, "debuginfod_find_section");
	SYM(h, set_progressfn, "debuginfod_set_progressfn");
	SYM(h, set_user_data, "debuginfod_set_user_data");
	SYM(h, get_user_data, "debuginfod_get_user_data");
	SYM(h, get_url, "debuginfod_get_url");
	SYM(h, begin, "debuginfod_begin");	/* last: the others are there */
}

struct progress {
	const char *what;
	bool printed;
};

/* libdebuginfod calls it while it waits: @a bytes of @b (b <= 0: not known yet) */
static int show_progress(debuginfod_client *c, long a, long b)
{
	struct progress *p = lib.get_user_data(c);
	const char *url = lib.get_url(c), *path = url ? strstr(url, "/buildid/") : NULL;

	/* the server, not the whole URL: the line must fit to be rewritten */
	if (b > 0)
		fprintf(stderr, "\rinkprobe: fetching %s from %.*s: %.1f of %.1f MB (%ld%%)   ",
			p->what, url ? (int)(path ? path - url : (int)strlen(url)) : 10,
			url ? url : "debuginfod", a / 1e6, b / 1e6,
			a >= 0 && a <= b ? (long)(100.0 * a / b) : 0);
	else
		fprintf(stderr, "\rinkprobe: fetching %s: waiting for a server   ", p->what);
	p->printed = true;
	return 0;	/* go on */
}

static debuginfod_client *begin(struct progress *p)
{
	debuginfod_client *c;

	open_lib();
	c = lib.begin();
	if (!c)
		die("libdebuginfod: cannot start a client");
	lib.set_user_data(c, p);
	/* $DEBUGINFOD_PROGRESS: libdebuginfod's own progress, already set */
	if (isatty(STDERR_FILENO) && !getenv(DEBUGINFOD_PROGRESS_ENV_VAR))
		lib.set_progressfn(c, show_progress);
	return c;
}

static void end(debuginfod_client *c, struct progress *p)
{
	if (p->printed)
		fputc('\n', stderr);
	lib.end(c);
}

void debuginfod_need_urls(const char *why)
{
	const char *urls = getenv(DEBUGINFOD_URLS_ENV_VAR);

	if (!urls || !urls[strspn(urls, " \t")])
		die("%s needs a debuginfod server: set DEBUGINFOD_URLS (for example "
		    "DEBUGINFOD_URLS=http://debuginfod.example:8002)", why);
}

/* What a failed query's -errno means here. */
static const char *query_error(int err)
{
	switch (-err) {
	case ENOENT:
		return "no server in DEBUGINFOD_URLS has it";
	case EFBIG:
		return "larger than DEBUGINFOD_MAXSIZE";
	case ETIME:
		return "timed out (DEBUGINFOD_TIMEOUT, DEBUGINFOD_MAXTIME)";
	case ECONNREFUSED:
	case EHOSTUNREACH:
	case ENETUNREACH:
		return "cannot reach the server";
	default:
		return strerror(-err);
	}
}

static char *fetch_file(const struct build_id *id, const char *what, bool executable)
{
	struct progress p = { .what = what };
	debuginfod_client *c;
	char *path = NULL;
	int fd;

	debuginfod_need_urls("fetching DWARF by build ID");
	c = begin(&p);
	if (executable)
		fd = lib.find_executable(c, id->id, (int)id->len, &path);
	else
		fd = lib.find_debuginfo(c, id->id, (int)id->len, &path);
	end(c, &p);
	if (fd < 0)
		die("%s: the %s from %s: %s", what,
		    executable ? "binary (executable)" : "DWARF (debuginfo)",
		    getenv(DEBUGINFOD_URLS_ENV_VAR), query_error(fd));
	close(fd);
	return path;
}

char *debuginfod_fetch_dwarf(const struct build_id *id, const char *what)
{
	return fetch_file(id, what, false);
}

char *debuginfod_fetch_binary(const struct build_id *id, const char *what)
{
	return fetch_file(id, what, true);
}

/* mkdir -p @path (0700 for the directories it makes); 0 or -1 */
static int mkdirs(char *path)
{
	char *s;

	for (s = path + 1; *s; s++) {
		if (*s != '/')
			continue;
		*s = '\0';
		if (mkdir(path, 0700) && errno != EEXIST) {
			*s = '/';
			return -1;
		}
		*s = '/';
	}
	return mkdir(path, 0700) && errno != EEXIST ? -1 : 0;
}

/*
 * Blobs have a client cache of their own: libdebuginfod 0.188 answers a
 * section query from a debuginfo or executable file of the build ID that is
 * in its cache, without asking any server (cache_find_section()), so with
 * the DWARF cached (gen --build-id, gdb, perf) it would never find the blob.
 */
static void use_blob_cache(void)
{
	const char *dir = getenv("INKPROBE_DEBUGINFOD_CACHE"), *xdg = getenv("XDG_CACHE_HOME");
	char path[PATH_MAX];

	if (dir && *dir)
		snprintf(path, sizeof(path), "%s", dir);
	else if (xdg && *xdg)
		snprintf(path, sizeof(path), "%s/inkprobe/debuginfod_client", xdg);
	else
		snprintf(path, sizeof(path), "%s/.cache/inkprobe/debuginfod_client",
			 getenv("HOME") ? getenv("HOME") : "/");
	if (mkdirs(path))
		die("%s: %s (the cache of fetched blobs: INKPROBE_DEBUGINFOD_CACHE)", path,
		    strerror(errno));
	setenv(DEBUGINFOD_CACHE_PATH_ENV_VAR, path, 1);
}

int debuginfod_fetch_blob(const struct build_id *id, const char *what, uint8_t **data,
			  uint32_t *len)
{
	char *cache = getenv(DEBUGINFOD_CACHE_PATH_ENV_VAR), *saved;
	struct progress p = { .what = what };
	debuginfod_client *c;
	char *path = NULL;
	int fd;

	debuginfod_need_urls("loading blobs by build ID");
	saved = cache ? xstrdup(cache) : NULL;
	use_blob_cache();
	/*
	 * DEBUGINFOD_MAXSIZE is not set for the user: with it, 0.188 writes a
	 * line to fd -1 (a dprintf() guarded by "if (vfd)") and leaks glibc's
	 * buffer for it.  A section larger than a blob may be is refused below.
	 */
	c = begin(&p);
	fd = lib.find_section(c, id->id, (int)id->len, PUBLISH_SECTION, &path);
	end(c, &p);
	if (saved)
		setenv(DEBUGINFOD_CACHE_PATH_ENV_VAR, saved, 1);
	else
		unsetenv(DEBUGINFOD_CACHE_PATH_ENV_VAR);
	free(saved);
	if (fd < 0) {
		if (fd != -ENOENT)
			warnx("%s: the blob from %s: %s", what, getenv(DEBUGINFOD_URLS_ENV_VAR),
			      query_error(fd));
		return fd;
	}
	close(fd);
	*data = read_file(path, len);	/* dies past INKPROBE_BLOB_MAX_LEN */
	free(path);
	return 0;
}
