// SPDX-License-Identifier: GPL-2.0
/*
 * Only root with CAP_SYS_ADMIN may touch inkprobe's files
 * (Documentation/control.rst, "Files"): every entry of
 * /sys/kernel/debug/inkprobe, an event's directory and enable file
 * included, has exactly the documented mode and belongs to root; an
 * unprivileged user is refused by the mode (EACCES) and root without
 * CAP_SYS_ADMIN by inkprobe (EPERM), file by file.
 *
 * The unprivileged user opens each file relative to a directory opened
 * before it gave up root: debugfs' own root directory (mode 0700 on most
 * systems) would otherwise refuse it before inkprobe's files are reached.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <linux/capability.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "guest_util.h"

#define PROBE	"p:perm/mix tgt_mix reg"

/* The documented modes; open() asks for what the mode gives root. */
static const struct {
	const char *path;	/* in INK_DIR; "" is INK_DIR itself */
	mode_t mode;
} entries[] = {
	{ "", S_IFDIR | 0755 },
	{ "blob", S_IFREG | 0200 },
	{ "blobs", S_IFREG | 0600 },
	{ "probes", S_IFREG | 0600 },
	{ "stats", S_IFREG | 0400 },
	{ "sites", S_IFREG | 0400 },
	{ "error_log", S_IFREG | 0600 },
	{ "stack", S_IFREG | 0600 },
	{ "frames", S_IFREG | 0600 },
	{ "loaded_blob", S_IFREG | 0600 },
};
#define NR_ENTRIES	(sizeof(entries) / sizeof(entries[0]))

static int open_flags(mode_t mode)
{
	return (mode & 0600) == 0600 ? O_RDWR : (mode & 0200) ? O_WRONLY : O_RDONLY;
}

/* Every entry nftw() finds must be listed, with its mode and owner. */
static unsigned int seen, unlisted, wrong;

static int visit(const char *path, const struct stat *st, int type, struct FTW *f)
{
	const char *rel = path + strlen(INK_DIR);
	unsigned int i;

	rel += *rel == '/';
	for (i = 0; i < NR_ENTRIES; i++)
		if (!strcmp(rel, entries[i].path))
			break;
	if (i == NR_ENTRIES) {
		fprintf(stderr, "# not documented: %s (mode %o)\n", path, st->st_mode);
		unlisted++;
		return 0;
	}
	seen++;
	if (st->st_mode != entries[i].mode || st->st_uid || st->st_gid) {
		fprintf(stderr, "# %s: mode %o uid %u gid %u, documented %o root\n", path,
			st->st_mode, st->st_uid, st->st_gid, entries[i].mode);
		wrong++;
	}
	return 0;
}

TEST(modes_and_owners_as_documented)
{
	ASSERT_EQ(0, setup_target());
	ASSERT_EQ(0, clear_probes());
	ASSERT_EQ(0, define_probe(PROBE));
	seen = unlisted = wrong = 0;
	ASSERT_EQ(0, nftw(INK_DIR, visit, 8, FTW_PHYS));
	EXPECT_EQ(NR_ENTRIES, seen);
	EXPECT_EQ(0u, unlisted);
	EXPECT_EQ(0u, wrong);
	ASSERT_EQ(0, clear_probes());
}

/*
 * In a child: open every file with @drop applied, relative to the
 * directory opened before; returns the errnos (0: opened).
 */
static int try_all(int (*drop)(void), int errs[NR_ENTRIES])
{
	int pipefd[2], status;
	pid_t pid;

	if (pipe(pipefd))
		return -1;
	pid = fork();
	if (!pid) {
		int e[NR_ENTRIES] = { 0 }, top;
		unsigned int i;

		close(pipefd[0]);
		top = open(INK_DIR, O_RDONLY | O_DIRECTORY);
		if (top < 0 || drop())
			_exit(2);
		for (i = 0; i < NR_ENTRIES; i++) {
			int fd;

			if (S_ISDIR(entries[i].mode))
				continue;
			fd = openat(top, entries[i].path, open_flags(entries[i].mode));
			e[i] = fd < 0 ? errno : 0;
			if (fd >= 0)
				close(fd);
		}
		if (write(pipefd[1], e, sizeof(e)) != sizeof(e))
			_exit(3);
		_exit(0);
	}
	close(pipefd[1]);
	if (read(pipefd[0], errs, NR_ENTRIES * sizeof(int)) != NR_ENTRIES * sizeof(int))
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

static void check_refused(struct __test_metadata *_metadata, int (*drop)(void), int want)
{
	int errs[NR_ENTRIES];
	unsigned int i, tried = 0;

	ASSERT_EQ(0, setup_target());
	ASSERT_EQ(0, clear_probes());
	ASSERT_EQ(0, define_probe(PROBE));
	ASSERT_EQ(0, try_all(drop, errs));
	for (i = 0; i < NR_ENTRIES; i++) {
		if (S_ISDIR(entries[i].mode))
			continue;
		tried++;
		EXPECT_EQ(want, errs[i]) TH_LOG("%s: %s", entries[i].path, strerror(errs[i]));
	}
	EXPECT_EQ(9u, tried);
	ASSERT_EQ(0, clear_probes());
}

TEST(unprivileged_user_refused)
{
	check_refused(_metadata, become_nobody, EACCES);
}

TEST(root_without_cap_sys_admin_refused)
{
	check_refused(_metadata, drop_sys_admin, EPERM);
}

TEST_HARNESS_MAIN
