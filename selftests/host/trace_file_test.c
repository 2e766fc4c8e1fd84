// SPDX-License-Identifier: GPL-2.0
/*
 * The recorded trace file of `inkprobe trace --output` and its report,
 * `--input` (user/trace/trace_file.c, report.c, stream.c), under ASan/UBSan:
 * - a file written with the writer API from pages made here in the ring
 *   buffer's encoding (the kernel's kernel/trace/ring_buffer.c: a page time
 *   stamp, the commit word, events of a 5-bit type and length and a 27-bit
 *   time delta, a time extend for a longer delta), events of formats written
 *   here as tracefs writes them, reads back chunk by chunk;
 * - `build/inkprobe-san trace --input` prints it as the text and JSON the
 *   expected lines below spell out from those bytes (names from the task
 *   snapshot and from task_newtask, stamps merged across CPUs up to each
 *   read's clock, the loss where it was found, symbols from a kallsyms of
 *   our own);
 * - every truncation of the file is refused with the byte offset; every
 *   one-bit flip is refused or decoded, never a crash (ASan/UBSan abort
 *   the test), and every flip in the header or metadata is refused;
 * - pages whose records would take libtraceevent's kbuffer outside the page
 *   (a commit past the chunk, an event across the end, a padding going
 *   backwards, a length word under 4) are refused, naming the chunk's byte;
 *   records shorter than their format are printed without reading past them.
 */
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "../run_prog.h"
#include "../../user/common/util.h"
#include "../../user/trace/ksyms.h"
#include "../../user/trace/report.h"
#include "../../user/trace/trace_file.h"

#define PAGE		4096
#define HEAD		16	/* time stamp and a 64-bit commit */
#define BASE_TS		1000000000ULL

/* ---- what tracefs has ---- */

static const char header_page[] =
	"\tfield: u64 timestamp;\toffset:0;\tsize:8;\tsigned:0;\n"
	"\tfield: local_t commit;\toffset:8;\tsize:8;\tsigned:1;\n"
	"\tfield: int overwrite;\toffset:8;\tsize:1;\tsigned:1;\n"
	"\tfield: char data;\toffset:16;\tsize:4080;\tsigned:1;\n";

static const char header_event[] =
	"# compressed entry header\n"
	"\ttype_len    :    5 bits\n"
	"\ttime_delta  :   27 bits\n"
	"\tarray       :   32 bits\n"
	"\n"
	"\tpadding     : type == 29\n"
	"\ttime_extend : type == 30\n"
	"\ttime_stamp : type == 31\n"
	"\tdata max type_len  == 28\n";

#define COMMON_FIELDS \
	"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n" \
	"\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n" \
	"\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n" \
	"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n"

/* an inkprobe event: p:tst/hit SITE v=... name=+0(...):string */
#define HIT_ID	1400
static const char hit_format[] =
	"name: hit\n"
	"ID: 1400\n"
	"format:\n"
	COMMON_FIELDS
	"\n"
	"\tfield:unsigned long __probe_ip;\toffset:8;\tsize:8;\tsigned:0;\n"
	"\tfield:u32 __optimized_out;\toffset:16;\tsize:4;\tsigned:0;\n"
	"\tfield:u32 __fault;\toffset:20;\tsize:4;\tsigned:0;\n"
	"\tfield:u64 v;\toffset:24;\tsize:8;\tsigned:0;\n"
	"\tfield:__data_loc char[] name;\toffset:32;\tsize:4;\tsigned:1;\n"
	"\n"
	"print fmt: \"(%pS) v=0x%llx%s%s name=\\\"%s\\\"%s%s\", REC->__probe_ip, REC->v, "
	"(REC->__optimized_out & 0x1) ? \" (optimized out)\" : \"\", "
	"(REC->__fault & 0x1) ? \" (fault)\" : \"\", __get_str(name), "
	"(REC->__optimized_out & 0x2) ? \" (optimized out)\" : \"\", "
	"(REC->__fault & 0x2) ? \" (fault)\" : \"\"\n";

