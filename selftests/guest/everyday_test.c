// SPDX-License-Identifier: GPL-2.0
/* inkprobe-kernels: !debug -- instance counts from perf probe on Debian's DWARF: agreement, not memory safety (the attach path it drives runs on debug in attach_test, stress_test) */
/*
 * Everyday helpers a new user probes first, on the vmlinux blob:
 * mmap_read_lock(mm), folio_lock(folio), rcu_read_lock() and
 * _cond_resched().  Each probe must attach to exactly the instances perf
 * probe's own DWARF reader finds, less and plus the differences listed and
 * confirmed in selftests/everyday-differences.txt (scripts/everyday-counts
 * writes everyday.txt on the host: "NAME COUNT" lines; nothing of it comes
 * from inkprobe), with none refused by kprobes, and record events under a
 * workload.  folio_lock's folio must be one that a
 * kprobe_events probe on folio_unlock() sees unlocked by the same task.
 * mmap_read_lock's mm must be the mm
 * that a kprobe_events probe on mmput() (out of line, exported: its first
 * argument register) sees in the same process: a child that exits takes
 * both (acct_collect() and exit_mm() lock the mm, exit_mm() puts it).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "guest_util.h"

#define TRACING		"/sys/kernel/tracing"
#define MAX_LINES	4096

struct helper {
	const char *func;
	const char *event;
	const char *args;
};

static const struct helper helpers[] = {
	{ "mmap_read_lock", "mmap", " mm" },
	{ "folio_lock", "folio", " folio" },
	{ "rcu_read_lock", "rcu", "" },
	{ "_cond_resched", "resched", "" },
};

/* The instances of @func a probe by name must attach to (everyday.txt); -1 if unknown. */
static long blob_instances(const char *func)
{
	char path[512], *all, *line, *save = NULL, name[128];
	long n = -1, count;

	snprintf(path, sizeof(path), "%s/everyday.txt", env_or("INKPROBE_BLOB_DIR", "."));
	all = read_file(path, NULL);
	for (line = all ? strtok_r(all, "\n", &save) : NULL; line;
	     line = strtok_r(NULL, "\n", &save))
		if (sscanf(line, "%127s %ld", name, &count) == 2 && !strcmp(name, func))
			n = count;
	free(all);
	return n;
}

/* The stats line of ev/@event, or NULL (static buffer). */
static const char *stats_line(const char *event)
{
	static char line[512];
	char *all = read_file(INK_DIR "/stats", NULL), *p, want[64];

	snprintf(want, sizeof(want), "ev/%s ", event);
	p = all ? strstr(all, want) : NULL;
	if (p && (p == all || p[-1] == '\n')) {
		snprintf(line, sizeof(line), "%.*s", (int)strcspn(p, "\n"), p);
		free(all);
		return line;
	}
	free(all);
	return NULL;
}

/* The pid of an ftrace-style line "<comm>-<pid> [<cpu>] ...", or -1. */
static long line_pid(const char *line)
{
	const char *bracket = strstr(line, " ["), *dash;

	if (!bracket)
		return -1;
	while (bracket > line && bracket[-1] == ' ')
		bracket--;
	for (dash = bracket; dash > line && dash[-1] != '-'; dash--)
		;
	return dash > line ? strtol(dash, NULL, 10) : -1;
}

/*
 * A loop device's page cache written, then written again with O_DIRECT:
 * the direct write invalidates the cached folios, locking each
 * (invalidate_inode_pages2_range()).
 */
static int block_device_cache(void)
{
	static char buf[65536] __attribute__((aligned(4096)));
	const char *image = "/tmp/everyday_test.disk";
	int fd, dfd, ret = -1;
	char dev[64];

	if (loop_attach(image, 1, dev, sizeof(dev)))
		return -1;
	memset(buf, 'y', sizeof(buf));
	/* the buffered opener stays: the last close would drop the cache */
	fd = open(dev, O_RDWR);
	dfd = open(dev, O_RDWR | O_DIRECT);
	if (fd >= 0 && dfd >= 0 && pwrite(fd, buf, sizeof(buf), 0) == (ssize_t)sizeof(buf) &&
	    pwrite(dfd, buf, sizeof(buf), 0) == (ssize_t)sizeof(buf))
		ret = 0;
	if (dfd >= 0)
		close(dfd);
	if (fd >= 0)
		close(fd);
	loop_detach(image, dev);
	return ret;
}

/*
 * Children that exit at once; a file written, mapped shared and written
 * through the mapping, searched for holes, cut short mid-page; dropped
 * caches.
 */
