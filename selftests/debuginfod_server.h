/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A debuginfod of the test's own, for the tests that fetch by build ID on
 * the host (gen) and in the guest (load): in a network namespace with only
 * loopback, on a free port of 127.0.0.1, serving one directory, with no
 * upstream server, stopped by the test.
 *
 *	srv_isolate()			private namespace, loopback only
 *	srv_prepare(&s, timeout)	directory, port, environment of the clients
 *	srv_start(&s, follow, d, e, secs) debuginfod, until its scan found d + e
 *	srv_stop(&s)			kill it, remove the directory
 */
#ifndef _INKPROBE_DEBUGINFOD_SERVER_H
#define _INKPROBE_DEBUGINFOD_SERVER_H

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <net/if.h>
#include <netinet/in.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "run_prog.h"

/* ---- loopback only ------------------------------------------------------ */

/* A network namespace for this process, with only loopback, up: 0 or -errno. */
static inline int srv_isolate(void)
{
	struct ifreq ifr = { 0 };
	int fd, ret = -1;

	if (unshare(CLONE_NEWNET))
		return -errno;
	fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	strcpy(ifr.ifr_name, "lo");
	if (!ioctl(fd, SIOCGIFFLAGS, &ifr)) {
		ifr.ifr_flags |= IFF_UP;
		ret = ioctl(fd, SIOCSIFFLAGS, &ifr) ? -errno : 0;
	}
	close(fd);
	return ret;
}

/* 1 when loopback is the only interface; each other one counts 100. */
static inline int srv_count_interfaces(void)
{
	struct if_nameindex *ifs = if_nameindex(), *i;
	int n = 0;

	for (i = ifs; i && i->if_index; i++)
		n += strcmp(i->if_name, "lo") ? 100 : 1;
	if_freenameindex(ifs);
	return n;
}

/* A TCP port on 127.0.0.1 that nothing listens on, or -1. */
static inline int srv_free_port(void)
{
	struct sockaddr_in a = { .sin_family = AF_INET };
	socklen_t len = sizeof(a);
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0), port = -1;

	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (fd >= 0 && !bind(fd, (struct sockaddr *)&a, sizeof(a)) &&
	    !getsockname(fd, (struct sockaddr *)&a, &len))
		port = ntohs(a.sin_port);
	if (fd >= 0)
		close(fd);
	return port;
}

/* GET http://127.0.0.1:@port@path into @buf; 0 or -1.  Waits at most 5 s. */
static inline int srv_http_get(int port, const char *path, char *buf, size_t size)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons(port) };
	struct timeval tv = { .tv_sec = 5 };
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	size_t len = 0;
	char req[256];
	ssize_t n;

	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (fd < 0)
		return -1;
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
	snprintf(req, sizeof(req), "GET %s HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n", path);
	if (connect(fd, (struct sockaddr *)&a, sizeof(a)) ||
	    write(fd, req, strlen(req)) != (ssize_t)strlen(req)) {
		close(fd);
		return -1;
	}
	while (len + 1 < size && (n = read(fd, buf + len, size - 1 - len)) > 0)
		len += n;
	buf[len] = '\0';
	close(fd);
	return strncmp(buf, "HTTP/1.", 7) ? -1 : 0;
}

/* ---- the server --------------------------------------------------------- */

struct srv {
	char dir[64];		/* everything of the test: removed by srv_stop() */
	char srv[96];		/* what the server scans */
	char url[64];
	pid_t pid;
	int port;
	char metrics[16384];	/* the last /metrics read */
};

/*
 * The directory, srv/ in it and a free port; the clients of this process
 * see this server only (no proxy, no other settings), with caches under
 * the directory, and wait @timeout seconds for it.  0 or -1.
 */