/* another event: printed by its print fmt */
#define TICK_ID	1401
static const char tick_format[] =
	"name: tick\n"
	"ID: 1401\n"
	"format:\n"
	COMMON_FIELDS
	"\n"
	"\tfield:int value;\toffset:8;\tsize:4;\tsigned:1;\n"
	"\n"
	"print fmt: \"value=%d\", REC->value\n";

/* as 6.1's tracefs has it */
#define NEWTASK_ID	121
static const char newtask_format[] =
	"name: task_newtask\n"
	"ID: 121\n"
	"format:\n"
	COMMON_FIELDS
	"\n"
	"\tfield:pid_t pid;\toffset:8;\tsize:4;\tsigned:1;\n"
	"\tfield:char comm[16];\toffset:12;\tsize:16;\tsigned:0;\n"
	"\tfield:unsigned long clone_flags;\toffset:32;\tsize:8;\tsigned:0;\n"
	"\tfield:short oom_score_adj;\toffset:40;\tsize:2;\tsigned:1;\n"
	"\n"
	"print fmt: \"pid=%d comm=%s clone_flags=%lx oom_score_adj=%hd\", REC->pid, REC->comm, "
	"REC->clone_flags, REC->oom_score_adj\n";

static const char kallsyms[] =
	"ffffffffc0001000 t tgt_caller_a\t[inkprobe_target]\n"
	"ffffffffc0001100 t tgt_caller_b\t[inkprobe_target]\n";

#define HIT_IP	0xffffffffc000102fULL	/* tgt_caller_a+0x2f */

/* ---- pages, as the ring buffer writes them ---- */

struct page {
	unsigned char b[PAGE];
	size_t len;		/* of the data */
	uint64_t ts;		/* the last event's */
};

static void put32(unsigned char *p, uint32_t v)
{
	memcpy(p, &v, 4);
}

static void put64(unsigned char *p, uint64_t v)
{
	memcpy(p, &v, 8);
}

static void page_init(struct page *p, uint64_t ts)
{
	memset(p, 0, sizeof(*p));
	put64(p->b, ts);
	p->ts = ts;
}

static void page_word(struct page *p, uint32_t w)
{
	put32(p->b + HEAD + p->len, w);
	p->len += 4;
	put64(p->b + 8, p->len);	/* the commit */
}

/* An event of @n bytes at @ts: a time extend before it if the delta needs more than 27 bits. */
static void page_event(struct page *p, uint64_t ts, const void *data, size_t n)
{
	uint64_t delta = ts - p->ts;
	size_t n4 = (n + 3) & ~(size_t)3;

	if (delta >> 27) {
		page_word(p, 30 | (uint32_t)(delta & ((1U << 27) - 1)) << 5);
		page_word(p, (uint32_t)(delta >> 27));
		delta = 0;
	}
	page_word(p, (uint32_t)(n4 / 4) | (uint32_t)delta << 5);
	memcpy(p->b + HEAD + p->len, data, n);
	p->len += n4;
	put64(p->b + 8, p->len);
	p->ts = ts;
}

struct rec {
	unsigned char b[64];
	size_t len;
};

static void common(struct rec *r, uint16_t id, int32_t pid, size_t len)
{
	memset(r, 0, sizeof(*r));
	memcpy(r->b, &id, 2);
	memcpy(r->b + 4, &pid, 4);
	r->len = len;
}

static void hit(struct rec *r, int32_t pid, uint64_t v, const char *name)
{
	uint32_t n = strlen(name) + 1;

	common(r, HIT_ID, pid, 36 + n);
	put64(r->b + 8, HIT_IP);
	put64(r->b + 24, v);
	put32(r->b + 32, n << 16 | 36);
	memcpy(r->b + 36, name, n);
}

static void tick(struct rec *r, int32_t pid, int32_t value)
{
	common(r, TICK_ID, pid, 12);
	memcpy(r->b + 8, &value, 4);
}

static void newtask(struct rec *r, int32_t parent, int32_t pid, const char *comm)
{
	common(r, NEWTASK_ID, parent, 42);
	memcpy(r->b + 8, &pid, 4);
	memcpy(r->b + 12, comm, strlen(comm));
}

/* ---- the file ---- */

