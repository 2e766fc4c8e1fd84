// SPDX-License-Identifier: GPL-2.0
/* inkprobe-kernels: !debug -- Debian's own ext4 and nf_conntrack and their -dbg DWARF: agreement with perf probe, not memory safety */
/*
 * Debian's own modules as targets: ext4 and nf_conntrack, as the distribution
 * ships them, traced through blobs the host generated from the -dbg .ko files
 * (scripts/check: gen on KDIR/dbg-modules/NAME.ko), and compared with
 * kprobe_events.
 *
 * scripts/real-defs --module NAME lists the inlined instances perf probe -D
 * (the oracle: it reads the -dbg .ko on the host) and inkprobe find at one
 * address, with perf's fetch-args (or, for an argument of a listed
 * difference, the DWARF's value: guest_util.h): build/KERNEL/blobs/
 * NAME-defs.txt.  Here, with the module not loaded, the instances of the
 * functions below that the workload reaches, and every instance with an
 * argument of a listed difference (hit or not), get an inkprobe event
 * (MOD:FUNC@CALLER+OFF) and a kprobe_events event with those fetch-args at
 * MOD:CALLER+OFF.  Both wait
 * for the module.  modprobe loads it from the guest's module tree
 * (virtme-ng links the test kernel's /lib/modules); both attach, disarmed
 * (kprobes' global switch), and the switch arms both at once around a
 * workload: an ext4 file system on a loop-mounted file (writes, fsync,
 * reads; delayed allocation and not), or conntrack on loopback (an nft
 * table whose rules match "ct state" on lo; TCP and UDP to 127.0.0.1).
 * Every instance of the functions below must be hit, and the events of
 * every instance must be equal on both sides,
 * CPU by CPU, hit by hit, with nothing lost (inkprobe's trace events in the
 * tests' buffer, kprobe_events' in the top level's).  Then rmmod: every inkprobe
 * instance detaches (live=0, blob waiting), modprobe again: every one comes
 * back (live=probes, refused=0), and the workload's events match again.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "guest_util.h"

#define TRACING		"/sys/kernel/tracing"
#define KPROBES_ON	"/sys/kernel/debug/kprobes/enabled"
#define MAX_DEFS	128

/*
 * The FUNC@CALLER (CALLER or its clones) whose every instance the workload
 * hits on every test kernel; the defs file has more (dccp, sctp...).
 * nf_ct_is_template@nf_conntrack_in is hit on 6.1 and 6.12, but sid's
 * GCC 16 leaves its instances no code (the differences file: no-code).
 */
static const char *const ext4_hit[] = {
	"ext4_update_inode_fsync_trans@ext4_mark_iloc_dirty",
	"ext4_update_i_disksize@ext4_write_end",
	"ext4_should_dioread_nolock@ext4_write_begin",
	NULL
};

static const char *const ct_hit[] = {
	"nf_ct_refresh_acct@nf_conntrack_tcp_packet",
	"nf_ct_refresh_acct@nf_conntrack_udp_packet",
	"resolve_normal_ct@nf_conntrack_in",
	NULL
};

static struct cmp_def defs[MAX_DEFS];
static int nr_defs;
/* placed for their oracles (arguments of listed differences), hit or not */
static bool extra[MAX_DEFS];

/* @d is an instance of @pattern, "FUNC@CALLER" (CALLER also its clones: CALLER.isra.0) */
static bool instance_of(const struct cmp_def *d, const char *pattern)
{
	const char *caller = strchr(d->caller, ':'), *at = strchr(pattern, '@');
	size_t n = strlen(at + 1);

	caller = caller ? caller + 1 : d->caller;
	return (size_t)(at - pattern) == strlen(d->func) &&
	       !strncmp(pattern, d->func, at - pattern) && !strncmp(caller, at + 1, n) &&
	       (!caller[n] || caller[n] == '.');
}

static bool wanted(const struct cmp_def *d, const char *const *hit)
{
	for (; *hit; hit++)
		if (instance_of(d, *hit))
			return true;
	return false;
}

static int run(const char *cmd)
{
	int rc = system(cmd);

	if (rc)
		fprintf(stderr, "# '%s': status %d\n", cmd, rc);
	return rc;
}

#define IMAGE	"/tmp/inkprobe-ext4.img"
#define MNT	"/tmp/inkprobe-ext4"

