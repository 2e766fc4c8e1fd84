// SPDX-License-Identifier: GPL-2.0
/*
 * Only root with CAP_SYS_ADMIN may touch inkprobe's files: the modes say
 * root-only, an unprivileged user is refused, and so is root without
 * CAP_SYS_ADMIN.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/capability.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "guest_util.h"

static const char *const files[] = {
	"blob", "blobs", "probes", "trace_pipe", "stats", "error_log",
};

/* In a child: open every file for reading or writing; returns the errnos. */
static int try_all(int (*drop)(void), int errs[])
{
	int pipefd[2], status;
	pid_t pid;

	if (pipe(pipefd))
		return -1;
	pid = fork();
	if (!pid) {
		int e[6] = { 0 };
		unsigned int i;

		close(pipefd[0]);
		if (drop())
			_exit(2);
		for (i = 0; i < 6; i++) {
			char path[128];
			int fd;

			snprintf(path, sizeof(path), INK_DIR "/%s", files[i]);
			fd = open(path, !strcmp(files[i], "blob") ? O_WRONLY : O_RDONLY);
			e[i] = fd < 0 ? errno : 0;
			if (fd >= 0)
				close(fd);
		}
		if (write(pipefd[1], e, sizeof(e)) != sizeof(e))
			_exit(3);
		_exit(0);
	}
	close(pipefd[1]);
	if (read(pipefd[0], errs, 6 * sizeof(int)) != 6 * sizeof(int))
		errs[0] = -1;
	close(pipefd[0]);
	waitpid(pid, &status, 0);
	return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

static int become_nobody(void)
{
	return setgid(65534) || setuid(65534);
}

static int drop_sys_admin(void)
{
	struct __user_cap_header_struct hdr = { .version = _LINUX_CAPABILITY_VERSION_3 };
	struct __user_cap_data_struct data[2];

	if (syscall(SYS_capget, &hdr, data))
		return -1;
	data[CAP_SYS_ADMIN / 32].effective &= ~(1u << (CAP_SYS_ADMIN % 32));
	data[CAP_SYS_ADMIN / 32].permitted &= ~(1u << (CAP_SYS_ADMIN % 32));
	return syscall(SYS_capset, &hdr, data);
}

TEST(modes_are_root_only)
{
	unsigned int i;

	ASSERT_EQ(0, setup_target());
	for (i = 0; i < 6; i++) {
		char path[128];
		struct stat st;

		snprintf(path, sizeof(path), INK_DIR "/%s", files[i]);
		ASSERT_EQ(0, stat(path, &st));
		EXPECT_EQ(0u, st.st_mode & 077) {
			TH_LOG("%s mode %o", files[i], st.st_mode);
		}
		EXPECT_EQ(0u, st.st_uid);
	}
}

TEST(unprivileged_user_refused)
{
	int errs[6], i;

	ASSERT_EQ(0, setup_target());
	ASSERT_EQ(0, try_all(become_nobody, errs));
	for (i = 0; i < 6; i++) {
		if (errs[i] != EACCES)
			TH_LOG("%s: %s", files[i], strerror(errs[i]));
		EXPECT_EQ(EACCES, errs[i]);
	}
}

TEST(root_without_cap_sys_admin_refused)
{
	int errs[6], i;

	ASSERT_EQ(0, setup_target());
	ASSERT_EQ(0, try_all(drop_sys_admin, errs));
	for (i = 0; i < 6; i++) {
		if (errs[i] != EPERM)
			TH_LOG("%s: %s", files[i], strerror(errs[i]));
		EXPECT_EQ(EPERM, errs[i]);
	}
}

TEST_HARNESS_MAIN