static void writer_meta(struct ink_tf_writer *w)
{
	struct ink_tf_format formats[] = {
		{ "task", newtask_format, sizeof(newtask_format) - 1 },
		{ "tst", hit_format, sizeof(hit_format) - 1 },
		{ "tst", tick_format, sizeof(tick_format) - 1 },
	};
	struct ink_tf_comm comms[] = { { 100, "worker" }, { 200, "old" } };
	struct ink_tf_meta m = {
		.page_size = PAGE, .long_size = 8, .nr_cpus = 2, .clock = "local",
		.header_page = header_page, .header_page_len = sizeof(header_page) - 1,
		.header_event = header_event, .header_event_len = sizeof(header_event) - 1,
		.formats = formats, .nr_formats = 3, .comms = comms, .nr_comms = 2,
	};

	ink_tf_write_meta(w, &m);
}

/* The whole file in memory (a tmpfile's bytes). */
static unsigned char *finish(struct ink_tf_writer *w, size_t *len)
{
	unsigned char *data;

	if (!ink_tf_flush(w))
		return NULL;
	*len = w->written;
	data = xmalloc(*len + 1);
	if (pread(w->fd, data, *len, 0) != (ssize_t)*len)
		return NULL;
	close(w->fd);
	ink_tf_writer_free(w);
	return data;
}

static int tmp_fd(void)
{
	return fileno(tmpfile());
}

/* Where the chunks of the good file start: filled by good_file(). */
static uint64_t page_a_at, end_at, meta_end;

/*
 * CPU 0: a hit of pid 100 (the snapshot's "worker") at BASE_TS, a tick of
 * pid 200 ("old") 1 us later; CPU 1: pid 100 makes pid 300 "child" at
 * +0.5 us, a tick of 300 at +2.5 us.  The read ends with the clock at +2 us:
 * 300's tick waits.  3 events lost on CPU 1.  Then CPU 0: a tick of pid 0
 * 2^27 + 5 ns after the page's stamp (a time extend), and the end.
 */
static unsigned char *good_file(size_t *len)
{
	struct ink_tf_writer w;
	struct page p;
	struct rec r;
	const uint64_t lost[2] = { 0, 3 };

	ink_tf_writer_init(&w, tmp_fd());
	writer_meta(&w);
	meta_end = w.out.len;

	page_init(&p, BASE_TS);
	hit(&r, 100, 0x2a, "ab");
	page_event(&p, BASE_TS, r.b, r.len);
	tick(&r, 200, -5);
	page_event(&p, BASE_TS + 1000, r.b, r.len);
	page_a_at = w.out.len;
	ink_tf_write_page(&w, 0, p.b, PAGE);	/* trimmed to its data */

	page_init(&p, BASE_TS + 500);
	newtask(&r, 100, 300, "child");
	page_event(&p, BASE_TS + 500, r.b, r.len);
	tick(&r, 300, 7);
	page_event(&p, BASE_TS + 2500, r.b, r.len);
	ink_tf_write_page(&w, 1, p.b, PAGE);
	ink_tf_write_lost(&w, 1, 3);
	ink_tf_write_cycle(&w, BASE_TS + 2000);

	page_init(&p, BASE_TS);
	tick(&r, 0, 1);
	page_event(&p, BASE_TS + (1ULL << 27) + 5, r.b, r.len);
	ink_tf_write_page(&w, 0, p.b, PAGE);
	ink_tf_write_cycle(&w, UINT64_MAX);
	end_at = w.out.len;
	ink_tf_write_end(&w, lost, 2);
	return finish(&w, len);
}

static const char good_text[] =
	"          worker-100     [000]     1.000000: tst:hit: (tgt_caller_a+0x2f) v=0x2a "
	"name=\"ab\"\n"
	"             old-200     [000]     1.000001: tst:tick: value=-5\n"
	"CPU:1 [LOST 3 EVENTS]\n"
	"           child-300     [001]     1.000003: tst:tick: value=7\n"
	"          <idle>-0       [000]     1.134218: tst:tick: value=1\n";