/* An ext4 file system on a loop-mounted file: write, fsync, read back. */
static int workload_ext4(void)
{
	static char buf[65536], back[65536];
	const char *opts[] = { "loop", "loop,nodelalloc" };
	char cmd[256], path[128];
	int pass, i, fd, bad = 0;

	/* mount -o loop needs /dev/loop-control */
	if (run("modprobe loop && truncate -s 32M " IMAGE " && mkfs.ext4 -q -F " IMAGE) ||
	    (mkdir(MNT, 0700) && errno != EEXIST))
		return -1;
	for (pass = 0; pass < 2 && !bad; pass++) {
		snprintf(cmd, sizeof(cmd), "mount -t ext4 -o %s " IMAGE " " MNT, opts[pass]);
		if (run(cmd))
			return -1;
		for (i = 0; i < 8 && !bad; i++) {
			memset(buf, 'a' + i + pass, sizeof(buf));
			snprintf(path, sizeof(path), MNT "/f%d-%d", pass, i);
			fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600);
			if (fd < 0 || write(fd, buf, sizeof(buf)) != sizeof(buf) ||
			    write(fd, buf, 100) != 100 || fsync(fd) ||
			    pread(fd, back, sizeof(back), 0) != sizeof(back) ||
			    memcmp(buf, back, sizeof(buf)))
				bad = 1;
			if (fd >= 0)
				close(fd);
		}
		if (!bad && unlink(MNT "/f0-0") && pass == 0)
			bad = 1;
		sync();
		if (run("umount " MNT))
			bad = 1;
	}
	rmdir(MNT);
	unlink(IMAGE);
	return bad ? -1 : 0;
}

/* conntrack sees the loopback traffic: an nft table matching "ct state" on lo */
#define NFT_RULES \
	"nft -f - <<'EOF'\n" \
	"table inet inkprobe_ct {\n" \
	"  chain out { type filter hook output priority 0; oif \"lo\" ct state new,established counter; }\n" \
	"  chain in { type filter hook input priority 0; iif \"lo\" ct state new,established counter; }\n" \
	"}\n" \
	"EOF\n"

/* TCP and UDP to 127.0.0.1 */
static int workload_ct(void)
{
	struct sockaddr_in a = { .sin_family = AF_INET };
	socklen_t alen = sizeof(a);
	char buf[4096];
	int us, uc, round, bad = 0;

	if (tcp_loopback(4, 4, 512))
		return -1;
	memset(buf, 0x3c, sizeof(buf));
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	us = socket(AF_INET, SOCK_DGRAM, 0);
	uc = socket(AF_INET, SOCK_DGRAM, 0);
	alen = sizeof(a);
	if (bind(us, (void *)&a, sizeof(a)) || getsockname(us, (void *)&a, &alen) ||
	    connect(uc, (void *)&a, sizeof(a)))
		bad = 1;
	/*
	 * replies too; and still active after two seconds: conntrack's
	 * unreplied and replied ("stream") UDP timeouts
	 */
	for (round = 0; round < 10 && !bad; round++) {
		struct sockaddr_in from;
		socklen_t flen = sizeof(from);

		if (send(uc, buf, 100, 0) != 100 ||
		    recvfrom(us, buf, sizeof(buf), 0, (void *)&from, &flen) != 100 ||
		    sendto(us, buf, 50, 0, (void *)&from, flen) != 50 ||
		    recv(uc, buf, sizeof(buf), 0) != 50)
			bad = 1;
		if (round == 7)
			sleep(3);
	}
	close(us);
	close(uc);
	return bad ? -1 : 0;
}

static unsigned int events_kb;

/*
 * kprobes armed, no kprobe_events, no event enabled in the tests' buffer,
 * its size back, no nft table, no mount: also after a failure
 */
static void restore(void)
{
	write_file(KPROBES_ON, "1", false);
	write_file(EVENTS_INST "/set_event", "", false);
	if (events_kb)
		events_instance(events_kb);
	write_file(TRACING "/events/kdm/enable", "0", false);
	write_file(TRACING "/kprobe_events", "", false);
	/* nothing to undo: the commands fail */
	system("umount " MNT " 2>/dev/null; rmdir " MNT " 2>/dev/null; rm -f " IMAGE "; "
	       "nft delete table inet inkprobe_ct 2>/dev/null");
}

FIXTURE(dm) {
	int unused;
};

FIXTURE_SETUP(dm)
{
	restore();
}

FIXTURE_TEARDOWN(dm)
{
	restore();
	if (module_loaded("inkprobe"))
		unload_module("inkprobe");
}

/* inkprobe's instances of every event: probes=, live=, refused= summed */
static void stat_sums(unsigned long long *probes, unsigned long long *live,
		      unsigned long long *refused)
{
	char *stats = read_file(INK_DIR "/stats", NULL);

	*probes = stats ? stat_sum(stats, "probes") : 0;
	*live = stats ? stat_sum(stats, "live") : ~0ULL;
	*refused = stats ? stat_sum(stats, "refused") : ~0ULL;
	free(stats);
}

