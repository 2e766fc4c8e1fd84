// SPDX-License-Identifier: GPL-2.0
/*
 * The events and their rings.  A ring is the metadata page then 2^n data
 * pages; the kernel writes records at data_head, we read from data_tail and
 * give the space back by storing data_tail (include/uapi/linux/
 * perf_event.h, struct perf_event_mmap_page).  A record that wraps around
 * the end is copied out whole before it is parsed.
 */
#include <dirent.h>
#include <errno.h>
#include <linux/perf_event.h>
#include <poll.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "perf_sampler.h"

#define SAMPLE_TYPE	(PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_CPU | \
			 PERF_SAMPLE_PERIOD | PERF_SAMPLE_CALLCHAIN)
#define RING_PAGES	16	/* data pages per ring: 64 KiB with 4 KiB pages */

struct ring {
	int fd;
	void *base;		/* the metadata page, then the data */
	size_t data_size;
	bool hup;		/* its thread ended: not polled */
};

struct perf_sampler {
	struct ring *rings;
	unsigned int nr;
	size_t page;
	uint64_t lost;
	uint64_t rec[8192];	/* one record, copied out of its ring; 8-byte aligned */
};

static long event_open(struct perf_event_attr *attr, int pid, int cpu)
{
	return syscall(SYS_perf_event_open, attr, pid, cpu, -1, PERF_FLAG_FD_CLOEXEC);
}

static int paranoid(void)
{
	FILE *fp = fopen("/proc/sys/kernel/perf_event_paranoid", "r");
	int v = 2;

	if (fp) {
		if (fscanf(fp, "%d", &v) != 1)
			v = 2;
		fclose(fp);
	}
	return v;
}

/* The online CPUs ("0-3,5"), into @cpus (malloc'd): how many, -1 if unknown. */
static int online_cpus(int **cpus)
{
	FILE *fp = fopen("/sys/devices/system/cpu/online", "r");
	int n = 0, a, b, c;
	char sep;

	*cpus = NULL;
	if (!fp)
		return -1;
	while (fscanf(fp, "%d", &a) == 1) {
		b = a;
		sep = (char)fgetc(fp);
		if (sep == '-') {
			if (fscanf(fp, "%d", &b) != 1)
				break;
			sep = (char)fgetc(fp);
		}
		for (c = a; c <= b; c++) {
			int *p = realloc(*cpus, (n + 1) * sizeof(**cpus));

			if (!p)
				break;
			*cpus = p;
			(*cpus)[n++] = c;
		}
		if (sep != ',')
			break;
	}
	fclose(fp);
	return n ? n : -1;
}

/* The threads of @pid now, into @tids (malloc'd): how many, -1 if @pid is not there. */
static int threads_of(int pid, int **tids)
{
	char path[64];
	struct dirent *de;
	DIR *d;
	int n = 0;

	*tids = NULL;
	snprintf(path, sizeof(path), "/proc/%d/task", pid);
	d = opendir(path);
	if (!d)
		return -1;
	while ((de = readdir(d))) {
		int *p, tid = atoi(de->d_name);

		if (tid <= 0)
			continue;
		p = realloc(*tids, (n + 1) * sizeof(**tids));
		if (!p)
			break;
		*tids = p;
		(*tids)[n++] = tid;
	}
	closedir(d);
	return n;
}

static void open_failed(int err, int pid, char *why, size_t why_len)
{
	if (err == EACCES || err == EPERM)
		snprintf(why, why_len,
			 "perf_event_open: %s: kernel stacks of %s need root (CAP_PERFMON) or "
			 "kernel.perf_event_paranoid <= %d (it is %d)", strerror(err),
			 pid < 0 ? "every CPU" : "a process", pid < 0 ? 0 : 1, paranoid());
	else if (err == ESRCH)
		snprintf(why, why_len, "perf_event_open: no process %d", pid);
	else
		snprintf(why, why_len, "perf_event_open: %s", strerror(err));
}

struct perf_sampler *perf_sampler_open(unsigned int hz, int pid, char *why, size_t why_len)
{
	struct perf_event_attr attr = {
		.type = PERF_TYPE_SOFTWARE,
		.size = sizeof(attr),
		.config = PERF_COUNT_SW_CPU_CLOCK,
		.sample_freq = hz,
		.sample_type = SAMPLE_TYPE,
		.freq = 1,
		.disabled = 1,
		.exclude_user = 1,
		.exclude_hv = 1,
		.exclude_callchain_user = 1,
		.inherit = 0,
		.wakeup_events = 1,
	};
	struct perf_sampler *s = calloc(1, sizeof(*s));
	int *ids = NULL, n, i;

