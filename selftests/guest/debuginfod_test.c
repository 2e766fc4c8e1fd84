// SPDX-License-Identifier: GPL-2.0
/*
 * The traced machine fetches only the blob (Documentation/debuginfod.rst):
 * in the guest, the tool publishes the blobs the host generated for this
 * kernel's vmlinux and for inkprobe_target.ko, a debuginfod (Debian's
 * elfutils 0.188, from the host's file system) serves them on the guest's
 * 127.0.0.1, and 'inkprobe load' fetches them by the build IDs the running
 * kernel shows in sysfs.  The server listens on every address (0.188 cannot
 * bind one), so the test runs in a network namespace of its own where only
 * loopback exists; the teardown kills the server, and the kernel does if
 * the test dies (PR_SET_PDEATHSIG); every wait is bounded.
 *
 * Oracles: the build IDs and instance counts in the blob files gen wrote
 * on the host (libdwfl read them from the ELF files), and the values the
 * target module records for each call of the inlined tgt_mix(), which the
 * probe defined on the fetched blob must report exactly.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <net/if.h>
#include <netinet/in.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "guest_util.h"
#include "../../lib/blob.h"
#include "../../user/common/blob_zstd.h"

#define PROBE	"p:tgt/fetched tgt_mix reg konst"

struct run {
	int status;
	char out[16384];
	char err[8192];
};

static void slurp(int fd, char *buf, size_t size)
{
	size_t len = 0;
	ssize_t n;

	lseek(fd, 0, SEEK_SET);
	while (len + 1 < size && (n = read(fd, buf + len, size - 1 - len)) > 0)
		len += n;
	buf[len] = '\0';
	close(fd);
}

/* The tool with NULL-terminated arguments, killed after @secs seconds. */
static int run_tool(struct run *r, int secs, ...)
{
	char *argv[16] = { (char *)"inkprobe" };
	int out = memfd_create("out", 0), err = memfd_create("err", 0), n = 1, st;
	time_t end = time(NULL) + secs;
	va_list ap;
	pid_t pid;

	va_start(ap, secs);
	while (n < 15 && (argv[n] = va_arg(ap, char *)))
		n++;
	argv[n] = NULL;
	va_end(ap);
	pid = fork();
	if (pid == 0) {
		dup2(out, 1);
		dup2(err, 2);
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		execv(env_or("INKPROBE_TOOL", "inkprobe"), argv);
		_exit(127);
	}
	while (waitpid(pid, &st, WNOHANG) == 0) {
		if (time(NULL) > end) {
			kill(pid, SIGKILL);
			waitpid(pid, &st, 0);
			break;
		}
		usleep(50 * 1000);
	}
	r->status = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
	slurp(out, r->out, sizeof(r->out));
	slurp(err, r->err, sizeof(r->err));
	return r->status;
}

/* A network namespace for this process, with only loopback, up. */
static int private_loopback(void)
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

static int count_interfaces(void)
{
	struct if_nameindex *ifs = if_nameindex(), *i;
	int n = 0;

	for (i = ifs; i && i->if_index; i++)
		n += strcmp(i->if_name, "lo") ? 100 : 1;
	if_freenameindex(ifs);
	return n;
}

static int free_port(void)
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

/* GET http://127.0.0.1:@port/metrics into @buf; 0 or -1, at most 10 s. */
static int get_metrics(int port, char *buf, size_t size)
{
	static const char req[] = "GET /metrics HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n";
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons(port) };
	struct timeval tv = { .tv_sec = 10 };
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	size_t len = 0;
	ssize_t n;

	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (fd < 0)
		return -1;
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
	if (connect(fd, (struct sockaddr *)&a, sizeof(a)) ||
	    write(fd, req, sizeof(req) - 1) != sizeof(req) - 1) {
		close(fd);
		return -1;
	}
	while (len + 1 < size && (n = read(fd, buf + len, size - 1 - len)) > 0)
		len += n;
	buf[len] = '\0';
	close(fd);
	return strncmp(buf, "HTTP/1.", 7) ? -1 : 0;
}

/* What a blob file says of its target (a compressed or raw blob). */
struct blob_facts {
	char name[INKPROBE_TARGET_NAME_LEN];
	char hex[2 * INKPROBE_BUILD_ID_MAX + 1];
	unsigned int instances;
};

