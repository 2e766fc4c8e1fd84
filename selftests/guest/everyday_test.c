// SPDX-License-Identifier: GPL-2.0
/* inkprobe-kernels: !debug -- instance counts from perf probe on Debian's DWARF: agreement, not memory safety (the attach path it drives runs on debug in attach_test, stress_test) */
/*
 * Everyday helpers a new user probes first, on the vmlinux blob:
 * mmap_read_lock(mm), folio_lock(folio), rcu_read_lock() and
 * _cond_resched().  Each probe must attach to exactly the instances perf
 * probe's own DWARF reader finds, less and plus the differences listed and
 * confirmed in selftests/everyday-differences.txt (scripts/everyday-counts
 * writes everyday.txt on the host: "NAME COUNT" lines; nothing of it comes
 * from inkprobe), with none refused by kprobes, those in functions ftrace
 * cannot trace refused as kprobe_events refuses them (the oracle: ftrace's
 * available_filter_functions, by the callers' addresses in kallsyms), and
 * record events under a workload.  folio_lock's folio must be one that a
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

/* A name per line of a file, sorted, for bsearch(). */
struct names {
	char **v;
	size_t n;
};

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static bool has_name(const struct names *s, const char *name)
{
	return s->n && bsearch(&name, s->v, s->n, sizeof(*s->v), cmp_str);
}

/* available_filter_functions: the functions ftrace can trace, " [module]" cut. */
static int traceable_names(struct names *s)
{
	char *all = read_file(TRACING "/available_filter_functions", NULL), *line, *save = NULL;
	size_t cap = 0;

	s->v = NULL;
	s->n = 0;
	for (line = all ? strtok_r(all, "\n", &save) : NULL; line;
	     line = strtok_r(NULL, "\n", &save)) {
		line[strcspn(line, " \t")] = '\0';
		if (s->n == cap) {
			cap = cap ? 2 * cap : 65536;
			s->v = realloc(s->v, cap * sizeof(*s->v));
			if (!s->v)
				return -1;
		}
		s->v[s->n++] = strdup(line);
	}
	free(all);
	qsort(s->v, s->n, sizeof(*s->v), cmp_str);
	return all ? 0 : -1;
}

/* kallsyms' text symbols, by name and by address. */
struct sym {
	unsigned long long addr;
	char *name;
};

struct syms {
	struct sym *by_name, *by_addr;
	size_t n;
};

static int cmp_sym_name(const void *a, const void *b)
{
	return strcmp(((const struct sym *)a)->name, ((const struct sym *)b)->name);
}

static int cmp_sym_addr(const void *a, const void *b)
{
	unsigned long long x = ((const struct sym *)a)->addr, y = ((const struct sym *)b)->addr;

	return x < y ? -1 : x > y;
}

static int read_syms(struct syms *s)
{
	char *all = read_file("/proc/kallsyms", NULL), *line, *save = NULL, type, name[256];
	unsigned long long addr;
	size_t cap = 0;

	memset(s, 0, sizeof(*s));
	for (line = all ? strtok_r(all, "\n", &save) : NULL; line;
	     line = strtok_r(NULL, "\n", &save)) {
		if (sscanf(line, "%llx %c %255s", &addr, &type, name) != 3 || !strchr("tT", type))
			continue;
		if (s->n == cap) {
			cap = cap ? 2 * cap : 65536;
			s->by_name = realloc(s->by_name, cap * sizeof(*s->by_name));
			if (!s->by_name)
				return -1;
		}
		s->by_name[s->n].addr = addr;
		s->by_name[s->n++].name = strdup(name);
	}
	free(all);
	if (!all || !s->n)
		return -1;
	s->by_addr = malloc(s->n * sizeof(*s->by_addr));
	if (!s->by_addr)
		return -1;
	memcpy(s->by_addr, s->by_name, s->n * sizeof(*s->by_addr));
	qsort(s->by_name, s->n, sizeof(*s->by_name), cmp_sym_name);
	qsort(s->by_addr, s->n, sizeof(*s->by_addr), cmp_sym_addr);
	return 0;
}

static void free_syms(struct syms *s)
{
	size_t i;

	for (i = 0; i < s->n; i++)
		free(s->by_name[i].name);
	free(s->by_name);
	free(s->by_addr);
}

/*
 * Can ftrace trace @caller?  kprobe_events asks ftrace's tables about the
 * function at the probe's address; by name that is: some name kallsyms has
 * at an address of @caller's is one of ftrace's functions (aliases share
 * an address, ftrace lists one of them).  A NAME.cold or NAME.part.N
 * piece without an ftrace location counts as NAME (within_notrace_func()).
 */