static const char good_json[] =
	"{\"comm\":\"worker\",\"pid\":100,\"cpu\":0,\"ts\":1.000000,\"ts_raw\":1000000000,"
	"\"group\":\"tst\",\"event\":\"hit\",\"ip\":18446744072635813935,"
	"\"caller\":\"tgt_caller_a\",\"offset\":47,\"args\":{\"v\":42,\"name\":\"ab\"}}\n"
	"{\"comm\":\"old\",\"pid\":200,\"cpu\":0,\"ts\":1.000001,\"ts_raw\":1000001000,"
	"\"group\":\"tst\",\"event\":\"tick\",\"fields\":{\"value\":-5}}\n"
	"{\"cpu\":1,\"lost\":3}\n"
	"{\"comm\":\"child\",\"pid\":300,\"cpu\":1,\"ts\":1.000003,\"ts_raw\":1000002500,"
	"\"group\":\"tst\",\"event\":\"tick\",\"fields\":{\"value\":7}}\n"
	"{\"comm\":\"<idle>\",\"pid\":0,\"cpu\":0,\"ts\":1.134218,\"ts_raw\":1134217733,"
	"\"group\":\"tst\",\"event\":\"tick\",\"fields\":{\"value\":1}}\n";

static const char good_warning[] =
	"inkprobe: trace: 3 events lost, 5 read: the buffer was full "
	"(a larger --buffer-kb keeps more)\n";

static char kallsyms_path[64];

/*
 * $INKPROBE_KALLSYMS: the symbols of the report, made before the tests
 * (each runs in a child of this process) and removed after them.
 */