/* @mod's line in the blobs file (static buffer), "" if none */
static const char *blob_line(const char *mod)
{
	static char line[512];
	char *all = read_file(INK_DIR "/blobs", NULL), *p = all;
	size_t n = strlen(mod);

	line[0] = '\0';
	while (p && *p) {
		if (!strncmp(p, mod, n) && p[n] == ' ') {
			snprintf(line, sizeof(line), "%.*s", (int)strcspn(p, "\n"), p);
			break;
		}
		p = strchr(p, '\n');
		p = p ? p + 1 : NULL;
	}
	free(all);
	return line;
}

/*
 * One round: arm, @workload, disarm, then every placed instance hit and its
 * events equal on both sides; how many events were compared.
 */
static unsigned long compare_round(struct __test_metadata *_metadata, int (*workload)(void),
				   const char *what)
{
	unsigned long compared = 0, oracles = 0;
	char *stats;
	int i, c;

	ASSERT_EQ(0, write_file(TRACING "/trace", "", false));
	drain_events();
	ASSERT_EQ(0, write_file(KPROBES_ON, "1", false));
	EXPECT_EQ(0, workload());
	/* both sides stop at once */
	ASSERT_EQ(0, write_file(KPROBES_ON, "0", false));
	stats = read_file(INK_DIR "/stats", NULL);
	ASSERT_NE(NULL, stats);
	EXPECT_EQ(0ULL, stat_sum(stats, "ftrace_lost"));
	EXPECT_EQ(0ULL, stat_sum(stats, "missed"));
	EXPECT_EQ(stat_sum(stats, "hits"), stat_sum(stats, "ftrace_written"));
	free(stats);
	EXPECT_EQ(0, collect_cmp_events(defs, nr_defs, ": dm:e", ": e")) {
		TH_LOG("kprobe_events lost events");
	}
	for (i = 0; i < nr_defs; i++) {
		struct cmp_def *d = &defs[i];

		if (!d->placed)
			continue;
		EXPECT_EQ(d->nr_kp, d->nr_ink) {
			TH_LOG("%s@%s+0x%x: kprobe_events %lu hits, inkprobe %lu", d->func,
			       d->caller, d->off, d->nr_kp, d->nr_ink);
		}
		EXPECT_TRUE(extra[i] || d->nr_ink) {
			TH_LOG("%s@%s+0x%x: not hit by the workload", d->func, d->caller, d->off);
		}
		for (c = 0; c < CMP_MAX_CPUS; c++) {
			const char *a = d->ink[c] ? d->ink[c] : "", *b = d->kp[c] ? d->kp[c] : "";

			EXPECT_STREQ(b, a) {
				TH_LOG("%s@%s+0x%x on CPU %d", d->func, d->caller, d->off, c);
			}
		}
		compared += d->nr_ink;
		oracles += d->nr_ink * d->nr_oracles;
		TH_LOG("%s %s@%s+0x%x: %lu events compared", what, d->func, d->caller, d->off,
		       d->nr_ink);
	}
	TH_LOG("%s %lu values of arguments of listed differences checked against the DWARF",
	       what, oracles);
	reset_cmp_events(defs, nr_defs);
	return compared;
}

/*
 * The whole scenario for module @mod (@deps: the modules it needs that are
 * not loaded with it, removed after it; @setup: what makes the workload
 * reach it).
 */
