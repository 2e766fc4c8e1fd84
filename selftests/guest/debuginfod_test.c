// SPDX-License-Identifier: GPL-2.0
/* inkprobe-kernels: !debug -- the fetching is the tool's and debuginfod's; the module sees an upload, which runs on debug in blob_upload_test and compressed_test */
/*
 * The traced machine fetches only the blob (Documentation/debuginfod.rst):
 * in the guest, the tool publishes the blobs the host generated for this
 * kernel's vmlinux and for inkprobe_target.ko, a debuginfod (Debian's
 * elfutils 0.188, from the host's file system) serves them on the guest's
 * 127.0.0.1, and 'inkprobe load' fetches them by the build IDs the running
 * kernel shows in sysfs.  The server listens on every address (0.188 cannot
 * bind one), so the test runs in a network namespace of its own where only
 * loopback exists; the teardown kills the server, and the kernel does if
 * the test dies (PR_SET_PDEATHSIG); every wait is bounded.
 *
 * Oracles: the build IDs and instance counts in the blob files gen wrote
 * on the host (libdwfl read them from the ELF files), and the values the
 * target module records for each call of the inlined tgt_mix(), which the
 * probe defined on the fetched blob must report exactly.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>

#include "kselftest_harness.h"
#include "guest_util.h"
#include "../../lib/blob.h"
#include "../../user/common/blob_zstd.h"
#include "../debuginfod_server.h"

#define PROBE	"p:tgt/fetched tgt_mix reg konst"

/*
 * The tool with NULL-terminated arguments, killed after @secs seconds on
 * this kernel's scale (timeout_scale(): the debug kernel is slower).
 */
#define run_tool(r, secs, ...) \
	run_prog(r, (secs) * timeout_scale(), env_or("INKPROBE_TOOL", "inkprobe"), __VA_ARGS__)

/* What a blob file says of its target (a compressed or raw blob). */
struct blob_facts {
	char name[INKPROBE_TARGET_NAME_LEN];
	char hex[2 * INKPROBE_BUILD_ID_MAX + 1];
	unsigned int instances;
};

static int blob_facts(const char *path, struct blob_facts *f)
{
	size_t len;
	char *data = read_file(path, &len), why[160];
	uint8_t *raw = NULL;
	uint32_t raw_len = (uint32_t)len, i;
	struct ink_err err = { 0 };
	struct ink_blob b;
	int ret = -1;

	if (!data)
		return -1;
	if (blob_is_zstd(data, len))
		raw = blob_zstd_decompress((uint8_t *)data, (uint32_t)len, &raw_len, why,
					   sizeof(why));
	if (!ink_blob_parse(&b, raw ? raw : (uint8_t *)data, raw_len, &err)) {
		snprintf(f->name, sizeof(f->name), "%s", b.target->name);
		for (i = 0; i < b.target->build_id_len; i++)
			sprintf(f->hex + 2 * i, "%02x", b.target->build_id[i]);
		f->instances = b.nr_instances;
		ret = 0;
	}
	free(raw);
	free(data);
	return ret;
}

FIXTURE(fetch) {
	struct srv s;
	struct run r;
};

FIXTURE_SETUP(fetch)
{
	self->s.pid = -1;
	self->s.dir[0] = '\0';
	ASSERT_EQ(0, load_module(kmod_path("inkprobe_target.ko")));
	ASSERT_EQ(0, load_module(kmod_path("inkprobe.ko")));
	ASSERT_EQ(0, clear_probes());
	drain_events();
	/* the blobs come from the server only */
	write_file(INK_DIR "/blobs", "-inkprobe_target", false);
	write_file(INK_DIR "/blobs", "-vmlinux", false);
	ASSERT_EQ(NULL, strstr(read_file(INK_DIR "/blobs", NULL), "build-id="));

	/*
	 * A kernel with a tunnel built in (the debug kernel: IPV6_SIT=y) gives
	 * every new namespace its fallback device (sit0): only the guest's
	 * first namespace gets one from now on.
	 */
	write_file("/proc/sys/net/core/fb_tunnels_only_for_init_net", "1", false);
	ASSERT_EQ(0, srv_isolate());
	ASSERT_EQ(1, srv_count_interfaces());
	ASSERT_EQ(0, srv_prepare(&self->s, 60 * timeout_scale()));
}

