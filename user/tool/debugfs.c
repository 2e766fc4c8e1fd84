// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/magic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <unistd.h>

#include "debugfs.h"
#include "../common/util.h"

#define DEBUGFS_ROOT	"/sys/kernel/debug"

static const char *ctl_dir(void)
{
	const char *dir = getenv("INKPROBE_DEBUGFS_DIR");

	return dir && *dir ? dir : DEBUGFS_ROOT "/inkprobe";
}

const char *ctl_path(const char *name)
{
	static char path[PATH_MAX];

	snprintf(path, sizeof(path), "%s/%s", ctl_dir(), name);
	return path;
}

static void __attribute__((noreturn)) open_failed(const char *name, int err)
{
	const char *path = ctl_path(name);
	struct statfs sfs;
	struct stat st;

	if ((err == EACCES || err == EPERM) && geteuid())
		die("%s: %s: must be root", path, strerror(err));
	if (err == EACCES || err == EPERM)
		die("%s: %s: inkprobe needs CAP_SYS_ADMIN and a debugfs that is not locked down",
		    path, strerror(err));
	if (err != ENOENT)
		die("%s: %s", path, strerror(err));
	if (!getenv("INKPROBE_DEBUGFS_DIR") &&
	    (statfs(DEBUGFS_ROOT, &sfs) || sfs.f_type != DEBUGFS_MAGIC))
		die("debugfs is not mounted: mount -t debugfs none " DEBUGFS_ROOT);
	if (stat(ctl_dir(), &st))
		die("inkprobe.ko is not loaded (no %s): insmod inkprobe.ko", ctl_dir());
	die("%s: no such file: this inkprobe.ko is older than the tool; "
	    "load the inkprobe.ko built with it", path);
}

int ctl_open(const char *name, int flags)
{
	int fd = open(ctl_path(name), flags | O_CLOEXEC);

	if (fd < 0)
		open_failed(name, errno);
	return fd;
}

/* All of @fd, NUL-terminated; NULL on a read error (errno set). */
static char *read_all(int fd)
{
	struct buf b = { 0 };
	char chunk[4096];
	ssize_t n;

	while ((n = read(fd, chunk, sizeof(chunk))) != 0) {
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			buf_free(&b);
			return NULL;
		}
		buf_add(&b, chunk, n);
	}
	buf_add_u8(&b, '\0');
	return (char *)b.data;
}

char *ctl_read(const char *name)
{
	int fd = ctl_open(name, O_RDONLY);
	char *text = read_all(fd);

	if (!text)
		die("%s: %s", ctl_path(name), strerror(errno));
	close(fd);
	return text;
}

unsigned char *ctl_read_blob(const char *target, size_t *len)
{
	int fd = ctl_open("loaded_blob", O_RDWR), err = 0;
	struct buf b = { 0 };
	char chunk[65536];
	ssize_t n;

	if (write(fd, target, strlen(target)) != (ssize_t)strlen(target)) {
		err = errno;
		goto out;
	}
	while ((n = read(fd, chunk, sizeof(chunk))) != 0) {
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			err = errno;
			goto out;
		}
		buf_add(&b, chunk, n);
	}
out:
	close(fd);
	if (err) {
		buf_free(&b);
		errno = err;
		return NULL;
	}
	*len = b.len;
	return b.data ? b.data : xcalloc(1, 1);
}

int ctl_cat(const char *name)
{
	char *text = ctl_read(name);

	fputs(text, stdout);
	free(text);
	if (fflush(stdout)) {
		warnx("stdout: %s", strerror(errno));
		return 1;
	}
	return 0;
}

char *ctl_errlog_newest(void)
{
	int fd = open(ctl_path("error_log"), O_RDONLY | O_CLOEXEC);
	char *log, *last;

	if (fd < 0)
		return NULL;
	log = read_all(fd);
	close(fd);
	if (!log || !*log) {
		free(log);
		return NULL;
	}
	for (last = log + strlen(log) - 1; last > log && !(last[-1] == '\n' && *last == '[');)
		last--;
	memmove(log, last, strlen(last) + 1);
	return log;
}

/*
 * Prints the kernel's message of error_log entry @e; its Command line and
 * caret too when the command has several words, so the caret tells which.
 */
static void print_entry(const char *what, char *e)
{
	static const char tag[] = "inkprobe: error: ";
	char *msg = strstr(e, tag), *cmd, *end;

	msg = msg ? msg + strlen(tag) : e;
	end = strchr(msg, '\n');
	if (end)
		*end++ = '\0';
	warnx("%s: %s", what, msg);
	cmd = end ? strstr(end, "Command: ") : NULL;
	if (cmd) {
		cmd += strlen("Command: ");
		if (memchr(cmd, ' ', strchrnul(cmd, '\n') - cmd))
			fputs(end, stderr);
	}
}

int ctl_fail(const char *mark, int err, const char *what, const struct ctl_hint *hints)
{
	char *e = ctl_errlog_newest();

	if (e && (!mark || strcmp(e, mark)))
		print_entry(what, e);
	else
		warnx("%s: %s", what, strerror(err));
	free(e);
	for (; hints && hints->err; hints++)
		if (hints->err == err)
			warnx("%s", hints->text);
	return 1;
}

int ctl_write(const char *name, int flags, const void *buf, size_t len)
{
	int fd = ctl_open(name, flags), err = 0;
	ssize_t n = write(fd, buf, len);

	if (n < 0)
		err = errno;
	else if ((size_t)n != len)
		err = EIO;
	if (close(fd) && !err)
		err = errno;
	return err;
}

int ctl_command(const char *name, int flags, const void *buf, size_t len, const char *what,
		const struct ctl_hint *hints)
{
	char *mark = ctl_errlog_newest();
	int err = ctl_write(name, flags, buf, len), ret = 0;

	if (err)
		ret = ctl_fail(mark, err, what, hints);
	free(mark);
	return ret;
}
