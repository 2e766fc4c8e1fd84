// SPDX-License-Identifier: GPL-2.0
#define _GNU_SOURCE	/* unshare() */
#include <errno.h>
#include <fnmatch.h>
#include <fcntl.h>
#include <glob.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sched.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "guest_util.h"
#include "blob_model.h"
#include "../../lib/blob.h"
#include "../../lib/blob_open.h"

const char *env_or(const char *name, const char *def)
{
	const char *v = getenv(name);

	return v && *v ? v : def;
}

/*
 * On a slower kernel (the debug kernel under TCG) scripts/vm-run sets
 * INKPROBE_TIMEOUT_SCALE, by which the waits below are multiplied.
 */
int timeout_scale(void)
{
	long scale = strtol(env_or("INKPROBE_TIMEOUT_SCALE", "1"), NULL, 10);

	return scale > 1 && scale < 100 ? scale : 1;
}

/*
 * The kselftest harness (6.1's, 6.12's) arms alarm(timeout) around each
 * test: defined here, this alarm() takes the C library's place in every
 * test binary and scales the time.
 */
unsigned int alarm(unsigned int seconds)
{
	struct itimerval it = { 0 }, old;

	it.it_value.tv_sec = (time_t)seconds * timeout_scale();
	if (setitimer(ITIMER_REAL, &it, &old))
		return 0;
	return old.it_value.tv_sec + (old.it_value.tv_usec > 0);
}

const char *kmod_path(const char *file)
{
	static char buf[512];

	snprintf(buf, sizeof(buf), "%s/%s", env_or("INKPROBE_KMOD_DIR", "."), file);
	return buf;
}

const char *blob_path(const char *file)
{
	static char buf[512];

	snprintf(buf, sizeof(buf), "%s/%s", env_or("INKPROBE_BLOB_DIR", "."), file);
	return buf;
}

int write_bytes(const char *path, const void *buf, size_t len)
{
	int fd = open(path, O_WRONLY);
	ssize_t n;
	int err = 0;

	if (fd < 0)
		return -errno;
	n = write(fd, buf, len);
	if (n < 0)
		err = -errno;
	else if ((size_t)n != len)
		err = -EIO;
	if (close(fd) && !err)
		err = -errno;
	return err;
}

int write_file(const char *path, const char *s, bool append)
{
	int fd = open(path, O_WRONLY | (append ? O_APPEND : O_TRUNC));
	ssize_t n;
	int err = 0;

	if (fd < 0)
		return -errno;
	n = write(fd, s, strlen(s));
	if (n < 0)
		err = -errno;
	close(fd);
	return err;
}

int kmsg_open(void)
{
	int fd = open("/dev/kmsg", O_RDONLY | O_NONBLOCK);

	if (fd >= 0 && lseek(fd, 0, SEEK_END) < 0) {
		close(fd);
		return -1;
	}
	return fd;
}

/*
 * Records about the emulator's pace, not about the code under test: the
 * kernel's once-per-boot note that a timer interrupt ran long (ci28's
 * debug guest, three guests on two host CPUs: 8.2 ms).  Printed, not
 * counted.
 */
static const char *const pace_records[] = {
	"hrtimer: interrupt took ",
};

static bool pace_record(const char *rec)
{
	size_t i;

	for (i = 0; i < sizeof(pace_records) / sizeof(pace_records[0]); i++)
		if (strstr(rec, pace_records[i]))
			return true;
	return false;
}

int kmsg_new_except(int fd, const char *allowed)
{
	char rec[2048];
	ssize_t n;
	int count = 0;

	if (fd < 0)
		return -1;
	/* one record per read(); EAGAIN at the end, EPIPE if some were overwritten */
	while ((n = read(fd, rec, sizeof(rec) - 1)) > 0 || (n < 0 && errno == EPIPE)) {
		if (n < 0) {
			fprintf(stderr, "# kernel log: records lost\n");
			count++;
			continue;
		}
		rec[n] = '\0';
		fprintf(stderr, "# kernel log: %s", rec);
		count += (!allowed || !strstr(rec, allowed)) && !pace_record(rec);
	}
	close(fd);
	return count;
}

int kmsg_new(int fd)
{
	return kmsg_new_except(fd, NULL);
}

int define_probe(const char *cmd)
{
	int ret = probes_cmd(cmd, true);

	if (ret)
		fprintf(stderr, "# '%s': %s (%s)\n", cmd, strerror(-ret), last_error());
	return ret;
}

char *read_file(const char *path, size_t *lenp)
{
	int fd = open(path, O_RDONLY);
	size_t len = 0, cap = 4096;
	char *buf;
	ssize_t n;

	if (fd < 0)
		return NULL;
	buf = malloc(cap + 1);
	while (buf && (n = read(fd, buf + len, cap - len)) > 0) {
		len += n;
		if (len == cap) {
			char *nb = realloc(buf, 2 * cap + 1);

			if (!nb) {
				free(buf);
				buf = NULL;
				break;
			}
			buf = nb;
			cap *= 2;
		}
	}
	close(fd);
	if (buf)
		buf[len] = '\0';
	if (lenp)
		*lenp = len;
	return buf;
}

int load_module_params(const char *ko, const char *params)
{
	int fd = open(ko, O_RDONLY | O_CLOEXEC);
	int err = 0;

	if (fd < 0)
		return -errno;
	if (syscall(SYS_finit_module, fd, params, 0))
		err = errno == EEXIST ? 0 : -errno;
	close(fd);
	return err;
}

int load_module(const char *ko)
{
	return load_module_params(ko, "");
}