static int workload(pid_t *last_child)
{
	static char buf[65536];
	const char *path = "/tmp/everyday_test.dat";
	int i, fd, status;
	char *map;

	for (i = 0; i < 4; i++) {
		pid_t pid = fork();

		if (pid < 0)
			return -1;
		if (!pid)
			_exit(0);
		if (waitpid(pid, &status, 0) != pid)
			return -1;
		*last_child = pid;
	}
	memset(buf, 'x', sizeof(buf));
	fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600);
	if (fd < 0)
		return -1;
	for (i = 0; i < 16; i++)
		if (write(fd, buf, sizeof(buf)) != (ssize_t)sizeof(buf))
			return -1;
	fsync(fd);
	map = mmap(NULL, 16 * sizeof(buf), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (map == MAP_FAILED)
		return -1;
	for (i = 0; i < 16 * (int)sizeof(buf); i += 4096)
		map[i]++;
	msync(map, 16 * sizeof(buf), MS_SYNC);
	munmap(map, 16 * sizeof(buf));
	/* holes and data (locks folios on tmpfs), partial pages cut off */
	for (i = 0; i < 4; i++) {
		lseek(fd, 4096 * i, SEEK_DATA);
		lseek(fd, 4096 * i, SEEK_HOLE);
		if (ftruncate(fd, 16 * sizeof(buf) - 1000 * (i + 1)))
			return -1;
	}
	if (pread(fd, buf, 4096, 0) != 4096)
		return -1;
	close(fd);
	unlink(path);
	write_file("/proc/sys/vm/drop_caches", "1", false);
	usleep(20000);
	return block_device_cache();
}

FIXTURE(everyday) {
	pid_t child;
};

FIXTURE_SETUP(everyday)
{
	if (module_loaded("inkprobe"))
		ASSERT_EQ(0, unload_module("inkprobe"));
	ASSERT_EQ(0, load_module_params(kmod_path("inkprobe.ko"), "buffer_kb=4096"));
	ASSERT_EQ(0, load_blob(blob_path("vmlinux.inkb"))) TH_LOG("%s", last_error());
	ASSERT_EQ(0, clear_errors());
	system("mount -t tracefs nodev " TRACING " 2>/dev/null");
	drain_events();
}

FIXTURE_TEARDOWN(everyday)
{
	clear_probes();
	write_file(TRACING "/events/evkp/enable", "0", false);
	write_file(TRACING "/kprobe_events", "", false);
	unload_module("inkprobe");
	setup_target();
}

/*
 * @h attaches to each of its blob instances, none refused, and records
 * events under the workload; its events' lines go to @lines (malloc'd).
 */
static int attach_and_record(struct __test_metadata *_metadata, FIXTURE_DATA(everyday) *self,
			     const struct helper *h, char **lines, int *nr)
{
	long want = blob_instances(h->func);
	char cmd[256], name[64];
	const char *st;
	unsigned int probes = 0, live = 0, refused = ~0U;
	int n, i, mine = 0;

	if (want <= 0) {
		TH_LOG("everyday.txt has no instances of %s", h->func);
		return -1;
	}
	snprintf(cmd, sizeof(cmd), "p:ev/%s %s%s", h->event, h->func, h->args);
	if (probes_cmd(cmd, true)) {
		TH_LOG("%s: %s", cmd, last_error());
		return -1;
	}
	st = stats_line(h->event);
	if (!st || sscanf(st, "%*s probes=%u live=%u", &probes, &live) != 2 ||
	    !strstr(st, " refused=") || sscanf(strstr(st, " refused=") + 9, "%u", &refused) != 1) {
		TH_LOG("no stats line for ev/%s", h->event);
		return -1;
	}
	TH_LOG("%s: %ld instances (perf's, with the listed differences); %s", h->func, want, st);
	EXPECT_EQ((unsigned int)want, probes);
	EXPECT_EQ((unsigned int)want, live);
	EXPECT_EQ(0U, refused);
	EXPECT_EQ(0, workload(&self->child));
	/* the workload's events are in by now: no more, read them, then remove it */
	snprintf(cmd, sizeof(cmd), INK_DIR "/events/ev/%s/enable", h->event);
	EXPECT_EQ(0, write_file(cmd, "0", false));
	snprintf(name, sizeof(name), " ev:%s: (", h->event);
	n = read_events(lines, MAX_LINES, 500);
	st = stats_line(h->event);
	TH_LOG("%s", st ? st : "no stats line");
	snprintf(cmd, sizeof(cmd), "-:ev/%s", h->event);
	EXPECT_EQ(0, probes_cmd(cmd, true));
	for (i = 0; i < n; i++)
		if (strstr(lines[i], name))
			lines[mine++] = lines[i];
		else
			free(lines[i]);
	*nr = mine;
	TH_LOG("%s: %d events", h->func, mine);
	EXPECT_LT(0, mine);
	return 0;
}

/*
 * folio_lock's folio is one that folio_unlock() (out of line, exported: a
 * kprobe_events probe reads its first argument register) unlocks in the
 * same task: the workload's folios are on tmpfs and in a loop device's
 * page cache, locked and unlocked by the task that writes, maps, seeks,
 * truncates and invalidates them, with no I/O that would unlock them
 * elsewhere.  An instance where the DWARF has no location for folio prints
 * (optimized out) (6.1's __filemap_get_folio(): perf probe -D has no
 * location there either, \deade12d); the loop device's invalidation
 * reaches one that has (invalidate_inode_pages2_range(): folio in %r15 on
 * both kernels), so values are always checked.
 */