static bool caller_traceable(const struct syms *ks, const struct names *tr, const char *caller)
{
	struct sym key = { .name = (char *)caller }, *at;
	char base[256];
	size_t i, j;

	if (has_name(tr, caller))
		return true;
	if (strchr(caller, '.')) {
		snprintf(base, sizeof(base), "%.*s", (int)strcspn(caller, "."), caller);
		if (has_name(tr, base))
			return true;
	}
	at = bsearch(&key, ks->by_name, ks->n, sizeof(key), cmp_sym_name);
	if (!at)
		return false;
	for (i = at - ks->by_name; i > 0 && !strcmp(ks->by_name[i - 1].name, caller); i--)
		;
	for (; i < ks->n && !strcmp(ks->by_name[i].name, caller); i++) {
		key.addr = ks->by_name[i].addr;
		at = bsearch(&key, ks->by_addr, ks->n, sizeof(key), cmp_sym_addr);
		for (j = at - ks->by_addr; at && j > 0 && ks->by_addr[j - 1].addr == key.addr; j--)
			;
		for (; at && j < ks->n && ks->by_addr[j].addr == key.addr; j++)
			if (has_name(tr, ks->by_addr[j].name))
				return true;
	}
	return false;
}

/*
 * The inlined instances of ev/@event (the sites file: its instances, their
 * callers) in callers ftrace cannot trace; -1 on error.
 */
static long notrace_instances(const char *event)
{
	char *sites = read_file(INK_DIR "/sites", NULL), *line, *save = NULL;
	char want[64], caller[256], kind[16];
	struct names tr;
	struct syms ks;
	long n = 0;
	size_t i;

	if (!sites || traceable_names(&tr) || read_syms(&ks)) {
		free(sites);
		return -1;
	}
	snprintf(want, sizeof(want), "ev/%s ", event);
	for (line = strtok_r(sites, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		if (strncmp(line, want, strlen(want)) ||
		    sscanf(line, "%*s %*u %*s %255[^+]+%*s %15s", caller, kind) != 2)
			continue;
		if (!strcmp(kind, "inlined") && !caller_traceable(&ks, &tr, caller))
			n++;
	}
	for (i = 0; i < tr.n; i++)
		free(tr.v[i]);
	free(tr.v);
	free_syms(&ks);
	free(sites);
	return n;
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
	unsigned int kb;
};

FIXTURE_SETUP(everyday)
{
	if (module_loaded("inkprobe"))
		ASSERT_EQ(0, unload_module("inkprobe"));
	ASSERT_EQ(0, load_module(kmod_path("inkprobe.ko")));
	ASSERT_EQ(0, load_blob(blob_path("vmlinux.inkb"))) TH_LOG("%s", last_error());
	ASSERT_EQ(0, clear_errors());
	system("mount -t tracefs nodev " TRACING " 2>/dev/null");
	ASSERT_EQ(0, events_instance(0));
	self->kb = events_buffer_kb();
	ASSERT_LT(0u, self->kb);
	ASSERT_EQ(0, events_instance(4096));
	drain_events();
}

FIXTURE_TEARDOWN(everyday)
{
	clear_probes();
	events_instance(self->kb);
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
	unsigned int probes = 0, live = 0, refused = ~0U, notrace = ~0U;
	long want_notrace;
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
	if (!st || sscanf(st, "%*s probes=%u live=%u refused=%u notrace=%u", &probes, &live,
			  &refused, &notrace) != 4) {
		TH_LOG("no stats line for ev/%s", h->event);
		return -1;
	}
	want_notrace = notrace_instances(h->event);
	TH_LOG("%s: %ld instances (perf's, with the listed differences), %ld in callers ftrace cannot trace; %s",
	       h->func, want, want_notrace, st);
	ASSERT_LE(0, want_notrace);
	EXPECT_EQ((unsigned int)want, probes);
	EXPECT_EQ((unsigned int)(want - want_notrace), live);
	EXPECT_EQ((unsigned int)want_notrace, refused);
	EXPECT_EQ((unsigned int)want_notrace, notrace);
	snprintf(cmd, sizeof(cmd), "ev/%s", h->event);
	EXPECT_EQ(0, events_enable(cmd));
	EXPECT_EQ(0, workload(&self->child));
	/* the workload's events are in by now: no more, read them, then remove it */
	snprintf(cmd, sizeof(cmd), EVENTS_INST "/events/ev/%s/enable", h->event);
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