FIXTURE_TEARDOWN(fetch)
{
	if (srv_stop(&self->s))
		TH_LOG("cannot remove %s", self->s.dir);
	clear_probes();
	/* the next tests expect the target's blob and no vmlinux blob */
	write_file(INK_DIR "/blobs", "-vmlinux", false);
	setup_target();
}

static int count_lines(const char *text)
{
	int n = 0;

	for (; (text = strchr(text, '\n')); text++)
		n++;
	return n;
}

/* The line of @text holding @needle, copied to @line; false if none. */
static bool find_line(const char *text, const char *needle, char *line, size_t size)
{
	const char *at = strstr(text, needle), *start, *end;

	if (!at)
		return false;
	for (start = at; start > text && start[-1] != '\n';)
		start--;
	end = strchrnul(at, '\n');
	snprintf(line, size, "%.*s", (int)(end - start), start);
	return true;
}

/* The offset of the kprobe in @caller, from the kprobes list; -1 if none. */
static long kprobe_offset(const char *caller)
{
	char *list = read_file(KPROBES_LIST, NULL), *at, pat[80];
	unsigned int off;
	long ret = -1;

	snprintf(pat, sizeof(pat), " %s+0x", caller);
	at = list ? strstr(list, pat) : NULL;
	if (at && sscanf(at + strlen(pat), "%x", &off) == 1)
		ret = off;
	free(list);
	return ret;
}

