// SPDX-License-Identifier: GPL-2.0
/*
 * inkprobe profile's parts on the host, under ASan/UBSan, without a running
 * target:
 * - the report, folded stacks and perf script text (user/trace/
 *   profile_report.c) of synthetic samples whose callchains run through
 *   inkprobe_target.ko's known stack (selftests/target/tgt_stack.c):
 *
 *     tgt_chain_a -> tgt_chain_b -> [tgt_b_helper] -> tgt_chain_c
 *                 -> [tgt_stack_inner] -> [tgt_stack_innermost]
 *
 *   at addresses objdump finds in the .ko (the store of
 *   tgt_stack_innermost's WRITE_ONCE, the return addresses of the calls of
 *   tgt_chain_c and tgt_chain_b), symbolized by a fake /proc/kallsyms
 *   ($INKPROBE_KALLSYMS: the .ko's functions at a made-up base, and four
 *   vmlinux functions) and expanded with the .ko's blob.  The names the
 *   rows must show come from tgt_stack.c, the counts and shares are worked
 *   out by hand below;
 * - perf.data reading (user/trace/perf_data.c): a file built here from the
 *   uapi structs, with records that are not samples, a callchain with a
 *   user part, and a sample with only a user part.
 */
#include <linux/perf_event.h>

#include "kselftest_harness.h"
#include "host_test.h"
#include "../perf_data_craft.h"
#include "../run_prog.h"
#include "../../user/trace/ksyms.h"
#include "../../user/trace/perf_data.h"
#include "../../user/trace/profile_report.h"

#define KO_BASE		0xffffffffc0000000ULL
#define VFS_READ	0xffffffff81001000ULL
#define VFS_WRITE	0xffffffff81002000ULL
#define VFS_FSYNC	0xffffffff81003000ULL
/* below every symbol of the table */
#define NO_SYMBOL	0xffffffff80000010ULL
#define USER_IP		0x0000000000400123ULL

static const char *ko_path(void)
{
	static char path[1024];

	snprintf(path, sizeof(path), "%s/build/%s/kmod/inkprobe_target.ko",
		 host_env("INKPROBE_TOP", "."), host_kernel());
	return path;
}

/* The hex number a command printed (an objdump address "1744:"); 0 if none. */
static uint64_t run_hex(const char *fmt, const char *arg)
{
	static struct host_run r;

	if (host_run(&r, fmt, arg))
		return 0;
	return strtoull(r.out, NULL, 16);
}

/*
 * A kallsyms file: the .ko's .text functions at KO_BASE, as
 * "ADDR t NAME\t[inkprobe_target]", and vmlinux's _stext, vfs_read,
 * vfs_write, vfs_fsync.  Its path, or NULL.
 */