	if (!s) {
		snprintf(why, why_len, "out of memory");
		return NULL;
	}
	s->page = (size_t)sysconf(_SC_PAGESIZE);
	n = pid < 0 ? online_cpus(&ids) : threads_of(pid, &ids);
	if (n <= 0) {
		if (pid < 0)
			snprintf(why, why_len, "cannot read /sys/devices/system/cpu/online");
		else
			snprintf(why, why_len, "no process %d", pid);
		goto fail;
	}
	s->rings = calloc((size_t)n, sizeof(*s->rings));
	if (!s->rings) {
		snprintf(why, why_len, "out of memory");
		goto fail;
	}
	for (i = 0; i < n; i++) {
		struct ring *r = &s->rings[s->nr];
		long fd = pid < 0 ? event_open(&attr, -1, ids[i]) : event_open(&attr, ids[i], -1);

		if (fd < 0) {
			/* a thread that ended meanwhile is no error */
			if (pid >= 0 && errno == ESRCH)
				continue;
			open_failed(errno, pid < 0 ? -1 : pid, why, why_len);
			goto fail;
		}
		r->fd = (int)fd;
		r->data_size = RING_PAGES * s->page;
		r->base = mmap(NULL, s->page + r->data_size, PROT_READ | PROT_WRITE, MAP_SHARED,
			       r->fd, 0);
		if (r->base == MAP_FAILED) {
			snprintf(why, why_len, "mmap of a perf ring: %s%s", strerror(errno),
				 errno == EPERM ? " (perf_event_mlock_kb)" : "");
			close(r->fd);
			goto fail;
		}
		s->nr++;
	}
	if (!s->nr) {
		snprintf(why, why_len, "no thread of process %d left", pid);
		goto fail;
	}
	free(ids);
	return s;
fail:
	free(ids);
	perf_sampler_close(s);
	return NULL;
}

void perf_sampler_enable(struct perf_sampler *s)
{
	unsigned int i;

	for (i = 0; i < s->nr; i++)
		ioctl(s->rings[i].fd, PERF_EVENT_IOC_ENABLE, 0);
}

void perf_sampler_disable(struct perf_sampler *s)
{
	unsigned int i;

	for (i = 0; i < s->nr; i++)
		ioctl(s->rings[i].fd, PERF_EVENT_IOC_DISABLE, 0);
}

unsigned int perf_sampler_events(const struct perf_sampler *s)
{
	return s->nr;
}

uint64_t perf_sampler_lost(const struct perf_sampler *s)
{
	return s->lost;
}

/* Every record ring @r holds now. */
static void drain(struct perf_sampler *s, struct ring *r,
		  void (*fn)(void *ctx, const struct perf_sample *sample), void *ctx)
{
	struct perf_event_mmap_page *meta = r->base;
	const uint8_t *data = (const uint8_t *)r->base + s->page;
	uint64_t head = __atomic_load_n(&meta->data_head, __ATOMIC_ACQUIRE);
	uint64_t tail = meta->data_tail;
	struct perf_event_header h;
	struct perf_sample sample;

	while (tail + sizeof(h) <= head) {
		size_t at = tail % r->data_size, first;

		memcpy(&h, data + at, sizeof(h));	/* 8-byte aligned: never wraps */
		if (h.size < sizeof(h) || tail + h.size > head)
			break;
		/* a record is at most 64 KiB (u16 size): s->rec holds any */
		first = r->data_size - at < h.size ? r->data_size - at : h.size;
		memcpy(s->rec, data + at, first);
		memcpy((uint8_t *)s->rec + first, data, h.size - first);
		if (h.type == PERF_RECORD_SAMPLE &&
		    !perf_sample_parse((const uint8_t *)s->rec + sizeof(h), h.size - sizeof(h),
				       SAMPLE_TYPE, 0, &sample))
			fn(ctx, &sample);
		else if (h.type == PERF_RECORD_LOST)
			s->lost += s->rec[2];	/* header, id, lost */
		tail += h.size;
	}
	__atomic_store_n(&meta->data_tail, tail, __ATOMIC_RELEASE);
}

void perf_sampler_read(struct perf_sampler *s, int timeout_ms,
		       void (*fn)(void *ctx, const struct perf_sample *sample), void *ctx)
{
	struct pollfd *pfd = calloc(s->nr, sizeof(*pfd));
	unsigned int i;

	if (pfd) {
		for (i = 0; i < s->nr; i++)
			pfd[i] = (struct pollfd){
				.fd = s->rings[i].hup ? -1 : s->rings[i].fd, .events = POLLIN,
			};
		poll(pfd, s->nr, timeout_ms);
		for (i = 0; i < s->nr; i++)
			if (pfd[i].revents & (POLLHUP | POLLERR))
				s->rings[i].hup = true;
		free(pfd);
	}
	for (i = 0; i < s->nr; i++)
		drain(s, &s->rings[i], fn, ctx);
}

void perf_sampler_close(struct perf_sampler *s)
{
	unsigned int i;

	if (!s)
		return;
	for (i = 0; i < s->nr; i++) {
		munmap(s->rings[i].base, s->page + s->rings[i].data_size);
		close(s->rings[i].fd);
	}
	free(s->rings);
	free(s);
}
