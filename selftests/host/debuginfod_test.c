// SPDX-License-Identifier: GPL-2.0
/*
 * Build IDs and debuginfod on the host (Documentation/debuginfod.rst).
 *
 * The ELF note parser (user/common/build_id.c) on crafted notes: every cut, sizes
 * out of range, other owners and types before the build ID.
 *
 * Then a real debuginfod (elfutils 0.188, Debian's) serving a directory
 * that holds, by symbolic link, the first test kernel's inkprobe_target.ko
 * and the file 'inkprobe publish' makes of its blob; and in a second case
 * the kernel's 633 MB vmlinux-dbg with its published blob.  The server can
 * only listen on every address (0.188 has no option to bind one), so each
 * case runs in a network namespace of its own with nothing but loopback up:
 * the server and the tool reach each other on 127.0.0.1 and nothing else
 * exists.  The server is killed by the fixture's teardown, and by the
 * kernel if the test dies (PR_SET_PDEATHSIG); every wait is bounded.
 *
 * Asserted: debuginfod indexes the published file as an executable and the
 * DWARF file as a debuginfo; gen --build-id, --running-kernel and --module
 * (on a sysfs made here: $INKPROBE_SYSFS_DIR) give the same bytes as gen on
 * the local file; load by build ID writes exactly the blob's bytes to the
 * blob file ($INKPROBE_DEBUGFS_DIR), and says which targets had none; the
 * DWARF in libdebuginfod's cache hides a section from
 * debuginfod_find_section(), which is why load keeps a cache of its own.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "host_test.h"
#include "../../user/common/build_id.h"
#include "../debuginfod_server.h"

/* ---- the note parser ---- */

static size_t put_note(uint8_t *p, uint32_t namesz, const char *name, uint32_t descsz,
		       const void *desc, uint32_t type)
{
	uint32_t hdr[3] = { namesz, descsz, type };
	size_t n = 12;

	memcpy(p, hdr, 12);
	memset(p + n, 0, (namesz + 3) & ~3U);
	memcpy(p + n, name, namesz);
	n += (namesz + 3) & ~3U;
	memset(p + n, 0, (descsz + 3) & ~3U);
	memcpy(p + n, desc, descsz);
	return n + ((descsz + 3) & ~3U);
}

static const uint8_t id20[20] = {
	0xa3, 0x3e, 0x6e, 0xcb, 0x1f, 0xab, 0x9e, 0xf9, 0xe3, 0x1b,
	0xe3, 0xb2, 0xf0, 0xcc, 0x4a, 0x1f, 0xac, 0x9b, 0x0d, 0xe9,
};

/* notes as /sys/kernel/notes has them: Xen, Linux, a GNU ABI tag, the build ID */
static size_t kernel_like_notes(uint8_t *p, const uint8_t *id, uint32_t id_len)
{
	static const uint8_t xen[8] = { 1, 2, 3, 4, 5, 6, 7, 8 };
	static const uint32_t version = 0x60100;
	size_t n = 0;

	n += put_note(p + n, 4, "Xen", 8, xen, 6);
	n += put_note(p + n, 6, "Linux", 4, &version, 0x100);
	n += put_note(p + n, 4, "GNU", 4, &version, 1);	/* NT_GNU_ABI_TAG */
	n += put_note(p + n, 4, "GNX", id_len, id, 3);	/* another owner, type 3 */
	n += put_note(p + n, 4, "GNU", id_len, id, 3);
	return n;
}

TEST(notes_find_the_gnu_build_id)
{
	uint8_t notes[512];
	struct build_id b = { 0 };
	char why[256] = "", hex[BUILD_ID_HEX_LEN];
	size_t n = kernel_like_notes(notes, id20, 20);

	ASSERT_EQ(1, build_id_from_notes(notes, n, &b, why, sizeof(why)));
	EXPECT_EQ(20, b.len);
	EXPECT_EQ(0, memcmp(b.id, id20, 20));
	build_id_hex(&b, hex);
	EXPECT_STREQ("a33e6ecb1fab9ef9e31be3b2f0cc4a1fac9b0de9", hex);
	/* an odd length: the descriptor's padding */
	n = kernel_like_notes(notes, id20, 7);
	ASSERT_EQ(1, build_id_from_notes(notes, n, &b, why, sizeof(why)));
	EXPECT_EQ(7, b.len);
	build_id_hex(&b, hex);
	EXPECT_STREQ("a33e6ecb1fab9e", hex);
	/* none */
	EXPECT_EQ(0, build_id_from_notes(notes, 0, &b, why, sizeof(why)));
	n = put_note(notes, 6, "Linux", 4, id20, 0x100);
	EXPECT_EQ(0, build_id_from_notes(notes, n, &b, why, sizeof(why)));
}