int unload_module(const char *name)
{
	return syscall(SYS_delete_module, name, O_NONBLOCK) ? -errno : 0;
}

bool module_loaded(const char *name)
{
	char path[256];
	struct stat st;

	snprintf(path, sizeof(path), "/sys/module/%s", name);
	return !stat(path, &st);
}

int load_blob(const char *path)
{
	size_t len;
	char *data = read_file(path, &len);
	int err;

	if (!data)
		return -errno;
	err = write_bytes(INK_DIR "/blob", data, len);
	free(data);
	return err;
}

const struct ink_btf *vmlinux_btf(void)
{
	static struct ink_btf btf;
	static bool done;
	struct ink_err err = { 0 };
	size_t len;
	void *raw;

	if (done)
		return &btf;
	raw = read_file("/sys/kernel/btf/vmlinux", &len);
	if (!raw || ink_btf_load(&btf, raw, (u32)len, NULL, &err))
		return NULL;
	done = true;
	return &btf;
}

const struct model_base *model_running_kernel(void)
{
	static struct model_base base;
	static bool done;
	size_t len;
	void *raw;

	if (done)
		return &base;
	raw = read_file("/sys/kernel/btf/vmlinux", &len);
	if (!raw || model_base_open(&base, raw, len))
		return NULL;	/* @raw stays: the model reads it */
	done = true;
	return &base;
}

const char *blob_verdict(const void *data, unsigned int len)
{
	static char msg[256];
	const struct ink_open_env env = { .base = vmlinux_btf() };
	struct ink_err err = { 0 };
	struct ink_blob b;
	struct ink_btf split;
	void *copy;

	msg[0] = '\0';
	copy = malloc(len ? len : 1);	/* aligned, like the kernel's copy */
	memcpy(copy, data, len);
	if (!ink_blob_open(&b, &split, copy, len, &env, &err))
		ink_blob_close(&split);
	else if (err.phase == INK_OPEN_PARSE)
		snprintf(msg, sizeof(msg), "invalid blob: %s at byte %u", err.msg, err.off);
	else
		snprintf(msg, sizeof(msg), "invalid blob BTF: %s at byte %u", err.msg, err.off);
	free(copy);
	return msg;
}

int setup_target(void)
{
	char *blobs;
	int err;

	err = load_module(kmod_path("inkprobe_target.ko"));
	if (!err)
		err = load_module(kmod_path("inkprobe.ko"));
	if (!err)
		err = events_instance(0);
	if (err)
		return err;
	blobs = read_file(INK_DIR "/blobs", NULL);
	if (!blobs)
		return -errno;
	if (!strstr(blobs, "inkprobe_target "))
		err = load_blob(blob_path("inkprobe_target.inkb"));
	free(blobs);
	return err;
}

const char *target_blob_line(void)
{
	static char line[512];
	char *all = read_file(INK_DIR "/blobs", NULL), *p;

	line[0] = '\0';
	p = all ? strstr(all, "inkprobe_target ") : NULL;
	if (p)
		snprintf(line, sizeof(line), "%.*s", (int)strcspn(p, "\n"), p);
	free(all);
	return line;
}

int reload_inkprobe(const char *params)
{
	int err = 0;

	if (module_loaded("inkprobe")) {
		clear_probes();
		err = unload_module("inkprobe");
	}
	if (!err)
		err = load_module_params(kmod_path("inkprobe.ko"), params);
	return err ? err : setup_target();
}

/* Disables @what ("" every event, else "[GRP/]EVENT") in EVENTS_INST, if it has it. */
static void events_disable(const char *what)
{
	char buf[256], *slash;
	struct stat st;

	if (stat(EVENTS_INST, &st))
		return;
	if (!*what) {
		write_file(EVENTS_INST "/set_event", "", false);
		return;
	}
	snprintf(buf, sizeof(buf), "!%s", what);
	buf[strcspn(buf, " \n")] = '\0';
	slash = strchr(buf, '/');
	if (slash)
		*slash = ':';
	write_file(EVENTS_INST "/set_event", buf, true);	/* no such event: EINVAL */
}

int probes_cmd(const char *cmd, bool append)
{
	if (!append)
		events_disable("");
	else if (!strncmp(cmd, "-:", 2))
		events_disable(cmd + 2);
	return write_file(INK_DIR "/probes", cmd, append);
}

int clear_probes(void)
{
	return probes_cmd("", false);
}

int events_instance(unsigned int kb)
{
	char buf[32];
	int err = 0;

	if (mkdir(EVENTS_INST, 0755) && errno != EEXIST)
		return -errno;
	err = write_file(EVENTS_INST "/options/overwrite", "0", false);
	if (!err)
		err = write_file(EVENTS_INST "/options/irq-info", "0", false);
	if (!err && kb) {
		snprintf(buf, sizeof(buf), "%u", kb);
		err = write_file(EVENTS_INST "/buffer_size_kb", buf, false);
	}
	return err;
}

unsigned int events_buffer_kb(void)
{
	char *kb = read_file(EVENTS_INST "/buffer_size_kb", NULL), *at;
	unsigned int n;

	if (!kb)
		return 0;
	/* "N", or "N (expanded: M)" before the first buffer grew to its size */
	at = strstr(kb, "expanded: ");
	n = strtoul(at ? at + strlen("expanded: ") : kb, NULL, 10);
	free(kb);
	return n;
}

int events_enable(const char *what)
{
	char path[256];
	int err = events_instance(0);

	if (err)
		return err;
	snprintf(path, sizeof(path), EVENTS_INST "/events/%s/enable", what);
	return write_file(path, "1", false);
}