static int blob_facts(const char *path, struct blob_facts *f)
{
	size_t len;
	char *data = read_file(path, &len), why[160];
	uint8_t *raw = NULL;
	uint32_t raw_len = (uint32_t)len, i;
	struct ink_err err = { 0 };
	struct ink_blob b;
	int ret = -1;

	if (!data)
		return -1;
	if (blob_is_zstd(data, len))
		raw = blob_zstd_decompress((uint8_t *)data, (uint32_t)len, &raw_len, why,
					   sizeof(why));
	if (!ink_blob_parse(&b, raw ? raw : (uint8_t *)data, raw_len, &err)) {
		snprintf(f->name, sizeof(f->name), "%s", b.target->name);
		for (i = 0; i < b.target->build_id_len; i++)
			sprintf(f->hex + 2 * i, "%02x", b.target->build_id[i]);
		f->instances = b.nr_instances;
		ret = 0;
	}
	free(raw);
	free(data);
	return ret;
}

FIXTURE(fetch) {
	char dir[64];
	char srv[96];
	pid_t pid;
	int port;
	struct run r;
	char metrics[16384];
};

FIXTURE_SETUP(fetch)
{
	static const char *const unset[] = {
		"http_proxy", "HTTP_PROXY", "https_proxy", "HTTPS_PROXY", "all_proxy",
		"ALL_PROXY", "DEBUGINFOD_PROGRESS", "DEBUGINFOD_VERBOSE", "DEBUGINFOD_MAXSIZE",
		"DEBUGINFOD_MAXTIME", "DEBUGINFOD_HEADERS_FILE", "INKPROBE_SYSFS_DIR",
		"INKPROBE_DEBUGFS_DIR",
	};
	char url[64], cache[128];
	size_t i;

	self->pid = -1;
	ASSERT_EQ(0, load_module(kmod_path("inkprobe_target.ko")));
	ASSERT_EQ(0, load_module(kmod_path("inkprobe.ko")));
	ASSERT_EQ(0, clear_probes());
	drain_events();
	/* the blobs come from the server only */
	write_file(INK_DIR "/blobs", "-inkprobe_target", false);
	write_file(INK_DIR "/blobs", "-vmlinux", false);
	ASSERT_EQ(NULL, strstr(read_file(INK_DIR "/blobs", NULL), "build-id="));

	ASSERT_EQ(0, private_loopback());
	ASSERT_EQ(1, count_interfaces());
	strcpy(self->dir, "/tmp/inkprobe-debuginfod.XXXXXX");
	ASSERT_NE(NULL, mkdtemp(self->dir));
	snprintf(self->srv, sizeof(self->srv), "%s/srv", self->dir);
	ASSERT_EQ(0, mkdir(self->srv, 0755));
	self->port = free_port();
	ASSERT_LT(0, self->port);
	for (i = 0; i < sizeof(unset) / sizeof(unset[0]); i++)
		unsetenv(unset[i]);
	snprintf(url, sizeof(url), "http://127.0.0.1:%d", self->port);
	setenv("DEBUGINFOD_URLS", url, 1);
	setenv("DEBUGINFOD_TIMEOUT", "60", 1);
	snprintf(cache, sizeof(cache), "%s/blob-cache", self->dir);
	setenv("INKPROBE_DEBUGINFOD_CACHE", cache, 1);
}

FIXTURE_TEARDOWN(fetch)
{
	char cmd[128];
	int st, i;

	if (self->pid > 0) {
		kill(self->pid, SIGTERM);
		for (i = 0; i < 200 && waitpid(self->pid, &st, WNOHANG) == 0; i++)
			usleep(50 * 1000);
		if (i == 200) {
			kill(self->pid, SIGKILL);
			waitpid(self->pid, &st, 0);
		}
	}
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", self->dir);
	if (system(cmd))
		TH_LOG("cannot remove %s", self->dir);
	clear_probes();
	/* the next tests expect the target's blob and no vmlinux blob */
	write_file(INK_DIR "/blobs", "-vmlinux", false);
	setup_target();
}

static long metric(FIXTURE_DATA(fetch) *self, const char *name)
{
	const char *at = strstr(self->metrics, name);

	return at ? atol(at + strlen(name)) : -1;
}