TEST(notes_every_cut_and_bad_sizes)
{
	uint8_t notes[512], *copy;
	struct build_id b;
	char why[256];
	size_t n = kernel_like_notes(notes, id20, 20), cut, before_id = n - 12 - 4 - 20;
	uint32_t big = 0xfffffffdU;

	/* each cut in a buffer of its own size, so ASan sees a read past it */
	for (cut = 0; cut < n; cut++) {
		int ret;

		copy = malloc(cut ? cut : 1);
		memcpy(copy, notes, cut);
		ret = build_id_from_notes(copy, cut, &b, why, sizeof(why));
		free(copy);
		/* the notes end at 24, 48, 68, 104 and 140 (the build ID's) */
		if (cut == 0 || cut == 24 || cut == 48 || cut == 68 || cut == 104) {
			EXPECT_EQ(0, ret) TH_LOG("cut %zu at a note's end: %d", cut, ret);
		} else {
			EXPECT_EQ(-1, ret) TH_LOG("cut %zu: %d", cut, ret);
		}
	}
	EXPECT_EQ(140, n);
	EXPECT_EQ(104, before_id);
	/* sizes that would wrap, or run past the end */
	memcpy(notes, &big, 4);
	EXPECT_EQ(-1, build_id_from_notes(notes, n, &b, why, sizeof(why)));
	EXPECT_NE(NULL, strstr(why, "larger than the notes")) TH_LOG("%s", why);
	kernel_like_notes(notes, id20, 20);
	memcpy(notes + 4, &big, 4);
	EXPECT_EQ(-1, build_id_from_notes(notes, n, &b, why, sizeof(why)));
	/* build IDs of 0 and 21 bytes */
	n = put_note(notes, 4, "GNU", 0, id20, 3);
	EXPECT_EQ(-1, build_id_from_notes(notes, n, &b, why, sizeof(why)));
	EXPECT_STREQ("a build ID of 0 bytes (1 to 20 supported)", why);
	n = put_note(notes, 4, "GNU", 21, notes + 100, 3);
	EXPECT_EQ(-1, build_id_from_notes(notes, n, &b, why, sizeof(why)));
	EXPECT_STREQ("a build ID of 21 bytes (1 to 20 supported)", why);
}

TEST(build_id_hex_parsing)
{
	struct build_id b;
	char hex[BUILD_ID_HEX_LEN];

	ASSERT_TRUE(build_id_parse("A33E6ecb", &b));
	EXPECT_EQ(4, b.len);
	build_id_hex(&b, hex);
	EXPECT_STREQ("a33e6ecb", hex);
	EXPECT_FALSE(build_id_parse("", &b));
	EXPECT_FALSE(build_id_parse("a", &b));
	EXPECT_FALSE(build_id_parse("abc", &b));
	EXPECT_FALSE(build_id_parse("zz", &b));
	EXPECT_FALSE(build_id_parse("0x12", &b));
	EXPECT_FALSE(build_id_parse(" 12", &b));
	EXPECT_TRUE(build_id_parse("a33e6ecb1fab9ef9e31be3b2f0cc4a1fac9b0de9", &b));
	EXPECT_FALSE(build_id_parse("a33e6ecb1fab9ef9e31be3b2f0cc4a1fac9b0de900", &b));
}

/* ---- helpers ---- */

static const char *top(void);

/*
 * The tool opens libdebuginfod when it needs it: not at every start.  And
 * the tool (not the sanitizer build) has its other libraries linked in but
 * libZydis and libc (Makefile, TOOL_LIBS).
 */