__attribute__((constructor)) static void make_kallsyms(void)
{
	int fd;

	snprintf(kallsyms_path, sizeof(kallsyms_path), "/tmp/trace-file-test-%d.kallsyms",
		 (int)getpid());
	fd = open(kallsyms_path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	if (fd < 0 || write(fd, kallsyms, sizeof(kallsyms) - 1) != sizeof(kallsyms) - 1)
		abort();
	close(fd);
	setenv("INKPROBE_KALLSYMS", kallsyms_path, 1);
}

__attribute__((destructor)) static void remove_kallsyms(void)
{
	unlink(kallsyms_path);
}

static void save(const char *path, const unsigned char *data, size_t len)
{
	FILE *f = fopen(path, "w");

	if (!f || fwrite(data, 1, len, f) != len || fclose(f))
		abort();
}

/* ---- the report, in this process ---- */

static struct ksyms *syms;

static bool sym_lookup(void *ctx, uint64_t addr, struct ink_sym *out)
{
	return ksyms_lookup(syms, addr, out);
}

struct report {
	int status;
	char out[8192], err[1024];
};

static void slurp(int fd, char *buf, size_t n)
{
	ssize_t got = pread(fd, buf, n - 1, 0);

	buf[got > 0 ? got : 0] = '\0';
	close(fd);
}

/* ink_report() on @len bytes of @data: its exit status, stdout and stderr. */
static int report(struct report *r, const unsigned char *data, size_t len, bool json)
{
	static const struct ink_symbolizer symbolizer = { .lookup = sym_lookup };
	struct ink_report_opts o = { .json = json, .out_fd = tmp_fd() };
	int err = tmp_fd(), saved;
	FILE *f;

	if (!syms)
		syms = ksyms_load();
	o.ctx.syms = &symbolizer;
	/* fmemopen() wants a size: an empty file is a file of one byte read to 0 */
	f = fmemopen((void *)(len ? data : (const unsigned char *)"x"), len ? len : 1, "r");
	if (!f)
		abort();
	if (!len)
		fgetc(f);
	fflush(stderr);
	saved = dup(2);
	dup2(err, 2);
	r->status = ink_report(f, "test", &o);
	fflush(stderr);
	dup2(saved, 2);
	close(saved);
	fclose(f);
	slurp(o.out_fd, r->out, sizeof(r->out));
	slurp(err, r->err, sizeof(r->err));
	return r->status;
}

/* ---- tests ---- */

TEST(written_then_read_chunk_by_chunk)
{
	static const enum ink_tf_kind kinds[] = {
		INK_TF_PAGE, INK_TF_PAGE, INK_TF_LOST, INK_TF_CYCLE, INK_TF_PAGE, INK_TF_CYCLE,
		INK_TF_END,
	};
	struct ink_tf_reader r;
	struct ink_tf_chunk c;
	size_t len, i;
	unsigned char *data = good_file(&len);
	FILE *f;

	ASSERT_NE(NULL, data);
	f = fmemopen(data, len, "r");
	ASSERT_EQ(0, ink_tf_open(&r, f)) TH_LOG("%s", r.err);
	EXPECT_EQ(PAGE, r.meta.page_size);
	EXPECT_EQ(8, r.meta.long_size);
	EXPECT_EQ(2, r.meta.nr_cpus);
	EXPECT_FALSE(r.meta.big_endian);
	EXPECT_STREQ("local", r.meta.clock);
	ASSERT_EQ(sizeof(header_page) - 1, r.meta.header_page_len);
	EXPECT_EQ(0, memcmp(header_page, r.meta.header_page, r.meta.header_page_len));
	ASSERT_EQ(sizeof(header_event) - 1, r.meta.header_event_len);
	ASSERT_EQ(3, r.meta.nr_formats);
	EXPECT_STREQ("task", r.meta.formats[0].system);
	EXPECT_STREQ("tst", r.meta.formats[2].system);
	ASSERT_EQ(sizeof(tick_format) - 1, r.meta.formats[2].len);
	EXPECT_EQ(0, memcmp(tick_format, r.meta.formats[2].text, r.meta.formats[2].len));
	ASSERT_EQ(2, r.meta.nr_comms);
	EXPECT_EQ(200, r.meta.comms[1].pid);
	EXPECT_STREQ("old", r.meta.comms[1].comm);
	for (i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++) {
		ASSERT_EQ(1, ink_tf_next(&r, &c)) TH_LOG("chunk %zu: %s", i, r.err);
		EXPECT_EQ(kinds[i], c.kind);
		if (i == 0) {
			/* two events, 40 + 4 and 12 + 4 bytes: the page up to them */
			EXPECT_EQ(HEAD + 44 + 16, c.len);
			EXPECT_EQ(page_a_at, c.off);
		}
		if (i == 2)
			EXPECT_EQ(3, c.value);
		if (i == 3)
			EXPECT_EQ(BASE_TS + 2000, c.value);
		if (i == 6)
			EXPECT_EQ(end_at, c.off);
	}
	EXPECT_EQ(0, ink_tf_next(&r, &c)) TH_LOG("%s", r.err);
	ink_tf_close(&r);
	fclose(f);
	free(data);
}

TEST(input_prints_what_the_stream_would)
{
	char path[64], bin[1024];
	const char *top = getenv("INKPROBE_TOP");
	struct report *in = xcalloc(1, sizeof(*in));
	struct run r;
	size_t len;
	unsigned char *data = good_file(&len);

	ASSERT_NE(NULL, data);
	snprintf(path, sizeof(path), "/tmp/trace-file-test-%d.ink", (int)getpid());
	snprintf(bin, sizeof(bin), "%s/build/inkprobe-san", top && *top ? top : ".");
	save(path, data, len);
	EXPECT_EQ(0, run_prog(&r, 60, bin, "trace", "-i", path, NULL));
	EXPECT_STREQ(good_text, r.out);
	EXPECT_STREQ(good_warning, r.err);
	EXPECT_EQ(0, run_prog(&r, 60, bin, "trace", "--input", path, "--json", NULL));
	EXPECT_STREQ(good_json, r.out);
	EXPECT_STREQ(good_warning, r.err);
	/* --count: the first two events; the loss found in that read is said */
	EXPECT_EQ(0, run_prog(&r, 60, bin, "trace", "-i", path, "--count", "2", NULL));
	EXPECT_EQ(0, strncmp(good_text, r.out, strlen(r.out)));
	EXPECT_NE(NULL, strstr(r.out, "CPU:1 [LOST 3 EVENTS]\n"));
	EXPECT_EQ(NULL, strstr(r.out, "child"));
	/* and in this process, the same */
	EXPECT_EQ(0, report(in, data, len, false));
	EXPECT_STREQ(good_text, in->out);
	EXPECT_STREQ(good_warning, in->err);
	unlink(path);
	free(data);
	free(in);
}

/* the report of every cut and every flip: minutes under ASan on a busy host */
FIXTURE(file) {
};

FIXTURE_SETUP(file)
{
}

FIXTURE_TEARDOWN(file)
{
}

TEST_F_TIMEOUT(file, every_truncation_is_refused_with_its_offset, 900)
{
	struct report *r = xcalloc(1, sizeof(*r));
	size_t len, cut;
	unsigned char *data = good_file(&len);
	char want[96];

	ASSERT_NE(NULL, data);
	ASSERT_EQ(0, report(r, data, len, false));
	for (cut = 0; cut < len; cut++) {
		ASSERT_EQ(1, report(r, data, cut, cut % 2)) TH_LOG("cut at %zu: %s", cut, r->err);
		ASSERT_EQ(0, strncmp(r->err, "inkprobe: trace: test: at byte ", 31))
			TH_LOG("cut at %zu: %s", cut, r->err);
	}
	/* what the message says, at a few places */
	report(r, data, 20, false);
	EXPECT_STREQ("inkprobe: trace: test: at byte 20: the file ends in its header "
		     "(40 bytes)\n", r->err);
	report(r, data, page_a_at, false);
	snprintf(want, sizeof(want), "at byte %llu: the file ends without its trailer",
		 (unsigned long long)page_a_at);
	EXPECT_NE(NULL, strstr(r->err, want)) TH_LOG("%s", r->err);
	report(r, data, page_a_at + 20, false);
	snprintf(want, sizeof(want), "at byte %llu: the file ends in a chunk of 76 bytes (8 read)",
		 (unsigned long long)page_a_at + 20);
	EXPECT_NE(NULL, strstr(r->err, want)) TH_LOG("%s", r->err);
	/* the records before the cut are printed: all of them, the trailer cut */
	report(r, data, len - 1, false);
	EXPECT_STREQ(good_text, r->out);
	free(data);
	free(r);
}

TEST_F_TIMEOUT(file, every_bit_flip_is_refused_or_decoded, 900)
{
	struct report *r = xcalloc(1, sizeof(*r));
	size_t len, i, refused = 0, decoded = 0;
	unsigned char *data = good_file(&len);

	ASSERT_NE(NULL, data);
	/* a bit of each byte, every bit of the byte in turn */
	for (i = 0; i < len; i++) {
		int bit = (i * 3) % 8;

		data[i] ^= 1 << bit;
		report(r, data, len, i % 2);
		data[i] ^= 1 << bit;
		ASSERT_TRUE(r->status == 0 || r->status == 1);
		if (r->status)
			refused++;
		else
			decoded++;
		/* the header and metadata have CRCs: none of them decodes */
		if (i < meta_end)
			ASSERT_EQ(1, r->status) TH_LOG("byte %zu bit %d decoded", i, bit);
	}
	TH_LOG("%zu flips: %zu refused, %zu decoded", len, refused, decoded);
	EXPECT_EQ(len, refused + decoded);
	free(data);
	free(r);
}

/* A file of the good metadata and one page of @p's first @len bytes; where it is. */
static unsigned char *one_page_file(const struct page *p, size_t page_len, size_t *len,
				    uint64_t *at)
{
	const uint64_t lost[2] = { 0, 0 };
	struct ink_tf_writer w;

	unsigned char h[INK_TF_CHUNK_HEADER];

	ink_tf_writer_init(&w, tmp_fd());
	writer_meta(&w);
	ink_tf_write_cycle(&w, 0);
	/* the chunk as it is: the writer would trim the page to what its commit says */
	*at = w.out.len;
	put32(h, INK_TF_PAGE);
	put32(h + 4, 0);
	put32(h + 8, (uint32_t)page_len);
	buf_add(&w.out, h, sizeof(h));
	buf_add(&w.out, p->b, page_len);
	ink_tf_write_cycle(&w, UINT64_MAX);
	ink_tf_write_end(&w, lost, 2);
	return finish(&w, len);
}

/* A file of page @p is refused: "at byte B: CPU 0's page: @why", B the chunk's. */
static void refused(struct __test_metadata *_metadata, const struct page *p, const char *why)
{
	struct report *r = xcalloc(1, sizeof(*r));
	unsigned char *data;
	char want[200];
	size_t len;
	uint64_t at;

	data = one_page_file(p, HEAD + p->len, &len, &at);
	EXPECT_EQ(1, report(r, data, len, false));
	snprintf(want, sizeof(want), "at byte %llu: CPU 0's page: %s", (unsigned long long)at, why);
	EXPECT_NE(NULL, strstr(r->err, want)) TH_LOG("%s", r->err);
	free(data);
	free(r);
}

TEST(pages_kbuffer_cannot_walk_are_refused)
{
	struct page p;
	struct rec rec;

	tick(&rec, 100, 1);
	/* a commit beyond the bytes of the chunk */
	page_init(&p, BASE_TS);
	page_event(&p, BASE_TS, rec.b, rec.len);
	put64(p.b + 8, 400);
	refused(_metadata, &p, "its data (400 bytes) goes past its 32 bytes");

	/* an event of 28 words in 16 bytes of data */
	page_init(&p, BASE_TS);
	page_event(&p, BASE_TS, rec.b, rec.len);
	put32(p.b + HEAD, 28);
	refused(_metadata, &p, "an event at 16 of 112 bytes crosses the data's end (32)");

	/* a padding whose length takes it back to the start: kbuffer would loop */
	page_init(&p, BASE_TS);
	page_event(&p, BASE_TS, rec.b, rec.len);
	page_word(&p, 29);
	page_word(&p, (uint32_t)-20);
	page_event(&p, BASE_TS, rec.b, rec.len);
	refused(_metadata, &p, "a padding at 32 goes backwards");

	/* a long event's length word under 4 (kbuffer: a negative length) */
	page_init(&p, BASE_TS);
	page_word(&p, 0);
	page_word(&p, 2);
	refused(_metadata, &p, "an event at 16 has a length of 2");

	/* an event's header cut by the commit */
	page_init(&p, BASE_TS);
	page_event(&p, BASE_TS, rec.b, rec.len);
	page_word(&p, 0);
	put64(p.b + 8, p.len - 2);
	refused(_metadata, &p, "an event's header at 32 crosses the data's end");
}

TEST(short_records_are_not_read_past)
{
	struct report *r = xcalloc(1, sizeof(*r));
	struct page p;
	struct rec rec;
	size_t len;
	uint64_t at;
	unsigned char *data;

	page_init(&p, BASE_TS);
	tick(&rec, 100, 1);
	page_event(&p, BASE_TS, rec.b, 4);	/* common_type and flags only */
	hit(&rec, 100, 0x2a, "ab");
	page_event(&p, BASE_TS + 1000, rec.b, 28);	/* v and name cut */
	data = one_page_file(&p, HEAD + p.len, &len, &at);
	ASSERT_EQ(0, report(r, data, len, false)) TH_LOG("%s", r->err);
	/* a record without its common_pid has pid -1 */
	EXPECT_STREQ("           <...>--1      [000]     1.000000: tst:tick: (bad record)\n"
		     "          worker-100     [000]     1.000001: tst:hit: (tgt_caller_a+0x2f) "
		     "v=0x0 name=(bad record)\n", r->out);
	ASSERT_EQ(0, report(r, data, len, true)) TH_LOG("%s", r->err);
	EXPECT_STREQ("{\"comm\":\"<...>\",\"pid\":-1,\"cpu\":0,\"ts\":1.000000,"
		     "\"ts_raw\":1000000000,\"group\":\"tst\",\"event\":\"tick\","
		     "\"fields\":{\"value\":null}}\n"
		     "{\"comm\":\"worker\",\"pid\":100,\"cpu\":0,\"ts\":1.000001,"
		     "\"ts_raw\":1000001000,\"group\":\"tst\",\"event\":\"hit\","
		     "\"ip\":18446744072635813935,\"caller\":\"tgt_caller_a\",\"offset\":47,"
		     "\"args\":{\"v\":null,\"name\":null}}\n", r->out);
	free(data);
	free(r);
}

TEST_HARNESS_MAIN