static void trace_module(struct __test_metadata *_metadata, const char *mod,
			 const char *const *hit, int (*workload)(void), const char *load_cmd,
			 const char *setup, const char *unload_cmd)
{
	unsigned long long probes, live, refused;
	unsigned long compared;
	char path[512], cmd[1024], blob[64];
	int i, placed = 0, no_oracle;

	snprintf(path, sizeof(path), "%s/%s-defs.txt", env_or("INKPROBE_BLOB_DIR", "."), mod);
	nr_defs = read_cmp_defs(path, defs, MAX_DEFS, &no_oracle);
	ASSERT_LT(0, nr_defs);
	TH_LOG("%s: %d arguments of listed differences without a run-time oracle", mod,
	       no_oracle);
	if (module_loaded(mod))
		ASSERT_EQ(0, run(unload_cmd));
	ASSERT_FALSE(module_loaded(mod));
	if (module_loaded("inkprobe"))
		ASSERT_EQ(0, unload_module("inkprobe"));
	ASSERT_EQ(0, load_module(kmod_path("inkprobe.ko")));
	ASSERT_EQ(0, events_instance(0));
	if (!events_kb)
		events_kb = events_buffer_kb();
	ASSERT_LT(0u, events_kb);
	ASSERT_EQ(0, events_instance(16384));
	snprintf(blob, sizeof(blob), "%s.inkb", mod);
	ASSERT_EQ(0, load_blob(blob_path(blob))) {
		TH_LOG("%s", last_error());
	}
	TH_LOG("%s", blob_line(mod));
	EXPECT_NE(NULL, strstr(blob_line(mod), " waiting "));

	system("mount -t tracefs nodev " TRACING " 2>/dev/null");
	ASSERT_EQ(0, write_file(KPROBES_ON, "0", false));
	ASSERT_EQ(0, write_file(TRACING "/buffer_size_kb", "8192", false));
	ASSERT_EQ(0, write_file(TRACING "/kprobe_events", "", false));
	/* before the module: both sides wait for it */
	for (i = 0; i < nr_defs; i++) {
		struct cmp_def *d = &defs[i];
		const char *caller = strchr(d->caller, ':') + 1;

		extra[i] = !wanted(d, hit) && d->nr_oracles;
		if (!wanted(d, hit) && !extra[i])
			continue;
		snprintf(cmd, sizeof(cmd), "p:dm/e%d %s:%s@%s+0x%x%s", i, mod, d->func, caller,
			 d->off, d->args_ink);
		ASSERT_EQ(0, probes_cmd(cmd, true)) {
			TH_LOG("%s: %s", cmd, last_error());
		}
		snprintf(cmd, sizeof(cmd), "p:kdm/e%d %s+%u %s", i, d->caller, d->off, d->args_kp);
		ASSERT_EQ(0, write_file(TRACING "/kprobe_events", cmd, true)) {
			TH_LOG("kprobe_events refused %s", cmd);
		}
		d->placed = true;
		placed++;
	}
	/* every function of the list has instances */
	for (i = 0; hit[i]; i++) {
		int j, n = 0;

		for (j = 0; j < nr_defs; j++)
			n += defs[j].placed && instance_of(&defs[j], hit[i]);
		EXPECT_LT(0, n) {
			TH_LOG("no instance of %s in %s", hit[i], path);
		}
	}
	stat_sums(&probes, &live, &refused);
	EXPECT_EQ((unsigned long long)placed, probes);
	EXPECT_EQ(0ULL, live);
	EXPECT_EQ(0ULL, refused);
	ASSERT_EQ(0, write_file(TRACING "/events/kdm/enable", "1", false));
	ASSERT_EQ(0, events_enable("dm"));

	/* the module comes: every instance attaches */
	ASSERT_EQ(0, run(load_cmd));
	ASSERT_TRUE(module_loaded(mod));
	EXPECT_NE(NULL, strstr(blob_line(mod), " live ")) {
		TH_LOG("%s", blob_line(mod));
	}
	stat_sums(&probes, &live, &refused);
	EXPECT_EQ((unsigned long long)placed, live);
	EXPECT_EQ(0ULL, refused);
	ASSERT_EQ(0, run(setup));
	compared = compare_round(_metadata, workload, "loaded:");
	TH_LOG("%s: %d instances placed before the module loaded, %lu events compared",
	       mod, placed, compared);

	/* rmmod: every instance detaches; modprobe: every one comes back */
	ASSERT_EQ(0, run(unload_cmd));
	ASSERT_FALSE(module_loaded(mod));
	EXPECT_NE(NULL, strstr(blob_line(mod), " waiting ")) {
		TH_LOG("%s", blob_line(mod));
	}
	stat_sums(&probes, &live, &refused);
	EXPECT_EQ((unsigned long long)placed, probes);
	EXPECT_EQ(0ULL, live);
	EXPECT_EQ(0ULL, refused);
	ASSERT_EQ(0, run(load_cmd));
	ASSERT_TRUE(module_loaded(mod));
	stat_sums(&probes, &live, &refused);
	EXPECT_EQ((unsigned long long)placed, live);
	EXPECT_EQ(0ULL, refused);
	ASSERT_EQ(0, run(setup));
	compared = compare_round(_metadata, workload, "reloaded:");
	TH_LOG("%s: after rmmod and modprobe, %lu events compared", mod, compared);

	restore();
	ASSERT_EQ(0, clear_probes());
	EXPECT_EQ(0, run(unload_cmd));
	ASSERT_EQ(0, unload_module("inkprobe"));
}

TEST_F_TIMEOUT(dm, ext4, 600)
{
	trace_module(_metadata, "ext4", ext4_hit, workload_ext4, "modprobe ext4", "true",
		     "rmmod ext4");
}

TEST_F_TIMEOUT(dm, nf_conntrack, 600)
{
	trace_module(_metadata, "nf_conntrack", ct_hit, workload_ct, "modprobe nf_conntrack",
		     "modprobe nft_ct && " NFT_RULES, "nft delete table inet inkprobe_ct 2>/dev/null; rmmod nft_ct 2>/dev/null; "
		     "rmmod nf_conntrack");
}

TEST_HARNESS_MAIN