TEST(tool_starts_without_libdebuginfod)
{
	static const char *const tools[] = { "inkprobe", "inkprobe-san" };
	static const char *const linked_in[] = { "libdw", "libelf", "libbpf", "libz.", "libzstd",
						 "liblzma", "libbz2", "libtracefs",
						 "libtraceevent" };
	char cmd[1200], line[512];
	size_t i, j;

	for (i = 0; i < 2; i++) {
		int libc = 0, bad = 0, shared = 0;
		FILE *p;

		snprintf(cmd, sizeof(cmd), "readelf -dW '%s/build/%s'", top(), tools[i]);
		p = popen(cmd, "r");
		ASSERT_NE(NULL, p);
		while (fgets(line, sizeof(line), p)) {
			if (!strstr(line, "(NEEDED)"))
				continue;
			libc += !!strstr(line, "[libc.so.6]");
			if (strstr(line, "libdebuginfod") || strstr(line, "libcurl")) {
				bad++;
				TH_LOG("%s: %s", tools[i], line);
			}
			for (j = 0; j < sizeof(linked_in) / sizeof(linked_in[0]); j++)
				if (strstr(line, linked_in[j])) {
					shared++;
					TH_LOG("%s: %s", tools[i], line);
				}
		}
		pclose(p);
		EXPECT_EQ(1, libc);	/* readelf read it */
		EXPECT_EQ(0, bad);
		if (i == 0) {
			EXPECT_EQ(0, shared);
		} else {
			EXPECT_LT(0, shared);
		}
	}
}

static const char *top(void)
{
	return host_env("INKPROBE_TOP", ".");
}

static const char *cache_dir(void)
{
	return host_env("INKPROBE_CACHE", "/root/.cache/inkprobe");
}

static char *fmt(const char *f, ...)
{
	char *s;
	va_list ap;

	va_start(ap, f);
	if (vasprintf(&s, f, ap) < 0)
		s = NULL;
	va_end(ap);
	return s;
}

static char *tool(bool sanitized)
{
	return fmt("%s/build/%s", top(), sanitized ? "inkprobe-san" : "inkprobe");
}

/* The build ID `readelf -n` reads in @elf (binutils: independent of the tool). */
static bool readelf_build_id(const char *elf, char *hex, size_t len)
{
	char *cmd = fmt("readelf -n '%s'", elf), line[512];
	FILE *p = popen(cmd, "r");
	bool found = false;

	free(cmd);
	while (p && fgets(line, sizeof(line), p)) {
		char *at = strstr(line, "Build ID: ");

		if (at && !found) {
			snprintf(hex, len, "%s", at + strlen("Build ID: "));
			hex[strcspn(hex, "\n")] = '\0';
			found = true;
		}
	}
	if (p)
		pclose(p);
	return found;
}

static bool same_file(const char *a, const char *b)
{
	uint32_t la, lb;
	uint8_t *da, *db;
	bool same;

	da = read_file(a, &la);
	db = read_file(b, &lb);
	same = la == lb && !memcmp(da, db, la);
	free(da);
	free(db);
	return same;
}

static bool write_all(const char *path, const void *data, size_t len)
{
	FILE *f = fopen(path, "w");
	bool ok = f && fwrite(data, 1, len, f) == len;

	return f && !fclose(f) && ok;
}

FIXTURE(server) {
	struct srv s;
};

FIXTURE_SETUP(server)
{
	self->s.pid = -1;
	self->s.dir[0] = '\0';
	ASSERT_EQ(0, srv_isolate());
	ASSERT_EQ(1, srv_count_interfaces());
	/* the tool sees this server only, with caches of this test only */
	ASSERT_EQ(0, srv_prepare(&self->s, 30));
}

FIXTURE_TEARDOWN(server)
{
	if (srv_stop(&self->s))
		TH_LOG("cannot remove %s", self->s.dir);
}

static char *target_ko(void)
{
	return fmt("%s/build/%s/kmod/inkprobe_target.ko", top(), host_kernel());
}