static const char *fake_kallsyms(void)
{
	static char path[64];
	static struct host_run r;
	char *line, *save = NULL;
	FILE *fp;
	int n = 0;

	if (host_run(&r, "ndx=$(readelf -SW %s | sed -n 's/^ *\\[ *\\([0-9]*\\)\\] \\.text .*/\\1/p'); "
		     "readelf -sW %s | awk -v ndx=\"$ndx\" '$4 == \"FUNC\" && $7 == ndx "
		     "{ print $2, $8 }'", ko_path(), ko_path()))
		return NULL;
	snprintf(path, sizeof(path), "/tmp/inkprobe-profile-kallsyms.%d", (int)getpid());
	fp = fopen(path, "w");
	if (!fp)
		return NULL;
	fprintf(fp, "ffffffff81000000 T _stext\n%016llx T vfs_read\n%016llx T vfs_write\n"
		"%016llx T vfs_fsync\n", VFS_READ, VFS_WRITE, VFS_FSYNC);
	for (line = strtok_r(r.out, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		unsigned long long v;
		char name[128];

		if (sscanf(line, "%llx %127s", &v, name) != 2)
			continue;
		fprintf(fp, "%016llx t %s\t[inkprobe_target]\n", KO_BASE + v, name);
		n++;
	}
	fclose(fp);
	return n ? path : NULL;
}

static uint64_t addr_of(void *ctx, const char *module, const char *name, int dup)
{
	return ksyms_addr_of(ctx, module, name, dup);
}

FIXTURE(prof) {
	struct ksyms *k;
	struct ink_frames *f;
	struct profile *p;
	uint64_t leaf, ret_b, ret_a;	/* in the .ko, from objdump */
	const char *kallsyms;
};

/*
 * Each test's setup runs objdump three times and reads the vmlinux's BTF:
 * about 0.1 s alone, but CI runs the host tests while four TCG guests
 * share the machine's two cores, and once (ci29) a test passed the
 * harness's default 30 s.  The prof tests take 300 s, as the host's other
 * tests that run programs do; a timeout is no assertion on speed.
 */
FIXTURE_SETUP(prof)
{
	char blob[1024], vmlinux[1024], why[256];

	/* the store to tgt_stack_sink (.bss): tgt_stack_innermost's WRITE_ONCE */
	self->leaf = run_hex("objdump -dr --no-show-raw-insn %s | awk '"
			     "/^[0-9a-f]+ <tgt_chain_c>:/ { f = 1; next } /^$/ { f = 0 } "
			     "f && /^ +[0-9a-f]+:\\t/ { a = $1 } "
			     "f && /R_X86_64_PC32\\t\\.bss/ { print a; exit }'", ko_path());
	/* the instructions after the calls of tgt_chain_c and tgt_chain_b */
	self->ret_b = run_hex("objdump -d --no-show-raw-insn %s | awk '"
			      "/^[0-9a-f]+ <tgt_chain_b>:/ { f = 1; next } /^$/ { f = 0 } "
			      "f && c { print $1; exit } f && /call.*<tgt_chain_c>/ { c = 1 }'",
			      ko_path());
	self->ret_a = run_hex("objdump -d --no-show-raw-insn %s | awk '"
			      "/^[0-9a-f]+ <tgt_chain_a>:/ { f = 1; next } /^$/ { f = 0 } "
			      "f && c { print $1; exit } f && /call.*<tgt_chain_b>/ { c = 1 }'",
			      ko_path());
	ASSERT_NE(0, self->leaf);
	ASSERT_NE(0, self->ret_b);
	ASSERT_NE(0, self->ret_a);
	self->leaf += KO_BASE;
	self->ret_b += KO_BASE;
	self->ret_a += KO_BASE;
	self->kallsyms = fake_kallsyms();
	ASSERT_NE(NULL, self->kallsyms);
	setenv("INKPROBE_KALLSYMS", self->kallsyms, 1);
	self->k = ksyms_load();
	ASSERT_NE(NULL, self->k);
	snprintf(blob, sizeof(blob), "%s/build/%s/blobs/inkprobe_target.inkb",
		 host_env("INKPROBE_TOP", "."), host_kernel());
	snprintf(vmlinux, sizeof(vmlinux), "%s/kernels/%s/build/vmlinux",
		 host_env("INKPROBE_CACHE", "/root/.cache/inkprobe"), host_kernel());
	self->f = ink_frames_new();
	ASSERT_EQ(0, ink_frames_add(self->f, blob, vmlinux, false, why, sizeof(why)))
		TH_LOG("%s", why);
	ink_frames_set_symbols(self->f, addr_of, NULL, self->k);
	self->p = profile_new(self->k, self->f);
	ASSERT_NE(NULL, self->p);
}

FIXTURE_TEARDOWN(prof)
{
	profile_free(self->p);
	ink_frames_free(self->f);
	ksyms_free(self->k);
	if (self->kallsyms)
		unlink(self->kallsyms);
}

/*
 * Five samples kept:
 *   3 x dd 100/100 on CPU 1: the target's stack, called from vfs_read+0x10;
 *   1 x cat 200/201 on CPU 0: vfs_write+0x20 called from vfs_read+0x30;
 *   1 x cat 200/201 on CPU 0: an address without symbol, called from
 *       vfs_read+0x40, then a user part (dropped);
 * and one left out: only a user part.
 */
static void add_samples(struct __test_metadata *_metadata, FIXTURE_DATA(prof) *self)
{
	const uint64_t target[] = {
		PERF_CONTEXT_KERNEL, self->leaf, self->ret_b, self->ret_a, VFS_READ + 0x10,
	};
	const uint64_t write[] = { PERF_CONTEXT_KERNEL, VFS_WRITE + 0x20, VFS_READ + 0x30 };
	const uint64_t unknown[] = {
		PERF_CONTEXT_KERNEL, NO_SYMBOL, VFS_READ + 0x40, PERF_CONTEXT_USER, USER_IP,
		USER_IP + 0x100,
	};
	const uint64_t user[] = { PERF_CONTEXT_USER, USER_IP };
	struct perf_sample s = {
		.pid = 100, .tid = 100, .cpu = 1, .period = 10101010, .comm = "dd",
		.chain = target, .nr = 5,
	};
	int i;

	for (i = 0; i < 3; i++) {
		s.time = 5000000000ULL + i * 10101010ULL;
		ASSERT_TRUE(profile_add(self->p, &s));
	}
	s = (struct perf_sample){
		.pid = 200, .tid = 201, .cpu = 0, .time = 6000123456ULL, .period = 10101010,
		.comm = "cat", .chain = write, .nr = 3,
	};
	ASSERT_TRUE(profile_add(self->p, &s));
	s.time += 10101010;
	s.chain = unknown;
	s.nr = 6;
	ASSERT_TRUE(profile_add(self->p, &s));
	s.chain = user;
	s.nr = 2;
	ASSERT_FALSE(profile_add(self->p, &s));
	ASSERT_EQ(5, profile_samples(self->p));
}

/* What @print writes, NUL-terminated (malloc'd). */
static char *capture(void (*print)(const struct profile *, FILE *), const struct profile *p)
{
	char *text = NULL;
	size_t len = 0;
	FILE *fp = open_memstream(&text, &len);

	print(p, fp);
	fclose(fp);
	return text;
}

TEST_F_TIMEOUT(prof, report_rows, 300)
{
	const struct profile_info info = {
		.hz = 99, .event = "cpu-clock", .seconds = 3.0, .scope = "all CPUs",
	};
	/*
	 * self: the innermost frame -- tgt_stack_innermost 3, vfs_write 1,
	 * [unknown] 1; total: every frame once per sample -- vfs_read 5, the
	 * target's frames 3 each; rows by self, total, then name.
	 */
	const char *want =
		"# inkprobe profile: 5 samples, 99 Hz cpu-clock, 3.0 s, all CPUs; "
		"inline frames from 1 blob\n"
		"#  self%  total%  samples  function\n"
		"  60.00   60.00        3  tgt_stack_innermost [inlined]\n"
		"  20.00   20.00        1  [unknown]\n"
		"  20.00   20.00        1  vfs_write\n"
		"   0.00  100.00        0  vfs_read\n"
		"   0.00   60.00        0  tgt_b_helper [inlined]\n"
		"   0.00   60.00        0  tgt_chain_a\n"
		"   0.00   60.00        0  tgt_chain_b\n"
		"   0.00   60.00        0  tgt_chain_c\n"
		"   0.00   60.00        0  tgt_stack_inner [inlined]\n";
	char *text = NULL;
	size_t len = 0;
	FILE *fp;

	add_samples(_metadata, self);
	fp = open_memstream(&text, &len);
	profile_print_report(self->p, &info, ink_frames_count(self->f), fp);
	fclose(fp);
	EXPECT_STREQ(want, text);
	free(text);
}

TEST_F_TIMEOUT(prof, folded_stacks, 300)
{
	const char *want =
		"cat;vfs_read;[unknown] 1\n"
		"cat;vfs_read;vfs_write 1\n"
		"dd;vfs_read;tgt_chain_a;tgt_chain_b;tgt_b_helper_[i];tgt_chain_c;"
		"tgt_stack_inner_[i];tgt_stack_innermost_[i] 3\n";
	char *text;

	add_samples(_metadata, self);
	text = capture(profile_print_folded, self->p);
	EXPECT_STREQ(want, text);
	free(text);
}

TEST_F_TIMEOUT(prof, perf_script_text, 300)
{
	char want[4096], one[1024], *text;
	int i;

	add_samples(_metadata, self);
	want[0] = '\0';
	for (i = 0; i < 3; i++) {
		snprintf(one, sizeof(one),
			 "dd 100/100 [001] 5.%06llu: 10101010 cpu-clock:\n"
			 "\t%016llx tgt_stack_innermost (inlined)\n"
			 "\t%016llx tgt_stack_inner (inlined)\n"
			 "\t%016llx tgt_chain_c+0x%llx ([inkprobe_target])\n"
			 "\t%016llx tgt_b_helper (inlined)\n"
			 "\t%016llx tgt_chain_b+0x%llx ([inkprobe_target])\n"
			 "\t%016llx tgt_chain_a+0x%llx ([inkprobe_target])\n"
			 "\t%016llx vfs_read+0x10 ([kernel.kallsyms])\n\n",
			 (unsigned long long)(i * 10101010ULL / 1000),
			 (unsigned long long)self->leaf, (unsigned long long)self->leaf,
			 (unsigned long long)self->leaf,
			 (unsigned long long)(self->leaf -
					      ksyms_addr_of(self->k, "inkprobe_target",
							    "tgt_chain_c", 0)),
			 (unsigned long long)self->ret_b, (unsigned long long)self->ret_b,
			 (unsigned long long)(self->ret_b -
					      ksyms_addr_of(self->k, "inkprobe_target",
							    "tgt_chain_b", 0)),
			 (unsigned long long)self->ret_a,
			 (unsigned long long)(self->ret_a -
					      ksyms_addr_of(self->k, "inkprobe_target",
							    "tgt_chain_a", 0)),
			 VFS_READ + 0x10);
		strcat(want, one);
	}
	snprintf(one, sizeof(one),
		 "cat 200/201 [000] 6.000123: 10101010 cpu-clock:\n"
		 "\t%016llx vfs_write+0x20 ([kernel.kallsyms])\n"
		 "\t%016llx vfs_read+0x30 ([kernel.kallsyms])\n\n"
		 "cat 200/201 [000] 6.010224: 10101010 cpu-clock:\n"
		 "\t%016llx [unknown] ([unknown])\n"
		 "\t%016llx vfs_read+0x40 ([kernel.kallsyms])\n\n",
		 VFS_WRITE + 0x20, VFS_READ + 0x30, NO_SYMBOL, VFS_READ + 0x40);
	strcat(want, one);
	text = capture(profile_print_perf_script, self->p);
	EXPECT_STREQ(want, text);
	free(text);
}

/*
 * A return address at the start of a function is the end of its call's:
 * a call that never returns, last in vfs_read, has vfs_write's address as
 * its return address.  Its symbol is looked up before it, as its inline
 * frames are (%pB's rule): vfs_read+0x1000, not vfs_write+0x0.  The leaf
 * is looked up at its address: vfs_write+0x0 there is vfs_write's entry.
 */
TEST_F_TIMEOUT(prof, return_address_at_the_next_function, 300)
{
	const uint64_t chain[] = { PERF_CONTEXT_KERNEL, VFS_FSYNC + 0x8, VFS_WRITE };
	const uint64_t leaf[] = { PERF_CONTEXT_KERNEL, VFS_WRITE, VFS_FSYNC };
	struct perf_sample s = {
		.pid = 200, .tid = 201, .cpu = 0, .time = 6000123456ULL, .period = 10101010,
		.comm = "cat", .chain = chain, .nr = 3,
	};
	char *text;

	ASSERT_TRUE(profile_add(self->p, &s));
	s.time += 10101010;
	s.chain = leaf;
	ASSERT_TRUE(profile_add(self->p, &s));
	text = capture(profile_print_perf_script, self->p);
	EXPECT_STREQ("cat 200/201 [000] 6.000123: 10101010 cpu-clock:\n"
		     "\tffffffff81003008 vfs_fsync+0x8 ([kernel.kallsyms])\n"
		     "\tffffffff81002000 vfs_read+0x1000 ([kernel.kallsyms])\n\n"
		     "cat 200/201 [000] 6.010224: 10101010 cpu-clock:\n"
		     "\tffffffff81002000 vfs_write+0x0 ([kernel.kallsyms])\n"
		     "\tffffffff81003000 vfs_write+0x1000 ([kernel.kallsyms])\n\n", text);
	free(text);
}

TEST(kernel_part_of_a_callchain)
{
	const uint64_t chain[] = {
		PERF_CONTEXT_KERNEL, VFS_WRITE, VFS_READ, PERF_CONTEXT_USER, USER_IP,
		PERF_CONTEXT_GUEST_KERNEL, VFS_WRITE + 1, PERF_CONTEXT_KERNEL, VFS_READ + 2,
	};
	/* no marker: the kernel half of the address space only */
	const uint64_t bare[] = { VFS_WRITE, USER_IP, VFS_READ };
	uint64_t out[8];

	ASSERT_EQ(3, profile_kernel_chain(chain, 9, out, 8));
	EXPECT_EQ(VFS_WRITE, out[0]);
	EXPECT_EQ(VFS_READ, out[1]);
	EXPECT_EQ(VFS_READ + 2, out[2]);
	ASSERT_EQ(2, profile_kernel_chain(bare, 3, out, 8));
	EXPECT_EQ(VFS_WRITE, out[0]);
	EXPECT_EQ(VFS_READ, out[1]);
	EXPECT_EQ(1, profile_kernel_chain(chain, 9, out, 1));
}

/* ---- perf.data ---- */

struct file_bytes {
	uint8_t b[4096];
	size_t len;
};

static void put(struct file_bytes *f, const void *p, size_t n)
{
	memcpy(f->b + f->len, p, n);
	f->len += n;
}

static void put_u64(struct file_bytes *f, uint64_t v)
{
	put(f, &v, 8);
}

static void put_u32(struct file_bytes *f, uint32_t v)
{
	put(f, &v, 4);
}

static void put_header(struct file_bytes *f, uint32_t type, size_t size)
{
	struct perf_event_header h = { .type = type, .size = (uint16_t)size };

	put(f, &h, sizeof(h));
}

struct collected {
	struct perf_sample s[4];
	uint64_t chain[4][8];
	char comm[4][16];
	int n;
};

static void collect(void *ctx, const struct perf_sample *s)
{
	struct collected *c = ctx;

	if (c->n == 4 || s->nr > 8)
		return;
	c->s[c->n] = *s;
	if (s->nr)
		memcpy(c->chain[c->n], s->chain, s->nr * 8);
	c->s[c->n].chain = c->chain[c->n];
	snprintf(c->comm[c->n], sizeof(c->comm[0]), "%s", s->comm ? s->comm : "(null)");
	c->s[c->n].comm = c->comm[c->n];
	c->n++;
}

/*
 * A perf.data of one cpu-clock event (4000 Hz): a COMM record (dd, 300/301),
 * an MMAP record, a sample whose callchain is vfs_write+0x20 <- vfs_read+0x30
 * then a user part, and a sample with only a user part.
 */
static void write_perf_data(struct __test_metadata *_metadata, const char *path)
{
	const uint64_t kernel_and_user[] = {
		PERF_CONTEXT_KERNEL, VFS_WRITE + 0x20, VFS_READ + 0x30, PERF_CONTEXT_USER,
		USER_IP,
	};
	const uint64_t user_only[] = { PERF_CONTEXT_USER, USER_IP };
	struct perf_craft c;

	ASSERT_EQ(0, perf_craft_open(&c, path, 4000));
	/* a COMM record (not a sample), an MMAP one (skipped), the samples */
	perf_craft_comm(&c, 300, 301, "dd");
	perf_craft_mmap(&c, 300, 301, 0x400000, 0x1000, "/bin/dd");
	perf_craft_sample(&c, 300, 301, 5000123456ULL, 2, kernel_and_user, 5);
	perf_craft_sample(&c, 300, 301, 5000373456ULL, 2, user_only, 2);
	ASSERT_EQ(0, perf_craft_close(&c));
}

/* A kallsyms file of three vmlinux functions, at @path. */
static void write_vfs_kallsyms(struct __test_metadata *_metadata, const char *path)
{
	FILE *fp = fopen(path, "w");

	ASSERT_NE(NULL, fp);
	fprintf(fp, "%016llx T vfs_read\n%016llx T vfs_write\nffffffff81003000 T vfs_fsync\n",
		VFS_READ, VFS_WRITE);
	fclose(fp);
}

TEST(perf_data_samples)
{
	struct perf_data_info info;
	struct collected c = { 0 };
	struct profile *p;
	struct ksyms *k;
	char path[64], kallsyms[64], why[256], *text = NULL;
	size_t len = 0;
	FILE *fp;

	snprintf(path, sizeof(path), "/tmp/inkprobe-profile-perf.data.%d", (int)getpid());
	write_perf_data(_metadata, path);
	ASSERT_EQ(0, perf_data_read(path, collect, &c, &info, why, sizeof(why)))
		TH_LOG("%s", why);
	unlink(path);
	EXPECT_EQ(2, info.samples);
	EXPECT_EQ(2, info.other);
	EXPECT_EQ(4000, info.hz);
	EXPECT_STREQ("cpu-clock", info.event);
	EXPECT_EQ(5000123456ULL, info.first_time);
	EXPECT_EQ(5000373456ULL, info.last_time);
	ASSERT_EQ(2, c.n);
	EXPECT_EQ(300, c.s[0].pid);
	EXPECT_EQ(301, c.s[0].tid);
	EXPECT_EQ(2, c.s[0].cpu);
	EXPECT_EQ(250000, c.s[0].period);
	EXPECT_STREQ("dd", c.s[0].comm);
	ASSERT_EQ(5, c.s[0].nr);
	EXPECT_EQ(VFS_READ + 0x30, c.s[0].chain[2]);
	ASSERT_EQ(2, c.s[1].nr);

	/* through the report: the user parts are dropped, the user-only sample left out */
	snprintf(kallsyms, sizeof(kallsyms), "/tmp/inkprobe-profile-ksyms.%d", (int)getpid());
	write_vfs_kallsyms(_metadata, kallsyms);
	setenv("INKPROBE_KALLSYMS", kallsyms, 1);
	k = ksyms_load();
	unlink(kallsyms);
	ASSERT_NE(NULL, k);
	p = profile_new(k, NULL);
	ASSERT_NE(NULL, p);
	EXPECT_TRUE(profile_add(p, &c.s[0]));
	EXPECT_FALSE(profile_add(p, &c.s[1]));
	fp = open_memstream(&text, &len);
	profile_print_perf_script(p, fp);
	fclose(fp);
	EXPECT_STREQ("dd 300/301 [002] 5.000123: 250000 cpu-clock:\n"
		     "\tffffffff81002020 vfs_write+0x20 ([kernel.kallsyms])\n"
		     "\tffffffff81001030 vfs_read+0x30 ([kernel.kallsyms])\n\n", text);
	free(text);
	profile_free(p);
	ksyms_free(k);
}

/*
 * The command, end to end: build/inkprobe-san profile -i on that file, with
 * the fake kallsyms and no inkprobe.ko (an empty control directory), every
 * output; and the usage errors.
 */
TEST(command_line)
{
	char path[64], kallsyms[64], out[64], bin[1024], want[1024], ctl[64];
	const char *top = getenv("INKPROBE_TOP");
	static struct run r;
	FILE *fp;

	snprintf(bin, sizeof(bin), "%s/build/inkprobe-san", top && *top ? top : ".");
	snprintf(path, sizeof(path), "/tmp/inkprobe-profile-cli.%d.data", (int)getpid());
	snprintf(kallsyms, sizeof(kallsyms), "/tmp/inkprobe-profile-cli.%d.ksyms", (int)getpid());
	snprintf(out, sizeof(out), "/tmp/inkprobe-profile-cli.%d.out", (int)getpid());
	snprintf(ctl, sizeof(ctl), "/tmp/inkprobe-profile-cli.%d.ctl", (int)getpid());
	write_perf_data(_metadata, path);
	write_vfs_kallsyms(_metadata, kallsyms);
	setenv("INKPROBE_KALLSYMS", kallsyms, 1);
	setenv("INKPROBE_DEBUGFS_DIR", ctl, 1);	/* does not exist: no loaded blobs */
	unsetenv("INKPROBE_BLOBS");

	ASSERT_EQ(0, run_prog(&r, 60, bin, "profile", "-i", path, NULL)) TH_LOG("%s", r.err);
	snprintf(want, sizeof(want),
		 "# inkprobe profile: 1 samples, 4000 Hz cpu-clock, 0.0 s, perf.data %s; "
		 "inline frames from 0 blobs\n"
		 "#  self%%  total%%  samples  function\n"
		 " 100.00  100.00        1  vfs_write\n"
		 "   0.00  100.00        0  vfs_read\n", path);
	EXPECT_STREQ(want, r.out);
	EXPECT_NE(NULL, strstr(r.err, "1 samples without a kernel callchain left out"))
		TH_LOG("%s", r.err);

	ASSERT_EQ(0, run_prog(&r, 60, bin, "profile", "--input", path, "--folded", NULL));
	EXPECT_STREQ("dd;vfs_read;vfs_write 1\n", r.out);

	ASSERT_EQ(0, run_prog(&r, 60, bin, "profile", "-i", path, "--perf-script", "-o", out,
			      NULL));
	EXPECT_STREQ("", r.out);
	EXPECT_NE(NULL, strstr(r.err, "inkprobe profile: 1 samples; inline frames from 0 blobs"))
		TH_LOG("%s", r.err);
	fp = fopen(out, "r");
	ASSERT_NE(NULL, fp);
	memset(want, 0, sizeof(want));
	EXPECT_LT(0, fread(want, 1, sizeof(want) - 1, fp));
	fclose(fp);
	EXPECT_STREQ("dd 300/301 [002] 5.000123: 250000 cpu-clock:\n"
		     "\tffffffff81002020 vfs_write+0x20 ([kernel.kallsyms])\n"
		     "\tffffffff81001030 vfs_read+0x30 ([kernel.kallsyms])\n\n", want);

	/* usage errors: 2; a file that is not there: 1 */
	EXPECT_EQ(2, run_prog(&r, 60, bin, "profile", "-a", "-p", "1", NULL));
	EXPECT_EQ(2, run_prog(&r, 60, bin, "profile", "-i", path, "-F", "99", NULL));
	EXPECT_EQ(2, run_prog(&r, 60, bin, "profile", "-i", path, "--duration", "1", NULL));
	EXPECT_EQ(2, run_prog(&r, 60, bin, "profile", "--folded", "--perf-script", NULL));
	EXPECT_EQ(2, run_prog(&r, 60, bin, "profile", "-F", "0", NULL));
	EXPECT_EQ(2, run_prog(&r, 60, bin, "profile", "operand", NULL));
	EXPECT_EQ(1, run_prog(&r, 60, bin, "profile", "-i", "/nonexistent/perf.data", NULL));
	EXPECT_NE(NULL, strstr(r.err, "/nonexistent/perf.data")) TH_LOG("%s", r.err);
	EXPECT_EQ(0, run_prog(&r, 60, bin, "profile", "--help", NULL));
	EXPECT_NE(NULL, strstr(r.out, "usage: inkprobe profile"));
	unlink(path);
	unlink(kallsyms);
	unlink(out);
}

/*
 * perf record -a's files: a second event (its dummy) of another sample
 * type; every sample starts with its event's ID (PERF_SAMPLE_IDENTIFIER),
 * which the attrs' ID sections map to the event.
 */
TEST(perf_data_events_by_identifier)
{
	struct perf_event_attr clock = {
		.type = PERF_TYPE_SOFTWARE, .size = sizeof(clock),
		.config = PERF_COUNT_SW_CPU_CLOCK, .sample_freq = 99, .freq = 1,
		.sample_type = PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_TID | PERF_SAMPLE_PERIOD |
			       PERF_SAMPLE_CALLCHAIN,
	};
	struct perf_event_attr dummy = {
		.type = PERF_TYPE_SOFTWARE, .size = sizeof(dummy),
		.config = PERF_COUNT_SW_DUMMY,
		.sample_type = PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_TID | PERF_SAMPLE_TIME,
	};
	const uint64_t chain[] = { PERF_CONTEXT_KERNEL, VFS_WRITE + 8, VFS_READ + 16 };
	static struct file_bytes f;
	struct perf_data_info info;
	struct collected c = { 0 };
	char path[64], why[256];
	size_t ids_at, data_at, attr_size = sizeof(clock) + 16;
	FILE *fp;

	put(&f, "PERFILE2", 8);
	put_u64(&f, 104);
	put_u64(&f, attr_size);
	f.len = 104;
	/* the IDs: 11 and 12 for cpu-clock (two CPUs), 21 for the dummy */
	ids_at = f.len;
	put_u64(&f, 11);
	put_u64(&f, 12);
	put_u64(&f, 21);
	put(&f, &clock, sizeof(clock));
	put_u64(&f, ids_at);
	put_u64(&f, 16);
	put(&f, &dummy, sizeof(dummy));
	put_u64(&f, ids_at + 16);
	put_u64(&f, 8);
	data_at = f.len;
	/* cpu-clock (ID 12): id, pid/tid, period, callchain */
	put_header(&f, PERF_RECORD_SAMPLE, 8 + 8 + 8 + 8 + 8 + 3 * 8);
	put_u64(&f, 12);
	put_u32(&f, 7);
	put_u32(&f, 8);
	put_u64(&f, 777);
	put_u64(&f, 3);
	put(&f, chain, sizeof(chain));
	/* the dummy (ID 21): id, pid/tid, time -- no callchain */
	put_header(&f, PERF_RECORD_SAMPLE, 8 + 8 + 8 + 8);
	put_u64(&f, 21);
	put_u32(&f, 7);
	put_u32(&f, 8);
	put_u64(&f, 123);
	/* an ID no event has: skipped */
	put_header(&f, PERF_RECORD_SAMPLE, 8 + 8);
	put_u64(&f, 99);
	memcpy(f.b + 24, &(uint64_t){ ids_at + 24 }, 8);
	memcpy(f.b + 32, &(uint64_t){ 2 * attr_size }, 8);
	memcpy(f.b + 40, &(uint64_t){ data_at }, 8);
	memcpy(f.b + 48, &(uint64_t){ f.len - data_at }, 8);
	snprintf(path, sizeof(path), "/tmp/inkprobe-profile-ids.%d", (int)getpid());
	fp = fopen(path, "wb");
	ASSERT_NE(NULL, fp);
	ASSERT_EQ(1, fwrite(f.b, f.len, 1, fp));
	fclose(fp);
	ASSERT_EQ(0, perf_data_read(path, collect, &c, &info, why, sizeof(why)))
		TH_LOG("%s", why);
	unlink(path);
	EXPECT_EQ(99, info.hz);
	EXPECT_STREQ("cpu-clock", info.event);
	EXPECT_EQ(2, info.samples);
	EXPECT_EQ(1, info.other);
	ASSERT_EQ(2, c.n);
	EXPECT_EQ(8, c.s[0].tid);
	EXPECT_EQ(777, c.s[0].period);
	ASSERT_EQ(3, c.s[0].nr);
	EXPECT_EQ(VFS_READ + 16, c.s[0].chain[2]);
	EXPECT_EQ(123, c.s[1].time);
	EXPECT_EQ(0, c.s[1].nr);
}

TEST(perf_data_refused)
{
	static struct file_bytes f;
	struct perf_data_info info;
	struct collected c = { 0 };
	char path[64], why[256];
	FILE *fp;

	/* pipe mode: the header is 16 bytes */
	put(&f, "PERFILE2", 8);
	put_u64(&f, 16);
	f.len = 104;
	snprintf(path, sizeof(path), "/tmp/inkprobe-profile-pipe.%d", (int)getpid());
	fp = fopen(path, "wb");
	ASSERT_NE(NULL, fp);
	ASSERT_EQ(1, fwrite(f.b, f.len, 1, fp));
	fclose(fp);
	EXPECT_EQ(-1, perf_data_read(path, collect, &c, &info, why, sizeof(why)));
	EXPECT_NE(NULL, strstr(why, "pipe mode")) TH_LOG("%s", why);
	/* not perf.data */
	fp = fopen(path, "wb");
	ASSERT_NE(NULL, fp);
	memset(f.b, 'x', 128);
	ASSERT_EQ(1, fwrite(f.b, 128, 1, fp));
	fclose(fp);
	EXPECT_EQ(-1, perf_data_read(path, collect, &c, &info, why, sizeof(why)));
	EXPECT_NE(NULL, strstr(why, "magic")) TH_LOG("%s", why);
	unlink(path);
	EXPECT_EQ(0, c.n);
}

TEST_HARNESS_MAIN