int clear_errors(void)
{
	return write_file(INK_DIR "/error_log", "", false);
}

const char *last_error(void)
{
	static char msg[512];
	char *log = read_file(INK_DIR "/error_log", NULL), *p, *last = NULL, *nl;

	msg[0] = '\0';
	if (!log)
		return msg;
	for (p = log; (p = strstr(p, "inkprobe: error: ")); p++)
		last = p;
	if (last) {
		last += strlen("inkprobe: error: ");
		nl = strchr(last, '\n');
		if (nl)
			*nl = '\0';
		snprintf(msg, sizeof(msg), "%s", last);
	}
	free(log);
	return msg;
}

int last_error_caret(void)
{
	static const char cmd[] = "  Command: ";
	char *log = read_file(INK_DIR "/error_log", NULL), *p, *last = NULL, *caret;
	int col = -1;

	for (p = log; p && (p = strstr(p, cmd)); p++)
		last = p;
	caret = last ? strchr(last, '\n') : NULL;
	if (caret && (p = strchr(caret + 1, '^')) && (size_t)(p - caret - 1) >= strlen(cmd))
		col = (int)(p - caret - 1 - strlen(cmd));
	free(log);
	return col;
}

unsigned long long stat_sum(const char *stats, const char *key)
{
	unsigned long long sum = 0, v;
	const char *p;
	char pat[32];

	snprintf(pat, sizeof(pat), " %s=", key);
	for (p = stats; (p = strstr(p, pat)); p++)
		if (sscanf(p + strlen(pat), "%llu", &v) == 1)
			sum += v;
	return sum;
}

int count_kprobes(const char *needle)
{
	char *list = read_file(KPROBES_LIST, NULL), *line, *save = NULL;
	int n = 0;

	if (!list)
		return -1;
	for (line = strtok_r(list, "\n", &save); line; line = strtok_r(NULL, "\n", &save))
		if (strstr(line, needle))
			n++;
	free(list);
	return n;
}

/* Bytes read from a trace_pipe but not yet returned as lines, and which one. */
static char pending[65536];
static size_t have;
static char pending_path[256];

int read_events_from(const char *path, char **lines, int max, int timeout_ms)
{
	int fd = open(path, O_RDONLY | O_NONBLOCK);
	int n = 0;

	if (fd < 0)
		return -errno;
	if (strcmp(pending_path, path)) {
		snprintf(pending_path, sizeof(pending_path), "%s", path);
		have = 0;
	}
	while (n < max) {
		struct pollfd p = { .fd = fd, .events = POLLIN };
		char *nl;
		ssize_t r;

		nl = memchr(pending, '\n', have);
		if (nl) {
			size_t len = nl - pending;

			lines[n] = strndup(pending, len);
			n++;
			memmove(pending, nl + 1, have - len - 1);
			have -= len + 1;
			continue;
		}
		if (poll(&p, 1, n ? timeout_ms : timeout_ms * timeout_scale()) <= 0)
			break;
		r = read(fd, pending + have, sizeof(pending) - have);
		if (r <= 0 && errno != EAGAIN)
			break;
		if (r > 0)
			have += r;
	}
	close(fd);
	return n;
}

int read_events(char **lines, int max, int timeout_ms)
{
	return read_events_from(EVENTS_INST "/trace_pipe", lines, max, timeout_ms);
}

void drain_events_from(const char *path)
{
	char *line;

	have = 0;
	while (read_events_from(path, &line, 1, 0) == 1)
		free(line);
}

void drain_events(void)
{
	if (!strcmp(pending_path, EVENTS_INST "/trace_pipe"))
		have = 0;
	write_file(EVENTS_INST "/trace", "", false);	/* O_TRUNC: emptied */
}

void free_lines(char **lines, int n)
{
	while (n-- > 0)
		free(lines[n]);
}

bool parse_event(const char *line, char *caller, size_t caller_len, unsigned int *off,
		 const char **args)
{
	const char *open = strstr(line, ": (");
	const char *plus, *close;

	if (!open)
		return false;
	open += 3;
	close = strchr(open, ')');
	plus = close ? memchr(open, '+', close - open) : NULL;
	if (!plus || (size_t)(plus - open) >= caller_len)
		return false;
	memcpy(caller, open, plus - open);
	caller[plus - open] = '\0';
	if (sscanf(plus + 1, "%x", off) != 1)
		return false;
	*args = close[1] == ' ' ? close + 2 : close + 1;
	return true;
}

int trigger_target(unsigned long long a, unsigned long long b, unsigned int w)
{
	char buf[96];

	snprintf(buf, sizeof(buf), "mix %llu %llu %u", a, b, w);
	return write_file(TGT_DIR "/trigger", buf, false);
}

bool trace_reader_ready(pid_t pid, const char *event)
{
	char pat[160];
	glob_t g;
	int i;

	if (pid)
		snprintf(pat, sizeof(pat), "/sys/kernel/tracing/instances/inkprobe-%d-*/events/%s/enable",
			 (int)pid, event);
	else
		snprintf(pat, sizeof(pat), "/sys/kernel/tracing/instances/inkprobe-*/events/%s/enable",
			 event);
	for (i = 0; i < 6000 * timeout_scale(); i++) {
		bool one = false;

		if (!glob(pat, 0, NULL, &g) && g.gl_pathc == 1) {
			char *v = read_file(g.gl_pathv[0], NULL);

			one = v && v[0] == '1';
			free(v);
		}
		globfree(&g);
		if (one)
			return true;
		if (pid && waitpid(pid, NULL, WNOHANG) == pid)
			return false;
		usleep(10000);
	}
	return false;
}