static char *base_btf(void)
{
	return fmt("%s/kernels/%s/build/vmlinux", cache_dir(), host_kernel());
}

/*
 * A sysfs in @dir: kernel/notes with the build ID @kernel_hex, a module
 * inkprobe_target whose notes are the .note.gnu.build-id section of the
 * target (objcopy's copy) after another note section, a built-in module
 * (no notes), and kernel/btf/vmlinux: the test kernel's vmlinux.
 */
static int make_sysfs(const char *dir, const char *kernel_hex)
{
	char *cmd = fmt("set -e; mkdir -p '%s'; cd '%s'; mkdir -p kernel/btf module/inkprobe_target/notes "
			"module/builtin_one/parameters; ln -s '%s' kernel/btf/vmlinux; "
			"objcopy -O binary --only-section=.note.gnu.build-id '%s' "
			"module/inkprobe_target/notes/.note.gnu.build-id; "
			"printf '\\006\\000\\000\\000\\004\\000\\000\\000\\000\\001\\000\\000"
			"Linux\\000\\000\\000\\001\\000\\000\\000' > "
			"module/inkprobe_target/notes/.note.Linux",
			dir, dir, base_btf(), target_ko());
	struct build_id id;
	uint8_t notes[512];
	char *path;
	size_t n;
	int ret = system(cmd);

	free(cmd);
	if (ret || !build_id_parse(kernel_hex, &id))
		return -1;
	n = kernel_like_notes(notes, id.id, id.len);
	path = fmt("%s/kernel/notes", dir);
	ret = write_all(path, notes, n) ? 0 : -1;
	free(path);
	return ret;
}

/* ---- debuginfod: the module ---- */