/* debuginfod on srv; 0 once its scan found @executables executables, at most 120 s */
static int start_server(FIXTURE_DATA(fetch) *self, long executables)
{
	char port[16], db[128], log[128];
	time_t end = time(NULL) + 120;
	int fd;

	snprintf(port, sizeof(port), "%d", self->port);
	snprintf(db, sizeof(db), "%s/index.sqlite", self->dir);
	snprintf(log, sizeof(log), "%s/server.log", self->dir);
	self->pid = fork();
	if (self->pid == 0) {
		fd = open(log, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		dup2(fd, 1);
		dup2(fd, 2);
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		unsetenv("DEBUGINFOD_URLS");	/* no upstream: only what srv holds */
		execlp("debuginfod", "debuginfod", "-F", "-d", db, "-p", port, "-t", "0",
		       "-g", "0", "-v", self->srv, NULL);
		_exit(127);
	}
	while (time(NULL) < end) {
		usleep(200 * 1000);
		if (!get_metrics(self->port, self->metrics, sizeof(self->metrics)) &&
		    metric(self, "found_executable_total{source=\"files\"} ") == executables)
			return 0;
	}
	return -1;
}

static int count_lines(const char *text)
{
	int n = 0;

	for (; (text = strchr(text, '\n')); text++)
		n++;
	return n;
}

/* The line of @text holding @needle, copied to @line; false if none. */
static bool find_line(const char *text, const char *needle, char *line, size_t size)
{
	const char *at = strstr(text, needle), *start, *end;

	if (!at)
		return false;
	for (start = at; start > text && start[-1] != '\n';)
		start--;
	end = strchrnul(at, '\n');
	snprintf(line, size, "%.*s", (int)(end - start), start);
	return true;
}

/* The offset of the kprobe in @caller, from the kprobes list; -1 if none. */
static long kprobe_offset(const char *caller)
{
	char *list = read_file(KPROBES_LIST, NULL), *at, pat[80];
	unsigned int off;
	long ret = -1;

	snprintf(pat, sizeof(pat), " %s+0x", caller);
	at = list ? strstr(list, pat) : NULL;
	if (at && sscanf(at + strlen(pat), "%x", &off) == 1)
		ret = off;
	free(list);
	return ret;
}

TEST_F_TIMEOUT(fetch, load_by_build_id_and_trace, 600)
{
	struct blob_facts tgt, vml;
	char want[512], got[1024], caller[64], *expected, *line, *save = NULL;
	char target_ko[512], target_out[160], vmlinux_out[160];
	unsigned long long reg;
	int konst, matched = 0, targets;
	time_t t0;
	struct run *r = &self->r;

	/* the oracles: what gen read from the ELF files on the host */
	ASSERT_EQ(0, blob_facts(blob_path("inkprobe_target.inkb"), &tgt));
	ASSERT_EQ(0, blob_facts(blob_path("vmlinux.inkb"), &vml));
	EXPECT_STREQ("inkprobe_target", tgt.name);
	EXPECT_STREQ("vmlinux", vml.name);

	/* published here, as a build host would */
	snprintf(target_ko, sizeof(target_ko), "%s", kmod_path("inkprobe_target.ko"));
	snprintf(target_out, sizeof(target_out), "%s/inkprobe_target.inkb.elf", self->srv);
	snprintf(vmlinux_out, sizeof(vmlinux_out), "%s/vmlinux.inkb.elf", self->srv);
	ASSERT_EQ(0, run_tool(r, 60, "publish", "--target", target_ko, "-o", target_out,
			      blob_path("inkprobe_target.inkb"), NULL)) {
		TH_LOG("%s", r->err);
	}
	ASSERT_EQ(0, run_tool(r, 60, "publish", "-o", vmlinux_out, blob_path("vmlinux.inkb"),
			      NULL)) {
		TH_LOG("%s", r->err);
	}
	ASSERT_EQ(0, start_server(self, 2)) {
		TH_LOG("debuginfod did not index the 2 files: %s", self->metrics);
	}

	/* the loaded module's build ID, from /sys/module/inkprobe_target/notes */
	ASSERT_EQ(0, run_tool(r, 120, "load", "--module", "inkprobe_target", NULL)) {
		TH_LOG("%s", r->err);
	}
	snprintf(want, sizeof(want), "inkprobe_target build-id=%s loaded\n", tgt.hex);
	EXPECT_STREQ(want, r->out);
	ASSERT_EQ(0, run_tool(r, 30, "list", "--blobs", NULL));
	snprintf(want, sizeof(want), "inkprobe_target build-id=%s instances=%u ", tgt.hex,
		 tgt.instances);
	ASSERT_TRUE(find_line(r->out, want, got, sizeof(got))) {
		TH_LOG("no '%s' in %s", want, r->out);
	}
	EXPECT_NE(NULL, strstr(got, " live ")) TH_LOG("%s", got);

	/* a probe on the fetched blob: the values the target recorded */
	ASSERT_EQ(0, run_tool(r, 60, "add", PROBE, NULL)) {
		TH_LOG("%s", r->err);
	}
	ASSERT_EQ(0, trigger_target(0x1234567890abcdefULL, 4242, 77));
	ASSERT_EQ(0, run_tool(r, 90, "trace", "--count", "2", "--json", "--timeout", "60",
			      NULL)) {
		TH_LOG("%s", r->err);
	}
	ASSERT_EQ(2, count_lines(r->out)) TH_LOG("%s", r->out);
	expected = read_file(TGT_DIR "/expected", NULL);
	ASSERT_NE(NULL, expected);
	for (line = strtok_r(expected, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		const char *rest;

		ASSERT_EQ(3, sscanf(line, "tgt_mix %63s reg=%llu konst=%d", caller, &reg, &konst));
		snprintf(want, sizeof(want), "\"caller\":\"%s\"", caller);
		ASSERT_TRUE(find_line(r->out, want, got, sizeof(got))) {
			TH_LOG("no event in %s: %s", caller, r->out);
		}
		rest = strstr(got, ",\"group\":");
		ASSERT_NE(NULL, rest);
		snprintf(want, sizeof(want), ",\"group\":\"tgt\",\"event\":\"fetched\","
			 "\"caller\":\"%s\",\"offset\":%ld,\"args\":{\"reg\":\"%llu\","
			 "\"konst\":\"%d\"}}", caller, kprobe_offset(caller), reg, konst);
		EXPECT_STREQ(want, rest);
		matched++;
	}
	EXPECT_EQ(2, matched);
	free(expected);
	ASSERT_EQ(0, run_tool(r, 30, "del", "tgt/fetched", NULL));
	ASSERT_EQ(0, run_tool(r, 30, "unload", "inkprobe_target", NULL));

	/*
	 * Everything: the running kernel's build ID (/sys/kernel/notes) and each
	 * loaded module's; the two published blobs load, the others have none.
	 */
	t0 = time(NULL);
	ASSERT_EQ(0, run_tool(r, 300, "load", NULL)) {
		TH_LOG("%s\n%s", r->out, r->err);
	}
	targets = count_lines(r->out);
	TH_LOG("inkprobe load: %d targets in %lld s:\n%s", targets,
	       (long long)(time(NULL) - t0), r->out);
	snprintf(want, sizeof(want), "vmlinux build-id=%s loaded\n", vml.hex);
	EXPECT_EQ(0, strncmp(r->out, want, strlen(want))) TH_LOG("%s", r->out);
	snprintf(want, sizeof(want), "\ninkprobe_target build-id=%s loaded\n", tgt.hex);
	EXPECT_NE(NULL, strstr(r->out, want)) TH_LOG("%s", r->out);
	/* inkprobe.ko itself is loaded: it has a line, without a blob */
	EXPECT_NE(NULL, strstr(r->out, "\ninkprobe build-id=")) TH_LOG("%s", r->out);
	for (line = r->out, matched = 0; (line = strstr(line, " loaded\n")); line++)
		matched++;
	EXPECT_EQ(2, matched);
	for (line = r->out, matched = 0; (line = strstr(line, " no blob\n")); line++)
		matched++;
	EXPECT_EQ(count_lines(r->out) - 2, matched) TH_LOG("%s", r->out);
	ASSERT_EQ(0, run_tool(r, 30, "list", "--blobs", NULL));
	snprintf(want, sizeof(want), "vmlinux build-id=%s instances=%u ", vml.hex,
		 vml.instances);
	EXPECT_TRUE(find_line(r->out, want, got, sizeof(got))) TH_LOG("%s", r->out);
	snprintf(want, sizeof(want), "inkprobe_target build-id=%s instances=%u ", tgt.hex,
		 tgt.instances);
	EXPECT_TRUE(find_line(r->out, want, got, sizeof(got))) TH_LOG("%s", r->out);

	/*
	 * Again, as a fleet's periodic job would: the loaded blobs are not
	 * fetched, the misses are remembered by the client (cache_miss_s).
	 */
	ASSERT_EQ(0, run_tool(r, 300, "load", NULL)) {
		TH_LOG("%s\n%s", r->out, r->err);
	}
	EXPECT_EQ(targets, count_lines(r->out));
	snprintf(want, sizeof(want), "vmlinux build-id=%s already loaded\n", vml.hex);
	EXPECT_EQ(0, strncmp(r->out, want, strlen(want))) TH_LOG("%s", r->out);
	snprintf(want, sizeof(want), "\ninkprobe_target build-id=%s already loaded\n", tgt.hex);
	EXPECT_NE(NULL, strstr(r->out, want)) TH_LOG("%s", r->out);
	/*
	 * One section request per target: the target's blob came from the
	 * client's cache the second time, so as many requests as lines.
	 */
	ASSERT_EQ(0, get_metrics(self->port, self->metrics, sizeof(self->metrics)));
	EXPECT_EQ(targets, metric(self, "http_requests_total{type=\"section\"} "));
}

TEST_HARNESS_MAIN
