// SPDX-License-Identifier: GPL-2.0
/*
 * inkprobe stack PID
 *
 * The kernel stack of a task, unwound by inkprobe.ko: the thread ID is
 * written to the "stack" file and the text is read back from the same open
 * file until end of file.  A refusal is the write's errno (ESRCH: no such
 * task, EBUSY: running on another CPU) with the reason in error_log.
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "commands.h"
#include "debugfs.h"
#include "../common/util.h"

static const char stack_usage[] =
	"usage: inkprobe stack PID\n"
	"\n"
	"Prints the kernel stack of task PID (a thread ID: see ps -eL), unwound by\n"
	"inkprobe.ko with ORC.  A task running on another CPU cannot be unwound:\n"
	"try again.\n";

/* A thread ID: decimal, 1 to INT_MAX; 0 if @s is not one. */
static unsigned long parse_tid(const char *s)
{
	unsigned long v;
	char *end;

	if (!isdigit((unsigned char)*s))
		return 0;
	errno = 0;
	v = strtoul(s, &end, 10);
	return errno || *end || v > INT_MAX ? 0 : v;
}

int cmd_stack(int argc, char **argv)
{
	static const struct ctl_hint hints[] = {
		{ ESRCH, "no task has this ID: 'ps -eLo lwp,comm' lists them" },
		{ EBUSY, "the task is running on another CPU: try again" },
		{ 0 },
	};
	int ret = parse_simple_args(argc, argv, stack_usage, NULL, NULL, 1, 1), fd, err;
	char pid[16], what[64], chunk[4096], *mark;
	unsigned long tid;
	ssize_t n;

	if (ret >= 0)
		return ret;
	tid = parse_tid(argv[optind]);
	if (!tid) {
		fputs(stack_usage, stderr);
		return 2;
	}
	snprintf(pid, sizeof(pid), "%lu", tid);
	snprintf(what, sizeof(what), "stack %s", pid);
	mark = ctl_errlog_newest();
	fd = ctl_open("stack", O_RDWR);
	if (write(fd, pid, strlen(pid)) < 0) {
		err = errno;
		close(fd);
		ret = ctl_fail(mark, err, what, hints);
		free(mark);
		return ret;
	}
	free(mark);
	while ((n = read(fd, chunk, sizeof(chunk))) != 0) {
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			warnx("%s: %s", what, strerror(errno));
			close(fd);
			return 1;
		}
		fwrite(chunk, 1, n, stdout);
	}
	close(fd);
	if (fflush(stdout) || ferror(stdout)) {
		warnx("stdout: %s", strerror(errno));
		return 1;
	}
	return 0;
}