TEST_F_TIMEOUT(server, module_gen_and_load_by_build_id, 300)
{
	char hex[64], other_hex[] = "00112233445566778899aabbccddeeff00112233";
	char *ko = target_ko(), *base = base_btf(), *san = tool(true);
	char *blob = fmt("%s/local.inkb", self->s.dir), *fetched = fmt("%s/fetched.inkb", self->s.dir);
	char *published = fmt("%s/published.elf", self->s.dir), *sysfs = fmt("%s/sys", self->s.dir);
	char *debugfs = fmt("%s/debugfs", self->s.dir), *blob_file = fmt("%s/blob", debugfs);
	char *blobs_file = fmt("%s/blobs", debugfs), *want;
	struct stat st;
	struct run r;
	double took;

	ASSERT_TRUE(readelf_build_id(ko, hex, sizeof(hex)));
	/* the blob, from the local file */
	ASSERT_EQ(0, run_prog(&r, 120, san, "gen", "--base-btf", base, "-o", blob, ko, NULL)) {
		TH_LOG("%s", r.err);
	}
	/* published, with a check of the target's build ID */
	ASSERT_EQ(0, run_prog(&r, 30, san, "publish", "--target", ko, "-o", published, blob,
			      NULL)) {
		TH_LOG("%s", r.err);
	}
	ASSERT_EQ(0, stat(blob, &st));
	want = fmt("%s: inkprobe_target build-id=%s, %lld bytes of blob in .BTF.inline\n",
		   published, hex, (long long)st.st_size);
	EXPECT_STREQ(want, r.out);
	free(want);
	ASSERT_EQ(0, run_prog(&r, 30, "/usr/bin/readelf", "-n", "-h", published, NULL));
	EXPECT_NE(NULL, strstr(r.out, "EXEC (Executable file)"));
	want = fmt("Build ID: %s\n", hex);
	EXPECT_NE(NULL, strstr(r.out, want)) TH_LOG("%s", r.out);
	free(want);
	/* the blob is the section's bytes, as objcopy copies them out */
	want = fmt("objcopy -O binary --only-section=.BTF.inline '%s' '%s/section' && "
		   "cmp -s '%s/section' '%s'", published, self->s.dir, self->s.dir, blob);
	EXPECT_EQ(0, system(want));
	free(want);
	/* publish refuses a target of another build */
	EXPECT_EQ(1, run_prog(&r, 30, san, "publish", "--target", base, "-o", published, blob,
			      NULL));
	EXPECT_NE(NULL, strstr(r.err, " was generated for build ID ")) TH_LOG("%s", r.err);

	/* the DWARF file and the published blob in one index */
	ASSERT_EQ(0, symlink(ko, fmt("%s/inkprobe_target.ko", self->s.srv)));
	ASSERT_EQ(0, symlink(published, fmt("%s/inkprobe_target.inkb.elf", self->s.srv)));
	took = srv_start(&self->s, true, 1, 1, 60);
	ASSERT_LE(0, took);
	TH_LOG("debuginfod indexed the module and its blob in %.2f s", took);

	/* gen by build ID: the same bytes */
	ASSERT_EQ(0, run_prog(&r, 120, san, "gen", "--base-btf", base, "--build-id", hex, "-o",
			      fetched, NULL)) {
		TH_LOG("%s", r.err);
	}
	EXPECT_TRUE(same_file(blob, fetched));
	/* by the running kernel's and a loaded module's build ID (a sysfs made here) */
	ASSERT_EQ(0, make_sysfs(sysfs, hex));
	setenv("INKPROBE_SYSFS_DIR", sysfs, 1);
	unlink(fetched);
	ASSERT_EQ(0, run_prog(&r, 120, san, "gen", "--base-btf", base, "--running-kernel", "-o",
			      fetched, NULL)) {
		TH_LOG("%s", r.err);
	}
	EXPECT_TRUE(same_file(blob, fetched));
	unlink(fetched);
	/* --module: the base BTF is the sysfs's kernel/btf/vmlinux */
	ASSERT_EQ(0, run_prog(&r, 120, san, "gen", "--module", "inkprobe-target", "-o", fetched,
			      NULL)) {
		TH_LOG("%s", r.err);
	}
	EXPECT_TRUE(same_file(blob, fetched));

	/* load by build ID writes the published bytes, though the DWARF is cached */
	ASSERT_EQ(0, mkdir(debugfs, 0755));
	setenv("INKPROBE_DEBUGFS_DIR", debugfs, 1);
	ASSERT_TRUE(write_all(blob_file, "", 0));
	ASSERT_TRUE(write_all(blobs_file, "", 0));
	ASSERT_EQ(0, run_prog(&r, 60, san, "load", "--build-id", hex, NULL)) {
		TH_LOG("%s", r.err);
	}
	want = fmt("inkprobe_target build-id=%s loaded\n", hex);
	EXPECT_STREQ(want, r.out);
	free(want);
	EXPECT_TRUE(same_file(blob, blob_file));
	/* a blob of that build loaded already: nothing fetched, nothing written */
	ASSERT_TRUE(write_all(blob_file, "", 0));
	want = fmt("vmlinux build-id=%s instances=9 symbols=9 live unresolved=0 probes=0\n"
		   "inkprobe_target build-id=%s instances=5 symbols=3 live unresolved=0 "
		   "probes=1\n", other_hex, hex);
	ASSERT_TRUE(write_all(blobs_file, want, strlen(want)));
	free(want);
	ASSERT_EQ(0, run_prog(&r, 60, san, "load", "--build-id", hex, "--module",
			      "inkprobe_target", NULL)) {
		TH_LOG("%s", r.err);
	}
	want = fmt("inkprobe_target build-id=%s already loaded\n"
		   "inkprobe_target build-id=%s already loaded\n", hex, hex);
	EXPECT_STREQ(want, r.out);
	free(want);
	EXPECT_TRUE(same_file("/dev/null", blob_file));
	/* the build ID as another target's, or of another target: no match */
	want = fmt("vmlinux build-id=%s instances=9 symbols=9 live\n"
		   "inkprobe_target build-id=%s0 instances=5\n"
		   "xinkprobe_target build-id=%s instances=5\n", hex, hex, hex);
	ASSERT_TRUE(write_all(blobs_file, want, strlen(want)));
	free(want);
	ASSERT_EQ(0, run_prog(&r, 60, san, "load", "--module", "inkprobe_target", NULL)) {
		TH_LOG("%s", r.err);
	}
	want = fmt("inkprobe_target build-id=%s loaded\n", hex);
	EXPECT_STREQ(want, r.out);
	free(want);
	EXPECT_TRUE(same_file(blob, blob_file));
	ASSERT_TRUE(write_all(blobs_file, "", 0));
	/* --module, from the sysfs */
	ASSERT_TRUE(write_all(blob_file, "", 0));
	ASSERT_EQ(0, run_prog(&r, 60, san, "load", "--module", "inkprobe_target", NULL)) {
		TH_LOG("%s", r.err);
	}
	want = fmt("inkprobe_target build-id=%s loaded\n", hex);
	EXPECT_STREQ(want, r.out);
	free(want);
	EXPECT_TRUE(same_file(blob, blob_file));
	/* the running kernel's build ID is the module's here: a blob for another target */
	EXPECT_EQ(1, run_prog(&r, 60, san, "load", "--running-kernel", NULL));
	want = fmt("vmlinux build-id=%s failed\n", hex);
	EXPECT_STREQ(want, r.out);
	free(want);
	EXPECT_NE(NULL, strstr(r.err, "the server's blob is for target inkprobe_target"))
		TH_LOG("%s", r.err);

	/* everything: a kernel with no blob published, the module's loaded */
	ASSERT_EQ(0, system(fmt("rm -rf '%s'", sysfs)));
	ASSERT_EQ(0, make_sysfs(sysfs, other_hex));
	ASSERT_TRUE(write_all(blob_file, "", 0));
	ASSERT_EQ(0, run_prog(&r, 60, san, "load", NULL)) {
		TH_LOG("%s", r.err);
	}
	want = fmt("vmlinux build-id=%s no blob\ninkprobe_target build-id=%s loaded\n",
		   other_hex, hex);
	EXPECT_STREQ(want, r.out);
	free(want);
	EXPECT_TRUE(same_file(blob, blob_file));
	/* named, missing: an error */
	EXPECT_EQ(1, run_prog(&r, 60, san, "load", "--build-id", other_hex, NULL));
	want = fmt("build-id=%s no blob\n", other_hex);
	EXPECT_STREQ(want, r.out);
	free(want);

	/*
	 * Why load has a cache of its own: with the module's DWARF in
	 * libdebuginfod's cache (gen --build-id put it there), 0.188 answers a
	 * section query from it, without asking the server: "no blob".
	 */
	setenv("INKPROBE_DEBUGINFOD_CACHE", getenv("DEBUGINFOD_CACHE_PATH"), 1);
	EXPECT_EQ(1, run_prog(&r, 60, san, "load", "--build-id", hex, NULL));
	want = fmt("build-id=%s no blob\n", hex);
	EXPECT_STREQ(want, r.out);
	free(want);

	/* what the server says it served: the module's debuginfo, sections, no executable */
	ASSERT_EQ(0, srv_http_get(self->s.port, "/metrics", self->s.metrics, sizeof(self->s.metrics)));
	EXPECT_LT(0, srv_metric(&self->s, "http_responses_total{result=\"file\"} "));
	/* no DEBUGINFOD_URLS: said so, nothing fetched */
	unsetenv("DEBUGINFOD_URLS");
	EXPECT_EQ(1, run_prog(&r, 30, san, "gen", "--build-id", hex, NULL));
	EXPECT_NE(NULL, strstr(r.err, "needs a debuginfod server: set DEBUGINFOD_URLS"))
		TH_LOG("%s", r.err);
	EXPECT_EQ(1, run_prog(&r, 30, san, "load", NULL));
	EXPECT_NE(NULL, strstr(r.err, "load without BLOB needs a debuginfod server"))
		TH_LOG("%s", r.err);
	setenv("DEBUGINFOD_URLS", self->s.url, 1);
	/* a build ID no server has */
	EXPECT_EQ(1, run_prog(&r, 30, san, "gen", "--base-btf", base, "--build-id", other_hex,
			      NULL));
	EXPECT_NE(NULL, strstr(r.err, ": no server in DEBUGINFOD_URLS has it")) TH_LOG("%s", r.err);
	/* bad operands */
	EXPECT_EQ(2, run_prog(&r, 30, san, "gen", "--build-id", hex, ko, NULL));
	EXPECT_EQ(2, run_prog(&r, 30, san, "gen", "--build-id", hex, "--running-kernel", NULL));
	EXPECT_EQ(1, run_prog(&r, 30, san, "gen", "--build-id", "xyz", NULL));
	EXPECT_NE(NULL, strstr(r.err, "--build-id xyz: not a build ID")) TH_LOG("%s", r.err);
	EXPECT_EQ(1, run_prog(&r, 30, san, "gen", "--module", "not_loaded", NULL));
	EXPECT_NE(NULL, strstr(r.err, "module not_loaded is not loaded")) TH_LOG("%s", r.err);
	EXPECT_EQ(1, run_prog(&r, 30, san, "gen", "--module", "builtin_one", NULL));
	EXPECT_NE(NULL, strstr(r.err, "has no notes in sysfs")) TH_LOG("%s", r.err);
	EXPECT_EQ(2, run_prog(&r, 30, san, "load", "--all", blob, NULL));
}