pid_t trigger_when_traced(const char *event, unsigned long long a, unsigned long long b,
			  unsigned int w)
{
	pid_t pid = fork();

	if (pid)
		return pid;
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	_exit(trace_reader_ready(0, event) && !trigger_target(a, b, w) ? 0 : 1);
}

bool event_name(const char *line, char *name, size_t len)
{
	const char *end = strstr(line, ": (");
	const char *start;

	if (!end)
		return false;
	for (start = end; start > line && start[-1] != ' '; start--)
		;
	if ((size_t)(end - start) >= len)
		return false;
	memcpy(name, start, end - start);
	name[end - start] = '\0';
	return true;
}

#define MAX_SCENARIO_EVENTS	128

int check_scenario(const char *scenario, const char *group, int timeout_ms)
{
	return check_scenario_from(EVENTS_INST "/trace_pipe", scenario, group, timeout_ms);
}

int check_scenario_from(const char *pipe, const char *scenario, const char *group,
			int timeout_ms)
{
	if (write_file(TGT_DIR "/trigger", scenario, false)) {
		fprintf(stderr, "# cannot run scenario '%s'\n", scenario);
		return 1;
	}
	return check_expected_from(pipe, group, timeout_ms);
}

int check_expected_from(const char *pipe, const char *group, int timeout_ms)
{
	char *events[MAX_SCENARIO_EVENTS], *expected, *line, *save = NULL;
	bool used[MAX_SCENARIO_EVENTS] = { false };
	int n, i, problems = 0, want = 0;

	expected = read_file(TGT_DIR "/expected", NULL);
	if (!expected)
		return 1;
	for (line = expected; *line; line++)
		want += *line == '\n';
	/* a few more than expected, to catch extra events */
	n = read_events_from(pipe, events,
			     want + 4 < MAX_SCENARIO_EVENTS ? want + 4 : MAX_SCENARIO_EVENTS, timeout_ms);
	for (line = strtok_r(expected, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char callee[64], want_caller[96], want_name[160];
		const char *want_args;
		bool found = false;

		if (sscanf(line, "%63s %95s", callee, want_caller) != 2) {
			fprintf(stderr, "# bad expected line: %s\n", line);
			problems++;
			continue;
		}
		want_args = line + strlen(callee) + 1 + strlen(want_caller) + 1;
		snprintf(want_name, sizeof(want_name), "%s:%s", group, callee);
		for (i = 0; i < n && !found; i++) {
			char name[160], caller[96];
			const char *args;
			unsigned int off;

			if (used[i] || !event_name(events[i], name, sizeof(name)) ||
			    strcmp(name, want_name) ||
			    !parse_event(events[i], caller, sizeof(caller), &off, &args) ||
			    fnmatch(want_caller, caller, 0) || strcmp(args, want_args))
				continue;
			used[i] = true;
			found = true;
		}
		if (!found) {
			fprintf(stderr, "# no event for expected: %s\n", line);
			problems++;
		}
	}
	for (i = 0; i < n; i++) {
		if (!used[i]) {
			fprintf(stderr, "# unexpected event: %s\n", events[i]);
			problems++;
		}
	}
	if (n < want)
		fprintf(stderr, "# %d events for %d expected lines\n", n, want);
	free_lines(events, n);
	free(expected);
	return problems;
}

int loop_attach(const char *image, unsigned int mb, char *dev, size_t n)
{
	char cmd[256];
	FILE *f;

	snprintf(cmd, sizeof(cmd), "modprobe loop 2>/dev/null; truncate -s %uM %s", mb, image);
	if (system(cmd))
		return -1;
	snprintf(cmd, sizeof(cmd), "losetup -f --show %s", image);
	f = popen(cmd, "r");
	if (!f || !fgets(dev, (int)n, f)) {
		if (f)
			pclose(f);
		return -1;
	}
	pclose(f);
	dev[strcspn(dev, "\n")] = '\0';
	return 0;
}

void loop_detach(const char *image, const char *dev)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "losetup -d %s", dev);
	if (system(cmd))
		fprintf(stderr, "%s failed\n", cmd);
	unlink(image);
}

int private_mounts(void)
{
	if (unshare(CLONE_NEWNS) || mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL))
		return -errno;
	return 0;
}

int perf_sees_only_our_modules(void)
{
	static const char *const ours[] = { "inkprobe_target.ko", "inkprobe.ko" };
	char dir[sizeof(((struct utsname *)0)->release) + 32], cmd[1024];
	struct utsname u;
	unsigned int i;
	int err;

	if (uname(&u))
		return -errno;
	snprintf(dir, sizeof(dir), "/lib/modules/%s", u.release);
	err = private_mounts();
	if (err)
		return err;
	if (mount("perf-modules", dir, "tmpfs", 0, "size=64m"))
		return -errno;
	snprintf(cmd, sizeof(cmd), "mkdir '%s/extra'", dir);
	if (system(cmd))
		return -EIO;
	for (i = 0; i < sizeof(ours) / sizeof(ours[0]); i++) {
		snprintf(cmd, sizeof(cmd), "cp '%s' '%s/extra/'", kmod_path(ours[i]), dir);
		if (system(cmd))
			return -EIO;
	}
	return 0;
}

