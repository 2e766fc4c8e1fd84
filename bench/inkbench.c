// SPDX-License-Identifier: GPL-2.0
/*
 * Guest-side helpers for make bench, where shell timing is too coarse:
 *
 *   inkbench read FILE MATCH
 *	A trace_pipe reader: blocking reads of FILE until SIGTERM or SIGINT,
 *	then whatever is left (non-blocking, until the file stays empty for
 *	200 ms).  Prints "lines=N match=M lost=L": every line, the lines that
 *	contain MATCH, and the sum of ftrace's "[LOST N EVENTS]" markers.
 *
 *   inkbench pace TRIGGER RATE SECONDS
 *	Writes "bench B" to TRIGGER so that RATE calls per second are made
 *	for SECONDS: bursts of B = RATE/1000 calls (1 to 256) on a fixed
 *	schedule.  A writer that falls behind does not catch up in one go: it
 *	restarts the schedule.  Prints "calls=N secs=S rate=R".
 *
 *   inkbench flat TRIGGER SECONDS
 *	"bench 256" back to back for SECONDS: as many calls as the CPU allows.
 *	Prints "calls=N secs=S rate=R".
 *
 *   inkbench opcode ADDR
 *	The byte of kernel text at ADDR (hex), read through /proc/kcore: e9
 *	once kprobes has put its jump there (an optimized probe), cc for an
 *	int3.  The kprobes list says [OPTIMIZED] as soon as a probe is queued
 *	for optimization, a while before the jump is written.
 */
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define READ_BUF	(64 * 1024)
#define LINE_MAX_LEN	4096
#define MAX_BURST	256

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	stop = 1;
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

struct counts {
	unsigned long long lines, match, lost;
	char line[LINE_MAX_LEN];
	size_t len;
};

static void end_line(struct counts *c, const char *match)
{
	const char *p;

	c->line[c->len] = '\0';
	c->lines++;
	if (strstr(c->line, match))
		c->match++;
	p = strstr(c->line, "[LOST ");
	if (p)
		c->lost += strtoull(p + 6, NULL, 10);
	c->len = 0;
}

static void count(struct counts *c, const char *buf, ssize_t n, const char *match)
{
	ssize_t i;

	for (i = 0; i < n; i++) {
		if (buf[i] == '\n')
			end_line(c, match);
		else if (c->len < LINE_MAX_LEN - 1)
			c->line[c->len++] = buf[i];
	}
}

static int cmd_read(const char *path, const char *match)
{
	struct sigaction sa = { .sa_handler = on_signal };	/* no SA_RESTART */
	static char buf[READ_BUF];
	static struct counts c;
	int fd, quiet = 0;
	ssize_t n;

	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	fd = open(path, O_RDONLY);
	if (fd < 0) {
		fprintf(stderr, "inkbench: %s: %s\n", path, strerror(errno));
		return 1;
	}
	while (!stop) {
		n = read(fd, buf, sizeof(buf));
		if (n > 0)
			count(&c, buf, n, match);
		else if (n < 0 && errno != EINTR)
			break;
	}
	/* the rest, without blocking: done when nothing came for 200 ms */
	fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
	while (quiet < 20) {
		n = read(fd, buf, sizeof(buf));
		if (n > 0) {
			count(&c, buf, n, match);
			quiet = 0;
		} else {
			usleep(10000);
			quiet++;
		}
	}
	close(fd);
	printf("lines=%llu match=%llu lost=%llu\n", c.lines, c.match, c.lost);
	return 0;
}

static int trigger(int fd, unsigned long n)
{
	char cmd[32];
	int len = snprintf(cmd, sizeof(cmd), "bench %lu", n);

	return write(fd, cmd, len) == len ? 0 : -1;
}

static int open_trigger(const char *path)
{
	int fd = open(path, O_WRONLY);

	if (fd < 0)
		fprintf(stderr, "inkbench: %s: %s\n", path, strerror(errno));
	return fd;
}