/* ---- debuginfod: the vmlinux (633 MB of DWARF) ---- */

/*
 * A server that indexes split debug files (Fedora's, Ubuntu's debuginfod):
 * the debuginfo of a build ID is an only-keep-debug file, its executable the
 * stripped binary.  gen fetches both and gives the blob of the full file.
 * The vmlinux: debuginfod 0.188 indexes no module (ET_REL) as an executable.
 */
TEST_F_TIMEOUT(server, gen_by_build_id_from_split_debug_files, 600)
{
	char *vmlinux = fmt("%s/kernels/%s/vmlinux-dbg", cache_dir(), host_kernel());
	char hex[2 * INKPROBE_BUILD_ID_MAX + 1], *fast = tool(false);
	char *blob = fmt("%s/local.inkb", self->s.dir);
	char *fetched = fmt("%s/fetched.inkb", self->s.dir), *cmd;
	struct run r;

	ASSERT_TRUE(readelf_build_id(vmlinux, hex, sizeof(hex)));
	ASSERT_EQ(0, run_prog(&r, 300, fast, "gen", "-o", blob, vmlinux, NULL)) {
		TH_LOG("%s", r.err);
	}
	cmd = fmt("objcopy --only-keep-debug '%s' '%s/vmlinux.debug' && "
		  "strip --strip-debug -o '%s/vmlinux' '%s'", vmlinux, self->s.srv, self->s.srv,
		  vmlinux);
	ASSERT_EQ(0, system(cmd));
	free(cmd);
	ASSERT_LE(0, srv_start(&self->s, true, 1, 1, 120));
	ASSERT_EQ(0, run_prog(&r, 300, fast, "gen", "--build-id", hex, "-o", fetched, NULL)) {
		TH_LOG("%s", r.err);
	}
	EXPECT_TRUE(same_file(blob, fetched));
	EXPECT_NE(NULL, strstr(r.err, "an only-keep-debug file: the binary fetched too"))
		TH_LOG("%s", r.err);
}