static inline int srv_prepare(struct srv *s, int timeout)
{
	static const char *const unset[] = {
		"http_proxy", "HTTP_PROXY", "https_proxy", "HTTPS_PROXY", "all_proxy",
		"ALL_PROXY", "DEBUGINFOD_PROGRESS", "DEBUGINFOD_VERBOSE",
		"DEBUGINFOD_MAXSIZE", "DEBUGINFOD_MAXTIME", "DEBUGINFOD_HEADERS_FILE",
		"INKPROBE_SYSFS_DIR", "INKPROBE_DEBUGFS_DIR",
	};
	char path[128], secs[16];
	size_t i;

	s->pid = -1;
	strcpy(s->dir, "/tmp/inkprobe-debuginfod.XXXXXX");
	if (!mkdtemp(s->dir))
		return -1;
	snprintf(s->srv, sizeof(s->srv), "%s/srv", s->dir);
	if (mkdir(s->srv, 0755))
		return -1;
	s->port = srv_free_port();
	if (s->port <= 0)
		return -1;
	snprintf(s->url, sizeof(s->url), "http://127.0.0.1:%d", s->port);
	for (i = 0; i < sizeof(unset) / sizeof(unset[0]); i++)
		unsetenv(unset[i]);
	setenv("DEBUGINFOD_URLS", s->url, 1);
	snprintf(secs, sizeof(secs), "%d", timeout);
	setenv("DEBUGINFOD_TIMEOUT", secs, 1);
	snprintf(path, sizeof(path), "%s/dwarf-cache", s->dir);
	setenv("DEBUGINFOD_CACHE_PATH", path, 1);
	snprintf(path, sizeof(path), "%s/blob-cache", s->dir);
	setenv("INKPROBE_DEBUGINFOD_CACHE", path, 1);
	return 0;
}

/* The value of metric @name ("name{labels} ") in the last /metrics read, or -1. */
static inline long srv_metric(const struct srv *s, const char *name)
{
	const char *at = strstr(s->metrics, name);

	return at ? atol(at + strlen(name)) : -1;
}

#define SRV_FOUND_D	"found_debuginfo_total{source=\"files\"} "
#define SRV_FOUND_E	"found_executable_total{source=\"files\"} "

/*
 * Starts debuginfod on srv/ (-L: symbolic links followed when @follow) and
 * waits, at most @secs seconds, for its one scan to have found @debuginfo
 * debuginfo files (any number if negative) and @executable executables.
 * Returns the seconds it took, or -1 (then says what it found on stderr).
 */
static inline double srv_start(struct srv *s, bool follow, long debuginfo, long executable,
			       int secs)
{
	char port[16], db[128], log[128];
	struct timespec t0, t1;
	int fd;

	snprintf(port, sizeof(port), "%d", s->port);
	snprintf(db, sizeof(db), "%s/index.sqlite", s->dir);
	snprintf(log, sizeof(log), "%s/server.log", s->dir);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	s->pid = fork();
	if (s->pid == 0) {
		fd = open(log, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		dup2(fd, 1);
		dup2(fd, 2);
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		/* no upstream servers: it would forward a miss to its own URL */
		unsetenv("DEBUGINFOD_URLS");
		/* -t 0 -g 0: one scan, no grooming */
		char *argv[] = { "debuginfod", "-F", "-d", db, "-p", port, "-t", "0", "-g", "0",
				 "-v", s->srv, follow ? "-L" : NULL, NULL };

		execvp(argv[0], argv);
		_exit(127);
	}
	if (s->pid < 0)
		return -1;
	do {
		usleep(100 * 1000);
		clock_gettime(CLOCK_MONOTONIC, &t1);
		if (srv_http_get(s->port, "/metrics", s->metrics, sizeof(s->metrics)))
			continue;
		if ((debuginfo < 0 || srv_metric(s, SRV_FOUND_D) == debuginfo) &&
		    srv_metric(s, SRV_FOUND_E) == executable)
			return (double)(t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) / 1e9;
	} while (t1.tv_sec - t0.tv_sec < secs);
	fprintf(stderr, "# debuginfod did not index %ld debuginfo, %ld executable in %d s: %ld, %ld\n",
		debuginfo, executable, secs, srv_metric(s, SRV_FOUND_D),
		srv_metric(s, SRV_FOUND_E));
	return -1;
}

/* Stops the server (SIGTERM, SIGKILL after 5 s) and removes the directory: 0 or -1. */
static inline int srv_stop(struct srv *s)
{
	char cmd[128];
	int st, i;

	if (s->pid > 0) {
		kill(s->pid, SIGTERM);
		for (i = 0; i < 100 && waitpid(s->pid, &st, WNOHANG) == 0; i++)
			usleep(50 * 1000);
		if (i == 100) {
			kill(s->pid, SIGKILL);
			waitpid(s->pid, &st, 0);
		}
		s->pid = -1;
	}
	if (!s->dir[0])
		return 0;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", s->dir);
	return system(cmd) ? -1 : 0;
}

#endif /* _INKPROBE_DEBUGINFOD_SERVER_H */