static void sleep_until(double t)
{
	struct timespec ts = { .tv_sec = (time_t)t };

	ts.tv_nsec = (long)((t - ts.tv_sec) * 1e9);
	while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
		;
}

static int cmd_pace(const char *path, double rate, double secs)
{
	unsigned long burst = rate / 1000, calls = 0, k = 0;
	double t0, start, end, period;
	int fd = open_trigger(path);

	if (fd < 0)
		return 1;
	if (burst < 1)
		burst = 1;
	if (burst > MAX_BURST)
		burst = MAX_BURST;
	period = burst / rate;
	t0 = start = now();
	end = start + secs;
	while (now() < end) {
		double due = t0 + k * period;

		if (now() < due)
			sleep_until(due);
		else if (now() - due > 10 * period) {	/* behind: no catch-up burst */
			t0 = now();
			k = 0;
		}
		if (trigger(fd, burst)) {
			fprintf(stderr, "inkbench: write %s: %s\n", path, strerror(errno));
			close(fd);
			return 1;
		}
		calls += burst;
		k++;
	}
	secs = now() - start;
	close(fd);
	printf("calls=%lu secs=%.3f rate=%.0f\n", calls, secs, calls / secs);
	return 0;
}

static int cmd_flat(const char *path, double secs)
{
	unsigned long calls = 0;
	double start = now();
	int fd = open_trigger(path);

	if (fd < 0)
		return 1;
	while (now() < start + secs) {
		if (trigger(fd, MAX_BURST)) {
			fprintf(stderr, "inkbench: write %s: %s\n", path, strerror(errno));
			close(fd);
			return 1;
		}
		calls += MAX_BURST;
	}
	secs = now() - start;
	close(fd);
	printf("calls=%lu secs=%.3f rate=%.0f\n", calls, secs, calls / secs);
	return 0;
}

static int cmd_opcode(const char *arg)
{
	unsigned long long addr = strtoull(arg, NULL, 16);
	Elf64_Ehdr eh;
	Elf64_Phdr ph;
	unsigned char byte;
	int fd, i;

	fd = open("/proc/kcore", O_RDONLY);
	if (fd < 0 || pread(fd, &eh, sizeof(eh), 0) != sizeof(eh) ||
	    memcmp(eh.e_ident, ELFMAG, SELFMAG) || eh.e_ident[EI_CLASS] != ELFCLASS64) {
		fprintf(stderr, "inkbench: /proc/kcore: cannot read its ELF header\n");
		return 1;
	}
	for (i = 0; i < eh.e_phnum; i++) {
		if (pread(fd, &ph, sizeof(ph), eh.e_phoff + (off_t)i * eh.e_phentsize) != sizeof(ph))
			break;
		if (ph.p_type != PT_LOAD || addr < ph.p_vaddr || addr >= ph.p_vaddr + ph.p_memsz)
			continue;
		if (pread(fd, &byte, 1, ph.p_offset + (addr - ph.p_vaddr)) != 1)
			break;
		printf("%02x\n", byte);
		close(fd);
		return 0;
	}
	fprintf(stderr, "inkbench: %llx: not readable in /proc/kcore\n", addr);
	close(fd);
	return 1;
}

static int usage(void)
{
	fprintf(stderr, "usage: inkbench read FILE MATCH\n"
			"       inkbench pace TRIGGER RATE SECONDS\n"
			"       inkbench flat TRIGGER SECONDS\n"
			"       inkbench opcode ADDR\n");
	return 2;
}

int main(int argc, char **argv)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc == 4 && !strcmp(argv[1], "read"))
		return cmd_read(argv[2], argv[3]);
	if (argc == 5 && !strcmp(argv[1], "pace") && atof(argv[3]) > 0)
		return cmd_pace(argv[2], atof(argv[3]), atof(argv[4]));
	if (argc == 4 && !strcmp(argv[1], "flat"))
		return cmd_flat(argv[2], atof(argv[3]));
	if (argc == 3 && !strcmp(argv[1], "opcode"))
		return cmd_opcode(argv[2]);
	return usage();
}