/*
 * The same server with a published blob in place of the binary: the
 * executable of the build ID has no code; gen says so, and what to do.
 */
TEST_F_TIMEOUT(server, gen_by_build_id_refuses_a_blob_as_the_binary, 300)
{
	char hex[2 * INKPROBE_BUILD_ID_MAX + 1], *ko = target_ko(), *base = base_btf();
	char *san = tool(true), *blob = fmt("%s/local.inkb", self->s.dir);
	char *published = fmt("%s/inkprobe_target.inkb.elf", self->s.srv), *cmd;
	struct run r;

	ASSERT_TRUE(readelf_build_id(ko, hex, sizeof(hex)));
	ASSERT_EQ(0, run_prog(&r, 120, san, "gen", "--base-btf", base, "-o", blob, ko, NULL)) {
		TH_LOG("%s", r.err);
	}
	ASSERT_EQ(0, run_prog(&r, 30, san, "publish", "--target", ko, "-o", published, blob,
			      NULL)) {
		TH_LOG("%s", r.err);
	}
	cmd = fmt("objcopy --only-keep-debug '%s' '%s/inkprobe_target.ko.debug'", ko,
		  self->s.srv);
	ASSERT_EQ(0, system(cmd));
	free(cmd);
	ASSERT_LE(0, srv_start(&self->s, true, 1, 1, 60));
	EXPECT_EQ(1, run_prog(&r, 120, san, "gen", "--base-btf", base, "--build-id", hex, "-o",
			      fmt("%s/x.inkb", self->s.dir), NULL));
	EXPECT_NE(NULL, strstr(r.err, "has no code (a published blob?): give the binary, and "
			       "--debug-file ")) TH_LOG("%s", r.err);
	EXPECT_EQ(NULL, strstr(r.err, "runtime error")) TH_LOG("%s", r.err);
}

