// SPDX-License-Identifier: GPL-2.0
/*
 * A blob is applied only to the build it was made for
 * (Documentation/control.rst, "blob"): the running kernel's build ID for a
 * vmlinux blob; for a module's blob, the loaded module's build ID and its
 * BTF (length and CRC, as /sys/kernel/btf/MODULE has it), when the blob is
 * written to a loaded module and when the module loads after its blob.  A
 * refused blob is not kept (written) or stays waiting (module loading),
 * with the reason in error_log; the module loads normally.
 *
 * The blobs are the target's raw blob with one field of its TARGET
 * section changed.  The oracles are the kernel's own notes
 * (/sys/kernel/notes, /sys/module/inkprobe_target/notes) and the unchanged
 * blob, which loads; the vmlinux case renames the target's blob "vmlinux"
 * with the running kernel's build ID, which loads (its symbols do not
 * resolve: unresolved = symbols), and is refused with one byte changed.
 * (The vmlinux BTF checksum's refusal is tool_test's.)
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kselftest_harness.h"
#include "guest_util.h"
#include "../../uapi/inkprobe.h"
#include "../zstd_craft.h"

#define MOD_BUILD_ID	"/sys/module/inkprobe_target/notes/.note.gnu.build-id"
#define PROBE		"p:rf/mix tgt_mix reg"

/* The NT_GNU_BUILD_ID of a buffer of ELF notes into @id; its length, or 0. */
static unsigned int notes_build_id(const char *notes, size_t len, unsigned char *id)
{
	size_t off = 0;

	while (off + 12 <= len) {
		unsigned int namesz, descsz, type;
		size_t name_at = off + 12, desc_at;

		memcpy(&namesz, notes + off, 4);
		memcpy(&descsz, notes + off + 4, 4);
		memcpy(&type, notes + off + 8, 4);
		desc_at = name_at + ((namesz + 3) & ~3u);
		if (desc_at + descsz > len)
			return 0;
		if (type == 3 && namesz == 4 && !memcmp(notes + name_at, "GNU", 4) &&
		    descsz <= INKPROBE_BUILD_ID_MAX) {
			memcpy(id, notes + desc_at, descsz);
			return descsz;
		}
		off = desc_at + ((descsz + 3) & ~3u);
	}
	return 0;
}

static unsigned int file_build_id(const char *path, unsigned char *id)
{
	size_t len;
	char *notes = read_file(path, &len);
	unsigned int n = notes ? notes_build_id(notes, len, id) : 0;

	free(notes);
	return n;
}

/* The target's raw blob and its TARGET section (in it). */
struct blob {
	char *data;
	size_t len;
	struct inkprobe_target *tgt;
};

static int read_blob(struct blob *b)
{
	const struct inkprobe_blob_header *h;
	const struct inkprobe_blob_section *sec;
	unsigned int i;

	b->tgt = NULL;
	b->data = read_file(blob_path("inkprobe_target.raw.inkb"), &b->len);
	if (!b->data || b->len < sizeof(*h))
		return -1;
	h = (const void *)b->data;
	sec = (const void *)(b->data + h->hdr_len);
	for (i = 0; i < h->nr_sections; i++)
		if (sec[i].type == INKPROBE_SEC_TARGET)
			b->tgt = (void *)(b->data + sec[i].offset);
	return b->tgt ? 0 : -1;
}

/* Writes @b raw, or compressed as gen writes it; 0 or -errno. */
static int write_blob(const struct blob *b, bool compressed)
{
	size_t len;
	unsigned char *frame;
	int ret;

	if (!compressed)
		return write_bytes(INK_DIR "/blob", b->data, b->len);
	frame = craft_compress(b->data, b->len, true, &len);
	if (!frame)
		return -ENOMEM;
	ret = write_bytes(INK_DIR "/blob", frame, len);
	free(frame);
	return ret;
}

/* The line of blob @name in "blobs" (static buffer), "" if none. */
static const char *blob_line(const char *name)
{
	static char line[512];
	char *all = read_file(INK_DIR "/blobs", NULL), *p = all;
	size_t n = strlen(name);

	line[0] = '\0';
	while (p && *p) {
		if (!strncmp(p, name, n) && p[n] == ' ') {
			snprintf(line, sizeof(line), "%.*s", (int)strcspn(p, "\n"), p);
			break;
		}
		p += strcspn(p, "\n");
		p += *p == '\n';
	}
	free(all);
	return line;
}