TEST_F_TIMEOUT(everyday, folio_lock_same_folio_as_folio_unlock, 600)
{
	char *lines[MAX_LINES], *trace, *line, *save = NULL;
	unsigned long long *unlocked = NULL, folio;
	size_t nr_unlocked = 0, k;
	int n = 0, i, ours = 0, unavailable = 0;
	long me = getpid();
	const char *p;

	ASSERT_EQ(0, write_file(TRACING "/kprobe_events",
				"p:evkp/folio_unlock folio_unlock folio=%di:x64", false));
	ASSERT_EQ(0, write_file(TRACING "/trace", "", false));
	ASSERT_EQ(0, write_file(TRACING "/events/evkp/enable", "1", false));
	ASSERT_EQ(0, attach_and_record(_metadata, self, &helpers[1], lines, &n));
	ASSERT_EQ(0, write_file(TRACING "/events/evkp/enable", "0", false));
	trace = read_file(TRACING "/trace", NULL);
	ASSERT_NE(NULL, trace);
	for (line = strtok_r(trace, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		if (line[0] == '#' || line_pid(line) != me || !strstr(line, " folio_unlock:"))
			continue;
		p = strstr(line, " folio=");
		ASSERT_NE(NULL, p);
		unlocked = realloc(unlocked, (nr_unlocked + 1) * sizeof(*unlocked));
		ASSERT_NE(NULL, unlocked);
		unlocked[nr_unlocked++] = strtoull(p + 7, NULL, 16);
	}
	free(trace);
	TH_LOG("pid %ld: %zu folio_unlock events", me, nr_unlocked);
	ASSERT_LT(0U, nr_unlocked);
	for (i = 0; i < n; i++) {
		if (line_pid(lines[i]) != me)
			continue;
		p = strstr(lines[i], " folio=");
		ASSERT_NE(NULL, p) TH_LOG("%s", lines[i]);
		if (!strncmp(p + 7, "(optimized out)", 15)) {
			unavailable++;
			continue;
		}
		folio = strtoull(p + 7, NULL, 16);
		for (k = 0; k < nr_unlocked && unlocked[k] != folio; k++)
			;
		EXPECT_LT(k, nr_unlocked) TH_LOG("never unlocked: %s", lines[i]);
		if (ours < 8)
			TH_LOG("%s", lines[i]);
		ours++;
	}
	TH_LOG("pid %ld: %d folio_lock events with a value, %d (optimized out)", me, ours,
	       unavailable);
	EXPECT_LT(0, ours);
	free(unlocked);
	free_lines(lines, n);
}

TEST_F_TIMEOUT(everyday, rcu_read_lock, 600)
{
	char *lines[MAX_LINES];
	int n = 0;

	ASSERT_EQ(0, attach_and_record(_metadata, self, &helpers[2], lines, &n));
	free_lines(lines, n);
}

TEST_F_TIMEOUT(everyday, cond_resched, 600)
{
	char *lines[MAX_LINES];
	int n = 0;

	ASSERT_EQ(0, attach_and_record(_metadata, self, &helpers[3], lines, &n));
	free_lines(lines, n);
}

/* mmap_read_lock's mm is the one mmput() gets in the same (exiting) child */
TEST_F_TIMEOUT(everyday, mmap_read_lock_same_mm_as_mmput, 600)
{
	char *lines[MAX_LINES], *trace, *line, *save = NULL;
	unsigned long long mm, put = 0;
	int n = 0, i, ours = 0, puts = 0;
	const char *p;

	ASSERT_EQ(0, write_file(TRACING "/kprobe_events", "p:evkp/mmput mmput mm=%di:x64",
				false));
	ASSERT_EQ(0, write_file(TRACING "/trace", "", false));
	ASSERT_EQ(0, write_file(TRACING "/events/evkp/enable", "1", false));
	ASSERT_EQ(0, attach_and_record(_metadata, self, &helpers[0], lines, &n));
	ASSERT_EQ(0, write_file(TRACING "/events/evkp/enable", "0", false));
	trace = read_file(TRACING "/trace", NULL);
	ASSERT_NE(NULL, trace);
	for (line = strtok_r(trace, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		if (line[0] == '#' || line_pid(line) != self->child || !strstr(line, " mmput:"))
			continue;
		p = strstr(line, " mm=");
		ASSERT_NE(NULL, p);
		mm = strtoull(p + 4, NULL, 16);
		if (puts++)
			EXPECT_EQ(put, mm);
		put = mm;
	}
	free(trace);
	TH_LOG("child %d: %d mmput events, mm 0x%llx", self->child, puts, put);
	ASSERT_LT(0, puts);
	ASSERT_NE(0ULL, put);
	for (i = 0; i < n; i++) {
		if (line_pid(lines[i]) != self->child)
			continue;
		p = strstr(lines[i], " mm=");
		ASSERT_NE(NULL, p) TH_LOG("%s", lines[i]);
		EXPECT_EQ(put, strtoull(p + 4, NULL, 16)) TH_LOG("%s", lines[i]);
		ours++;
	}
	TH_LOG("child %d: %d mmap_read_lock events", self->child, ours);
	EXPECT_LT(0, ours);
	free_lines(lines, n);
}

TEST_HARNESS_MAIN