TEST_F_TIMEOUT(server, vmlinux_gen_and_load_by_build_id, 600)
{
	char *vmlinux = fmt("%s/kernels/%s/vmlinux-dbg", cache_dir(), host_kernel());
	char *fast = tool(false), *san = tool(true);
	char *blob = fmt("%s/local.inkb", self->s.dir), *fetched = fmt("%s/fetched.inkb", self->s.dir);
	char *published = fmt("%s/vmlinux.inkb.elf", self->s.dir);
	char *debugfs = fmt("%s/debugfs", self->s.dir), *blob_file = fmt("%s/blob", debugfs);
	char *blobs_file = fmt("%s/blobs", debugfs);
	struct timespec t0, t1;
	char hex[64], *want;
	struct stat st_dwarf, st_pub;
	struct run r;
	double took;

	ASSERT_TRUE(readelf_build_id(vmlinux, hex, sizeof(hex)));
	ASSERT_EQ(0, run_prog(&r, 300, fast, "gen", "-o", blob, vmlinux, NULL)) {
		TH_LOG("%s", r.err);
	}
	ASSERT_EQ(0, run_prog(&r, 30, san, "publish", "--target", vmlinux, "-o", published, blob,
			      NULL)) {
		TH_LOG("%s", r.err);
	}
	ASSERT_EQ(0, stat(vmlinux, &st_dwarf));
	ASSERT_EQ(0, stat(published, &st_pub));
	TH_LOG("vmlinux-dbg %lld bytes, published blob %lld bytes", (long long)st_dwarf.st_size,
	       (long long)st_pub.st_size);
	/* vmlinux-dbg is a debuginfo and an executable: with the blob, 2 executables */
	ASSERT_EQ(0, symlink(vmlinux, fmt("%s/vmlinux-dbg", self->s.srv)));
	ASSERT_EQ(0, symlink(published, fmt("%s/vmlinux.inkb.elf", self->s.srv)));
	took = srv_start(&self->s, true, 1, 2, 120);
	ASSERT_LE(0, took);
	TH_LOG("debuginfod indexed vmlinux-dbg and its blob in %.2f s", took);

	clock_gettime(CLOCK_MONOTONIC, &t0);
	ASSERT_EQ(0, run_prog(&r, 300, fast, "gen", "--build-id", hex, "-o", fetched, NULL)) {
		TH_LOG("%s", r.err);
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	TH_LOG("gen --build-id (fetch of 633 MB and gen) took %.2f s",
	       (double)(t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) / 1e9);
	EXPECT_TRUE(same_file(blob, fetched));

	/* the section query skips the vmlinux-dbg, debuginfo and executable, for the blob */
	ASSERT_EQ(0, mkdir(debugfs, 0755));
	setenv("INKPROBE_DEBUGFS_DIR", debugfs, 1);
	ASSERT_TRUE(write_all(blob_file, "", 0));
	ASSERT_TRUE(write_all(blobs_file, "", 0));
	ASSERT_EQ(0, run_prog(&r, 60, san, "load", "--build-id", hex, NULL)) {
		TH_LOG("%s", r.err);
	}
	want = fmt("vmlinux build-id=%s loaded\n", hex);
	EXPECT_STREQ(want, r.out);
	free(want);
	EXPECT_TRUE(same_file(blob, blob_file));
}

TEST_HARNESS_MAIN