static unsigned int field(const char *line, const char *key)
{
	const char *p = strstr(line, key);

	return p ? (unsigned int)strtoul(p + strlen(key), NULL, 10) : ~0u;
}

FIXTURE(ref) {
	struct blob b;
	char good_line[512];
};

FIXTURE_SETUP(ref)
{
	ASSERT_EQ(0, setup_target());
	ASSERT_EQ(0, clear_probes());
	ASSERT_EQ(0, read_blob(&self->b));
	/* the unchanged blob loads: what the others are compared with */
	ASSERT_EQ(0, write_blob(&self->b, false)) TH_LOG("%s", last_error());
	snprintf(self->good_line, sizeof(self->good_line), "%s", blob_line("inkprobe_target"));
	ASSERT_NE(NULL, strstr(self->good_line, " live unresolved=0 probes=0"))
		TH_LOG("%s", self->good_line);
	ASSERT_EQ(0, write_file(INK_DIR "/blobs", "-inkprobe_target", true));
	write_file(INK_DIR "/blobs", "-vmlinux", true);
	ASSERT_EQ(0, clear_errors());
}

FIXTURE_TEARDOWN(ref)
{
	clear_probes();
	write_file(INK_DIR "/blobs", "-vmlinux", true);
	write_file(INK_DIR "/blobs", "-inkprobe_target", true);
	free(self->b.data);
	setup_target();
}

TEST_F_TIMEOUT(ref, vmlinux_build_id, 300)
{
	unsigned char id[INKPROBE_BUILD_ID_MAX];
	unsigned int n = file_build_id("/sys/kernel/notes", id);
	const char *line;
	char hex[2 * INKPROBE_BUILD_ID_MAX + 1];
	unsigned int i;

	ASSERT_LT(0u, n);
	for (i = 0; i < n; i++)
		sprintf(hex + 2 * i, "%02x", id[i]);
	memset(self->b.tgt->name, 0, sizeof(self->b.tgt->name));
	strcpy(self->b.tgt->name, "vmlinux");
	memset(self->b.tgt->build_id, 0, sizeof(self->b.tgt->build_id));
	memcpy(self->b.tgt->build_id, id, n);
	self->b.tgt->build_id_len = n;

	/* the running kernel's build ID: accepted */
	ASSERT_EQ(0, write_blob(&self->b, false)) TH_LOG("%s", last_error());
	line = blob_line("vmlinux");
	EXPECT_EQ(0, strncmp(line + strlen("vmlinux build-id="), hex, 2 * n)) TH_LOG("%s", line);
	EXPECT_EQ(field(self->good_line, " symbols="), field(line, " symbols="));
	EXPECT_EQ(field(line, " symbols="), field(line, " unresolved=")) TH_LOG("%s", line);
	ASSERT_EQ(0, write_file(INK_DIR "/blobs", "-vmlinux", true));

	/* one bit of it changed, or one byte short: refused, nothing kept */
	self->b.tgt->build_id[n - 1] ^= 1;
	EXPECT_EQ(-ENOEXEC, write_blob(&self->b, false));
	EXPECT_STREQ("blob for vmlinux: build ID differs from the running kernel", last_error());
	EXPECT_STREQ("", blob_line("vmlinux"));
	self->b.tgt->build_id[n - 1] ^= 1;
	self->b.tgt->build_id_len = n - 1;
	ASSERT_EQ(0, clear_errors());
	EXPECT_EQ(-ENOEXEC, write_blob(&self->b, true));
	EXPECT_STREQ("blob for vmlinux: build ID differs from the running kernel", last_error());
	EXPECT_STREQ("", blob_line("vmlinux"));
}

