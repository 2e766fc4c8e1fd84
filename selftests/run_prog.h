/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Running a program from a test, on the host and in the guest: its exit
 * status and what it wrote, with a deadline after which it is killed (and
 * killed with the test, PR_SET_PDEATHSIG).
 */
#ifndef _INKPROBE_RUN_PROG_H
#define _INKPROBE_RUN_PROG_H

#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

struct run {
	int status;		/* exit status, or 128 + signal */
	char out[16384];
	char err[8192];
};

static inline void run_slurp(int fd, char *buf, size_t size)
{
	size_t len = 0;
	ssize_t n;

	lseek(fd, 0, SEEK_SET);
	while (len + 1 < size && (n = read(fd, buf + len, size - 1 - len)) > 0)
		len += n;
	buf[len] = '\0';
	close(fd);
}

/* Runs @prog with @argv (argv[0] included), killed after @secs seconds. */
static inline int run_argv(struct run *r, int secs, const char *prog, char *const argv[])
{
	int out = fileno(tmpfile()), err = fileno(tmpfile()), st = 0;
	time_t end = time(NULL) + secs;
	pid_t pid = fork();

	if (pid == 0) {
		dup2(out, 1);
		dup2(err, 2);
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		execvp(prog, argv);
		_exit(127);
	}
	while (pid > 0 && waitpid(pid, &st, WNOHANG) == 0) {
		if (time(NULL) > end) {
			kill(pid, SIGKILL);
			waitpid(pid, &st, 0);
			break;
		}
		usleep(20 * 1000);
	}
	r->status = pid < 0 ? -1 : WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
	run_slurp(out, r->out, sizeof(r->out));
	run_slurp(err, r->err, sizeof(r->err));
	return r->status;
}

/* run_argv() with NULL-terminated arguments after @prog. */
static inline int run_prog(struct run *r, int secs, const char *prog, ...)
{
	char *argv[40] = { (char *)prog };
	va_list ap;
	int n = 1;

	va_start(ap, prog);
	while (n < 39 && (argv[n] = va_arg(ap, char *)))
		n++;
	argv[n] = NULL;
	va_end(ap);
	return run_argv(r, secs, prog, argv);
}

#endif /* _INKPROBE_RUN_PROG_H */