int run_shell(const char *cmd, char **out)
{
	struct timespec t0, t;
	size_t len = 0, cap = 4096;
	int pfd[2], st = -1;
	bool done = false;
	pid_t pid;

	*out = calloc(1, cap);
	if (!*out || pipe(pfd))
		return -1;
	pid = fork();
	if (pid < 0)
		return -1;
	if (!pid) {
		setpgid(0, 0);
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		dup2(pfd[1], 1);
		dup2(pfd[1], 2);
		close(pfd[0]);
		execl("/bin/sh", "sh", "-c", cmd, NULL);
		_exit(127);
	}
	close(pfd[1]);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (;;) {
		struct pollfd p = { .fd = pfd[0], .events = POLLIN };
		ssize_t r;

		clock_gettime(CLOCK_MONOTONIC, &t);
		if (t.tv_sec - t0.tv_sec > 300 * timeout_scale() || poll(&p, 1, 1000) < 0)
			break;
		if (!(p.revents & (POLLIN | POLLHUP)))
			continue;
		if (len + 4096 + 1 > cap) {
			cap *= 2;
			*out = realloc(*out, cap);
		}
		r = read(pfd[0], *out + len, cap - len - 1);
		if (r <= 0) {
			done = true;
			break;
		}
		len += r;
		(*out)[len] = '\0';
	}
	close(pfd[0]);
	if (!done)
		kill(-pid, SIGKILL);
	if (waitpid(pid, &st, 0) != pid || !done)
		return -1;
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

unsigned long kallsyms_addr(const char *name)
{
	char *all = read_file("/proc/kallsyms", NULL), *line, *save = NULL;
	unsigned long addr = 0, a;
	char sym[256], mod[64];

	for (line = all ? strtok_r(all, "\n", &save) : NULL; line && !addr;
	     line = strtok_r(NULL, "\n", &save))
		if (sscanf(line, "%lx %*s %255s [%63[^]]]", &a, sym, mod) == 3 &&
		    !strcmp(mod, "inkprobe_target") && !strcmp(sym, name))
			addr = a;
	free(all);
	return addr;
}

unsigned long long kallsyms_nth(const char *kallsyms, const char *name, int nth, int of)
{
	unsigned long long addr[64], a, t;
	const char *p, *nl;
	char line[512], sym[256], type;
	size_t len;
	int n = 0, i, j;

	/*
	 * sscanf() on a line of its own: on the whole text it would measure
	 * the rest of it at each line (strlen), quadratic in its size
	 */
	for (p = kallsyms; p && *p; p = nl ? nl + 1 : NULL) {
		nl = strchr(p, '\n');
		len = nl ? (size_t)(nl - p) : strlen(p);
		if (!len || len >= sizeof(line))
			continue;
		memcpy(line, p, len);
		line[len] = '\0';
		if (sscanf(line, "%llx %c %255s", &a, &type, sym) == 3 && strchr("tT", type) &&
		    !strcmp(sym, name) && line[len - 1] != ']') {
			if (n == 64)
				return 0;
			addr[n++] = a;
		}
	}
	if (n != of)
		return 0;
	for (i = 0; i < n; i++)
		for (j = i + 1; j < n; j++)
			if (addr[j] < addr[i]) {
				t = addr[i];
				addr[i] = addr[j];
				addr[j] = t;
			}
	return addr[nth - 1];
}

/* "NAME=FETCH:TYPE" or "NAME=[ITEM,...]:TYPE" into @a; false if it is neither */
static bool cmp_parse_arg(const char *tok, struct cmp_arg *a)
{
	const char *eq = strchr(tok, '='), *colon = strrchr(tok, ':'), *close;
	size_t n;

	memset(a, 0, sizeof(*a));
	if (!eq || !colon || colon < eq || (size_t)(eq - tok) >= sizeof(a->name) ||
	    strlen(colon + 1) >= sizeof(a->type) || !colon[1])
		return false;
	snprintf(a->name, sizeof(a->name), "%.*s", (int)(eq - tok), tok);
	snprintf(a->type, sizeof(a->type), "%s", colon + 1);
	if (eq[1] != '[')
		return true;
	close = strrchr(eq, ']');
	n = close ? (size_t)(close - eq - 2) : 0;
	if (!close || close + 1 != colon || n >= sizeof(a->items))
		return false;
	a->oracle = true;
	snprintf(a->items, sizeof(a->items), "%.*s", (int)n, eq + 2);
	return true;
}

/* " NAME__K=FETCH:TYPE" for each fetch among @a's items, appended to @kp */
static bool cmp_oracle_fetches(const struct cmp_arg *a, char *kp, size_t size)
{
	char items[sizeof(a->items)], *it, *save = NULL;
	int k = 0;

	snprintf(items, sizeof(items), "%s", a->items);
	for (it = strtok_r(items, ",", &save); it; it = strtok_r(NULL, ",", &save), k++) {
		size_t len = strlen(kp);

		if (!strchr("%+-@\\", it[0]))
			continue;
		if (snprintf(kp + len, size - len, " %s__%d=%s", a->name, k, it) >=
		    (int)(size - len))
			return false;
	}
	return true;
}

int read_cmp_defs(const char *path, struct cmp_def *defs, int max, int *no_oracle)
{
	char *all = read_file(path, NULL), *line, *save = NULL;
	int nr = 0, bad = 0;

	if (!all)
		return -1;
	if (no_oracle)
		*no_oracle = 0;
	for (line = strtok_r(all, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		struct cmp_def *d = &defs[nr];
		char *a, *save2 = NULL, *rest;
		int n = 0;

		if (!strncmp(line, "# no-oracle ", 12)) {
			fprintf(stderr, "%s\n", line);
			if (no_oracle)
				(*no_oracle)++;
			continue;
		}
		if (nr == max) {
			bad = 1;
			break;
		}
		memset(d, 0, sizeof(*d));
		if (sscanf(line, "%7s %63s %127s %x %n", d->cls, d->func, d->caller, &d->off,
			   &n) != 4) {
			bad = 1;
			break;
		}
		rest = line + n;
		d->leader = -1;
		if (strchr(d->caller, '#')) {
			int j;

			if (sscanf(strchr(d->caller, '#'), "#%d/%d", &d->nth, &d->of) != 2 ||
			    d->nth < 1 || d->nth > d->of) {
				bad = 1;
				break;
			}
			*strchr(d->caller, '#') = '\0';
			for (j = 0; j < nr && d->leader < 0; j++)
				if (defs[j].nth && defs[j].off == d->off &&
				    !strcmp(defs[j].func, d->func) && !strcmp(defs[j].caller, d->caller))
					d->leader = j;
		}
		/* inkprobe: NAME:TYPE for each; kprobe_events: perf's fetch-args and the oracles' */
		for (a = strtok_r(rest, " ", &save2); a; a = strtok_r(NULL, " ", &save2)) {
			struct cmp_arg *c = &d->args[d->nr_args];
			size_t li = strlen(d->args_ink), lk = strlen(d->args_kp);

			if (d->nr_args == CMP_MAX_ARGS || !cmp_parse_arg(a, c)) {
				bad = 1;
				break;
			}
			d->nr_args++;
			snprintf(d->args_ink + li, sizeof(d->args_ink) - li, " %s:%s", c->name,
				 c->type);
			if (c->oracle) {
				d->nr_oracles++;
				if (!cmp_oracle_fetches(c, d->args_kp, sizeof(d->args_kp)))
					bad = 1;
			} else {
				snprintf(d->args_kp + lk, sizeof(d->args_kp) - lk, "%s%s", lk ? " " : "",
					 a);
			}
		}
		if (bad)
			break;
		nr++;
	}
	free(all);
	return bad ? -1 : nr;
}

/* The value of field @name in kprobe_events' "NAME=VALUE ..." @args, in @out; false if none */
static bool cmp_field(const char *args, const char *name, char *out, size_t size)
{
	size_t n = strlen(name);
	const char *p = args;

	for (;;) {
		if (!strncmp(p, name, n) && p[n] == '=') {
			snprintf(out, size, "%.*s", (int)strcspn(p + n + 1, " "), p + n + 1);
			return true;
		}
		p = strchr(p, ' ');
		if (!p)
			return false;
		p++;
	}
}

/* The address of @sym (SYM+OFF, SYM-OFF) in /proc/kallsyms, if it names one symbol */
static bool cmp_symbol(const char *sym, unsigned long long *addr)
{
	char *all = read_file("/proc/kallsyms", NULL), *line, *save = NULL, name[128];
	size_t n = strcspn(sym, "+-");
	unsigned long long a;
	int found = 0;

	for (line = all ? strtok_r(all, "\n", &save) : NULL; line;
	     line = strtok_r(NULL, "\n", &save))
		if (sscanf(line, "%llx %*s %127s", &a, name) == 2 && strlen(name) == n &&
		    !strncmp(name, sym, n) && !found++)
			*addr = a + strtoll(sym + n, NULL, 0);
	free(all);
	return found == 1;
}

/*
 * "NAME=VALUE" of oracle @a for one kprobe_events hit (@args): its items
 * evaluated as the DWARF does (64-bit, postfix), printed as its type the
 * way kprobe_events prints one: a fetch that faulted makes it (fault).
 */
static void cmp_oracle_value(const struct cmp_arg *a, const char *args, char *out, size_t size)
{
	char items[sizeof(a->items)], *it, *save = NULL, name[48], val[64];
	unsigned long long st[16], v = 0;
	int sp = 0, k = 0, bits = atoi(a->type + 1);
	bool fault = false, bad = false;

	snprintf(items, sizeof(items), "%s", a->items);
	if (!*items) {
		snprintf(out, size, "%s=(optimized out)", a->name);
		return;
	}
	for (it = strtok_r(items, ",", &save); it && !bad; it = strtok_r(NULL, ",", &save), k++) {
		if (strchr("%+-@\\", it[0])) {
			snprintf(name, sizeof(name), "%s__%d", a->name, k);
			if (sp == 16 || !cmp_field(args, name, val, sizeof(val))) {
				bad = true;
				break;
			}
			fault |= !strcmp(val, "(fault)");
			st[sp++] = strtoull(val, NULL, 0);
		} else if (it[0] == '#' && sp < 16) {
			st[sp++] = (unsigned long long)strtoll(it + 1, NULL, 0);
		} else if (it[0] == '&' && sp < 16) {
			bad = !cmp_symbol(it + 1, &st[sp++]);
		} else if (sp >= 1 && (!strcmp(it, "neg") || !strcmp(it, "not"))) {
			st[sp - 1] = it[1] == 'e' ? -st[sp - 1] : ~st[sp - 1];
		} else if (sp >= 2) {
			unsigned long long x = st[sp - 2], y = st[--sp];

			if (!strcmp(it, "plus"))
				v = x + y;
			else if (!strcmp(it, "minus"))
				v = x - y;
			else if (!strcmp(it, "mul"))
				v = x * y;
			else if (!strcmp(it, "and"))
				v = x & y;
			else if (!strcmp(it, "or"))
				v = x | y;
			else if (!strcmp(it, "xor"))
				v = x ^ y;
			else if (!strcmp(it, "shl"))
				v = y >= 64 ? 0 : x << y;
			else if (!strcmp(it, "shr"))
				v = y >= 64 ? 0 : x >> y;
			else if (!strcmp(it, "shra"))
				v = (unsigned long long)((long long)x >> (y >= 64 ? 63 : y));
			else
				bad = true;
			st[sp - 1] = v;
		} else {
			bad = true;
		}
	}
	if (bad || sp != 1 || bits < 8 || bits > 64) {
		snprintf(out, size, "%s=(bad oracle %s)", a->name, a->items);
		return;
	}
	v = bits == 64 ? st[0] : st[0] & ((1ULL << bits) - 1);
	if (fault)
		snprintf(out, size, "%s=(fault)", a->name);
	else if (a->type[0] == 'x')
		snprintf(out, size, "%s=0x%llx", a->name, v);
	else if (a->type[0] == 's')
		snprintf(out, size, "%s=%lld", a->name,
			 bits == 64 ? (long long)v : (long long)(v ^ (1ULL << (bits - 1))) -
			 (long long)(1ULL << (bits - 1)));
	else
		snprintf(out, size, "%s=%llu", a->name, v);
}

/* What inkprobe must print for kprobe_events' @args of @d (malloc'd) */
static char *cmp_expected(const struct cmp_def *d, const char *args)
{
	char *out, one[256], val[128];
	size_t len = 0, cap = 1;
	int i;

	if (!d->nr_oracles)
		return strdup(args);
	for (i = 0; i < d->nr_args; i++)
		cap += sizeof(one) + 1;
	out = calloc(1, cap);
	for (i = 0; out && i < d->nr_args; i++) {
		const struct cmp_arg *a = &d->args[i];

		if (a->oracle)
			cmp_oracle_value(a, args, one, sizeof(one));
		else if (cmp_field(args, a->name, val, sizeof(val)))
			snprintf(one, sizeof(one), "%s=%s", a->name, val);
		else
			snprintf(one, sizeof(one), "%s=(missing)", a->name);
		len += snprintf(out + len, cap - len, "%s%s", i ? " " : "", one);
	}
	return out;
}

static void cmp_append(char **list, const char *s)
{
	size_t old = *list ? strlen(*list) : 0, n = strlen(s);

	*list = realloc(*list, old + n + 2);
	memcpy(*list + old, s, n);
	(*list)[old + n] = '\n';
	(*list)[old + n + 1] = '\0';
}

/*
 * "... [CPU] ... <TS>: <EVENT>N: (...) ARGS" -> def index, cpu, args; false
 * otherwise.  @event includes the ": " before the name, so that a comm
 * (which may contain anything) cannot match it.
 */
static bool cmp_parse_line(const char *line, const char *event, int nr, int *idx, int *cpu,
			   const char **args)
{
	const char *p = strstr(line, event), *br, *close;
	int end = 0;

	if (!p || sscanf(p + strlen(event), "%d: (%n", idx, &end) != 1 || !end ||
	    *idx < 0 || *idx >= nr)
		return false;
	for (br = line; (br = strchr(br, '[')); br++)
		if (sscanf(br, "[%d]", cpu) == 1)
			break;
	close = strstr(p, ") ");
	if (!br || !close || *cpu < 0 || *cpu >= CMP_MAX_CPUS)
		return false;
	*args = close + 2;
	return true;
}

int collect_cmp_events(struct cmp_def *defs, int nr, const char *ink_event,
		       const char *kp_event)
{
	char *trace, *line, *save = NULL;
	const char *args;
	int i, c, ret = 0;

	trace = read_file(EVENTS_INST "/trace", NULL);
	if (!trace)
		return -1;
	for (line = strtok_r(trace, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		if (line[0] != '#' && cmp_parse_line(line, ink_event, nr, &i, &c, &args) &&
		    defs[i].placed) {
			cmp_append(&defs[i].ink[c], args);
			defs[i].nr_ink++;
		}
	}
	free(trace);
	drain_events();
	save = NULL;
	trace = read_file("/sys/kernel/tracing/trace", NULL);
	if (!trace)
		return -1;
	if (strstr(trace, "LOST"))
		ret = -1;
	for (line = strtok_r(trace, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		if (line[0] != '#' && cmp_parse_line(line, kp_event, nr, &i, &c, &args) &&
		    defs[i].placed) {
			char *expected = cmp_expected(&defs[i], args);
			int to = defs[i].leader >= 0 ? defs[i].leader : i;

			cmp_append(&defs[to].kp[c], expected ? expected : "(no memory)");
			free(expected);
			defs[to].nr_kp++;
		}
	}
	free(trace);
	return ret;
}

void reset_cmp_events(struct cmp_def *defs, int nr)
{
	int i, c;

	for (i = 0; i < nr; i++) {
		for (c = 0; c < CMP_MAX_CPUS; c++) {
			free(defs[i].ink[c]);
			free(defs[i].kp[c]);
			defs[i].ink[c] = defs[i].kp[c] = NULL;
		}
		defs[i].nr_ink = defs[i].nr_kp = 0;
	}
}

int tcp_loopback(int rounds, int writes, size_t len)
{
	struct sockaddr_in a = { .sin_family = AF_INET };
	socklen_t alen = sizeof(a);
	static char buf[65536];
	int ls, round, ret = 0;

	if (len > sizeof(buf) || system("ip link set lo up 2>/dev/null"))
		return -1;
	ls = socket(AF_INET, SOCK_STREAM, 0);
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (ls < 0 || bind(ls, (void *)&a, sizeof(a)) || listen(ls, 4) ||
	    getsockname(ls, (void *)&a, &alen)) {
		if (ls >= 0)
			close(ls);
		return -1;
	}
	for (round = 0; round < rounds && !ret; round++) {
		int c = socket(AF_INET, SOCK_STREAM, 0), s = -1, i;

		if (c < 0 || connect(c, (void *)&a, sizeof(a)) ||
		    (s = accept(ls, NULL, NULL)) < 0)
			ret = -1;
		for (i = 0; i < writes && !ret; i++) {
			size_t got = 0;
			ssize_t n = 0;

			if (write(c, buf, len) != (ssize_t)len)
				ret = -1;
			while (!ret && got < len && (n = read(s, buf, sizeof(buf))) > 0)
				got += n;
			if (got < len)
				ret = -1;
		}
		if (c >= 0)
			close(c);
		if (s >= 0)
			close(s);
	}
	close(ls);
	return ret;
}

/* The function of /proc/kallsyms that holds @addr (static buffer). */
const char *kallsyms_func(unsigned long long addr)
{
	static char best[128];
	unsigned long long a, best_addr = 0;
	char line[512], type, name[128];
	FILE *f = fopen("/proc/kallsyms", "r");

	best[0] = '\0';
	while (f && fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%llx %c %127s", &a, &type, name) != 3 ||
		    (type != 't' && type != 'T') || a > addr || a < best_addr)
			continue;
		best_addr = a;
		snprintf(best, sizeof(best), "%s", name);
	}
	if (f)
		fclose(f);
	return best;
}

/* The expected lines of the last scenario, "callee caller args", in @lines. */
int expected_lines(char **lines, int max)
{
	char *all = read_file(TGT_DIR "/expected", NULL), *line, *save = NULL;
	int n = 0;

	if (!all)
		return -1;
	for (line = strtok_r(all, "\n", &save); line && n < max; line = strtok_r(NULL, "\n", &save))
		lines[n++] = strdup(line);
	free(all);
	return n;
}

const char *const loc_class_defs[NR_LOC_CLASS_DEFS] = {
	"p:loc/tgt_loc_regoff tgt_loc_regoff field",
	"p:loc/tgt_loc_mem tgt_loc_mem n salt",
	"p:loc/tgt_loc_stack tgt_loc_stack spilled",
	"p:loc/tgt_loc_global tgt_loc_global g weight=g->weight by",
	"p:loc/tgt_loc_unused tgt_loc_unused used unused",
	"p:loc/tgt_loc_implicit tgt_loc_implicit p",
	"p:loc/tgt_loc_pair tgt_loc_pair p",
};

/* Direct I/O on a loop device: block requests. */
int workload_block_io(void)
{
	const char *image = "/tmp/inkprobe-disk";
	void *buf;
	int fd, i, ret = -1;
	char dev[64];

	if (loop_attach(image, 8, dev, sizeof(dev)))
		return -1;
	fd = open(dev, O_RDWR | O_DIRECT);
	if (fd >= 0 && !posix_memalign(&buf, 4096, 65536)) {
		memset(buf, 0x5a, 65536);
		for (i = 0; i < 32; i++) {
			if (pwrite(fd, buf, 65536, (off_t)i * 65536) != 65536)
				break;
			if (pread(fd, buf, 4096, (off_t)i * 65536) != 4096)
				break;
		}
		ret = i == 32 && !fsync(fd) ? 0 : -1;
		free(buf);
	}
	if (fd >= 0)
		close(fd);
	loop_detach(image, dev);
	return ret;
}

/* Anonymous memory and the page cache. */
int workload_memory(void)
{
	size_t len = 16 << 20, i;
	char *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	char buf[4096];
	int fd;

	if (p == MAP_FAILED)
		return -1;
	for (i = 0; i < len; i += 4096)
		p[i] = (char)i;
	madvise(p, len, MADV_DONTNEED);
	munmap(p, len);
	fd = open("/tmp/inkprobe-cache", O_RDWR | O_CREAT | O_TRUNC, 0600);
	if (fd < 0)
		return -1;
	memset(buf, 7, sizeof(buf));
	for (i = 0; i < 1024; i++)
		if (write(fd, buf, sizeof(buf)) != sizeof(buf))
			break;
	lseek(fd, 0, SEEK_SET);
	while (read(fd, buf, sizeof(buf)) > 0)
		;
	close(fd);
	unlink("/tmp/inkprobe-cache");
	return i == 1024 ? 0 : -1;
}

unsigned long long kprobe_events_missed(void)
{
	char *prof = read_file("/sys/kernel/tracing/kprobe_profile", NULL), *line, *save = NULL;
	unsigned long long sum = 0, hits, missed;
	char name[160];

	for (line = prof ? strtok_r(prof, "\n", &save) : NULL; line;
	     line = strtok_r(NULL, "\n", &save))
		if (sscanf(line, "%159s %llu %llu", name, &hits, &missed) == 3)
			sum += missed;
	free(prof);
	return sum;
}

int elf_each_func(Elf *elf, int (*fn)(void *ctx, const GElf_Sym *s, const char *name),
		  void *ctx)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;
	int ret = 0;

	while (!ret && (scn = elf_nextscn(elf, scn))) {
		Elf_Data *d = elf_getdata(scn, NULL);
		size_t i;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_SYMTAB || !d)
			continue;
		for (i = 0; !ret && i < sh.sh_size / sh.sh_entsize; i++) {
			GElf_Sym s;
			const char *name;

			if (!gelf_getsym(d, (int)i, &s) || GELF_ST_TYPE(s.st_info) != STT_FUNC)
				continue;
			name = elf_strptr(elf, sh.sh_link, s.st_name);
			if (name)
				ret = fn(ctx, &s, name);
		}
	}
	return ret;
}