TEST_F_TIMEOUT(fetch, load_by_build_id_and_trace, 600)
{
	struct blob_facts tgt, vml;
	char want[512], got[1024], caller[64], *expected, *line, *save = NULL;
	char target_ko[512], target_out[160], vmlinux_out[160], secs[16];
	unsigned long long reg;
	int konst, matched = 0, targets, st = -1;
	pid_t trig;
	time_t t0;
	struct run *r = &self->r;

	/* the oracles: what gen read from the ELF files on the host */
	ASSERT_EQ(0, blob_facts(blob_path("inkprobe_target.inkb"), &tgt));
	ASSERT_EQ(0, blob_facts(blob_path("vmlinux.inkb"), &vml));
	EXPECT_STREQ("inkprobe_target", tgt.name);
	EXPECT_STREQ("vmlinux", vml.name);

	/* published here, as a build host would */
	snprintf(target_ko, sizeof(target_ko), "%s", kmod_path("inkprobe_target.ko"));
	snprintf(target_out, sizeof(target_out), "%s/inkprobe_target.inkb.elf", self->s.srv);
	snprintf(vmlinux_out, sizeof(vmlinux_out), "%s/vmlinux.inkb.elf", self->s.srv);
	ASSERT_EQ(0, run_tool(r, 60, "publish", "--target", target_ko, "-o", target_out,
			      blob_path("inkprobe_target.inkb"), NULL)) {
		TH_LOG("%s", r->err);
	}
	ASSERT_EQ(0, run_tool(r, 60, "publish", "-o", vmlinux_out, blob_path("vmlinux.inkb"),
			      NULL)) {
		TH_LOG("%s", r->err);
	}
	ASSERT_LE(0, srv_start(&self->s, false, -1, 2, 120 * timeout_scale())) {
		TH_LOG("debuginfod did not index the 2 files: %s", self->s.metrics);
	}

	/* the loaded module's build ID, from /sys/module/inkprobe_target/notes */
	ASSERT_EQ(0, run_tool(r, 120, "load", "--module", "inkprobe_target", NULL)) {
		TH_LOG("%s", r->err);
	}
	snprintf(want, sizeof(want), "inkprobe_target build-id=%s loaded\n", tgt.hex);
	EXPECT_STREQ(want, r->out);
	ASSERT_EQ(0, run_tool(r, 30, "list", "--blobs", NULL));
	snprintf(want, sizeof(want), "inkprobe_target build-id=%s instances=%u ", tgt.hex,
		 tgt.instances);
	ASSERT_TRUE(find_line(r->out, want, got, sizeof(got))) {
		TH_LOG("no '%s' in %s", want, r->out);
	}
	EXPECT_NE(NULL, strstr(got, " live ")) TH_LOG("%s", got);

	/* a probe on the fetched blob: the values the target recorded */
	ASSERT_EQ(0, run_tool(r, 60, "add", PROBE, NULL)) {
		TH_LOG("%s", r->err);
	}
	/* the reader reads from when it has enabled the event in its instance */
	trig = trigger_when_traced("tgt/fetched", 0x1234567890abcdefULL, 4242, 77);
	ASSERT_LT(0, trig);
	snprintf(secs, sizeof(secs), "%d", 60 * timeout_scale());
	ASSERT_EQ(0, run_tool(r, 90, "trace", "--count", "2", "--json", "--timeout", secs,
			      NULL)) {
		TH_LOG("%s", r->err);
	}
	ASSERT_EQ(trig, waitpid(trig, &st, 0));
	ASSERT_EQ(0, st);
	ASSERT_EQ(2, count_lines(r->out)) TH_LOG("%s", r->out);
	expected = read_file(TGT_DIR "/expected", NULL);
	ASSERT_NE(NULL, expected);
	for (line = strtok_r(expected, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		const char *rest;

		ASSERT_EQ(3, sscanf(line, "tgt_mix %63s reg=%llu konst=%d", caller, &reg, &konst));
		snprintf(want, sizeof(want), "\"caller\":\"%s\"", caller);
		ASSERT_TRUE(find_line(r->out, want, got, sizeof(got))) {
			TH_LOG("no event in %s: %s", caller, r->out);
		}
		rest = strstr(got, ",\"group\":");
		ASSERT_NE(NULL, rest);
		snprintf(want, sizeof(want), ",\"group\":\"tgt\",\"event\":\"fetched\","
			 "\"ip\":%lu,\"caller\":\"%s\",\"offset\":%ld,\"args\":{\"reg\":%llu,"
			 "\"konst\":%d}}", kallsyms_addr(caller) + kprobe_offset(caller), caller,
			 kprobe_offset(caller), reg, konst);
		EXPECT_STREQ(want, rest);
		matched++;
	}
	EXPECT_EQ(2, matched);
	free(expected);
	ASSERT_EQ(0, run_tool(r, 30, "del", "tgt/fetched", NULL));
	ASSERT_EQ(0, run_tool(r, 30, "unload", "inkprobe_target", NULL));

	/*
	 * Everything: the running kernel's build ID (/sys/kernel/notes) and each
	 * loaded module's; the two published blobs load, the others have none.
	 */
	t0 = time(NULL);
	ASSERT_EQ(0, run_tool(r, 300, "load", NULL)) {
		TH_LOG("%s\n%s", r->out, r->err);
	}
	targets = count_lines(r->out);
	TH_LOG("inkprobe load: %d targets in %lld s:\n%s", targets,
	       (long long)(time(NULL) - t0), r->out);
	snprintf(want, sizeof(want), "vmlinux build-id=%s loaded\n", vml.hex);
	EXPECT_EQ(0, strncmp(r->out, want, strlen(want))) TH_LOG("%s", r->out);
	snprintf(want, sizeof(want), "\ninkprobe_target build-id=%s loaded\n", tgt.hex);
	EXPECT_NE(NULL, strstr(r->out, want)) TH_LOG("%s", r->out);
	/* inkprobe.ko itself is loaded: it has a line, without a blob */
	EXPECT_NE(NULL, strstr(r->out, "\ninkprobe build-id=")) TH_LOG("%s", r->out);
	for (line = r->out, matched = 0; (line = strstr(line, " loaded\n")); line++)
		matched++;
	EXPECT_EQ(2, matched);
	for (line = r->out, matched = 0; (line = strstr(line, " no blob\n")); line++)
		matched++;
	EXPECT_EQ(count_lines(r->out) - 2, matched) TH_LOG("%s", r->out);
	ASSERT_EQ(0, run_tool(r, 30, "list", "--blobs", NULL));
	snprintf(want, sizeof(want), "vmlinux build-id=%s instances=%u ", vml.hex,
		 vml.instances);
	EXPECT_TRUE(find_line(r->out, want, got, sizeof(got))) TH_LOG("%s", r->out);
	snprintf(want, sizeof(want), "inkprobe_target build-id=%s instances=%u ", tgt.hex,
		 tgt.instances);
	EXPECT_TRUE(find_line(r->out, want, got, sizeof(got))) TH_LOG("%s", r->out);

	/*
	 * Again, as a fleet's periodic job would: the loaded blobs are not
	 * fetched, the misses are remembered by the client (cache_miss_s).
	 */
	ASSERT_EQ(0, run_tool(r, 300, "load", NULL)) {
		TH_LOG("%s\n%s", r->out, r->err);
	}
	EXPECT_EQ(targets, count_lines(r->out));
	snprintf(want, sizeof(want), "vmlinux build-id=%s already loaded\n", vml.hex);
	EXPECT_EQ(0, strncmp(r->out, want, strlen(want))) TH_LOG("%s", r->out);
	snprintf(want, sizeof(want), "\ninkprobe_target build-id=%s already loaded\n", tgt.hex);
	EXPECT_NE(NULL, strstr(r->out, want)) TH_LOG("%s", r->out);
	/*
	 * One section request per target: the target's blob came from the
	 * client's cache the second time, so as many requests as lines.
	 */
	ASSERT_EQ(0, srv_http_get(self->s.port, "/metrics", self->s.metrics,
				  sizeof(self->s.metrics)));
	EXPECT_EQ(targets, srv_metric(&self->s, "http_requests_total{type=\"section\"} "));
}

/*
 * The one-command trace of a module's function, its blob not loaded: the
 * trace fetches it by build ID (its status line on stderr), streams the
 * values the target recorded, and unloads the blob it loaded at the end.
 */
TEST_F_TIMEOUT(fetch, trace_spec_fetches_the_missing_blob, 600)
{
	char want[512], got[1024], caller[64], *expected, *line, *save = NULL;
	char target_ko[512], target_out[160], secs[16];
	struct blob_facts tgt;
	unsigned long long reg;
	int konst, matched = 0, st = -1;
	struct run *r = &self->r;
	pid_t trig;

	ASSERT_EQ(0, blob_facts(blob_path("inkprobe_target.inkb"), &tgt));
	snprintf(target_ko, sizeof(target_ko), "%s", kmod_path("inkprobe_target.ko"));
	snprintf(target_out, sizeof(target_out), "%s/inkprobe_target.inkb.elf", self->s.srv);
	ASSERT_EQ(0, run_tool(r, 60, "publish", "--target", target_ko, "-o", target_out,
			      blob_path("inkprobe_target.inkb"), NULL)) {
		TH_LOG("%s", r->err);
	}
	ASSERT_LE(0, srv_start(&self->s, false, -1, 1, 120 * timeout_scale())) {
		TH_LOG("debuginfod did not index the file: %s", self->s.metrics);
	}

	trig = trigger_when_traced("inkprobe_trace_*/tgt_mix", 77, 88, 99);
	ASSERT_LT(0, trig);
	snprintf(secs, sizeof(secs), "%d", 60 * timeout_scale());
	ASSERT_EQ(0, run_tool(r, 240, "trace", "inkprobe_target:tgt_mix reg konst", "--count",
			      "2", "--json", "--timeout", secs, NULL)) {
		TH_LOG("%s", r->err);
	}
	ASSERT_EQ(trig, waitpid(trig, &st, 0));
	ASSERT_EQ(0, st);
	snprintf(want, sizeof(want), "inkprobe_target build-id=%s loaded\n", tgt.hex);
	EXPECT_STREQ(want, r->err);
	ASSERT_EQ(2, count_lines(r->out)) TH_LOG("%s", r->out);
	expected = read_file(TGT_DIR "/expected", NULL);
	ASSERT_NE(NULL, expected);
	for (line = strtok_r(expected, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		ASSERT_EQ(3, sscanf(line, "tgt_mix %63s reg=%llu konst=%d", caller, &reg, &konst));
		snprintf(want, sizeof(want), "\"caller\":\"%s\"", caller);
		ASSERT_TRUE(find_line(r->out, want, got, sizeof(got))) {
			TH_LOG("no event in %s: %s", caller, r->out);
		}
		snprintf(want, sizeof(want), ",\"args\":{\"reg\":%llu,\"konst\":%d}}", reg, konst);
		ASSERT_LE(strlen(want), strlen(got));
		EXPECT_EQ(0, strcmp(got + strlen(got) - strlen(want), want)) {
			TH_LOG("%s, want %s", got, want);
		}
		matched++;
	}
	EXPECT_EQ(2, matched);
	free(expected);
	/* what it added is gone: the event and the blob */
	ASSERT_EQ(0, run_tool(r, 30, "list", NULL));
	EXPECT_STREQ("", r->out);
	ASSERT_EQ(0, run_tool(r, 30, "list", "--blobs", NULL));
	EXPECT_EQ(NULL, strstr(r->out, "inkprobe_target ")) TH_LOG("%s", r->out);
}

TEST_HARNESS_MAIN