/* Written while the module is loaded: refused by the write. */
TEST_F_TIMEOUT(ref, module_build_id_and_btf_loaded, 300)
{
	unsigned char id[INKPROBE_BUILD_ID_MAX];
	unsigned int n = file_build_id(MOD_BUILD_ID, id), round;
	static const char *const msg[] = {
		"blob for inkprobe_target: build ID differs from the loaded module",
		"blob for inkprobe_target: module BTF differs from the blob's",
		"blob for inkprobe_target: module BTF differs from the blob's",
	};

	/* gen wrote the module's own build ID */
	ASSERT_LT(0u, n);
	ASSERT_EQ(n, self->b.tgt->build_id_len);
	ASSERT_EQ(0, memcmp(id, self->b.tgt->build_id, n));

	for (round = 0; round < 6; round++) {
		unsigned int what = round / 2;

		if (what == 0)
			self->b.tgt->build_id[0] ^= 0x80;
		else if (what == 1)
			self->b.tgt->btf_crc ^= 1;
		else
			self->b.tgt->btf_len += 1;
		ASSERT_EQ(0, clear_errors());
		EXPECT_EQ(-ENOEXEC, write_blob(&self->b, round % 2)) TH_LOG("round %u", round);
		EXPECT_STREQ(msg[what], last_error()) TH_LOG("round %u", round);
		EXPECT_STREQ("", blob_line("inkprobe_target"));
		if (what == 0)
			self->b.tgt->build_id[0] ^= 0x80;
		else if (what == 1)
			self->b.tgt->btf_crc ^= 1;
		else
			self->b.tgt->btf_len -= 1;
	}
	/* and back as it was: loads */
	EXPECT_EQ(0, write_blob(&self->b, false));
	EXPECT_STREQ(self->good_line, blob_line("inkprobe_target"));
}

/*
 * Written before the module loads: the blob waits, with a definition on
 * it; the module loads, the blob is refused then and stays waiting, no
 * probe is placed, and nothing fires.  The unchanged blob, in the same
 * steps, attaches.
 *
 * Not tested here: unloading the module just after its probes are removed.
 * The kernel's kprobes then keep a dead optimized kprobe at each of their
 * addresses (kill_optimized_kprobe() takes it off the unoptimizing list
 * before it asks whether it was on it), and registering a kprobe there
 * again, the module loaded at the same place, warns in
 * reuse_unused_kprobe() and fails with EINVAL until the next boot
 * (Documentation/testing.rst).
 */
TEST_F_TIMEOUT(ref, module_build_id_and_btf_at_module_load, 300)
{
	static const char *const msg[] = {
		"",
		"blob for inkprobe_target: build ID differs from the loaded module",
		"blob for inkprobe_target: module BTF differs from the blob's",
	};
	static const unsigned int order[] = { 1, 2, 0 };
	unsigned int what, i;
	char *stats;

	/*
	 * The unchanged blob last: its probes are removed and the module must
	 * not be unloaded right after (see below).
	 */
	for (i = 0; i < 3; i++) {
		what = order[i];
		if (what == 1)
			self->b.tgt->build_id[INKPROBE_BUILD_ID_MAX / 2] ^= 1;
		else if (what == 2)
			self->b.tgt->btf_crc ^= 0x10000;
		ASSERT_EQ(0, unload_module("inkprobe_target"));
		ASSERT_EQ(0, write_blob(&self->b, what == 2)) TH_LOG("%s", last_error());
		EXPECT_NE(NULL, strstr(blob_line("inkprobe_target"), " waiting "));
		ASSERT_EQ(0, define_probe(PROBE));
		ASSERT_EQ(0, clear_errors());
		ASSERT_EQ(0, load_module(kmod_path("inkprobe_target.ko")));
		EXPECT_STREQ(msg[what], last_error()) TH_LOG("case %u", what);
		stats = read_file(INK_DIR "/stats", NULL);
		ASSERT_NE(NULL, stats);
		if (what) {
			EXPECT_NE(NULL, strstr(blob_line("inkprobe_target"), " waiting "));
			EXPECT_EQ(0, count_kprobes("tgt_caller_"));
			EXPECT_EQ(0ULL, stat_sum(stats, "live")) TH_LOG("%s", stats);
			EXPECT_EQ(0, trigger_target(1, 2, 3));
			free(stats);
			stats = read_file(INK_DIR "/stats", NULL);
			ASSERT_NE(NULL, stats);
			EXPECT_EQ(0ULL, stat_sum(stats, "hits"));
		} else {
			EXPECT_NE(NULL, strstr(blob_line("inkprobe_target"), " live "));
			EXPECT_EQ(2, count_kprobes("tgt_caller_"));
			EXPECT_EQ(2ULL, stat_sum(stats, "live")) TH_LOG("%s", stats);
		}
		free(stats);
		ASSERT_EQ(0, clear_probes());
		ASSERT_EQ(0, write_file(INK_DIR "/blobs", "-inkprobe_target", true));
		if (what == 1)
			self->b.tgt->build_id[INKPROBE_BUILD_ID_MAX / 2] ^= 1;
		else if (what == 2)
			self->b.tgt->btf_crc ^= 0x10000;
	}
}

TEST_HARNESS_MAIN
